"""A table's memory of its tile set in the ledger file (ledger/store.py, schema v5): kept across a restart,
changed under the write lock so two phones teaching at once both land, bounded, reset, and a damaged one
given back for the reader to refuse. Real SQLite files, real threads each with its own connections."""

import json
import sqlite3
import threading
import time

import pytest

import ledger.store
from ledger import MAX_MEMORY_BYTES, Ledger, LedgerError, StoredMemory, draw
from scoring.payout import Deal
from tests.test_ledger import old_schema, old_table


@pytest.fixture
def book(tmp_path):
    led = Ledger(tmp_path / "taishu.db")
    led.open_table("friday")
    return led


def appended(item: str, pause: float = 0.0):
    """A change that adds `item` to a JSON list of items (pausing between its read and its write)."""
    def change(data: bytes | None) -> bytes:
        items = json.loads(data) if data else []
        time.sleep(pause)
        return json.dumps([*items, item]).encode()
    return change


def test_a_memory_is_kept_beside_the_table_across_a_restart(book):
    assert book.memory("friday") == StoredMemory(None, 0) and book.memory_revision("friday") == 0
    table_revision = book.revision("friday")
    assert book.change_memory("friday", appended("a")) == StoredMemory(b'["a"]', 1)
    assert book.change_memory("friday", appended("b")).revision == 2
    again = Ledger(book.path)  # the app started again, or a second phone
    assert again.memory("friday") == StoredMemory(b'["a", "b"]', 2) and again.memory_revision("friday") == 2
    assert again.revision("friday") == table_revision  # teaching moves no phone to read the evening again
    again.open_table("other")
    assert again.memory("other") == StoredMemory(None, 0)  # each table its own


def test_a_reset_forgets_and_never_goes_back_to_a_revision_a_page_saw(book):
    book.change_memory("friday", appended("a"))
    assert book.reset_memory("friday") == StoredMemory(None, 2)
    assert book.memory("friday") == StoredMemory(None, 2)
    assert book.change_memory("friday", appended("b")) == StoredMemory(b'["b"]', 3)


def test_a_memory_too_big_or_not_bytes_is_refused_and_a_failed_change_leaves_it(book):
    book.change_memory("friday", appended("a"))
    with pytest.raises(LedgerError, match="記住的牌太多了"):
        book.change_memory("friday", lambda data: b"x" * (MAX_MEMORY_BYTES + 1))
    with pytest.raises(LedgerError, match="記住的牌太多了"):
        book.change_memory("friday", lambda data: "not bytes")
    with pytest.raises(ZeroDivisionError):
        book.change_memory("friday", lambda data: 1 // 0)
    assert book.memory("friday") == StoredMemory(b'["a"]', 1)
    assert book.change_memory("friday", lambda data: b"x" * MAX_MEMORY_BYTES).revision == 2  # the bound itself
    with pytest.raises(LedgerError, match="沒有代號「nobody」的牌桌"):
        book.change_memory("nobody", appended("a"))


def test_two_phones_teaching_at_once_both_land_whole(book):
    """Each change reads the memory, pauses, and writes it back with one more item: were the read and the
    write not under one lock, the two phones would write over each other's items."""
    count, errors, torn = 15, [], []
    start = threading.Barrier(3)

    def phone(name: str) -> None:
        led = Ledger(book.path)  # its own connections, as each Streamlit session has
        start.wait()
        try:
            for i in range(count):
                led.change_memory("friday", appended(f"{name}{i}", pause=0.005))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def reader() -> None:
        led = Ledger(book.path)
        start.wait()
        while any(t.is_alive() for t in writers):
            data = led.memory("friday").data
            try:
                json.loads(data or b"[]")
            except ValueError:
                torn.append(data)

    writers = [threading.Thread(target=phone, args=(name,)) for name in "ab"]
    watching = threading.Thread(target=reader)
    for thread in (*writers, watching):
        thread.start()
    for thread in (*writers, watching):
        thread.join(120)
    assert not errors and not torn
    stored = book.memory("friday")
    items = json.loads(stored.data)
    assert sorted(items) == sorted(f"{n}{i}" for n in "ab" for i in range(count)) and stored.revision == 2 * count
    for name in "ab":  # each phone's in the order it taught them
        assert [x for x in items if x[0] == name] == [f"{name}{i}" for i in range(count)]


def test_a_version_4_file_is_migrated_with_no_memory_and_its_hands(tmp_path):
    path = tmp_path / "v4.db"
    with old_schema(path, 4) as db:
        old_table(db, "t", "tw16-2026.09-p0", 3)
        db.execute("INSERT INTO hands (table_code, seq, recorded_at, round, dealer, streak, total, items, net,"
                   " revision, recorded_revision) VALUES ('t', 1, '2026-11-01T20:30:00+08:00', 'E', 'E', 0, 0, '[]',"
                   " '[0, 0, 0, 0]', 3, 3)")
    led = Ledger(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == ledger.store.SCHEMA_VERSION
    [hand] = led.hands("t")
    assert hand.line == draw(Deal()) and hand.revision == 3 == led.revision("t")
    assert led.memory("t") == StoredMemory(None, 0)
    assert led.change_memory("t", appended("a")).revision == 1 and Ledger(path).memory("t").data == b'["a"]'


def test_a_damaged_memory_row_is_given_back_for_the_reader_to_refuse(book):
    book.change_memory("friday", appended("a"))
    with sqlite3.connect(book.path) as db:  # the blob written over as text, the revision as garbage
        db.execute("UPDATE memories SET data = 'half a memo', revision = 'x'")
    assert book.memory("friday") == StoredMemory(b"half a memo", -1) and book.memory_revision("friday") == -1
    assert book.change_memory("friday", lambda data: data + b"ry") == StoredMemory(b"half a memory", 1)
