"""The table's ledger in the app (AppTest, `?table=` and a real SQLite file per test) and its
screen helpers (`ui/table.py`)."""

import sqlite3
from pathlib import Path

import cv2
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import ledger.store
from ledger import Deal, Ledger, draw
from scoring.hand import Hand
from scoring.score import score
from ui.draft import to_hand
from ui.table import DB_ENV, chart_columns, clean_name, hand_rows, qr_png, table_link, totals_rows

APP = Path(__file__).resolve().parents[1] / "app.py"
HAND = Hand.from_json({
    "concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "2s", "3s", "4s", "5s"], "win": "5s",
    "melds": [{"type": "pon", "tiles": ["7z", "7z", "7z"]}], "flowers": ["1f"],
    "seat": "E", "round": "E", "self_draw": True,
})
TYPED = "123456m 789p 2345s 和5s 碰777z 花1f"
RECORD, DRAW = "胡了，記下這一局", "流局（沒人胡）"


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "taishu.db"
    monkeypatch.setenv(DB_ENV, str(path))
    return path


def phone(code="friday"):
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["table"] = code
    return ok(at.run())


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def press(at, label):
    return ok(next(b for b in at.button if b.label == label).click().run())


def enter(at, wind, how="self"):
    """Type HAND, won by the player whose 門風 is `wind`, self-drawn or off seat `how`."""
    if at.text_input(key="text").value == TYPED:  # still there from the last hand, which was cleared
        press(at, "讀入文字")
    else:
        ok(at.text_input(key="text").set_value(TYPED).run())
    for name, value in [("seat", wind), ("how", how)]:
        if at.radio(key=f"{name}-traditional").value != value:
            ok(at.radio(key=f"{name}-traditional").set_value(value).run())
    return at


def win_as(at, wind, how="self"):
    """Enter HAND (below) and record it."""
    return press(enter(at, wind, how), RECORD)


def totals_shown(at) -> list[dict]:
    """The evening's totals table (the hands' table beside it has no 玩家 column)."""
    return next(t.value for t in at.table if "玩家" in t.value.columns).to_dict("records")


def shown_deal(at):
    return Deal(at.radio(key="round-traditional").value, at.radio(key="dealer-traditional").value,
                at.number_input(key="streak").value)


def test_the_app_fills_in_the_next_deal(db):
    """東家 deals and wins (連莊 1); 流局 (連莊 2); 南家 wins (the deal passes); … the round passes."""
    at = phone()
    assert shown_deal(at) == Deal("E", "E", 0) and "牌桌 friday · 第 1 局" in at.info[0].value
    win_as(at, "E")
    assert shown_deal(at) == Deal("E", "E", 1)
    assert at.success[0].value == f"第 1 局記好了：東家 自摸 {score(HAND).total} 台"
    assert at.session_state["draft"].empty  # the next hand starts empty
    press(at, DRAW)
    assert shown_deal(at) == Deal("E", "E", 2)
    win_as(at, "S", how="N")  # 門風 南 is 南家 while 東家 deals; 北家 dealt in
    assert shown_deal(at) == Deal("E", "S", 0)
    for after_dealer in "西北東":
        assert at.radio(key="seat-traditional").options[1] == f"南 · {after_dealer}家"  # whose 門風 南 is
        win_as(at, "S")  # the seat after the dealer wins: the deal passes
    assert shown_deal(at) == Deal("S", "E", 0)  # back to 東家: the 南 round
    hands = Ledger(db).hands("friday")
    assert [h.entry.deal for h in hands] == [Deal("E", "E", 0), Deal("E", "E", 1), Deal("E", "E", 2),
                                             Deal("E", "S", 0), Deal("E", "W", 0), Deal("E", "N", 0)]
    assert [h.entry.winner for h in hands] == ["E", None, "S", "W", "N", "E"]


def test_payments_are_by_seat_when_the_dealer_is_not_east(db):
    at = phone()
    win_as(at, "S")  # 南家 wins: the deal goes to 南家
    assert shown_deal(at).dealer == "S"
    enter(at, "S", how="E")  # 門風 南 is 西家 now; 東家 dealt in
    assert at.radio(key="seat-traditional").format_func("S") == "南 · 西家"
    payers = at.table[1].value.to_dict("records")
    expected = score(HAND.replace(seat="S", self_draw=False)).total
    assert [p["誰付"] for p in payers] == ["東家"] and payers[0]["金額"] == 100 + expected * 20  # no dealer involved
    press(at, RECORD)
    [_, second] = Ledger(db).hands("friday")
    assert second.entry.winner == "W" and second.entry.discarder == "E" and second.entry.hand["seat"] == "S"
    assert second.entry.net_by_seat == {"E": -(100 + expected * 20), "S": 0, "W": 100 + expected * 20, "N": 0}
    totals = {r["玩家"]: r["合計"] for r in totals_shown(at)}
    first = Ledger(db).hands("friday")[0].entry.net_by_seat
    assert totals == {f"{'東南西北'[i]}家": first[w] + second.entry.net_by_seat[w] for i, w in enumerate("ESWN")}


def test_undo_and_edit_in_the_app(db):
    at = phone()
    win_as(at, "E")
    win_as(at, "E")
    press(at, "刪掉最後一局（第 2 局）")
    assert len(Ledger(db).hands("friday")) == 1 and shown_deal(at) == Deal("E", "E", 1)
    ok(at.selectbox(key="table_edit_pick").set_value(1).run())
    press(at, "修改這一局")
    assert to_hand(at.session_state["draft"], HAND.situation) == HAND  # the hand is back on the page
    assert shown_deal(at) == Deal("E", "E", 0) and any("修改第 1 局" in m.value for m in at.markdown)
    ok(at.radio(key="how-traditional").set_value("W").run())  # it was off 西家's discard after all
    press(at, "更新這一局")
    [hand] = Ledger(db).hands("friday")
    paid = 100 + (score(HAND.replace(self_draw=False)).total + 1) * 20  # 底 100, 每台 20, 莊家 +1
    assert hand.edited_at and hand.entry.discarder == "W" and hand.entry.net == (paid, 0, -paid, 0)
    assert shown_deal(at) == Deal("E", "E", 1)  # the next deal again, the edit done
    assert [r["合計"] for r in totals_shown(at)] == [paid, 0, -paid, 0]


def test_two_phones_confirming_one_hand_record_it_once(db):
    a, b = phone(), phone()
    enter(a, "E")
    enter(b, "E")
    press(a, RECORD)
    ok(b.radio(key="how-traditional").set_value("self").run())  # phone b looks again: the ledger moved on
    assert any("別的手機剛改了帳" in c.value for c in b.caption)
    assert shown_deal(b) == Deal("E", "E", 0)  # its hand keeps the deal it was played under
    assert b.info[0].value == "牌桌 friday · 第 1 局 · 東風圈 · 莊家 東家"
    press(b, RECORD)  # the same hand: kept once
    assert len(Ledger(db).hands("friday")) == 1 and b.success[0].value.startswith("第 1 局記好了")
    assert b.session_state["draft"].empty and shown_deal(b) == Deal("E", "E", 1)
    press(a, DRAW)
    press(b, DRAW)  # b's page showed hand 2 too when its 流局 was pressed
    assert len(Ledger(db).hands("friday")) == 2


def test_a_phone_behind_the_ledger_is_told_and_keeps_its_hand(db):
    a, b = phone(), phone()
    enter(a, "S", how="E")
    enter(b, "W")  # b saw hand 1 coming too, and enters another result
    press(a, RECORD)
    press(b, RECORD)
    assert "別的手機剛記了第 1 局" in b.warning[0].value and "南家 胡 東家" in b.warning[0].value
    assert to_hand(b.session_state["draft"], HAND.situation) == HAND  # the hand stays
    assert shown_deal(b) == Deal("E", "S", 0)  # and the deal is now the ledger's next one
    press(b, RECORD)  # looked at it: record it as hand 2
    assert [h.entry.winner for h in Ledger(db).hands("friday")] == ["S", "N"]  # 門風 西 is 北家 under 南家


def test_table_settings_and_names(db):
    at = phone()
    at.text_input(key="name-E-0").set_value("阿明 **粗體**")
    at.text_input(key="name-S-0").set_value("小華")
    at.number_input(key="per-tai-0").set_value(50)
    press(at, "儲存牌桌設定")
    table = Ledger(db).state("friday")[0]
    assert table.names == ("阿明 粗體", "小華", "", "") and table.per_tai == 50
    assert at.number_input(key="per_tai").value == 50 and "莊家 東家 阿明 粗體" in at.info[0].value


def test_a_bad_code_or_ledger_gets_a_message_and_the_hand_still_scores(db, monkeypatch):
    at = phone("../etc")
    assert "牌桌代號「../etc」不能用" in at.error[0].value
    at = phone("[x](https://example.com)")
    assert "牌桌代號「xhttps//example.com」不能用" in at.error[0].value  # no link back to the page
    db.write_bytes(b"not a database at all" * 50)
    at = phone()
    assert "不是 SQLite 資料庫" in at.error[0].value
    ok(at.text_input(key="text").set_value(TYPED).run())
    assert at.metric[0].value == f"{score(HAND).total} 台"


def test_a_locked_ledger_keeps_the_hand(db, monkeypatch):
    at = phone()
    monkeypatch.setattr(ledger.store, "BUSY_TIMEOUT_S", 0.2)
    ok(at.text_input(key="text").set_value(TYPED).run())
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program writing: reads go on, writes wait
    try:
        press(at, RECORD)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert any("沒有記進牌桌（這一手還在）" in e.value and "鎖住" in e.value for e in at.error)
    assert to_hand(at.session_state["draft"], HAND.situation) == HAND and not Ledger(db).hands("friday")
    press(at, RECORD)
    assert len(Ledger(db).hands("friday")) == 1


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
    table = led.update_table("t", ("阿明", "", "", ""), "E", 100, 20, "tw16-2026.09-p0")
    led.record("t", draw(Deal()), 1)
    led.record("t", draw(Deal("E", "E", 1)), 2)
    led.edit("t", 1, draw(Deal()))
    hands = led.hands("t")
    rows = hand_rows(table, hands, "traditional")
    assert [r["局"] for r in rows] == [2, 1] and rows[0]["莊家"] == "東家 連1" and rows[1]["結果"] == "流局（改過）"
    assert list(rows[0])[4:] == ["東家 阿明", "南家", "西家", "北家"]
    assert chart_columns(table, hands, "simplified") == {"局": [0, 1, 2], "东家 阿明": [0, 0, 0], "南家": [0, 0, 0],
                                                          "西家": [0, 0, 0], "北家": [0, 0, 0]}
    assert totals_rows(table, hands, "traditional")[0] == {"玩家": "東家 阿明", "合計": 0}
