"""The detector's 43 classes: the 42 tile faces in scoring's order, then `back` (a face-down tile).
Their names are scoring's (`scoring.tiles.tile_name`)."""

from scoring.tiles import BACK, TILE_CODES

CLASSES: tuple[str, ...] = TILE_CODES + (BACK,)
CLASS_INDEX: dict[str, int] = {code: i for i, code in enumerate(CLASSES)}
