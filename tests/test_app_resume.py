"""A hand in progress given back after a reload (`ui/resume.py`): a reload is a fresh AppTest session at the address
the last one left (`?phone=` beside `?table=`), as a browser's reload or a phone reopening the page is."""

import io
import re

import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

import ui.resume
from ledger import Ledger
from scoring.draft import from_text, remove_tile
from tests.app_driver import box, choose, chosen, ok, press, say_who_won
from tests.example_hands import TYPED
from tests.test_app_script import assert_simplified
from tests.test_app_table import APP, RECORD, db, reads_hand  # noqa: F401 - db, reads_hand: fixtures
from ui.resume import Hand, Shelf
from ui.state import HandState
from ui.table import db_path

RESUMED = "接著剛才的這一手（網頁重新整理或斷線前的）：不是這一手的話，按下面的「清空手牌」。"


def page(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update(query or {})
    return ok(at.run())


def reload(at: AppTest) -> AppTest:
    """The same address opened again: a new session."""
    return page(dict(at.query_params))


def said_resumed(at: AppTest) -> bool:
    return any(i.value == RESUMED for i in at.info)


def photo() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (1200, 700), (40, 110, 60)).save(buf, "JPEG")
    return buf.getvalue()


def typed_hand(at: AppTest) -> AppTest:
    ok(box(at, "text").set_value(TYPED).run())
    choose(at, "winner", "南家")
    choose(at, "how", "西家 放槍")
    choose(at, "dealer", "南家")
    return ok(at.checkbox(key="last_tile").check().run())


def test_a_typed_hand_comes_back_after_a_reload():
    at = typed_hand(page())
    assert re.fullmatch(r"[0-9a-f]{16}", at.query_params["phone"])
    again = reload(at)
    assert said_resumed(again) and again.session_state["hand"].draft == from_text(TYPED)
    assert (chosen(again, "winner"), chosen(again, "how"), chosen(again, "dealer")) == ("南家", "西家 放槍", "南家")
    assert again.checkbox(key="last_tile").value and box(again, "text").value == TYPED
    assert again.metric[0].value == at.metric[0].value
    assert not said_resumed(ok(again.run()))  # said once


@pytest.mark.usefixtures("reads_hand")
def test_a_photo_with_its_fixes_comes_back_and_goes_with_clear():
    at = page()
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", photo(), "image/jpeg")).run())
    say_who_won(at)
    ok(at.pills(key="tiles-concealed-1").set_value(0).run())  # the first tile of the hand, removed
    press(at, "刪除這張")
    fixed = at.session_state["hand"].draft
    assert fixed == remove_tile(at.session_state["photo"].readings[at.session_state["photo"].shown.read.key].best.draft,
                                "concealed", 0)
    again = reload(at)
    assert said_resumed(again) and again.session_state["hand"].draft == fixed  # each tile with its box
    assert again.image and again.session_state["photo"].shown.id == at.session_state["photo"].shown.id
    assert not again.metric and at.error[0].value == again.error[0].value  # one tile short, as before
    press(again, "清空手牌")
    assert not again.image and again.session_state["photo"].shown is None
    assert not said_resumed(after := reload(again)) and after.session_state["hand"].draft.empty and not after.image


@pytest.mark.usefixtures("reads_hand")
def test_a_photo_too_large_to_keep_leaves_the_hand_without_it(monkeypatch):
    monkeypatch.setattr(ui.resume, "MAX_PHOTO", 100)
    at = page()
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", photo(), "image/jpeg")).run())
    say_who_won(at)
    again = reload(at)
    assert said_resumed(again) and not again.image
    assert again.session_state["hand"].draft == at.session_state["hand"].draft
    assert again.metric[0].value == at.metric[0].value


@pytest.mark.usefixtures("db")
def test_a_recorded_hand_is_not_given_back():
    at = typed_hand(page({"table": "friday"}))
    press(at, RECORD)
    again = reload(at)
    assert not said_resumed(again) and again.session_state["hand"].draft.empty and chosen(again, "winner") is None


@pytest.mark.usefixtures("db")
def test_a_hand_given_back_at_a_table_is_checked_as_before_the_reload():
    """Another phone recorded the hand meanwhile: the one given back is still the hand it was entered as (第 1 局),
    so recording it again is refused, not written as 第 2 局."""
    at = typed_hand(page({"table": "friday"}))
    other = page({"table": "friday"})
    ok(box(other, "text").set_value(TYPED).run())
    press(say_who_won(other), RECORD)  # 東家 自摸
    again = reload(at)
    assert said_resumed(again) and "第 1 局" in again.info[0].value
    press(again, RECORD)
    assert any("別的手機剛記了" in w.value for w in again.warning) and len(Ledger(db_path()).hands("friday")) == 1


@pytest.mark.usefixtures("db")
def test_a_hand_is_given_back_only_to_its_phone_at_its_table():
    at = typed_hand(page())
    phone = at.query_params["phone"]
    assert not said_resumed(page())  # another phone (no id yet: one of its own)
    assert not said_resumed(page({"phone": "0" * 16}))
    assert not said_resumed(page({"phone": phone, "table": "friday"}))  # another table
    assert said_resumed(page({"phone": phone}))


@pytest.mark.parametrize("asked", ["", "12345", "0123456789ABCDEF", "0123456789abcdef0", "<b>x</b>"])
def test_a_phone_id_of_another_form_is_replaced(asked):
    at = page({"phone": asked})
    assert re.fullmatch(r"[0-9a-f]{16}", at.query_params["phone"]) and at.query_params["phone"] != asked


def test_the_shelf_keeps_the_latest_phones_and_photos():
    shelf = Shelf(phones=2, photo_bytes=10)
    for phone in "abc":
        shelf.put(phone, Hand(None, HandState(text=phone)))
    assert shelf.get("a") is None and shelf.get("b") and shelf.get("c")
    shelf.put("b", Hand(None, HandState(), photo=b"123456"))  # b kept last now
    shelf.put("d", Hand(None, HandState(), photo=b"123456"))  # 12 bytes of photos: b goes, then c (two phones at most)
    assert (shelf.get("b"), shelf.get("c")) == (None, None) and shelf.get("d")


def test_a_hand_given_back_is_said_in_simplified():
    at = page({"script": "simplified"})
    ok(box(at, "text").set_value(TYPED).run())
    again = reload(at)
    assert any(i.value.startswith("接着刚才的这一手") for i in again.info)
    assert_simplified(again, "a hand given back after a reload")
