"""詐摸 (a false 自摸) beside 詐胡: the same record and penalty (scoring.payout.judge_false_win), under the
tables that state it (改良式) or take it as a house rule (诈胡通赔三家)."""

import shutil
import sqlite3

import pytest

from ledger import Ledger, draw, false_win, read_csv, totals, write_csv
from scoring.hand import HandError
from scoring.payout import Deal, judge_false_win
from scoring.seats import Wind
from tests.test_ledger import IMPROVED, E, N, S, W
from tests.test_ledger_players import OLD_FILE, record_next


@pytest.mark.parametrize("ruleset", [IMPROVED, "tw16-common+诈胡通赔三家", "tw16-competition+诈胡通赔三家"])
def test_a_false_self_draw_is_a_line_of_its_own_paid_as_the_table_states(tmp_path, ruleset):
    led = Ledger(tmp_path / "taishu.db")
    led.open_table("friday", ruleset=ruleset)
    record_next(led, draw)
    deal = led.state("friday").next_deal
    called = judge_false_win(W, 6, {E: None, S: 4, N: None}, deal, 20, ruleset)
    line = led.record("friday", false_win(called, deal, ruleset, self_drawn=True), 2).line
    assert line.false_win.self_drawn and line.winners == () and line.net == (120, 80, -320, 120)
    evening = Ledger(led.path).state("friday")
    assert evening.hands[-1].line == line and evening.next_deal == Deal(Wind.E, E, 2)  # as after a 流局
    assert totals(evening.hands) == {1: 120, 2: 80, 3: -320, 4: 120}
    assert read_csv(write_csv(evening.hands, evening.table.players)) == evening.hands
    same = false_win(called, deal, ruleset)  # the same payments called off a discard: a 詐胡, another hand
    assert same.false_win.self_drawn is False and not same.same_hand(line)


def test_a_table_that_states_no_penalty_for_it_gets_words_not_a_line():
    with pytest.raises(HandError, match="states no 詐胡 penalty") as refused:
        judge_false_win(W, 6, {E: None, S: 4, N: None}, Deal(), 20, "tw16-common")
    assert "這個規則沒有寫詐胡怎麼賠" in refused.value.for_player


def test_a_false_win_stored_before_false_self_draws_were_kept_reads_as_a_false_win(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(OLD_FILE, path)
    [called] = [h for h in Ledger(path).hands("friday") if h.line.false_win is not None]
    assert called.line.false_win.self_drawn is False and called.line.false_win.caller == N


def test_a_stored_false_win_that_says_it_was_not_drawn_in_a_way_the_ledger_never_writes_is_damaged(tmp_path):
    led = Ledger(tmp_path / "taishu.db")
    led.open_table("friday", ruleset=IMPROVED)
    called = judge_false_win(W, 6, {E: None, S: 4, N: None}, Deal(), 20, IMPROVED)
    led.record("friday", false_win(called, Deal(), IMPROVED, self_drawn=True), 1)
    with sqlite3.connect(led.path) as db:
        db.execute("UPDATE hands SET false_win = json_set(false_win, '$.self_drawn', json('false'))")
    [damaged] = led.state("friday").damaged
    assert "詐胡的資料不對" in damaged.message
