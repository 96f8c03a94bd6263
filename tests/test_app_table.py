"""The table's ledger in the app (AppTest, `?table=` and a real SQLite file per test) and its
screen helpers (`ui/table.py`). A phone here is an AppTest session: two of them are two phones."""

import json
import sqlite3
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import ledger.store
import ui.result
from ledger import Ledger, draw, penalty, win
from scoring.draft import to_hand
from scoring.hand import Hand
from scoring.payout import Deal, Result, judge, seat_hand
from scoring.seats import SEATS, Seat, Wind
from tests.app_driver import box, choose, chosen, ok, press, say_who_won
from tests.example_hands import HAND, TYPED
from ui.state import Desk
from ui.table import DB_ENV, chart_columns, clean_name, hand_rows, qr_png, table_link, totals_rows
from ui.table_desk import settings_version

APP = Path(__file__).resolve().parents[1] / "app.py"
E, S, W, N = SEATS
RECORD, DRAW, SURE_DRAW = "胡了，記下這一局", "流局（沒人胡）", "確定流局"


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "taishu.db"
    monkeypatch.setenv(DB_ENV, str(path))
    return path


def phone(code="friday"):
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["table"] = code
    return ok(at.run())


def enter(at, winner: str, how: str = "自摸"):
    """Type HAND, won by seat `winner` (東家 …), self-drawn or off `how` (e.g. 西家 放槍)."""
    if box(at, "text").value == TYPED:  # still there from the last hand, which was cleared
        press(at, "讀入文字")
    else:
        ok(box(at, "text").set_value(TYPED).run())
    choose(at, "winner", winner)
    return choose(at, "how", how)


def win_as(at, winner: str, how: str = "自摸"):
    return press(enter(at, winner, how), RECORD)


def totals_shown(at) -> list[dict]:
    """The evening's totals table (the hands' table beside it has no 玩家 column)."""
    return next(t.value for t in at.table if "玩家" in t.value.columns).to_dict("records")


def shown_deal(at) -> Deal:
    dealer = next(s for s in SEATS if chosen(at, "dealer").startswith(s.zh))
    return Deal(Wind(next(w for w in Wind if chosen(at, "round").startswith(w.zh))), dealer,
                box(at, "streak").value)


def paid(hand: Hand, result: Result, base=100, per_tai=20) -> tuple[int, ...]:
    """What the hand pays by seat, worked out apart from the page."""
    return judge(seat_hand(hand, result, base, per_tai), result).payout.nets


def test_the_app_fills_in_the_next_deal_and_keeps_working_after_it_passes(db):
    """東家 deals and wins (連莊 1); 流局, asked first (連莊 2); 南家 wins: the deal passes, and the
    page goes on working on every tap (it broke here: the 門風 radio handed back an old label)."""
    at = phone()
    assert shown_deal(at) == Deal() and "牌桌 friday · 第 1 局 · 東風圈 · 莊家 東家" == at.info[0].value
    win_as(at, "東家")
    assert shown_deal(at) == Deal(Wind.E, E, 1) and at.session_state["hand"].draft.empty
    assert chosen(at, "winner") is None  # who won the next hand is said again, not carried over
    press(at, DRAW)
    assert "確定第 2 局是流局" in at.warning[0].value and len(Ledger(db).hands("friday")) == 1  # asked first
    press(at, "不是流局")
    assert len(Ledger(db).hands("friday")) == 1
    press(at, DRAW)
    press(at, SURE_DRAW)
    assert shown_deal(at) == Deal(Wind.E, E, 2)
    win_as(at, "南家", "西家 放槍")
    assert shown_deal(at) == Deal(Wind.E, S, 0)
    enter(at, "北家")  # taps after the deal passed
    choose(at, "dealer", "南家")
    ok(at.checkbox(key="last_tile").check().run())
    assert at.metric and not at.error
    [first, second, third] = Ledger(db).hands("friday")
    assert (first.line.winner, second.line.winner, third.line.winner) == (E, None, S)
    assert third.line.net == paid(HAND, Result(Deal(Wind.E, E, 2), S, W))


def test_payments_are_by_seat_and_the_page_never_asks_a_wind(db):
    """南家 deals; 西家 wins off 東家: 門風 北 is said, not asked, and 東家 alone pays."""
    at = phone()
    win_as(at, "南家")  # the deal goes to 南家
    enter(at, "西家", "東家 放槍")
    assert any("門風（由胡牌的人和莊家決定）：南" in c.value for c in at.caption)  # 南家 deals: 西家 is 南
    payers = at.table[1].value.to_dict("records")
    expected = paid(HAND, Result(Deal(Wind.E, S, 0), W, E))
    assert [p["誰付"] for p in payers] == ["東家"] and payers[0]["金額"] == -expected[0]
    press(at, RECORD)
    second = Ledger(db).hands("friday")[1].line
    assert (second.winner, second.discarder, json.loads(second.hand)["seat"]) == (W, E, "S") and second.net == expected
    totals = {r["玩家"]: r["合計"] for r in totals_shown(at)}
    first = Ledger(db).hands("friday")[0].line.net
    assert totals == {s.zh: first[i] + second.net[i] for i, s in enumerate(SEATS)}


def test_the_evening_chart_names_four_players_two_a_line():
    """At a phone's 390 px a legend of four seats with names in one line cut off the fourth."""
    from ui.chart import evening_chart

    spec = evening_chart({"局": [0, 1], "東家 阿明": [0, 5], "南家 阿華": [0, -5], "西家 小芳": [0, 0],
                          "北家 大雄": [0, 0]}, "traditional").to_dict()
    assert spec["encoding"]["color"]["legend"] == {"orient": "bottom", "columns": 2}


def test_no_one_is_paid_until_the_players_say_who_won(db):
    """The first hand of an evening, like every later one, names no winner by itself: a hand recorded
    without a word from the players would pay 東家."""
    at = phone()
    ok(box(at, "text").set_value(TYPED).run())
    assert (chosen(at, "winner"), chosen(at, "how")) == (None, None)
    assert not at.metric and any(m.value == "選出誰胡了" for m in at.markdown)
    assert not [b for b in at.button if b.label == RECORD]
    choose(at, "winner", "西家")
    assert not at.metric and any(m.value == "選出自摸還是誰放槍" for m in at.markdown)
    press(choose(at, "how", "自摸"), RECORD)
    assert [h.line.winner for h in Ledger(db).hands("friday")] == [Seat.W]


def test_without_a_table_the_dealer_is_a_seat_and_the_winner_too():
    """莊家 南家 and 東家 winning: 東家 wins (it scored 東家 as the winner of 門風 東 before)."""
    at = ok(AppTest.from_file(str(APP), default_timeout=60).run())
    ok(box(at, "text").set_value(TYPED).run())
    say_who_won(at, "東家", "自摸")
    choose(at, "dealer", "南家")
    payers = at.table[1].value.to_dict("records")
    expected = paid(HAND, Result(Deal(Wind.E, S, 0), E))
    assert sorted((p["誰付"], p["金額"]) for p in payers) == sorted(
        (s.zh, -n) for s, n in zip(SEATS, expected, strict=True) if n < 0)
    assert at.caption[-1].value.startswith(f"東家 +{expected[0]}")


def test_an_edit_loads_every_field_and_changes_only_what_is_changed(db):
    """Hand 1: 南家 won off 西家 in the 東 round with 海底; editing only its discarder keeps the rest."""
    at = phone()
    enter(at, "南家", "西家 放槍")
    ok(at.checkbox(key="last_tile").check().run())
    press(at, RECORD)
    win_as(at, "北家")
    ok(at.selectbox(key="table_edit_pick").set_value(1).run())
    press(at, "修改這一局")
    assert any("修改第 1 局" in m.value for m in at.markdown)
    assert at.info[0].value == "牌桌 friday · 修改第 1 局 · 東風圈 · 莊家 東家"  # not the next hand's line
    assert (chosen(at, "winner"), chosen(at, "how"), chosen(at, "round")) == ("南家", "西家 放槍", "東風圈")
    assert shown_deal(at) == Deal() and at.checkbox(key="last_tile").value
    assert to_hand(at.session_state["hand"].draft, HAND.situation) == HAND
    choose(at, "how", "北家 放槍")
    press(at, "更新這一局")
    [first, second] = Ledger(db).hands("friday")
    assert first.edited_at and (first.line.winner, first.line.discarder, first.line.deal) == (S, N, Deal())
    assert json.loads(first.line.hand)["last_tile"] and first.line.net == paid(HAND.replace(last_tile=True),
                                                                     Result(Deal(), S, N))
    assert shown_deal(at) == Deal(Wind.E, W, 0)  # the next deal again (after 北家 won hand 2), the edit done


def test_an_edit_keeps_the_photo_of_the_hand(db):
    phone()
    line = win(judge(seat_hand(HAND, Result(Deal(), E), 100, 20), Result(Deal(), E)), "photo-1")
    Ledger(db).record("friday", line, 1)  # recorded with its photo (as from another phone)
    at = phone()
    press(at, "修改這一局")
    press(at, "更新這一局")
    assert Ledger(db).hands("friday")[0].line.photo_id == "photo-1"


def test_undo_asks_first_and_names_the_hand(db):
    at = phone()
    win_as(at, "東家")
    win_as(at, "東家")
    press(at, "刪掉最後一局（第 2 局）")
    assert "確定刪掉第 2 局" in at.warning[0].value and len(Ledger(db).hands("friday")) == 2
    press(at, "不要刪")
    press(at, "刪掉最後一局（第 2 局）")
    press(at, "確定刪掉")
    assert len(Ledger(db).hands("friday")) == 1 and shown_deal(at) == Deal(Wind.E, E, 1)


def test_a_stale_undo_does_not_delete_another_phones_hand(db):
    """B shows hand 2; A undoes it and records a corrected hand 2; B's undo is refused."""
    a = phone()
    win_as(a, "東家")
    win_as(a, "南家", "西家 放槍")
    b = phone()
    press(b, "刪掉最後一局（第 2 局）")  # asked, not yet sure
    press(a, "刪掉最後一局（第 2 局）")
    press(a, "確定刪掉")
    win_as(a, "北家", "西家 放槍")
    press(b, "確定刪掉")  # its page showed the old hand 2
    hands = Ledger(db).hands("friday")
    assert [h.line.winner for h in hands] == [E, N]  # A's corrected hand stays
    assert any("別的手機" in w.value or "沒有刪掉" in w.value for w in b.warning)
    assert not b.exception


def test_a_delete_asked_before_another_phone_recorded_a_hand_says_so(db):
    """B asks to delete hand 2, the last; A records hand 3; B is told why nothing was deleted."""
    a = phone()
    win_as(a, "東家")
    win_as(a, "南家", "西家 放槍")
    b = phone()
    press(b, "刪掉最後一局（第 2 局）")
    win_as(a, "西家")
    ok(b.run())
    assert any("別的手機剛記了第 3 局，第 2 局已經不是最後一局，這裡沒有刪掉任何一局" in w.value for w in b.warning)
    assert len(Ledger(db).hands("friday")) == 3 and "刪掉最後一局（第 3 局）" in [x.label for x in b.button]


def test_a_draw_asked_before_another_phone_recorded_the_hand_is_asked_again(db):
    """B asks whether hand 1 was a 流局; A records hand 1 as a win; B is told, and its next 流局 is hand 2."""
    a, b = phone(), phone()
    press(b, DRAW)
    assert any("確定第 1 局是流局" in w.value for w in b.warning)
    win_as(a, "南家", "西家 放槍")
    ok(b.run())
    assert any("按「流局」時是第 1 局，別的手機已經記到第 1 局：沒有記流局" in w.value for w in b.warning)
    assert not any("確定第" in w.value for w in b.warning) and len(Ledger(db).hands("friday")) == 1
    press(b, DRAW)
    press(b, SURE_DRAW)
    assert [h.line.winner for h in Ledger(db).hands("friday")] == [S, None]


def test_a_draw_asked_while_another_phone_records_a_penalty_stays_for_the_hand_still_played(db):
    """B asks whether hand 1 was a 流局; A records a 罰款 as line 1 (no hand played: the deal stays): B's question
    stays, now for line 2, and records the 流局 there (it used to be dropped as though the hand had been recorded)."""
    b = phone()
    press(b, DRAW)
    led = Ledger(db)
    deal = led.state("friday").next_deal
    led.record("friday", penalty(deal, (0, -200, 0, 0), "遲到"), 1)  # the other phone
    ok(b.run())  # the watch's run
    assert any("確定第 2 局是流局" in w.value for w in b.warning)
    assert not any("沒有記流局" in w.value for w in b.warning)
    press(b, SURE_DRAW)
    fine, drawn = Ledger(db).hands("friday")
    assert fine.line.reason == "遲到" and drawn.seq == 2 and drawn.line.winner is None and drawn.line.deal == deal


def test_an_edit_that_changes_who_deals_next_names_the_hand_to_check(db):
    """Hand 1 was 東家's self-draw (東家 deals hand 2 again, 連莊 1); edited to 南家's, the deal would have passed:
    hand 2 keeps the deal it was played under, and the player is told to check it."""
    at = phone()
    win_as(at, "東家")
    win_as(at, "西家", "北家 放槍")
    ok(at.selectbox(key="table_edit_pick").set_value(1).run())
    press(at, "修改這一局")
    choose(at, "how", "北家 放槍")  # still 東家's win: the deal after it is the same
    press(at, "更新這一局")
    assert not at.warning
    ok(at.selectbox(key="table_edit_pick").set_value(1).run())
    press(at, "修改這一局")
    choose(at, "winner", "南家")
    press(at, "更新這一局")
    assert [h.line.deal for h in Ledger(db).hands("friday")] == [Deal(), Deal(Wind.E, E, 1)]
    assert any("第 2 局記的是 東風圈 · 莊家 東家 · 連莊 1，照改過的第 1 局該是 東風圈 · 莊家 南家" in w.value
               for w in at.warning)


def test_the_hand_to_edit_is_the_newest_until_one_is_picked(db):
    a = phone()
    win_as(a, "東家")
    win_as(a, "南家")
    assert a.selectbox(key="table_edit_pick").value == 2
    b = phone()
    win_as(b, "西家")
    ok(a.run())
    assert a.selectbox(key="table_edit_pick").value == 3  # another phone's hand: the picker moved to it
    ok(a.selectbox(key="table_edit_pick").set_value(1).run())
    press(a, "刪掉最後一局（第 3 局）")
    assert a.selectbox(key="table_edit_pick").value == 1  # picked: kept while the evening stays as it is


def test_a_stale_edit_does_not_overwrite_a_hand_changed_meanwhile(db):
    a = phone()
    win_as(a, "東家")
    b = phone()
    press(b, "修改這一局")  # B starts editing hand 1
    press(a, "修改這一局")
    choose(a, "how", "西家 放槍")
    press(a, "更新這一局")  # A edits it first
    choose(b, "winner", "南家")
    press(b, "更新這一局")
    [hand] = Ledger(db).hands("friday")
    assert (hand.line.winner, hand.line.discarder) == (E, W)  # A's edit stands
    assert any("你的修改沒有存" in w.value for w in b.warning)
    assert to_hand(b.session_state["hand"].draft, HAND.situation) == HAND  # B's tiles are still there


def test_two_phones_confirming_one_hand_record_it_once(db):
    a, b = phone(), phone()
    enter(a, "東家")
    enter(b, "東家")
    press(a, RECORD)
    choose(b, "how", "北家 放槍")
    choose(b, "how", "自摸")  # phone b looks again: the ledger moved on
    assert any("別的手機剛改了帳" in c.value for c in b.caption)
    assert shown_deal(b) == Deal()  # its hand keeps the deal it was played under
    press(b, RECORD)  # the same hand: kept once
    assert len(Ledger(db).hands("friday")) == 1 and b.success[0].value.startswith("第 1 局記好了")
    assert b.session_state["hand"].draft.empty and shown_deal(b) == Deal(Wind.E, E, 1)


def test_a_phone_behind_the_ledger_keeps_its_winner_and_says_what_changed(db):
    """A records hand 1 (南家 off 東家); B, behind, has 西家 self-drawing: refused, its hand kept with
    the same winner under the new deal (南家 deals now), and the message names the changes."""
    a, b = phone(), phone()
    enter(a, "南家", "東家 放槍")
    enter(b, "西家")
    press(a, RECORD)
    press(b, RECORD)
    message = b.warning[0].value
    assert "別的手機剛記了第 1 局" in message and "南家 胡 東家" in message
    assert "莊家 東家→南家" in message and "胡的人還是 西家" in message
    before, after = paid(HAND, Result(Deal(), W)), paid(HAND, Result(Deal(Wind.E, S, 0), W))
    assert f"台數 {judge(seat_hand(HAND, Result(Deal(), W), 100, 20), Result(Deal(), W)).score.total}→" in message
    assert before != after and to_hand(b.session_state["hand"].draft, HAND.situation) == HAND
    assert chosen(b, "winner") == "西家" and shown_deal(b) == Deal(Wind.E, S, 0)
    press(b, RECORD)  # looked at it: record it as hand 2, under 西家
    assert [(h.line.winner, h.line.net) for h in Ledger(db).hands("friday")][1] == (W, after)


def test_a_phone_behind_a_damaged_last_hand_is_told_and_keeps_its_hand(db):
    """The hand another phone recorded meanwhile no longer reads back (its money damaged in the file): the
    phone behind is refused as before, without that hand's words, and keeps its hand."""
    a, b = phone(), phone()
    enter(a, "南家", "東家 放槍")
    enter(b, "西家")
    press(a, RECORD)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE hands SET net = 'not money' WHERE table_code = 'friday' AND seq = 1")
    press(b, RECORD)
    assert any("別的手機" in w.value for w in b.warning) and not b.exception
    assert to_hand(b.session_state["hand"].draft, HAND.situation) == HAND and chosen(b, "winner") == "西家"


def test_names_saved_mid_evening_keep_both_phones_working(db):
    a, b = phone(), phone()
    enter(b, "南家")
    form = settings_version(Desk(Ledger(db), Ledger(db).state("friday")))
    a.text_input(key=f"name-E-{form}").set_value("阿明 **粗體**")
    a.text_input(key=f"name-S-{form}").set_value("阿華")
    a.number_input(key=f"per-tai-{form}").set_value(50)
    press(a, "儲存牌桌設定")
    table = Ledger(db).state("friday").table
    assert table.names == ("阿明 粗體", "阿華", "", "") and table.per_tai == 50
    assert box(a, "per_tai").value == 50 and "莊家 東家 阿明 粗體" in a.info[0].value
    choose(a, "winner", "南家")  # the labels now carry the names
    assert chosen(a, "winner") == "南家 阿華"
    choose(b, "how", "東家 放槍")  # the other phone, on its next taps
    choose(b, "winner", "西家")
    assert chosen(b, "how") == "東家 阿明 粗體 放槍" and not b.exception


def test_a_meld_turned_into_a_kong_takes_the_tile_the_photo_set_apart(db):
    """碰 → 明槓 when the photo shows the fourth tile set apart: that tile, with its box, once."""
    from dataclasses import replace

    from scoring.draft import set_meld_kind
    from tests.fake_detections import reading_at_a_table
    from ui.photo import spare_for, still_apart

    reading = reading_at_a_table(HAND, 4, ["7z", "1z", "back"], {}).best
    draft = reading.draft
    spare = spare_for(reading, draft, 0, "kong")
    assert reading.row(spare).code == "7z" and spare in still_apart(reading, draft)
    kong = set_meld_kind(draft, 0, "kong", spare)
    assert [s.code for s in kong.melds[0].tiles] == ["7z"] * 4 and kong.melds[0].tiles[-1].det == spare
    assert spare not in still_apart(reading, kong)  # no longer offered apart
    assert spare_for(reading, kong, 0, "kong") is None  # four tiles: nothing more to add
    assert len(set_meld_kind(kong, 0, "kong", spare).melds[0].tiles) == 4  # never a five-tile kong
    again = set_meld_kind(replace(kong, melds=(replace(kong.melds[0], tiles=kong.melds[0].tiles[:3]),)), 0, "kong",
                          spare)
    assert again.melds[0].tiles[-1].det == spare
    apart = reading_at_a_table(HAND, 4, ["9m", "1z", "back"], {}).best  # no 7z set apart: a tile without a box
    plain = apart.draft
    assert set_meld_kind(plain, 0, "kong", spare_for(apart, plain, 0, "kong")).melds[0].tiles[-1].det is None


def test_a_damaged_row_is_reported_and_the_evening_still_adds_up(db):
    at = phone()
    win_as(at, "東家")
    win_as(at, "南家", "東家 放槍")
    win_as(at, "南家")
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE hands SET net = '[1, 2' WHERE seq = 2")
    at = phone()
    assert any("第 2 局" in w.value for w in at.warning) and not at.exception and not at.error
    hands = Ledger(db).state("friday").hands
    totals = {r["玩家"]: r["合計"] for r in totals_shown(at)}
    assert totals == {s.zh: sum(h.line.net[i] for h in hands) for i, s in enumerate(SEATS)}
    other = Ledger(db)  # a write to another table right after (the failed read holds nothing open)
    other.open_table("saturday")
    other.record("saturday", draw(Deal()), 1)


def test_a_long_evening_is_not_read_again_on_every_tap(db, monkeypatch):
    led = Ledger(db)
    led.open_table("friday")
    for seq in range(1, 301):
        led.record("friday", draw(Deal(Wind.E, E, (seq - 1) % 90)), seq)
    reads = []
    real = ledger.store.Ledger.state
    monkeypatch.setattr(ledger.store.Ledger, "state", lambda self, code: reads.append(code) or real(self, code))
    at = phone()
    assert len(reads) == 1
    start = time.perf_counter()
    ok(box(at, "text").set_value(TYPED).run())
    choose(at, "winner", "南家")
    choose(at, "how", "北家 放槍")
    assert len(reads) == 1, "a tap read the whole evening again"
    assert time.perf_counter() - start < 20
    press(at, RECORD)
    assert len(reads) == 2 and len(Ledger(db).hands("friday")) == 301


def test_a_bad_code_or_ledger_gets_a_message_and_the_hand_still_scores(db, monkeypatch):
    at = phone("../etc")
    assert "牌桌代號「？？？etc」不能用" in at.error[0].value
    at = phone("[x](https://example.com)")
    assert "牌桌代號「？x？？https？？？example？com？」不能用" in at.error[0].value  # no link back to the page
    at = phone("friday\u200b")  # a zero-width space a chat app added to the link: folded away
    assert not at.error and at.info[0].value.startswith("牌桌 friday · 第 1 局")
    db.write_bytes(b"not a database at all" * 50)
    at = phone()
    assert "不是 SQLite 資料庫" in at.error[0].value
    say_who_won(ok(box(at, "text").set_value(TYPED).run()))
    assert at.metric[0].value.endswith("台")


def test_a_locked_ledger_keeps_the_hand(db, monkeypatch):
    at = phone()
    monkeypatch.setattr(ledger.store, "BUSY_TIMEOUT_S", 0.2)
    say_who_won(ok(box(at, "text").set_value(TYPED).run()))
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program writing: reads go on, writes wait
    try:
        press(at, RECORD)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert any("沒有記進牌桌（這一手還在）" in e.value and "鎖住" in e.value for e in at.error)
    assert to_hand(at.session_state["hand"].draft, HAND.situation) == HAND and not Ledger(db).hands("friday")
    press(at, RECORD)
    assert len(Ledger(db).hands("friday")) == 1


@pytest.fixture
def reads_hand(monkeypatch):
    """Every photo read as HAND laid out (the app's detector, cached per process, made afresh before and after)."""
    import streamlit as st

    import vision.detector
    from tests.fake_detections import laid_out

    class Detector:
        def read(self, image):
            return laid_out(HAND)[0]

    monkeypatch.setattr(vision.detector, "TileDetector", Detector)
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


def test_the_uploader_is_cleared_once_a_hand_is_recorded(db, reads_hand):
    """The next hand, typed, is not recorded with the last hand's photo."""
    import io

    from PIL import Image

    at = phone()
    buf = io.BytesIO()
    Image.new("RGB", (1200, 700), (40, 110, 60)).save(buf, "JPEG")
    ok(at.file_uploader(key="upload-0").set_value(("hand.jpg", buf.getvalue(), "image/jpeg")).run())
    choose(at, "winner", "東家")
    choose(at, "how", "自摸")
    press(at, RECORD)
    assert Ledger(db).hands("friday")[0].line.photo_id
    assert not [u for u in at.file_uploader if u.key == "upload-0"] and not at.image
    win_as(at, "東家")
    assert Ledger(db).hands("friday")[1].line.photo_id is None


# -- screen helpers ----------------------------------------------------------------------------------
def test_the_link_and_its_qr_code():
    link = table_link("http://192.168.1.20:8501/", "friday")
    assert link == "http://192.168.1.20:8501/?table=friday"
    assert table_link("http://host:8501/app?x=1#top", "a-1") == "http://host:8501/app?table=a-1"
    assert table_link(None, "friday") is None
    image = cv2.imdecode(np.frombuffer(qr_png(link), np.uint8), cv2.IMREAD_COLOR)
    assert cv2.QRCodeDetector().detectAndDecode(image)[0] == link


def test_names_from_the_page_are_cleaned():
    assert clean_name("  阿明  ") == "阿明"
    assert clean_name("<b>Bob</b>[x](javascript:1)") == "bBobbxjavascript1"[:12]
    assert clean_name("a\x00b\nc") == "abc" and len(clean_name("名" * 40)) == 12


def test_the_evening_as_rows(tmp_path):
    led = Ledger(tmp_path / "taishu.db")
    led.open_table("t")
    table = led.update_table("t", ("阿明", "", "", ""), Seat.E, 100, 20, "tw16-2026.09-p0")
    first = led.record("t", draw(Deal()), 1)
    led.record("t", draw(Deal(Wind.E, E, 1)), 2)
    led.edit("t", 1, draw(Deal()), first.revision)
    hands = led.hands("t")
    rows = hand_rows(table, hands, "traditional")
    assert [r["局"] for r in rows] == [2, 1] and rows[0]["莊家"] == "東家 連1" and rows[1]["結果"] == "流局（改過）"
    assert list(rows[0])[4:] == ["東家 阿明", "南家", "西家", "北家"]
    assert chart_columns(table, hands, "simplified") == {"局": [0, 1, 2], "东家 阿明": [0, 0, 0], "南家": [0, 0, 0],
                                                          "西家": [0, 0, 0], "北家": [0, 0, 0]}
    assert totals_rows(table, hands, "traditional")[0] == {"玩家": "東家 阿明", "合計": 0}


# -- several winners, 詐胡, penalties --------------------------------------------------------
IMPROVED = "tw16-improved"  # 「無攔胡，放槍幾家付幾家」, 「詐胡通賠三家」
OTHER_TYPED = "123456p 789m 2345s 和5s 碰666z"  # wins on HAND's 5s too
SET_ASIDE = "這張牌還有別家胡（一炮多響）：先放著這一家，輸入下一家的牌"


def improved_phone(db):
    Ledger(db).open_table("friday", ruleset=IMPROVED)
    return phone()


def typed(at, text: str, winner: str, how: str | None = None):
    ok(box(at, "text").set_value(text).run())
    choose(at, "winner", winner)
    return at if how is None else choose(at, "how", how)


def paid_together(deal: Deal, discarder, *wins) -> tuple[int, ...]:
    """One discard won by each (typed hand, seat), worked out apart from the page."""
    from scoring.draft import from_text
    from scoring.payout import judge_several

    results = [Result(deal, seat, discarder) for _, seat in wins]
    return judge_several([(seat_hand(to_hand(from_text(text), HAND.situation), r, 100, 20), r)
                          for (text, _), r in zip(wins, results, strict=True)], IMPROVED).nets


def test_several_winners_of_one_discard_are_recorded_as_one_hand_and_the_dealer_keeps_the_deal(db):
    """東家 deals; 北家 wins off 西家, set aside; 東家 wins the same tile: one hand, the dealer keeps the deal."""
    at = improved_phone(db)
    typed(at, TYPED, "北家", "西家 放槍")
    press(at, SET_ASIDE)
    assert at.session_state["hand"].draft.empty and chosen(at, "winner") is None and chosen(at, "how") == "西家 放槍"
    assert any("一炮多響" in m.value for m in at.markdown)
    typed(at, OTHER_TYPED, "東家")
    press(at, RECORD)
    [hand] = Ledger(db).hands("friday")
    assert hand.line.winners == (N, E) and hand.line.discarder == W  # in turn after 西家
    assert hand.line.net == paid_together(Deal(), W, (TYPED, N), (OTHER_TYPED, E))
    assert shown_deal(at) == Deal(Wind.E, E, 1) and at.success[0].value.startswith("第 1 局記好了：北家、東家 胡 西家")
    assert not any(SET_ASIDE == b.label for b in at.button) and not at.session_state["table"].aside


def test_a_discard_won_twice_is_judged_once_per_run(db, monkeypatch):
    """The wins set aside and this one are judged as one discard once per run, and that verdict is handed to the
    top bar, the list of winners and the record button (each worked it out again)."""
    at = improved_phone(db)
    typed(at, TYPED, "北家", "西家 放槍")
    press(at, SET_ASIDE)
    typed(at, OTHER_TYPED, "東家")
    judged, judge_several = [], ui.result.judge_several
    monkeypatch.setattr(ui.result, "judge_several", lambda *args: judged.append(args) or judge_several(*args))
    ok(at.run())
    assert len(judged) == 1 and any(b.label == RECORD for b in at.button)
    assert "北家、東家 胡 西家" in at.markdown[0].value  # the top bar: the line 胡了 records


def test_a_winner_added_to_the_last_hand_moves_the_deal_by_the_rule(db):
    """南家 wins off 西家 (the deal passes to 南家); then 東家, the dealer, is added as a winner of
    the same discard: hand 1 has both, and 東家 keeps the deal."""
    at = improved_phone(db)
    win_as(at, "南家", "西家 放槍")
    assert shown_deal(at) == Deal(Wind.E, S, 0)
    press(at, "第 1 局那張牌還有別家胡：加一家")
    assert chosen(at, "how") == "西家 放槍" and any("修改第 1 局" in m.value for m in at.markdown)
    typed(at, OTHER_TYPED, "東家")
    press(at, "更新這一局")
    [hand] = Ledger(db).hands("friday")
    assert hand.line.winners == (E, S) and hand.edited_at  # in turn after 西家: 東家 before 南家
    assert hand.line.net == paid_together(Deal(), W, (TYPED, S), (OTHER_TYPED, E))
    assert shown_deal(at) == Deal(Wind.E, E, 1)


def test_one_winner_a_discard_at_a_table_that_has_no_several(db):
    at = phone()  # the default table: 截胡
    typed(at, TYPED, "北家", "西家 放槍")
    assert not any(SET_ASIDE == b.label for b in at.button) and not any(b.label == "詐胡" for b in at.button)


def test_a_false_win_is_recorded_as_its_own_line_and_the_dealer_keeps_the_deal(db):
    """北家 calls 詐胡 for 8 台; 東家 was ready for 5: 北家 pays 東家 5 台, 南家 and 西家 8 台 each."""
    at = improved_phone(db)
    press(at, "詐胡")
    assert any(b.label == "確定記下詐胡" and b.disabled for b in at.button)  # who called it, first
    choose(at, "false_win_caller", "北家")
    ok(at.number_input(key="false_win_claimed").set_value(8).run())
    ok(at.checkbox(key="false_win_ready_E").check().run())
    ok(at.number_input(key="false_win_wait_E").set_value(5).run())
    rows = at.table[-1].value.to_dict("records")
    assert [(r["誰收"], r["台"], r["金額"]) for r in rows] == [("東家", 5, 100), ("南家", 8, 160), ("西家", 8, 160)]
    press(at, "確定記下詐胡")
    [recorded] = Ledger(db).hands("friday")
    line = recorded.line
    assert line.false_win.caller == N and line.net == (100, 160, 160, -420) and line.winner is None
    assert shown_deal(at) == Deal(Wind.E, E, 1)  # as after a 流局
    assert at.success[0].value == "第 1 局記好了：北家 詐胡 8 台"
    press(at, "修改這一局")  # the line comes back in its form
    assert chosen(at, "false_win_caller") == "北家" and at.number_input(key="false_win_wait_E").value == 5


def test_a_penalty_needs_a_reason_and_leaves_the_deal(db):
    at = phone()
    win_as(at, "南家", "西家 放槍")  # 南家 deals next
    press(at, "罰款")
    ok(at.number_input(key="penalty_S").set_value(-200).run())
    assert any("請寫罰款的原因" in i.value for i in at.info) and any(
        b.label == "確定記下罰款" and b.disabled for b in at.button)
    ok(at.text_input(key="penalty_reason").set_value("遲到 **粗體** [x](javascript:1)").run())
    press(at, "確定記下罰款")
    [_, fine] = Ledger(db).hands("friday")
    assert fine.line.net == (0, -200, 0, 0) and fine.line.reason == "遲到 粗體 xjavascript1"
    assert shown_deal(at) == Deal(Wind.E, S, 0) == fine.line.deal  # no hand was played
    totals = {r["玩家"]: r["合計"] for r in totals_shown(at)}
    assert sum(totals.values()) == -200
