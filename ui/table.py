"""The table's ledger on the screen, testable without Streamlit: where the file is, the table's
link and its QR code, players' names from the page, and the ledger as rows and chart columns.

Seats are 東家 南家 西家 北家 (`scoring.seats.Seat`, fixed for the evening); 門風 follows the dealer.
"""

from __future__ import annotations

import io
import os
import unicodedata
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import segno

from ledger import MAX_REASON, LedgerLine, Recorded, TableInfo, running_totals, totals
from scoring.payout import Deal
from scoring.seats import SEATS, Seat
from ui.text import in_script, seat_label, wind_label

DB_ENV = "TAISHU_DB"  # the ledger file; ./taishu.db when not set
NAME_LENGTH = 12


def db_path() -> Path:
    return Path(os.environ.get(DB_ENV) or "taishu.db").expanduser()


def clean_name(text: str) -> str:
    """A player's name from the page: letters and digits of any script, spaces, `·` and `-`, at
    most 12 (no markup or control characters reach the screen or the file)."""
    kept = "".join(ch for ch in unicodedata.normalize("NFC", text) if ch.isalnum() or ch in " ·-")
    return " ".join(kept.split())[:NAME_LENGTH]


def player(seat: Seat, table: TableInfo | None, script: str) -> str:
    """東家 阿明, or 東家 without a name (or without a table)."""
    name = "" if table is None else table.names[SEATS.index(seat)]
    return f"{seat_label(seat, script)} {name}" if name else seat_label(seat, script)


def deal_text(deal: Deal, table: TableInfo, script: str) -> str:
    """東風圈 · 莊家 南家 阿明 · 連莊 1"""
    streak = in_script(f" · 連莊 {deal.streak}", script) if deal.streak else ""
    return in_script(f"{deal.round.zh}風圈 · 莊家 ", script) + player(deal.dealer, table, script) + streak


def result_text(line: LedgerLine, table: TableInfo, script: str) -> str:
    """南家 自摸 5 台 · 西家 胡 北家 3 台 · 北家、東家 胡 西家 3＋1 台 · 流局 · 北家 詐胡 8 台 · 罰款：遲到"""
    false_win = line.false_win
    if false_win is not None:
        return f"{player(false_win.caller, table, script)} {in_script('詐胡', script)} {false_win.claimed} 台"
    if line.reason is not None:
        return in_script(f"罰款：{line.reason}", script)
    if line.winner is None:
        return in_script("流局", script)
    how = "自摸" if line.discarder is None else "胡 " + player(line.discarder, table, script)
    who = "、".join(player(w, table, script) for w in line.winners)
    tai = "＋".join(str(n) for n in (line.total, *(o.total for o in line.others)))
    return f"{who} {in_script(how, script)} {tai} 台"


REASON_MARKS = " ·-，、。：；！？"  # punctuation a reason may keep: none of it is markup


def clean_reason(text: str) -> str:
    """A penalty's reason from the page: letters and digits of any script, spaces and plain
    punctuation (no markup or control characters reach the screen or the file), at most MAX_REASON."""
    kept = "".join(ch for ch in unicodedata.normalize("NFC", text) if ch.isalnum() or ch in REASON_MARKS)
    return " ".join(kept.split())[:MAX_REASON].strip()


def table_link(page_url: str | None, code: str) -> str | None:
    """The page's address with `?table=code`: what the other phones open. None when the page's
    address is not known (no browser)."""
    if not page_url:
        return None
    parts = urlsplit(page_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", urlencode({"table": code}), ""))


def qr_png(text: str, scale: int = 6) -> bytes:
    """A QR code of `text` as PNG, drawn here (no service asked)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=scale, border=2)
    return out.getvalue()


def totals_rows(table: TableInfo, hands: list[Recorded], script: str) -> list[dict[str, object]]:
    """One row per seat: who sits there now, and their money (the ledger keeps it by player) after the last hand."""
    after = totals(hands)
    return [{in_script("玩家", script): player(s, table, script), in_script("合計", script): after.get(who, 0)}
            for s, who in zip(SEATS, table.seating, strict=True)]


def chart_columns(table: TableInfo, hands: list[Recorded], script: str) -> dict[str, list[int]]:
    """Each player's running total by hand number (0: the start), for a line chart."""
    running = running_totals(hands)
    columns: dict[str, list[int]] = {in_script("局", script): [seq for seq, _ in running]}
    for s, who in zip(SEATS, table.seating, strict=True):
        columns[player(s, table, script)] = [money.get(who, 0) for _, money in running]
    return columns


def hand_rows(table: TableInfo, hands: list[Recorded], script: str) -> list[dict[str, object]]:
    """The hands, newest first: number, deal, result, and each player's money on it."""
    rows = []
    for h in reversed(hands):
        deal = h.line.deal
        streak = in_script(f" 連{deal.streak}", script) if deal.streak else ""
        row = {
            in_script("局", script): h.seq,
            in_script("圈", script): wind_label(deal.round, script),
            in_script("莊家", script): seat_label(deal.dealer, script) + streak,
            in_script("結果", script): result_text(h.line, table, script)
            + (in_script("（改過）", script) if h.edited_at else ""),
        }
        row.update({player(s, table, script): h.net_by_player.get(who, 0)
                    for s, who in zip(SEATS, table.seating, strict=True)})
        rows.append(row)
    return rows
