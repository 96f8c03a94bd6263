"""The app's flows in Streamlit's AppTest (the script run in-process, widgets set from the test).

The photo flow runs on a stand-in detector returning the detections of `tests/fake_detections.py`
(the real one needs the committed model); `test_real_model_reads_a_sample_photo` runs the real one
when `models/model.json` exists.
"""

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
import streamlit as st
from PIL import Image
from streamlit.testing.v1 import AppTest

import ui.result
import vision.detector
import vision.read
from scoring.draft import Slot, from_text, to_hand
from scoring.hand import Hand, Meld, Situation
from scoring.ruleset import EXTRA_RULESETS, load_ruleset
from scoring.score import score
from tests.app_driver import box, choose, chosen, radio_of, say_who_won
from tests.example_hands import HAND, TYPED, house_table
from tests.fake_detections import laid_out, one_hot, reading_at_a_table
from ui.widgets import MARKS
from vision.classes import CLASS_INDEX
from vision.detections import Detections
from vision.draw import flagged
from vision.groups import TileGroup
from vision.model_files import ModelError
from vision.notices import Notice
from vision.read import read_detections

APP = Path(__file__).resolve().parents[1] / "app.py"
MODELS = Path(__file__).resolve().parents[1] / "models"
SAMPLES = Path(__file__).resolve().parent / "data" / "samples"  # committed synthetic photos with their truth


def total_shown(at) -> str:
    [metric] = at.metric
    return metric.value


def expected_total(hand: Hand) -> str:
    return f"{score(hand.replace(seat_wind='E', round='E', self_draw=True)).total} 台"


def jpeg(width=1200, height=700) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (40, 110, 60)).save(buf, "JPEG")
    return buf.getvalue()


class FakeDetector:
    """Stands in for `TileDetector`: every photo shows HAND as laid out on the table. Reading a photo reads it
    twice (`PER_PHOTO`): a hand's photo is compared with the photo turned half a turn (vision.read)."""

    reads = 0

    def read(self, image):
        FakeDetector.reads += 1
        return laid_out(HAND)[0]


PER_PHOTO = 2  # detector reads per read of a photo (FakeDetector)


class NoModel:
    def __init__(self):
        raise ModelError(Notice.of("model-card-missing", what="model", path="models/model.json"))


@pytest.fixture
def app(monkeypatch):
    def start(detector=FakeDetector, said: bool = True):
        monkeypatch.setattr(vision.detector, "TileDetector", detector)
        st.cache_resource.clear()
        FakeDetector.reads = 0
        at = ok(AppTest.from_file(str(APP), default_timeout=60).run())
        return say_who_won(at) if said else at  # 東家 自摸

    yield start
    st.cache_resource.clear()


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def as_seen(labels) -> list[str]:
    """A widget's option labels as the eye sees them (`ui.widgets.distinct` tells repeats apart unseen)."""
    return [label.rstrip(MARKS) for label in labels]


def test_a_seat_tapped_again_stays_chosen(app):
    """The seats are segmented controls (`ui.widgets.choice`), which let the option chosen go when it is tapped again;
    a seat stays chosen, as on a radio: a 莊家 tapped twice is still the dealer, and the 台 stay."""
    at = ok(app(NoModel))
    ok(box(at, "text").set_value(TYPED).run())
    total = total_shown(at)
    for name, seat in (("dealer", "東家"), ("winner", "東家")):
        ok(radio_of(at, name).set_value(None).run())  # what the browser sends for the chosen option tapped again
        assert chosen(at, name) == seat and total_shown(at) == total


def test_typed_hand_scores_and_settles(app):
    at = ok(app(NoModel))
    assert not at.metric and not at.error and "先拍照" in at.info[0].value  # an empty hand is a prompt
    ok(box(at, "text").set_value(TYPED).run())
    assert total_shown(at) == expected_total(HAND)
    assert [r["項目"] for r in at.table[0].value.to_dict("records")] == [i.trad for i in score(HAND).items]
    payers = at.table[1].value.to_dict("records")
    assert [p["誰付"] for p in payers] == ["南家", "西家", "北家"]
    assert all(p["金額"] == 100 + (score(HAND).total + 1) * 20 for p in payers)  # 底 100, 每台 20, 莊家 +1

    choose(at, "how", "北家 放槍")  # off 北家's discard: 北家 alone pays
    assert [p["誰付"] for p in at.table[1].value.to_dict("records")] == ["北家"]
    ok(at.radio(key="script").set_value("simplified").run())  # the labels change, the choices stay
    assert at.metric[0].label == "合计" and chosen(at, "how") == "北家 放枪"
    assert [p["谁付"] for p in at.table[1].value.to_dict("records")] == ["北家"]


def test_a_paste_of_thousands_of_tiles_is_refused_before_it_is_laid_out(app):
    """3,000 tiles pasted were laid out as 3,000 pills, the k-th repeat of a label k zero-width spaces long:
    4.5 million characters (12,000 tiles: 3 s a run, 2.5 GB, for every phone at the table)."""
    at = ok(app(NoModel))
    ok(box(at, "text").set_value("1m" * 3000).run())
    assert any(e.value.startswith("看不懂這手牌：寫了 3000 張牌，一手牌最多 30 張") for e in at.error)
    assert at.session_state["hand"].draft.empty
    assert sum(len(label) for pills in at.pills for label in pills.options) < 500  # the 43 faces to tap


def test_illegal_hands_and_bad_text_get_messages(app):
    at = ok(app(NoModel))
    ok(box(at, "text").set_value("123m 和5s").run())
    assert not at.metric and at.error[0].value.startswith("這手牌不能算：張數不對：胡的那張以外手牌有 3 張")
    ok(box(at, "text").set_value("123q").run())
    assert any(e.value == "看不懂這手牌：看不懂第 1 個字起的「123q」" for e in at.error)
    assert at.session_state["hand"].draft == from_text("123m 和5s")  # the last good draft is kept
    ok(box(at, "text").set_value(TYPED).run())
    ok(at.checkbox(key="heavenly").check().run())  # 天胡 with a meld cannot happen
    assert "天胡是起手就胡，不會有吃、碰、槓" in at.error[0].value


def test_entering_a_hand_by_tapping_tiles(app):
    at = ok(app(NoModel))
    for code in [*HAND.concealed, HAND.win]:
        ok(at.pills(key=f"face-{at.session_state['hand'].version}").set_value(code).run())
    ok(at.button(key="new-pon").click().run())
    for _ in range(3):
        ok(at.pills(key=f"face-{at.session_state['hand'].version}").set_value("7z").run())
    ok(at.pills(key=f"face-{at.session_state['hand'].version}").set_value("1f").run())
    # every tapped tile went to the concealed row: now choose the winning tile
    draft = at.session_state["hand"].draft
    assert draft.win is None and len(draft.concealed) == 14
    v = at.session_state["hand"].version
    ok(at.pills(key=f"tiles-concealed-{v}").set_value(13).run())
    ok(next(b for b in at.button if b.label == "設為胡的那張").click().run())
    assert to_hand(at.session_state["hand"].draft, HAND.situation) == HAND
    assert total_shown(at) == expected_total(HAND)


def test_fixing_a_tile_and_a_meld(app):
    at = ok(app(NoModel))
    ok(box(at, "text").set_value(TYPED).run())
    v = at.session_state["hand"].version
    assert at.pills(key=f"tiles-concealed-{v}").options[:3] == ["一萬", "二萬", "三萬"]
    ok(at.pills(key=f"tiles-concealed-{v}").set_value(0).run())
    ok(at.pills(key=f"face-{v}").set_value("9m").run())
    assert at.session_state["hand"].draft.concealed[0].code == "9m" and "沒有胡：九萬二萬三萬" in at.error[0].value
    v = at.session_state["hand"].version
    ok(at.pills(key=f"tiles-concealed-{v}").set_value(0).run())
    ok(at.pills(key=f"face-{v}").set_value("1m").run())
    assert total_shown(at) == expected_total(HAND)
    v = at.session_state["hand"].version
    ok(at.selectbox(key=f"kind-0-traditional-{v}").set_value("kong").run())  # 碰 → 明槓 gets its fourth tile
    assert [s.code for s in at.session_state["hand"].draft.melds[0].tiles] == ["7z"] * 4
    assert total_shown(at) == expected_total(HAND.replace(melds=(Meld("kong", ("7z",) * 4),)))


def test_a_pon_that_is_three_alike_in_the_hand_goes_back_in_one_tap(app):
    """Three alike the reader took for a pon, standing in the row: one tap puts them back, and the hand is 門清 with
    its 暗刻 again, its winning tile unmoved."""
    at = ok(app(NoModel))
    ok(box(at, "text").set_value(TYPED).run())
    assert next(b for b in at.button if b.label == "刪除副露 1")
    ok(next(b for b in at.button if b.label == "副露 1 放回手牌").click().run())
    concealed = HAND.replace(concealed=(*HAND.concealed, "7z", "7z", "7z"), melds=())
    assert to_hand(at.session_state["hand"].draft, HAND.situation) == concealed
    assert total_shown(at) == expected_total(concealed) != expected_total(HAND)
    assert not any(b.label == "副露 1 放回手牌" for b in at.button)


def test_a_pon_read_into_the_row_comes_out_in_two_taps(app):
    """A pon pushed against the row, read as concealed tiles: tap one of them, then 拿出來當碰. An honour offers
    no chi."""
    at = ok(app(NoModel))
    ok(box(at, "text").set_value("123456m 789p 2345s 777z 和5s 花1f").run())
    v = at.session_state["hand"].version
    ok(at.pills(key=f"tiles-concealed-{v}").set_value(13).run())
    offered = {b.label for b in at.button if b.label.startswith("拿出來當")}
    assert offered == {"拿出來當碰"}  # three 中: no 槓, and no 吃 of an honour
    ok(next(b for b in at.button if b.label == "拿出來當碰").click().run())
    assert to_hand(at.session_state["hand"].draft, HAND.situation) == HAND
    assert total_shown(at) == expected_total(HAND)


def save_button(at):
    return next(b for b in at.button if b.label == "把這張照片加入我的資料集")


def test_photo_flow_reads_once_fixes_and_saves(app, tmp_path, monkeypatch):
    monkeypatch.setenv("TAISHU_DATASET_ROOT", str(tmp_path))  # as the server was started
    at = ok(app(FakeDetector))
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", jpeg(), "image/jpeg")).run())
    assert FakeDetector.reads == PER_PHOTO  # once per photo
    assert total_shown(at) == expected_total(HAND)
    [photo] = at.image
    assert photo.captions[0].startswith("讀到 18 張牌")
    choose(at, "how", "南家 放槍")  # a widget change re-scores without reading again
    ok(at.checkbox(key="ready").check().run())
    assert FakeDetector.reads == PER_PHOTO

    v = at.session_state["hand"].version
    ok(at.pills(key=f"tiles-concealed-{v}").set_value(0).run())
    ok(at.pills(key=f"face-{v}").set_value("9m").run())
    assert "⚠九萬" in at.pills(key=f"tiles-concealed-{at.session_state['hand'].version}").options

    ok(at.text_input(key="dataset_name").set_value("mine").run())
    ok(save_button(at).click().run())
    assert at.success, [e.value for e in at.error]
    [labels] = (tmp_path / "mine" / "labels" / "train").glob("*.txt")
    rows = [line.split() for line in labels.read_text().splitlines()]
    assert len(rows) == len(laid_out(HAND)[0]) and rows[0][0] == str(CLASS_INDEX["9m"])
    assert (tmp_path / "mine" / "data.yaml").exists() and len(list((tmp_path / "mine" / "images").rglob("*.jpg"))) == 1


def test_the_page_chooses_a_checked_folder_name_inside_the_data_folder_only(app, tmp_path, monkeypatch):
    root = tmp_path / "root"
    monkeypatch.setenv("TAISHU_DATASET_ROOT", str(root))
    (root / "theirs").mkdir(parents=True)
    (root / "theirs" / "data.yaml").write_text("names: [cat, dog]\n")
    at = ok(app(FakeDetector))
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", jpeg(), "image/jpeg")).run())
    for name, said in [("../../x", "不能是路徑"), ("/etc", "不能是路徑"), ("theirs", "不會覆蓋它")]:
        ok(at.text_input(key="dataset_name").set_value(name).run())
        ok(save_button(at).click().run())
        assert any(said in e.value for e in at.error) and not at.success, name
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "root", "root/theirs", "root/theirs/data.yaml"]
    assert (root / "theirs" / "data.yaml").read_text() == "names: [cat, dog]\n"
    ok(at.text_input(key="dataset_name").set_value("").run())  # empty: the data folder itself
    ok(save_button(at).click().run())
    assert at.success and len(list((root / "images" / "train").glob("*.jpg"))) == 1


def test_face_down_tiles_leave_the_page_whole(app, monkeypatch):
    """A concealed kong shown as four backs, a face-down tile and a missed one: the reader supposes the
    kong's face, the face-down tile's and the missed one to make a legal hand, but the kong's tiles
    stay ？ for the player to name, the 台 section says what is missing, saving stays offered. The app
    broke below ② on such readings."""
    hand = Hand.from_json({**HAND.to_json(), "concealed": HAND.concealed[:-3],
                           "melds": [*HAND.to_json()["melds"], {"type": "ankong", "tiles": ["9s"] * 4}]})
    dets, codes = laid_out(hand, face_down=True)
    codes[0] = "back"
    seen = Detections(dets.boxes[[0, *range(2, len(codes))]], one_hot(codes[:1] + codes[2:]))  # 2m missed
    monkeypatch.setattr(FakeDetector, "read", lambda self, image: seen)
    at = ok(app(FakeDetector))
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", jpeg(), "image/jpeg")).run())
    v = at.session_state["hand"].version
    assert as_seen(at.pills(key=f"tiles-meld:1-{v}").options) == ["？"] * 4  # the kong of backs
    assert at.error and save_button(at)


# HAND with its 五萬 missed by the photo, among 九萬, 東風 and a back set apart; runner-ups: 二條 read
# as 五條 (3 台 too), the flower set apart (2 台).
AT_A_TABLE = reading_at_a_table(HAND, 4, ["9m", "1z", "back"], {9: "5s"})


@pytest.fixture
def photo_read_as(app, monkeypatch):
    """The page after uploading a photo that the reader reads as `reading`."""
    def upload(reading, said: bool = True):
        monkeypatch.setattr(vision.read, "read_photo", lambda image, detector, rules=None, memory=None: reading)
        at = ok(app(FakeDetector, said))
        return ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", jpeg(), "image/jpeg")).run())

    return upload


def apart_pills(at):
    return at.pills(key=f"apart-{at.session_state['hand'].version}")


def take_button(at, alternative):
    return at.button(key=f"take-{alternative}")


def test_tiles_set_apart_stay_out_of_the_hand_and_one_tap_pulls_one_in(photo_read_as):
    at = photo_read_as(AT_A_TABLE)
    draft = at.session_state["hand"].draft
    assert {s.det for s in draft.all_slots()} == {*range(17), 20}  # 17-19 set apart; 五萬 supposed (row 20, no box)
    assert total_shown(at) == expected_total(HAND)
    assert any("補上了 五萬" in i.value for i in at.info)
    assert apart_pills(at).options == ["九萬", "東風"]  # the back is counted, not offered
    assert any("另有 1 張牌背朝上" in c.value for c in at.caption)
    assert "灰框" in at.image[0].captions[0]

    ok(apart_pills(at).set_value(17).run())  # one tap: 九萬 joins the concealed tiles with its box
    draft = at.session_state["hand"].draft
    assert draft.concealed[-1] == Slot("9m", 17) and apart_pills(at).options == ["東風"]
    hand_pills = at.pills(key=f"tiles-concealed-{at.session_state['hand'].version}")
    assert flagged(AT_A_TABLE.best, draft)[17] and hand_pills.options[-1] == "⚠九萬"  # the player's change
    assert not at.metric and "這手牌不能算" in at.error[0].value

    v = at.session_state["hand"].version  # undone like any tile: select it, delete it; it is set apart again
    ok(at.pills(key=f"tiles-concealed-{v}").set_value(len(draft.concealed) - 1).run())
    ok(next(b for b in at.button if b.label == "刪除這張").click().run())
    assert apart_pills(at).options == ["九萬", "東風"] and total_shown(at) == expected_total(HAND)

    choose(at, "target", "副露 1（碰）")
    ok(apart_pills(at).set_value(18).run())  # into the group tiles are being added to
    assert at.session_state["hand"].draft.melds[0].tiles[-1] == Slot("1z", 18)


def test_a_tile_pulled_in_as_the_winning_tile_sends_the_rows_last_back_to_the_hand(photo_read_as):
    """The reader took the row's last tile as the winning one; the player pulls the tile it set apart in as 胡的那張
    instead. One tap: that tile wins, and the one the reader had named stays in the hand."""
    at = photo_read_as(AT_A_TABLE)
    before = at.session_state["hand"].draft
    choose(at, "target", "胡的那張")
    ok(apart_pills(at).set_value(18).run())
    draft = at.session_state["hand"].draft
    assert draft.win == Slot("1z", 18) and draft.concealed == (*before.concealed, before.win)


def test_a_runner_up_reading_is_one_tap(photo_read_as):
    at = photo_read_as(AT_A_TABLE)
    assert take_button(at, None).label == "✓ 最可能的讀法：3 台" and take_button(at, None).disabled
    assert take_button(at, 0).label == "3 台（+0）：第 9 張二條改成五條"
    assert take_button(at, 1).label == "2 台（-1）：梅不算"

    ok(take_button(at, 1).click().run())
    assert total_shown(at) == expected_total(HAND.replace(flowers=())) == "2 台"
    assert not at.session_state["hand"].draft.flowers and apart_pills(at).options == ["梅", "九萬", "東風"]
    assert take_button(at, 1).disabled and not take_button(at, None).disabled
    ok(take_button(at, 0).click().run())
    draft = at.session_state["hand"].draft
    assert draft.concealed[8] == Slot("5s", 8) and draft.concealed[-1] == Slot("5m", 20)  # its supposed tile too
    assert total_shown(at) == expected_total(HAND.replace(concealed=(*HAND.concealed[:9], "5s", *HAND.concealed[10:])))

    ok(at.radio(key="script").set_value("simplified").run())  # the words in the player's script
    assert take_button(at, 0).label == "✓ 3 台（+0）：第 9 张二条改成五条"
    ok(take_button(at, None).click().run())
    assert total_shown(at) == expected_total(HAND) and at.session_state["hand"].draft.flowers


def test_a_run_with_runner_ups_judges_the_hand_on_the_page_once(photo_read_as, monkeypatch):
    """The verdict is worked out once per run and handed to the top bar, ④ and the readings' buttons: the hand on
    the page is judged once, each runner-up once (the best reading, the hand on the page, was judged twice)."""
    at = photo_read_as(AT_A_TABLE)
    judged, judge = [], ui.result.judge
    monkeypatch.setattr(ui.result, "judge", lambda *args: judged.append(args[0]) or judge(*args))
    ok(at.run())
    assert len(judged) == 1 + len(AT_A_TABLE.runner_ups) == len({repr(hand) for hand in judged})
    assert total_shown(at) == expected_total(HAND) and take_button(at, None).label == "✓ 最可能的讀法：3 台"


def test_a_runner_up_says_no_tai_before_the_winner_is_said(photo_read_as):
    """Each reading's 台 depend on who won and how: until that is said, the buttons said 「？ 台」."""
    at = photo_read_as(AT_A_TABLE, said=False)
    assert [take_button(at, k).label for k in (None, 0, 1)] == ["✓ 最可能的讀法", "第 9 張二條改成五條", "梅不算"]
    say_who_won(at)
    assert take_button(at, None).label == "✓ 最可能的讀法：3 台" and take_button(at, 1).label == "2 台（-1）：梅不算"


def test_a_photo_of_small_tiles_says_how_to_take_the_next_one_where_it_is_seen(photo_read_as):
    """The notice that the tiles are small is shown beside the photo, not folded away with the other notices."""
    assert not any("像素寬" in i.value for i in photo_read_as(AT_A_TABLE).info)
    at = photo_read_as(replace(AT_A_TABLE, warnings=(Notice.of("tiles-small", size=12), Notice.of("upside-down"))))
    assert any("只有約 12 像素寬" in i.value and "靠近一點拍" in i.value for i in at.info)
    assert [e.label for e in at.expander if "讀牌提示" in e.label] == ["讀牌提示（1）"]  # not again among the rest
    assert total_shown(at) == expected_total(HAND)  # the hand is read and scored all the same


def test_a_tap_on_one_of_equal_tiles_takes_that_tile(app):
    """A pills widget maps the label tapped back to its option by the label, the last of equal labels winning: of
    three 一萬 a tap on the first took the third (on a photo, the wrong box then turned red and was taught)."""
    at = ok(app(NoModel))
    ok(box(at, "text").set_value("111m 234m 567p 789s 2s 和2s 碰555z").run())
    tiles = at.pills(key=f"tiles-concealed-{at.session_state['hand'].version}")
    assert as_seen(tiles.options[:3]) == ["一萬"] * 3 and len(set(tiles.options[:3])) == 3
    ok(tiles.set_value(0).run())
    assert at.session_state["hand"].selected == ("concealed", 0)
    ok(at.pills(key=f"face-{at.session_state['hand'].version}").set_value("9m").run())
    assert [s.code for s in at.session_state["hand"].draft.concealed[:3]] == ["9m", "1m", "1m"]


def test_a_tap_on_one_of_equal_tiles_set_apart_pulls_that_tile(photo_read_as):
    """Two 九萬 set apart: the first tapped joins the hand with its own box, the other stays apart."""
    at = photo_read_as(reading_at_a_table(HAND, 4, ["9m", "9m", "1z"], {9: "5s"}))
    assert as_seen(apart_pills(at).options) == ["九萬", "九萬", "東風"]
    ok(apart_pills(at).set_value(17).run())  # the first 九萬's detection
    assert at.session_state["hand"].draft.concealed[-1] == Slot("9m", 17) and apart_pills(at).options[0] == "九萬"


def test_odd_readings_render(photo_read_as):
    """Every tile set apart, no hand, runner-ups with an added tile; then a reading of nothing."""
    everything = (TileGroup("unknown", tuple(range(20)), "apart"),)
    all_apart = replace(AT_A_TABLE, best=replace(AT_A_TABLE.best, groups=everything), legal=False)
    at = photo_read_as(all_apart)
    assert at.session_state["hand"].draft.empty and len(apart_pills(at).options) == 19
    assert take_button(at, None).label == "✓ 最可能的讀法"  # no win there: no 台 to say
    ok(take_button(at, 1).click().run())
    assert total_shown(at) == "2 台"
    at = photo_read_as(read_detections(Detections.empty()))
    assert at.session_state["hand"].draft.empty and not any(str(b.key).startswith("take-") for b in at.button)


@pytest.mark.parametrize("data, message", [
    (b"this is not a photo", "不能當照片讀"),
    (b"", "不能當照片讀"),
    (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64, "HEIC"),
])
def test_a_broken_upload_gets_a_message_and_keeps_the_hand(app, data, message):
    at = ok(app(FakeDetector))
    ok(box(at, "text").set_value(TYPED).run())
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", data, "image/jpeg")).run())
    assert any(message in e.value for e in at.error)
    assert FakeDetector.reads == 0 and total_shown(at) == expected_total(HAND)


class WinNotApart:
    """HAND laid out with its winning tile at the end of the row: the reader warns so."""

    def read(self, image):
        return laid_out(HAND, win_apart=False)[0]


def test_the_readers_warnings_are_shown_in_the_players_script(app):
    at = ok(app(WinNotApart))
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", jpeg(), "image/jpeg")).run())
    assert any(m.value == "- 胡的那張沒有分開放：當作手牌的最後一張" for m in at.markdown)
    ok(at.radio(key="script").set_value("simplified").run())
    assert any(m.value == "- 胡的那张没有分开放：当作手牌的最后一张" for m in at.markdown)


def test_without_a_model_the_photo_is_shown_and_typing_still_works(app):
    at = ok(app(NoModel))
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", jpeg(), "image/jpeg")).run())
    assert "無法從照片讀牌" in at.warning[0].value and "找不到模型說明檔 models/model.json" in at.warning[0].value
    ok(box(at, "text").set_value(TYPED).run())
    assert total_shown(at) == expected_total(HAND)


@pytest.mark.slow
@pytest.mark.skipif(not (MODELS / "model.json").exists(), reason="no committed model (models/model.json)")
def test_real_model_reads_a_sample_photo():
    sample = SAMPLES / "train-style-000009"
    hand = Hand.from_json(json.loads(sample.with_suffix(".json").read_text())["hand"])
    st.cache_resource.clear()
    at = say_who_won(ok(AppTest.from_file(str(APP), default_timeout=120).run()))
    ok(at.file_uploader(key="upload-0").set_value(("sample.jpg", sample.with_suffix(".jpg").read_bytes(),
                                                 "image/jpeg")).run())
    assert not any("unavailable" in w.value for w in at.warning)
    situation = Situation(self_draw=True)
    assert sorted(to_hand(at.session_state["hand"].draft, situation).all_tiles()) == sorted(hand.all_tiles())
    assert total_shown(at) == expected_total(hand)


def test_first_turn_flags_reach_the_rulesets_that_score_them(app):
    """地胡 (a non-dealer's self-draw on the first draw) is an entry of the competition table only."""
    at = ok(app())
    ok(box(at, "text").set_value("123m 456m 789m 234p 45s 99s 和6s").run())
    choose(at, "winner", "南家")
    ok(at.checkbox(key="earthly").check().run())
    assert "地胡" not in str(at.table[0].value)  # the default table has no 地胡
    ok(box(at, "ruleset").set_value("tw16-competition").run())
    assert "地胡" in str(at.table[0].value)


def test_the_page_says_how_a_payment_is_worked_out_at_the_chosen_table(app):
    """改良式 has no 底 and multiplies: the 底 box is greyed out and the words say so, and each payment shown is its
    台 times 每台 times 2 (self-drawn): what the words say."""
    at = ok(app(NoModel))
    ok(box(at, "text").set_value(TYPED).run())
    assert any(c.value == "放槍的人付 底 + 台數 × 每台；自摸時三家各付 底 + 台數 × 每台（台數加上莊家、連莊的台）"
               for c in at.caption) and not box(at, "base").disabled
    ok(box(at, "ruleset").set_value("tw16-improved").run())
    assert any(c.value.startswith("這個規則沒有底。放槍的人付 台數 × 每台 × 3；自摸時三家各付 台數 × 每台 × 2")
               for c in at.caption) and box(at, "base").disabled
    payers = at.table[1].value.to_dict("records")
    assert payers and all(p["金額"] == int(str(p["台"]).split("（")[0]) * 20 * 2 for p in payers)


def test_a_ruleset_file_in_the_house_folder_is_offered_and_scores(app, tmp_path, monkeypatch):
    """A table dropped into the folder TAISHU_RULESETS names appears under 規則: no code touched."""
    house_table(tmp_path)
    monkeypatch.setenv(EXTRA_RULESETS, str(tmp_path))
    at = ok(app(NoModel))
    assert "我家的台數" in box(at, "ruleset").options  # its own name, not the copied table's
    ok(box(at, "text").set_value("123456789m 234p 45s 99s 和6s").run())
    choose(at, "how", "北家 放槍")  # off a discard: 门清 1 + 平和 2 by default
    assert total_shown(at) == "3 台"
    ok(box(at, "ruleset").set_value("house").run())
    assert total_shown(at) == "4 台" and {"項目": "門清", "台": 2} in at.table[0].value.to_dict("records")


def test_a_kongs_origin_is_asked_only_where_the_tai_depend_on_it():
    """001 槓上開花 「暗槓、加槓…明槓自摸不算」: a self-drawn win after the open kong 2222p asks 大明槓 or
    加槓 there, and only there (not at the default table, not without 槓上)."""
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    box(at, "text").set_value("123m 456m 789m 45s 99s 和6s 槓2222p").run()
    choose(at, "winner", "東家")
    choose(at, "how", "自摸")
    at.checkbox(key="after_kong").check().run()

    def asked() -> bool:
        return any(r.key and r.key.startswith("kong_origin_0-") for r in at.segmented_control)

    def items() -> list[str]:
        return [row["項目"] for row in at.table[0].value.to_dict("records")]

    assert not asked() and "槓上開花" in items()  # the default table: after any kong
    box(at, "ruleset").set_value("tw16-common").run()
    assert asked() and not at.metric and "大明槓" in at.error[0].value  # it cannot be scored until said
    choose(at, "kong_origin_0", "加槓（碰了再補第四張）")
    assert "槓上開花" in items() and at.session_state["hand"].draft.melds[0].origin == "added"
    assert any("加槓2222p" in c.value for c in at.caption)  # the hand as text says it too
    choose(at, "kong_origin_0", "大明槓（槓別人打出的牌）")
    assert "槓上開花" not in items() and chosen(at, "kong_origin_0") == "大明槓（槓別人打出的牌）"
    at.checkbox(key="after_kong").uncheck().run()
    assert not asked() and not at.exception


def test_a_phone_keeps_the_readings_of_its_current_photo_only(app):
    """A phone uploading photo after photo all evening: its session holds one photo's readings, not all."""
    at = ok(app(FakeDetector))
    uploader = "upload-0"
    for n, size in enumerate([(1200, 700), (1201, 700), (1200, 700)]):
        ok(at.file_uploader(key=uploader).set_value(("hand.jpg", jpeg(*size), "image/jpeg")).run())
        assert {key[0] for key in at.session_state["photo"].readings} == {at.session_state['photo'].shown.id}
        assert FakeDetector.reads == PER_PHOTO * (n + 1)  # the first photo brought again is read again


def test_a_photo_is_read_again_under_another_ruleset_and_once_per_ruleset(app, monkeypatch):
    """The reading depends on the table (a 十三么 is a hand only where it is one): a reading is kept by
    photo and ruleset, so choosing another table after the upload reads the photo under it, once."""
    seen = []
    real = vision.read.read_photo  # app.py imports it on each run: the one patched below

    def counting(image, detector, rules=None, memory=None):
        seen.append(rules.id)
        return real(image, detector, rules)

    monkeypatch.setattr(vision.read, "read_photo", counting)
    at = ok(app(FakeDetector))
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", jpeg(), "image/jpeg")).run())
    ok(box(at, "ruleset").set_value("tw16-improved").run())
    assert total_shown(at).endswith("台")
    ok(box(at, "ruleset").set_value("tw16-2026.09-p0").run())  # back: the first reading, kept
    choose(at, "how", "北家 放槍")
    assert seen == [load_ruleset(name).id for name in ("tw16-2026.09-p0", "tw16-improved")]
    assert FakeDetector.reads == 2 * PER_PHOTO
