"""Splits and waits: every way the concealed tiles plus the winning tile form sets and a pair.

Works on counts of the 34 playing faces (index order of `tiles.PLAYING`); melds are already
sets and never enter the split. The suits never share a set, so everything is read suit by
suit from memoised per-suit tables (a suit's 9 counts, or the 7 honours' → its splits, whether
it is sets only or sets and the pair, which tiles complete it): a hand costs a few table
look-ups once its suits' shapes have been seen, and there are few shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial
from itertools import compress, product
from operator import getitem, mul

from .tiles import COPIES, INDEX

Counts = tuple[int, ...]
# A set inside a split, as one small int (cheap to make, hash and compare): a pung's index
# (0..33), or CHOW plus the lowest index of a chow.
SetShape = int
CHOW = 34
# The suits as slices of the 34 counts: 万, 筒, 条 (chows) and the honours (pungs only).
SUIT_BOUNDS = ((0, 9), (9, 18), (18, 27), (27, 34))
# What a suit's counts are (SUIT_FIT): sets only, sets and the pair, or neither.
SETS, PAIR, NEITHER = 0, 2, -1
_CACHE = 1 << 16  # per-suit shapes; a whole photo search sees far fewer


def counts_of(tiles) -> list[int]:
    counts = [0] * 34
    for t in tiles:
        counts[INDEX[t]] += 1
    return counts


class Memo(dict):
    """A memo read like a dict: `table[key]` is `fn(key)`, computed at the key's first sight
    (a plain dict look-up after that, the cheapest memo Python has). Past `limit` keys it starts
    afresh, a bound for a long search."""

    def __init__(self, fn, limit: int = _CACHE) -> None:
        super().__init__()
        self.fn = fn
        self.limit = limit

    def __missing__(self, key):
        if len(self) >= self.limit:
            self.clear()
        value = self[key] = self.fn(key)
        return value


def _set_splits(key: Counts, base: int) -> tuple[tuple[SetShape, ...], ...]:
    """Every multiset of chows and pungs that uses one suit's counts exactly (each once);
    `base` is the suit's first index (27: the honours, which form no chows)."""
    if sum(key) % 3:  # not a multiple of 3 (the pair's suit): no split, without a search
        return ()
    i = next(compress(_RANKS, key), None)  # the lowest rank held
    if i is None:
        return ((),)
    out: list[tuple[SetShape, ...]] = []
    c = list(key)
    below = SET_SPLITS[base]
    if c[i] >= 3:
        c[i] -= 3
        out += [(base + i,) + rest for rest in below[tuple(c)]]
        c[i] += 3
    if base < 27 and i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        out += [(CHOW + base + i,) + rest for rest in below[tuple(c)]]
    return tuple(out)


def _pair_splits(key: Counts, base: int) -> tuple[tuple[int, tuple[tuple[SetShape, ...], ...]], ...]:
    """Every pair one suit's counts can hold, with the splits of the rest into sets: (pair
    index, splits), by pair."""
    if sum(key) % 3 != 2:
        return ()
    out = []
    c = list(key)
    # in a numbered suit, only a pair at a rank the ranks' sum allows leaves sets (see _fit)
    step, first = (3, 2 * sum(map(mul, _RANKS, key)) % 3) if base < 27 else (1, 0)
    for i in range(first, len(key), step):
        n = key[i]
        if n >= 2:
            c[i] -= 2
            rest = SET_SPLITS[base][tuple(c)]
            if rest:
                out.append((base + i, rest))
            c[i] += 2
    return tuple(out)


# Per suit, by its first index: its counts → its splits into sets; into a pair and sets.
SET_SPLITS = {a: Memo(partial(_set_splits, base=a)) for a, _ in SUIT_BOUNDS}
PAIR_SPLITS = {a: Memo(partial(_pair_splits, base=a)) for a, _ in SUIT_BOUNDS}
_SET_SPLITS_BY_SUIT, _PAIR_SPLITS_BY_SUIT = tuple(SET_SPLITS.values()), tuple(PAIR_SPLITS.values())


def _all_sets(counts, chows: bool) -> bool:
    """Whether one suit's counts are sets only. From the lowest rank up: what the chows begun
    one and two ranks below leave, modulo 3, must begin chows here (three alike chows are three
    pungs), the rest are pungs."""
    if not chows:
        return not any(n % 3 for n in counts)
    below = below2 = 0  # chows begun one and two ranks below, each still taking a tile here
    for n in counts:
        n -= below + below2
        if n < 0:
            return False
        below, below2 = n % 3, below
    return not (below or below2)  # no chow may run past the 9


_RANKS = range(9)


def _fit(key: Counts) -> int:
    """SETS: one suit's counts are sets only (none at all included); PAIR: sets and one pair;
    NEITHER otherwise. Nine counts are a numbered suit, seven the honours (no chows)."""
    left = sum(key) % 3
    chows = len(key) == 9
    if left == 0:
        return SETS if _all_sets(key, chows) else NEITHER
    if left == 2:
        # In a numbered suit every set's ranks sum to a multiple of 3 (a pung 3r, a chow 3r+3),
        # so the pair's rank p has 2p ≡ the sum of all ranks (mod 3): a third of the ranks.
        step, first = (3, 2 * sum(map(mul, _RANKS, key)) % 3) if chows else (1, 0)
        c = list(key)  # each pair taken out in place
        for i in range(first, len(key), step):
            if c[i] >= 2:
                c[i] -= 2
                if _all_sets(c, chows):
                    return PAIR
                c[i] += 2
    return NEITHER


# The set bits of a 9-bit mask, in order: the ranks a mask of ranks names.
_BITS = tuple(tuple(r for r in range(9) if m >> r & 1) for m in range(1 << 9))


def _completions(key: Counts) -> tuple[int, ...]:
    """The ranks (0-based) whose tile, added to one suit's counts, makes them sets only or sets
    and a pair (a fifth copy is never added)."""
    left = sum(key) % 3
    if left == 1:
        return _pair_completions(key)
    if left == 0:  # 3n+1 tiles are neither sets only nor sets and a pair
        return ()
    # Only a rank near a held tile can make sets only: within 2 of it in a numbered suit, the
    # same honour; and the ranks' sum must become a multiple of 3 (see _fit).
    chows = len(key) == 9
    held = 0  # the held ranks as bits
    for r, n in enumerate(key):
        if n:
            held |= 1 << r
    near = held
    if chows:
        near |= held << 1 | held << 2 | held >> 1 | held >> 2
        near &= 0b1001001 << (-sum(map(mul, _RANKS, key)) % 3)
    out = []
    c = list(key)  # each rank tried in place
    for r in _BITS[near & 0x1FF]:
        n = c[r]
        if n < COPIES:
            c[r] = n + 1
            if _all_sets(c, chows):
                out.append(r)
            c[r] = n
    return tuple(out)


def _pair_completions(key: Counts) -> tuple[int, ...]:
    """_completions of 3n+1 tiles, which become sets and a pair: the added tile pairs a held
    one whose removal leaves sets only (单吊), or a held pair is the pair and the tile makes
    the rest (3n-1 tiles) sets only, as the table of completions says."""
    out = set()
    c = list(key)  # each held tile taken out in place
    for r, n in enumerate(key):
        if not n:
            continue
        if n < COPIES:
            c[r] = n - 1
            if SUIT_FIT[tuple(c)] == SETS:
                out.add(r)
        if n >= 2:
            c[r] = n - 2
            out.update(x for x in SUIT_COMPLETIONS[tuple(c)] if x != r or n < COPIES)
        c[r] = n
    return tuple(sorted(out))


# The per-suit tables (the three numbered suits share one: a suit's shape is its 9 counts).
SUIT_FIT = Memo(_fit)
SUIT_COMPLETIONS = Memo(_completions)


def _keys(counts) -> list[Counts]:
    """The suits' counts, in SUIT_BOUNDS order (written out: every hand asks it thrice)."""
    return [tuple(counts[:9]), tuple(counts[9:18]), tuple(counts[18:27]), tuple(counts[27:34])]


def _fits(counts) -> tuple[list[Counts], list[int]]:
    """The suits' counts and what each is (SETS, PAIR or NEITHER)."""
    keys = _keys(counts)
    return keys, list(map(SUIT_FIT.__getitem__, keys))


def is_complete(counts) -> bool:
    """Whether 34 counts are sets and exactly one pair (with the melds, 5 sets and a pair)."""
    fits = list(map(SUIT_FIT.__getitem__, _keys(counts)))
    return NEITHER not in fits and fits.count(PAIR) == 1


def splits(counts: Sequence[int]) -> tuple[tuple[int, tuple[SetShape, ...]], ...]:
    """Every (pair index, sets) that uses all of `counts`: the readings of a complete hand;
    by pair index, then the sets from the lowest index, a pung before a chow."""
    return HAND_SPLITS[tuple(counts)]


def _splits(counts: Counts) -> tuple[tuple[int, tuple[SetShape, ...]], ...]:
    keys = _keys(counts)
    # Every suit but the pair's splits into sets; the pair's (3n+2 tiles) does not.
    sets = list(map(getitem, _SET_SPLITS_BY_SUIT, keys))
    if sets.count(()) != 1:
        return ()
    held = sets.index(())  # the suit of the pair
    out = []
    for pair, with_pair in _PAIR_SPLITS_BY_SUIT[held][keys[held]]:
        sets[held] = with_pair
        out += [(pair, (*m, *p, *s, *z)) for m, p, s, z in product(*sets)]  # the 4 suits' sets
    return tuple(out)


# By a hand's 34 counts: check_hand asks whether the hand splits, then its readings how.
HAND_SPLITS = Memo(_splits, limit=1 << 12)


def waits(concealed: Sequence[int], held: Sequence[int]) -> tuple[int, ...]:
    """听: faces that complete the concealed tiles, except a face all 4 of which are already
    held (in the concealed tiles and the melds, `held`), which cannot be drawn.

    The drawn tile goes into one suit; that suit must then fit, and the others already do,
    with one pair among them all."""
    keys, fits = _fits(concealed)
    misfits = fits.count(NEITHER)
    if misfits == 1:  # that suit takes the tile: 3n+1 tiles become the pair's suit, 3n+2 sets
        s = fits.index(NEITHER)
        left = sum(keys[s]) % 3
        if left == 0 or fits.count(PAIR) + (left == 1) != 1:
            return ()
        mended = [s]
    elif misfits == 0 and fits.count(PAIR) == 2:  # either pair's suit takes it (becomes sets)
        mended = [s for s, f in enumerate(fits) if f == PAIR]
    else:  # one tile mends one suit only; all fit, and not two pairs: no tile completes it
        return ()
    out: list[int] = []
    for s in mended:
        base = SUIT_BOUNDS[s][0]
        out += [base + r for r in SUIT_COMPLETIONS[keys[s]] if held[base + r] < COPIES]
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def completing_faces(counts: Counts) -> tuple[int, ...]:
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


def clear_caches() -> None:
    """Empty the memoised tables, as in a fresh process (the benchmark's cold start)."""
    completing_faces.cache_clear()
    for table in (SUIT_FIT, SUIT_COMPLETIONS, *SET_SPLITS.values(), *PAIR_SPLITS.values(), HAND_SPLITS):
        table.clear()
