"""The hand among the table: the discards and walls beside a hand stay out of it, and the hand beside them is shown
whole (docs/decisions/hand-among-the-table.md)."""

from pathlib import Path

import numpy as np
import pytest

from scoring.melds import GroupRole
from vision.boxes import match
from vision.detector import TileDetector
from vision.hand_finding import Part
from vision.labels import read_labels
from vision.photo import load_photo
from vision.read import read_photo
from vision.search import a_set_laid_out, memberships
from vision.settings import READER_DEFAULT

TABLE = Path(__file__).resolve().parent / "data" / "table"


@pytest.mark.parametrize(("name", "found"), [
    # A 14-tile Hong Kong hand and two flowers on a rack, a wall of backs and a heap of some 40 discards behind it. A
    # 16-tile table's hand has three tiles more, and three discards from across the table (their part 0.03 the
    # hand's) made it a legal hand; then, with no legal hand, the heap counted as a second row of a set laid out and
    # the hand was set apart whole.
    ("hand-before-the-discards.jpg", 16),
    # A hand of 15 tiles and a flower on a rack before discards standing taller in the photo (boxed whole, body and
    # face): the discards were the row the hand finder measured every part against, and 8 of them were kept in the
    # hand. Two of the hand's 16 labelled tiles (a flower at the end, a tile in the row) are not found.
    ("hand-on-a-rack-before-taller-discards.jpg", 14),
])
def test_a_real_hand_among_the_table_is_shown_whole_and_alone(name, found):
    """Real photos of a game table (tests/data/README.md), only the hand labelled: the hand shown is the labelled
    tiles the detector finds, and none of the discards and walls it finds beside them."""
    photo = TABLE / name
    image = load_photo(photo)
    boxes, _ = read_labels(photo.with_suffix(".txt"), image.shape[1], image.shape[0])
    best = read_photo(image, TileDetector()).best
    shown = [row.id for row in best.shown]
    labelled = {shown[p] for p in match(boxes, best.boxes).values()}
    in_hand = {i for g in best.groups if g.role == GroupRole.HAND for i in g.members}
    assert len(labelled) == found and len(shown) > found + 10  # the table's tiles are found too
    assert in_hand == labelled


def test_a_part_of_faces_far_likelier_out_of_the_hand_is_never_taken_in_and_a_face_down_one_may_be():
    row, discards = Part(tuple(range(14)), 0.96, "stray", 14), Part((14, 15, 16), 0.03, "far", 3)
    face_down = Part((17,), 0.01, "wall", 0)  # a tile of the hand laid face down, its face supposed
    order, flower = tuple(range(18)), np.zeros(18, bool)

    def inside(max_flip_in: float) -> set[tuple[bool, ...]]:
        return {ms.inside for ms in memberships([row, discards, face_down], flower, order, READER_DEFAULT.max_flip,
                                                max_flip_in)}

    assert {taken[1] for taken in inside(READER_DEFAULT.max_flip_in)} == {False}
    assert (True, False, True) in inside(READER_DEFAULT.max_flip_in)
    assert (True, True, False) in inside(READER_DEFAULT.max_flip)


def test_a_heap_of_discards_far_behind_a_hand_is_no_second_row_of_a_set():
    hand, heap = Part(tuple(range(14)), 0.96, "stray", 14), Part(tuple(range(14, 25)), 0.25, "far", 11)
    assert not a_set_laid_out([hand, heap])
    assert a_set_laid_out([hand, Part(tuple(range(14, 25)), 0.25, "stray", 11)])  # two rows side by side
    assert a_set_laid_out([Part(tuple(range(37)), 0.95, "stray", 37), heap])  # a row longer than any hand
