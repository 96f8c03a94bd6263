"""Writing tiles down: Chinese names as players write them, and the compact form `123m 77z`.

    parse_tiles("一万二万三万四条五条九条九条") == ("1m", "2m", "3m", "4s", "5s", "9s", "9s")
    parse_tiles("123m 456p 77z 梅")             == ("1m", "2m", "3m", "4p", "5p", "6p", "7z", "7z", "1f")
    format_compact(("1m", "2m", "3m", "7z", "7z")) == "123m 77z"
    format_chinese(("1z", "5z"), "traditional")    == "東風紅中"

Chinese runs need no separators; the longest name wins (红中 before 中, 东风 before 东).
"""

from __future__ import annotations

from .hand import HandError
from .tiles import CHINESE_NAMES, INDEX, tile_name

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
                        raise HandError(f"{d}{s} in {text[i:j + 1]!r} is not a tile "
                                        "(m, p, s: 1-9; z: 1-7; f: 1-8)",
                                        f"「{text[i:j + 1]}」裡的 {d}{s} 不是牌（m、p、s 是 1-9，z 是 1-7，f 是 1-8）")
                    out.append(code)
                i = j + 1
                continue
        for size in range(min(_LONGEST, n - i), 0, -1):
            code = CHINESE_NAMES.get(text[i:i + size])
            if code is not None:
                out.append(code)
                i += size
                break
        else:
            raise HandError(f"cannot read a tile at {text[i:i + 4]!r} (position {i} of {text!r})",
                            f"看不懂第 {i + 1} 個字起的「{text[i:i + 4]}」")
    return tuple(out)


def parse_tile(text: str) -> str:
    """Exactly one tile; a leading 和 or 胡 (as the rules page writes the winning tile) is allowed."""
    text = text.strip()
    if text[:1] in ("和", "胡"):
        text = text[1:]
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise HandError(f"expected one tile, read {len(tiles)} from {text!r}",
                        f"要一張牌，「{text}」讀到 {len(tiles)} 張")
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
