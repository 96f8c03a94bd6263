"""Splits and waits: every way the concealed tiles plus the winning tile form sets and a pair.

Works on counts of the 34 playing faces (index order of `tiles.PLAYING`); melds are already
sets and never enter the split. Results are cached, so a hand's 34 wait checks and its splits
cost little after the first sight of a shape.
"""

from __future__ import annotations

from functools import lru_cache

from .tiles import COPIES, INDEX, PLAYING

Counts = tuple[int, ...]
# A set inside a split: ("chow", lowest index) or ("pung", index).
SetShape = tuple[str, int]


def counts_of(tiles) -> list[int]:
    counts = [0] * 34
    for t in tiles:
        counts[INDEX[t]] += 1
    return counts


def _chow_start(i: int) -> bool:
    return i < 27 and i % 9 <= 6


@lru_cache(maxsize=1 << 16)
def set_splits(counts: Counts) -> tuple[tuple[SetShape, ...], ...]:
    """Every multiset of chows and pungs that uses all of `counts` exactly (each once)."""
    i = next((k for k, c in enumerate(counts) if c), None)
    if i is None:
        return ((),)
    out: list[tuple[SetShape, ...]] = []
    c = list(counts)
    if c[i] >= 3:
        c[i] -= 3
        out += [(("pung", i),) + rest for rest in set_splits(tuple(c))]
        c[i] += 3
    if _chow_start(i) and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        out += [(("chow", i),) + rest for rest in set_splits(tuple(c))]
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def splits(counts: Counts) -> tuple[tuple[int, tuple[SetShape, ...]], ...]:
    """Every (pair index, sets) that uses all of `counts`: the readings of a complete hand."""
    if sum(counts) % 3 != 2:
        return ()
    out = []
    c = list(counts)
    for i, n in enumerate(counts):
        if n >= 2:
            c[i] -= 2
            out += [(i, sets) for sets in set_splits(tuple(c))]
            c[i] += 2
    return tuple(out)


def is_complete(counts: Counts) -> bool:
    return bool(splits(counts))


@lru_cache(maxsize=1 << 16)
def _candidates(counts: Counts) -> tuple[int, ...]:
    """Faces that could possibly complete `counts`: a held face or a suit neighbour within 2."""
    out = set()
    for i, n in enumerate(counts):
        if not n:
            continue
        if i >= 27:
            out.add(i)
            continue
        lo, hi = i - i % 9, i - i % 9 + 8
        out.update(range(max(lo, i - 2), min(hi, i + 2) + 1))
    return tuple(sorted(out))


def waits(concealed: Counts, held: Counts) -> tuple[int, ...]:
    """听: faces that complete the concealed tiles, except a face all 4 of which are already
    held (in the concealed tiles and the melds, `held`), which cannot be drawn."""
    out = []
    c = list(concealed)
    for i in _candidates(concealed):
        if held[i] >= COPIES:
            continue
        c[i] += 1
        if splits(tuple(c)):
            out.append(i)
        c[i] -= 1
    return tuple(out)


def shape_tiles(shape: SetShape) -> tuple[str, ...]:
    kind, i = shape
    if kind == "chow":
        return (PLAYING[i], PLAYING[i + 1], PLAYING[i + 2])
    return (PLAYING[i],) * 3
