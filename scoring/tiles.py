"""Tile codes: 1m..9m 萬, 1p..9p 筒, 1s..9s 條, 1z..7z 東南西北中發白, 1f..8f 梅蘭菊竹春夏秋冬.

A tile is its code string everywhere in the project. The 34 playing faces (everything but the
flowers) also have an index 0..33 in canonical order, which the decomposition uses for speed.
"""

SUITS = ("m", "p", "s")
NUMBERED = tuple(f"{n}{s}" for s in SUITS for n in range(1, 10))
HONOURS = tuple(f"{n}z" for n in range(1, 8))
FLOWERS = tuple(f"{n}f" for n in range(1, 9))
# The 42 faces in their canonical order (also the detector's class order, before `back`).
TILE_CODES = NUMBERED + HONOURS + FLOWERS
# The 34 faces that form sets (4 copies each); flowers sit apart (1 copy each).
PLAYING = NUMBERED + HONOURS
INDEX = {code: i for i, code in enumerate(TILE_CODES)}
# A tile lying face down: the detector sees one (a concealed kong, a wall), the scorer never scores it.
BACK = "back"

WINDS = ("E", "S", "W", "N")
WIND_TILES = ("1z", "2z", "3z", "4z")
DRAGON_TILES = ("5z", "6z", "7z")
WIND_TILE = dict(zip(WINDS, WIND_TILES, strict=True))
# 方位制: seat E owns 梅 and 春, S 蘭 and 夏, W 菊 and 秋, N 竹 and 冬.
SEAT_FLOWERS = {w: (f"{i + 1}f", f"{i + 5}f") for i, w in enumerate(WINDS)}
FLOWER_GROUPS = (FLOWERS[:4], FLOWERS[4:])  # 梅蘭菊竹, 春夏秋冬
COPIES = 4
# 么九: the terminals and the honours (十三么, 混老头, 混带么).
TERMINALS = tuple(f"{n}{s}" for s in SUITS for n in (1, 9))
TERMINALS_AND_HONOURS = TERMINALS + HONOURS


def is_terminal(code: str) -> bool:
    return code[1] in "mps" and code[0] in "19"


def is_tile(code: object) -> bool:
    return isinstance(code, str) and code in INDEX


def is_flower(code: str) -> bool:
    return code[1] == "f"


def is_honour(code: str) -> bool:
    return code[1] == "z"


def is_wind(code: str) -> bool:
    return code in WIND_TILES


def is_dragon(code: str) -> bool:
    return code in DRAGON_TILES


def suit(code: str) -> str:
    return code[1]


def rank(code: str) -> int:
    return int(code[0])


def sort_tiles(tiles) -> tuple[str, ...]:
    """Tiles in canonical order (1m..9m 1p.. 1s.. 1z..7z 1f..8f)."""
    return tuple(sorted(tiles, key=INDEX.__getitem__))


# Names as players print them. The full name is what the rules page writes in a run of tiles
# (一万二万三万…红中发财白板); the short name is the qualifier of an entry (门风 东, 三元牌 中).
_DIGITS = "一二三四五六七八九"
_SUIT_NAMES = {
    "simplified": {"m": "万", "p": "筒", "s": "条"},
    "traditional": {"m": "萬", "p": "筒", "s": "條"},
}
_HONOUR_NAMES = {
    "simplified": ("东风", "南风", "西风", "北风", "红中", "发财", "白板"),
    "traditional": ("東風", "南風", "西風", "北風", "紅中", "發財", "白板"),
}
_HONOUR_SHORT = {
    "simplified": ("东", "南", "西", "北", "中", "发", "白"),
    "traditional": ("東", "南", "西", "北", "中", "發", "白"),
}
_FLOWER_NAMES = {
    "simplified": ("梅", "兰", "菊", "竹", "春", "夏", "秋", "冬"),
    "traditional": ("梅", "蘭", "菊", "竹", "春", "夏", "秋", "冬"),
}
SCRIPTS = ("simplified", "traditional")


def tile_name(code: str, script: str = "simplified", short: bool = False) -> str:
    """一万 / 一萬, 东风 / 東風 (short: 东 / 東), 红中 (short: 中), 梅 / 蘭 …; 牌背 (both scripts) for BACK.
    The one place a tile gets its Chinese name: the scorer's messages, the reader's notices and the page."""
    if code == BACK:
        return "牌背"
    kind = code[1]
    n = int(code[0])
    if kind == "f":
        return _FLOWER_NAMES[script][n - 1]
    if kind == "z":
        return (_HONOUR_SHORT if short else _HONOUR_NAMES)[script][n - 1]
    return _DIGITS[n - 1] + _SUIT_NAMES[script][kind]


def _name_table() -> dict[str, str]:
    """Every way players write a tile, simplified and traditional, mapped to its code."""
    names: dict[str, str] = {}
    suit_words = {"m": "万萬", "p": "筒饼餅", "s": "条條索"}
    for s, words in suit_words.items():
        for n in range(1, 10):
            for w in words:
                names[_DIGITS[n - 1] + w] = f"{n}{s}"
                names[f"{n}{w}"] = f"{n}{s}"
    for script in SCRIPTS:
        for i in range(7):
            names[_HONOUR_NAMES[script][i]] = f"{i + 1}z"
            names[_HONOUR_SHORT[script][i]] = f"{i + 1}z"
        for i in range(8):
            names[_FLOWER_NAMES[script][i]] = f"{i + 1}f"
    names.update({"幺鸡": "1s", "幺雞": "1s", "红中": "5z", "青发": "6z", "青發": "6z",
                  "白皮": "7z", "白板": "7z"})
    return names


CHINESE_NAMES = _name_table()
