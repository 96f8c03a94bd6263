"""A row shot at an angle (its near tiles larger, and the steps and gaps between them) makes no gaps of its own:
its near tiles are not cut off as melds, nor is a row of tiles standing apart cut into groups, and a meld set
apart from it stays a meld."""

import numpy as np
import pytest

from scoring.hand import Hand, Meld, Situation
from training.evaluate import reading_hand, same_hand
from vision.detections import Detections
from vision.layout import group_rows
from vision.read import read_detections

from .fake_detections import one_hot

# 17 tiles of a winning hand: a 刻子 of 中 among them, the winning tile last.
ROW = ("1m", "2m", "3m", "4m", "5m", "6m", "5z", "5z", "5z", "4p", "5p", "6p", "7s", "8s", "9s", "2m", "2m")


def in_perspective(codes, gaps: list[float], nearer: float = 0.05, angle: float = 0.0) -> Detections:
    """Boxes of a row of `codes` shot at an angle: each tile `nearer` wider than the one before it (the last of 17
    more than twice the first), `gaps[k]` of the two neighbours' widths between tiles k and k+1; the row turned by
    `angle` degrees in the photo."""
    widths = 30.0 * (1 + nearer) ** np.arange(len(codes))
    lefts = np.r_[0.0, np.cumsum(widths[:-1] + np.array(gaps) * (widths[:-1] + widths[1:]) / 2)]
    centres = np.stack([lefts + widths / 2, np.zeros_like(widths)], axis=1)
    t = np.radians(angle)
    turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    centres = centres @ turn.T + 500.0
    half = (np.abs(turn) @ np.stack([widths / 2, widths * 2 / 3])).T  # each tile's axis-aligned half box
    return Detections(np.concatenate([centres - half, centres + half], axis=1).astype(np.float32),
                      one_hot(list(codes)))


def packed(seed: int) -> list[float]:
    """16 gaps of a hand-laid row, 0-8% of a tile."""
    return np.random.default_rng(seed).uniform(0.0, 0.08, len(ROW) - 1).tolist()


NEAR_KEZI = (*ROW[:6], *ROW[9:], "5z", "5z", "5z")  # the 刻子 of 中 at the row's near end, one of them won


@pytest.mark.parametrize("angle", [0.0, 15.0])
@pytest.mark.parametrize("seed", range(3))
def test_the_near_end_of_a_packed_row_shot_at_an_angle_is_not_cut_off_as_a_meld(seed, angle):
    """The near tiles' steps are longer than the row's middle ones (here up to 1.4x the row's median step) without a
    gap: in the row's own pitch there they are no jump, and its last three tiles no pon."""
    reading = read_detections(in_perspective(NEAR_KEZI, packed(seed), angle=angle))
    assert [g.kind for g in reading.best.groups] == ["concealed"]
    hand = Hand(concealed=NEAR_KEZI[:-1], win=NEAR_KEZI[-1], situation=Situation())
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), hand)


@pytest.mark.parametrize("seed", range(3))
def test_a_row_of_tiles_standing_apart_shot_at_an_angle_is_one_group(seed):
    """Every tile a third of its width from the next, the near end's tiles more than twice the far end's: in the
    photo's typical tile width the near gaps pass for gaps between groups, in their own tiles' they do not."""
    gaps = (0.3 + np.random.default_rng(seed).uniform(0.0, 0.05, len(ROW) - 1)).tolist()
    layout = group_rows(in_perspective(ROW, gaps))
    assert len(layout.groups) == 1 and len(layout.groups[0]) == len(ROW)


PON_HAND = Hand(concealed=ROW[:6] + ROW[9:-1], win=ROW[-1], melds=(Meld("pon", ("5z",) * 3),), situation=Situation())


@pytest.mark.parametrize("apart", [0.3, 0.8])
def test_a_pon_set_apart_at_the_rows_end_stays_a_pon(apart):
    """The same tiles with the 刻子 laid beside the row's far end, under a third of a tile or most of one apart, the
    row shot at a steeper angle (each tile 8% wider than the one before): a pon, though the steps after it, nearer
    the camera, are longer than those before."""
    codes = ("5z", "5z", "5z", *PON_HAND.concealed, PON_HAND.win)
    gaps = np.random.default_rng(0).uniform(0.0, 0.08, len(codes) - 1)
    gaps[2] = apart
    reading = read_detections(in_perspective(codes, gaps.tolist(), nearer=0.08))
    assert [g.kind for g in reading.best.groups] == ["concealed", "pon"]
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), PON_HAND)


def without_tile(dets: Detections, missed: int) -> Detections:
    return dets[np.flatnonzero(np.arange(len(dets)) != missed)]


@pytest.mark.parametrize("angle", [0.0, 15.0])
@pytest.mark.parametrize("missed", [3, 6])
def test_a_row_holed_by_a_missed_tile_keeps_the_sets_before_the_hole(missed, angle):
    """The detector misses the 4th (7th) tile of a packed row shot at an angle: the three (six) tiles before the
    hole are a chi (two chis) laid out apart, and were read as exposed, with the tile supposed among the concealed
    ones (no 門清). The hole is a tile's width, wider than a meld is laid apart: the row is one, the tile supposed
    in the hole."""
    reading = read_detections(without_tile(in_perspective(ROW, packed(0), angle=angle), missed))
    assert [g.kind for g in reading.best.groups] == ["concealed"], reading.warnings
    [row] = reading.best.supposed
    assert reading.best.groups[0].members.index(row.id) == missed
    shown = [reading.best.row(i).code for i in reading.best.groups[0].members if i != row.id]
    assert shown == [c for k, c in enumerate(ROW) if k != missed]


@pytest.mark.parametrize("apart", [0.8, 1.4])
@pytest.mark.parametrize("missed", [5, 12, 14])
def test_a_pon_set_apart_stays_a_pon_where_a_tile_of_the_row_is_missed(missed, apart):
    """The pon laid most of a tile, or more than one, apart from the row's start, the detector missing a tile of the
    row: the gap is no hole (a missed tile leaves a tile's width and the gaps beside it), so the pon stays
    exposed."""
    codes = ("5z", "5z", "5z", *PON_HAND.concealed, PON_HAND.win)
    gaps = np.random.default_rng(0).uniform(0.0, 0.08, len(codes) - 1)
    gaps[2] = apart
    reading = read_detections(without_tile(in_perspective(codes, gaps.tolist(), nearer=0.05), missed))
    assert [g.kind for g in reading.best.groups] == ["concealed", "pon"], reading.warnings
    assert len(reading.best.supposed) == 1
