"""The detector's 43 classes: the 42 tile faces in scoring's order, then `back` (a face-down tile)."""

from scoring.tiles import TILE_CODES, tile_name

BACK = "back"
CLASSES: tuple[str, ...] = TILE_CODES + (BACK,)
CLASS_INDEX: dict[str, int] = {code: i for i, code in enumerate(CLASSES)}


def class_name(code: str, script: str) -> str:
    """What a player calls a class: 一萬 / 一万 …, 牌背 (the same in both scripts) for a face-down tile."""
    return "牌背" if code == BACK else tile_name(code, script)
