"""The app's helpers without Streamlit: the draft hand and its edits, typed hands, the photo reading
as a draft, boxes as the player corrected them, the YOLO export, results as rows, the two scripts."""

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from datasets.check import check
from scoring.draft import (
    HAND_MOST,
    MELD_SIZE,
    TYPED_MOST,
    Draft,
    MeldDraft,
    Slot,
    add_meld,
    add_tile,
    from_hand,
    from_text,
    meld_codes,
    meld_from_concealed,
    meld_to_concealed,
    remove_tile,
    replace_tile,
    set_kong_origin,
    set_meld_kind,
    set_win,
    to_hand,
    to_text,
)
from scoring.hand import ALL_FLAGS, Hand, HandError, Meld, Situation
from scoring.payout import Deal, Result
from scoring.ruleset import RulesetError, available_rulesets
from scoring.seats import SEATS, Seat, Wind
from tests.example_hands import HAND
from tests.fake_detections import laid_out, one_hot, reading_at_a_table
from tests.limits import files_limited_to
from ui.dataset import DatasetError, NotSaved, dataset_folder, dataset_root, save_example
from ui.photo import annotate, choices, supposed_left, taken
from ui.picture import SHOWN_WIDTH, Picture, jpeg
from ui.result import evaluate, item_rows, net_line, payment_rows
from ui.text import in_script, seat_label, tile_label
from ui.widgets import MARKS, distinct
from vision.classes import CLASS_INDEX, CLASSES
from vision.detections import Detections
from vision.draw import DIMMED, HIGHLIGHT, NORMAL, REMOVED, box_codes, flagged, still_apart
from vision.groups import TileGroup
from vision.read import read_detections

ROOT = Path(__file__).resolve().parents[1]

SELF_DRAW = Situation(self_draw=True)
EAST_DRAWS = Result(Deal(), Seat.E)  # 東家 deals and self-draws, as the page starts
STAKES = (100, 20, False)  # 底, 每台, 聽牌 declared


def codes(slots):
    return [s.code for s in slots]


def test_draft_round_trips_a_hand():
    assert to_hand(from_hand(HAND), HAND.situation) == HAND


@pytest.mark.parametrize("text", [
    "123456m 789p 2345s 和5s 碰777z 花1f",
    "一萬二萬三萬四萬五萬六萬七筒八筒九筒二條三條四條五條 胡五條 碰白板 梅",
    "123456m 789p 2345s 梅 碰7z 5s",  # no 和: the last tile wins; a flower anywhere is a flower
])
def test_typed_hands(text):
    assert to_hand(from_text(text), HAND.situation) == HAND


def test_typed_kongs_and_chi():
    draft = from_text("123m 和1m 暗槓9s 槓東 吃234p 碰中中中 456s")
    assert [(m.kind, codes(m.tiles)) for m in draft.melds] == [
        ("ankong", ["9s"] * 4), ("kong", ["1z"] * 4), ("chi", ["2p", "3p", "4p"]), ("pon", ["5z"] * 3)]
    assert codes(draft.concealed) == ["1m", "2m", "3m", "4s", "5s", "6s"] and draft.win.code == "1m"
    assert from_text(to_text(draft)) == draft


# Two open kongs, one of each origin, and a third that does not say.
KONGS = Hand.from_json({
    "concealed": ["1m", "2m", "3m", "4p"], "win": "4p", "seat": "E", "round": "E", "self_draw": True,
    "melds": [{"type": "kong", "tiles": ["5z"] * 4, "origin": "added"},
              {"type": "kong", "tiles": ["9s"] * 4, "origin": "called"},
              {"type": "kong", "tiles": ["1z"] * 4}, {"type": "ankong", "tiles": ["2p"] * 4}],
})


def test_a_kongs_origin_survives_the_draft():
    """Where a kong came from (大明槓 / 加槓) is kept from a hand to a draft and back, through the
    typed line and its text, and while the meld stays an open kong."""
    origins = [m.origin for m in KONGS.melds]
    assert origins == ["added", "called", None, None]
    assert to_hand(from_hand(KONGS), KONGS.situation) == KONGS
    text = to_text(from_hand(KONGS))
    assert text.split()[-4:] == ["加槓5555z", "大明槓9999s", "明槓1111z", "暗槓2222p"]
    assert to_hand(from_text(text), KONGS.situation) == KONGS
    assert [m.origin for m in from_text("1234m 和4m 加杠中 大明杠9s 杠东 暗杠2p").melds] == origins
    draft = from_hand(KONGS)
    assert set_meld_kind(draft, 0, "kong").melds[0].origin == "added"
    assert set_meld_kind(draft, 0, "ankong").melds[0].origin is None  # no origin but an open kong's


@pytest.mark.parametrize("text, message", [
    ("123x", "看不懂第 1 個字起的「123x」"),
    ("123m 碰12m", "碰要 3 張牌，讀到 2 張"),
    ("123m 和", "後面要寫胡的那張牌"),
    ("123m 和1m 和2m", "寫了兩次"),
    ("123m 和梅", "花牌不能當胡的那張牌"),
])
def test_typing_errors_say_what_is_wrong(text, message):
    with pytest.raises(HandError) as error:
        from_text(text)
    assert message in error.value.for_player  # what the app shows


def test_a_typed_hand_holds_at_most_twice_what_a_hand_can():
    assert HAND_MOST == 30 and len(from_text("東" * TYPED_MOST).concealed) == TYPED_MOST - 1  # the last one wins
    with pytest.raises(HandError) as error:
        from_text("123m 碰5z 花1f2f " + "9s" * (TYPED_MOST - 7))  # 8 + 53 tiles
    assert error.value.for_player.startswith(f"寫了 {TYPED_MOST + 1} 張牌，一手牌最多 30 張")


def test_repeated_labels_differ_unseen_by_marks_that_grow_with_the_log_of_their_number():
    labels = distinct(["一萬"] * 4000 + ["二萬"])
    assert len(set(labels)) == len(labels) and {label.rstrip(MARKS) for label in labels} == {"一萬", "二萬"}
    assert labels[:2] == ("一萬", "一萬\u00ad") and labels[-1] == "二萬"
    assert max(map(len, labels)) == len("一萬") + len(format(3999, "b"))  # 12 marks, not 3,999


@pytest.mark.parametrize("draft, message", [
    (Draft(), "還沒有牌"),
    (Draft(concealed=(Slot("1m"),)), "請選出胡的那張牌"),
    (Draft(win=Slot("1m"), melds=(MeldDraft(None, (Slot("2m"),) * 3),)), "副露 1：請選擇"),
    (Draft(win=Slot("1m"), melds=(MeldDraft("ankong", (Slot(None),) * 4),)), "副露 1：請選出是哪張牌"),
])
def test_an_unfinished_draft_says_what_is_missing(draft, message):
    with pytest.raises(HandError, match=message):
        to_hand(draft, SELF_DRAW)


def test_edits():
    draft = from_hand(HAND)
    assert codes(replace_tile(draft, "concealed", 0, "9m").concealed)[0] == "9m"
    moved = replace_tile(draft, "concealed", 0, "2f")  # a flower leaves the concealed tiles, box and all
    assert len(moved.concealed) == 12 and codes(moved.flowers) == ["1f", "2f"]
    back = replace_tile(moved, "flowers", 1, "1m")
    assert codes(back.concealed)[-1] == "1m" and codes(back.flowers) == ["1f"]
    assert remove_tile(draft, "win", 0).win is None
    assert codes(remove_tile(draft, "meld:0", 1).melds[0].tiles) == ["7z", "7z"]
    swapped = set_win(draft, 0)
    assert swapped.win.code == "1m" and codes(swapped.concealed)[0] == "5s"
    assert add_tile(remove_tile(draft, "win", 0), "win", "8s").win.code == "8s"
    missed = add_tile(draft, "win", "8s", 30)  # the winning tile the reader missed: the row's last goes back
    assert (missed.win, codes(missed.concealed)) == (Slot("8s", 30), [*codes(draft.concealed), draft.win.code])
    for group in draft.groups():  # a tile added never costs another
        assert len(add_tile(draft, group, "9p").all_slots()) == len(draft.all_slots()) + 1
    assert codes(add_tile(draft, "concealed", "3f").flowers) == ["1f", "3f"]
    assert codes(add_tile(draft, "flowers", "3m").concealed)[-1] == "3m"
    kong = set_meld_kind(draft, 0, "kong")
    assert kong.melds[0].kind == "kong" and codes(kong.melds[0].tiles) == ["7z"] * 4
    assert len(set_meld_kind(draft, 0, "chi").melds[0].tiles) == 3
    built = add_tile(add_tile(add_tile(add_meld(draft, "chi"), "meld:1", "1p"), "meld:1", "2p"), "meld:1", "3p")
    assert built.melds[1] == MeldDraft("chi", (Slot("1p"), Slot("2p"), Slot("3p")))
    assert meld_from_concealed(draft, 0, "chi").melds[-1] == MeldDraft("chi", draft.concealed[:3])  # 1m up
    assert meld_from_concealed(draft, 7, "chi") is None and meld_from_concealed(draft, 11, "chi") is None  # 8p; no 6s
    assert meld_from_concealed(draft, 0, "pon") is None
    taken = meld_from_concealed(draft, 1, "chi")
    assert sorted(s.code for s in taken.all_slots()) == sorted(s.code for s in draft.all_slots())
    unmelded = meld_to_concealed(built, 0)  # its tiles, boxes and all, join the concealed; the winning tile stays
    assert unmelded.melds == built.melds[1:] and unmelded.win == built.win
    assert unmelded.concealed == built.concealed + built.melds[0].tiles


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["1m", "2m", "3m", "7p", "8p", "9p", "5z"]), min_size=1, max_size=16),
       st.data(), st.sampled_from(list(MELD_SIZE)))
def test_a_meld_taken_out_of_the_row_and_put_back_keeps_every_tile(codes, data, kind):
    """拿出來當… takes the selected tile and the tiles its meld needs, each tile with its box, or nothing where the
    row does not hold them; 放回手牌 gives them all back."""
    draft = Draft(concealed=tuple(Slot(c, k) for k, c in enumerate(codes)), win=Slot("5z", 99))
    index = data.draw(st.integers(0, len(codes) - 1))
    out = meld_from_concealed(draft, index, kind)
    wanted = meld_codes(codes[index], kind)
    if out is None:
        assert wanted is None or any(codes.count(c) < wanted.count(c) for c in wanted)
        return
    meld = out.melds[-1]
    assert meld.kind == kind and sorted(s.code for s in meld.tiles) == sorted(wanted)
    assert draft.concealed[index] in meld.tiles
    assert sorted(map(repr, out.all_slots())) == sorted(map(repr, draft.all_slots())) and out.win == draft.win
    back = meld_to_concealed(out, len(out.melds) - 1)
    assert sorted(map(repr, back.concealed)) == sorted(map(repr, draft.concealed)) and not back.melds


def test_a_concealed_kong_face_down_takes_the_face_the_player_picks():
    draft = Draft(melds=(MeldDraft("ankong", tuple(Slot(None, i) for i in range(4))),))
    fixed = replace_tile(draft, "meld:0", 2, "9p")
    assert fixed.melds[0].tiles == tuple(Slot("9p", i) for i in range(4))


def test_a_reading_becomes_a_draft_with_its_boxes():
    dets, _ = laid_out(HAND)
    reading = read_detections(dets)
    draft = reading.best.draft
    assert to_hand(draft, HAND.situation) == HAND
    assert sorted(s.det for s in draft.all_slots()) == list(range(len(dets)))


def test_a_concealed_kong_shown_face_down():
    hand = Hand(("1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "5s"), "5s",
                (HAND.melds[0], Meld("ankong", ("9s",) * 4)), situation=SELF_DRAW)
    dets, shown = laid_out(hand)
    scores = dets.scores.copy()
    scores[[i for i, c in enumerate(shown) if c == "9s"]] = one_hot(["back"])[0]  # all four face down
    reading = read_detections(Detections(dets.boxes, scores))
    draft = reading.best.draft
    [ankong] = [m for m in draft.melds if m.kind == "ankong"]
    assert codes(ankong.tiles) == [None] * 4
    with pytest.raises(HandError, match="請選出是哪張牌"):
        to_hand(draft, SELF_DRAW)
    m = draft.melds.index(ankong)
    fixed = replace_tile(draft, f"meld:{m}", 0, "9s")
    assert to_hand(fixed, SELF_DRAW) == hand
    assert box_codes(reading.best, fixed).count("back") == 4  # face-down tiles stay `back` as training labels


def test_box_codes_and_flags_follow_the_players_corrections():
    dets, shown = laid_out(HAND)
    scores = dets.scores.copy()
    scores[2] = one_hot(["9m"], top=0.6)[0]  # 3m misread as 9m; 3m the runner-up
    scores[2, CLASS_INDEX["3m"]] = 0.3
    reading = read_detections(Detections(dets.boxes, scores)).best
    assert reading.row(2).code == "3m" and 2 in reading.changed
    draft = reading.draft
    assert flagged(reading, draft) == [i == 2 for i in range(len(dets))]
    edited = remove_tile(replace_tile(draft, "concealed", 0, "9m"), "flowers", 0)
    now = box_codes(reading, edited)
    assert now[0] == "9m" and now[len(dets) - 1] is None
    assert [i for i, f in enumerate(flagged(reading, edited)) if f] == [0, 2, len(dets) - 1]
    image = np.full((700, 1200, 3), 90, np.uint8)
    drawn = annotate(Picture.of(image), reading, edited)
    assert drawn.shape == image.shape and (drawn != image).any() and REMOVED == "x"


# HAND with its 五萬 missed by the photo, among 九萬, 東風 and a back the reader set apart; runner-ups:
# 二條 read as 五條 (3 台 too), and the flower set apart (2 台 under the app's default situation).
AT_A_TABLE = reading_at_a_table(HAND, 4, ["9m", "1z", "back"], {9: "5s"})
BEST = AT_A_TABLE.best
APART = [17, 18, 19]
SUPPOSED = 20  # the 五萬's row: past every detection's id


def edge(drawn, box):
    """The colour of a box's drawn frame (its left edge, halfway down)."""
    x0, y0, _, y1 = (int(round(v)) for v in box)
    return tuple(int(v) for v in drawn[(y0 + y1) // 2, x0])


def test_tiles_set_apart_stay_out_of_the_draft_and_a_missed_tile_joins_it():
    draft = BEST.draft
    assert sorted(s.det for s in draft.all_slots()) == [*range(17), SUPPOSED]
    assert draft.concealed[-1] == Slot("5m", SUPPOSED) and BEST.row(SUPPOSED).box is None  # supposed: no box
    assert draft.win == Slot("5s", 12)  # the group names it: the tile set apart, not the supposed one
    assert sorted(to_hand(draft, SELF_DRAW).concealed) == sorted(HAND.concealed)
    assert to_hand(draft, SELF_DRAW).replace(concealed=HAND.concealed) == HAND.replace(situation=SELF_DRAW)
    assert still_apart(BEST, draft) == APART
    assert box_codes(BEST, draft)[17:] == ["9m", "1z", "back"]  # still tiles of the photo, as read
    assert len(box_codes(BEST, draft)) == len(BEST.boxes) == 20  # one per box: the supposed tile has none
    assert not any(flagged(BEST, draft))
    assert supposed_left(BEST, draft) == ["5m"]
    concealed = len(draft.concealed) - 1
    assert supposed_left(BEST, replace_tile(draft, "concealed", concealed, "6m")) == []  # replaced
    assert supposed_left(BEST, remove_tile(draft, "concealed", concealed)) == []


def test_a_tile_pulled_in_from_those_set_apart_is_the_players_change():
    image = np.full((800, 1100, 3), 90, np.uint8)
    draft = BEST.draft
    drawn = annotate(Picture.of(image), BEST, draft)
    boxes = BEST.boxes
    assert [edge(drawn, boxes[i]) for i in (0, *APART)] == [NORMAL, DIMMED, DIMMED, DIMMED]
    pulled = add_tile(draft, "concealed", "9m", 17)
    assert pulled.concealed[-1] == Slot("9m", 17) and still_apart(BEST, pulled) == [18, 19]
    assert [i for i, f in enumerate(flagged(BEST, pulled)) if f] == [17]
    assert edge(annotate(Picture.of(image), BEST, pulled), boxes[17]) == HIGHLIGHT
    into_meld = add_tile(draft, "meld:0", "1z", 18)
    assert into_meld.melds[0].tiles[-1] == Slot("1z", 18)
    assert still_apart(BEST, remove_tile(pulled, "concealed", len(pulled.concealed) - 1)) == APART  # undone


def test_a_phone_photo_is_shown_shrunk_with_its_boxes_where_its_tiles_are():
    photo = np.full((3000, 4000, 3), 90, np.uint8)
    big = BEST.boxes * 3.2  # the table's tiles where a 12 MP photo has them
    picture = Picture.of(photo)
    assert picture.image.shape == (1095, SHOWN_WIDTH, 3) and picture.scale == SHOWN_WIDTH / 4000
    shown = picture.drawn(big, ["1m"] * len(big), [i == 17 for i in range(len(big))])
    assert edge(shown, big[17] * picture.scale) == HIGHLIGHT and edge(shown, big[0] * picture.scale) == NORMAL
    sent = cv2.imdecode(np.frombuffer(jpeg(shown), np.uint8), cv2.IMREAD_COLOR)
    assert sent.shape == shown.shape and np.abs(sent.astype(int) - shown).mean() < 2  # the page's JPEG
    assert Picture.of(np.zeros((4000, 3000, 3), np.uint8)).image.shape == (1947, SHOWN_WIDTH, 3)  # held upright
    small = np.zeros((700, 1200, 3), np.uint8)
    assert Picture.of(small).image is small and Picture.of(small).scale == 1.0  # no larger than sent: as it is


def test_a_runner_up_taken_lays_its_codes_and_groups_over_the_same_boxes():
    misread, no_flowers = (taken(AT_A_TABLE, k) for k in range(2))
    assert taken(AT_A_TABLE, None) is BEST
    assert misread.row(8).code == "5s" and misread.changed == (8,) and [r.code for r in misread.supposed] == ["5m"]
    assert to_hand(misread.draft, SELF_DRAW).concealed.count("5s") == 2
    assert still_apart(no_flowers, no_flowers.draft) == [16, *APART] and not no_flowers.draft.flowers
    assert np.array_equal(no_flowers.boxes, BEST.boxes)
    assert no_flowers.group_of(16) == no_flowers.group_of(17)  # in one group set apart


def test_choices_are_scored_as_the_page_would_score_them():
    rules = "tw16-2026.09-p0"
    offered = choices(AT_A_TABLE, SELF_DRAW, EAST_DRAWS, *STAKES, rules)
    assert [(c.alternative, c.tai, tuple(d.text("traditional") for d in c.differs)) for c in offered] == [
        (None, 3, ()), (0, 3, ("第 9 張二條改成五條",)), (1, 2, ("梅不算",))]
    heavenly = Situation(heavenly=True)  # 天胡 with a meld: no win on the page, so no figure either
    assert [c.tai for c in choices(AT_A_TABLE, heavenly, EAST_DRAWS, *STAKES, rules)] == [None, None, None]
    assert [c.tai for c in choices(AT_A_TABLE, SELF_DRAW, None, *STAKES, rules)] == [None, None, None]  # no winner
    all_apart = replace(AT_A_TABLE, best=replace(BEST, groups=(TileGroup("unknown", tuple(range(20)), "apart"),)),
                        legal=False)
    assert all_apart.best.draft.empty and still_apart(all_apart.best, Draft()) == list(range(20))
    assert [c.tai for c in choices(all_apart, SELF_DRAW, EAST_DRAWS, *STAKES, rules)] == [None, 3, 2]


@settings(max_examples=60, deadline=None)
@given(winner=st.sampled_from(SEATS), dealer=st.sampled_from(SEATS), discarder=st.sampled_from((None, *SEATS)),
       round_=st.sampled_from(tuple(Wind)), streak=st.integers(0, 3), ready=st.booleans(),
       flags=st.fixed_dictionaries({flag: st.booleans() for flag in ALL_FLAGS}),
       ruleset=st.sampled_from(available_rulesets()))
def test_the_tai_offered_for_each_reading_is_the_tai_after_taking_it(winner, dealer, discarder, round_, streak,
                                                                     ready, flags, ruleset):
    """Whatever the page says of how the hand was won (seats, deal, flags, table), the 台 beside each
    reading is the 台 the page shows once that reading is taken: its draft, as the page keeps it
    (`app.py` on_take), scored as the page scores its hand."""
    result = Result(Deal(round_, dealer, streak), winner, None if discarder == winner else discarder)
    situation = Situation(**flags)
    for choice in choices(AT_A_TABLE, situation, result, 100, 20, ready, ruleset):
        try:
            after = evaluate(taken(AT_A_TABLE, choice.alternative).draft, situation, result, 100, 20, ready,
                             ruleset).score.total
        except (HandError, RulesetError):
            after = None
        assert choice.tai == after


def test_yolo_export(tmp_path):
    boxes = np.array([[100, 50, 130, 90], [-5, 10, 20, 40], [0, 0, 10, 10]], np.float32)
    image = np.zeros((100, 200, 3), np.uint8)
    saved = save_example(tmp_path, "set", "abc", image, boxes, ["1m", "back", None])
    assert saved.boxes == 2 and saved.image.read_bytes()[:2] == b"\xff\xd8"
    assert saved.labels.read_text().splitlines() == [f"{CLASS_INDEX['1m']} 0.575000 0.700000 0.150000 0.400000",
                                                     f"{CLASS_INDEX['back']} 0.050000 0.250000 0.100000 0.300000"]
    data = yaml.safe_load((tmp_path / "set" / "data.yaml").read_text())
    assert data["names"] == dict(enumerate(CLASSES)) and data["train"] == "images/train"
    report, _ = check(tmp_path / "set")  # the project's data-set checker accepts it
    assert not report.errors and report.images == 1 and report.boxes == 2, report.findings


# save_example in a process whose files may grow to 50 KB: a photo of noise (~250 KB as JPEG) meets a full disk.
SAVE_ON_A_FULL_DISK = """
import sys
from pathlib import Path
import numpy as np
from ui.dataset import NotSaved, save_example
noise = np.random.default_rng(0).integers(0, 256, (300, 400, 3), dtype=np.uint8)
try:
    save_example(Path(sys.argv[1]), "set", "new", noise, np.array([[10, 10, 50, 60]]), ["1m"])
except NotSaved as exc:
    print(exc)
"""


def saved_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_a_photo_saved_onto_a_full_disk_leaves_neither_file_and_says_why(tmp_path):
    """It left images/train/<id>.jpg without its label file, which training takes for a photo of no tiles."""
    save_example(tmp_path, "set", "old", np.zeros((100, 200, 3), np.uint8), np.array([[10, 10, 50, 60]]), ["2m"])
    before = {name: (tmp_path / name).read_bytes() for name in saved_files(tmp_path)}
    p = subprocess.run([sys.executable, "-c", SAVE_ON_A_FULL_DISK, str(tmp_path)], cwd=ROOT, capture_output=True,
                       text=True, timeout=60, preexec_fn=files_limited_to(50_000))
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout == "寫入時出錯（檔案太大，磁碟不接受）：這張照片和它的標註都沒有存，之前存的都還在\n"
    assert {name: (tmp_path / name).read_bytes() for name in saved_files(tmp_path)} == before


def test_a_label_file_that_cannot_be_put_in_place_keeps_its_photo_out_too(tmp_path):
    (tmp_path / "set" / "labels" / "train" / "abc.txt").mkdir(parents=True)  # a folder in the label's place
    with pytest.raises(NotSaved, match="這張照片和它的標註都沒有存"):
        save_example(tmp_path, "set", "abc", np.zeros((100, 200, 3), np.uint8), np.zeros((0, 4)), [])
    assert saved_files(tmp_path) == ["set/data.yaml"]


@pytest.mark.parametrize("name", ["../x", "/etc", "a/b", "..", ".hidden", "a" * 65, "a\\b", "-x"])
def test_a_data_set_name_is_never_a_path(tmp_path, name):
    with pytest.raises(DatasetError, match="不能是路徑"):
        dataset_folder(tmp_path, name)


def test_data_set_folders(tmp_path, monkeypatch):
    assert dataset_folder(tmp_path, " ") == tmp_path and dataset_folder(tmp_path, "牌-2_a") == tmp_path / "牌-2_a"
    (tmp_path / "out").symlink_to("/tmp")
    with pytest.raises(DatasetError, match="指到資料集資料夾外面"):
        dataset_folder(tmp_path, "out")
    monkeypatch.delenv("TAISHU_DATASET_ROOT", raising=False)
    assert dataset_root() == Path("my-dataset")
    monkeypatch.setenv("TAISHU_DATASET_ROOT", str(tmp_path))
    assert dataset_root() == tmp_path


@pytest.mark.parametrize("theirs", ["names: [cat, dog]\n", "{{{ not yaml", "x" * 100_000])
def test_a_data_yaml_that_is_not_ours_is_never_overwritten(tmp_path, theirs):
    (tmp_path / "data.yaml").write_text(theirs)
    image = np.zeros((100, 200, 3), np.uint8)
    with pytest.raises(DatasetError, match="不會覆蓋它"):
        save_example(tmp_path, "", "abc", image, np.zeros((0, 4)), [])
    assert [p.name for p in tmp_path.iterdir()] == ["data.yaml"] and (tmp_path / "data.yaml").read_text() == theirs
    save_example(tmp_path, "mine", "abc", image, np.zeros((0, 4)), [])
    save_example(tmp_path, "mine", "def", image, np.zeros((0, 4)), [])  # ours: written again
    assert len(list((tmp_path / "mine" / "images" / "train").iterdir())) == 2


def test_result_rows_in_both_scripts():
    """南家 wins off 東家, who deals with 連莊 1: 東家 alone pays, with 莊家 and 連莊 on its payment."""
    result = Result(Deal(Wind.E, Seat.E, 1), Seat.S, Seat.E)
    outcome = evaluate(from_hand(HAND), Situation(), result, *STAKES, "tw16-2026.09-p0")
    assert outcome.score.total == sum(r["台"] for r in item_rows(outcome.score, "traditional"))
    [row] = payment_rows(outcome.payout, "tw16-2026.09-p0", "traditional")
    assert row["誰付"] == "東家" and "莊家 +1" in row["台"] and "連莊 +2" in row["台"]
    [simp] = payment_rows(outcome.payout, "tw16-2026.09-p0", "simplified")
    assert simp["谁付"] == "东家" and "庄家 +1" in simp["台"]
    assert net_line(outcome.payout, "traditional") == f"東家 −{row['金額']} · 南家 +{row['金額']} · 西家 0 · 北家 0"


def test_scripts():
    assert in_script("門風 東家放槍 連莊 聽牌", "simplified") == "门风 东家放枪 连庄 听牌"
    assert in_script("門風", "traditional") == "門風"
    assert in_script("不算在手牌裡的牌（牌牆）", "simplified") == "不算在手牌里的牌（牌墙）"
    assert tile_label("2m", "traditional") == "二萬" and tile_label("6z", "simplified") == "发财"
    assert tile_label(None, "traditional") == "？" and seat_label(Seat.N, "simplified") == "北家"


def test_a_kongs_origin_stays_with_the_draft_and_goes_with_its_kind():
    draft = from_text("123m 456m 789m 45s 99s 和6s 加槓2222p")
    assert draft.melds[0].origin == "added" and to_text(draft).endswith("加槓2222p")
    hand = to_hand(draft, Situation())
    assert hand.melds[0].origin == "added" and from_hand(hand) == draft
    called = set_kong_origin(draft, 0, "called")
    assert to_hand(called, Situation()).melds[0].origin == "called" and from_text(to_text(called)) == called
    assert set_meld_kind(called, 0, "ankong").melds[0].origin is None  # only an open kong has one


def globals_read_before_assigned(source: str) -> list[tuple[str, str]]:
    """(function, name) for each module-level name a function of `source` reads that a statement of the module
    assigns below the function (a run calls it before that line has set the name for this run)."""
    import ast
    import symtable

    assigned: dict[str, int] = {}  # each name the module's statements (not its defs or imports) assign, last line
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Import | ast.ImportFrom):
            for name in ast.walk(node):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    assigned[name.id] = node.lineno

    def reads(table) -> list[tuple[str, str]]:
        out = []
        for child in table.get_children():
            if child.get_type() == "function":
                out += [(child.get_name(), sym.get_name()) for sym in child.get_symbols() if sym.is_global()
                        and not sym.is_local() and assigned.get(sym.get_name(), 0) > child.get_lineno()]
            out += reads(child)
        return out

    return reads(symtable.symtable(source, "app.py", "exec"))


def test_the_pages_functions_read_no_global_the_script_assigns_after_them():
    """app.py runs as a script: its sections are functions called in order from its last lines, each handed what it
    needs (a function that read a global set further down read the last run's value, or none)."""
    assert globals_read_before_assigned("x = 1\ndef f():\n    return x + y\ny = 2\n") == [("f", "y")]
    assert globals_read_before_assigned((ROOT / "app.py").read_text()) == []
