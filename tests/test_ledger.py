"""The table's ledger without the app: who deals next, payments by seat, the SQLite file (real
files, real processes), undo, CSV."""

import csv
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ledger.store
from ledger import (
    Conflict,
    CsvError,
    Ledger,
    LedgerError,
    deal_after,
    draw,
    false_win,
    next_deal,
    penalty,
    read_csv,
    running_totals,
    shared_win,
    table_code,
    totals,
    win,
    write_csv,
)
from scoring.hand import Hand, Table
from scoring.payout import Deal, Result, judge, judge_false_win, judge_several, seat_hand
from scoring.random_hands import random_winning_hand
from scoring.score import score
from scoring.seats import SEATS, Seat, Wind, seat_wind, seat_with_wind
from scoring.settle import settle
from tests.example_hands import HAND

ROOT = Path(__file__).resolve().parents[1]


E, S, W, N = SEATS
PLAYER = dict(zip(SEATS, (1, 2, 3, 4), strict=True))  # a new table's players, seated 1-4 by seat (ids)


def played(hand: Hand, deal: Deal, winner: Seat, discarder: Seat | None = None, base=100, per_tai=20, photo=None):
    """`hand` won by seat `winner` under `deal`, scored and settled as the app does at a table."""
    result = Result(deal, winner, discarder)
    return win(judge(seat_hand(hand, result, base, per_tai), result), photo)


@pytest.fixture
def book(tmp_path):
    led = Ledger(tmp_path / "taishu.db")
    led.open_table("friday")
    return led


def record_next(led: Ledger, make_line, code="friday"):
    """Record the line for the table's next deal, as a phone does: expecting the next number."""
    evening = led.state(code)
    return led.record(code, make_line(evening.next_deal), evening.next_seq)


# -- who deals next ------------------------------------------------------------------------------------
def test_the_dealer_keeps_the_deal_on_a_win_or_a_draw():
    deal = Deal(Wind.E, S, 2)
    assert next_deal(deal, S, first_dealer=E) == Deal(Wind.E, S, 3)  # the dealer won: 連莊 +1
    assert next_deal(deal, None, first_dealer=E) == Deal(Wind.E, S, 3)  # 流局: 連莊 +1


def test_another_seat_winning_passes_the_deal():
    assert next_deal(Deal(Wind.E, S, 2), N, first_dealer=E) == Deal(Wind.E, W, 0)
    assert next_deal(Deal(Wind.S, N, 0), W, first_dealer=S) == Deal(Wind.S, E, 0)  # not back to 起莊 S yet
    assert next_deal(Deal(Wind.S, E, 3), W, first_dealer=S) == Deal(Wind.W, S, 0)  # back to 起莊: next round


def test_the_round_passes_after_the_four_seats_have_dealt():
    """起莊 南家: 南 西 北 東 deal the 東 round (連莊 or not), then 南家 deals the 南 round."""
    deal, seen = Deal(Wind.E, S, 0), []
    for winner in [W, S, None, N, E, S]:
        deal = next_deal(deal, winner, first_dealer=S)
        seen.append((deal.round, deal.dealer, deal.streak))
    assert seen == [(Wind.E, W, 0), (Wind.E, N, 0), (Wind.E, N, 1), (Wind.E, N, 2), (Wind.E, E, 0), (Wind.S, S, 0)]
    deal, seen = Deal(Wind.E, S, 0), []
    for _ in range(16):  # the next seat wins every hand: four rounds, then 東 again
        deal = next_deal(deal, deal.dealer.step(), first_dealer=S)
        seen.append((deal.round, deal.dealer))
    assert seen == [(tuple(Wind)[k // 4 % 4], SEATS[(k + 1) % 4]) for k in range(1, 17)]


def test_seat_winds_follow_the_dealer():
    assert [seat_wind(s, W) for s in SEATS] == [Wind.W, Wind.N, Wind.E, Wind.S]  # 西家 deals: 西家 is 東, 東家 西
    for dealer in SEATS:
        assert seat_wind(dealer, dealer) == Wind.E
        assert all(seat_with_wind(seat_wind(s, dealer), dealer) == s for s in SEATS)


def test_a_seat_is_not_a_wind():
    assert Seat.E != Wind.E and Seat.E != "E" and Wind.E == "E"  # a wind is the scorer's string; a seat is not
    with pytest.raises(ValueError, match="not a seat"):
        Seat.of(Wind.E)
    with pytest.raises(ValueError, match="not a wind"):
        HAND.replace(seat_wind=Seat.S)  # a seat passed where 門風 belongs fails at once
    with pytest.raises(ValueError, match="must be seats"):
        Result(Deal(), "E")


def test_a_win_is_paid_by_seat():
    """南家 deals (連莊 1); 東家, 門風 北 there, self-draws: 南家 pays with 莊家 and 連莊 台."""
    line = played(HAND, Deal(Wind.E, S, 1), winner=E)
    assert line.winner == E and line.discarder is None and json.loads(line.hand)["seat"] == "N"
    base = score(HAND.replace(seat_wind="N")).total
    extra = 1 + 2 * 1  # 莊家 1, 連莊 2 each in the default table
    assert line.net_by_seat == {E: 3 * (100 + base * 20) + extra * 20, S: -(100 + (base + extra) * 20),
                                 W: -(100 + base * 20), N: -(100 + base * 20)}
    off_discard = played(HAND, Deal(Wind.E, S, 0), winner=E, discarder=W)
    assert off_discard.discarder == W and json.loads(off_discard.hand)["table"]["discarder"] == "S"  # 西家 is 南
    assert [n for n in off_discard.net if n] == [off_discard.net[0], off_discard.net[2]] and sum(off_discard.net) == 0


# -- the file ------------------------------------------------------------------------------------------
def test_a_table_is_made_once_and_its_code_is_checked(book):
    assert book.open_table("FRIDAY ").code == "friday"
    for bad in ["", "a b", "../x", "-x", "x" * 25, "桌", "a;drop"]:
        with pytest.raises(LedgerError, match="牌桌代號"):
            table_code(bad)
    with pytest.raises(LedgerError, match="沒有代號「other」的牌桌"):
        book.state("other")


@pytest.mark.parametrize("invisible", ["\u200b", "\u2060", "\ufeff", "\u200e"])
def test_a_code_is_read_without_the_invisible_characters_chat_apps_add(invisible):
    assert table_code(f"{invisible}Friday{invisible}") == table_code(f"fri{invisible}day") == "friday"


@pytest.mark.parametrize("bad", ["", " ", "a b", "../x", "-x", "x" * 25, "桌", "a;drop", "friday!", "friday\u00a0x",
                                 "www.example.com", "fri\nday", "\u200b"])
def test_a_code_refused_is_said_as_typed_never_as_a_code_that_would_be_taken(bad):
    with pytest.raises(LedgerError, match="牌桌代號") as refused:
        table_code(bad)
    said = str(refused.value)
    shown = said[said.index("「") + 1:said.index("」")] if "「" in said else ""
    with pytest.raises(LedgerError):
        table_code(shown)
    assert "." not in shown and "/" not in shown  # no link back to the page


def test_recording_advances_the_table_and_totals_are_the_payments(book):
    first = record_next(book, lambda d: played(HAND, d, winner=E))  # 東家 deals and wins
    second = record_next(book, lambda d: played(HAND, d, winner=W, discarder=E))  # 連莊 1, 西家 wins
    third = record_next(book, draw)
    evening = book.state("friday")
    table, hands = evening.table, evening.hands
    assert [h.line.deal for h in hands] == [Deal(Wind.E, E, 0), Deal(Wind.E, E, 1), Deal(Wind.E, S, 0)]
    assert evening.next_deal == deal_after(table, hands) == Deal(Wind.E, S, 1) and table.revision == 3
    assert [h.revision for h in hands] == [1, 2, 3] and evening.damaged == [] and evening.deal_note is None
    assert totals(hands) == {PLAYER[s]: first.line.net_by_seat[s] + second.line.net_by_seat[s] for s in SEATS}
    assert [n for n, _ in running_totals(hands)] == [0, 1, 2, 3] and running_totals(hands)[-1][1] == totals(hands)
    assert third.line.net == (0, 0, 0, 0) and third.line.hand is None


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 12))
def test_totals_after_any_evening_are_the_sum_of_the_payments(tmp_path_factory, seed, count):
    rng = random.Random(seed)
    led = Ledger(tmp_path_factory.mktemp("evening") / "taishu.db")
    led.open_table("t")
    paid = dict.fromkeys(SEATS, 0)
    for _ in range(count):
        winner = rng.choice([*SEATS, None])
        if winner is None:
            record_next(led, draw, "t")
            continue
        discarder = rng.choice([None, *(s for s in SEATS if s != winner)])
        hand = random_winning_hand(rng, situation=False)
        evening = led.state("t")
        deal = evening.next_deal
        led.record("t", played(hand, deal, winner, discarder, 50, 10), evening.next_seq)
        # the same hand worked out by hand in the scorer's winds: the dealer is 東, each seat its 門風
        core = hand.replace(seat_wind=seat_wind(winner, deal.dealer), round=deal.round, self_draw=discarder is None,
                            table=Table("E", 50, 10, deal.streak, discarder=None if discarder is None
                                        else seat_wind(discarder, deal.dealer)))
        for wind, amount in settle(score(core), core).net.items():  # the scorer's 門風 → the seat that has it
            paid[seat_with_wind(wind, deal.dealer)] += amount
    hands = led.hands("t")
    assert totals(hands) == {PLAYER[s]: n for s, n in paid.items()} and sum(paid.values()) == 0
    assert len(hands) == count


def test_a_hand_confirmed_twice_lands_once(book):
    line = played(HAND, Deal(), winner=E, photo="photo-a")
    assert book.record("friday", line, 1) == book.record("friday", line, 1)
    again = played(HAND, Deal(), winner=E, photo="photo-b")  # the same hand, from another phone's photo
    assert book.record("friday", again, 1).line.photo_id == "photo-a"
    assert len(book.hands("friday")) == 1


def test_a_stale_phone_is_told_what_changed(book):
    record_next(book, lambda d: played(HAND, d, winner=E))
    other = played(HAND, Deal(), winner=S)  # a phone that still shows hand 1 to come, with another result
    with pytest.raises(Conflict, match="別的手機剛記了第 1 局") as caught:
        book.record("friday", other, 1)
    assert caught.value.latest.seq == caught.value.current.seq == 1 and caught.value.current.line.winner == E
    with pytest.raises(Conflict, match="有局被刪了") as caught:
        book.record("friday", other, 5)
    assert caught.value.current is None and caught.value.latest.seq == 1
    assert len(book.hands("friday")) == 1


def test_undo_removes_the_last_hand_at_the_revision_shown(book):
    first = record_next(book, lambda d: played(HAND, d, winner=S, discarder=E))
    second = record_next(book, draw)
    with pytest.raises(Conflict, match="第 1 局之後又記了 1 局（現在記到第 2 局），只能刪最後一局"):
        book.undo("friday", 1, first.revision)
    assert book.undo("friday", 2, second.revision) == second
    with pytest.raises(Conflict, match="第 2 局已經被別的手機刪掉了，現在記到第 1 局") as caught:
        book.undo("friday", 2, second.revision)  # a second phone's undo of the same hand: already gone
    assert caught.value.current is None and caught.value.latest == first
    evening = book.state("friday")
    assert [h.seq for h in evening.hands] == [1] and evening.next_deal == Deal(Wind.E, S, 0)


def test_editing_a_hand_changes_the_totals(book):
    record_next(book, lambda d: played(HAND, d, winner=E))
    record_next(book, lambda d: played(HAND, d, winner=E, discarder=S))
    record_next(book, draw)
    before = book.state("friday")
    hands = before.hands
    fixed = played(HAND, hands[1].line.deal, winner=E, discarder=N)  # it was 北家 who dealt in
    edited = book.edit("friday", 2, fixed, hands[1].revision)
    assert edited.edited_at is not None and edited.recorded_at == hands[1].recorded_at
    after = book.state("friday")
    assert [h.line for h in after.hands] == [hands[0].line, fixed, hands[2].line]
    assert totals(after.hands)[PLAYER[N]] == hands[0].line.net_by_seat[N] + fixed.net_by_seat[N] \
        < totals(hands)[PLAYER[N]]
    assert totals(after.hands)[PLAYER[S]] == hands[0].line.net_by_seat[S]
    assert after.table.revision == before.table.revision + 1 == edited.revision == after.hands[1].revision
    assert [h.revision for h in after.hands] == [hands[0].revision, edited.revision, hands[2].revision]
    with pytest.raises(Conflict, match="第 4 局已經被別的手機刪掉了"):
        book.edit("friday", 4, fixed, hands[2].revision)


def test_the_revision_moves_with_every_write_and_only_then(book):
    seen = [book.revision("friday")]
    first = record_next(book, draw)
    seen.append(book.revision("friday"))
    book.state("friday")
    book.record("friday", first.line, 1)  # confirmed twice: nothing written
    seen.append(book.revision("friday"))
    first = book.edit("friday", 1, draw(Deal(Wind.E, E, 0)), first.revision)
    seen.append(book.revision("friday"))
    book.update_table("friday", ("阿明", "", "", ""), E, 100, 20, "tw16-2026.09-p0")
    seen.append(book.revision("friday"))
    book.undo("friday", 1, first.revision)
    seen.append(book.revision("friday"))
    assert seen == [0, 1, 1, 2, 3, 4] and book.state("friday").table.revision == 4
    with pytest.raises(LedgerError, match="沒有代號「nope」的牌桌"):
        book.revision("nope")


def test_the_stakes_change_alone_and_keep_the_names_another_phone_saved(book):
    book.update_table("friday", ("阿明", "阿華", "", ""), S, 100, 20, "tw16-2026.09-p0")  # another phone's names
    table = book.change_stakes("friday", 50, 10, "tw16-improved")
    assert table == book.state("friday").table and table.revision == 2
    assert (table.names, table.first_dealer, table.base, table.per_tai, table.ruleset) == (
        ("阿明", "阿華", "", ""), S, 50, 10, "tw16-improved")
    with pytest.raises(LedgerError, match="每台要是"):
        book.change_stakes("friday", 50, -1, "tw16-improved")
    assert book.revision("friday") == 2


def test_a_stale_undo_does_not_remove_the_hand_recorded_in_its_place(book):
    """Phone B shows hand 4; phone A undoes 4 and records a corrected 4; B's undo must
    not remove A's hand. Two Ledger objects on one file: two phones, two connections."""
    phone_a, phone_b = book, Ledger(book.path)
    for _ in range(4):
        record_next(phone_a, lambda d: played(HAND, d, winner=E))
    shown = phone_b.state("friday").hands[-1]
    phone_a.undo("friday", 4, phone_a.state("friday").hands[-1].revision)
    corrected = record_next(phone_a, lambda d: played(HAND, d, winner=W, discarder=E))
    with pytest.raises(Conflict, match="^第 4 局已經被別的手機刪掉重記了，現在記到第 4 局$") as caught:
        phone_b.undo("friday", 4, shown.revision)
    assert caught.value.current == corrected and caught.value.current.revision == corrected.revision
    assert phone_a.state("friday").hands[-1] == corrected


def test_a_stale_edit_does_not_overwrite_a_hand_changed_since(book):
    phone_a, phone_b = book, Ledger(book.path)
    for _ in range(3):
        record_next(phone_a, lambda d: played(HAND, d, winner=E))
    shown = phone_b.state("friday").hands
    mine = played(HAND, shown[1].line.deal, winner=E, discarder=N)
    theirs = phone_a.edit("friday", 2, played(HAND, shown[1].line.deal, winner=E, discarder=W), shown[1].revision)
    with pytest.raises(Conflict, match="^第 2 局剛被別的手機改過，現在記到第 3 局$") as caught:
        phone_b.edit("friday", 2, mine, shown[1].revision)
    assert caught.value.current == theirs and caught.value.latest == shown[2]
    phone_a.undo("friday", 3, shown[2].revision)
    again = record_next(phone_a, draw)
    with pytest.raises(Conflict, match="^第 3 局已經被別的手機刪掉重記了，現在記到第 3 局$"):
        phone_b.edit("friday", 3, mine, shown[2].revision)
    phone_a.undo("friday", 3, again.revision)
    with pytest.raises(Conflict, match="^第 3 局已經被別的手機刪掉了，現在記到第 2 局$"):
        phone_b.edit("friday", 3, mine, shown[2].revision)
    assert phone_a.hands("friday") == [shown[0], theirs]
    assert phone_b.edit("friday", 2, mine, theirs.revision).line == mine  # once it has seen the change


def test_a_page_input_that_is_not_a_hand_number_or_a_revision_gets_a_message(book):
    first = record_next(book, draw)
    for seq, revision in [(0, first.revision), ("1", first.revision), (True, first.revision), (1, "1"), (1, -1),
                          (1, 2.0)]:
        with pytest.raises(LedgerError, match="局號|版本") as caught:
            book.undo("friday", seq, revision)
        assert not isinstance(caught.value, Conflict)
    with pytest.raises(LedgerError, match="不是一局"):
        book.record("friday", {"winner": "E"}, 2)
    with pytest.raises(LedgerError, match="這手牌的資料不對"):
        book.record("friday", replace(played(HAND, Deal(Wind.E, E, 1), winner=E), hand="{not json"), 2)
    with pytest.raises(LedgerError, match="每家輸贏的資料不對"):
        book.record("friday", replace(draw(Deal(Wind.E, E, 1)), net=(100, -100, 0, 0)), 2)
    for bad in [dict(names=("a", "b", "c")), dict(first_dealer="X"), dict(base=-1), dict(per_tai="20"),
                dict(names=("a" * 25, "", "", ""))]:
        settings = dict(names=("", "", "", ""), first_dealer=E, base=100, per_tai=20, ruleset="tw16-2026.09-p0")
        with pytest.raises(LedgerError):
            book.update_table("friday", **{**settings, **bad})
    assert book.hands("friday") == [first] and book.revision("friday") == 1


def test_the_scored_hand_comes_back_when_asked(book):
    won = record_next(book, lambda d: played(HAND, d, winner=S, discarder=E))
    assert won.scored_hand() == Hand.from_json(json.loads(won.line.hand)) and won.scored_hand().seat_wind == "S"
    assert won.scored_hand().win == "5s" and record_next(book, draw).scored_hand() is None
    unreadable = replace(won, line=replace(won.line, hand=won.line.hand.replace('"5s"', '"5x"')))
    with pytest.raises(LedgerError, match="第 1 局存的牌在帳本檔裡壞了"):
        unreadable.scored_hand()


@contextmanager
def old_schema(path: Path, version: int) -> Iterator[sqlite3.Connection]:
    """A new file at `path` as taishu's schema `version` left it (its first `version` migrations)."""
    with sqlite3.connect(path) as db:
        for steps in ledger.store.MIGRATIONS[:version]:
            for statement in steps:
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {version}")
        yield db


def old_table(db: sqlite3.Connection, code: str, ruleset: str, revision: int) -> None:
    """A table's row in an old file (the `tables` columns have not changed): no names, 底 100, 每台 20."""
    db.execute("INSERT INTO tables VALUES (?, '2026-11-01T20:00:00+08:00', '[\"\", \"\", \"\", \"\"]',"
               " 'E', 100, 20, ?, ?)", (code, ruleset, revision))


def test_a_version_1_file_is_migrated_with_its_hands(tmp_path):
    path = tmp_path / "old.db"
    with old_schema(path, 1) as db:  # the file as the first version of the ledger left it
        db.execute("INSERT INTO tables VALUES ('old', '2026-11-01T20:00:00+08:00', '[\"阿明\", \"\", \"\", \"\"]',"
                   " 'E', 100, 20, 'tw16-2026.09-p0', 1)")
        db.execute("INSERT INTO hands VALUES ('old', 1, '2026-11-01T20:30:00+08:00', 'E', 'E', 0, NULL, NULL, 0,"
                   " '[]', '[0, 0, 0, 0]', NULL, NULL, NULL)")
    led = Ledger(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == ledger.store.SCHEMA_VERSION
    evening = led.state("old")
    [hand] = evening.hands
    assert evening.table.names[0] == "阿明" and hand.line == draw(Deal()) and hand.edited_at is None
    assert hand.revision == 1 == led.revision("old")  # a migrated hand is as of the table's revision
    assert led.edit("old", 1, draw(Deal(Wind.E, E, 0)), hand.revision).edited_at is not None


def test_a_version_2_file_gets_versions_and_a_stale_page_is_refused(tmp_path):
    path = tmp_path / "v2.db"
    with old_schema(path, 2) as db:
        db.execute("INSERT INTO tables VALUES ('t', '2026-11-01T20:00:00+08:00', '[\"\", \"\", \"\", \"\"]',"
                   " 'E', 100, 20, 'tw16-2026.09-p0', 7)")
        for seq in (1, 2):
            db.execute("INSERT INTO hands VALUES ('t', ?, '2026-11-01T20:30:00+08:00', 'E', 'E', ?, NULL, NULL, 0,"
                       " '[]', '[0, 0, 0, 0]', NULL, NULL, NULL, NULL)", (seq, seq - 1))
    led = Ledger(path)
    assert [h.revision for h in led.hands("t")] == [7, 7]
    assert led.edit("t", 2, draw(Deal(Wind.E, E, 1)), 7).revision == 8
    with pytest.raises(Conflict, match="^第 2 局剛被別的手機改過，現在記到第 2 局$"):
        led.undo("t", 2, 7)  # as a page that read the file before the edit
    assert led.undo("t", 2, 8).seq == 2 and led.revision("t") == 9
    assert led.record("t", draw(Deal(Wind.E, E, 1)), 2).revision == 10


WRITER = """
import sys
sys.path.insert(0, {root!r})
from dataclasses import replace
from ledger import Conflict, Ledger, draw
from dataclasses import replace
from pathlib import Path
from time import sleep
from tests.test_ledger import HAND, played
led = Ledger({db!r})
Path({ready!r}).touch()
while not Path({go!r}).exists():  # start together
    sleep(0.01)
conflicts = 0
for i in range({count}):
    while True:  # as a phone does after a Conflict: look again, confirm as the next hand
        evening = led.state("friday")
        deal = evening.next_deal
        line = draw(deal) if {draws!r} else played(HAND, deal, winner=deal.dealer)  # the deal stays: 連莊
        try:
            led.record("friday", replace(line, photo_id={name!r} + f"-{{i}}"), evening.next_seq)
            sleep(0.01)  # a phone's pace: without it one writer starves the other (SQLite's busy wait backs off)
            break
        except Conflict:
            conflicts += 1
print(conflicts)
"""


def run_writers(tmp_path, db, writers, count):
    """One process per (name, draws), all at once: each records `count` hands, 流局 or the dealer's wins."""
    procs, go = [], tmp_path / "go"
    for n, (name, draws) in enumerate(writers):
        script = tmp_path / f"writer{n}.py"
        script.write_text(textwrap.dedent(WRITER).format(root=str(ROOT), db=str(db), count=count, name=name,
                                                         draws=draws, ready=str(tmp_path / f"ready{n}"), go=str(go)))
        procs.append(subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready{n}").exists() for n in range(len(writers))) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    conflicts = 0
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        conflicts += int(out)
    return conflicts


def test_two_processes_writing_at_once_each_land_once(book, tmp_path):
    run_writers(tmp_path, book.path, [("a", True), ("b", False)], 25)
    hands = book.hands("friday")
    assert sorted(h.line.photo_id for h in hands) == sorted(f"{n}-{i}" for n in "ab" for i in range(25))
    assert [h.seq for h in hands] == list(range(1, 51))
    streaks = [h.line.deal.streak for h in hands]  # every hand saw the one before it: the dealer kept the deal
    assert streaks == list(range(50))


SAME_HANDS = """
import sys
sys.path.insert(0, {root!r})
from ledger import Ledger, draw
from scoring.payout import Deal
led = Ledger({db!r})
for i in range({count}):  # two phones that both saw hand i + 1 coming (a 流局 in 連莊 i) and confirm it
    assert led.record("friday", draw(Deal(streak=i)), i + 1).seq == i + 1
"""


def test_two_processes_confirming_the_same_hands_land_them_once(book, tmp_path):
    script = tmp_path / "same.py"
    script.write_text(textwrap.dedent(SAME_HANDS).format(root=str(ROOT), db=str(book.path), count=25))
    procs = [subprocess.Popen([sys.executable, str(script)], stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
    assert [h.line.deal.streak for h in book.hands("friday")] == list(range(25))


# -- a bad file ----------------------------------------------------------------------------------------
def test_a_file_that_is_not_sqlite_gets_a_message(tmp_path):
    bad = tmp_path / "taishu.db"
    bad.write_bytes(b"these are my notes, not a database\n" * 100)
    with pytest.raises(LedgerError, match="不是 SQLite 資料庫"):
        Ledger(bad)
    assert bad.read_bytes().startswith(b"these are my notes")  # left as it was


def test_another_programs_database_and_a_newer_ledger_are_refused(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text)")
    with pytest.raises(LedgerError, match="不是 taishu 的帳本"):
        Ledger(other)
    newer = tmp_path / "newer.db"
    Ledger(newer)
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {ledger.store.SCHEMA_VERSION + 1}")
    with pytest.raises(LedgerError, match="較新版"):
        Ledger(newer)


def test_a_locked_file_gets_a_message(book, monkeypatch):
    monkeypatch.setattr(ledger.store, "BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(book.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another program in the middle of a write
    try:
        with pytest.raises(LedgerError, match="鎖住"):
            book.record("friday", draw(Deal()), 1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert book.record("friday", draw(Deal()), 1).seq == 1  # and works once it is free


READ_ONLY_PROBE = """
import sys
sys.path.insert(0, {root!r})
from ledger import Ledger, LedgerError, draw
from scoring.payout import Deal
for path, write in [({new!r}, False), ({old!r}, True)]:
    try:
        led = Ledger(path)
        if write:
            led.record("friday", draw(Deal()), 2)
        print("no error")
    except LedgerError as exc:
        print(exc)
"""


def test_a_read_only_folder_gets_a_message(book, tmp_path):
    """A new file in a read-only folder, and a write to a ledger whose folder became read-only
    (SQLite needs a journal beside the file). Root writes anywhere, so as root the probe runs
    without the capabilities that let it ignore the folder's permissions."""
    book.record("friday", draw(Deal()), 1)
    folder = tmp_path / "ro"
    folder.mkdir()
    shutil.copy(book.path, folder / "taishu.db")
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent(READ_ONLY_PROBE).format(root=str(ROOT), new=str(folder / "sub" / "new.db"),
                                                              old=str(folder / "taishu.db")))
    drop = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner"] if os.geteuid() == 0 else []
    folder.chmod(0o555)
    try:
        out = subprocess.run([*drop, sys.executable, str(probe)], capture_output=True, text=True, timeout=60)
    finally:
        folder.chmod(0o755)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2 and all("不能寫入" in line for line in lines), lines
    assert len(Ledger(folder / "taishu.db").hands("friday")) == 1


# -- CSV -----------------------------------------------------------------------------------------------
def test_the_evening_round_trips_through_csv(book):
    record_next(book, lambda d: played(HAND, d, winner=E, photo="p1"))
    record_next(book, draw)
    record_next(book, lambda d: played(HAND, d, winner=N, discarder=W))
    book.edit("friday", 2, draw(Deal(Wind.E, E, 1)), book.hands("friday")[1].revision)
    hands = book.hands("friday")
    assert hands[1].edited_at is not None
    text = write_csv(hands)
    assert read_csv(text) == hands and read_csv("\ufeff" + text) == hands  # a spreadsheet's BOM is fine
    header, first = text.splitlines()[:2]
    assert header.startswith("seq,recorded_at,edited_at,round,dealer,streak,winner") and "自摸" in first
    assert json.loads(next(csv.DictReader(text.splitlines()))["hand"])["win"] == "5s"
    with pytest.raises(CsvError, match="line 1"):
        read_csv("a,b\n1,2\n")
    assert ",東,東家,0,東家,," in first  # a seat is written 東家, the round wind 東
    with pytest.raises(CsvError, match="line 2"):
        read_csv(text.replace(",東,東家,0,", ",東,東,0,", 1))  # a wind where a seat belongs


def test_the_bench_times_each_operation_on_a_real_file():
    out = subprocess.run([sys.executable, "-m", "ledger.bench", "--hands", "40", "--repeat", "2"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    figures = dict(part.rsplit(" ", 2)[:2] for part in out.stdout.split(": ", 1)[1].strip().split(", "))
    assert out.stdout.startswith("40 hands, median of 2: ") and list(figures) == [
        "revision", "state", "record", "undo", "edit", "memory revision", "memory", "teach"]
    assert all(float(ms) > 0 for ms in figures.values())
    bad = subprocess.run([sys.executable, "-m", "ledger.bench", "--hands", "0"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "--hands" in bad.stderr and "Traceback" not in bad.stderr


# -- several winners, 詐胡, penalties --------------------------------------------------------
IMPROVED = "tw16-improved"  # 改良式: 「無攔胡，放槍幾家付幾家」 and 「詐胡通賠三家」
OTHER_HAND = Hand.from_json({  # wins on HAND's 5s too: the two hands and the discard are one set's tiles
    "concealed": ["1p", "2p", "3p", "4p", "5p", "6p", "7m", "8m", "9m", "2s", "3s", "4s", "5s"], "win": "5s",
    "melds": [{"type": "pon", "tiles": ["6z", "6z", "6z"]}], "seat": "E", "round": "E", "self_draw": False,
})


def shared(deal: Deal, discarder: Seat, *winners: tuple[Hand, Seat], base=100, per_tai=20):
    """One discard of `discarder`'s won by each (hand, seat), as the page records it."""
    results = [Result(deal, seat, discarder) for _, seat in winners]
    return shared_win(judge_several([(seat_hand(hand, r, base, per_tai), r)
                                     for (hand, _), r in zip(winners, results, strict=True)], IMPROVED))


def test_several_winners_are_one_hand_and_the_dealer_keeps_the_deal_only_among_them(book):
    """南家 deals: 北家 and 東家 win off 西家's discard, the dealer not among them (the deal passes to
    西家); then 西家, dealing, and 東家 win off 北家's (西家 keeps the deal)."""
    first = record_next(book, lambda d: played(HAND, d, winner=S))  # 東家 deals, 南家 wins: 南家 deals
    two = record_next(book, lambda d: shared(d, W, (HAND, N), (OTHER_HAND, E)))  # given out of turn order
    assert two.line.winners == (N, E) and two.line.discarder == W  # in turn after 西家: 北家, then 東家
    deal = two.line.deal
    alone = [win(judge(seat_hand(hand, Result(deal, seat, W), 100, 20), Result(deal, seat, W), IMPROVED))
             for hand, seat in [(HAND, N), (OTHER_HAND, E)]]
    assert two.line.net == tuple(a + b for a, b in zip(alone[0].net, alone[1].net, strict=True))  # each paid alone
    assert (two.line.total, two.line.items, two.line.hand) == (alone[0].total, alone[0].items, alone[0].hand)
    [other] = two.line.others
    assert (other.winner, other.total, other.items, other.hand) == (E, alone[1].total, alone[1].items, alone[1].hand)
    assert book.state("friday").next_deal == Deal(Wind.E, W, 0)  # 南家 was not among them: the deal passes
    three = record_next(book, lambda d: shared(d, N, (HAND, E), (OTHER_HAND, W)))  # 西家 deals and wins with 東家
    assert three.line.deal.dealer == W and book.state("friday").next_deal == Deal(Wind.E, W, 1)
    again = Ledger(book.path).state("friday")  # another connection reads the same hands back
    assert again.hands == [first, two, three] and read_csv(write_csv(again.hands)) == again.hands
    assert [h.seat_wind for h in again.hands[1].scored_hands()] == [seat_wind(N, S), seat_wind(E, S)] == ["W", "N"]
    assert totals(again.hands) == {PLAYER[s]: sum(h.line.net_by_seat[s] for h in again.hands) for s in SEATS}


def test_a_false_win_is_a_hand_of_its_own_and_nobody_won_it(book):
    """東家 deals (連莊 1 after its win); 北家 calls 詐胡 for 8 台, 東家 ready for 5 and 西家 for 3: the
    caller pays each, the dealer keeps the deal as after a 流局; then the dealer calls one: the same."""
    record_next(book, lambda d: played(HAND, d, winner=E))
    deal = book.state("friday").next_deal
    called = judge_false_win(N, 8, {E: 5, S: None, W: 3}, deal, 20, IMPROVED)
    recorded = book.record("friday", false_win(called, deal, IMPROVED), 2)
    record = recorded.line.false_win
    assert recorded.line.winner is None and recorded.line.winners == () and record.caller == N and record.claimed == 8
    assert record.waiting == ((E, 5), (S, None), (W, 3))
    assert [(p.payee, p.tai, p.amount) for p in record.payments] == [(E, 5, 100), (S, 8, 160), (W, 3, 60)]
    assert recorded.line.net == (100, 160, 60, -320)
    assert book.state("friday").next_deal == next_deal(deal, None) == Deal(Wind.E, E, 2)
    by_dealer = judge_false_win(E, 2, dict.fromkeys((S, W, N)), Deal(Wind.E, E, 2), 20, IMPROVED)
    book.record("friday", false_win(by_dealer, Deal(Wind.E, E, 2), IMPROVED), 3)
    evening = Ledger(book.path).state("friday")
    assert evening.next_deal == Deal(Wind.E, E, 3) and evening.hands[2].line.net == (-120, 40, 40, 40)
    assert read_csv(write_csv(evening.hands)) == evening.hands


def test_a_penalty_need_not_balance_and_leaves_the_deal_as_it_was(book):
    record_next(book, lambda d: played(HAND, d, winner=S, discarder=E))  # the deal passes to 南家
    deal = book.state("friday").next_deal
    fine = book.record("friday", penalty(deal, (0, -200, 0, 0), "遲到，罰給場地"), 2)
    assert fine.line.reason == "遲到，罰給場地" and fine.line.winners == ()
    evening = Ledger(book.path).state("friday")
    assert evening.next_deal == deal == Deal(Wind.E, S, 0)  # no hand was played
    assert sum(totals(evening.hands).values()) == -200 and read_csv(write_csv(evening.hands)) == evening.hands
    record_next(book, lambda d: played(HAND, d, winner=S))  # the next hand is played under that deal
    assert book.hands("friday")[2].line.deal == deal


def test_a_line_that_would_not_read_back_is_not_recorded(book):
    deal = Deal()
    two = shared(deal, W, (HAND, N), (OTHER_HAND, E))
    called = false_win(judge_false_win(N, 8, {E: 5, S: None, W: 3}, deal, 20, IMPROVED), deal, IMPROVED)
    for bad, words in [
        (penalty(deal, (0, 0, 0, 0), "沒事"), "每家輸贏"),
        (penalty(deal, (0, -200, 0, 0), ""), "罰款原因"),
        (penalty(deal, (0, -200, 0, 0), "長" * 41), "罰款原因"),
        (replace(two, others=(replace(two.others[0], winner=W),)), "一炮多響的其他贏家"),  # the discarder
        (replace(two, others=(replace(two.others[0], winner=N),)), "一炮多響的其他贏家"),  # the first winner again
        (replace(two, others=(replace(two.others[0], hand="{"),)), "一炮多響的其他贏家"),
        (replace(two, discarder=None), "一炮多響的其他贏家"),  # several winners of a self-draw
        (replace(called, net=(100, 160, 60, -300)), "每家輸贏"),  # not what the caller pays
        (replace(called, false_win=replace(called.false_win, claimed=7)), "詐胡"),  # a payment not its 台
        (replace(called, reason="也罰"), "罰款原因"),
    ]:
        with pytest.raises(LedgerError, match=f"第 1 局沒有記下：{words}的資料不對"):
            book.record("friday", bad, 1)
    assert book.hands("friday") == []


def test_a_version_3_file_is_migrated_and_then_takes_the_new_lines(tmp_path):
    path = tmp_path / "v3.db"
    with old_schema(path, 3) as db:
        old_table(db, "t", "tw16-improved", 2)
        db.execute("INSERT INTO hands VALUES ('t', 1, '2026-11-01T20:30:00+08:00', 'E', 'E', 0, NULL, NULL, 0,"
                   " '[]', '[0, 0, 0, 0]', NULL, NULL, NULL, NULL, 2, 2)")
    led = Ledger(path)
    [old] = led.hands("t")
    assert old.line == draw(Deal()) and old.revision == 2
    two = led.record("t", shared(Deal(Wind.E, E, 1), S, (HAND, E), (OTHER_HAND, N)), 2)
    assert led.hands("t") == [old, two] and led.state("t").next_deal == Deal(Wind.E, E, 2)
