"""The table's memory of its own set in the app: the "teach this set" page, a hand recorded from a
photo teaching it, the next photo read with it on another phone, a damaged memory reported and replaced.
AppTest sessions (phones) at `?table=`, a real ledger file, the committed models on a committed sample photo
of a design they never trained on: alone they misread its flowers (tests/test_memory.py)."""

from pathlib import Path

import cv2
import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import vision.detector
from ledger import Ledger
from scoring.draft import add_tile, replace_tile
from scoring.hand import Meld
from scoring.tiles import tile_name
from tests.app_driver import choose, ok, press
from tests.example_hands import HAND
from tests.fake_detections import laid_out, one_hot, reading_at_a_table
from tests.test_app_script import assert_simplified
from tests.test_reduced_decode import enlarged
from ui.picture import SHOWN_WIDTH
from ui.table import DB_ENV
from ui.table_memory import confirmed_tiles
from ui.teach_page import PAGE
from vision.boxes import match
from vision.detections import Detections
from vision.labels import read_labels
from vision.memory import TableMemory, embed, unit
from vision.photo import load_photo, open_photo
from vision.read import askew_angle, read_detections

ROOT = Path(__file__).resolve().parents[1]
FLOWERED = ROOT / "tests" / "data" / "samples" / "unseen-style-000005"
PHOTO = FLOWERED.with_suffix(".jpg").read_bytes()
ROW_AT_37 = ROOT / "tests" / "data" / "askew" / "row-at-37-degrees"
CLOSE_UP_1F = ROOT / "tests" / "data" / "close-ups" / "hk-train-1f-on-a-mat"
RECORD = "胡了，記下這一局"
pytestmark = pytest.mark.skipif(not (ROOT / "models" / "model.json").exists(), reason="no committed model")


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "taishu.db"
    monkeypatch.setenv(DB_ENV, str(path))
    Ledger(path).open_table("friday")
    st.cache_resource.clear()  # the real models, whatever an earlier test put in their place
    yield path
    st.cache_resource.clear()


def phone(script: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["table"] = "friday"
    if script:
        at.query_params["script"] = script
    return ok(at.run())


def truth_of(boxes) -> list[str | None]:
    """The sample's true code of each of these boxes (None: no labelled tile there)."""
    image = load_photo(PHOTO)
    true_boxes, codes = read_labels(FLOWERED.with_suffix(".txt"), image.shape[1], image.shape[0])
    found = {p: codes[t] for t, p in match(true_boxes, boxes).items()}
    return [found.get(i) for i in range(len(boxes))]


def stored(db: Path) -> TableMemory | None:
    data = Ledger(db).memory("friday").data
    return None if data is None else TableMemory.from_bytes(data)


def upload_hand(at: AppTest, key: str = "upload-0") -> AppTest:
    return ok(at.file_uploader(key=key).set_value(("hand.jpg", PHOTO, "image/jpeg")).run())


def teach_row(at: AppTest, which: str):
    """The teach page's row of the photo's tiles ("pick") or of faces ("face"), as drawn now."""
    return at.pills(key=f"teach-{which}-{at.session_state['teach_photo']['version']}")


def flowers_read(at: AppTest) -> tuple[list[str], list[str | None]]:
    """The draft's flowers as the page read them, and the sample's truth for each."""
    best = at.session_state["photo"].readings[at.session_state["photo"].shown.read.key].best
    slots = at.session_state["hand"].draft.flowers
    truth = dict(zip((row.id for row in best.shown), truth_of(best.boxes), strict=True))
    return [s.code for s in slots], [truth[s.det] for s in slots]


def test_a_set_taught_on_its_page_is_what_the_next_photo_is_read_with(db):
    at = phone()
    read, truth = flowers_read(upload_hand(at))
    assert read != truth  # the models alone misread this design's flowers
    wrong = next(k for k, (a, b) in enumerate(zip(read, truth, strict=True)) if a != b)
    version = at.session_state["hand"].version
    ok(at.pills(key=f"tiles-flowers-{version}").set_value(wrong).run())  # the player starts fixing them
    ok(at.pills(key=f"face-{version}").set_value(truth[wrong]).run())
    fixed = at.session_state["hand"].draft

    press(at, "教認這一桌的牌（照片常讀錯時）")  # under the table's settings (or the sidebar)
    assert at.title[0].value == "教認這一桌的牌" and any("還沒有記住任何牌" in c.value for c in at.caption)
    ok(at.file_uploader(key="teach-upload-0").set_value(("flowers.jpg", PHOTO, "image/jpeg")).run())
    shown = at.session_state["teach_photo"]
    truth = truth_of(shown["boxes"])
    pick = teach_row(at, "pick")
    assert len(pick.options) == len(truth) == 21 and pick.options[0].startswith("1 ")
    flowers = [i for i, code in enumerate(truth) if code and code.endswith("f")]
    for i in flowers:  # a tap on the tile, a tap on its face
        ok(teach_row(at, "pick").set_value(i).run())
        ok(teach_row(at, "face").set_value(truth[i]).run())
    unmatched = next(i for i, code in enumerate(truth) if code and not code.endswith("f"))
    ok(teach_row(at, "pick").set_value(unmatched).run())
    press(at, "不記這一張（不是牌、拍壞了）")
    named = at.session_state["teach_photo"]["codes"]
    assert [named[i] for i in flowers] == [truth[i] for i in flowers] and named[unmatched] is None
    press(at, "記住這 20 張牌")
    note = at.success[0].value
    assert note.startswith("記住了 20 張牌：") and all(tile_name(truth[i], "traditional") in note for i in flowers)
    memory = stored(db)
    assert len(memory) == sum(min(n, 4) for n in _counts([c for c in named if c]).values())
    assert {truth[i] for i in flowers} <= set(memory.counts())
    assert not at.session_state["teach_photo"] and at.file_uploader(key="teach-upload-1")  # ready for the next
    assert any("花牌：" in c.value for c in at.caption)

    press(at, "回到台數")
    upload_hand(at)  # the same photo: the player's fixes stay, and a reading with what the table learned is offered
    assert at.session_state["hand"].draft == fixed and len(at.session_state["photo"].readings) == 1
    press(at, "這一桌剛學了牌：用它重讀這張照片（你改過的要重改）")
    read, truth = flowers_read(at)
    assert read == truth and len(at.session_state["photo"].readings) == 2
    assert not any(b.label.startswith("這一桌剛學了牌") for b in at.button)


def test_a_face_picker_opens_only_for_a_tile_the_player_tapped(db):
    """The page's run ends in st.stop(), after which Streamlit keeps every widget's value: the next photo's first row
    of tiles came up with the last photo's first tap on it (「第 1 張是：」 with no tile chosen), and its second row,
    after a tile left out, with the last photo's second tap; a face tapped then named a tile nobody picked."""
    at = ok(phone().sidebar.radio[0].set_value(PAGE).run())

    def picker_shown() -> bool:
        return any(str(p.key).startswith("teach-face-") for p in at.pills) or any(
            b.label.startswith("不記這一張") for b in at.button)

    ok(at.file_uploader(key="teach-upload-0").set_value(("flowers.jpg", PHOTO, "image/jpeg")).run())
    for i in (0, 1):  # tile 1 named 梅, tile 2 left out
        assert not picker_shown()
        ok(teach_row(at, "pick").set_value(i).run())
        assert picker_shown()
        if i == 0:
            ok(teach_row(at, "face").set_value("1f").run())
        else:
            press(at, "不記這一張（不是牌、拍壞了）")
    kept = sum(c is not None for c in at.session_state["teach_photo"]["codes"])
    press(at, f"記住這 {kept} 張牌")
    ok(at.file_uploader(key="teach-upload-1").set_value(("flowers.jpg", PHOTO, "image/jpeg")).run())
    assert not picker_shown() and teach_row(at, "pick").value is None  # the next photo: nothing picked
    ok(teach_row(at, "pick").set_value(4).run())
    press(at, "不記這一張（不是牌、拍壞了）")
    assert not picker_shown() and teach_row(at, "pick").value is None  # nor after a tile left out


def close_up() -> tuple[bytes, Detections]:
    """A flower of the sample photographed alone, close up, and a reading of it as the detector gave such photos of
    a real set: the flower (misread, 菊) and slivers as tiles: of its base, of its neighbours at the edges."""
    image = cv2.imread(str(FLOWERED.with_suffix(".jpg")))
    boxes, codes = read_labels(FLOWERED.with_suffix(".txt"), image.shape[1], image.shape[0])
    x0, y0, x1, y1 = next(b for b, c in zip(boxes, codes, strict=True) if c == "2f")
    w, h = x1 - x0, y1 - y0
    crop = image[int(y0 - h * 0.4):int(y1 + h * 0.4), int(x0 - w * 1.2):int(x1 + w * 1.2)]
    photo = cv2.resize(crop, None, fx=4, fy=4)
    tile = [w * 4.8, h * 1.6, w * 8.8, h * 5.6]  # the flower, in the close-up's pixels
    slivers = [[w * 2.0, h * 1.6, w * 3.3, h * 5.6], [w * 3.4, h * 1.6, w * 4.7, h * 5.6],
               [w * 8.9, h * 1.6, w * 10.2, h * 5.6], [w * 10.3, h * 1.6, w * 11.4, h * 5.6]]
    read = Detections(np.array([*slivers[:2], tile, *slivers[2:]], np.float32),
                      one_hot(["back", "6s", "3f", "1s", "back"]))
    return cv2.imencode(".jpg", photo)[1].tobytes(), read


def test_a_close_up_of_one_tile_is_one_tap_to_keep_that_tile_alone(db, monkeypatch):
    """A flower photographed alone, close up, was read with slivers of its base as tiles, each one tap on it and one
    on 不記 to leave out: a tap says the photo shows one tile, and only the largest is kept."""
    data, read = close_up()

    class CloseUp(vision.detector.TileDetector):  # the committed models (the memory's embeddings), reading so
        def read(self, image, conf=None, memory=None, first=None):
            return read

    monkeypatch.setattr(vision.detector, "TileDetector", CloseUp)
    at = ok(phone().sidebar.radio[0].set_value(PAGE).run())
    ok(at.file_uploader(key="teach-upload-0").set_value(("flower.jpg", data, "image/jpeg")).run())
    assert len(teach_row(at, "pick").options) == 5
    ok(teach_row(at, "pick").set_value(2).run())  # the flower, left out by a slip: the tap brings it back as read
    press(at, "不記這一張（不是牌、拍壞了）")
    press(at, "這張照片只有一張牌：只記最大的那張")
    codes = at.session_state["teach_photo"]["codes"]
    assert [c for c in codes if c] == ["3f"] and teach_row(at, "pick").options[codes.index("3f")].endswith(" 菊")
    assert not any(b.label.startswith("這張照片只有一張牌") for b in at.button)  # one tile kept: nothing to drop
    ok(teach_row(at, "pick").set_value(codes.index("3f")).run())
    ok(teach_row(at, "face").set_value("2f").run())  # the player names it
    press(at, "記住這 1 張牌")
    assert at.success[0].value.startswith("記住了 1 張牌：蘭") and stored(db).counts() == {"2f": 1}


def test_a_flower_photographed_alone_close_up_is_taught_from_its_own_crop(db):
    """A real flower filling most of the frame (tests/data/close-ups) was found as nothing: the page had nothing to
    teach. Now it shows that one tile, read as its flower; kept, the lesson holds its code and its crop (the
    embedding of the labelled tile's crop, not a sliver's)."""
    photo = CLOSE_UP_1F.with_suffix(".jpg")
    at = ok(phone().sidebar.radio[0].set_value(PAGE).run())
    ok(at.file_uploader(key="teach-upload-0").set_value(("flower.jpg", photo.read_bytes(), "image/jpeg")).run())
    shown = at.session_state["teach_photo"]
    image = load_photo(photo)
    label, codes = read_labels(CLOSE_UP_1F.with_suffix(".txt"), image.shape[1], image.shape[0])
    assert shown["image"].shape == image.shape and shown["codes"] == ("1f",) == tuple(codes)
    assert match(label, np.asarray(shown["boxes"])) == {0: 0}
    press(at, "記住這 1 張牌")
    assert at.success[0].value.startswith("記住了 1 張牌：梅") and stored(db).counts() == {"1f": 1}
    classifier = vision.detector.TileDetector().classifier
    taught = stored(db).examples["1f"][0]
    assert float(taught @ unit(embed(classifier, image, label, codes))[0]) > 0.95


def test_a_row_photographed_askew_is_named_on_the_photo_turned_level(db):
    """The teach page reads a photo whose row lies at 37 degrees turned level: 20 of its 21 tiles to name against
    14 as it is; the photo shown, and the crops taught, are the level one."""
    row = ROW_AT_37.with_suffix(".jpg")
    at = phone()
    press(at, "教認這一桌的牌（照片常讀錯時）")
    ok(at.file_uploader(key="teach-upload-0").set_value(("row.jpg", row.read_bytes(), "image/jpeg")).run())
    shown = at.session_state["teach_photo"]
    photo = load_photo(row)
    assert len(teach_row(at, "pick").options) == len(shown["boxes"]) >= 20
    assert shown["image"].shape != photo.shape  # the level photo's canvas holds the whole photo turned
    assert askew_angle(shown["boxes"]) == 0.0  # in the photo shown the row lies level


def _counts(codes: list[str]) -> dict[str, int]:
    return {c: codes.count(c) for c in set(codes)}


def test_the_memory_is_reset_from_its_page_only_once_asked(db):
    Ledger(db).change_memory("friday", lambda data: TableMemory("0" * 64).to_bytes())  # another classifier's
    at = ok(phone().sidebar.radio[0].set_value(PAGE).run())
    assert any("牌桌記憶是舊的模型做的" in w.value for w in at.warning)  # reported, in the player's words
    press(at, "清除這一桌記住的牌")
    press(at, "不要清除")
    assert Ledger(db).memory("friday").data is not None
    press(at, "清除這一桌記住的牌")
    press(at, "確定清除")
    assert Ledger(db).memory("friday").data is None and at.success[0].value == "這一桌記住的牌清除了。"
    assert any("還沒有記住任何牌" in c.value for c in at.caption) and not at.warning


def test_a_hand_recorded_from_a_photo_teaches_the_table_and_the_next_phone_reads_with_it(db):
    Ledger(db).change_memory("friday", lambda data: b'{"format": "taishu-table-memory", "vers')  # torn, damaged
    at = upload_hand(phone())
    assert any("這一桌記住的牌組用不了" in w.value for w in at.warning)  # and read by the models alone
    read, truth = flowers_read(at)
    assert read != truth
    Ledger(db).change_memory("friday", lambda data: data + b"!")  # moved, the hand still as read: read again
    assert len(ok(at.run()).session_state["photo"].readings) == 2 and flowers_read(at)[0] == read
    for k, code in enumerate(truth):  # the player fixes the flowers: a tap on the tile, one on its face
        version = at.session_state["hand"].version
        ok(at.pills(key=f"tiles-flowers-{version}").set_value(k).run())
        ok(at.pills(key=f"face-{version}").set_value(code).run())
    assert flowers_read(at)[0] == truth
    ok(at.run())  # ... and stay fixed when the table's memory moves meanwhile (another phone recording)
    Ledger(db).change_memory("friday", lambda data: b"another phone's")
    assert flowers_read(ok(at.run()))[0] == truth and len(at.session_state["photo"].readings) == 2
    boxed = sum(s.det is not None for s in at.session_state["hand"].draft.all_slots())
    choose(at, "winner", "南家")
    choose(at, "how", "自摸")
    press(at, RECORD)
    assert "這一桌的牌組學了照片上的" in at.success[0].value
    memory = stored(db)  # the damaged memory replaced by what this hand taught
    assert set(truth) <= set(memory.counts()) and len(memory) <= boxed

    other = upload_hand(phone())  # a second phone, after the first recorded: read with the table's memory
    assert not any("用不了" in w.value for w in other.warning)
    read, truth = flowers_read(other)
    assert read == truth


def test_the_teach_page_is_all_simplified(db):
    Ledger(db).change_memory("friday", lambda data: b"not a memory")  # its warning too
    at = ok(phone("simplified").sidebar.radio[0].set_value(PAGE).run())
    assert_simplified(at, "the teach page")
    ok(at.file_uploader(key="teach-upload-0").set_value(("flowers.jpg", PHOTO, "image/jpeg")).run())
    ok(teach_row(at, "pick").set_value(0).run())
    assert teach_row(at, "face").options[-1] == "牌背"
    assert_simplified(at, "the teach page naming a tile")


def test_a_reader_failure_on_the_teach_page_is_said_and_the_page_goes_on(db, monkeypatch):
    class Failing(vision.detector.TileDetector):  # the committed models, failing to read
        def read(self, image, conf=None, memory=None, first=None):
            raise RuntimeError("the model went away")

    monkeypatch.setattr(vision.detector, "TileDetector", Failing)
    at = ok(phone().sidebar.radio[0].set_value(PAGE).run())
    ok(at.file_uploader(key="teach-upload-0").set_value(("flowers.jpg", PHOTO, "image/jpeg")).run())
    assert at.error[0].value == "讀牌時出錯：RuntimeError: the model went away" and not at.session_state["teach_photo"]
    ok(at.file_uploader(key="teach-upload-0").set_value(("not.jpg", b"not a photo", "image/jpeg")).run())
    assert at.error[0].value.startswith("這個檔案不能當照片讀：")
    press(at, "回到台數")
    assert at.sidebar.radio[0].value == "台數"


def test_a_recorded_hand_teaches_its_boxed_tiles_as_confirmed_backs_as_backs_nothing_typed_or_set_apart():
    """What `learn_hand` teaches of a hand: pure, on readings a perfect reader gives (no model)."""
    kong = HAND.replace(melds=(Meld("ankong", ("9s",) * 4),))
    reading = read_detections(laid_out(kong, face_down=True)[0]).best
    draft = reading.draft
    m = next(k for k, meld in enumerate(draft.melds) if meld.kind == "ankong")
    draft = replace_tile(draft, f"meld:{m}", 0, "9s")  # the player names the kong shown as four backs
    draft = replace_tile(draft, "concealed", 0, "9m")  # fixes a tile
    draft = add_tile(draft, "flowers", "2f")  # and types in a flower the photo does not show
    boxes, codes = confirmed_tiles(reading, draft)
    assert len(boxes) == len(codes) == len(reading.shown)  # every box of the hand, the typed flower none
    assert codes == ["9m", *(row.code for row in reading.shown[1:])] and codes.count("back") == 4
    assert "2f" not in codes and (boxes == reading.boxes).all()

    at_a_table = reading_at_a_table(HAND, 4, ["9m", "1z", "back"], {}).best  # three tiles apart, one supposed
    boxes, codes = confirmed_tiles(at_a_table, at_a_table.draft)
    assert len(codes) == len(at_a_table.shown) - len(at_a_table.apart) == len(HAND.all_tiles()) + len(HAND.flowers) - 1
    assert (boxes == at_a_table.boxes[:len(codes)]).all()


def test_the_teach_page_asks_for_a_table_first(db):
    at = ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run())  # no ?table=
    ok(at.sidebar.radio[0].set_value(PAGE).run())
    assert at.info[0].value.startswith("先在「台數」頁開桌") and not at.file_uploader
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["table"] = "nobody"  # a link to the page itself (the main page would open the table)
    at.session_state["page"] = PAGE
    ok(at.run())
    assert at.error[0].value == "這一桌的牌記不了：沒有代號「nobody」的牌桌" and not at.file_uploader


def test_a_table_that_has_taught_nothing_is_asked_first_to_teach_its_flowers(db):
    """The evening benchmark with --taught (docs/decisions/teach-flowers-first.md): a set's eight flowers taught
    before the first hand read better from it. Once the table's memory holds anything, the page no longer asks."""
    at = phone()
    ask = "這副牌還沒教過：開打前把八張花牌排成一排拍一張、點名，花最常讀錯，教一次整晚都用。"
    assert ask in [c.value for c in at.caption]
    press(at, "先教認這副牌的花")
    assert at.title[0].value == "教認這一桌的牌"
    classifier = vision.detector.TileDetector().classifier
    memory = TableMemory.for_classifier(classifier)
    memory.teach(classifier, load_photo(PHOTO), laid_out(HAND)[0].boxes[:1], ["1f"])
    Ledger(db).change_memory("friday", lambda _: memory.to_bytes())
    at = phone()
    assert ask not in [c.value for c in at.caption] and "先教認這副牌的花" not in [b.label for b in at.button]


def test_a_phone_photo_on_the_teach_page_is_read_and_taught_from_the_pixels_the_reader_reads(db):
    data = enlarged((4000, 3000))
    at = phone()
    press(at, "教認這一桌的牌（照片常讀錯時）")
    ok(at.file_uploader(key="teach-upload-0").set_value(("hand.jpg", data, "image/jpeg")).run())
    shown = at.session_state["teach_photo"]
    assert shown["image"].shape == (1500, 2000, 3)  # half its pixels, as the reader decodes it: never all 12 MP
    detector, photo = vision.detector.TileDetector(), open_photo(data)
    reduction, first = detector.look(photo)
    read = detector.read(photo.pixels(2), first=first).boxes
    assert reduction == 2 and sorted(map(tuple, shown["boxes"])) == sorted(map(tuple, read))  # in reading order
    assert shown["picture"].image.shape[1] == SHOWN_WIDTH
