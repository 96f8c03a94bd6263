"""training.evaluate: taps to fix, face-up figures, scene types, several sets at once; the hand the player
is shown (taps, groups and kinds, tiles wrongly kept or set apart); the detection cache."""

import json
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.real import OTHER, REAL_LABELLED, REAL_SETS, scene_type
from datasets.scene_truth import SceneTruth, TruthGroup
from scoring.melds import GroupKind, GroupRole
from tests.fake_detections import one_hot
from tests.shared import needs_shared
from training.evaluate import (
    MOVE_TAPS,
    TAKE_OUT_TAPS,
    DetectionCache,
    Judged,
    Tally,
    is_real,
    judge,
    judge_hand,
    labels_say_hand,
    load_samples,
    main,
    read_samples,
    real_tai_exact,
)
from training.evaluate_layout import evaluate_layout
from training.real_table import table
from vision.boxes import match
from vision.detections import Detections
from vision.detector import TileDetector
from vision.groups import TileGroup
from vision.read import PhotoReading, Proposal, Row, shown_rows
from vision.settings import DETECTOR_DEFAULT, READER_DEFAULT, ReaderSettings

DATA = Path(__file__).resolve().parent / "data"


def box(x: float) -> list[float]:
    return [x, 0, x + 10, 14]


def test_taps_count_a_wrong_code_a_missing_tile_and_an_extra_tile_once_each():
    true_boxes = np.array([box(0), box(20), box(40)], np.float32)
    pred_boxes = np.array([box(0), box(20.5), box(80)], np.float32)  # 3rd label missed, one extra at 80
    tally = Tally()
    tally.add(pred_boxes, ["1m", "2p", "5z"], true_boxes, ["1m", "3p", "9s"])  # 2p read for 3p: wrong code
    tally.add(true_boxes, ["1m", "3p", "9s"], true_boxes, ["1m", "3p", "9s"])  # all right
    tally.add(pred_boxes[:1], ["1m"], true_boxes[:1], ["2m"])  # one wrong code only
    assert tally.taps == [3, 0, 1]
    assert tally.exact == [False, True, False]
    result = tally.result()
    assert result["taps"] == {"mean": round(4 / 3, 3), "zero": round(1 / 3, 4), "at_most_one": round(2 / 3, 4)}
    assert result["image_exact"] == round(1 / 3, 4)
    assert (result["precision"], result["recall"]) == (round(4 / 7, 4), round(4 / 7, 4))


def reading_of(boxes: np.ndarray, codes: list[str], groups: list[tuple[str, list[int]]],
               added: tuple[str, ...] = (), win: int | None = None) -> PhotoReading:
    """A reading as a reader hands it over: these detections (read as `codes`) in these groups ("loose":
    set apart), the tiles `added` supposed rows of the concealed group before its last tile, `win` its winning tile
    (by default, as the reader names it, the row's last tile)."""
    dets = Detections(np.asarray(boxes, np.float32), one_hot(codes)).with_facts(id=range(len(codes)))
    supposed = tuple(Row(len(codes) + k, code, code, 0.0, 0.0, None, supposed=True) for k, code in enumerate(added))

    def concealed(members: list[int]) -> TileGroup:
        row = (*members[:-1], *(r.id for r in supposed), *members[-1:])
        return TileGroup(GroupKind.CONCEALED, row, win=row[-1] if win is None and row else win)

    kinds = tuple(TileGroup(GroupKind.UNKNOWN, tuple(members), GroupRole.APART) if kind == "loose" else
                  concealed(members) if kind == "concealed" else TileGroup(GroupKind(kind), tuple(members))
                  for kind, members in groups)
    return PhotoReading(Proposal((*shown_rows(dets, codes, [""] * len(codes)), *supposed), kinds), True, 1.0, ())


def test_a_back_found_where_a_real_set_labels_nothing_costs_a_tap_only_in_the_all_tiles_figure():
    true_boxes = np.array([box(0), box(20)], np.float32)
    boxes, codes = np.array([box(0), box(20), box(60)], np.float32), ["1m", "2m", "back"]
    read = {"sample": {"codes": ["1m", "2m"], "scene": "x", "truth": None}, "true_boxes": true_boxes, "peer": None,
            "reading": reading_of(boxes, codes, [("concealed", [0, 1]), ("loose", [2])])}
    judged = Judged()
    judged.add(read)
    result = judged.result()
    assert result["tiles"]["taps"]["mean"] == 1
    assert result["face_up"]["taps"]["mean"] == 0
    assert result["riichi34"]["ours"]["taps"]["mean"] == 0
    assert "peer" not in result["riichi34"]
    # no hand truth in a real set: every labelled tile is judged, but the back set apart on no labelled tile is
    # greyed on the page and left out of the hand: no tap for the player, counted apart
    assert result["hand"]["taps"]["mean"] == 0
    assert result["hand"]["greyed_on_nothing"] == 1
    assert result["hand"]["taps_by_cause"]["box on nothing"] == 0
    assert result["hand"]["judged_on"] == {"hand truth": 0, "every tile (no hand truth)": 1}
    assert result["hand"]["groups_exact"] is None and result["hand"]["loose_kept"]["rate"] is None


def test_a_box_on_nothing_kept_in_a_real_photos_hand_costs_a_tap():
    true_boxes = np.array([box(0), box(20)], np.float32)
    boxes, codes = np.array([box(0), box(20), box(60)], np.float32), ["1m", "2m", "3m"]
    read = {"sample": {"codes": ["1m", "2m"], "scene": "x", "truth": None}, "true_boxes": true_boxes, "peer": None,
            "reading": reading_of(boxes, codes, [("concealed", [0, 1, 2])])}
    judged = Judged()
    judged.add(read)
    hand = judged.result()["hand"]
    assert hand["taps"]["mean"] == 1 and hand["taps_by_cause"]["box on nothing"] == 1
    assert hand["greyed_on_nothing"] == 0


# A table scene's truth: the hand (1m 2m 3m 5z, 5z won; a pon of 7p shown) and a wall of two backs,
# the lower one hidden (not labelled). Label rows 0-7 are the hand, row 8 the wall's top tile.
LABELS = ["1m", "2m", "3m", "5z", "5z", "7p", "7p", "7p", "back"]
LABEL_BOXES = np.array([box(20 * i) for i in range(5)] + [[20 * i, 50, 20 * i + 10, 64] for i in range(3)]
                       + [box(300)], np.float32)
SCENE = SceneTruth.from_json({
    "kind": "table", "hand": {"concealed": ["1m", "2m", "3m", "5z"], "win": "5z", "seat": "E", "round": "E",
                              "melds": [{"type": "pon", "tiles": ["7p"] * 3}], "flowers": []},
    "groups": [{"kind": "pon", "tiles": ["7p"] * 3, "label_rows": [5, 6, 7]},
               {"kind": "concealed", "tiles": ["1m", "2m", "3m", "5z"], "label_rows": [0, 1, 2, 3]},
               {"kind": "win", "tiles": ["5z"], "label_rows": [4]}],
    "surround": [{"kind": "wall", "tiles": ["back", "back"], "label_rows": [8, None]}]})
HAND_READ = [("concealed", [0, 1, 2, 3, 4]), ("pon", [5, 6, 7])]


def judged(groups, codes=LABELS, keep=range(9), added=(), scene=SCENE):
    """`judge_hand` of a reading of the scene's labelled boxes `keep` (read as `codes`) in `groups`."""
    keep = list(keep)
    reading = reading_of(LABEL_BOXES[keep], [codes[i] for i in keep], groups, added)
    return judge_hand(reading, match(LABEL_BOXES, reading.best.boxes), LABELS, scene)


def test_a_reading_that_sets_the_wall_apart_needs_no_tap_and_has_the_groups_and_kinds_right():
    j = judged(HAND_READ + [("loose", [8])])
    assert (j.taps, j.groups_exact, j.loose_kept, j.non_hand, j.set_apart, j.hand_tiles) == (0, True, 0, 1, 0, 8)


def test_a_wall_tile_kept_in_the_hand_costs_one_tap_and_is_one_loose_tile_kept():
    j = judged(HAND_READ + [("unknown", [8])])  # today's reader: every tile is in the hand
    assert (j.taps, j.loose_kept, j.set_apart, j.groups_exact) == (1, 1, 0, False)


def test_a_hand_tile_set_apart_costs_one_tap_and_is_one_hand_tile_set_apart():
    j = judged([("concealed", [0, 1, 2, 3]), ("pon", [5, 6, 7]), ("loose", [4, 8])])  # the winning 5z set apart
    assert (j.taps, j.loose_kept, j.set_apart, j.groups_exact) == (1, 0, 1, False)


def test_a_wrong_code_and_a_meld_of_the_wrong_kind_are_not_the_groups_and_kinds_exact():
    misread = judged(HAND_READ + [("loose", [8])], codes=["1m", "2m", "4m", *LABELS[3:]])
    assert (misread.taps, misread.groups_exact) == (1, False)
    as_concealed = judged([("concealed", [0, 1, 2, 3, 5, 6, 7, 4]), ("loose", [8])])  # the pon taken as concealed
    assert (as_concealed.taps, as_concealed.groups_exact) == (TAKE_OUT_TAPS, False)  # a 7p, then 拿出來當碰
    assert as_concealed.causes["melds"] == as_concealed.taps  # every tile right, its kind not
    split = judged([("concealed", [0, 1, 2, 3, 5, 4]), ("unknown", [6, 7]), ("loose", [8])])  # one 7p in the row
    assert split.causes["melds"] == 1 + 3 * MOVE_TAPS  # ＋碰, its three tiles moved in


def test_a_meld_of_the_wrong_kind_is_a_tap_and_a_meld_that_is_none_is_put_back_in_one():
    """The pon read as a chi is one tap (its kind). Three of the concealed tiles read as a meld are one tap (放回手牌);
    a meld read with a tile of the row besides the pon's moves that tile out."""
    as_chi = judged([("concealed", [0, 1, 2, 3, 4]), ("chi", [5, 6, 7]), ("loose", [8])],
                    codes=[*LABELS[:5], "7p", "8p", "9p", "back"])
    assert as_chi.causes == {**as_chi.causes, "wrong code": 2, "melds": 1}  # two codes, then its kind
    wrong_kind = judged([("concealed", [0, 1, 2, 3, 4]), ("kong", [5, 6, 7]), ("loose", [8])])
    assert wrong_kind.causes["melds"] == 1 and wrong_kind.taps == 1
    put_back = judged([("concealed", [3, 4]), ("chi", [0, 1, 2]), ("pon", [5, 6, 7]), ("loose", [8])])
    assert (put_back.taps, put_back.causes["melds"], put_back.groups_exact) == (1, 1, False)
    with_one_more = judged([("concealed", [0, 1, 2, 4]), ("kong", [3, 5, 6, 7]), ("loose", [8])])
    assert with_one_more.causes["melds"] == 1 + MOVE_TAPS  # its kind, and the 5z moved back to the row
    wall = judged(HAND_READ + [("pon", [8])])  # the wall's tile read as a meld: deleting it is the one tap
    assert (wall.taps, wall.causes["other tile kept"], wall.causes["melds"]) == (1, 1, 0)


def test_choosing_the_winning_tile_is_a_tap_where_the_reading_won_on_another_code():
    """The reader names the row's last tile. The scene won on its 5z: a reading whose last tile is the 3m costs the tap
    of 設為胡的那張, and one whose last tile is the other 5z costs none (the same hand). A winning tile read with a
    wrong code is fixed by that code's tap alone."""
    by = lambda j: {c: n for c, n in j.causes.items() if n}  # noqa: E731
    other_code = judged([("concealed", [0, 1, 3, 4, 2]), ("pon", [5, 6, 7]), ("loose", [8])])
    assert (by(other_code), other_code.groups_exact) == ({"winning tile": 1}, True)
    assert judged([("concealed", [0, 1, 2, 4, 3]), ("pon", [5, 6, 7]), ("loose", [8])]).taps == 0
    misread = judged(HAND_READ + [("loose", [8])], codes=[*LABELS[:4], "6z", *LABELS[5:]])
    assert by(misread) == {"wrong code": 1}
    # the 5z laid apart not found, the row's last tile (3m) taken: the 5z added as 胡的那張 is one tap for both
    missed = judged([("concealed", [0, 1, 3, 2]), ("pon", [4, 5, 6]), ("loose", [7])], keep=[0, 1, 2, 3, 5, 6, 7, 8])
    assert missed.causes["winning tile"] == 0 and by(missed) == {"missing or supposed": 1}
    real = real_judged([("concealed", [*range(15), 16, 15])])  # a real photo's labels say no winning tile
    assert real.causes["winning tile"] == 0


def test_a_concealed_kong_laid_as_four_backs_costs_the_tap_that_names_it():
    """The page asks the face of a concealed kong shown as four backs: one pick names the four. Four backs of the wall
    read into the hand are four tiles kept, not a kong to name."""
    kong = {"kind": "table", "hand": {**SCENE.hand.to_json(), "melds": [{"type": "ankong", "tiles": ["7p"] * 4}]},
            "groups": [{"kind": "ankong", "tiles": ["back"] * 4, "label_rows": [5, 6, 7, 8]},
                       *SCENE.to_json()["groups"][1:]], "surround": []}
    scene, codes = SceneTruth.from_json(kong), [*LABELS[:5], "back", "back", "back", "back"]
    boxes = np.concatenate([LABEL_BOXES[:8], [[60, 50, 70, 64]]]).astype(np.float32)
    reading = reading_of(boxes, codes, [("concealed", [0, 1, 2, 3, 4]), ("ankong", [5, 6, 7, 8])])
    j = judge_hand(reading, match(boxes, reading.best.boxes), codes, scene)
    assert {c: n for c, n in j.causes.items() if n} == {"kong to name": 1}
    wall = reading_of(LABEL_BOXES, LABELS, [("concealed", [0, 1, 2, 3, 4]), ("pon", [5, 6, 7]), ("ankong", [8])])
    assert judge_hand(wall, match(LABEL_BOXES, wall.best.boxes), LABELS, SCENE).causes["kong to name"] == 0


# A whole hand the default table scores: 2z won by self-draw as 東 in the 東 round, a pon of 7p shown. Label rows
# 0-13 the concealed row (the winning 2z last), 14-16 the pon.
WHOLE = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "2z", "2z", "7p", "7p", "7p"]
WHOLE_BOXES = np.array([box(20 * i) for i in range(14)] + [[20 * i, 50, 20 * i + 10, 64] for i in range(3)],
                       np.float32)
WHOLE_SCENE = SceneTruth.from_json({
    "kind": "hand", "hand": {"concealed": WHOLE[:13], "win": "2z", "seat": "E", "round": "E", "self_draw": True,
                             "melds": [{"type": "pon", "tiles": ["7p"] * 3}], "flowers": []},
    "groups": [{"kind": "concealed", "tiles": WHOLE[:14], "label_rows": list(range(14))},
               {"kind": "pon", "tiles": ["7p"] * 3, "label_rows": [14, 15, 16]}]})


def whole_judged(groups, codes=WHOLE):
    """`judge_hand` of a reading of WHOLE's boxes in `groups`, the concealed group's last tile its winning tile."""
    reading = reading_of(WHOLE_BOXES, codes, groups, win=groups[0][1][-1])
    return judge_hand(reading, match(WHOLE_BOXES, reading.best.boxes), WHOLE, WHOLE_SCENE)


def test_a_readings_tai_are_scored_in_the_scenes_situation_and_exact_only_where_they_total_the_same():
    """Scored as the page scores the hand (who won, how, the winds: the scene's), a reading right in every tile and
    group has the scene's 台; the pon read as a concealed 刻子 (門清, an 暗刻 more) has not, nor has a misread tile
    that makes a hand of other 台 (the 東 刻子 read as 北: no 圈風 and 門風 台)."""
    hand = whole_judged([("concealed", list(range(14))), ("pon", [14, 15, 16])])
    assert (hand.taps, hand.groups_exact, hand.tai_exact) == (0, True, True)
    concealed = whole_judged([("concealed", [*range(13), 14, 15, 16, 13])])
    assert (concealed.taps, concealed.tai_exact) == (TAKE_OUT_TAPS, False)  # a tile of the pon, then 拿出來當碰
    north = whole_judged([("concealed", list(range(14))), ("pon", [14, 15, 16])], codes=[*WHOLE[:9], *["4z"] * 3,
                                                                                          *WHOLE[12:]])
    assert (north.taps, north.tai_exact) == (3, False)


def test_a_readings_tai_miss_says_what_first_differs_from_the_hand():
    """Right: no miss. The pon read as a concealed 刻子: the groups. The 東 刻子 read as 北: the tiles. The 2z read
    as the winning tile where the 1m was: the winning tile. A meld's kind unsaid: no whole hand."""
    pon = ("pon", [14, 15, 16])
    assert whole_judged([("concealed", list(range(14))), pon]).tai_miss is None
    assert whole_judged([("concealed", [*range(13), 14, 15, 16, 13])]).tai_miss == "groups"
    north = [*WHOLE[:9], *["4z"] * 3, *WHOLE[12:]]
    assert whole_judged([("concealed", list(range(14))), pon], codes=north).tai_miss == "tiles"
    assert whole_judged([("concealed", [*range(1, 14), 0]), pon]).tai_miss == "winning tile"
    unsaid = whole_judged([("concealed", list(range(14))), ("unknown", [14, 15, 16])])
    assert (unsaid.tai_exact, unsaid.tai_miss) == (False, "no whole hand")


def test_a_photo_tells_its_hand_with_the_winning_tile_apart_or_last_and_not_sorted_in_or_a_kong_face_down():
    assert WHOLE_SCENE.tells_hand()  # the 2z last in the row
    data = WHOLE_SCENE.to_json()
    sorted_in = [*WHOLE[:12], "2z", "1z"]  # ... 2z 1z: the 2z won, a 1z last
    data["groups"][0] |= {"tiles": sorted_in}
    assert not SceneTruth.from_json(data).tells_hand()
    data["groups"][0] |= {"tiles": WHOLE[:13], "label_rows": list(range(13))}
    data["groups"].append({"kind": "concealed", "tiles": ["2z"], "label_rows": [13], "win_apart": True})
    assert SceneTruth.from_json(data).tells_hand()
    data["hand"]["melds"] = [{"type": "ankong", "tiles": ["7p"] * 4}]
    data["groups"][1] = {"kind": "ankong", "tiles": ["back"] * 4, "label_rows": [14, 15, 16, None]}
    assert not SceneTruth.from_json(data).tells_hand()  # which tile the kong is, no photo says


def test_a_hand_no_reading_can_be_scored_from_is_not_tai_exact_and_a_toy_hand_is_not_judged():
    shown_not_set = whole_judged([("concealed", list(range(14))), ("unknown", [14, 15, 16])], codes=[*WHOLE[:14],
                                                                                                    "7p", "8p", "1s"])
    assert shown_not_set.tai_exact is False
    assert judged(HAND_READ + [("loose", [8])]).tai_exact is None  # 8 tiles: no win at the default table


# A real photo's labels of one concealed row: 17 tiles that make a win (a 中 刻子 among them), in one row.
ROW = ["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "2s", "3s", "4s", "5z", "5z", "5z", "9s", "9s"]
ROW_BOXES = np.array([box(20 * i) for i in range(17)], np.float32)


def real_judged(groups, codes=ROW, labels=ROW, label_boxes=ROW_BOXES):
    """`judge_hand` on a real photo (no scene truth) labelled `labels` at `label_boxes`, read as `codes` in `groups`
    (at the labels' boxes), the concealed group's last tile its winning tile."""
    reading = reading_of(ROW_BOXES, codes, groups, win=groups[0][1][-1])
    return judge_hand(reading, match(label_boxes, reading.best.boxes), labels, None, label_boxes)


def test_a_real_row_read_right_is_tai_exact_and_its_concealed_pung_read_as_a_pon_is_not():
    """A real photo whose labels are one concealed hand in one row: read right in every tile and group it has the 台
    of that hand scored as the page scores it; its 中 刻子 read as a pon (every tile right) loses 門清 and an 暗刻,
    so neither its groups nor its 台 are right, and one tap puts it back in the row (放回手牌). A 刻子 misread as
    another of the same 台 (中 as 發) costs 3 taps but is 台 exact: the figure judges the 台, the taps the tiles."""
    right = real_judged([("concealed", list(range(17)))])
    assert (right.truth, right.taps, right.groups_exact, right.tai_exact) == (False, 0, True, True)
    pon = real_judged([("concealed", [*range(12), 15, 16]), ("pon", [12, 13, 14])])
    assert (pon.taps, pon.causes["melds"], pon.groups_exact, pon.tai_exact) == (1, 1, False, False)
    wrong = real_judged([("concealed", list(range(17)))], codes=[*ROW[:12], "6z", "6z", "6z", *ROW[15:]])
    assert (wrong.taps, wrong.groups_exact, wrong.tai_exact) == (3, False, True)


def test_a_real_reading_won_on_a_tile_the_labels_do_not_hold_is_not_tai_exact():
    assert real_judged([("concealed", list(range(17)))], codes=[*ROW[:16], "8s"]).tai_exact is False
    assert real_tai_exact(reading_of(ROW_BOXES, ROW, [("concealed", list(range(17)))], win=16), ROW) is True


def test_only_a_real_photo_whose_labels_are_one_concealed_row_says_its_hand():
    """17 labelled tiles in one row that make a win, even at an angle and with flowers laid below, say the hand. A
    riichi hand of 14, 17 tiles that make no win, or a win whose pon lies behind the row (its melds the labels do not
    say): none, and their readings are not judged on groups or 台."""
    assert labels_say_hand(ROW, ROW_BOXES)
    slanted = ROW_BOXES + np.array([[0, 3 * i, 0, 3 * i] for i in range(17)], np.float32)
    assert labels_say_hand(ROW + ["1f"], np.concatenate([slanted, [[0, 60, 10, 74]]]).astype(np.float32))
    behind = ROW_BOXES.copy()
    behind[12:15] += np.array([0, -20, 0, -20], np.float32)
    assert not labels_say_hand(ROW, behind)
    assert not labels_say_hand(ROW[:14], ROW_BOXES[:14])
    assert not labels_say_hand([*ROW[:16], "1z"], ROW_BOXES)
    judged = real_judged([("concealed", list(range(12)) + [15, 16]), ("pon", [12, 13, 14])], label_boxes=behind)
    assert (judged.groups_exact, judged.tai_exact) == (None, None)


def test_a_supposed_tile_fills_a_missed_one_of_its_code_and_any_other_costs_a_tap():
    missed = [i for i in range(9) if i != 2]  # the 3m was not found
    groups = [("concealed", [0, 1, 2, 3]), ("pon", [4, 5, 6]), ("loose", [7])]  # indices into the kept boxes
    assert judged(groups, keep=missed).taps == 1
    filled = judged(groups, keep=missed, added=("3m",))
    assert (filled.taps, filled.groups_exact) == (0, True)
    assert judged(groups, keep=missed, added=("4m",)).taps == 1  # one tap: change the supposed tile's code
    assert judged(groups, keep=missed, added=("3m", "9s")).taps == 1  # the 9s is extra


def test_a_supposed_tile_the_photo_hides_is_right_but_such_a_hand_is_not_judged_whole():
    hidden_win = TruthGroup(GroupKind.CONCEALED, ("5z",), (None,), win_apart=True)
    scene = replace(SCENE, groups=(*SCENE.groups[:2], hidden_win))
    keep = [i for i in range(9) if i != 4]  # the winning tile is out of frame: no label, no detection
    groups = [("concealed", [0, 1, 2, 3]), ("pon", [4, 5, 6]), ("loose", [7])]
    hidden = judged(groups, keep=keep, added=("5z",), scene=scene)
    assert (hidden.taps, hidden.groups_exact, hidden.hand_tiles) == (0, None, 7)
    assert judged(groups, keep=keep, added=("6z",), scene=scene).taps == 1


def test_in_a_scene_without_a_hand_every_tile_kept_is_a_tap():
    loose = SceneTruth.from_json({"kind": "loose", "hand": None, "surround": [],
                                  "groups": [{"kind": "loose", "tiles": LABELS, "label_rows": list(range(9))}]})
    j = judged(HAND_READ + [("unknown", [8])], scene=loose)
    assert (j.taps, j.loose_kept, j.non_hand, j.groups_exact) == (9, 9, 9, None)
    assert judged([("loose", list(range(9)))], scene=loose).taps == 0


def test_each_tap_is_put_down_to_what_it_fixes():
    by = lambda j: {c: n for c, n in j.causes.items() if n}  # noqa: E731
    assert by(judged(HAND_READ + [("loose", [8])])) == {}
    assert by(judged(HAND_READ + [("unknown", [8])])) == {"other tile kept": 1}
    assert by(judged(HAND_READ + [("loose", [8])], codes=["1m", "2m", "4m", *LABELS[3:]])) == {"wrong code": 1}
    set_apart = judged([("concealed", [0, 1, 2, 3]), ("pon", [5, 6, 7]), ("loose", [4, 8])])
    assert by(set_apart) == {"missing or supposed": 1}
    missed = [i for i in range(9) if i != 2]
    groups = [("concealed", [0, 1, 2, 3]), ("pon", [4, 5, 6]), ("loose", [7])]
    assert by(judged(groups, keep=missed, added=("4m",))) == {"missing or supposed": 1}
    nothing = reading_of(np.concatenate([LABEL_BOXES, [box(600)]]), [*LABELS, "9s"],
                         HAND_READ + [("loose", [8]), ("unknown", [9])], ())
    j = judge_hand(nothing, match(LABEL_BOXES, nothing.best.boxes), LABELS, SCENE)
    assert by(j) == {"box on nothing": 1} and j.taps == 1
    loose = SceneTruth.from_json({"kind": "loose", "hand": None, "surround": [],
                                  "groups": [{"kind": "loose", "tiles": LABELS, "label_rows": list(range(9))}]})
    everything = judged(HAND_READ + [("unknown", [8])], scene=loose)
    assert sum(everything.causes.values()) == everything.taps == 9


def test_the_hand_figures_add_up_over_photos_and_by_scene():
    sample = {"codes": LABELS, "scene": "table", "truth": SCENE}
    reads = [{"sample": sample, "true_boxes": LABEL_BOXES, "peer": None, "seconds": 0.1,
              "reading": reading_of(LABEL_BOXES, LABELS, HAND_READ + [(kind, [8])])} for kind in ("loose", "unknown")]
    hand = judge(reads)["hand"]
    assert hand["taps"] == {"mean": 0.5, "zero": 0.5, "at_most_one": 1.0}
    assert (hand["groups_exact"], hand["whole_hands"]) == (0.5, 2)
    assert (hand["tai_exact"], hand["scored_hands"]) == (None, 0)  # a toy hand: no win at the default table
    assert hand["loose_kept"] == {"tiles": 1, "of": 2, "rate": 0.5}
    assert hand["hand_set_apart"] == {"tiles": 0, "of": 16, "rate": 0.0}
    assert judge(reads)["by_scene"]["table"]["hand"] == hand


class CountingDetector:
    """Stands in for the detector: the same row of five tiles on every photo (enough to tell that the row lies level,
    so the photo is not read turned to find it), counting its reads of each photo as it is (`reads`) and turned half
    a turn, which a photo of a hand's tiles or fewer is read too (`turned`)."""

    def __init__(self) -> None:
        self.reads = self.turned = 0
        self.seen: list[np.ndarray] = []

    def read(self, image, conf=None) -> Detections:
        if any(image.shape == s.shape and np.array_equal(cv2.rotate(image, cv2.ROTATE_180), s) for s in self.seen):
            self.turned += 1
        else:
            self.reads += 1
            self.seen.append(image)
        row = np.array([box(12 * k) for k in range(5)], np.float32)
        return Detections(row, one_hot([f"{k}m" for k in range(1, 6)]))


def test_cached_detections_are_reused_only_for_the_same_photo_and_settings_and_the_run_is_not_timed(tmp_path):
    """The photo as it is comes from the cache; the photo turned (read live, as `CachedPhoto` says) does not."""
    samples = load_samples(DATA / "unseen-table-small", "val", 3)
    detector, cache = CountingDetector(), DetectionCache(tmp_path / "cache", {"sha256": {"tiles.onnx": "a"}})
    first = read_samples(samples, detector, None, cache=cache)
    assert (detector.reads, detector.turned) == (3, 3) and len(list((tmp_path / "cache").glob("*.npz"))) == 3
    assert judge(first)["ms_per_photo"] is not None and "timing" not in judge(first)
    again = read_samples(samples, detector, None, cache=cache)
    assert (detector.reads, detector.turned) == (3, 6)  # every photo's own detections from the cache
    boxes = lambda reads: [r["reading"].best.boxes.tolist() for r in reads]  # noqa: E731
    assert boxes(again) == boxes(first)
    figures = judge(again)
    assert figures["ms_per_photo"] is None
    assert figures["timing"] == "not measured: 3 of 3 photos' detections came from the cache (--cache)"
    other_model = DetectionCache(tmp_path / "cache", {"sha256": {"tiles.onnx": "b"}})
    read_samples(samples[:1], detector, None, cache=other_model)
    assert detector.reads == 4


def test_the_committed_table_scenes_read_from_their_labels_are_judged_hand_by_hand():
    """training.evaluate_layout on tests/data/unseen-table-small (20 scenes: 10 at a table, 8 hands
    alone, a heap of loose tiles, rows of tiles): every labelled tile, walls and discards too,
    becomes a detection, and the hand figures count each scene's labelled tiles once."""
    samples = load_samples(DATA / "unseen-table-small", "val", None)
    hand_rows = [{r for g in s["truth"].hand_groups() for r in g.label_rows if r is not None} for s in samples]
    result = evaluate_layout(samples)
    hand = result["hand"]
    assert result["scenes"] == hand["judged_on"]["hand truth"] == 20
    assert hand["hand_set_apart"]["of"] == sum(map(len, hand_rows))
    assert hand["loose_kept"]["of"] == sum(len(s["codes"]) for s in samples) - sum(map(len, hand_rows))
    assert hand["whole_hands"] == result["hands"] == 9
    by_scene = result["by_scene"]
    assert {k: v["scenes"] for k, v in by_scene.items()} == {"hand": 8, "loose": 1, "rows": 1, "table": 10}
    for kind in ("loose", "rows"):  # no hand: each tile kept is a tap, and a loose tile kept
        figures = by_scene[kind]["hand"]
        assert figures["taps"]["mean"] == figures["loose_kept"]["tiles"]
    assert by_scene["hand"]["hand"]["loose_kept"]["of"] == 0  # a hand alone: nothing to leave out


@pytest.mark.parametrize(("name", "scene"), [
    ("hand_017_jpg.rf.0a1b.jpg", "rack on green felt"),
    ("384298132_846779426763853_1021579307803981332_n_jpg.rf.9.jpg", "game table (Facebook photos)"),
    ("IMG_20231217_183954_jpg.rf.c.jpg", "tray or table layout"),
    ("IMG_2731_JPG.rf.d.jpg", "pink table close-up"),
    ("IMG_3305_jpg.rf.e.jpg", "single tiles on a mat"),
    ("IMG_3302-HEIC_jpg.rf.e.jpg", "single tiles on a mat"),
    ("IMG_6123_jpg.rf.f.jpg", "row on fabric or wood"),
    ("IMG_1755_jpg.rf.f.jpg", "row on fabric or wood"),
    ("rotated_home-mj-IMG_3201_jpg.rf.1.jpg", "rows on a home desk"),
    ("Screenshot-2024-09-23-at-3-15-02-PM_png.rf.2.jpg", "video frame"),
    ("Pasted-Graphic-3_png.rf.3.jpg", "video frame"),
    ("mahjon_image61_jpg.rf.4.jpg", "riichi table or grid"),
    ("noxHzTFzOujT86JA3BB2LjdVfRPBw8_jpg.rf.8d.jpg", OTHER),
])
def test_scene_type_of_a_real_photo_comes_from_its_file_name_family(name, scene):
    assert scene_type(name) == scene


@needs_shared("data", "real-labelled", needed_for="the real photos' scene types")
def test_every_real_test_photo_but_a_few_web_images_has_a_named_scene_type():
    names = [p.name for s in REAL_SETS for p in (REAL_LABELLED / s / "images" / "test").glob("*.jpg")]
    assert len(names) > 150
    assert sum(scene_type(n) == OTHER for n in names) <= 3


def real_format_copy(root: Path, names: list[str]) -> Path:
    """A real-format set (images and labels, no scene truth) of a few generated unseen-style scenes,
    renamed as the real photos' families are."""
    for split in ("images", "labels"):
        (root / split / "test").mkdir(parents=True)
    for i, name in enumerate(names):
        shutil.copy(DATA / "unseen-small/images/val" / f"{i:06d}.jpg", root / "images/test" / f"{name}.jpg")
        shutil.copy(DATA / "unseen-small/labels/val" / f"{i:06d}.txt", root / "labels/test" / f"{name}.txt")
    return root


def test_several_real_format_sets_are_judged_each_and_pooled_in_one_call(tmp_path):
    felt = real_format_copy(tmp_path / "felt", ["hand_001_jpg.rf.a", "hand_002_jpg.rf.b", "IMG_2731_JPG.rf.c"])
    riichi = real_format_copy(tmp_path / "riichi", ["mahjon_image1_jpg.rf.d"])
    assert is_real(felt) and not is_real(DATA / "unseen-small")
    out = tmp_path / "figures.json"
    main([str(felt), str(riichi), "--no-peer", "--json", str(out)])  # split: test, the real sets' default
    result = json.loads(out.read_text())
    assert set(result["sets"]) == {"felt", "riichi"}
    felt_figures = result["sets"]["felt"]
    assert felt_figures["split"] == "test" and felt_figures["real"] and "detector" not in felt_figures
    scenes = felt_figures["read_path"]["by_scene"]
    assert {k: v["images"] for k, v in scenes.items()} == {"rack on green felt": 2, "pink table close-up": 1}
    assert result["all"]["images"] == 4
    pooled_taps = result["all"]["tiles"]["taps"]["mean"]
    per_set = [(f["read_path"]["images"], f["read_path"]["tiles"]["taps"]["mean"]) for f in result["sets"].values()]
    assert pooled_taps == pytest.approx(sum(n * t for n, t in per_set) / 4, abs=1e-3)
    # these unseen-style scenes read at 85% tile precision and recall (models/README.md)
    assert result["all"]["tiles"]["precision"] > 0.6 and result["all"]["tiles"]["recall"] > 0.6
    assert result["all"]["rows"] == 0  # no scene truth, so no rows: image_exact stands for them
    lines = table(result).splitlines()  # the model card's table of these figures
    assert [line.split(" | ")[0] for line in lines[2:]] == [
        "| **felt** (test)", "| · pink table close-up", "| · rack on green felt", "| **riichi** (test)",
        "| · riichi table or grid", "| **all**"]
    assert lines[-1].split(" | ")[1] == "4" and lines[-1].endswith("| — |")  # no peer asked for


def test_real_photos_whose_labels_are_a_concealed_row_get_a_tai_figure_and_a_pon_behind_the_rack_none(tmp_path):
    """Read by the committed detector: two generated 17-tile concealed rows copied as a real set (labels only) are
    judged on their 台 and groups beside the taps; the real video frame of tests/data/real-hand, whose 17 labelled
    tiles make a concealed win but whose 南 pon lies behind the rack, is not (its labels do not say the hand), though
    it has taps."""
    rows = tmp_path / "rows"
    for split in ("images", "labels"):
        (rows / split / "test").mkdir(parents=True)
    for scene in ("000011", "000021"):  # a concealed row with a flower; one with its winning tile laid apart
        shutil.copy(DATA / "unseen-small/images/val" / f"{scene}.jpg", rows / "images/test" / f"hand_{scene}_jpg.jpg")
        shutil.copy(DATA / "unseen-small/labels/val" / f"{scene}.txt", rows / "labels/test" / f"hand_{scene}_jpg.txt")
    out = tmp_path / "figures.json"
    main([str(rows), str(DATA / "real-hand"), "--no-peer", "--json", str(out)])
    figures = json.loads(out.read_text())
    hand = figures["sets"]["rows"]["read_path"]["hand"]
    assert hand["scored_hands"] == hand["whole_hands"] == 2 and hand["judged_on"]["hand truth"] == 0
    assert hand["tai_exact"] in (0, 0.5, 1) and hand["groups_exact"] in (0, 0.5, 1)
    pon_behind = figures["sets"]["real-hand"]["read_path"]["hand"]
    assert pon_behind["scored_hands"] == 0 and pon_behind["tai_exact"] is None
    assert pon_behind["taps"]["mean"] is not None
    assert figures["all"]["hand"]["scored_hands"] == 2


def test_comparing_two_model_folders_reads_the_sets_with_each(tmp_path):
    one = real_format_copy(tmp_path / "one", ["hand_001_jpg.rf.a"])
    committed = Path(__file__).resolve().parents[1] / "models"
    other = tmp_path / "other-models"  # a second model folder, as a v3 run's would be
    other.mkdir()
    for name in ("model.json", "tiles.onnx", "tile_classifier.onnx", "classifier.json"):
        shutil.copy(committed / name, other / name)
    out = tmp_path / "figures.json"
    main([str(one), "--no-peer", "--models", str(committed), "--models", str(other), "--json", str(out)])
    by_model = json.loads(out.read_text())["by_model"]
    assert list(by_model) == [str(committed), str(other)]
    first, second = (by_model[str(m)]["read_path"] for m in (committed, other))
    assert first["images"] == second["images"] == 1
    assert first["tiles"] == second["tiles"]  # same weights, same reading


def test_a_missing_model_folder_is_a_clear_error(tmp_path):
    one = real_format_copy(tmp_path / "one", ["hand_001_jpg.rf.a"])
    with pytest.raises(SystemExit, match="error: no .*card"):
        main([str(one), "--no-peer", "--models", str(tmp_path / "nowhere")])


def test_a_rerun_with_the_cache_gives_the_same_figures_but_no_time_per_photo(tmp_path):
    cache = tmp_path / "cache"
    args = [str(DATA / "unseen-table-small"), "--no-map", "--no-peer", "--limit", "3", "--cache", str(cache)]
    for run in ("first", "again"):
        main([*args, "--json", str(tmp_path / f"{run}.json")])
    first, again = (json.loads((tmp_path / f"{run}.json").read_text())["read_path"] for run in ("first", "again"))
    assert len(list(cache.glob("*.npz"))) == 3
    assert first.pop("ms_per_photo") > 0 and "timing" not in first
    assert again.pop("ms_per_photo") is None and again.pop("timing").startswith("not measured: 3 of 3")
    assert again == first


def test_every_evaluation_names_its_reader_settings_and_a_changed_one_changes_the_read(tmp_path):
    """`--reader-settings`: a file naming one field reads with it and the defaults for the rest, and says so in
    the JSON. A reading no costlier than the cheapest (max_cost ≈ 0) may change no code to reach a legal hand,
    so fewer of the unseen scenes read as a legal hand and fewer codes are corrected."""
    cache, limit = tmp_path / "cache", 10
    args = [str(DATA / "unseen-small"), "--no-map", "--no-peer", "--limit", str(limit), "--cache", str(cache)]
    main([*args, "--json", str(tmp_path / "default.json")])
    (tmp_path / "tight.json").write_text(json.dumps({"max_cost": 1e-9}))
    main([*args, "--reader-settings", str(tmp_path / "tight.json"), "--json", str(tmp_path / "tight-out.json")])
    default, tight = (json.loads((tmp_path / name).read_text()) for name in ("default.json", "tight-out.json"))
    assert default["reader_settings"] == READER_DEFAULT.to_json()
    assert tight["reader_settings"] == READER_DEFAULT.to_json() | {"max_cost": 1e-9}
    assert tight["read_path"] != default["read_path"]

    samples = load_samples(DATA / "unseen-small", "val", limit)
    detections = DetectionCache(tmp_path / "read-once", {})  # the tight read reads the default read's detections
    readings = {name: [r["reading"] for r in read_samples(samples, TileDetector(), None, cache=detections,
                                                          reader=ReaderSettings.from_json(settings))]
                for name, settings in (("default", {}), ("tight", {"max_cost": 1e-9}))}
    legal = {name: sum(r.legal for r in rs) for name, rs in readings.items()}
    corrected = {name: sum(row.code != row.raw_code for r in rs for row in r.best.shown)
                 for name, rs in readings.items()}
    assert legal["tight"] < legal["default"] and corrected["tight"] < corrected["default"]


def test_every_evaluation_names_its_detector_settings_and_a_changed_one_is_read_anew(tmp_path):
    """`--detector-settings`: with no second pass, the unseen scenes' tiles are read only at the first pass's
    scale, further from the trained tile size, so fewer of the tiles found are right (on three photos; on all 40 the
    one pass also takes more taps, 3.05 against 2.9: this evaluation without `--limit`). The JSON says which
    settings read it, and the detections cached with the defaults are not reused for it (the cache's key holds the
    detector's settings)."""
    cache = tmp_path / "cache"
    args = [str(DATA / "unseen-small"), "--no-map", "--no-peer", "--limit", "3", "--cache", str(cache)]
    main([*args, "--json", str(tmp_path / "default.json")])
    (tmp_path / "one-pass.json").write_text(json.dumps({"max_second_passes": 0}))
    main([*args, "--detector-settings", str(tmp_path / "one-pass.json"), "--json", str(tmp_path / "one-pass-out.json")])
    default, one_pass = (json.loads((tmp_path / name).read_text()) for name in ("default.json", "one-pass-out.json"))
    assert default["detector_settings"] == DETECTOR_DEFAULT.to_json()
    assert one_pass["detector_settings"] == DETECTOR_DEFAULT.to_json() | {"max_second_passes": 0}
    assert one_pass["reader_settings"] == default["reader_settings"] == READER_DEFAULT.to_json()
    assert "timing" not in one_pass["read_path"] and len(list(cache.glob("*.npz"))) == 6
    read, read_once = default["read_path"], one_pass["read_path"]
    assert read_once["tiles"]["precision"] < read["tiles"]["precision"]
    assert read_once["tiles"]["code_right_of_found"] < read["tiles"]["code_right_of_found"]


@pytest.mark.parametrize(("option", "says"), [("--reader-settings", "unknown reader settings: max_cots"),
                                              ("--detector-settings", "unknown detector settings: max_cots")])
def test_a_bad_settings_file_is_a_clear_error(tmp_path, option, says):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"max_cots": 1}))
    with pytest.raises(SystemExit, match=f"error: .*bad.json: {says}"):
        main([str(DATA / "unseen-small"), "--no-map", "--no-peer", "--limit", "1", option, str(bad)])


def test_a_photo_read_as_a_phone_sends_it_is_judged_against_its_labels_at_the_size_it_was_decoded_at(tmp_path):
    """`--phone`: each photo enlarged to a 12 MP JPEG and decoded as an upload is (half its pixels, where its tiles
    allow): its labels are judged in the pixels the read chose, so it reads about as well as at its own size."""
    args = [str(DATA / "unseen-small"), "--no-map", "--no-peer", "--limit", "3"]
    main([*args, "--json", str(tmp_path / "own.json")])
    main([*args, "--phone", "--json", str(tmp_path / "phone.json")])
    own, phone = (json.loads((tmp_path / name).read_text()) for name in ("own.json", "phone.json"))
    assert own["phone"] is None and phone["phone"] == 4000
    tiles, phone_tiles = own["read_path"]["tiles"], phone["read_path"]["tiles"]
    assert phone_tiles["recall"] >= tiles["recall"] - 0.1 and phone_tiles["precision"] >= tiles["precision"] - 0.1
    with pytest.raises(SystemExit):
        main([*args, "--phone", "--cache", str(tmp_path / "cache")])


def test_taps_on_a_photo_whose_every_label_is_one_code_are_also_said_apart():
    """A real set's photo with every tile labelled 1p: read right, each tile costs a wrong-code tap. They stay in the
    figures (the evaluation drops no photo) and are said apart so that a reader can see what they weigh."""
    boxes = np.array([box(12 * k) for k in range(6)], np.float32)
    read = [f"{k}m" for k in range(1, 7)]

    def photo(codes: list[str]) -> dict:
        return {"sample": {"codes": codes, "scene": "x", "truth": None}, "true_boxes": boxes, "peer": None,
                "reading": reading_of(boxes, read, [("concealed", list(range(6)))])}

    judged = Judged()
    judged.add(photo(read))  # labelled as read: no tap
    judged.add(photo(["1p"] * 6))  # every tile labelled 1p
    judged.add(photo(["1p"] * 4 + read[4:]))  # 4 wrong codes on a photo of several codes: not said apart
    result = judged.result()
    assert result["hand"]["taps_by_cause"]["wrong code"] == round(10 / 3, 3)  # all still counted
    assert result["labelled_one_code"] == {"photos": 1, "taps": 6, "wrong_code_taps": 6}
