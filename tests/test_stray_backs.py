"""A back where no concealed kong can hold it is most often the table, not a tile: the detector takes the table
seen through the gap between two melds, or a strip at the photo's edge, for a back. A hand shows backs only in
a kong laid face down, so the reader also tries the hand with such a back set apart, beside the hand that keeps
it (a tile lying face down, whose face the reader supposes)."""

from dataclasses import replace

import numpy as np
import pytest

from scoring.hand import Hand, Meld, Situation
from scoring.melds import GroupRole
from tests.test_layout_and_correction import HAND
from training.evaluate import reading_hand
from vision.detections import Detections
from vision.groups import group_kind, stray_backs
from vision.layout import Layout, without
from vision.read import read_detections

from .fake_detections import TILE_H, TILE_W, laid_out, one_hot
from .test_layout_and_correction import same_hand

TWO_MELDS = Hand(("1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "9s"), "9s",
                 (Meld("pon", ("1s", "1s", "1s")), Meld("chi", ("5p", "6p", "7p"))), ("2f",),
                 Situation(seat_wind="E", round="S"))


def one_group(codes: list[str]) -> tuple[Layout, list[str]]:
    return Layout((tuple(range(len(codes))),), ((0,),), (), 0.0), codes


@pytest.mark.parametrize(("codes", "stray"), [
    (["1s", "1s", "1s", "back", "5p", "6p", "7p", "back"], {3, 7}),  # the gaps beside melds
    (["back", "1m", "2m", "3m"], {0}),  # the photo's edge before a row
    (["back", "3p", "3p", "back"], set()),  # a concealed kong, its middle two shown
    (["back", "3p", "5p", "back"], set()),  # the same with a face misread: still a kong's backs
    (["back"] * 4, set()),  # a concealed kong face down
    (["back"] * 3, set()),  # the same with a back missed
    (["7s", "back", "back", "7s", "1f"], set()),
])
def test_a_back_is_stray_unless_four_touching_tiles_hold_it_and_another_back(codes, stray):
    assert stray_backs(*one_group(codes)) == frozenset(stray)


def test_the_tiles_that_hold_a_back_are_counted_with_the_flowers_aside_as_the_melds_are_cut():
    assert stray_backs(*one_group(["back", "1f", "2f", "3f", "1m", "1m", "1m"])) == frozenset({0})
    assert stray_backs(*one_group(["back", "1f", "back", "1m", "1m"])) == frozenset()


def test_two_kongs_laid_touching_with_one_back_more_set_the_least_sure_back_between_them_apart():
    """As on a generated evening's photo (`@600` seed 3001 hand 8, 512 px): two concealed kongs laid touching, the
    table between them boxed as a back (0.82). Every back lay in four tiles with another, so none was stray, the
    nine tiles made no sets and the hand no legal reading."""
    codes = ["back", "9p", "9p", "back", "back", "back", "3p", "3p", "back"]
    conf = np.array([0.86, 0.89, 0.9, 0.95, 0.82, 0.91, 0.91, 0.9, 0.87])
    assert stray_backs(*one_group(codes), conf) == frozenset({4})
    assert stray_backs(*one_group(codes)) in {frozenset({3}), frozenset({4}), frozenset({5})}  # kongs whole
    assert stray_backs(*one_group(["back", "9p", "9p", "back", "back", "3p", "3p", "back"])) == frozenset()


@pytest.mark.parametrize(("codes", "stray"), [
    # as on generated evenings' photos (`@406` seed 7000 hand 8, `@600` seed 8006 hand 7, 1536 px): a pon, a kong
    # face down and the concealed row touching, the table between the kong and the row boxed as a back (0.41)
    (["2m", "2m", "2m", "back", "back", "back", "back", "back", "4p", "4p", "5p"], {7}),
    # two kongs, each a back at either end, and the table between them, in the row
    (["back", "1m", "1m", "back", "back", "back", "7z", "7z", "back", "2p", "2s", "3s"], {4}),
    (["back", "back", "back", "back", "back", "1m", "1m", "back", "2p", "2s"], set()),  # two kongs whole
    (["2m", "3m", "back", "back", "back", "4p", "5p"], set()),  # a kong with a back missed: no back makes it whole
])
def test_a_back_in_the_row_without_which_its_backs_lie_in_whole_kongs_is_set_apart(codes, stray):
    conf = np.full(len(codes), 0.9)
    conf[sorted(stray)] = 0.4
    assert stray_backs(*one_group(codes), conf) == frozenset(stray)


def test_the_table_between_a_kong_and_the_row_boxed_as_a_back_leaves_a_legal_hand():
    """A concealed kong laid back, face, face, back a little apart from the row's start, the table between them
    boxed as a narrow back the detector doubts (0.4): with it, the row holds three backs and no legal hand."""
    hand = replace(HAND, melds=(Meld("ankong", ("9p",) * 4),))
    dets, _ = laid_out(hand, melds_beside=0.6, win_apart=False)
    scores = dets.scores.copy()
    scores[[0, 3]] = one_hot(["back"] * 2)
    x = float(dets.boxes[3, 2])
    y1, y2 = float(dets.boxes[3, 1]), float(dets.boxes[3, 3])
    between = Detections(np.array([[x, y1, x + 0.6 * TILE_W, y2]], np.float32), one_hot(["back"], top=0.4))
    reading = read_detections(Detections.concat([Detections(dets.boxes, scores), between]))
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), hand), reading.warnings
    assert reading.best.apart == (len(dets),)


def test_a_layout_without_some_tiles_keeps_its_other_groups_and_rows():
    layout = Layout(((0, 1), (2,), (3, 4)), ((0, 1), (2,)), (7,), 5.0)
    assert without(layout, frozenset({2})) == Layout(((0, 1), (3, 4)), ((0,), (1,)), (7,), 5.0)
    assert without(layout, frozenset()) is layout


def gap_read_as_back(hand: Hand) -> tuple[Detections, int]:
    """`hand` laid out (melds in a second row, a tile's width apart) with a back boxed in the gap between
    its first two melds, as the detector reads a table surface the colour of the set's backs."""
    dets, codes = laid_out(hand)
    melds = [i for i, c in enumerate(codes) if i >= len(hand.concealed) + 1 and c in hand.melds[0].tiles]
    x = float(dets.boxes[melds[-1], 2]) + 1.0
    y = float(dets.boxes[melds[-1], 1])
    gap = Detections(np.array([[x, y, x + TILE_W, y + TILE_H]], np.float32), one_hot(["back"]))
    return Detections.concat([dets, gap]), len(dets)


def test_a_back_read_in_the_gap_between_two_melds_is_set_apart_and_both_melds_read():
    dets, back = gap_read_as_back(TWO_MELDS)
    reading = read_detections(dets)
    assert same_hand(reading_hand(reading), TWO_MELDS)
    apart = [reading.best.row(i).box for g in reading.best.groups if g.role == GroupRole.APART for i in g.members]
    assert len(apart) == 1 and np.allclose(apart[0], dets.boxes[back])


def test_a_tile_lying_face_down_in_the_row_stays_in_the_hand():
    dets, codes = laid_out(HAND)
    codes[0] = "back"
    reading = read_detections(Detections(dets.boxes, one_hot(codes)))
    assert same_hand(reading_hand(reading), HAND)
    assert not [g for g in reading.best.groups if g.role == GroupRole.APART]


@pytest.mark.parametrize(("codes", "kind"), [
    (["back", "1s", "1s", "back"], "ankong"), (["back"] * 4, "ankong"),
    (["1s", "back", "back", "back"], "ankong"),  # four backs, the first named by the search
    (["1s", "1s", "1s", "back"], "unknown"),  # a pon beside a gap read as a back
])
def test_a_concealed_kong_shows_four_backs_or_two_and_two_faces(codes, kind):
    assert group_kind(codes) == kind
