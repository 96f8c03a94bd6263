"""The evening as a Taiwanese table plays it, on the page (AppTest, a real SQLite file per test): money by
player whatever seat they sit in, 將 ended and seated again, 東錢."""

import cv2
import numpy as np
import pytest

from ledger import CutRule, Ledger, after_hand, history_from_json, totals, win, write_history_csv
from scoring.payout import Result, judge, seat_hand
from scoring.seats import SEATS
from tests.app_driver import choose, ok, press
from tests.example_hands import HAND
from tests.test_app_script import assert_simplified, simplified_page
from tests.test_app_script import no_model as no_model_fixture
from tests.test_app_script import press as script_press
from tests.test_app_table import enter, phone, totals_shown, win_as
from tests.test_ledger_players import play_jiang
from ui import table_evenings, table_history
from ui.dataset import ROOT_SETTING, save_example
from ui.state import Desk
from ui.table import DB_ENV, MARK
from ui.table_desk import cut_version, settings_version
from ui.table_seating import seating_version

E, S, W, N = SEATS
NAMES = ("阿明", "阿華", "小芳", "大雄")


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "taishu.db"
    monkeypatch.setenv(DB_ENV, str(path))
    return path


def second_jiang(db, seating=(5, 2, 3, 4)) -> Ledger:
    """A table whose first 將 is played (16 hands by the ledger), a fifth player 阿德 seated for the second."""
    led = Ledger(db)
    led.open_table("friday")
    led.update_table("friday", NAMES, E, 100, 20, "tw16-2026.09-p0")
    led.add_player("friday", "阿德")
    play_jiang(led)
    led.start_jiang("friday", led.revision("friday"), seating, E)
    return led


def desk(led: Ledger, code: str = "friday") -> Desk:
    """The table as a page reads it (what its forms' keys are made of)."""
    return Desk(led, led.state(code))


def shown_money(at) -> dict[str, int]:
    return {r["玩家"]: r["合計"] for r in totals_shown(at)}


def test_the_money_is_by_player_with_the_pot_and_a_rename_moves_none(db):
    """阿明 played the first 將 and sits out the second: his money stays his, on a row of his own; 阿德 now sits
    東家 and wins a 自摸 whose 東錢 goes to the pot, a row of its own; players and pot add up to zero."""
    led = second_jiang(db)
    led.set_cut("friday", CutRule("self_draw", 100, 1000, None))
    before = totals(led.hands("friday"))
    at = win_as(phone(), "東家")
    last = led.hands("friday")[-1]
    assert last.seating == (5, 2, 3, 4) and last.jiang == 2 and last.pot == 100
    evening = totals(led.hands("friday"))
    shown = shown_money(at)
    assert shown == {"東家 阿德": evening[5], "南家 阿華": evening[2], "西家 小芳": evening[3],
                     "北家 大雄": evening[4], "阿明": before[1], "東錢（公費）": 100}
    assert sum(shown.values()) == 0
    rows = totals_shown(at)
    assert [r["第 1 將"] for r in rows] == [0, before[2], before[3], before[4], before[1], 0]
    assert rows[0]["第 2 將"] == evening[5] and rows[-1]["第 2 將"] == 100
    newest = next(t.value for t in at.table if "結果" in t.value.columns).to_dict("records")[0]
    assert newest["東錢"] == 100 and newest["東家 阿德"] == last.net_by_player[5] and newest["阿明"] == 0
    at.text_input(key=f"name-E-{settings_version(desk(led))}").set_value("德哥")
    press(at, "儲存牌桌設定")
    assert shown_money(ok(at)) == {("東家 德哥" if k == "東家 阿德" else k): v for k, v in shown.items()}
    assert totals(led.hands("friday")) == evening


def test_a_hand_entered_under_seats_drawn_again_meanwhile_is_not_recorded_for_the_wrong_players(db):
    """A phone entering a hand while another draws the seats: the hand is not paid to whoever sits there now."""
    led = Ledger(db)
    led.open_table("friday")
    led.update_table("friday", NAMES, E, 100, 20, "tw16-2026.09-p0")
    at = phone()
    enter(at, "東家")
    led.start_jiang("friday", led.revision("friday"), (2, 3, 4, 1), E)
    press(at, "胡了，記下這一局")
    assert not led.hands("friday") and any("換了座位" in w.value for w in at.warning)


def jiang_played(db) -> Ledger:
    led = Ledger(db)
    led.open_table("friday")
    led.update_table("friday", NAMES, E, 100, 20, "tw16-2026.09-p0")
    play_jiang(led)
    return led


def test_a_jiang_ended_is_said_on_every_phone_and_the_seats_drawn_are_the_same_on_each(db):
    led = jiang_played(db)
    a, b = phone(), phone()
    for at in (a, b):
        assert any("第 1 將打完了" in w.value for w in at.warning)
    a.radio(key=f"seat-first-{seating_version(desk(led))}").set_value(4)  # 起莊 drawn too
    press(a, "抽位（隨機排座位）")
    jiang = led.state("friday").table.jiang
    assert jiang.number == 2 and jiang.drawn and sorted(jiang.seating) == [1, 2, 3, 4]
    said = " · ".join(f"{s.zh} {NAMES[p - 1]}" for s, p in zip(SEATS, jiang.seating, strict=True))
    for at in (a, ok(b.run())):
        assert not any("打完了" in w.value for w in at.warning)
        assert any(said in c.value and f"{jiang.first_dealer.zh}起莊" in c.value for c in at.caption)
        assert f"東風圈 · 莊家 {jiang.first_dealer.zh}" in at.info[0].value


def test_the_next_jiang_seated_as_picked_starts_in_the_east_round_with_the_dealer_asked(db):
    led = jiang_played(db)
    at = phone()
    form = seating_version(desk(led))
    for seat, who in zip(SEATS, (3, 4, 1, 2), strict=True):
        at.selectbox(key=f"seat-{seat.code}-{form}").set_value(who)
    at.radio(key=f"seat-first-{form}").set_value(1)  # 南家 起莊
    press(at, "照這樣坐")
    table = led.state("friday").table
    assert (table.seating, table.first_dealer, table.jiang.drawn) == ((3, 4, 1, 2), S, False)
    assert "第 17 局 · 東風圈 · 莊家 南家 大雄" in at.info[0].value
    win_as(at, "西家")  # 阿明 sits 西家 now
    assert led.hands("friday")[-1].seating == (3, 4, 1, 2) and led.hands("friday")[-1].net_by_player[1] > 0


def test_one_player_in_two_seats_is_refused_with_words(db):
    led = jiang_played(db)
    at = phone()
    at.selectbox(key=f"seat-S-{seating_version(desk(led))}").set_value(1)
    press(at, "照這樣坐")
    assert led.state("friday").table.jiang.number == 1 and any("兩個位子" in e.value for e in at.error)


def test_the_cut_set_on_the_page_is_taken_to_its_cap_and_the_money_still_adds_up(db):
    """東錢 100 from each 自摸, 150 at most, to the host 阿德 (not seated): the second 自摸 pays the 50 left."""
    led = Ledger(db)
    led.open_table("friday")
    led.update_table("friday", NAMES, E, 100, 20, "tw16-2026.09-p0")
    led.add_player("friday", "阿德")
    at = phone()
    rev = cut_version(desk(led))
    at.radio(key=f"cut-per-{rev}").set_value(1)
    at.number_input(key=f"cut-amount-{rev}").set_value(100)
    at.number_input(key=f"cut-cap-{rev}").set_value(150)
    at.selectbox(key=f"cut-to-{rev}").set_value(5)
    press(at, "儲存東錢設定")
    assert led.state("friday").table.cut == CutRule("self_draw", 100, 150, 5)
    win_as(at, "南家")
    win_as(at, "西家")
    hands = led.hands("friday")
    assert [h.cut.total for h in hands if h.cut] == [100, 50]
    shown = shown_money(at)
    labels = ("東家 阿明", "南家 阿華", "西家 小芳", "北家 大雄", "阿德")
    assert shown["阿德"] == 150 and sum(shown.values()) == 0
    assert shown == {k: totals(hands)[p] for k, p in zip(labels, range(1, 6), strict=True)}
    lines = next(t.value for t in at.table if "結果" in t.value.columns).to_dict("records")
    assert [r["東錢"] for r in lines] == [50, 100] and [r["阿德"] for r in lines] == [50, 100]
    rev = cut_version(desk(led))
    at.radio(key=f"cut-per-{rev}").set_value(0)
    press(at, "儲存東錢設定")
    assert led.state("friday").table.cut is None


def test_a_false_self_draw_is_recorded_beside_the_false_win_and_comes_back_as_one(db):
    """西家 says 自摸 for 6 台 and is wrong: a 詐摸, paid as a 詐胡 is under 改良式, the dealer keeping the deal."""
    Ledger(db).open_table("friday", ruleset="tw16-improved")
    at = phone()
    press(at, "詐摸")
    choose(at, "false_win_caller", "西家")
    ok(at.number_input(key="false_win_claimed").set_value(6).run())
    press(at, "確定記下詐摸")
    [recorded] = Ledger(db).hands("friday")
    assert recorded.line.false_win.self_drawn and recorded.line.false_win.caller == W
    assert at.success[0].value == "第 1 局記好了：西家 詐摸 6 台"
    press(at, "修改這一局")
    assert at.radio(key="false_win_drawn").value is True and any(b.label == "確定記下詐摸" for b in at.button)
    ok(at.radio(key="false_win_drawn").set_value(False).run())
    press(at, "確定記下詐胡")
    assert not Ledger(db).hands("friday")[0].line.false_win.self_drawn


def test_an_evening_closed_when_sure_is_kept_and_the_next_starts_from_nothing(db):
    led = Ledger(db)
    led.open_table("friday")
    led.update_table("friday", NAMES, E, 100, 20, "tw16-2026.09-p0")
    at = win_as(phone(), "南家")
    won = totals(led.hands("friday"))
    press(at, "結束這一晚（第 1 晚）")
    assert led.state("friday").table.evening == 1  # asked first
    press(at, "還沒打完")
    press(at, "結束這一晚（第 1 晚）")
    press(at, "確定結束這一晚")
    evening = led.state("friday")
    assert evening.table.evening == 2 and not evening.hands and "第 1 局 · 東風圈" in at.info[0].value
    assert any("還沒有記任何一局" in c.value for c in at.caption)
    figures = {r["誰"]: r for r in next(t.value for t in at.table if "放槍" in t.value.columns).to_dict("records")}
    assert figures["阿華"]["輸贏"] == won[2] and figures["阿華"]["自摸"] == 1
    assert figures["阿明"]["輸贏"] == won[1] and figures["阿明"]["局數"] == 1
    assert "（第 1 晚第 1 局）" in figures["阿華"]["最大一手"]
    labels = [d.proto.label for d in at.get("download_button")]
    assert "匯出全部（CSV）" in labels and "匯出全部（JSON）" in labels


def test_an_evening_closed_on_a_stale_page_is_refused_with_words(db):
    led = Ledger(db)
    led.open_table("friday")
    at = win_as(phone(), "南家")
    press(at, "結束這一晚（第 1 晚）")
    led.rename_player("friday", 1, "阿明")  # another phone, meanwhile
    press(at, "確定結束這一晚")
    assert led.state("friday").table.evening == 1 and any("這一晚沒有結束" in w.value for w in at.warning)


def test_a_phone_that_is_a_players_marks_their_balance_and_the_hands_that_pay_them(db):
    led = Ledger(db)
    led.open_table("friday")
    led.update_table("friday", NAMES, E, 100, 20, "tw16-2026.09-p0")
    at = phone()
    at.selectbox(key=f"phone-{led.revision('friday')}").set_value(2)
    ok(at.run())
    assert at.query_params["player"] == "2"
    win_as(at, "南家")
    win_as(at, "西家")
    shown = shown_money(at)
    mine = totals(led.hands("friday"))[2]
    assert shown[MARK + "南家 阿華"] == mine and f"**{MARK}南家 阿華：{mine:+d}**" in [m.value for m in at.markdown]
    lines = next(t.value for t in at.table if "結果" in t.value.columns).to_dict("records")
    assert [r["結果"].startswith(MARK) for r in lines] == [False, True]  # 南家's own 自摸 pays them, 西家's not
    other = phone()  # any other phone: nothing marked, and it records as before
    assert MARK + "南家 阿華" not in shown_money(other)
    at.query_params["player"] = "99"  # not a player of the table: nothing marked, no error
    assert "南家 阿華" in shown_money(ok(at.run())) and not at.error


no_model = no_model_fixture  # the page without a tile detector


def test_the_evenings_words_are_all_simplified_in_simplified(db, no_model):
    """A 將 ended with 東錢 to the pot, this phone a player's, the 詐摸 form, the close asked: no traditional left
    (the players' names are theirs: these have none)."""
    led = jiang_played(db)
    led.rename_player("friday", 2, "阿力")
    led.change_stakes("friday", 100, 20, "tw16-improved")
    led.set_cut("friday", CutRule("win", 100, 1000, None))
    at = simplified_page({"table": "friday", "player": "2"})
    assert_simplified(at, "a 將 ended")
    script_press(at, "抽位（隨機排座位）")
    assert_simplified(at, "seats drawn")
    script_press(at, "詐摸")
    assert_simplified(at, "the 詐摸 form")
    script_press(at, "結束這一晚（第 1 晚）")
    assert_simplified(at, "closing the evening asked")


def test_a_run_at_a_table_makes_no_file_to_export_until_its_button_is_tapped(db, monkeypatch):
    """The history's CSV and JSON and the evening's CSV are made when their button is tapped (the browser test
    downloads them: tests/test_browser_jiang.py), not on every run: a run at a table of many evenings pays nothing
    for them."""
    made = []
    for module, name in ((table_evenings, "write_history_csv"), (table_evenings, "history_json"),
                         (table_history, "write_csv")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, real=real, name=name: made.append(name) or real(*a))
    Ledger(db).open_table("friday")
    at = win_as(phone(), "南家")
    labels = [d.proto.label for d in at.get("download_button")]
    assert {"匯出整晚（CSV）", "匯出全部（CSV）", "匯出全部（JSON）"} <= set(labels)
    assert made == []
    history = Ledger(db).history("friday")  # what a tap makes
    assert table_evenings.history_csv(history).decode("utf-8-sig") == write_history_csv(history)
    assert history_from_json(table_evenings.history_file(history).decode()) == history



def test_a_players_biggest_hand_shows_its_photo_where_one_was_saved(db, tmp_path, monkeypatch):
    """The biggest hand of each player is named with its 台; where its photo was saved to the data set (⑤, under
    any name), it is shown too, small, named; a photo not saved, or an id that is no photo's, shows nothing."""
    root = tmp_path / "data"
    monkeypatch.setenv(ROOT_SETTING, str(root))
    led = Ledger(db)
    led.open_table("friday")
    led.update_table("friday", NAMES, E, 100, 20, "tw16-2026.09-p0")
    photo = "0123456789abcdef"  # as `ui.photo.photo_id` names one
    for seq, (winner, photo_id) in enumerate(((S, photo), (W, "../../secret"), (N, None)), start=1):
        result = Result(led.state("friday").next_deal, winner)
        led.record("friday", win(judge(seat_hand(HAND, result, 100, 20), result), photo_id), seq)
    at = phone()
    assert not at.get("image")  # not saved yet
    image = np.full((3000, 4000, 3), 200, np.uint8)
    saved = save_example(root, "friday-photos", photo, image, np.zeros((0, 4)), [])
    at = phone()
    [shown] = at.get("image")
    biggest = led.hands("friday")[0].line.total
    assert shown.captions == [f"阿華 最大一手 {biggest} 台（第 1 晚第 1 局）"]
    small = cv2.imdecode(np.frombuffer(table_evenings._thumbnail(saved.image), np.uint8), cv2.IMREAD_COLOR)
    assert small.shape == (240, 320, 3)  # a 12 MP photo made small: twice the width shown, for a phone's screen



def test_a_false_self_draw_being_filled_in_goes_on_as_the_next_line_when_another_phone_records_a_hand(db):
    """Another phone records hand 1 while this one fills in a 詐摸: the form stays, as line 2 under the deal now (the
    dealer kept it: 連莊 1), and records there; it used to vanish with what was filled in."""
    led = Ledger(db)
    led.open_table("friday", ruleset="tw16-improved")
    at = phone()
    press(at, "詐摸")
    choose(at, "false_win_caller", "西家")
    ok(at.number_input(key="false_win_claimed").set_value(6).run())
    win_as(phone(), "東家")  # the other phone: the dealer's 自摸
    ok(at.run())  # the watch's run
    assert any(m.value.startswith("**第 2 局：詐摸**") for m in at.markdown)
    press(at, "確定記下詐摸")
    first, second = led.hands("friday")
    assert second.seq == 2 and second.line.false_win.caller == W and second.line.false_win.claimed == 6
    assert second.line.deal == after_hand(first.line.deal, first.line.winners, False) and second.line.deal.streak == 1


def test_seats_being_picked_stay_while_another_phone_changes_the_stakes(db):
    """The seating form is keyed by what it shows: another phone's write that leaves the seats and the players as
    they were (here the 底) moves the table's revision, and the seats picked on this phone are still there to give."""
    led = jiang_played(db)
    at = phone()
    form = seating_version(desk(led))
    for seat, who in zip(SEATS, (3, 4, 1, 2), strict=True):
        at.selectbox(key=f"seat-{seat.code}-{form}").set_value(who)
    led.update_table("friday", NAMES, E, 200, 20, "tw16-2026.09-p0")  # the other phone, while this one picks
    press(at, "照這樣坐")
    assert led.state("friday").table.seating == (3, 4, 1, 2)
