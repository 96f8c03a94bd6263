"""The hand as one immutable value: concealed tiles, winning tile, melds, flowers, situation.

`Hand.from_json` / `Hand.to_json` speak exactly the JSON form of the rules spec (the `hand`
objects of `tests/data/tw16-2026.09-p0-examples.json`), with an optional `table` object for
settlement. Constructing a value checks only its shape (known tile codes, meld kinds, winds);
whether it is a legal win is `scoring.validate.check_hand`.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import chain
from typing import Any

from .melds import KongOrigin, MeldKind, kong_origin, meld_kind
from .tiles import FLOWERS, INDEX, WINDS, is_flower

KONG_ORIGINS = tuple(KongOrigin)  # an open kong's origins in order, as the page offers them (scoring.melds)
FLAGS = ("last_tile", "after_kong", "rob_kong", "heavenly")
# Flags that only some rulesets score; optional in the JSON form, written only when true.
FIRST_TURN_FLAGS = ("earthly", "human", "heavenly_ready", "earthly_ready", "after_flower")
ALL_FLAGS = FLAGS + FIRST_TURN_FLAGS
# What the table (not the situation) states of the winner that a ruleset's `impossible` record
# may name beside the flags: 听牌 declared before winning.
TABLE_FLAGS = ("declared_ready",)
_SITUATION_FLAGS = ("self_draw", *ALL_FLAGS)
# Table values a real table could use: 底 and 每台 up to a million, 连庄 up to 99 (the app's
# bound); beyond them an amount is no longer money and the output no longer small.
MAX_STAKE = 1_000_000
MAX_STREAK = 99


class _Brief(reprlib.Repr):
    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = 60

    def repr_int(self, x: int, level: int) -> str:
        # repr() of an int over 4,300 digits raises; a long one is said by its size.
        digits = int(abs(x).bit_length() * 0.30103) + 1
        return repr(x) if digits <= 40 else f"<a number of about {digits} digits>"


_BRIEF = _Brief()


def brief(value: Any) -> str:
    """`repr(value)` cut short: an error message never echoes unbounded input."""
    return _BRIEF.repr(value)


class HandError(ValueError):
    """A hand that cannot be scored. The message names the problem in words a player reads; `zh`,
    where given, says it in Traditional Chinese for the table (the app shows `for_player`)."""

    def __init__(self, message: str, zh: str | None = None) -> None:
        super().__init__(message)
        self.zh = zh

    @property
    def for_player(self) -> str:
        return self.zh or str(self)


def _tile(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in INDEX:
        raise HandError(
            f"{where}: {brief(value)} is not a tile code (1m..9m, 1p..9p, 1s..9s, 1z..7z, 1f..8f)"
        )
    return value


_CODES = frozenset(INDEX)
_FLOWER_CODES = frozenset(FLOWERS)


def _tiles(values: Any, where: str) -> tuple[str, ...]:
    kind = type(values)
    if kind is not list and kind is not tuple and (isinstance(values, str) or not isinstance(values, (list, tuple))):
        raise HandError(f"{where}: expected a list of tile codes, got {brief(values)}")
    try:
        if _CODES.issuperset(values):  # one set test; a bad value is then named by its place
            return tuple(values)
    except TypeError:  # an unhashable value (a list, a dict)
        pass
    return tuple(_tile(v, f"{where}[{i}]") for i, v in enumerate(values))


def _store_tiles(value: Any, name: str, where: str) -> None:
    """Check the field `name` of a value being made (tile codes), stored as a tuple: a tuple of
    good codes, the usual case (from_json and the scorer pass their checked parts), is kept as
    it is; another sequence is copied, naming a bad code by its place."""
    tiles = getattr(value, name)
    if type(tiles) is tuple:
        _tiles(tiles, where)
    else:
        object.__setattr__(value, name, _tiles(list(tiles), where))


def _wind(value: Any, where: str) -> str:
    if value not in WINDS:
        raise HandError(f"{where}: {brief(value)} is not a wind (E, S, W or N)")
    return value


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise HandError(f"{where}: expected true or false, got {brief(value)}")
    return value


def checked_int(value: Any, where: str, maximum: int, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise HandError(f"{where}: expected a whole number from {minimum} to {maximum:,}, got {brief(value)}")
    return value


_keyset: Callable[[tuple[str, ...]], frozenset[str]] = cache(frozenset)  # a tuple of known keys as a set, made once


def _object(value: Any, where: str, known: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise HandError(f"{where}: expected an object, got {brief(value)}")
    if _keyset(known).issuperset(value):
        return value
    unknown = sorted(set(value) - set(known))
    if unknown:
        shown = ", ".join(k[:40] for k in unknown[:6]) + (f" and {len(unknown) - 6} more" if len(unknown) > 6 else "")
        raise HandError(f"{where}: unknown key(s) {shown} (known: {', '.join(known)})")
    return value


def _check_flowers(concealed: tuple, win: str, melds: tuple, flowers: tuple) -> None:
    """Flowers only in 'flowers', or as the winning tile of a flower win with no tiles shown."""
    # set tests first: a hand is checked at every construction, and is almost always right
    if not _FLOWER_CODES.isdisjoint(concealed):
        t = next(t for t in concealed if is_flower(t))
        raise HandError(f"concealed: {t} is a flower; flowers go in 'flowers'")
    if is_flower(win) and (concealed or melds):
        raise HandError(f"win: {win} is a flower; a flower wins only as a flower win "
                        "(八仙过海 / 七抢一), with no tiles shown (concealed and melds empty)")
    for m in melds:
        if not _FLOWER_CODES.isdisjoint(m.tiles):
            t = next(t for t in m.tiles if is_flower(t))
            raise HandError(f"{m.kind} meld: {t} is a flower; flowers form no sets")
    if not _FLOWER_CODES.issuperset(flowers):
        t = next(t for t in flowers if not is_flower(t))
        raise HandError(f"flowers: {t} is not a flower (1f..8f)")


def _kind(value: Any, where: str) -> MeldKind:
    kind = meld_kind(value)
    if kind is None:
        raise HandError(f"{where} {brief(value)} is not one of {', '.join(MeldKind)}")
    return kind


def _origin(value: Any, kind: MeldKind, where: str) -> KongOrigin:
    if kind is not MeldKind.KONG:
        raise HandError(f"{where}: only an open kong (type kong) has an origin, not a {brief(kind.value)}",
                        "只有明槓要說是大明槓還是加槓")
    origin = kong_origin(value)
    if origin is None:
        raise HandError(f"{where}: origin {brief(value)} is not one of {', '.join(KongOrigin)} "
                        "(called: 大明杠 on a discard; added: 加杠 to one's pon)",
                        "明槓的來源只能是大明槓（槓別人打的牌）或加槓（碰了再加第四張）")
    return origin


@dataclass(frozen=True, slots=True)
class Meld:
    """An exposed set (吃 chi, 碰 pon, 明杠 kong incl. 加杠) or a concealed kong (暗杠 ankong);
    an open kong may say its origin (大明杠 "called", 加杠 "added"). Kind and origin may be
    given as their codes; the value holds them as scoring.melds.MeldKind and KongOrigin."""

    kind: MeldKind
    tiles: tuple[str, ...]
    origin: KongOrigin | None = None

    def __post_init__(self) -> None:
        kind = _kind(self.kind, "meld type")
        if kind is not self.kind:
            object.__setattr__(self, "kind", kind)
        _store_tiles(self, "tiles", f"{kind} meld")
        if self.origin is not None:
            origin = _origin(self.origin, kind, f"{kind} meld")
            if origin is not self.origin:
                object.__setattr__(self, "origin", origin)

    @property
    def is_open(self) -> bool:
        """吃, 碰 and 明杠 open the hand (break 门清); a 暗杠 does not."""
        return self.kind.is_open

    def to_json(self) -> dict:
        if self.origin is None:
            return {"type": self.kind.value, "tiles": list(self.tiles)}
        return {"type": self.kind.value, "tiles": list(self.tiles), "origin": self.origin.value}

    @classmethod
    def from_json(cls, data: Any, where: str = "meld") -> Meld:
        data = _object(data, where, ("type", "tiles", "origin"))
        tiles = data.get("tiles")
        if type(tiles) is list or type(tiles) is tuple:
            try:
                return _MELDS_READ[data.get("type"), tuple(tiles), data.get("origin")]
            except (KeyError, TypeError):  # not read before, or not even hashable: checked below
                pass
        meld = cls._checked(data, where)
        _MELDS_READ[meld.kind.value, tuple(tiles), data.get("origin")] = meld
        return meld

    @classmethod
    def _checked(cls, data: dict, where: str) -> Meld:
        if "type" not in data or "tiles" not in data:
            raise HandError(f"{where}: needs 'type' and 'tiles'")
        kind = _kind(data["type"], f"{where}: type")
        origin = data.get("origin")
        if origin is not None:
            origin = _origin(origin, kind, f"{where}.origin")
        return cls(kind, _tiles(data["tiles"], f"{where}.tiles"), origin)


# Melds read from JSON, by their type, tiles as written and origin: each made and checked once
# (the melds there can be, the orders of a chi's tiles counted, are a few hundred).
_MELDS_READ: dict[tuple[str, tuple[str, ...], str | None], Meld] = {}


@dataclass(frozen=True, slots=True)
class Situation:
    """How the hand was won: 门风 `seat_wind` (the winner's own wind, a `scoring.seats.Wind`; the
    JSON form of the spec calls it "seat"), 圈风 round, 自摸 or off a discard, and the flags
    海底/河底 (last_tile), 杠上 (after_kong), 抢杠 (rob_kong), 天和 (heavenly); and, for the
    tables that score them, 地胡 (earthly: a non-dealer self-draws on the first draw), 人胡
    (human: wins off a discard in the first go-round, nobody having called a tile), 天听
    (heavenly_ready: declared ready on the dealt hand), 地听 (earthly_ready: declared ready with
    the first discard), and after_flower (self-drawn on the replacement tile after a flower)."""

    seat_wind: str = "E"
    round: str = "E"
    self_draw: bool = False
    last_tile: bool = False
    after_kong: bool = False
    rob_kong: bool = False
    heavenly: bool = False
    earthly: bool = False
    human: bool = False
    heavenly_ready: bool = False
    earthly_ready: bool = False
    after_flower: bool = False

    def __post_init__(self) -> None:
        _wind(self.seat_wind, "seat")
        _wind(self.round, "round")
        for name in _SITUATION_FLAGS:  # every hand passes here: _flag is called only to raise
            value = getattr(self, name)
            if value is not True and value is not False:
                _flag(value, name)


@dataclass(frozen=True, slots=True)
class Table:
    """The table around the hand, for settlement only: the 庄家's wind (E at a table:
    `scoring.payout`), 连庄 streak, 底 and 每台, 听牌 declared before winning, and the discarder's
    wind (for a win off a discard)."""

    dealer: str
    base: int
    per_tai: int
    streak: int = 0
    declared_ready: bool = False
    discarder: str | None = None

    def __post_init__(self) -> None:
        _wind(self.dealer, "table.dealer")
        checked_int(self.base, "table.base", MAX_STAKE)
        checked_int(self.per_tai, "table.per_tai", MAX_STAKE)
        checked_int(self.streak, "table.streak", MAX_STREAK)
        _flag(self.declared_ready, "table.declared_ready")
        if self.discarder is not None:
            _wind(self.discarder, "table.discarder")

    KEYS = ("dealer", "streak", "base", "per_tai", "declared_ready", "discarder")

    def to_json(self) -> dict:
        out = {"dealer": self.dealer, "streak": self.streak, "base": self.base,
               "per_tai": self.per_tai, "declared_ready": self.declared_ready}
        if self.discarder is not None:
            out["discarder"] = self.discarder
        return out

    @classmethod
    def from_json(cls, data: Any) -> Table:
        data = _object(data, "table", cls.KEYS)
        missing = [k for k in ("dealer", "base", "per_tai") if k not in data]
        if missing:
            raise HandError(f"table: missing {', '.join(missing)}")
        return cls(
            dealer=data["dealer"],
            base=data["base"],
            per_tai=data["per_tai"],
            streak=data.get("streak", 0),
            declared_ready=data.get("declared_ready", False),
            discarder=data.get("discarder"),
        )


_NEEDED_IN_ORDER = ("concealed", "win", "seat", "round")  # keys a hand's JSON must have
_NEEDED = frozenset(_NEEDED_IN_ORDER)
HAND_KEYS = ("concealed", "win", "melds", "flowers", "seat", "round", "self_draw", *ALL_FLAGS,
             "table")


@dataclass(frozen=True, slots=True)
class Hand:
    """A winning hand: the concealed tiles (without the winning tile), the winning tile, the
    melds, the flowers, and the situation. `table` is optional and used only for payments.

    A flower win (花胡: 八仙过海 drawing the eighth flower, 七抢一 robbing it) is a hand whose
    winning tile is that flower, with the other seven in `flowers` and no tiles shown (no
    concealed tiles, no melds: the tiles of a flower win are not scored). Whether a table
    allows it is `check_hand(hand, ruleset)`'s business."""

    concealed: tuple[str, ...]
    win: str
    melds: tuple[Meld, ...] = ()
    flowers: tuple[str, ...] = ()
    situation: Situation = field(default_factory=Situation)
    table: Table | None = None

    def __post_init__(self) -> None:
        _store_tiles(self, "concealed", "concealed")
        _store_tiles(self, "flowers", "flowers")
        if type(self.melds) is not tuple:
            object.__setattr__(self, "melds", tuple(self.melds))
        _tile(self.win, "win")
        for m in self.melds:
            if not isinstance(m, Meld):
                raise HandError(f"melds: {brief(m)} is not a Meld")
        _check_flowers(self.concealed, self.win, self.melds, self.flowers)

    # -- views -----------------------------------------------------------------------------
    @property
    def seat_wind(self) -> str:
        """门风 of the winner."""
        return self.situation.seat_wind

    @property
    def self_draw(self) -> bool:
        return self.situation.self_draw

    @property
    def flower_win(self) -> bool:
        """花胡: the winning tile is the eighth flower (八仙过海 / 七抢一)."""
        return self.win[1] == "f"  # tiles.is_flower, inlined: asked several times per hand

    def all_flowers(self) -> tuple[str, ...]:
        """The flowers of the won hand, the winning flower of a flower win included."""
        return self.flowers + (self.win,) if self.win[1] == "f" else self.flowers

    def held_tiles(self) -> tuple[str, ...]:
        """The 16 (plus one per kong) tiles before the win: concealed and melds, no flowers."""
        return self.concealed + tuple(chain.from_iterable(m.tiles for m in self.melds))

    def all_tiles(self) -> tuple[str, ...]:
        """Every tile of the won hand except the flowers."""
        if self.flower_win:
            return self.held_tiles()
        return self.held_tiles() + (self.win,)

    def replace(self, **changes: Any) -> Hand:
        """A copy with some fields changed; situation fields may be given directly."""
        sit = {k: changes.pop(k) for k in list(changes) if k in Situation.__dataclass_fields__}
        if sit:
            changes["situation"] = replace(changes.get("situation", self.situation), **sit)
        return replace(self, **changes)

    # -- JSON ------------------------------------------------------------------------------
    def to_json(self) -> dict:
        """The spec's JSON form; the optional flags appear only when true (as in the examples)."""
        s = self.situation
        out: dict[str, Any] = {
            "concealed": list(self.concealed),
            "win": self.win,
            "melds": [m.to_json() for m in self.melds],
            "flowers": list(self.flowers),
            "seat": s.seat_wind,
            "round": s.round,
            "self_draw": s.self_draw,
        }
        for flag in ALL_FLAGS:
            if getattr(s, flag):
                out[flag] = True
        if self.table is not None:
            out["table"] = self.table.to_json()
        return out

    @classmethod
    def from_json(cls, data: Any) -> Hand:
        """Read the spec's JSON form; any problem of shape raises HandError naming the key."""
        data = _object(data, "hand", HAND_KEYS)
        if not data.keys() >= _NEEDED:
            missing = [k for k in _NEEDED_IN_ORDER if k not in data]
            raise HandError(f"hand: missing {', '.join(missing)}")
        melds = data.get("melds", [])
        if not isinstance(melds, list):
            raise HandError(f"melds: expected a list of melds, got {brief(melds)}")
        situation = _situation_of(data)
        concealed = _tiles(data["concealed"], "concealed")
        win = _tile(data["win"], "win")
        melds = _melds_of(melds)
        flowers = _tiles(data.get("flowers", []), "flowers")
        table = data.get("table")
        table = None if table is None else Table.from_json(table)
        # the constructor checks the parts again (they pass: the fast paths) and, first, where
        # the flowers are
        return cls(concealed, win, melds, flowers, situation, table)


def _melds_of(values: list) -> tuple[Meld, ...]:
    """The melds of a hand's JSON. A meld's place (melds[i]) is named only when one is wrong:
    they are read again, naming each, to say which (formatting it for every meld costs more
    than reading the meld)."""
    try:
        return tuple(map(Meld.from_json, values))
    except HandError:
        for i, m in enumerate(values):
            Meld.from_json(m, f"melds[{i}]")
        raise
_FLAG_BIT = {f: 1 << i for i, f in enumerate(_SITUATION_FLAGS)}
# Situations read, by (seat, round, the bits of the flags that hold): a value is made and
# checked once (a table sees a few dozen of the 4 × 4 × 2¹² there can be).
_SITUATIONS: dict[tuple[str, str, int], Situation] = {}


def _situation_of(data: dict) -> Situation:
    """The situation of a hand's JSON object (its keys already known to be HAND_KEYS)."""
    bits = 0
    for key in _FLAG_BIT.keys() & data.keys():  # the flags given (most hands: self_draw)
        value = data[key]
        if value is True:
            bits |= _FLAG_BIT[key]
        elif value is not False:  # name the first wrong flag in the usual order
            _wind(data["seat"], "seat")
            _wind(data["round"], "round")
            for flag in _SITUATION_FLAGS:
                _flag(data.get(flag, False), flag)
    seat, round_ = data["seat"], data["round"]
    try:
        return _SITUATIONS[seat, round_, bits]  # only checked winds are keys
    except (KeyError, TypeError):  # first seen, or not a wind (a list is not even hashable)
        known = _SITUATIONS[seat, round_, bits] = Situation(
            _wind(seat, "seat"), _wind(round_, "round"), **{f: True for f, bit in _FLAG_BIT.items() if bits & bit})
        return known
