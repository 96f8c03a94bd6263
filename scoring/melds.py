"""What a meld is: its kind (吃 碰 明槓 暗槓) and, for an open kong, where it came from (大明槓 加槓); and
what a group of tiles laid out is (`GroupKind`) and whether it is the hand's (`GroupRole`).

The one place that names them. A `MeldKind` is a str enum: it equals its code ("chi", "pon",
"kong", "ankong"), which is what the JSON form, the command line and every ruleset write, and it
knows its size, whether it opens the hand and its names in both scripts. An open kong (kind
"kong") may say its `KongOrigin`: "called" (大明槓, called on a discard) or "added" (加槓, a fourth
tile added to one's own pon); some tables score 槓上開花 by it.

    MeldKind.PON.size == 3;  MeldKind.ANKONG.is_open is False
    MeldKind.KONG.name_in("traditional") == "明槓";  KongOrigin.ADDED.name_in("simplified") == "加杠"
    meld_kind("pon") is MeldKind.PON;  meld_kind("x") is None

A group of tiles, as the photo's reader finds it and as a generated scene lays it out, has a `GroupKind`: the
concealed tiles (the winning tile among them), a meld (the kinds equal MeldKind's codes: GroupKind.PON == "pon"),
the flowers, or tiles that make no set ("unknown"); and a `GroupRole`: the hand's, or set apart from it (walls,
discards, strays, a set's rows, scattered tiles).

    GroupKind.PON.meld is MeldKind.PON;  GroupKind.CONCEALED.meld is None
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class _Named(StrEnum):
    """A code that players name in two scripts (simplified, traditional)."""

    simplified: str
    traditional: str

    def name_in(self, script: str = "simplified") -> str:
        """Its name in `script`, "simplified" or "traditional" (as scoring.tiles.tile_name)."""
        return self.traditional if script == "traditional" else self.simplified


class MeldKind(_Named):
    """吃 chi (a chow called on a discard), 碰 pon (a pung called), 明槓 kong (an open kong: 大明槓
    or 加槓) and 暗槓 ankong (a concealed kong, which leaves the hand 门清)."""

    CHI = "chi", 3, "chow", "吃", "吃"
    PON = "pon", 3, "pung", "碰", "碰"
    KONG = "kong", 4, "kong", "明杠", "明槓"
    ANKONG = "ankong", 4, "kong", "暗杠", "暗槓"

    # Plain attributes of each kind, set once (the scorer asks them of every meld of every hand,
    # and a member named through the class, MeldKind.ANKONG, costs a descriptor call each time).
    size: int  # its tiles (a kong's four; each kong takes a replacement tile, so counts as 3)
    set_kind: str  # the set it is in a reading (scoring.reading.Set.kind): chow, pung or kong
    is_open: bool  # called from another player: 吃, 碰 and 明槓 open the hand (break 门清); 暗槓 not
    is_kong: bool

    def __new__(cls, code: str, *facts: Any) -> MeldKind:
        # a member's code, size, set kind and names, as listed above (`MeldKind(code)` finds a member)
        tiles, in_reading, simplified, traditional = facts
        kind = str.__new__(cls, code)
        kind._value_ = code
        kind.size, kind.set_kind, kind.simplified, kind.traditional = tiles, in_reading, simplified, traditional
        kind.is_open, kind.is_kong = code != "ankong", tiles == 4
        return kind


class KongOrigin(_Named):
    """Where an open kong came from, when the player says."""

    CALLED = "called", "大明杠", "大明槓"  # called on another player's discard
    ADDED = "added", "加杠", "加槓"  # a fourth tile added to one's own pon (another may rob it: 抢杠)

    def __new__(cls, code: str, *names: str) -> KongOrigin:
        # a member's code and names, as listed above (`KongOrigin(code)` finds a member)
        simplified, traditional = names
        origin = str.__new__(cls, code)
        origin._value_ = code
        origin.simplified, origin.traditional = simplified, traditional
        return origin


class GroupKind(StrEnum):
    """What a group of tiles laid out is; its value is the word the JSON forms write."""

    CONCEALED = "concealed"  # the hand's concealed tiles, the winning tile among them
    CHI = MeldKind.CHI.value
    PON = MeldKind.PON.value
    KONG = MeldKind.KONG.value
    ANKONG = MeldKind.ANKONG.value
    FLOWERS = "flowers"
    UNKNOWN = "unknown"  # tiles that make no set

    @property
    def meld(self) -> MeldKind | None:
        """The meld this kind of group is, None for the concealed tiles, the flowers and no set."""
        return _KINDS.get(self.value)


class GroupRole(StrEnum):
    """Whether a group of tiles is the winning hand's or set apart from it."""

    HAND = "hand"
    APART = "apart"  # walls, discards, strays beside the hand; a set's rows, scattered tiles


_KINDS = {k.value: k for k in MeldKind}
_ORIGINS = {o.value: o for o in KongOrigin}


def meld_kind(value: Any) -> MeldKind | None:
    """The kind `value` names (a code or a MeldKind), None for anything else (untrusted input:
    no exception, whatever it is)."""
    return _KINDS.get(value) if isinstance(value, str) else None


def kong_origin(value: Any) -> KongOrigin | None:
    """The origin `value` names (a code or a KongOrigin), None for anything else."""
    return _ORIGINS.get(value) if isinstance(value, str) else None
