"""The hand among the table: the discards and walls beside a hand stay out of it, and the hand beside them is shown
whole (docs/decisions/hand-among-the-table.md)."""

from pathlib import Path

import numpy as np

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


def test_a_real_hand_before_the_discards_and_a_wall_is_shown_whole_and_alone():
    """A real photo (tests/data/README.md): a 14-tile Hong Kong hand and two flowers on a rack, a wall of backs and a
    heap of some 40 discards behind it. A 16-tile table's hand has three tiles more, and three discards from across
    the table (their part 0.03 the hand's) made it a legal hand; then, with no legal hand, the heap counted as a
    second row of a set laid out and the hand was set apart whole. It is shown as the hand, its 16 labelled tiles,
    and nothing else."""
    photo = TABLE / "hand-before-the-discards.jpg"
    image = load_photo(photo)
    boxes, codes = read_labels(photo.with_suffix(".txt"), image.shape[1], image.shape[0])
    best = read_photo(image, TileDetector()).best
    shown = [row.id for row in best.shown]
    labelled = {shown[p] for p in match(boxes, best.boxes).values()}
    in_hand = {i for g in best.groups if g.role == GroupRole.HAND for i in g.members}
    assert len(labelled) == len(codes) == 16 and len(shown) > 50  # the table's tiles found too
    assert in_hand == labelled


def test_a_part_far_likelier_out_of_the_hand_is_never_taken_in():
    row, discards = Part(tuple(range(14)), 0.96, "stray", 14), Part((14, 15, 16), 0.03, "far", 3)
    order, flower = tuple(range(17)), np.zeros(17, bool)

    def inside(max_flip_in: float) -> set[tuple[bool, ...]]:
        return {ms.inside for ms in memberships([row, discards], flower, order, READER_DEFAULT.max_flip, max_flip_in)}

    assert inside(READER_DEFAULT.max_flip_in) == {(True, False), (False, False)}  # the row may still be left out
    assert (True, True) in inside(READER_DEFAULT.max_flip)


def test_a_heap_of_discards_far_behind_a_hand_is_no_second_row_of_a_set():
    hand, heap = Part(tuple(range(14)), 0.96, "stray", 14), Part(tuple(range(14, 25)), 0.25, "far", 11)
    assert not a_set_laid_out([hand, heap])
    assert a_set_laid_out([hand, Part(tuple(range(14, 25)), 0.25, "stray", 11)])  # two rows side by side
    assert a_set_laid_out([Part(tuple(range(37)), 0.95, "stray", 37), heap])  # a row longer than any hand
