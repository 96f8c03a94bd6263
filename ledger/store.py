"""The ledger file (SQLite): the tables and the hands recorded at each.

Every operation opens its own connection (Streamlit serves each phone from its own thread, and
several app processes may share the file) with a busy timeout, so a writer waits for another one
instead of failing. A write is one `BEGIN IMMEDIATE` transaction: it takes the write lock before it
reads what it depends on (the last hand's number, the hand's revision), so two phones confirming
at once are put one after the other. A phone confirms a hand as the number it expects the hand to
get: the same hand confirmed again (a second phone, a second tap) is found and not doubled, and a
different hand where the phone's view of the evening is stale is refused (`Conflict`) for the
player to look at.

Versions: the table's `revision` goes up by one with every write at the table (`Ledger.revision`,
one small query, tells a page whether to read the evening again), and each hand keeps the revision
at which it was last written (`Recorded.revision`) and the one at which it was first recorded.
`undo` and `edit` name the hand and the revision the page showed; when the hand has been edited,
replaced (undone and recorded again) or removed since, or for an undo is no longer the last, they
refuse with a `Conflict` that says which, carrying the hand as it is now.

Damage: rows are fetched whole (`fetchall`, so no statement is left running over a failure) and
read afterwards, a hand's row outside the transaction where it does not decide a write; a hand that
does not read back is reported as that hand (`Damaged`, see `rows`) and the evening goes on
without it: `state` returns the sound hands and the damaged ones, the totals and the CSV are the
sound hands', and the next deal is worked out from the last hand's plain columns where they are
sound (where they are not: as if that hand were a 流局, with a note that says so). A damaged hand
can be undone (when last) or edited like any other, and the next hand is recorded after it; a
damaged table row (settings, revision) or damaged hand numbers make the table unreadable, a
`LedgerError` that says so.

The table's memory of its own tile set (`vision/memory.py`'s bytes; the ledger does not read
them) is kept beside the table with a revision of its own (`Ledger.memory`, `memory_revision`), so
teaching it does not move the evening's revision (no phone re-reads the evening for it). A change
(`change_memory`) runs its function on the stored bytes under the write lock: two phones teaching at
once are put one after the other, each on the other's result, and the bytes are written whole (one
row, one transaction). At most MAX_MEMORY_BYTES are kept: a bigger memory is refused.

Players and 將: the money is the players' (by id, never reused), not the seats'. An evening (`evenings`;
the table's open one is `tables.evening`, the closed ones are kept) is played in 將, each with its
seating (the players' ids by seat) and its 起莊; each hand keeps its 將 and its seating, so the totals
are by player whatever seats they sat in, and a new name moves no money. The table's row holds what
every operation reads first, so one small query gives it: the players and the open 將 (the 將 before
it are kept in `jiangs`). A 將 ends when the deal would come back to 起莊 in the 北風圈
(`ledger.deal.ends_jiang`, `Evening.jiang_over`); the next one's seating is given or drawn here
(`start_jiang`), and where a hand is recorded without one, the same seating goes on in the next 將.

The schema is versioned (`PRAGMA user_version`): `MIGRATIONS[i]` takes a file from version i to
i + 1; opening a file migrates it in one transaction. Every failure of the file (not SQLite, locked,
read-only, from a newer taishu, damaged) is a `LedgerError` with words for the player; no other
exception leaves the ledger.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from scoring.hand import MAX_STAKE
from scoring.payout import Deal
from scoring.ruleset import DEFAULT_RULESET
from scoring.seats import SEATS, Seat, Wind

from .deal import deal_after_line, ends_jiang, next_deal
from .history import EveningRecord, History
from .line import LedgerLine
from .rows import (
    CUT_PER,
    HAND_COLUMNS,
    JIANG_COLUMNS,
    MAX_PLAYERS,
    PLAIN_COLUMNS,
    SELECTED,
    TABLE_COLUMNS,
    BadValue,
    CutRule,
    CutTaken,
    Damaged,
    Jiang,
    LedgerError,
    Player,
    Recorded,
    Seating,
    TableInfo,
    cut_rule_text,
    hand_values,
    plain_deals,
    players_text,
    read_hand,
    read_jiang,
    read_table,
    seating_of,
    seating_text,
    storable,
    text_or_bytes,
)

BUSY_TIMEOUT_S = 5.0  # a write waits this long for another phone's write before "locked"
CODE_LENGTH = 24
CODE = re.compile(rf"[a-z0-9][a-z0-9-]{{0,{CODE_LENGTH - 1}}}")
MAX_NAME = 24  # the page's names are at most this long
MAX_NUMBER = 1_000_000_000  # a hand's number and a revision at most: far beyond any evening, within SQLite's
# A table's memory at most: 43 classes x 4 examples x 192 floats is 89 KB as vision/memory.py stores it, which
# refuses a memory beyond its MAX_BYTES, the same bound (the ledger does not import vision; a test ties them).
MAX_MEMORY_BYTES = 512 * 1024

# The columns of `hands` before schema 6 (which adds evening, jiang and seating)
OLD_HAND_COLUMNS = ("table_code, seq, recorded_at, round, dealer, streak, winner, discarder, total, items, net, hand,"
                    " ruleset, photo_id, edited_at, revision, recorded_revision, others, false_win, reason")
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE tables (
            code TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            names TEXT NOT NULL,              -- JSON: four names by seat E S W N, "" for none
            first_dealer TEXT NOT NULL,       -- 起莊: the round wind moves when the deal comes back
            base INTEGER NOT NULL,
            per_tai INTEGER NOT NULL,
            ruleset TEXT NOT NULL,
            revision INTEGER NOT NULL DEFAULT 0  -- bumped by every write, so phones see a change
        )""",
        """CREATE TABLE hands (
            table_code TEXT NOT NULL REFERENCES tables(code),
            seq INTEGER NOT NULL,             -- 1, 2, ... in the order recorded
            recorded_at TEXT NOT NULL,
            round TEXT NOT NULL,
            dealer TEXT NOT NULL,
            streak INTEGER NOT NULL,
            winner TEXT,                      -- NULL: 流局
            discarder TEXT,                   -- NULL: self-drawn or 流局
            total INTEGER NOT NULL,
            items TEXT NOT NULL,              -- JSON [[name, tai], ...]
            net TEXT NOT NULL,                -- JSON [E, S, W, N]
            hand TEXT,                        -- JSON Hand.to_json() as scored, NULL for 流局
            ruleset TEXT,
            photo_id TEXT,
            PRIMARY KEY (table_code, seq)
        )""",
    ),
    ("ALTER TABLE hands ADD COLUMN edited_at TEXT",),  # 2: hands can be edited after they are recorded
    (  # 3: a hand's versions, so a stale undo or edit is refused; the hands already there take the table's
        "ALTER TABLE hands ADD COLUMN revision INTEGER NOT NULL DEFAULT 0",  # the table's, when last written
        "ALTER TABLE hands ADD COLUMN recorded_revision INTEGER NOT NULL DEFAULT 0",  # when first recorded
        "UPDATE hands SET revision = coalesce((SELECT revision FROM tables WHERE code = hands.table_code), 0)",
        "UPDATE hands SET recorded_revision = revision",
    ),
    (  # 4: the other lines of an evening; NULL in every hand already there
        "ALTER TABLE hands ADD COLUMN others TEXT",  # JSON: more winners off the same discard (一炮多響)
        "ALTER TABLE hands ADD COLUMN false_win TEXT",  # JSON: a 詐胡 (caller, 台 claimed, waits, payments)
        "ALTER TABLE hands ADD COLUMN reason TEXT",  # a penalty's reason (its payments need not balance)
    ),
    (  # 5: the table's memory of its own tile set; none at the tables already there
        """CREATE TABLE memories (
            table_code TEXT PRIMARY KEY REFERENCES tables(code),
            data BLOB,                        -- vision/memory.py TableMemory.to_bytes(); NULL once reset
            revision INTEGER NOT NULL,        -- 1, 2, ... with each change, a reset too; no row: revision 0
            changed_at TEXT NOT NULL
        )""",
    ),
    (  # 6: players own the money, not seats; evenings of 將. A table's four names become its players 1-4, its
        # hands (all of them its first evening's first 將) seated 1-4 by seat, as they were: no money moves.
        # The table's row keeps what every operation reads first: its players and its open 將.
        "ALTER TABLE tables ADD COLUMN players TEXT NOT NULL DEFAULT '[]'",  # JSON [[id, name], ...]: ids never reused
        """UPDATE tables SET players = json_array(
            json_array(1, CASE WHEN json_valid(names) AND json_type(names, '$[0]') = 'text'
                               THEN json_extract(names, '$[0]') ELSE '' END),
            json_array(2, CASE WHEN json_valid(names) AND json_type(names, '$[1]') = 'text'
                               THEN json_extract(names, '$[1]') ELSE '' END),
            json_array(3, CASE WHEN json_valid(names) AND json_type(names, '$[2]') = 'text'
                               THEN json_extract(names, '$[2]') ELSE '' END),
            json_array(4, CASE WHEN json_valid(names) AND json_type(names, '$[3]') = 'text'
                               THEN json_extract(names, '$[3]') ELSE '' END))""",
        "ALTER TABLE tables DROP COLUMN names",  # the players' now
        "ALTER TABLE tables ADD COLUMN evening INTEGER NOT NULL DEFAULT 1",  # the open evening (evenings.number)
        # the open 將 (its first_dealer is the table's 起莊 column): number, seating (JSON: the players' ids by
        # seat E S W N), drawn (1: the seating was drawn at random), when it started
        "ALTER TABLE tables ADD COLUMN jiang INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE tables ADD COLUMN seating TEXT NOT NULL DEFAULT '[1, 2, 3, 4]'",
        "ALTER TABLE tables ADD COLUMN drawn INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE tables ADD COLUMN jiang_started_at TEXT",
        "UPDATE tables SET jiang_started_at = created_at",
        "ALTER TABLE tables ADD COLUMN cut_rule TEXT",  # JSON: 東錢, a table option; NULL: none
        """CREATE TABLE evenings (
            table_code TEXT NOT NULL REFERENCES tables(code),
            number INTEGER NOT NULL,          -- 1, 2, ...: the table's open one is tables.evening
            opened_at TEXT NOT NULL,
            closed_at TEXT,                   -- NULL while open
            PRIMARY KEY (table_code, number)
        ) WITHOUT ROWID""",
        "INSERT INTO evenings (table_code, number, opened_at) SELECT code, 1, created_at FROM tables",
        """CREATE TABLE jiangs (               -- each evening's 將 before its open one (that one: on the table's row)
            table_code TEXT NOT NULL REFERENCES tables(code),
            evening INTEGER NOT NULL,
            number INTEGER NOT NULL,          -- 1, 2, ... in the evening
            seating TEXT NOT NULL,            -- JSON: the players' ids by seat E S W N
            first_dealer TEXT NOT NULL,       -- 起莊
            drawn INTEGER NOT NULL,           -- 1: the seating was drawn at random
            started_at TEXT NOT NULL,
            PRIMARY KEY (table_code, evening, number)
        ) WITHOUT ROWID""",
        """CREATE TABLE hands_by_player (
            table_code TEXT NOT NULL REFERENCES tables(code),
            evening INTEGER NOT NULL,
            seq INTEGER NOT NULL,             -- 1, 2, ... in the order recorded, in each evening
            jiang INTEGER NOT NULL,           -- the 將 of the evening it was played in
            seating TEXT NOT NULL,            -- JSON: who sat where, the players' ids by seat E S W N
            recorded_at TEXT NOT NULL, round TEXT NOT NULL, dealer TEXT NOT NULL, streak INTEGER NOT NULL,
            winner TEXT, discarder TEXT, total INTEGER NOT NULL, items TEXT NOT NULL, net TEXT NOT NULL, hand TEXT,
            ruleset TEXT, photo_id TEXT, edited_at TEXT, revision INTEGER NOT NULL DEFAULT 0,
            recorded_revision INTEGER NOT NULL DEFAULT 0, others TEXT, false_win TEXT, reason TEXT,
            cut TEXT,                         -- JSON: the 東錢 taken on it (who paid, who got it); NULL: none
            PRIMARY KEY (table_code, evening, seq)
        )""",
        f"INSERT INTO hands_by_player (evening, jiang, seating, {OLD_HAND_COLUMNS})"
        f" SELECT 1, 1, '[1, 2, 3, 4]', {OLD_HAND_COLUMNS} FROM hands",
        "DROP TABLE hands",
        "ALTER TABLE hands_by_player RENAME TO hands",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)
SELECT_HANDS = f"SELECT {', '.join(SELECTED)} FROM hands WHERE table_code = ? AND evening = ?"


class Conflict(LedgerError):
    """The evening changed since this phone looked: another phone recorded, edited or undid a hand.
    The message says what changed; `current` is the hand in question as it is now (None where it
    is gone or not recorded yet) and `latest` the last hand now recorded (None where there is none)."""

    def __init__(self, message: str, current: Recorded | Damaged | None, latest: Recorded | Damaged | None) -> None:
        super().__init__(message)
        self.current = current
        self.latest = latest


@dataclass(frozen=True)
class StoredMemory:
    """A table's memory as stored: its bytes (None: nothing taught yet, or reset) and its revision (0 before
    the first change; -1 where the stored revision is unreadable). The bytes are checked by whoever reads
    them (vision/memory.py): a value that is not a blob comes back as its text's bytes, to be refused there."""

    data: bytes | None
    revision: int


@dataclass(frozen=True)
class Evening:
    """A table and its hands as read in one transaction: the sound hands and the damaged ones."""

    table: TableInfo
    hands: list[Recorded]  # in seq order: the totals, the chart and the CSV are these
    damaged: list[Damaged]  # in seq order: hands that do not read back, each with its message

    @property
    def rows(self) -> Sequence[Recorded | Damaged]:
        """Every hand, sound or damaged, in seq order."""
        if not self.damaged:
            return self.hands
        return sorted([*self.hands, *self.damaged], key=lambda r: r.seq)

    @property
    def last_seq(self) -> int:
        """The last hand's number, sound or damaged (0: none yet); the next is recorded after it."""
        return max(self.hands[-1].seq if self.hands else 0, self.damaged[-1].seq if self.damaged else 0)

    @property
    def next_seq(self) -> int:
        return self.last_seq + 1

    @property
    def next_deal(self) -> Deal:
        """The next hand's deal (莊家, 連莊, 圈風), from the last hand of the open 將."""
        return deal_after(self.table, self.rows)

    @property
    def jiang_over(self) -> bool:
        """The open 將 has ended (the deal would come back to 起莊 in the 北風圈): the table draws or gives the
        next 將's seating (`Ledger.start_jiang`); a hand recorded without one goes on in a 將 of the same seating."""
        return _jiang_over(self.table.jiang, self.rows)

    @property
    def deal_note(self) -> str | None:
        """For the player, where the last hand is damaged and `next_deal` is a guess."""
        last = self.rows[-1] if self.hands or self.damaged else None
        if isinstance(last, Damaged) and last.after is None:
            return (f"第 {last.seq} 局壞了，看不出是誰胡的：下一局先當那一局流局（莊家連莊）來排，"
                    "請核對莊家、連莊和圈風")
        return None


def table_code(text: str) -> str:
    """A table's code from the page (untrusted): invisible characters folded away (a zero-width space a chat
    app adds to a link, a word joiner, a BOM: Unicode's format characters), trimmed, lower case, 1-24 of
    a-z 0-9 -. A code refused is shown as typed, each character other than a letter, a digit or - as ？
    (no markup or link back to the page, and never a code that would be taken)."""
    code = "".join(ch for ch in text if unicodedata.category(ch) != "Cf").strip().lower() \
        if isinstance(text, str) else ""
    if CODE.fullmatch(code):
        return code
    rule = "請用 1 到 24 個英文字母、數字或 -（開頭不能是 -）"
    if not code:
        raise LedgerError(f"牌桌代號是空的：{rule}")
    shown = "".join(ch if ch.isalnum() or ch == "-" else "？" for ch in code[:CODE_LENGTH])
    raise LedgerError(f"牌桌代號「{shown}{'…' if len(code) > CODE_LENGTH else ''}」不能用：{rule}")


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _error(exc: sqlite3.Error | UnicodeDecodeError, path: Path) -> LedgerError:
    """The words for a failed SQLite call (a UnicodeDecodeError: SQLite's own message quoted a
    damaged schema that is not UTF-8 any more)."""
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in text:
        why = f"帳本檔 {path} 不是 SQLite 資料庫（可能是別的檔案或壞了）；換一個檔名或移走它"
    elif isinstance(exc, UnicodeDecodeError) or "malformed" in text:
        why = f"帳本檔 {path} 壞了（SQLite 讀不出它的結構）；換一個檔名，壞的檔案留著給懂的人救"
    elif "locked" in text or "busy" in text:
        why = f"帳本檔 {path} 正被別的程式鎖住，請稍後再試"
    elif "readonly" in text or "unable to open" in text or "read-only" in text:
        why = f"帳本檔 {path} 開不了或不能寫入：檔案或它所在的資料夾是唯讀的、或資料夾不存在"
    else:
        why = f"帳本檔 {path} 讀寫失敗"
    return LedgerError(f"{why}（{text}）")


def _whole_number(value: object, what: str, low: int, high: int) -> int:
    """A number from the page (untrusted) as an int in [low, high], or a LedgerError naming it."""
    if type(value) is not int or not low <= value <= high:
        raise LedgerError(f"{what}要是 {low} 到 {high} 的整數，不是「{str(value)[:20]}」")
    return value


def _seen(revision: object) -> int | None:
    """The revision a page names a hand by: a whole number, None for a damaged hand's unreadable one."""
    return None if revision is None else _whole_number(revision, "版本", 0, MAX_NUMBER)


def _settings(base: object, per_tai: object, ruleset: object, first_dealer: object) -> None:
    _whole_number(base, "底", 0, MAX_STAKE)
    _whole_number(per_tai, "每台", 0, MAX_STAKE)
    if not isinstance(ruleset, str) or not ruleset:
        raise LedgerError("台數規則要有名字")
    if not isinstance(first_dealer, Seat):
        raise LedgerError("起莊要是東家、南家、西家或北家")


class Ledger:
    """The ledger file at `path`, created and migrated to `SCHEMA_VERSION` when opened."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        with self._session(write=False) as db:
            version = db.execute("PRAGMA user_version").fetchall()[0][0]
        if version != SCHEMA_VERSION:
            self._migrate()

    @contextmanager
    def _session(self, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction on its own connection; IMMEDIATE (the write lock first) for a write.
        Whatever fails inside, the transaction is rolled back and the connection closed."""
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise _error(exc, self.path) from exc
        db.text_factory = text_or_bytes  # text that is not UTF-8 is read as a damaged value, not a failed fetch
        try:
            db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            yield db
            db.execute("COMMIT")
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise _error(exc, self.path) from exc
        finally:
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # the file is gone bad under us: the error above says so already
            db.close()

    def _migrate(self) -> None:
        with self._session(write=True) as db:
            version = db.execute("PRAGMA user_version").fetchall()[0][0]
            if version > SCHEMA_VERSION:
                raise LedgerError(f"帳本檔 {self.path} 是較新版的 taishu 寫的（版本 {version}，這一版只認得到 "
                                  f"{SCHEMA_VERSION}）：請更新 taishu")
            if version == 0 and db.execute("SELECT count(*) FROM sqlite_master").fetchall()[0][0]:
                raise LedgerError(f"帳本檔 {self.path} 是別的程式的 SQLite 資料庫，不是 taishu 的帳本；換一個檔名")
            for steps in MIGRATIONS[max(version, 0):]:
                for statement in steps:
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- tables ----------------------------------------------------------------------------------
    def open_table(self, code: str, base: int = 100, per_tai: int = 20, ruleset: str = DEFAULT_RULESET,
                   first_dealer: Seat = Seat.E) -> TableInfo:
        """The table `code`, made with these settings when it does not exist yet."""
        code = table_code(code)
        _settings(base, per_tai, ruleset, first_dealer)
        with self._session(write=False) as db:
            found = _fetch_table(db, code)
        if found:
            return _table_info(code, found)
        with self._session(write=True) as db:
            now = _now()
            # four players without names, seated 1-4, in the first evening's first 將
            players = players_text(tuple(Player(n, "") for n in (1, 2, 3, 4)))
            made = db.execute("INSERT OR IGNORE INTO tables (code, created_at, base, per_tai, ruleset, players,"
                              " jiang, seating, first_dealer, drawn, jiang_started_at)"
                              " VALUES (?, ?, ?, ?, ?, ?, 1, '[1, 2, 3, 4]', ?, 0, ?)",
                              (code, now, base, per_tai, ruleset, players, first_dealer.code, now)).rowcount
            if made:
                db.execute("INSERT INTO evenings (table_code, number, opened_at) VALUES (?, 1, ?)", (code, now))
            found = _fetch_table(db, code)
        return _table_info(code, found)

    def update_table(self, code: str, names: tuple[str, ...], first_dealer: Seat, base: int, per_tai: int,
                     ruleset: str) -> TableInfo:
        """The names of the players sitting now, by seat 東家 南家 西家 北家 (each player renamed: no money moves),
        the 將's 起莊 and the stakes."""
        if not isinstance(names, tuple | list) or len(names) != 4 or not all(isinstance(n, str) for n in names):
            raise LedgerError(f"要四個名字（東家、南家、西家、北家），每個最多 {MAX_NAME} 個字")
        names = tuple(_name(n) for n in names)
        _settings(base, per_tai, ruleset, first_dealer)
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            renamed = {p.id: p.name for p in table.players} | dict(zip(table.seating, names, strict=True))
            _distinct(renamed.values())
            players = tuple(Player(i, n) for i, n in renamed.items())
            db.execute("UPDATE tables SET players = ?, first_dealer = ?, base = ?, per_tai = ?, ruleset = ?,"
                       " revision = ? WHERE code = ?", (players_text(players), first_dealer.code, base, per_tai,
                                                        ruleset, table.revision + 1, code))
        return replace(table, players=players, jiang=replace(table.jiang, first_dealer=first_dealer), base=base,
                       per_tai=per_tai, ruleset=ruleset, revision=table.revision + 1)

    def change_stakes(self, code: str, base: int, per_tai: int, ruleset: str) -> TableInfo:
        """The table's 底, 每台 and ruleset changed, its names and 起莊 as they are now (read under the write lock:
        another phone's names saved meanwhile are kept)."""
        _settings(base, per_tai, ruleset, Seat.E)
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            db.execute("UPDATE tables SET base = ?, per_tai = ?, ruleset = ?, revision = ? WHERE code = ?",
                       (base, per_tai, ruleset, table.revision + 1, code))
        return replace(table, base=base, per_tai=per_tai, ruleset=ruleset, revision=table.revision + 1)

    def revision(self, code: str) -> int:
        """The table's revision: one small query, so a page can keep the evening it read until it changes."""
        with self._session(write=False) as db:
            found = db.execute("SELECT revision FROM tables WHERE code = ?", (code,)).fetchall()
        if not found:
            raise _no_table(code)
        if type(found[0][0]) is not int:
            raise _damaged_table(code, BadValue("revision"))
        return found[0][0]

    def state(self, code: str) -> Evening:
        """The table and its hands in seq order, read in one transaction (one consistent view) and
        checked once it is over: the sound hands, and the damaged ones reported."""
        with self._session(write=False) as db:
            table = _table_info(code, _fetch_table(db, code))
            rows = db.execute(SELECT_HANDS + " ORDER BY seq", (code, table.evening)).fetchall()
        return _evening(table, rows)

    def hands(self, code: str) -> list[Recorded]:
        """The table's sound hands in seq order."""
        return self.state(code).hands

    # -- the table's memory of its tiles ------------------------------------------------------------------
    def memory_revision(self, code: str) -> int:
        """The memory's revision: one small query, so a page keeps the memory it read until it changes."""
        with self._session(write=False) as db:
            return _stored_memory(db, code, with_data=False).revision

    def memory(self, code: str) -> StoredMemory:
        with self._session(write=False) as db:
            return _stored_memory(db, code, with_data=True)

    def change_memory(self, code: str, change: Callable[[bytes | None], bytes | None]) -> StoredMemory:
        """The table's memory replaced by `change(stored bytes)` (None: no memory), read and written under the
        write lock, as the next revision. Whatever `change` raises leaves the memory as it was."""
        with self._session(write=True) as db:
            _table_for_write(db, code)
            now = _stored_memory(db, code, with_data=True)
            data = change(now.data)
            if data is not None and (not isinstance(data, bytes) or len(data) > MAX_MEMORY_BYTES):
                size = len(data) if isinstance(data, bytes) else 0
                raise LedgerError(f"這一桌記住的牌太多了（{size // 1024} KB，最多 {MAX_MEMORY_BYTES // 1024} KB），"
                                  "沒有存：請清除後重新教")
            # never back to a revision a page may have seen: a reset is a revision too (the row stays)
            revision = max(now.revision, 0) + 1  # an unreadable one (-1) is written over
            db.execute("INSERT OR REPLACE INTO memories (table_code, data, revision, changed_at) VALUES (?, ?, ?, ?)",
                       (code, data, revision, _now()))
        return StoredMemory(data, revision)

    def reset_memory(self, code: str) -> StoredMemory:
        """The table forgets its tiles (a new set on the table, or a memory gone bad)."""
        return self.change_memory(code, lambda _: None)

    # -- hands -----------------------------------------------------------------------------------
    def record(self, code: str, line: LedgerLine, expected_seq: int, seating: Seating | None = None,
               first_dealer: Seat | None = None) -> Recorded:
        """Record `line` as hand `expected_seq` of the open evening (the number this phone expects it to get:
        the one after the last hand, sound or damaged), played by the open 將's seating. `seating` and
        `first_dealer`, where given, are the 將's as the phone showed them: others are a `Conflict` (another
        phone drew the seats or set 起莊 meanwhile). After a hand that ended the 將, with no next 將 started,
        it goes on in a new 將 of the same seating and 起莊. When that hand is already recorded as the same
        hand, return it (confirmed twice: kept once); when the evening has moved on otherwise, raise
        `Conflict`. Reads no hand but the ones it names: the cost does not grow with the evening."""
        expected_seq = _whole_number(expected_seq, "局號", 1, MAX_NUMBER)
        shown = None if seating is None else _seating(seating)
        if first_dealer is not None and not isinstance(first_dealer, Seat):
            raise LedgerError("起莊要是東家、南家、西家或北家")
        new = _storable(Recorded(expected_seq, line, _now(), None, 0))
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            last, plain = _last_hand(db, table)
            if expected_seq == last + 1:
                jiang = table.jiang
                if _open_jiang(table, plain)[1]:  # no next 將 started: the same seating and 起莊 go on
                    jiang = Jiang(jiang.number + 1, jiang.seating, jiang.first_dealer, False, _now())
                    _next_jiang(db, table, jiang)
                if shown is not None and shown != jiang.seating:
                    raise Conflict("別的手機剛換了座位：看過現在的座位再記這一局", None, None)
                if first_dealer is not None and first_dealer != jiang.first_dealer:
                    raise Conflict(f"這一將改由{jiang.first_dealer.zh}起莊了（別的手機剛改的）："
                                   "看過現在的莊家再記這一局", None, None)
                cut = _cut(db, table, line, expected_seq)
                return _insert(db, code, table.evening, replace(new, revision=table.revision + 1, jiang=jiang.number,
                                                                seating=jiang.seating, cut=cut))
            found = _fetch_hands(db, code, table.evening, expected_seq, last)
        current, latest = (_read(found, n, table) for n in (expected_seq, last))
        if isinstance(current, Recorded) and current.line.same_hand(line):
            return current
        if expected_seq > last + 1:
            message = f"帳本剛被別的手機改過：有局被刪了，現在記到第 {last} 局"
        else:
            message = f"別的手機剛記了第 {expected_seq} 局，現在記到第 {last} 局"
        raise Conflict(message, current, latest)

    def edit(self, code: str, seq: int, line: LedgerLine, revision: int | None) -> Recorded:
        """Put `line` in place of hand `seq` of the open evening, still at `revision` (the one the page
        showed; a damaged hand's, None where unreadable, too). The hand keeps its 將 and its seating (the
        players who played it); the totals follow: they are sums of the hands; the hands after it keep the
        deals they were played under. `Conflict` where that hand was edited, replaced or removed since."""
        seq, seen = _whole_number(seq, "局號", 1, MAX_NUMBER), _seen(revision)
        new = _storable(Recorded(seq, line, _now(), _now(), 0))
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            last = _last_seq(db, code, table.evening)
            was = db.execute("SELECT revision, recorded_revision, recorded_at, jiang, seating FROM hands"
                             " WHERE table_code = ? AND evening = ? AND seq = ?", (code, table.evening, seq)).fetchall()
            if was and _same_version(was[0][0], seen):
                kept = was[0][2] if type(was[0][2]) is str else new.recorded_at  # a damaged time: now
                jiang, seating = _played_by(db, table, was[0][3], was[0][4])
                return _update(db, code, table.evening, replace(new, recorded_at=kept, revision=table.revision + 1,
                                                                jiang=jiang, seating=seating,
                                                                cut=_cut(db, table, line, seq)))
            found = _fetch_hands(db, code, table.evening, seq, last)
        raise Conflict(_stale(seq, seen, was, last), _read(found, seq, table), _read(found, last, table))

    def undo(self, code: str, seq: int, revision: int | None) -> Recorded | Damaged:
        """Remove hand `seq` if it is still the last one of the open evening and still at `revision` (the one
        the page showed; a damaged hand can be removed, by its revision or None where that is unreadable,
        so the table can go on). A 將 started after it, with no hand yet, goes with it (its seating was
        taken because of that hand). Returns the hand removed; `Conflict` where it was edited, replaced or
        removed since, or hands were recorded after it."""
        seq, seen = _whole_number(seq, "局號", 1, MAX_NUMBER), _seen(revision)
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            last = _last_seq(db, code, table.evening)
            found = _fetch_hands(db, code, table.evening, seq, last)
            was = db.execute("SELECT revision, recorded_revision, jiang FROM hands"
                             " WHERE table_code = ? AND evening = ? AND seq = ?", (code, table.evening, seq)).fetchall()
            removed = bool(was) and seq == last and _same_version(was[0][0], seen)
            if removed:
                db.execute("DELETE FROM hands WHERE table_code = ? AND evening = ? AND seq = ?",
                           (code, table.evening, seq))
                if type(was[0][2]) is int and table.jiang.number > was[0][2]:  # seats drawn after it
                    _back_to_jiang(db, table, was[0][2])
                _bump(db, code, table.revision + 1)
        current = _read(found, seq, table)
        if removed:
            assert current is not None  # it was there to be removed
            return current
        if was and _same_version(was[0][0], seen):
            raise Conflict(f"第 {seq} 局之後又記了 {last - seq} 局（現在記到第 {last} 局），只能刪最後一局",
                           current, _read(found, last, table))
        raise Conflict(_stale(seq, seen, was, last), current, _read(found, last, table))

    def set_cut(self, code: str, rule: CutRule | None) -> TableInfo:
        """東錢 from now on (None: none): each hand recorded or edited afterwards takes it, up to its cap over
        the evening (the hands already taken keep theirs)."""
        if rule is not None:
            if not isinstance(rule, CutRule) or rule.per not in CUT_PER:
                raise LedgerError("東錢要說是從每次自摸、還是從每一局胡牌抽")
            _whole_number(rule.amount, "東錢每次", 1, MAX_STAKE)
            _whole_number(rule.cap, "東錢上限", rule.amount, MAX_NUMBER)
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            if rule is not None and rule.to is not None and (type(rule.to) is not int or rule.to not in _ids(table)):
                raise LedgerError("收東錢的人要是這一桌的玩家（或放進公費）")
            db.execute("UPDATE tables SET cut_rule = ?, revision = ? WHERE code = ?",
                       (cut_rule_text(rule), table.revision + 1, code))
        return replace(table, cut=rule, revision=table.revision + 1)

    # -- evenings ----------------------------------------------------------------------------------
    def close_evening(self, code: str, revision: int) -> TableInfo:
        """The open evening closed (kept, with its hands) and the next one opened, its first 將 seated as the
        last one was (the page asks for the seating and 起莊 again: `start_jiang` takes them before its first
        hand). `revision` is the table's as the page showed it: `Conflict` where it moved since."""
        seen = _whole_number(revision, "版本", 0, MAX_NUMBER)
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            if table.revision != seen:
                raise Conflict("帳剛被別的手機改過：看過現在的帳再結束這一晚", None, None)
            if not _last_seq(db, code, table.evening):
                raise LedgerError("這一晚還沒有記任何一局，不用結束")
            now, evening = _now(), table.evening + 1
            db.execute("UPDATE evenings SET closed_at = ? WHERE table_code = ? AND number = ?",
                       (now, code, table.evening))
            db.execute("INSERT OR REPLACE INTO evenings (table_code, number, opened_at) VALUES (?, ?, ?)",
                       (code, evening, now))
            jiang = Jiang(1, table.seating, table.first_dealer, False, now)
            _next_jiang(db, table, jiang)
            db.execute("UPDATE tables SET evening = ? WHERE code = ?", (evening, code))
            _bump(db, code, table.revision + 1)
        return replace(table, evening=evening, jiang=jiang, revision=table.revision + 1)

    def history(self, code: str) -> History:
        """Every evening of the table, the closed ones and the open one, with their 將 and sound hands, read in
        one transaction (`ledger.history`: each player's figures, CSV, JSON)."""
        with self._session(write=False) as db:
            table = _table_info(code, _fetch_table(db, code))
            evenings = db.execute("SELECT number, opened_at, closed_at FROM evenings WHERE table_code = ?"
                                  " ORDER BY number", (code,)).fetchall()
            jiangs = db.execute(f"SELECT evening, {', '.join(JIANG_COLUMNS)} FROM jiangs WHERE table_code = ?"
                                " ORDER BY evening, number", (code,)).fetchall()
            rows = db.execute(f"SELECT evening, {', '.join(SELECTED)} FROM hands WHERE table_code = ?"
                              " ORDER BY evening, seq", (code,)).fetchall()
        ids, kept, damaged = _ids(table), [], 0
        try:
            for number, opened_at, closed_at in evenings:
                hands = []
                for row in (r[1:] for r in rows if r[0] == number):
                    read = read_hand(row, table.first_dealer, ids)
                    if isinstance(read, Recorded):
                        hands.append(read)
                    else:
                        damaged += 1
                played = tuple(read_jiang(j[1:], ids) for j in jiangs if j[0] == number)
                kept.append(EveningRecord(number, opened_at, closed_at,
                                          (*played, table.jiang) if number == table.evening else played,
                                          tuple(hands)))
        except BadValue as bad:
            raise _damaged_table(code, bad) from None
        return History(table.code, table.created_at, table.base, table.per_tai, table.ruleset, table.cut,
                       table.players, tuple(kept), damaged)

    # -- players, 將 -------------------------------------------------------------------------------
    def add_player(self, code: str, name: str) -> TableInfo:
        """A new player at the table (someone joining, or the host who takes the 東錢), not seated yet."""
        name = _name(name)
        if not name:
            raise LedgerError("新玩家要有名字")
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            if len(table.players) >= MAX_PLAYERS:
                raise LedgerError(f"一桌最多記 {MAX_PLAYERS} 位玩家")
            _distinct([*(p.name for p in table.players), name])
            player = Player(max(p.id for p in table.players) + 1, name)
            players = (*table.players, player)
            db.execute("UPDATE tables SET players = ? WHERE code = ?", (players_text(players), code))
            _bump(db, code, table.revision + 1)
        return replace(table, players=players, revision=table.revision + 1)

    def rename_player(self, code: str, player: int, name: str) -> TableInfo:
        """Player `player` called `name` from now on: the money stays theirs (it is kept by id)."""
        name = _name(name)
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            if type(player) is not int or player not in _ids(table):
                raise LedgerError(f"這一桌沒有第 {str(player)[:12]} 號玩家")
            _distinct([*(p.name for p in table.players if p.id != player), name])
            players = tuple(Player(p.id, name) if p.id == player else p for p in table.players)
            db.execute("UPDATE tables SET players = ? WHERE code = ?", (players_text(players), code))
            _bump(db, code, table.revision + 1)
        return replace(table, players=players, revision=table.revision + 1)

    def start_jiang(self, code: str, revision: int, seating: Seating | None = None,
                    first_dealer: Seat | None = None) -> TableInfo:
        """The next 將's seating and 起莊, once the open 將 has ended (or in place of the open 將's while it has
        no hand yet: seats drawn again). `seating` (the players' ids by seat) None: drawn at random among the
        players seated now, once, here, so every phone shows the same; `first_dealer` None: drawn too.
        `revision` is the table's as the page showed it: `Conflict` where it moved since (another phone
        recorded a hand, or drew the seats)."""
        seen = _whole_number(revision, "版本", 0, MAX_NUMBER)
        given = None if seating is None else _seating(seating)
        if first_dealer is not None and not isinstance(first_dealer, Seat):
            raise LedgerError("起莊要是東家、南家、西家或北家")
        with self._session(write=True) as db:
            table = _table_for_write(db, code)
            if table.revision != seen:
                raise Conflict("帳剛被別的手機改過（記了一局或排了座位）：看過現在的帳再排座位", None, None)
            if given is not None and not set(given) <= {p.id for p in table.players}:
                raise LedgerError("座位上有這一桌沒有的玩家")
            played, ended = _open_jiang(table, _last_hand(db, table)[1])
            if played and not ended:
                raise LedgerError(f"第 {table.jiang.number} 將還沒打完（北風圈打完才換位）")
            draw = random.SystemRandom()
            seats = given if given is not None else _shuffled(table.seating, draw)
            started = Jiang(table.jiang.number + 1 if played else table.jiang.number, seats,
                            first_dealer if first_dealer is not None else draw.choice(SEATS), given is None, _now())
            if played:
                _next_jiang(db, table, started)
            else:
                _set_open_jiang(db, code, started)
            _bump(db, code, table.revision + 1)
        return replace(table, jiang=started, revision=table.revision + 1)


def _no_table(code: str) -> LedgerError:
    return LedgerError(f"沒有代號「{str(code)[:40]}」的牌桌")


def _damaged_table(code: str, bad: BadValue) -> LedgerError:
    return LedgerError(f"帳本檔裡牌桌「{code}」的{bad.words}壞了，這一桌的帳讀不出來：請開一個新的牌桌代號，"
                       "壞的檔案留著給懂的人救")


def _stored_memory(db: sqlite3.Connection, code: str, with_data: bool) -> StoredMemory:
    columns = "revision, data" if with_data else "revision, NULL"
    found = db.execute(f"SELECT {columns} FROM memories WHERE table_code = ?", (code,)).fetchall()
    if not found:
        return StoredMemory(None, 0)
    revision, data = found[0]
    if data is not None and not isinstance(data, bytes):  # written as text or a number: damaged
        data = str(data).encode("utf-8", "replace")
    return StoredMemory(data, revision if type(revision) is int and 1 <= revision <= MAX_NUMBER else -1)


def _fetch_table(db: sqlite3.Connection, code: str) -> list[tuple]:
    return db.execute(f"SELECT {', '.join(TABLE_COLUMNS)} FROM tables WHERE code = ?", (code,)).fetchall()


def _table_info(code: str, found: list[tuple]) -> TableInfo:
    if not found:
        raise _no_table(code)
    try:
        return read_table(found[0])
    except BadValue as bad:
        raise _damaged_table(code, bad) from None


def _table_for_write(db: sqlite3.Connection, code: str) -> TableInfo:
    """The table a write is at, read under the write lock (a damaged one is not written to)."""
    return _table_info(code, _fetch_table(db, code))


def _last_seq(db: sqlite3.Connection, code: str, evening: int) -> int:
    """The evening's last hand's number (0: none), off the primary key's index: no hand is read."""
    last = db.execute("SELECT max(seq) FROM hands WHERE table_code = ? AND evening = ?",
                      (code, evening)).fetchall()[0][0]
    if last is None:
        return 0
    if type(last) is not int:
        raise _damaged_table(code, BadValue("seq"))
    return last


def _fetch_hands(db: sqlite3.Connection, code: str, evening: int, *seqs: int) -> list[tuple]:
    return db.execute(SELECT_HANDS + " AND seq IN (?, ?)", (code, evening, *seqs)).fetchall()


def _read(found: list[tuple], seq: int, table: TableInfo) -> Recorded | Damaged | None:
    """Hand `seq` among the fetched rows, read (after its transaction), None where it is not there."""
    return next((read_hand(row, table.first_dealer, _ids(table)) for row in found if row[0] == seq), None)


def _ids(table: TableInfo) -> frozenset[int]:
    return frozenset(p.id for p in table.players)


def _last_hand(db: sqlite3.Connection, table: TableInfo) -> tuple[int, dict | None]:
    """The evening's last hand's number (0: none) and its `PLAIN_COLUMNS` (None: none), off the primary key's
    index."""
    found = db.execute(f"SELECT seq, {', '.join(PLAIN_COLUMNS)} FROM hands WHERE table_code = ? AND evening = ?"
                       " ORDER BY seq DESC LIMIT 1", (table.code, table.evening)).fetchall()
    if not found:
        return 0, None
    if type(found[0][0]) is not int:
        raise _damaged_table(table.code, BadValue("seq"))
    return found[0][0], dict(zip(PLAIN_COLUMNS, found[0][1:], strict=True))


def _open_jiang(table: TableInfo, row: dict | None) -> tuple[bool, bool]:
    """Whether the open 將 has a hand (the evening's last, its plain columns `row`, is in it), and whether
    that hand ended it; where its columns are damaged, the 將 goes on."""
    if row is None:
        return False, False
    if row["jiang"] != table.jiang.number and type(row["jiang"]) is int:
        return False, False  # the open 將 was started after it
    if row["round"] != Wind.N.value:
        return True, False  # only a hand of the 北風圈 ends a 將
    deals = plain_deals(row, table.first_dealer)
    return True, deals is not None and ends_jiang(*deals)


def _jiang_over(jiang: Jiang, rows: Sequence[Recorded | Damaged]) -> bool:
    """The last of `rows` (an evening's) is in the open 將 `jiang` and ended it."""
    if not rows or rows[-1].jiang not in (jiang.number, None):
        return False
    last = rows[-1]
    if isinstance(last, Damaged):
        return last.played is not None and last.after is not None and ends_jiang(last.played, last.after)
    return ends_jiang(last.line.deal, deal_after_line(last.line, jiang.first_dealer))


def _played_by(db: sqlite3.Connection, table: TableInfo, jiang: object, seating: object) -> tuple[int, Seating]:
    """A hand's stored 將 and seating, as an edit keeps them; where damaged, its 將's seating (the open 將's
    where that is damaged too)."""
    number = jiang if type(jiang) is int and jiang >= 1 else table.jiang.number
    try:
        return number, seating_of(seating, _ids(table))
    except BadValue:
        found = [(table.seating,)] if number == table.jiang.number else db.execute(
            "SELECT seating FROM jiangs WHERE table_code = ? AND evening = ? AND number = ?",
            (table.code, table.evening, number)).fetchall()
        try:
            return number, seating_of(found[0][0] if found else None, _ids(table))
        except BadValue:
            return number, table.seating


def _cut(db: sqlite3.Connection, table: TableInfo, line: LedgerLine, seq: int) -> CutTaken | None:
    """The 東錢 hand `seq` takes under the table's rule: `amount` from each winner, in turn, while the evening's
    other hands have taken less than the cap. Reads only the hands that took some: at most cap / amount."""
    rule = table.cut
    winners = line.winners if rule is not None and (rule.per == "win" or line.discarder is None) else ()
    if rule is None or not winners:
        return None
    taken = db.execute("SELECT cut FROM hands WHERE table_code = ? AND evening = ? AND seq != ? AND cut IS NOT NULL",
                       (table.code, table.evening, seq)).fetchall()
    left = rule.cap
    for (stored,) in taken:
        try:
            left -= sum(n for _, n in json.loads(stored)["paid"])
        except (TypeError, ValueError, KeyError, RecursionError):
            continue  # a damaged hand's: it is not in the totals either
    paid = []
    for winner in winners:
        amount = min(rule.amount, left)
        if amount > 0:
            paid.append((winner, amount))
            left -= amount
    return CutTaken(tuple(paid), rule.to) if paid else None


def _keep_jiang(db: sqlite3.Connection, code: str, evening: int, jiang: Jiang) -> None:
    """A 將 that is no longer the open one, kept in `jiangs`."""
    db.execute("INSERT OR REPLACE INTO jiangs (table_code, evening, number, seating, first_dealer, drawn, started_at)"
               " VALUES (?, ?, ?, ?, ?, ?, ?)", (code, evening, jiang.number, seating_text(jiang.seating),
                                                 jiang.first_dealer.code, int(jiang.drawn), jiang.started_at))


def _set_open_jiang(db: sqlite3.Connection, code: str, jiang: Jiang) -> None:
    db.execute("UPDATE tables SET jiang = ?, seating = ?, first_dealer = ?, drawn = ?, jiang_started_at = ?"
               " WHERE code = ?", (jiang.number, seating_text(jiang.seating), jiang.first_dealer.code,
                                   int(jiang.drawn), jiang.started_at, code))


def _next_jiang(db: sqlite3.Connection, table: TableInfo, jiang: Jiang) -> None:
    """`jiang` the open 將 from now on (of the open evening, or the first of the next), the one before it kept."""
    _keep_jiang(db, table.code, table.evening, table.jiang)
    _set_open_jiang(db, table.code, jiang)


def _back_to_jiang(db: sqlite3.Connection, table: TableInfo, number: int) -> None:
    """The open 將 dropped for 將 `number` of the open evening, kept until now (where it reads back)."""
    found = db.execute(f"SELECT {', '.join(JIANG_COLUMNS)} FROM jiangs WHERE table_code = ? AND evening = ?"
                       " AND number = ?", (table.code, table.evening, number)).fetchall()
    try:
        back = read_jiang(found[0], _ids(table)) if found else None
    except BadValue:
        back = None
    if back is not None:
        db.execute("DELETE FROM jiangs WHERE table_code = ? AND evening = ? AND number >= ?",
                   (table.code, table.evening, number))
        _set_open_jiang(db, table.code, back)


def _seating(value: object) -> Seating:
    """A seating from the page (untrusted): four different players' ids, by seat."""
    if not isinstance(value, tuple | list) or len(value) != 4 or not all(
            type(i) is int and 1 <= i <= MAX_NUMBER for i in value) or len(set(value)) != 4:
        raise LedgerError("座位要是四位不同的玩家（東家、南家、西家、北家各一位）")
    east, south, west, north = value
    return east, south, west, north


def _shuffled(seating: Seating, draw: random.Random) -> Seating:
    east, south, west, north = draw.sample(seating, 4)
    return east, south, west, north


def _name(text: object) -> str:
    """A player's name from the page (untrusted): trimmed, at most MAX_NAME characters, no control or
    invisible ones; "" for none."""
    if not isinstance(text, str):
        raise LedgerError("玩家的名字要是文字")
    name = unicodedata.normalize("NFC", text).strip()
    if len(name) > MAX_NAME:
        raise LedgerError(f"玩家的名字最多 {MAX_NAME} 個字：「{name[:MAX_NAME]}…」太長了")
    if any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise LedgerError("玩家的名字裡有看不見的控制字元，請重新輸入")
    return name


def _distinct(names: Iterable[str]) -> None:
    """Two players never share a name (the page tells them apart by it); several may have none."""
    seen: set[str] = set()
    for name in names:
        if name and name.casefold() in seen:
            raise LedgerError(f"已經有一位玩家叫「{name}」了：請用別的名字")
        seen.add(name.casefold())


def _same_version(stored: object, seen: int | None) -> bool:
    """The hand is still at the revision the page saw (an unreadable stored one: the page saw None)."""
    return stored == seen if type(stored) is int else seen is None


def _stale(seq: int, seen: int | None, was: list[tuple], last: int) -> str:
    """What happened to hand `seq` since the page saw it at revision `seen`."""
    if not was:
        return f"第 {seq} 局已經被別的手機刪掉了，現在記到第 {last} 局"
    recorded_revision = was[0][1]
    if type(recorded_revision) is int and seen is not None and recorded_revision > seen:
        return f"第 {seq} 局已經被別的手機刪掉重記了，現在記到第 {last} 局"
    return f"第 {seq} 局剛被別的手機改過，現在記到第 {last} 局"


def _storable(r: Recorded) -> Recorded:
    if not isinstance(r.line, LedgerLine) or not isinstance(r.line.deal, Deal):
        raise LedgerError("沒有記下：要記的不是一局（ledger.LedgerLine）")
    try:
        return storable(r)
    except BadValue as bad:
        raise LedgerError(f"第 {r.seq} 局沒有記下：{bad.words}的資料不對") from None


def _bump(db: sqlite3.Connection, code: str, revision: int) -> None:
    db.execute("UPDATE tables SET revision = ? WHERE code = ?", (revision, code))


def _insert(db: sqlite3.Connection, code: str, evening: int, r: Recorded) -> Recorded:
    assert r.revision is not None  # the table's revision it is recorded as: `record` gives it
    db.execute(f"INSERT INTO hands (table_code, evening, recorded_revision, {', '.join(HAND_COLUMNS)})"
               f" VALUES (?, ?, ?{', ?' * len(HAND_COLUMNS)})", (code, evening, r.revision, *hand_values(r)))
    _bump(db, code, r.revision)
    return r


def _update(db: sqlite3.Connection, code: str, evening: int, r: Recorded) -> Recorded:
    """Hand `r.seq` written over with `r` (its first recorded revision kept: it was edited, not replaced)."""
    assert r.revision is not None  # the table's revision it is written as: `edit` gives it
    db.execute(f"UPDATE hands SET {', '.join(f'{c} = ?' for c in HAND_COLUMNS)}"
               " WHERE table_code = ? AND evening = ? AND seq = ?", (*hand_values(r), code, evening, r.seq))
    _bump(db, code, r.revision)
    return r


def _evening(table: TableInfo, rows: list[tuple]) -> Evening:
    seqs = [row[0] for row in rows]
    if not all(type(s) is int and s >= 1 for s in seqs) or any(a >= b for a, b in zip(seqs, seqs[1:], strict=False)):
        raise _damaged_table(table.code, BadValue("seq"))
    hands: list[Recorded] = []
    damaged: list[Damaged] = []
    ids = _ids(table)
    for row in rows:
        read = read_hand(row, table.first_dealer, ids)
        if isinstance(read, Recorded):
            hands.append(read)
        else:
            damaged.append(read)
    return Evening(table, hands, damaged)


# -- the evening from its hands ------------------------------------------------------------------------
def deal_after(table: TableInfo, hands: Sequence[Recorded | Damaged]) -> Deal:
    """The next hand's deal: after the last hand of the open 將, or the 將's first deal (東風圈, 起莊 dealing).
    A damaged last hand gives it from its plain columns where they are sound; where its winner is not, it
    counts as a 流局 (the dealer keeps the deal: `Evening.deal_note` says so), and where its deal is not
    either, it was played under the deal after the hand before it."""
    first = len(hands)  # hands[first:] are the open 將's (a damaged hand whose 將 is unreadable among them)
    while first and hands[first - 1].jiang in (table.jiang.number, None):
        first -= 1
    hands = hands[first:]
    known = len(hands)  # hands[known:] are damaged hands that do not say the deal after them
    while known and isinstance(last := hands[known - 1], Damaged) and last.after is None:
        known -= 1
    deal = Deal(Wind.E, table.first_dealer, 0) if not known else _after(hands[known - 1], table.first_dealer)
    for damaged in hands[known:]:
        assert isinstance(damaged, Damaged)  # the loop above passed only damaged hands
        deal = next_deal(deal if damaged.played is None else damaged.played, None, table.first_dealer)
    return deal


def _after(hand: Recorded | Damaged, first_dealer: Seat) -> Deal:
    if isinstance(hand, Damaged):
        assert hand.after is not None  # `deal_after` passes no damaged hand that does not say it
        return hand.after
    return deal_after_line(hand.line, first_dealer)


def totals(hands: Iterable[Recorded]) -> dict[int, int]:
    """Each player's money over `hands` (by player id): the sum of their payments, whatever seat they sat in."""
    out: dict[int, int] = {}
    for h in hands:
        for player, money in h.net_by_player.items():
            out[player] = out.get(player, 0) + money
    return out


def running_totals(hands: Sequence[Recorded]) -> list[tuple[int, dict[int, int]]]:
    """(hand number, each player's total after it), starting at (0, all zero), for every player with money on
    any of `hands` (by id, in id order)."""
    players = sorted({p for h in hands for p in h.net_by_player})  # the 東錢's taker need not be seated
    out = [(0, dict.fromkeys(players, 0))]
    for h in hands:
        after = dict(out[-1][1])
        for player, money in h.net_by_player.items():
            after[player] += money
        out.append((h.seq, after))
    return out


def jiang_totals(hands: Iterable[Recorded]) -> dict[int, dict[int, int]]:
    """Each 將's subtotals (by 將 number, in order): each player's money over its hands, by player id."""
    by_jiang: dict[int, list[Recorded]] = {}
    for h in hands:
        by_jiang.setdefault(h.jiang, []).append(h)
    return {number: totals(played) for number, played in sorted(by_jiang.items())}
