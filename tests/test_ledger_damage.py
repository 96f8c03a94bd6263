"""A damaged ledger file: a damaged hand is reported as that hand and the evening goes on; every
failure is a LedgerError and none leaves the file locked. Real SQLite files, damaged with SQL or
by flipping bytes of the file itself; two Ledger objects on one file are two phones."""

import json
import shutil
import sqlite3
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ledger.store
from ledger import (
    Conflict,
    Damaged,
    Evening,
    Ledger,
    LedgerError,
    Recorded,
    deal_after,
    draw,
    false_win,
    next_deal,
    penalty,
    read_csv,
    totals,
    write_csv,
)
from scoring.payout import Deal, judge_false_win
from scoring.seats import SEATS, Wind
from tests.example_hands import HAND
from tests.test_ledger import IMPROVED, OTHER_HAND, E, N, S, W, played, shared

# Six hands at 起莊 東家: 東家 self-draws (連莊), 西家 wins off 東家, a 流局, 北家 wins off 南家,
# 南家 self-draws, 西家 wins off 北家; hand 3 is edited afterwards. A second table beside it.
RESULTS = [(E, None), (W, E), None, (N, S), (S, None), (W, N)]


@dataclass(frozen=True)
class Built:
    path: Path
    evening: Evening  # as read before any damage

    def copy(self, folder: Path) -> Path:
        shutil.copy(self.path, folder / "taishu.db")
        return folder / "taishu.db"

    def hand(self, seq: int) -> Recorded:
        return self.evening.hands[seq - 1]


def build(folder: Path) -> Built:
    led = Ledger(folder / "taishu.db")
    led.open_table("friday")
    led.open_table("other")
    for result in RESULTS:
        evening = led.state("friday")
        deal = evening.next_deal
        line = draw(deal) if result is None else played(HAND, deal, winner=result[0], discarder=result[1])
        led.record("friday", line, evening.next_seq)
    third = led.state("friday").hands[2]
    led.edit("friday", 3, replace(third.line, photo_id="fixed"), third.revision)
    return Built(led.path, led.state("friday"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("built"))


def damage(path: Path, sql: str, *params) -> None:
    with sqlite3.connect(path) as db:
        db.execute(sql, params)


def assert_consistent(evening: Evening) -> None:
    """What any evening read from any file must be: hands that add up, damage reported by hand."""
    seqs = [r.seq for r in evening.rows]
    assert seqs == sorted(set(seqs)) and all(isinstance(s, int) and s >= 1 for s in seqs)
    for h in evening.hands:
        e = h.line
        assert sum(tai for _, tai in e.items) == e.total and isinstance(h.revision, int)
        assert (sum(e.net) == 0) != (e.reason is not None)  # only a penalty need not balance (and is not nothing)
        if e.winner is None:
            assert e.hand is None and e.items == () and e.discarder is None and e.others == ()
            assert any(e.net) == (e.false_win is not None or e.reason is not None)
        else:
            assert all(e.net_by_seat[w] >= 0 for w in e.winners) and isinstance(json.loads(e.hand), dict)
            assert len(set(e.winners)) == len(e.winners) and e.discarder in (None, *(s for s in SEATS
                                                                                   if s not in e.winners))
        if e.false_win is not None:
            assert e.net_by_seat[e.false_win.caller] == -sum(p.amount for p in e.false_win.payments)
        try:
            h.scored_hands()
        except LedgerError as exc:
            assert f"第 {h.seq} 局" in str(exc)
    for d in evening.damaged:
        assert isinstance(d, Damaged) and d.message.startswith(f"第 {d.seq} 局在帳本檔裡壞了")
    assert sum(totals(evening.hands).values()) == sum(sum(h.line.net) for h in evening.hands if h.line.reason)
    assert read_csv(write_csv(evening.hands)) == evening.hands
    assert isinstance(evening.next_deal, Deal)


def flipped(built: Built, folder: Path, column: str, seq: int, at: int, mask: int) -> tuple[Path, Evening]:
    """A copy of `built` with one byte of hand `seq`'s `column` flipped, and its evening read back:
    consistent, and every other hand as it was."""
    path = built.copy(folder)
    with sqlite3.connect(path) as db:
        (stored,) = db.execute(f"SELECT CAST({column} AS BLOB) FROM hands WHERE seq = ?", (seq,)).fetchone()
        assume(stored is not None)  # a 流局 has no hand
        damaged = bytearray(stored)
        damaged[at % len(damaged)] ^= mask
        db.execute(f"UPDATE hands SET {column} = CAST(? AS TEXT) WHERE seq = ?", (bytes(damaged), seq))
    evening = Ledger(path).state("friday")
    assert_consistent(evening)
    assert [h for h in evening.hands if h.seq != seq] == [h for h in built.evening.hands if h.seq != seq]
    return path, evening


def assert_unlocked(path: Path) -> None:
    """Nothing holds the file: another connection takes the write lock at once."""
    probe = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
    except sqlite3.DatabaseError as exc:
        assert "locked" not in str(exc) and "busy" not in str(exc), exc  # a damaged file may refuse, not lock
    finally:
        probe.close()


def go_on(path: Path) -> str:
    """What a phone does with the file: read the evening, record the next hand, take it back.
    Returns how far it got; anything but a LedgerError fails the test."""
    try:
        try:
            led = Ledger(path)
            evening = led.state("friday")
            assert led.revision("friday") == evening.table.revision
        except LedgerError as exc:
            assert str(exc)
            return "refused"
        assert_consistent(evening)
        try:
            new = led.record("friday", draw(evening.next_deal), evening.next_seq)
            assert led.undo("friday", new.seq, new.revision) == new
        except LedgerError as exc:
            assert str(exc)
            return "read"
        return "read and written"
    finally:
        assert_unlocked(path)


# -- one damaged hand ----------------------------------------------------------------------------------
DAMAGES = {  # column: (the damage, as SQL for UPDATE hands SET column = ..., the words the message has)
    "items": ("'[[\"門清\", 1],, '", "台數項目"),
    "items not UTF-8": ("CAST(X'5b5b22ff222c20315d5d' AS TEXT)", "台數項目"),
    "net": ("'[0, 0, 0'", "每家輸贏"),
    "net off by one": ("json_set(net, '$[0]', json_extract(net, '$[0]') + 1)", "每家輸贏"),
    "hand": ("substr(hand, 1, 40)", "這手牌"),
    "hand not an object": ("'[1, 2]'", "這手牌"),
    "streak": ("'x'", "連莊"),
    "total": ("total + 0.5", "台數"),
    "winner": ("'Q'", "誰胡"),
    "recorded_at": ("CAST(X'ff' AS TEXT)", "記下的時間"),
}


@pytest.mark.parametrize("what", DAMAGES)
def test_a_damaged_hand_is_reported_and_the_rest_still_adds_up(built, tmp_path, what):
    sql, words = DAMAGES[what]
    path = built.copy(tmp_path)
    column = what.split()[0]
    damage(path, f"UPDATE hands SET {column} = {sql} WHERE table_code = 'friday' AND seq = 2")
    evening = Ledger(path).state("friday")
    [damaged] = evening.damaged
    others = [h for h in built.evening.hands if h.seq != 2]
    assert damaged.seq == 2 and words in damaged.message and damaged.revision == built.hand(2).revision
    assert evening.hands == others and totals(evening.hands) == totals(others)
    assert [int(line.split(",")[0]) for line in write_csv(evening.hands).splitlines()[1:]] == [1, 3, 4, 5, 6]
    assert evening.next_deal == built.evening.next_deal and evening.deal_note is None
    assert_consistent(evening)


def test_a_stored_win_without_its_table_is_damaged_not_a_hand_to_edit(built, tmp_path):
    """The ledger stores every winner's hand seated (its table in it): the page edits it under that table's
    stakes. A file edited to drop it reads back as a hand that cannot be scored again, said by hand number."""
    path = built.copy(tmp_path)
    seq = next(h.seq for h in built.evening.hands if h.line.hand is not None)
    damage(path, "UPDATE hands SET hand = json_remove(hand, '$.table') WHERE table_code = 'friday' AND seq = ?", seq)
    [hand] = [h for h in Ledger(path).state("friday").hands if h.seq == seq]
    assert json.loads(hand.line.hand).get("table") is None
    with pytest.raises(LedgerError, match=f"第 {seq} 局存的牌在帳本檔裡壞了"):
        hand.scored_hand()


def test_the_next_deal_comes_from_a_damaged_last_hands_plain_columns(built, tmp_path):
    path = built.copy(tmp_path)
    damage(path, "UPDATE hands SET hand = '{' WHERE seq = 6")
    led = Ledger(path)
    evening = led.state("friday")
    assert evening.damaged[0].after == evening.next_deal == built.evening.next_deal and evening.deal_note is None
    assert evening.next_seq == 7 and evening.last_seq == 6
    # the next hand is recorded after it, and the damaged hand can still be taken back once it is last
    new = led.record("friday", draw(evening.next_deal), 7)
    assert led.undo("friday", 7, new.revision) == new
    removed = led.undo("friday", 6, evening.damaged[0].revision)
    assert isinstance(removed, Damaged) and removed.seq == 6
    after = led.state("friday")
    assert after.damaged == [] and after.hands == built.evening.hands[:5]
    assert after.next_deal == deal_after(after.table, built.evening.hands[:5])


def test_an_unreadable_winner_counts_as_a_draw_for_the_next_deal_and_says_so(built, tmp_path):
    path = built.copy(tmp_path)
    last = built.hand(6).line
    damage(path, "UPDATE hands SET winner = 'Q' WHERE seq = 6")
    evening = Ledger(path).state("friday")
    assert evening.next_deal == next_deal(last.deal, None, E) == Deal(last.deal.round, last.deal.dealer,
                                                                        last.deal.streak + 1)
    assert "第 6 局壞了，看不出是誰胡的" in evening.deal_note and "流局" in evening.deal_note
    damage(path, "UPDATE hands SET dealer = 7 WHERE seq = 6")  # its deal unreadable too: the one after hand 5
    evening = Ledger(path).state("friday")
    assert evening.damaged[0].played is None
    assert evening.next_deal == next_deal(deal_after(evening.table, built.evening.hands[:5]), None, E)
    assert evening.next_deal == next_deal(last.deal, None, E)  # which is the deal hand 6 was played under


def test_a_damaged_revision_is_named_as_none(built, tmp_path):
    path = built.copy(tmp_path)
    damage(path, "UPDATE hands SET revision = 'seven' WHERE seq = 6")
    led = Ledger(path)
    [damaged] = led.state("friday").damaged
    assert damaged.revision is None and "版本" in damaged.message
    with pytest.raises(Conflict, match="第 6 局剛被別的手機改過") as caught:
        led.undo("friday", 6, built.hand(6).revision)  # the page read it before the damage
    assert caught.value.current == damaged
    assert led.undo("friday", 6, None).seq == 6


def test_a_damaged_hand_can_be_edited_back_to_sound(built, tmp_path):
    path = built.copy(tmp_path)
    damage(path, "UPDATE hands SET net = 'oops' WHERE seq = 4")
    led = Ledger(path)
    [damaged] = led.state("friday").damaged
    with pytest.raises(Conflict, match="第 4 局剛被別的手機改過"):
        led.edit("friday", 4, built.hand(4).line, damaged.revision + 1)
    fixed = led.edit("friday", 4, built.hand(4).line, damaged.revision)
    evening = led.state("friday")
    assert evening.damaged == [] and evening.hands[3] == fixed and fixed.line == built.hand(4).line
    assert fixed.recorded_at == built.hand(4).recorded_at and fixed.edited_at is not None
    assert totals(evening.hands) == totals(built.evening.hands)


def test_a_phone_that_confirms_over_a_damaged_hand_is_told(built, tmp_path):
    path = built.copy(tmp_path)
    damage(path, "UPDATE hands SET items = '[' WHERE seq = 6")
    with pytest.raises(Conflict, match="別的手機剛記了第 6 局") as caught:
        Ledger(path).record("friday", built.hand(6).line, 6)  # its own hand 6, confirmed again
    assert isinstance(caught.value.current, Damaged) and caught.value.current.seq == 6


@pytest.mark.parametrize(("sql", "words"), [
    ("UPDATE tables SET players = '[[1, \"a\"]' WHERE code = 'friday'", "玩家名字"),
    ("UPDATE tables SET players = '[[1, \"a\"], [1, \"b\"]]' WHERE code = 'friday'", "玩家名字"),  # one id twice
    ("UPDATE tables SET players = CAST(X'5b5b312c2022ff225d5d' AS TEXT) WHERE code = 'friday'", "玩家名字"),
    ("UPDATE tables SET first_dealer = 'Q' WHERE code = 'friday'", "起莊"),
    ("UPDATE tables SET seating = '[1, 2, 2, 3]' WHERE code = 'friday'", "座位"),
    ("UPDATE tables SET seating = '[1, 2, 3, 9]' WHERE code = 'friday'", "座位"),  # no such player
    ("UPDATE tables SET jiang = 0 WHERE code = 'friday'", "將"),
    ("UPDATE tables SET evening = 0 WHERE code = 'friday'", "第幾晚"),
    ("UPDATE tables SET revision = 'x' WHERE code = 'friday'", "版本"),
    ("UPDATE hands SET seq = 'two' WHERE seq = 2", "局號"),
])
def test_a_damaged_table_is_refused_with_words_and_other_tables_go_on(built, tmp_path, sql, words):
    path = built.copy(tmp_path)
    damage(path, sql)
    led = Ledger(path)
    for action in [lambda: led.state("friday"), lambda: led.record("friday", draw(Deal()), 7)]:
        with pytest.raises(LedgerError, match=f"牌桌「friday」的{words}壞了"):
            action()
    if words == "版本":
        with pytest.raises(LedgerError, match="版本壞了"):
            led.revision("friday")
    assert led.record("other", draw(Deal()), 1).seq == 1


@pytest.mark.parametrize("text", [b'CREATE TABLE "hands"', b"sqlite_autoindex_hands_1"])
def test_a_schema_damaged_past_utf8_is_a_ledger_error(built, tmp_path, text):
    """SQLite's own message quotes the damaged schema, and Python cannot decode that message."""
    path = built.copy(tmp_path)
    data = bytearray(path.read_bytes())
    data[data.index(text) + 3] ^= 0xC0
    path.write_bytes(bytes(data))
    with pytest.raises(LedgerError, match="壞了（SQLite 讀不出它的結構）"):
        Ledger(path).state("friday")
    assert_unlocked(path)


# -- no failure holds the file ------------------------------------------------------------------------
def test_a_damaged_row_read_by_one_phone_leaves_the_file_free_for_the_other(built, tmp_path, monkeypatch):
    """A failed read kept a transaction open and every later write, at every table, was
    "database is locked". Phone A reads damaged rows and fails on a damaged table, keeping what it
    got (as Streamlit keeps an exception and its traceback); phone B writes at once."""
    monkeypatch.setattr(ledger.store, "BUSY_TIMEOUT_S", 0.5)
    path = built.copy(tmp_path)
    damage(path, "UPDATE hands SET items = CAST(X'5bff5d' AS TEXT) WHERE seq = 3")
    damage(path, "UPDATE hands SET hand = '{\"concealed\": [' WHERE seq = 6")
    phone_a, phone_b = Ledger(path), Ledger(path)
    kept: list[object] = [phone_a.state("friday")]
    with pytest.raises(Conflict) as stale:
        phone_a.undo("friday", 6, 0)
    damage(path, "UPDATE tables SET players = 'not json' WHERE code = 'friday'")
    with pytest.raises(LedgerError, match="玩家名字壞了") as failed:
        phone_a.state("friday")
    kept += [stale.value, failed.value, failed.tb]
    start = time.monotonic()
    phone_b.update_table("other", ("阿明", "阿華", "", ""), S, 50, 10, "tw16-2026.09-p0")
    assert phone_b.record("other", draw(Deal(Wind.E, S, 0)), 1).seq == 1
    assert time.monotonic() - start < 0.4  # no wait for a lock
    assert_unlocked(path)
    assert isinstance(kept[0].damaged[0], Damaged) and [d.seq for d in kept[0].damaged] == [3, 6]


# -- flipped bytes --------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(seq=st.integers(1, len(RESULTS)), column=st.sampled_from(["items", "net", "hand"]),
       at=st.integers(0, 10_000), mask=st.integers(1, 255))
def test_a_flipped_byte_in_a_hands_json_stays_in_that_hand(built, tmp_path_factory, seq, column, at, mask):
    path, evening = flipped(built, tmp_path_factory.mktemp("flip"), column, seq, at, mask)
    original = built.hand(seq)
    if evening.damaged:
        [damaged] = evening.damaged
        assert damaged.seq == seq and damaged.revision == original.revision
        assert damaged.played == original.line.deal and damaged.after == deal_after(built.evening.table, [original])
    else:  # a change the checks cannot see (a tile code, a letter of a name) stays in that column
        [hand] = [h for h in evening.hands if h.seq == seq]
        assert replace(hand.line, **{column: getattr(original.line, column)}) == original.line
    assert evening.next_deal == built.evening.next_deal
    assert go_on(path) == "read and written"


@settings(max_examples=120, deadline=None)
@given(at=st.integers(0, 2**31), mask=st.integers(1, 255))
def test_a_flipped_byte_anywhere_is_a_sound_evening_a_report_or_a_ledger_error(built, tmp_path_factory, at, mask):
    path = built.copy(tmp_path_factory.mktemp("flip"))
    data = bytearray(path.read_bytes())
    data[at % len(data)] ^= mask
    path.write_bytes(bytes(data))
    assert go_on(path) in ("refused", "read", "read and written")


# -- the other lines of an evening: several winners, a 詐胡, a penalty -----------------------
@pytest.fixture(scope="module")
def lines(tmp_path_factory):
    """東家 (dealing) and 南家 win off 西家 (東家 keeps the deal), 北家 calls 詐胡, a penalty, 北家 and
    南家 win off 東家 (the dealer not among them: the deal passes)."""
    led = Ledger(tmp_path_factory.mktemp("lines") / "taishu.db")
    led.open_table("friday", ruleset=IMPROVED)
    makers = [lambda d: shared(d, W, (HAND, E), (OTHER_HAND, S)),
              lambda d: false_win(judge_false_win(N, 8, {E: 5, S: None, W: 3}, d, 20, IMPROVED), d, IMPROVED),
              lambda d: penalty(d, (-100, 0, 0, 0), "遲到"),
              lambda d: shared(d, E, (HAND, N), (OTHER_HAND, S))]
    for make in makers:
        evening = led.state("friday")
        led.record("friday", make(evening.next_deal), evening.next_seq)
    return Built(led.path, led.state("friday"))


LINE_DAMAGES = [  # (seq, column, the damage as SQL, the words the message has)
    (1, "others", "'[{'", "一炮多響的其他贏家"),
    (1, "others", "json_set(others, '$[0].winner', 'W')", "一炮多響的其他贏家"),  # the discarder
    (1, "net", "json_set(net, '$[2]', json_extract(net, '$[2]') + 1)", "每家輸贏"),
    (2, "false_win", "json_set(false_win, '$.claimed', 9)", "詐胡"),  # its payments are not for 9 台
    (2, "false_win", "json_remove(false_win, '$.waiting.E')", "詐胡"),
    (2, "net", "'[100, 160, 60, -300]'", "每家輸贏"),
    (3, "reason", "''", "罰款原因"),
    (3, "net", "'[0, 0, 0, 0]'", "每家輸贏"),
    (4, "reason", "'也罰'", "罰款原因"),  # a win is no penalty
]


@pytest.mark.parametrize(("seq", "column", "sql", "words"), LINE_DAMAGES)
def test_a_damaged_line_of_any_kind_is_reported_as_that_hand(lines, tmp_path, seq, column, sql, words):
    path = lines.copy(tmp_path)
    damage(path, f"UPDATE hands SET {column} = {sql} WHERE seq = ?", seq)
    evening = Ledger(path).state("friday")
    [damaged] = evening.damaged
    assert damaged.seq == seq and words in damaged.message
    assert evening.hands == [h for h in lines.evening.hands if h.seq != seq]
    assert damaged.played == lines.hand(seq).line.deal
    assert damaged.after in (None, deal_after(lines.evening.table, [lines.hand(seq)]))
    assert evening.next_deal == (lines.evening.next_deal if damaged.after is not None or seq < 4
                                 else next_deal(lines.hand(4).line.deal, None, E))
    assert_consistent(evening)
    assert go_on(path) == "read and written"


@settings(max_examples=60, deadline=None)
@given(seq=st.integers(1, 4), column=st.sampled_from(["others", "false_win", "reason", "net"]),
       at=st.integers(0, 10_000), mask=st.integers(1, 255))
def test_a_flipped_byte_in_a_lines_own_columns_stays_in_that_line(lines, tmp_path_factory, seq, column, at, mask):
    path, evening = flipped(lines, tmp_path_factory.mktemp("flip"), column, seq, at, mask)
    if evening.damaged:
        [damaged] = evening.damaged
        assert damaged.seq == seq and damaged.after in (None, deal_after(lines.evening.table, [lines.hand(seq)]))
    assert go_on(path) == "read and written"
