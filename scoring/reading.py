"""Readings: one way of seeing a winning hand as 5 sets and a pair, with the winning tile placed.

A hand has one or more readings (every split of the concealed tiles plus the winning tile,
times every place the winning tile can sit in it); the scorer scores each and keeps the best.
Facts about the whole hand (its waits, suits, flowers, situation) are computed once, in `HandView`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations
from typing import cast

from .decompose import CHOW, Memo, counts_of, splits, waits
from .hand import Hand, Situation
from .melds import MeldKind
from .tiles import INDEX, PLAYING, SUITS, TERMINALS_AND_HONOURS

# The shapes of a win. "standard": 5 sets and a pair, the only shape of the default table.
# The others are wins only where a ruleset has an entry that makes them one (its `shape`):
# "pairs": seven pairs and one set (瀝咕瀝咕 八对半, 大车轮); "orphans": the thirteen 么九 tiles,
# one of them twice, and one set (十三么); "flowers": a flower win (八仙过海, 七抢一), no tiles.
STANDARD = "standard"
HAND_SHAPES = (STANDARD, "pairs", "orphans")
SHAPES = (*HAND_SHAPES, "flowers")


@dataclass(frozen=True, slots=True)
class Set:
    """A set of the reading: kind chow/pung/kong, its (lowest) tile, where it came from."""

    kind: str  # "chow" | "pung" | "kong"
    tile: str  # the tile of a pung/kong, the lowest tile of a chow
    meld: MeldKind | None  # the meld it is; None: formed in the concealed hand
    concealed: bool  # 暗: a 暗杠, or formed in hand and not completed by another's discard

    @property
    def is_pung(self) -> bool:
        """刻子: a pung or a kong."""
        return self.kind != "chow"

    @property
    def is_open(self) -> bool:
        """Melded from another player's tile: chi, pon or open kong."""
        return self.meld is not None and self.meld.is_open


# Facts of a hand without which some entries cannot hold (an entry's `needs`, declared with
# its predicate): the scorer does not run those entries on a hand that lacks the fact. One bit
# each in HandView.facts: flowers, four flowers or more (a 花杠), an honour tile, three or more of
# one honour (its pung), numbered tiles of one suit at most (a flush), no open meld (门清), a
# single waiting tile, and the situation's flags.
_HAND_FACTS = ("flowers", "four_flowers", "honours", "honour_pung", "flush", "concealed", "one_wait")
NEEDS = (*_HAND_FACTS, "self_draw", "heavenly", "last_tile", "rob_kong", "earthly", "human")
_FLOWERS, _FOUR_FLOWERS, _HONOURS, _HONOUR_PUNG, _FLUSH, _CONCEALED, _ONE_WAIT = (
    1 << i for i in range(len(_HAND_FACTS)))
_FLAG_NEEDS = tuple((1 << i, f) for i, f in enumerate(NEEDS) if f not in _HAND_FACTS)
_SELF_DRAW = 1 << NEEDS.index("self_draw")


@dataclass(frozen=True, slots=True)
class Counted:
    """What check_hand counted of a legal hand, given to its view so as not to count it again:
    the concealed tiles with the winning tile, every tile of the won hand (34 counts each), and
    the splits of the first (decompose.splits)."""

    full: tuple[int, ...]
    won: tuple[int, ...]
    splits: tuple


@dataclass(frozen=True, slots=True)
class HandView:
    """Facts of the whole hand, shared by all its readings."""

    hand: Hand
    situation: Situation
    waits: tuple[str, ...]  # 听: the tiles that completed the 16 before the win
    suits: frozenset[str]  # suits of the numbered tiles ("m", "p", "s")
    has_honours: bool
    open_melds: int  # chi, pon and open kongs
    flowers: tuple[str, ...]  # the flowers, a flower win's winning flower included

    counts: tuple[int, ...] = ()  # the concealed tiles and the winning tile, 34 counts
    facts: int = 0  # the NEEDS the hand has, as bits
    splits: tuple | None = None  # decompose.splits of `counts`, where check_hand found them

    @property
    def tiles(self) -> tuple[str, ...]:
        """Every tile of the won hand, flowers apart (made when an entry asks: few do)."""
        return self.hand.all_tiles()

    @classmethod
    def of(cls, hand: Hand, extra_waits: tuple[str, ...] = (), with_waits: bool = True,
           counted: Counted | None = None) -> HandView:
        """`extra_waits`: tiles that complete the hand in a special shape the ruleset allows
        (scoring.shapes.special_waits), added to the standard waits; with_waits=False skips the waits (a
        trial hand that only asks whether it is a special shape). `counted`: what
        validate.checked_counts counted of this hand, so as not to count it again."""
        win = None if hand.flower_win else INDEX[hand.win]
        found = None
        if counted is None or win is None:
            full = counts_of(hand.concealed)  # the concealed tiles; with the win below
            held = list(full)  # the 16 before the win, melds included
            for m in hand.melds:
                for t in m.tiles:
                    held[INDEX[t]] += 1
        else:
            full, held, found = list(counted.full), list(counted.won), counted.splits
            full[win] -= 1
            held[win] -= 1
        w: Sequence[int] = waits(full, held) if with_waits else ()
        if extra_waits:
            w = sorted(set(w).union(INDEX[t] for t in extra_waits))
        if win is not None:
            full[win] += 1
            held[win] += 1  # now every tile of the won hand
        open_melds = sum([m.kind.is_open for m in hand.melds])
        present = (any(held[:9]), any(held[9:18]), any(held[18:27]), any(held[27:]))  # SUIT_BOUNDS
        flowers, situation = hand.all_flowers(), hand.situation
        facts = ((0 if open_melds else _CONCEALED) | (_ONE_WAIT if len(w) == 1 else 0)
                 | (_FLUSH if present[0] + present[1] + present[2] <= 1 else 0))
        if flowers:
            facts |= _FLOWERS | (_FOUR_FLOWERS if len(flowers) >= 4 else 0)
        if present[3]:
            facts |= _HONOURS | (_HONOUR_PUNG if max(held[27:]) >= 3 else 0)
        if situation.self_draw:
            facts |= _SELF_DRAW
        if situation.heavenly or situation.last_tile or situation.rob_kong or situation.earthly or situation.human:
            facts |= sum([bit for bit, flag in _FLAG_NEEDS if getattr(situation, flag)])  # rare flags
        return cls(
            hand, situation, tuple(map(PLAYING.__getitem__, w)),
            _SUITS_OF[present[0], present[1], present[2]], present[3], open_melds,
            flowers, tuple(full), facts, found)


# The suits present, by whether each of 万 筒 条 is: one value per combination.
_SUITS_OF = {tuple(s in kept for s in SUITS): frozenset(kept)
             for n in range(4) for kept in combinations(SUITS, n)}


@dataclass(frozen=True, slots=True)
class Decomposition:
    """Five sets and a pair, and which of them the winning tile completed (None: the pair).

    A special shape (see SHAPES) keeps its one set (and any meld) in `sets`; `pair` is the
    doubled tile of 十三么 (None for seven pairs and flower wins) and `pairs` the seven pairs."""

    sets: tuple[Set, ...]
    pair: str | None
    win_group: Set | None
    view: HandView
    shape: str = STANDARD
    pairs: tuple[str, ...] = ()
    # Read by many entries, so found once: the tiles of the pungs and kongs, and how many of
    # them are concealed (暗刻, 暗杠 included).
    pung_tiles: tuple[str, ...] = field(init=False, repr=False, compare=False)
    concealed_pungs: int = field(init=False, repr=False, compare=False)
    situation: Situation = field(init=False, repr=False, compare=False)  # the view's

    def __post_init__(self) -> None:
        pungs = [g for g in self.sets if g.kind != "chow"]
        object.__setattr__(self, "pung_tiles", tuple([g.tile for g in pungs]))
        object.__setattr__(self, "concealed_pungs", [g.concealed for g in pungs].count(True))
        object.__setattr__(self, "situation", self.view.situation)

    @property
    def hand(self) -> Hand:
        return self.view.hand


def readings(hand: Hand, view: HandView | None = None) -> Iterator[Decomposition]:
    """Every split of the concealed tiles plus the winning tile, and every distinct place of
    the winning tile in it. Assumes a legal hand (see validate.check_hand)."""
    view = view or HandView.of(hand)
    if hand.flower_win:
        return
    melded = _melded(hand)
    w = INDEX[hand.win]
    discard = not view.situation.self_draw
    holds = _HOLDING[w]
    for pair, shapes in view.splits if view.splits is not None else splits(view.counts):
        places: list[int | None] = [None] if pair == w else []
        places += filter(holds.__contains__, dict.fromkeys(shapes))  # distinct, in order
        formed = tuple(map(_IN_HAND.__getitem__, shapes))
        for place in places:
            groups = formed
            win_group = None
            if place is not None:
                k = shapes.index(place)  # the first such set takes the winning tile
                if discard:  # a set completed by another player's discard is exposed (明刻)
                    groups = (*formed[:k], _BY_DISCARD[place], *formed[k + 1:])
                win_group = groups[k]
            yield Decomposition(groups + melded, PLAYING[pair], win_group, view)


# Groups are values: one instance per value (a few hundred), made once.
_group = cache(Set)
# The sets formed in the hand, by shape (decompose.SetShape): concealed, or completed by a
# discard; None where no chow begins (no split's shape is one: typed as sets).
_CHOWS = [i for i in range(27) if i % 9 <= 6]
_IN_HAND = cast("tuple[Set, ...]", tuple(
    [_group("pung", t, None, True) for t in PLAYING]
    + [_group("chow", PLAYING[i], None, True) if i in _CHOWS else None for i in range(34)]))
_BY_DISCARD = cast("tuple[Set, ...]", tuple(
    [_group("pung", t, None, False) for t in PLAYING]
    + [_group("chow", PLAYING[i], None, False) if i in _CHOWS else None for i in range(34)]))
# By tile index, the sets that hold that tile: where a winning tile can sit.
_HOLDING = [frozenset([i] + [CHOW + c for c in _CHOWS if c <= i <= c + 2]) for i in range(34)]


def _melded(hand: Hand) -> tuple[Set, ...]:
    return tuple([_MELD_GROUPS[m.kind, m.tiles] for m in hand.melds])


def _meld_group(meld: tuple[MeldKind, tuple[str, ...]]) -> Set:
    kind, tiles = meld
    # a legal meld's lowest tile is its least code: one suit, ranks of one digit
    return _group(kind.set_kind, min(tiles), kind, not kind.is_open)


# The group of a meld, by its kind and tiles (a few hundred kinds of meld).
_MELD_GROUPS = Memo(_meld_group)


def _with_win(hand: Hand) -> tuple[list[int], int]:
    """Counts of the concealed tiles with the winning tile added, and the winning tile's index."""
    full = counts_of(hand.concealed)
    w = INDEX[hand.win]
    full[w] += 1
    return full, w


def _set_shapes(counts: list[int]):
    """Every chow or pung that can be taken out of `counts`: ("chow"|"pung", index)."""
    for i, n in enumerate(counts):
        if n >= 3:
            yield ("pung", i)
        if i < 27 and i % 9 <= 6 and n and counts[i + 1] and counts[i + 2]:
            yield ("chow", i)


def _without(counts: list[int], shape) -> list[int]:
    kind, i = shape
    c = list(counts)
    for k in ((i,) * 3 if kind == "pung" else (i, i + 1, i + 2)):
        c[k] -= 1
    return c


def _seven_pairs(counts: list[int]) -> tuple[str, ...] | None:
    """The seven pairs of 14 tiles (four alike are two pairs), or None."""
    if sum(counts) != 14 or any(n % 2 for n in counts):
        return None
    return tuple(PLAYING[i] for i, n in enumerate(counts) for _ in range(n // 2))


_ORPHANS = tuple(PLAYING.index(t) for t in TERMINALS_AND_HONOURS)


def _thirteen_orphans(counts: list[int]) -> str | None:
    """The doubled tile of 14 tiles that are the thirteen 么九 tiles and one more of them."""
    if sum(counts) != 14 or any(counts[i] == 0 for i in _ORPHANS):
        return None
    extra = [i for i, n in enumerate(counts) if n and i not in _ORPHANS]
    doubled = [i for i in _ORPHANS if counts[i] == 2]
    if extra or len(doubled) != 1:
        return None
    return PLAYING[doubled[0]]


def special_shape_possible(full: list[int], melded: bool, shapes) -> bool:
    """Whether 17 tiles' worth of counts (the one meld apart when `melded`) could be seven
    pairs or the thirteen orphans with one set: a cheap test before building readings."""
    # Taking out a set turns 1 (a pung) or 3 (a chow) counts odd to even; seven pairs leave
    # none odd. The thirteen orphans need every 么九 tile.
    odd = sum(n & 1 for n in full)
    pairs = "pairs" in shapes and odd in ((0,) if melded else (1, 3))
    orphans = "orphans" in shapes and all(full[i] for i in _ORPHANS)
    if not (pairs or orphans):
        return False
    rests = [full] if melded else [_without(full, s) for s in _set_shapes(full)]
    return any(
        (pairs and _seven_pairs(rest) is not None)
        or (orphans and _thirteen_orphans(rest) is not None)
        for rest in rests
    )


def special_readings(hand: Hand, view: HandView, shapes) -> Iterator[Decomposition]:
    """Readings of the special shapes in `shapes` (the ruleset's): a flower win, or seven pairs
    / the thirteen orphans with one set, that set either the one meld or taken from the hand."""
    if hand.flower_win:
        if "flowers" in shapes:
            yield Decomposition((), None, None, view, "flowers")
        return
    wanted = [s for s in ("pairs", "orphans") if s in shapes]
    if not wanted or len(hand.melds) > 1:
        return
    melded = _melded(hand)
    full, w = _with_win(hand)
    discard = not hand.situation.self_draw
    # (the one set, or None when it is the meld; the remaining 14 tiles)
    options = [(None, full)] if melded else [(s, _without(full, s)) for s in _set_shapes(full)]
    for shape in wanted:
        for set_shape, rest in options:
            pairs: tuple[str, ...] | None = _seven_pairs(rest) if shape == "pairs" else ()
            pair = None if shape == "pairs" else _thirteen_orphans(rest)
            if pairs is None or (shape == "orphans" and pair is None):
                continue
            places: list = [None] if rest[w] else []  # the winning tile in a pair / the 14
            if set_shape is not None:
                kind, i = set_shape
                if (kind == "pung" and i == w) or (kind == "chow" and i <= w <= i + 2):
                    places.append(set_shape)
            for place in places:
                groups = melded
                win_group = None
                if set_shape is not None:
                    kind, i = set_shape
                    here = place == set_shape
                    g = _group(kind, PLAYING[i], None, not (discard and here))
                    win_group = g if here else None
                    groups = (g,)
                yield Decomposition(groups, pair, win_group, view, shape, pairs)
