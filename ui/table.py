"""The table's ledger on the screen, testable without Streamlit: where the file is, the table's
link and its QR code, players' names from the page, and the ledger as rows and chart columns.

Seats are 東家 南家 西家 北家 (`scoring.seats.Seat`); the players sit in them by the 將's seating (drawn again
between 將) and the money is theirs, not the seats': totals, chart and hands are by player, with the 東錢 put in
the pot as a row of its own. 門風 follows the dealer.
"""

from __future__ import annotations

import io
import os
import unicodedata
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import segno

from ledger import MAX_REASON, LedgerLine, Recorded, Seating, TableInfo, jiang_totals, running_totals, totals
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


def player(seat: Seat, table: TableInfo | None, script: str, seating: Seating | None = None) -> str:
    """東家 阿明, or 東家 without a name (or without a table): who sits there now, or by `seating` (a hand's)."""
    name = "" if table is None else table.name((seating or table.seating)[SEATS.index(seat)])
    return f"{seat_label(seat, script)} {name}" if name else seat_label(seat, script)


NOBODY = 0  # a drop-down's "no player" (the pot, this phone nobody's): ids are ≥ 1, and a drop-down choosing None
# shows Streamlit's own clear button, labelled in English


def player_name(table: TableInfo, player_id: int, script: str) -> str:
    """A player by name alone: 阿明, or 玩家 5 without a name."""
    return table.name(player_id) or in_script(f"玩家 {player_id}", script)


def player_label(table: TableInfo, player_id: int, script: str) -> str:
    """A player as the money's rows and columns name them: 東家 阿明 while seated (東家 without a name), 阿明 when
    not seated now (玩家 5 without a name)."""
    if player_id in table.seating:
        return player(SEATS[table.seating.index(player_id)], table, script)
    return player_name(table, player_id, script)


def _players(table: TableInfo, hands: list[Recorded]) -> list[int]:
    """The players the money names: the ones seated now in seat order, then any other who has money in `hands`."""
    others = sorted({p for h in hands for p in h.net_by_player} - set(table.seating))
    return [*table.seating, *others]


def deal_text(deal: Deal, table: TableInfo, script: str) -> str:
    """東風圈 · 莊家 南家 阿明 · 連莊 1"""
    streak = in_script(f" · 連莊 {deal.streak}", script) if deal.streak else ""
    return in_script(f"{deal.round.zh}風圈 · 莊家 ", script) + player(deal.dealer, table, script) + streak


def result_text(line: LedgerLine, table: TableInfo, script: str, seating: Seating | None = None) -> str:
    """南家 自摸 5 台 · 西家 胡 北家 3 台 · 北家、東家 胡 西家 3＋1 台 · 流局 · 北家 詐胡 8 台 · 罰款：遲到
    (the names: who sat there by `seating`, the hand's, or now)."""
    false_win = line.false_win
    if false_win is not None:
        called = "詐摸" if false_win.self_drawn else "詐胡"
        return f"{player(false_win.caller, table, script, seating)} {in_script(called, script)} {false_win.claimed} 台"
    if line.reason is not None:
        return in_script(f"罰款：{line.reason}", script)
    if line.winner is None:
        return in_script("流局", script)
    how = "自摸" if line.discarder is None else "胡 " + player(line.discarder, table, script, seating)
    who = "、".join(player(w, table, script, seating) for w in line.winners)
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


def spreadsheet_file(csv_text: str) -> bytes:
    """A CSV text as the file the page hands out: UTF-8 with its mark, which a spreadsheet needs to read it so."""
    return ("\ufeff" + csv_text).encode("utf-8")


def qr_png(text: str, scale: int = 6) -> bytes:
    """A QR code of `text` as PNG, drawn here (no service asked)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=scale, border=2)
    return out.getvalue()


MARK = "★ "  # this phone's player, and the hands that pay them
POT = "東錢（公費）"  # the 東錢 put in the pot: a row and a column of its own


def totals_rows(table: TableInfo, hands: list[Recorded], script: str, me: int | None = None) -> list[dict[str, object]]:
    """One row per player (the seated ones first; anyone else with money in the evening after them), their money
    after the last hand and, once a second 將 is played, each 將's subtotal beside it; the pot's 東錢 as its own
    row where there is any: the rows add up to the lines' sum. `me`: this phone's player, marked."""
    after, by_jiang = totals(hands), jiang_totals(hands)
    pot = sum(h.pot for h in hands)
    shown_jiang = by_jiang if len(by_jiang) > 1 else {}

    def row(label: str, total: int, parts: dict[int, int]) -> dict[str, object]:
        return {in_script("玩家", script): label, in_script("合計", script): total} | {
            in_script(f"第 {n} 將", script): parts[n] for n in shown_jiang}

    rows = [row((MARK if who == me else "") + player_label(table, who, script), after.get(who, 0),
                {n: money.get(who, 0) for n, money in shown_jiang.items()}) for who in _players(table, hands)]
    if pot:
        jiang_pot = {n: sum(h.pot for h in hands if h.jiang == n) for n in shown_jiang}
        rows.append(row(in_script(POT, script), pot, jiang_pot))
    return rows


def chart_columns(table: TableInfo, hands: list[Recorded], script: str) -> dict[str, list[int]]:
    """Each player's running total by hand number (0: the start), for a line chart."""
    running = running_totals(hands)
    columns: dict[str, list[int]] = {in_script("局", script): [seq for seq, _ in running]}
    for who in _players(table, hands):
        columns[player_label(table, who, script)] = [money.get(who, 0) for _, money in running]
    return columns


def hand_rows(table: TableInfo, hands: list[Recorded], script: str, me: int | None = None) -> list[dict[str, object]]:
    """The hands, newest first: number, 將 (once there is a second), deal, result (named as they sat then; marked
    where it pays `me`, this phone's player), each player's money on it, and the 東錢 taken on it where any was."""
    rows = []
    players = _players(table, hands)
    several = len({h.jiang for h in hands}) > 1
    cut = any(h.cut is not None for h in hands)
    for h in reversed(hands):
        deal = h.line.deal
        streak = in_script(f" 連{deal.streak}", script) if deal.streak else ""
        row: dict[str, object] = {in_script("局", script): h.seq}
        if several:
            row[in_script("將", script)] = h.jiang
        row |= {
            in_script("圈", script): wind_label(deal.round, script),
            in_script("莊家", script): seat_label(deal.dealer, script) + streak,
            in_script("結果", script): (MARK if me is not None and h.net_by_player.get(me, 0) > 0 else "")
            + result_text(h.line, table, script, h.seating)
            + (in_script("（改過）", script) if h.edited_at else ""),
        }
        money = h.net_by_player
        row.update({player_label(table, who, script): money.get(who, 0) for who in players})
        if cut:
            row[in_script("東錢", script)] = 0 if h.cut is None else h.cut.total
        rows.append(row)
    return rows
