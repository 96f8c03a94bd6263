"""Reader v3 on fake detections: the hand found among a table's tiles, the search over memberships,
codes and a missed tile under the chosen table, and its runner-up hands."""

import json
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from scoring.draft import to_hand
from scoring.hand import Hand, Meld, Situation
from scoring.melds import GroupRole
from scoring.ruleset import load_ruleset
from training.evaluate import reading_hand
from vision.__main__ import as_json
from vision.classes import CLASS_INDEX
from vision.detections import Detections
from vision.hand_finding import Part
from vision.notices import Notice
from vision.read import read_detections
from vision.search import likely_hand

from .fake_detections import TILE_H, TILE_W, around_the_hand, laid_out, one_hot
from .test_layout_and_correction import HAND, same_hand

ORPHANS = Hand(("1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z", "1m", "2s", "3s"),
               "4s", (), (), Situation())


def hand_tiles(reading) -> set[int]:
    return {i for g in reading.best.groups if g.role != GroupRole.APART for i in g.members}


@pytest.mark.parametrize("table", [
    {"wall": True},
    {"wall": True, "discards": 12},
    {"loose": "7p"},
    {"wall": True, "discards": 8, "loose": "4m"},
])
def test_the_hand_is_found_among_the_tiles_around_it(table):
    hand_dets, _ = laid_out(HAND)
    photo = around_the_hand(hand_dets, seed=3, **table)
    reading = read_detections(photo)
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), HAND), reading.warnings
    kept = hand_tiles(reading)
    assert kept == set(range(len(hand_dets)))  # the rows' ids are the photo's detections: the hand's come first
    loose = [i for g in reading.best.groups if g.role == GroupRole.APART for i in g.members]
    assert len(loose) == len(photo) - len(hand_dets)  # set apart, not dropped
    out = reading.to_json()
    assert {"apart"} <= {g["role"] for g in out["groups"]} and len(out["detections"]) == len(photo)
    assert all(d["why"] for d in out["detections"] if out["groups"][d["group"]]["role"] == "apart")


def test_a_tile_the_detector_missed_is_supposed_and_said():
    dets, codes = laid_out(HAND)
    missed = 4  # 5p, inside the concealed row
    keep = np.array([i != missed for i in range(len(dets))])
    reading = read_detections(dets[np.flatnonzero(keep)])
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), HAND), reading.warnings
    assert [row.code for row in reading.best.supposed] == ["5p"]
    assert any(w.code == "tile-supposed" for w in reading.warnings)


def on_the_mat(dets: Detections, centres: list[tuple[float, float]], presence: float) -> Detections:
    """`dets` and boxes of a dotted cloth beside the tiles, read surely as 9p, scored `presence` as a tile at all."""
    boxes = np.array([(x - TILE_W / 2, y - TILE_H / 2, x + TILE_W / 2, y + TILE_H / 2) for x, y in centres], np.float32)
    return Detections.concat([dets, Detections(boxes, one_hot(["9p"] * len(centres), top=presence, rest=1e-7))])


def test_boxes_on_a_dotted_mat_the_detector_doubts_are_set_apart_when_no_hand_holds_them():
    """A dotted mat boxed as 9p (0.4 that a tile is there) touching the winning tile and the pon: no legal hand
    holds them, so each is read again as a part of its own, as likely in the hand as a tile is there, and the hand
    is read without them. Boxes the detector is surer of stay in their parts, and no legal hand is read."""
    dets, _ = laid_out(HAND)  # the row and the winning tile, then the pon, then the two flowers
    x1, y1, x2, _ = dets.boxes.T
    win, pon_end = len(HAND.concealed), len(dets) - 3
    phantoms = [(x2[k] + 1 + TILE_W / 2, y1[k] + TILE_H / 2) for k in (win, pon_end)]
    reading = read_detections(on_the_mat(dets, phantoms, 0.4))
    assert reading.legal and same_hand(reading_hand(reading), HAND), reading.warnings
    assert set(reading.best.apart) == {len(dets), len(dets) + 1}
    assert not read_detections(on_the_mat(dets, phantoms, 0.8)).legal


CHI_HAND = Hand(("1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z"), "5z",
                (Meld("chi", ("4s", "5s", "6s")), Meld("pon", ("3z", "3z", "3z"))), ("1f",), Situation())


@pytest.mark.parametrize("missed, supposed", [(0, {"4s", "7s"}), (1, {"5s"}), (2, {"3s", "6s"})])
def test_a_melds_tile_the_detector_missed_is_supposed_in_the_meld(missed, supposed):
    """The two tiles left of a chi laid apart are that chi with its tile supposed (at an end, either face that
    makes it one: the photo cannot say which; in the middle, where the gap is), not a row cut in two with the
    tile supposed among the concealed ones, which reads the same codes but a hand without the exposed chi (門清)."""
    dets, codes = laid_out(CHI_HAND)
    chi = codes.index("4s", len(CHI_HAND.concealed) + 1)  # the melds' row follows the concealed row
    reading = read_detections(dets[np.flatnonzero(np.arange(len(dets)) != chi + missed)])
    hand = reading_hand(reading)
    assert hand is not None and Counter(hand.concealed) == Counter(CHI_HAND.concealed), reading.warnings
    [row] = reading.best.supposed
    group = next(g for g in reading.best.groups if row.id in g.members)
    assert row.code in supposed and group.kind == "chi"
    assert [reading.best.row(i).code for i in group.members] == sorted(reading.best.row(i).code for i in group.members)


def test_a_supposed_tile_round_trips_through_the_json():
    """`vision read --json`: the missed tile is a row flagged supposed, without a box, in the concealed
    group by its id, and the JSON's hand (scoring's, made from the proposal's draft) holds it."""
    dets, _ = laid_out(HAND)
    reading = read_detections(dets[np.flatnonzero(np.arange(len(dets)) != 4)])  # 5p missed
    out = json.loads(json.dumps(as_json(reading, HAND.situation, load_ruleset())))
    [row] = [d for d in out["detections"] if d.get("supposed")]
    assert (row["code"], row["box"], row["id"]) == ("5p", None, len(dets) - 1)  # ids past the photo's 0..len-2
    concealed = out["groups"][row["group"]]
    assert concealed["kind"] == "concealed" and row["id"] in concealed["ids"] and concealed["win"] != row["id"]
    assert Hand.from_json(out["hand"]) == to_hand(reading.best.draft, HAND.situation)
    assert same_hand(Hand.from_json(out["hand"]), HAND)


def test_thirteen_orphans_reads_under_a_table_that_has_it_and_not_under_one_that_does_not():
    dets, codes = laid_out(ORPHANS)
    scores = dets.scores.copy()
    planted = codes.index("9p")  # read as 8p first, 9p second
    scores[planted, CLASS_INDEX["8p"]], scores[planted, CLASS_INDEX["9p"]] = 0.6, 0.3
    dets = type(dets)(dets.boxes, scores)
    improved = read_detections(dets, load_ruleset("tw16-improved"))
    assert reading_hand(improved) is not None and same_hand(reading_hand(improved), ORPHANS), improved.warnings
    assert improved.best.row(planted).code == "9p" and improved.best.row(planted).why == "legal hand"
    assert not read_detections(dets).legal  # the default table has no 十三么


def test_an_unsure_tile_gives_a_runner_up_hand_with_its_tai_and_what_differs():
    hand = Hand(("2m", "3m", "4m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "5z", "1p"), "1p",
                (Meld("pon", ("3z", "3z", "3z")),), (), Situation(seat_wind="E", round="S"))
    dets, codes = laid_out(hand)
    scores = dets.scores.copy()
    unsure = codes.index("4m")  # 4m or 1m: 234m and 123m are both a chow
    scores[unsure, CLASS_INDEX["4m"]], scores[unsure, CLASS_INDEX["1m"]] = 0.5, 0.4
    reading = read_detections(type(dets)(dets.boxes, scores))
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), hand)
    assert reading.runner_ups, reading.warnings
    alt = reading.runner_ups[0]
    assert alt.row(unsure).code == "1m" and alt.changed == (unsure,) and alt.row(unsure).why == "legal hand"
    assert Notice.of("alt-tile", number=unsure + 1, before="4m", after="1m") in alt.differs
    assert "一萬" in alt.differs[0].text("traditional") and "一万" in alt.differs[0].text("simplified")
    assert len(reading.runner_ups) <= 3 and 0.5 < reading.confidence < 1.0
    # ranked by probability beside the best's: the confidence is the best's share of the best two
    assert [p.probability for p in reading.runner_ups] == sorted((p.probability for p in reading.runner_ups),
                                                                 reverse=True)
    assert reading.confidence == pytest.approx(1 / (1 + alt.probability))
    assert to_hand(alt.draft, hand.situation).concealed.count("1m") == 1
    out = reading.to_json()["alternatives"][0]
    assert out["probability"] == round(alt.probability, 4) and out["detections"][unsure]["code"] == "1m"


def rows_of_a_set(rows: list[list[str]]) -> Detections:
    """Rows of touching face-up tiles, two tile heights apart (a set laid out for a photo)."""
    boxes = [(500 + k * (TILE_W + 1), 500 + 3 * r * TILE_H, 500 + k * (TILE_W + 1) + TILE_W, 500 + (3 * r + 1) * TILE_H)
             for r, row in enumerate(rows) for k in range(len(row))]
    return Detections(np.array(boxes, np.float32), one_hot([c for row in rows for c in row]))


SET_ROWS = [["1m", "3m", "5m", "7m", "9m", "2p", "4p", "6p", "8p", "1s", "3s", "5s"],
            ["7s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z", "2m", "4m", "6m"]]


def test_rows_of_a_set_are_offered_loose_not_shown_as_a_hand():
    """No winning hand shows two rows of 9 or more face-up tiles (beside three melds' 9 tiles a hand
    keeps 8), so with no legal hand neither row is shown as one: all are offered loose."""
    reading = read_detections(rows_of_a_set(SET_ROWS))
    assert reading_hand(reading) is None and not hand_tiles(reading)
    assert sorted(i for g in reading.best.groups for i in g.members) == list(range(24))
    assert any(w.code == "no-legal-hand" for w in reading.warnings)


def test_one_row_without_a_legal_hand_is_still_shown_for_the_player_to_fix():
    reading = read_detections(rows_of_a_set(SET_ROWS[:1]))
    assert reading_hand(reading) is None and len(hand_tiles(reading)) == 12


def test_with_no_legal_hand_a_long_row_the_finder_doubts_is_shown_and_a_short_one_is_not():
    """A photo of one hand whose tiles are too small to read into a legal hand: the hand finder gives its row
    0.47. Set apart, the player would tap every tile back; shown as the hand, only the misreads. A short run
    it doubts as much is more often loose tiles or discards, and one it thinks unlikely stays apart."""
    row = Part(tuple(range(15)), 0.47, "stray", 12)
    short = Part(tuple(range(15, 20)), 0.47, "stray", 5)
    order = tuple(range(25))  # the photo's tiles in reading order
    assert likely_hand([short, row], order).inside == (False, True)
    assert likely_hand([short, row], order).members == tuple(range(15))
    assert likely_hand([short], order).inside == (False,)
    assert likely_hand([replace(row, p_hand=0.2)], order).inside == (False,)
    sure = Part(tuple(range(20, 25)), 0.6, "stray", 5)
    assert likely_hand([row, sure], order).inside == (False, True)  # a part likelier in than not: as before


def test_a_concealed_kong_pushed_against_the_row_is_cut_off_as_a_kong():
    """As on a generated evening's photo (`@406` seed 2001 hand 3, 1536 px): a concealed kong laid back, face,
    face, back flush against the concealed row, no wider step between them. The row could not be cut so close,
    and with two backs in it no legal hand was found. The concealed tiles show no backs: the kong is cut off."""
    hand = replace(HAND, melds=(Meld("ankong", ("9p",) * 4),))
    dets, codes = laid_out(hand, melds_beside=0.0, win_apart=False)
    assert codes[:4] == ["9p"] * 4  # the kong first in the row's line, touching it
    scores = dets.scores.copy()
    scores[[0, 3]] = one_hot(["back", "back"])
    reading = read_detections(Detections(dets.boxes, scores))
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), hand), reading.warnings
    kong = next(g for g in reading.best.groups if g.kind == "ankong")
    assert kong.members == (0, 1, 2, 3)
    # the layout's one row of 18 tiles has no concealed hand's count; the hand read has, and says nothing of it
    assert [w.code for w in reading.warnings] == ["win-not-apart"]


def test_a_concealed_kong_whose_backs_read_as_white_dragons_is_a_concealed_kong():
    """As on a generated evening's photo (`@406` seed 11012 hand 2, 1536 px): a set whose backs are as plain as its
    白板, a concealed kong of 東 laid back, face, face, back, its backs read 白 (0.58, back 0.22). 白 東 東 白 is no
    set, and the backs were not candidates, so the hand was lost. The kong's ends may be backs."""
    hand = replace(HAND, melds=(Meld("ankong", ("1z",) * 4),))
    dets, codes = laid_out(hand)
    ends = [i for i, c in enumerate(codes) if c == "back"]
    assert len(ends) == 2
    scores = dets.scores.copy()
    scores[ends] = 0.002
    scores[ends, CLASS_INDEX["7z"]], scores[ends, CLASS_INDEX["back"]] = 0.58, 0.22
    reading = read_detections(Detections(dets.boxes, scores))
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), hand), reading.warnings
    kong = next(g for g in reading.best.groups if g.kind == "ankong")
    assert [reading.best.row(i).code for i in kong.members] == ["back", "1z", "1z", "back"]


def test_a_row_holed_by_a_missed_tile_keeps_the_set_that_touches_its_end():
    """As on a generated evening's photo (`@406` seed 2005 hand 3, 1536 px): a tile missed inside the concealed row
    cuts it in two, 5m 5m 5m 5p | 7p … 2z 2z 西 西 西. The part after the hole makes no sets but for the 西 pon at its
    end, touching the 2z; that pon was kept out as an exposed meld, the rest joined to the row and the tile supposed
    there. Touching the row, the 西 are of it: a concealed triplet (an 暗刻), not an exposed pon."""
    hand = Hand(("5m", "5m", "5m", "5p", "6p", "7p", "7s", "8s", "9s", "2z", "2z", "3z", "3z"), "3z",
                (Meld("chi", ("7m", "8m", "9m")),), ("2f",), Situation())
    dets, codes = laid_out(hand, win_apart=False)
    reading = read_detections(dets[np.flatnonzero(np.arange(len(dets)) != codes.index("6p"))])
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), hand), reading.warnings
    assert [row.code for row in reading.best.supposed] == ["6p"]


def test_a_supposed_tile_is_never_the_winning_tile():
    """With no tile set apart, the winning tile is taken as the row's last ("win-not-apart"): the last the photo
    shows, not the tile the reader supposes where one is missing (it was put last, and so named the winner)."""
    dets, codes = laid_out(HAND, win_apart=False)
    reading = read_detections(dets[np.flatnonzero(np.arange(len(dets)) != 4)])  # 5p missed
    [supposed] = reading.best.supposed
    concealed = next(g for g in reading.best.groups if g.kind == "concealed")
    assert supposed.code == "5p" and concealed.win != supposed.id and reading.best.row(concealed.win).code == "2m"
    assert same_hand(reading_hand(reading), HAND)
