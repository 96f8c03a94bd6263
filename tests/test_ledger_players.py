"""Players own the money, seats do not; an evening is played in 將, seats drawn again between them.
Real SQLite files: a file of the previous schema written by that schema's own ledger, migrated."""

import csv
import io
import json
import shutil
import sqlite3
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from ledger import (
    Conflict,
    CsvError,
    Ledger,
    LedgerError,
    draw,
    jiang_totals,
    penalty,
    read_csv,
    running_totals,
    totals,
    write_csv,
)
from scoring.payout import Deal
from scoring.seats import SEATS, Wind
from tests.example_hands import HAND
from tests.test_ledger import E, N, S, W, played

OLD_FILE = Path(__file__).parent / "data" / "ledger-schema-5.db"


def passing(deal: Deal):
    """A win off the dealer by the seat after it: the deal passes on."""
    return played(HAND, deal, winner=deal.dealer.step(), discarder=deal.dealer)


def record_next(led: Ledger, make_line, code: str = "friday", **seen):
    evening = led.state(code)
    return led.record(code, make_line(evening.next_deal), evening.next_seq, **seen)


def play_jiang(led: Ledger, code: str = "friday") -> None:
    """One 將 without 連莊: each of the four seats deals once in each of the four rounds."""
    for _ in range(16):
        record_next(led, passing, code)


def csv_text(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def friday(folder, ruleset: str) -> Ledger:
    """A ledger with the table friday open: four named players, 起莊 東家, 底 100, 每台 20."""
    led = Ledger(folder / "taishu.db")
    led.open_table("friday")
    led.update_table("friday", ("阿明", "阿華", "小美", "大雄"), E, 100, 20, ruleset)
    return led


@pytest.fixture
def book(tmp_path):
    return friday(tmp_path, "tw16-2026.09-p0")


# -- a file of the previous schema -------------------------------------------------------------------
def old_rows(path: Path) -> dict[str, tuple[list[str], list[tuple[int, list[int]]]]]:
    """Each table's four names by seat and its hands' (number, money by seat), read with SQLite alone."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 5
        return {code: (json.loads(names), [(seq, json.loads(net)) for seq, net in db.execute(
                    "SELECT seq, net FROM hands WHERE table_code = ? ORDER BY seq", (code,))])
                for code, names in db.execute("SELECT code, names FROM tables").fetchall()}


def test_every_old_hand_keeps_its_money_by_player_once_migrated(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(OLD_FILE, path)
    before = old_rows(path)
    led = Ledger(path)
    for code, (names, hands) in before.items():
        evening = led.state(code)
        assert evening.damaged == [] and [h.seq for h in evening.hands] == [seq for seq, _ in hands]
        assert [p.name for p in evening.table.players] == names and evening.table.names == tuple(names)
        ids = [p.id for p in evening.table.players]
        for hand, (_, net) in zip(evening.hands, hands, strict=True):
            assert hand.seating == tuple(ids) and hand.jiang == 1
            assert hand.net_by_player == dict(zip(ids, net, strict=True))
        assert totals(evening.hands) == {i: sum(net[k] for _, net in hands) for k, i in enumerate(ids)}
    friday = led.state("friday")
    assert friday.table.first_dealer == S and friday.table.jiang.number == 1 and not friday.jiang_over
    assert friday.next_deal.dealer == friday.hands[-1].line.deal.dealer.step()  # 西家 won off 南家: it passed
    header = write_csv(friday.hands, friday.table.players).splitlines()[0]
    assert header.endswith(",jiang,seating,cut,pot,玩家1 阿明,玩家2 阿華,玩家3 小美,玩家4 大雄")
    assert read_csv(write_csv(friday.hands, friday.table.players)) == friday.hands


def test_a_migrated_table_goes_on_and_a_new_name_moves_no_money(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(OLD_FILE, path)
    led = Ledger(path)
    before = led.state("friday")
    renamed = led.update_table("friday", ("阿明", "明哥", "小美", "大雄"), S, 100, 20, "tw16-improved")
    assert renamed.name(2) == "明哥" and totals(led.hands("friday")) == totals(before.hands)
    after = record_next(led, lambda d: played(HAND, d, winner=d.dealer))
    assert after.seq == before.next_seq and after.seating == (1, 2, 3, 4) and led.revision("friday") == 12


# -- players ------------------------------------------------------------------------------------------
def test_renaming_a_player_never_moves_money(book):
    first = record_next(book, lambda d: played(HAND, d, winner=S, discarder=E))
    table = book.rename_player("friday", 2, "阿華哥")
    assert table.names == ("阿明", "阿華哥", "小美", "大雄") and totals(book.hands("friday")) == first.net_by_player
    assert book.state("friday").table == table


@pytest.mark.parametrize(("action", "words"), [
    (lambda led, rev: led.rename_player("friday", 2, "阿明"), "已經有一位玩家叫「阿明」了"),
    (lambda led, rev: led.rename_player("friday", 2, " ALICE "), None),  # fine: no one else is called that
    (lambda led, rev: led.rename_player("friday", 9, "阿九"), "這一桌沒有第 9 號玩家"),
    (lambda led, rev: led.rename_player("friday", True, "阿九"), "這一桌沒有第 True 號玩家"),
    (lambda led, rev: led.rename_player("friday", 2, "長" * 25), "最多 24 個字"),
    (lambda led, rev: led.rename_player("friday", 2, "a\u0000b"), "控制字元"),
    (lambda led, rev: led.rename_player("friday", 2, 7), "名字要是文字"),
    (lambda led, rev: led.add_player("friday", ""), "新玩家要有名字"),
    (lambda led, rev: led.add_player("friday", "小美"), "已經有一位玩家叫「小美」了"),
    (lambda led, rev: led.update_table("friday", ("阿明", "阿明", "", ""), E, 100, 20, "x"), "叫「阿明」"),
    (lambda led, rev: led.start_jiang("friday", rev, (1, 2, 3, 3), E), "四位不同的玩家"),
    (lambda led, rev: led.start_jiang("friday", rev, (1, 2, 3, 5), E), "這一桌沒有的玩家"),
    (lambda led, rev: led.start_jiang("friday", rev, [1, 2, 3, "4"], E), "四位不同的玩家"),
    (lambda led, rev: led.start_jiang("friday", rev, (1, 2, 3, 4), "E"), "起莊要是"),
    (lambda led, rev: led.start_jiang("friday", -1, (1, 2, 3, 4), E), "版本要是"),
    (lambda led, rev: led.record("friday", draw(Deal()), 1, seating=(1, 1, 1, 1)), "四位不同的玩家"),
    (lambda led, rev: led.record("friday", draw(Deal()), 1, first_dealer="S"), "起莊要是"),
])
def test_names_and_seatings_from_the_page_are_checked(book, action, words):
    revision = book.revision("friday")
    if words is None:
        assert action(book, revision).name(2) == "ALICE"
        return
    with pytest.raises(LedgerError, match=words):
        action(book, revision)
    assert book.revision("friday") == revision  # nothing written


def test_a_player_joins_and_takes_a_seat_in_the_next_jiang(book):
    play_jiang(book)
    table = book.add_player("friday", "阿九")
    assert table.players[-1].id == 5 and table.seating == (1, 2, 3, 4)  # not seated yet
    table = book.start_jiang("friday", table.revision, (5, 2, 3, 4), S)  # 阿九 sits where 阿明 sat
    hand = record_next(book, lambda d: played(HAND, d, winner=E, discarder=S))
    assert hand.seating == (5, 2, 3, 4) and hand.net_by_player[5] > 0 and 1 not in hand.net_by_player
    hands = book.hands("friday")
    assert totals(hands)[1] == sum(h.net_by_player[1] for h in hands[:16])  # 阿明 keeps the first 將's money
    assert set(running_totals(hands)[0][1]) == {1, 2, 3, 4, 5} and sum(totals(hands).values()) == 0


# -- 將 -------------------------------------------------------------------------------------------------
def test_a_jiang_ends_when_the_deal_would_come_back_to_the_first_dealer_in_the_north_round(book):
    for _ in range(15):
        record_next(book, passing)
        assert not book.state("friday").jiang_over
    before = book.state("friday")
    assert before.next_deal == Deal(Wind.N, N, 0)
    record_next(book, lambda d: played(HAND, d, winner=N))  # 北家 deals and wins: 連莊, the 將 goes on
    assert not book.state("friday").jiang_over
    record_next(book, draw)  # a 流局: 連莊 again
    assert not book.state("friday").jiang_over and book.state("friday").next_deal == Deal(Wind.N, N, 2)
    record_next(book, passing)
    evening = book.state("friday")
    assert evening.jiang_over and evening.next_deal == Deal(Wind.E, E, 0)
    fine = book.record("friday", penalty(evening.next_deal, (0, -100, 0, 0), "遲到"), evening.next_seq)
    assert fine.jiang == 2  # a line after the end is in the next 將: no seating was drawn, the same one goes on


def test_the_next_jiang_is_seated_as_the_table_says_and_starts_in_the_east_round(book):
    play_jiang(book)
    evening = book.state("friday")
    assert evening.jiang_over
    with pytest.raises(Conflict, match="看過現在的帳再排座位"):
        book.start_jiang("friday", evening.table.revision - 1, (3, 1, 4, 2), W)  # a page that read it earlier
    table = book.start_jiang("friday", evening.table.revision, (3, 1, 4, 2), W)
    assert (table.jiang.number, table.seating, table.first_dealer, table.jiang.drawn) == (2, (3, 1, 4, 2), W, False)
    assert table.names == ("小美", "阿明", "大雄", "阿華")
    after = book.state("friday")
    assert after.table == table and not after.jiang_over and after.next_deal == Deal(Wind.E, W, 0)
    hand = record_next(book, lambda d: played(HAND, d, winner=S, discarder=W))  # 阿明 (南家) wins off 大雄
    assert (hand.jiang, hand.seating) == (2, (3, 1, 4, 2))
    assert hand.net_by_player[1] > 0 > hand.net_by_player[4]
    subtotals = jiang_totals(book.hands("friday"))
    assert list(subtotals) == [1, 2] and subtotals[2] == hand.net_by_player
    whole = totals(book.hands("friday"))
    assert whole == {p: subtotals[1].get(p, 0) + subtotals[2].get(p, 0) for p in whole}
    with pytest.raises(LedgerError, match="第 2 將還沒打完"):
        book.start_jiang("friday", book.revision("friday"), (1, 2, 3, 4), E)


def test_a_drawn_seating_is_stored_so_every_phone_shows_the_same(book, tmp_path):
    play_jiang(book)
    phone_b = Ledger(book.path)
    drawn = book.start_jiang("friday", book.revision("friday"))
    assert drawn.jiang.drawn and sorted(drawn.seating) == [1, 2, 3, 4] and drawn.first_dealer in SEATS
    assert phone_b.state("friday").table == drawn
    redrawn = phone_b.start_jiang("friday", drawn.revision, None, E)  # drawn again before a hand: the same 將
    assert redrawn.jiang.number == 2 and book.state("friday").table == redrawn
    draws = Counter(book.start_jiang("friday", book.revision("friday")).seating for _ in range(60))
    assert len(draws) > 10  # drawn at random, not one seating


def test_a_phone_that_shows_the_old_seating_is_told_before_it_records(book):
    play_jiang(book)
    shown = book.state("friday")  # phone A: the 將 is over, the same seating shown
    book.start_jiang("friday", shown.table.revision, (2, 1, 3, 4), E)  # phone B draws
    with pytest.raises(Conflict, match="別的手機剛換了座位"):
        book.record("friday", passing(shown.next_deal), shown.next_seq, seating=shown.table.seating)
    book.start_jiang("friday", book.revision("friday"), (1, 2, 3, 4), S)  # drawn again: 南家 起莊
    with pytest.raises(Conflict, match="這一將改由南家起莊了"):
        book.record("friday", passing(shown.next_deal), shown.next_seq, shown.table.seating, shown.table.first_dealer)
    assert len(book.hands("friday")) == 16
    assert record_next(book, passing, seating=(1, 2, 3, 4), first_dealer=S).line.deal == Deal(Wind.E, S, 0)


def test_undoing_the_hand_that_ended_the_jiang_takes_the_seats_drawn_after_it(book):
    play_jiang(book)
    book.start_jiang("friday", book.revision("friday"), (4, 3, 2, 1), N)
    last = book.hands("friday")[-1]
    book.undo("friday", last.seq, last.revision)
    evening = book.state("friday")
    assert evening.table.jiang.number == 1 and evening.table.seating == (1, 2, 3, 4) and not evening.jiang_over
    assert evening.next_deal == last.line.deal


def test_an_edit_keeps_the_players_who_played_the_hand(book):
    play_jiang(book)
    book.start_jiang("friday", book.revision("friday"), (4, 3, 2, 1), N)
    first = book.hands("friday")[0]
    edited = book.edit("friday", 1, played(HAND, first.line.deal, winner=S, discarder=W), first.revision)
    assert (edited.jiang, edited.seating) == (1, (1, 2, 3, 4)) and book.hands("friday")[0] == edited


def test_the_csv_carries_the_seating_and_refuses_a_player_column_that_does_not_add_up(book):
    play_jiang(book)
    book.start_jiang("friday", book.revision("friday"), (3, 1, 4, 2), W)
    record_next(book, lambda d: played(HAND, d, winner=S, discarder=W))
    evening = book.state("friday")
    text = write_csv(evening.hands, evening.table.players)
    assert read_csv(text) == evening.hands
    rows = list(csv.DictReader(io.StringIO(text)))
    names = ["玩家1 阿明", "玩家2 阿華", "玩家3 小美", "玩家4 大雄"]
    sums = [sum(int(row[name] or 0) for row in rows) for name in names]
    assert sums == [totals(evening.hands)[p] for p in (1, 2, 3, 4)]  # a spreadsheet's sums are the totals
    rows[-1]["玩家1 阿明"] = str(int(rows[-1]["玩家1 阿明"]) + 1)
    with pytest.raises(CsvError, match="line 18: 玩家1 阿明"):
        read_csv(csv_text(rows))


def test_a_csv_of_an_earlier_taishu_reads_as_seated_one_to_four(book):
    record_next(book, lambda d: played(HAND, d, winner=S, discarder=E))
    hands = book.hands("friday")
    rows = list(csv.DictReader(io.StringIO(write_csv(hands))))
    earlier = [{k: v for k, v in row.items() if k not in ("jiang", "seating") and not k.startswith("玩家")}
               for row in rows]
    assert read_csv(csv_text(earlier)) == [replace(h, jiang=1, seating=(1, 2, 3, 4)) for h in hands] == hands
