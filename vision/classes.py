"""The detector's 43 classes: the 42 tile faces in scoring's order, then `back` (a face-down tile)."""

from scoring.tiles import TILE_CODES

BACK = "back"
CLASSES: tuple[str, ...] = TILE_CODES + (BACK,)
CLASS_INDEX: dict[str, int] = {code: i for i, code in enumerate(CLASSES)}
