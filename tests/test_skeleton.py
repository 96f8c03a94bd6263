from scoring.tiles import TILE_CODES
from vision.classes import CLASSES


def test_class_order_matches_tile_codes():
    assert len(TILE_CODES) == 42
    assert CLASSES[:42] == TILE_CODES and CLASSES[-1] == "back"
    assert CLASSES[0] == "1m" and CLASSES[27] == "1z" and CLASSES[34] == "1f"
