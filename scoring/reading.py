"""Readings: one way of seeing a winning hand as 5 sets and a pair, with the winning tile placed.

A hand has one or more readings (every split of the concealed tiles plus the winning tile,
times every place the winning tile can sit in it); the scorer scores each and keeps the best.
Facts about the whole hand (its waits, suits, flowers, situation) are computed once, in `View`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .decompose import counts_of, splits, waits
from .hand import Hand, Situation
from .tiles import PLAYING, is_honour, suit


@dataclass(frozen=True, slots=True)
class Group:
    """A set of the reading: kind chow/pung/kong, its (lowest) tile, where it came from."""

    kind: str  # "chow" | "pung" | "kong"
    tile: str  # the tile of a pung/kong, the lowest tile of a chow
    meld: str | None  # "chi" | "pon" | "kong" | "ankong"; None: formed in the concealed hand
    concealed: bool  # 暗: a 暗杠, or formed in hand and not completed by another's discard

    @property
    def is_pung(self) -> bool:
        """刻子: a pung or a kong."""
        return self.kind != "chow"

    @property
    def is_open(self) -> bool:
        """Melded from another player's tile: chi, pon or open kong."""
        return self.meld is not None and self.meld != "ankong"


_MELD_GROUP = {"chi": "chow", "pon": "pung", "kong": "kong", "ankong": "kong"}


@dataclass(frozen=True, slots=True)
class View:
    """Facts of the whole hand, shared by all its readings."""

    hand: Hand
    situation: Situation
    waits: tuple[str, ...]  # 听: the tiles that completed the 16 before the win
    tiles: tuple[str, ...]  # every tile of the won hand, flowers apart
    suits: frozenset[str]  # suits of the numbered tiles ("m", "p", "s")
    has_honours: bool
    open_melds: int  # chi, pon and open kongs

    @classmethod
    def of(cls, hand: Hand) -> View:
        tiles = hand.all_tiles()
        w = waits(tuple(counts_of(hand.concealed)), tuple(counts_of(hand.held_tiles())))
        return cls(
            hand=hand,
            situation=hand.situation,
            waits=tuple(PLAYING[i] for i in w),
            tiles=tiles,
            suits=frozenset(suit(t) for t in tiles if not is_honour(t)),
            has_honours=any(is_honour(t) for t in tiles),
            open_melds=sum(m.is_open for m in hand.melds),
        )


@dataclass(frozen=True, slots=True)
class Reading:
    """Five sets and a pair, and which of them the winning tile completed (None: the pair)."""

    sets: tuple[Group, ...]
    pair: str
    win_group: Group | None
    view: View

    @property
    def situation(self) -> Situation:
        return self.view.situation

    @property
    def hand(self) -> Hand:
        return self.view.hand

    def pungs(self) -> list[str]:
        """Tiles of the pungs and kongs."""
        return [g.tile for g in self.sets if g.is_pung]


def readings(hand: Hand, view: View | None = None) -> Iterator[Reading]:
    """Every split of the concealed tiles plus the winning tile, and every distinct place of
    the winning tile in it. Assumes a legal hand (see validate.check_hand)."""
    view = view or View.of(hand)
    melded = tuple(
        Group(_MELD_GROUP[m.kind], min(m.tiles, key=PLAYING.index), m.kind, m.kind == "ankong")
        for m in hand.melds
    )
    full = counts_of(hand.concealed)
    w = PLAYING.index(hand.win)
    full[w] += 1
    discard = not hand.situation.self_draw
    for pair, shapes in splits(tuple(full)):
        places: list[tuple[str, int] | None] = [None] if pair == w else []
        for shape in dict.fromkeys(shapes):  # distinct sets, in order
            kind, i = shape
            if (kind == "pung" and i == w) or (kind == "chow" and i <= w <= i + 2 and w < 27):
                places.append(shape)
        for place in places:
            groups = []
            win_group = None
            for shape in shapes:
                kind, i = shape
                here = win_group is None and shape == place
                # A pung completed by another player's discard is exposed (明刻), not concealed.
                g = Group(kind, PLAYING[i], None, not (discard and here))
                if here:
                    win_group = g
                groups.append(g)
            yield Reading(tuple(groups) + melded, PLAYING[pair], win_group, view)
