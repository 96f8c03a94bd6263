"""The money on every path a player takes at a table (AppTest, two phones on one ledger file): the stakes and
rules the page scores under are the table's, an old hand keeps the ones it was played under, and a phone that
raced another, cancelled an edit or won one discard twice records what it shows."""

import io

import pytest
from PIL import Image

from ledger import Ledger
from scoring.payout import Deal, Result
from scoring.seats import SEATS, Wind
from tests.app_driver import box, choose, chosen, ok, press, radio_of
from tests.example_hands import HAND, TYPED
from tests.test_app_table import (  # noqa: F401 - db, reads_hand: fixtures
    IMPROVED,
    OTHER_TYPED,
    RECORD,
    SET_ASIDE,
    db,
    enter,
    paid,
    paid_together,
    phone,
    reads_hand,
    shown_deal,
    totals_shown,
    typed,
    win_as,
)
from ui.result import signed
from ui.table import db_path

pytestmark = pytest.mark.usefixtures("db")
E, S, W, N = SEATS
DEFAULT = "tw16-2026.09-p0"
PROMPT = "先拍照、上傳照片，或輸入手牌（也可以在下面點牌）。"


def book() -> Ledger:
    """The ledger file both phones share (the `db` fixture's)."""
    return Ledger(db_path())


def stakes_shown(at) -> tuple[int, int, str]:
    return box(at, "base").value, box(at, "per_tai").value, box(at, "ruleset").value


def test_the_stakes_are_the_tables_after_the_teach_page():
    """Back from the teach page, the page scores at the table's 底 and 每台, whatever the session kept of the
    boxes while they were not drawn (a Streamlit that drops a hidden widget's value showed 底 0 and 每台 0)."""
    book().open_table("friday", 50, 10)
    at = phone()
    press(at, "先教認這副牌的花")
    at.session_state["hand"].take_stakes(0, 0)
    press(at, "回到台數")
    assert stakes_shown(at) == (50, 10, DEFAULT)
    win_as(at, "東家")
    assert book().hands("friday")[0].line.net == paid(HAND, Result(Deal(), E), 50, 10)


def test_stakes_changed_on_one_phone_are_the_tables_on_every_phone():
    """③'s 每台 changed on B while A enters a hand: it is the table's, and A's hand is scored and recorded at it."""
    a, b = phone(), phone()
    enter(a, "東家")
    ok(box(b, "per_tai").set_value(50).run())
    assert book().state("friday").table.per_tai == 50
    ok(a.run())
    assert stakes_shown(a) == (100, 50, DEFAULT) == stakes_shown(b)
    press(a, RECORD)
    assert book().hands("friday")[0].line.net == paid(HAND, Result(Deal(), E), 100, 50)


def test_an_old_hand_is_edited_under_the_rules_and_stakes_it_was_played_under():
    """Hand 1 was played at the default table, 100 and 20; the table has since moved to 改良式 at 每台 50. Editing
    hand 1 scores it as it was played (the ledger names the default table by its id, `tw16/2026.09-p0`); 加一家 is
    not offered for it (one winner a discard there); once the edit is done the page is at the table's again."""
    at = phone()
    win_as(at, "南家", "西家 放槍")
    [played] = book().hands("friday")
    assert played.line.ruleset == "tw16/2026.09-p0"
    book().change_stakes("friday", 100, 50, IMPROVED)
    ok(at.run())
    assert stakes_shown(at) == (100, 50, IMPROVED)
    assert not any("加一家" in b.label for b in at.button)
    assert totals_by_seat(at) == played.line.net  # the evening's totals are the lines as played
    press(at, "修改這一局")
    assert stakes_shown(at) == (100, 20, DEFAULT)
    assert at.metric[0].value == f"{played.line.total} 台"
    press(at, "更新這一局")
    [edited] = book().hands("friday")
    assert edited.edited_at and edited.line.same_hand(played.line)
    assert stakes_shown(at) == (100, 50, IMPROVED) and book().state("friday").table.per_tai == 50
    assert totals_by_seat(at) == played.line.net


def totals_by_seat(at) -> tuple[int, ...]:
    totals = {r["玩家"]: r["合計"] for r in totals_shown(at)}
    return tuple(totals[s.zh] for s in SEATS)


def test_a_false_win_is_edited_at_the_stakes_it_was_played_at():
    """A 詐胡 pays its 台 × 每台 (no 底): edited after the table went from 每台 20 to 50, it still pays at 20."""
    book().open_table("friday", ruleset=IMPROVED)
    at = phone()
    press(at, "詐胡")
    choose(at, "false_win_caller", "北家")
    ok(at.number_input(key="false_win_claimed").set_value(8).run())
    press(at, "確定記下詐胡")
    [played] = book().hands("friday")
    assert played.line.net == (160, 160, 160, -480)
    book().change_stakes("friday", 100, 50, IMPROVED)
    ok(at.run())
    press(at, "修改這一局")
    form = next(t.value for t in at.table if "為什麼" in t.value.columns)  # the 詐胡 form's payments
    assert list(form["金額"]) == [160, 160, 160]
    press(at, "確定記下詐胡")
    assert book().hands("friday")[0].line.net == played.line.net


def stale(before):
    """The widget values a browser sends while it still shows the page as drawn `before` (it has not drawn the runs
    since; Streamlit keeps the callbacks of the widgets they replaced). A tap was sent once: no button is pressed
    again."""
    states = type(before)()
    states.widgets.extend(w for w in before.widgets if w.WhichOneof("value") != "trigger_value")
    return states


def test_a_request_sent_before_the_page_moved_to_the_next_deal_does_not_move_it_back():
    """Both phones record hand 1 (南家 off 西家: 南家 deals next). B's browser still holds its page as drawn before
    its record when it sends its next request (the table's watch ticks every few seconds): the radios of that
    page, replaced since, must not set the deal back. It did: B recorded its next hand under 東家's deal."""
    a, b = phone(), phone()
    enter(a, "南家", "西家 放槍")
    enter(b, "南家", "西家 放槍")
    press(a, RECORD)
    before = b._tree.get_widget_states()  # what B's browser holds until it has drawn B's next run
    press(b, RECORD)
    assert len(book().hands("friday")) == 1 and shown_deal(b) == Deal(Wind.E, S, 0)
    ok(b._run(stale(before)))
    assert shown_deal(b) == Deal(Wind.E, S, 0)
    assert b.info[0].value == "牌桌 friday · 第 2 局 · 東風圈 · 莊家 南家"
    assert b.session_state["hand"].draft.empty  # nor is the hand it recorded typed in again (one tap from twice)
    win_as(b, "北家")
    assert book().hands("friday")[1].line.deal == Deal(Wind.E, S, 0)


def test_a_request_sent_before_the_page_showed_the_streak_and_stakes_does_not_set_them_back():
    """B's browser, still showing the page drawn before A recorded 東家's self-draw (連莊 0 → 1) and changed the
    table's 每台 (20 → 50), sends a request: its boxes, replaced since, set neither 連莊 nor 每台 back (B would have
    recorded its next hand at 連莊 0, and written 每台 20 back to the table)."""
    a, b = phone(), phone()
    before = b._tree.get_widget_states()
    win_as(a, "東家")
    ok(box(a, "per_tai").set_value(50).run())
    ok(b.run())
    assert box(b, "streak").value == 1 and box(b, "per_tai").value == 50
    ok(b._run(stale(before)))
    assert box(b, "streak").value == 1 and box(b, "per_tai").value == 50
    assert book().state("friday").table.per_tai == 50 and b.session_state["hand"].streak == 1


def test_a_cancelled_edit_leaves_the_page_at_the_next_hand_empty():
    at = phone()
    win_as(at, "南家", "西家 放槍")
    win_as(at, "西家")
    before = at.info[0].value
    ok(at.selectbox(key="table_edit_pick").set_value(1).run())
    press(at, "修改這一局")
    press(at, "取消修改")
    assert at.session_state["hand"].draft.empty and (chosen(at, "winner"), chosen(at, "how")) == (None, None)
    assert at.info[0].value == before and shown_deal(at) == Deal(Wind.E, W, 0)
    assert not any(b.label == RECORD for b in at.button)


def lost_race():
    """A records 南家 off 東家 as hand 1; B, behind, has 西家 self-drawing: B loses the race, its hand kept."""
    a, b = phone(), phone()
    enter(a, "南家", "東家 放槍")
    enter(b, "西家")
    press(a, RECORD)
    press(b, RECORD)
    assert "別的手機剛記了第 1 局" in b.warning[0].value and chosen(b, "winner") == "西家"
    return b


def test_after_a_lost_race_a_cleared_hand_starts_afresh():
    b = lost_race()
    press(b, "清空手牌")
    assert not b.warning and (chosen(b, "winner"), chosen(b, "how")) == (None, None)


@pytest.mark.usefixtures("reads_hand")
def test_after_a_lost_race_a_new_photo_starts_afresh():
    b = lost_race()
    photo = io.BytesIO()
    Image.new("RGB", (1200, 700), (40, 110, 60)).save(photo, "JPEG")
    ok(b.file_uploader(key="upload-0").set_value(("hand.jpg", photo.getvalue(), "image/jpeg")).run())
    assert not b.warning and (chosen(b, "winner"), chosen(b, "how")) == (None, None) and not b.metric


def test_one_discard_won_twice_shows_both_winners_money_and_offers_neither_as_its_dealer():
    book().open_table("friday", ruleset=IMPROVED)
    at = phone()
    typed(at, TYPED, "北家", "西家 放槍")
    press(at, SET_ASIDE)
    assert not [o for o in radio_of(at, "how").options if o.startswith("北家") or o == "自摸"]
    assert not [o for o in radio_of(at, "winner").options if o.startswith("北家")]
    typed(at, OTHER_TYPED, "東家")
    net = paid_together(Deal(), W, (TYPED, N), (OTHER_TYPED, E))
    top = at.markdown[0].value
    assert top.startswith("**北家、東家 胡 西家") and top.endswith(
        " · ".join(f"{s.zh} {signed(n)}" for s, n in zip(SEATS, net, strict=True)))
    press(at, RECORD)
    assert book().hands("friday")[0].line.net == net


def test_the_penalty_and_false_win_forms_say_what_they_are_at_the_top():
    book().open_table("friday", ruleset=IMPROVED)
    at = phone()
    assert at.markdown[0].value == PROMPT
    press(at, "罰款")
    assert at.markdown[0].value == "第 1 局：罰款（在下面填）"
    press(at, "不記罰款")
    press(at, "詐胡")
    assert at.markdown[0].value == "第 1 局：詐胡（在下面填）"
