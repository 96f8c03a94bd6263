"""Writing tiles down: Chinese names as players write them, and the compact form `123m 77z`.

    parse_tiles("一万二万三万四条五条九条九条") == ("1m", "2m", "3m", "4s", "5s", "9s", "9s")
    parse_tiles("123m 456p 77z 梅")             == ("1m", "2m", "3m", "4p", "5p", "6p", "7z", "7z", "1f")
    format_compact(("1m", "2m", "3m", "7z", "7z")) == "123m 77z"
    format_chinese(("1z", "5z"), "traditional")    == "東風紅中"

Chinese runs need no separators; the longest name wins (红中 before 中, 东风 before 东).

A whole hand in one line, as the app and `python -m scoring score` both read it (`parse_hand`):

    parse_hand("123456m 789p 2345s 和5s 碰777z 花1f")  # 和 before the winning tile, 碰 before a meld
    parse_hand("123m 456p 789p 2345s 和5s 加槓7z")     # an open kong added to a pon (大明槓: called)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .hand import HandError, Meld, brief
from .melds import KongOrigin, MeldKind
from .tiles import CHINESE_NAMES, INDEX, SCRIPTS, is_flower, tile_name

_LONGEST = max(map(len, CHINESE_NAMES))
_SEPARATORS = set(" \t\n,，、;；/|+")
_COMPACT_SUITS = "mpszf"


def parse_tiles(text: str) -> tuple[str, ...]:
    """Tiles from Chinese names (simplified or traditional, with or without separators),
    compact groups (`123m`, `77z`, `1f`), or a mix. Raises HandError naming what it cannot read."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in _SEPARATORS:
            i += 1
            continue
        if ch.isascii() and ch.isdigit():
            j = i
            while j < n and text[j].isascii() and text[j].isdigit():
                j += 1
            if j < n and text[j].lower() in _COMPACT_SUITS:
                s = text[j].lower()
                for d in text[i:j]:
                    code = f"{d}{s}"
                    if code not in INDEX:
                        raise HandError(f"{d}{s} in {brief(text[i:j + 1])} is not a tile "
                                        "(m, p, s: 1-9; z: 1-7; f: 1-8)",
                                        f"「{text[i:j + 1][:20]}」裡的 {d}{s} 不是牌"
                                        "（m、p、s 是 1-9，z 是 1-7，f 是 1-8）")
                    out.append(code)
                i = j + 1
                continue
        for size in range(min(_LONGEST, n - i), 0, -1):
            named = CHINESE_NAMES.get(text[i:i + size])
            if named is not None:
                out.append(named)
                i += size
                break
        else:
            raise HandError(f"cannot read a tile at {text[i:i + 4]!r} (position {i} of {brief(text)})",
                            f"看不懂第 {i + 1} 個字起的「{text[i:i + 4]}」")
    return tuple(out)


def parse_tile(text: str) -> str:
    """Exactly one tile; a leading 和 or 胡 (as the rules page writes the winning tile) is allowed."""
    text = text.strip()
    if text[:1] in ("和", "胡"):
        text = text[1:]
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise HandError(f"expected one tile, read {len(tiles)} from {brief(text)}",
                        f"要一張牌，「{text[:20]}」讀到 {len(tiles)} 張")
    return tiles[0]


def format_compact(tiles) -> str:
    """`123m 456p 77z 1f`: runs of the same suit share their letter, in the order given."""
    groups: list[list[str]] = []
    for t in tiles:
        if groups and groups[-1][-1][1] == t[1]:
            groups[-1].append(t)
        else:
            groups.append([t])
    return " ".join("".join(t[0] for t in g) + g[0][1] for g in groups)


def format_chinese(tiles, script: str = "simplified") -> str:
    """一万二万三万…红中发财 as the rules page prints a run of tiles (traditional: 一萬…紅中發財)."""
    return "".join(tile_name(t, script) for t in tiles)


# Written before a meld: its kind, and for an open kong the origin where the mark says it
# (大明槓 called on a discard, 加槓 added to one's pon; 明槓, or 槓 alone, says neither). Every
# name of scoring.melds in both scripts, and the bare 槓.
MELD_MARKS = {**{k.name_in(script): (k, None) for k in MeldKind for script in SCRIPTS},
              **{o.name_in(script): (MeldKind.KONG, o) for o in KongOrigin for script in SCRIPTS},
              "槓": (MeldKind.KONG, None), "杠": (MeldKind.KONG, None)}
WIN_MARKS = ("和", "胡")
FLOWER_MARK = "花"
# The longest marker first, so that 暗槓 and 加槓 are not read as 槓.
_MARK = re.compile("(" + "|".join(sorted([*MELD_MARKS, *WIN_MARKS, FLOWER_MARK], key=len, reverse=True)) + ")")
# What a hand line may hold, for error messages.
HAND_GRAMMAR = ("tiles as 123m 456p 789s 77z 1f or Chinese names (一萬二萬, 東風, 梅); 和 or 胡 before the "
                "winning tile; 吃, 碰, 槓 or 暗槓 before a meld (up to the next space; one tile is enough for "
                "碰/槓), 大明槓 or 加槓 for an open kong called on a discard or added to a pon; 花 before "
                "flowers: 123456m 789p 2345s 和5s 碰777z 花1f")


@dataclass(frozen=True)
class WrittenHand:
    """A hand line read as written: the winning tile is None when no 和/胡 names it."""

    concealed: tuple[str, ...]
    win: str | None
    melds: tuple[Meld, ...]
    flowers: tuple[str, ...]


def parse_hand(text: str) -> WrittenHand:
    """Tiles (compact or Chinese names) with optional markers: 和/胡 before the winning tile,
    吃/碰/槓/暗槓 before a meld's tiles (one tile name is enough for a 碰 or 槓; the meld ends at the
    next space; 大明槓/加槓 for an open kong of that origin), 花 before flowers (flowers are found
    anywhere anyway). Raises HandError naming what it cannot read."""
    parts = _MARK.split(text)
    concealed = list(parse_tiles(parts[0]))
    win: str | None = None
    melds: list[Meld] = []
    for mark, body in zip(parts[1::2], parts[2::2], strict=True):
        if mark in MELD_MARKS:
            kind, origin = MELD_MARKS[mark]
            head, _, rest = body.strip().partition(" ")
            tiles = parse_tiles(head)
            if len(tiles) == 1 and kind is not MeldKind.CHI:
                tiles = tiles * kind.size
            if len(tiles) != kind.size:
                raise HandError(f"{mark}{brief(head)}: a {kind} needs {kind.size} tiles, read {len(tiles)}",
                                f"「{mark}{head[:20]}」：{mark}要 {kind.size} 張牌，讀到 {len(tiles)} 張")
            melds.append(Meld(kind, tiles, origin))
            concealed.extend(parse_tiles(rest))
        elif mark in WIN_MARKS:
            tiles = parse_tiles(body)
            if not tiles:
                raise HandError(f"{mark} must be followed by the winning tile", f"「{mark}」後面要寫胡的那張牌")
            if win is not None:
                raise HandError(f"{mark} written twice: there is one winning tile",
                                f"「{mark}」寫了兩次：只能有一張胡的那張牌")
            win, rest = tiles[0], tiles[1:]
            concealed.extend(rest)
        else:
            concealed.extend(parse_tiles(body))
    if win is not None and is_flower(win):
        raise HandError("a flower cannot be the winning tile of a written hand", "花牌不能當胡的那張牌")
    return WrittenHand(tuple(t for t in concealed if not is_flower(t)), win, tuple(melds),
                       tuple(t for t in concealed if is_flower(t)))
