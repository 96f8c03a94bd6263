"""The ledger file (SQLite): the tables and the hands recorded at each.

Every operation opens its own connection (Streamlit serves each phone from its own thread, and
several app processes may share the file) with a busy timeout, so a writer waits for another one
instead of failing. A write is one `BEGIN IMMEDIATE` transaction: it takes the write lock before it
reads what it depends on (the last hand's number), so two phones confirming at once are put one
after the other. A phone confirms a hand as the number it expects the hand to get: the same hand
confirmed again (a second phone, a second tap) is found and not doubled, and a different hand
where the phone's view of the evening is stale is refused (`Conflict`) for the player to look at.

The schema is versioned (`PRAGMA user_version`): `MIGRATIONS[i]` takes a file from version i to
i + 1; opening a file migrates it in one transaction. Every failure of the file (not SQLite, locked,
read-only, from a newer taishu) is a `LedgerError` with words for the player.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from scoring.payout import Deal
from scoring.ruleset import DEFAULT_RULESET
from scoring.seats import SEATS, Seat, Wind

from .deal import next_deal
from .entry import Entry

BUSY_TIMEOUT_S = 5.0  # a write waits this long for another phone's write before "locked"
CODE = re.compile(r"[a-z0-9][a-z0-9-]{0,23}")

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
)
SCHEMA_VERSION = len(MIGRATIONS)


class LedgerError(Exception):
    """The ledger could not be read or written; the message is for the player."""


class Conflict(LedgerError):
    """The evening changed since this phone looked (another phone recorded or undid a hand)."""

    def __init__(self, message: str, latest: Recorded | None) -> None:
        super().__init__(message)
        self.latest = latest  # the last hand now recorded, None when there is none


@dataclass(frozen=True)
class TableInfo:
    code: str
    names: tuple[str, str, str, str]  # by seat 東家 南家 西家 北家; "" where not given
    first_dealer: Seat
    base: int
    per_tai: int
    ruleset: str
    revision: int
    created_at: str


@dataclass(frozen=True)
class Recorded:
    seq: int
    entry: Entry
    recorded_at: str
    edited_at: str | None = None


def table_code(text: str) -> str:
    """A table's code from the page (untrusted): trimmed, lower case, 1-24 of a-z 0-9 -."""
    code = text.strip().lower()
    if not CODE.fullmatch(code):
        shown = "".join(ch for ch in text[:40] if ch.isalnum() or ch in "-./ ")  # no markup back to the page
        raise LedgerError(f"牌桌代號「{shown}」不能用：請用 1 到 24 個英文字母、數字或 -（開頭不能是 -）")
    return code


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _error(exc: sqlite3.Error, path: Path) -> LedgerError:
    """The words for a failed SQLite call."""
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in text:
        why = f"帳本檔 {path} 不是 SQLite 資料庫（可能是別的檔案或壞了）；換一個檔名或移走它"
    elif "locked" in text or "busy" in text:
        why = f"帳本檔 {path} 正被別的程式鎖住，請稍後再試"
    elif "readonly" in text or "unable to open" in text or "read-only" in text:
        why = f"帳本檔 {path} 開不了或不能寫入：檔案或它所在的資料夾是唯讀的、或資料夾不存在"
    else:
        why = f"帳本檔 {path} 讀寫失敗"
    return LedgerError(f"{why}（{text}）")


class Ledger:
    """The ledger file at `path`, created and migrated to `SCHEMA_VERSION` when opened."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        with self._session(write=False) as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            self._migrate()

    @contextmanager
    def _session(self, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction on its own connection; IMMEDIATE (the write lock first) for a write."""
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise _error(exc, self.path) from exc
        try:
            db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            yield db
            db.execute("COMMIT")
        except sqlite3.Error as exc:
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
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise LedgerError(f"帳本檔 {self.path} 是較新版的 taishu 寫的（版本 {version}，這一版只認得到 "
                                  f"{SCHEMA_VERSION}）：請更新 taishu")
            if version == 0 and db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise LedgerError(f"帳本檔 {self.path} 是別的程式的 SQLite 資料庫，不是 taishu 的帳本；換一個檔名")
            for steps in MIGRATIONS[version:]:
                for statement in steps:
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- tables ----------------------------------------------------------------------------------
    def open_table(self, code: str, base: int = 100, per_tai: int = 20, ruleset: str = DEFAULT_RULESET,
                   first_dealer: Seat = Seat.E) -> TableInfo:
        """The table `code`, made with these settings when it does not exist yet."""
        code = table_code(code)
        with self._session(write=False) as db:
            found = _table(db, code)
        if found is not None:
            return found
        with self._session(write=True) as db:
            db.execute("INSERT OR IGNORE INTO tables (code, created_at, names, first_dealer, base, per_tai, ruleset)"
                       " VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (code, _now(), json.dumps([""] * 4), first_dealer.code, base, per_tai, ruleset))
            return _table(db, code)

    def update_table(self, code: str, names: tuple[str, ...], first_dealer: Seat, base: int, per_tai: int,
                     ruleset: str) -> TableInfo:
        if len(names) != 4 or not isinstance(first_dealer, Seat):
            raise ValueError("four names and a first dealer's seat")
        with self._session(write=True) as db:
            _require(db, code)
            db.execute("UPDATE tables SET names = ?, first_dealer = ?, base = ?, per_tai = ?, ruleset = ?,"
                       " revision = revision + 1 WHERE code = ?",
                       (json.dumps(list(names), ensure_ascii=False), first_dealer.code, base, per_tai, ruleset, code))
            return _table(db, code)

    def state(self, code: str) -> tuple[TableInfo, list[Recorded]]:
        """The table and its hands in seq order, read in one transaction (one consistent view)."""
        with self._session(write=False) as db:
            return _require(db, code), _hands(db, code)

    def hands(self, code: str) -> list[Recorded]:
        return self.state(code)[1]

    # -- hands -----------------------------------------------------------------------------------
    def record(self, code: str, entry: Entry, expected_seq: int) -> Recorded:
        """Record `entry` as hand `expected_seq` (the number this phone expects it to get). When
        that hand is already recorded as the same hand, return it (confirmed twice: kept once);
        when the evening has moved on otherwise, raise `Conflict`."""
        with self._session(write=True) as db:
            _require(db, code)
            hands = _hands(db, code)
            if expected_seq != len(hands) + 1:
                if 1 <= expected_seq <= len(hands) and hands[expected_seq - 1].entry.same_hand(entry):
                    return hands[expected_seq - 1]
                raise Conflict(_changed(expected_seq, hands), hands[-1] if hands else None)
            recorded = Recorded(expected_seq, entry, _now())
            _insert(db, code, recorded)
            _bump(db, code)
            return recorded

    def edit(self, code: str, seq: int, entry: Entry) -> Recorded:
        """Put `entry` in place of hand `seq` (the totals follow: they are sums of the hands). The
        hands after it keep the deals they were played under."""
        with self._session(write=True) as db:
            _require(db, code)
            hands = _hands(db, code)
            if not 1 <= seq <= len(hands):
                raise Conflict(f"沒有第 {seq} 局了（現在記到第 {len(hands)} 局）", hands[-1] if hands else None)
            edited = Recorded(seq, entry, hands[seq - 1].recorded_at, _now())
            db.execute("DELETE FROM hands WHERE table_code = ? AND seq = ?", (code, seq))
            _insert(db, code, edited)
            _bump(db, code)
            return edited

    def undo(self, code: str, seq: int) -> Recorded | None:
        """Remove hand `seq` if it is the last one; None when it is already gone (undone twice)."""
        with self._session(write=True) as db:
            _require(db, code)
            hands = _hands(db, code)
            if seq > len(hands):
                return None
            if seq != len(hands):
                raise Conflict(f"第 {seq} 局之後又記了 {len(hands) - seq} 局，只能刪最後一局", hands[-1])
            db.execute("DELETE FROM hands WHERE table_code = ? AND seq = ?", (code, seq))
            _bump(db, code)
            return hands[-1]


def _changed(expected_seq: int, hands: list[Recorded]) -> str:
    if expected_seq > len(hands) + 1:
        return f"帳本剛被別的手機改過：有局被刪了，現在記到第 {len(hands)} 局"
    return f"別的手機剛記了第 {expected_seq} 局，現在記到第 {len(hands)} 局"


def _table(db: sqlite3.Connection, code: str) -> TableInfo | None:
    row = db.execute("SELECT code, names, first_dealer, base, per_tai, ruleset, revision, created_at"
                     " FROM tables WHERE code = ?", (code,)).fetchone()
    if row is None:
        return None
    return TableInfo(row[0], tuple(json.loads(row[1])), Seat.of(row[2]), *row[3:])


def _require(db: sqlite3.Connection, code: str) -> TableInfo:
    table = _table(db, code)
    if table is None:
        raise LedgerError(f"沒有代號「{code}」的牌桌")
    return table


def _bump(db: sqlite3.Connection, code: str) -> None:
    db.execute("UPDATE tables SET revision = revision + 1 WHERE code = ?", (code,))


HAND_COLUMNS = ("seq", "recorded_at", "edited_at", "round", "dealer", "streak", "winner", "discarder", "total",
                "items", "net", "hand", "ruleset", "photo_id")


def _insert(db: sqlite3.Connection, code: str, r: Recorded) -> None:
    e = r.entry
    row = (r.seq, r.recorded_at, r.edited_at, e.deal.round.value, e.deal.dealer.code, e.deal.streak,
           _code(e.winner), _code(e.discarder),
           e.total, json.dumps(e.items, ensure_ascii=False), json.dumps(e.net),
           None if e.hand is None else json.dumps(e.hand), e.ruleset, e.photo_id)
    db.execute(f"INSERT INTO hands (table_code, {', '.join(HAND_COLUMNS)}) VALUES (?{', ?' * len(HAND_COLUMNS)})",
               (code, *row))


def _code(seat: Seat | None) -> str | None:
    return None if seat is None else seat.code


def _seat(code: str | None) -> Seat | None:
    return None if code is None else Seat.of(code)


def _hands(db: sqlite3.Connection, code: str) -> list[Recorded]:
    rows = db.execute(f"SELECT {', '.join(HAND_COLUMNS)} FROM hands WHERE table_code = ? ORDER BY seq", (code,))
    return [_recorded(dict(zip(HAND_COLUMNS, row, strict=True))) for row in rows]


def _recorded(row: dict) -> Recorded:
    entry = Entry(
        deal=Deal(Wind(row["round"]), Seat.of(row["dealer"]), row["streak"]),
        winner=_seat(row["winner"]), discarder=_seat(row["discarder"]), total=row["total"],
        items=tuple((name, tai) for name, tai in json.loads(row["items"])),
        net=tuple(json.loads(row["net"])),
        hand=None if row["hand"] is None else json.loads(row["hand"]),
        ruleset=row["ruleset"], photo_id=row["photo_id"],
    )
    return Recorded(row["seq"], entry, row["recorded_at"], row["edited_at"])


# -- the evening from its hands ------------------------------------------------------------------------
def deal_after(table: TableInfo, hands: list[Recorded]) -> Deal:
    """The next hand's deal: from the last hand recorded, or the table's first deal."""
    if not hands:
        return Deal(Wind.E, table.first_dealer, 0)
    last = hands[-1].entry
    return next_deal(last.deal, last.winner, table.first_dealer)


def totals(hands: list[Recorded]) -> dict[Seat, int]:
    """Each seat's money over the evening: the sum of its payments."""
    return {s: sum(h.entry.net[i] for h in hands) for i, s in enumerate(SEATS)}


def running_totals(hands: list[Recorded]) -> list[tuple[int, dict[Seat, int]]]:
    """(hand number, each seat's total after it), starting at (0, all zero)."""
    out = [(0, dict.fromkeys(SEATS, 0))]
    for h in hands:
        out.append((h.seq, {s: out[-1][1][s] + n for s, n in h.entry.net_by_seat.items()}))
    return out
