"""The evening as CSV (one row per hand, a spreadsheet opens it) and back: `read_csv(write_csv(h)) == h`.

Columns: `seq, recorded_at, edited_at, round, dealer, streak, winner, discarder, total, items, 東家, 南家,
西家, 北家, ruleset, photo_id, hand, others, false_win, reason, jiang, seating, cut, pot`, then one column
per player, `玩家1 阿明` (the player's id and name). A seat is written 東家 … 北家, the round wind 東 … 北
(a seat is not a wind); an empty winner is a 流局 (or a 詐胡, a penalty), an empty discarder a
self-draw; `items` reads `門清 1 · 平和 2`; 東家 … 北家 are each seat's money on that line; `hand` is the
(first) winner's scored hand as JSON (`Hand.to_json()`, its winds by `scoring.payout.seat_hand`).
As the ledger file stores them, empty where they do not apply: `others` the other winners off the
same discard (JSON), `false_win` a 詐胡 (JSON: caller, 台 claimed, each other seat's wait, the
payments), `reason` a penalty's, `jiang` the 將 of the evening the hand was played in, `seating` who
sat where (the players' ids by seat, JSON `[1, 2, 3, 4]`), `cut` the 東錢 taken on it (JSON:
`{"paid": [["S", 100]], "to": 5}`, `to` null for the pot). Worked out from those, and checked against
them when read back: `pot`, the 東錢 that went to the pot, and each player's money on that hand, 東錢
included (blank where they had none), so a spreadsheet's column sums are the players' totals whatever
seats they sat in, and the player columns and `pot` add up to the seat columns' sum. A CSV written
before any of the columns from `others` on reads too (as seated 1-4 in 將 1).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence

from scoring.payout import Deal, in_seat_order
from scoring.seats import SEATS, Seat, Wind

from .line import LedgerLine
from .rows import (
    BadValue,
    LedgerError,
    Player,
    Recorded,
    cut_of,
    cut_text,
    false_win_of,
    false_win_text,
    is_json_object,
    others_of,
    others_text,
    reason_of,
    seating_of,
    seating_text,
)

# columns a CSV of an earlier taishu does not have
LATER = ("others", "false_win", "reason", "jiang", "seating", "cut", "pot")
COLUMNS = ("seq", "recorded_at", "edited_at", "round", "dealer", "streak", "winner", "discarder", "total", "items",
           *(s.zh for s in SEATS), "ruleset", "photo_id", "hand", *LATER)
PLAYER_COLUMN = re.compile(r"玩家([1-9][0-9]{0,8})(?: .*)?")
SEAT_OF_NAME = {s.zh: s for s in SEATS}
WIND_OF_NAME = {w.zh: w for w in Wind}
ITEM_SEPARATOR = " · "


class CsvError(LedgerError, ValueError):
    """A CSV that is not an evening written by `write_csv`; the message names the row."""


def player_column(player: Player) -> str:
    return f"玩家{player.id} {player.name}".strip()


def write_csv(hands: list[Recorded], players: Sequence[Player] = ()) -> str:
    """`hands` as CSV, with a money column for each of `players` (the table's) and any other player seated."""
    seated = sorted({p for h in hands for p in h.net_by_player} - {p.id for p in players})
    columns = [*players, *(Player(i, "") for i in seated)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*COLUMNS, *(player_column(p) for p in columns)])
    for h in hands:
        e = h.line
        writer.writerow([
            h.seq, h.recorded_at, h.edited_at or "", e.deal.round.zh, e.deal.dealer.zh, e.deal.streak,
            _seat_name(e.winner), _seat_name(e.discarder), e.total,
            ITEM_SEPARATOR.join(f"{name} {tai}" for name, tai in e.items), *e.net,
            e.ruleset or "", e.photo_id or "",
            e.hand or "", others_text(e.others) or "", false_win_text(e.false_win) or "", e.reason or "",
            h.jiang, seating_text(h.seating), cut_text(h.cut) or "", h.pot or "",
            *(h.net_by_player.get(p.id, "") for p in columns),
        ])
    return out.getvalue()


def _seat_name(seat: Seat | None) -> str:
    return "" if seat is None else seat.zh


def _seat(name: str) -> Seat:
    if name not in SEAT_OF_NAME:
        raise ValueError(f"{name!r} is not a seat (東家 南家 西家 北家)")
    return SEAT_OF_NAME[name]


def _optional_seat(name: str) -> Seat | None:
    """A winner's or a discarder's cell: blank where there is none."""
    return _seat(name) if name else None


def _wind(name: str) -> Wind:
    if name not in WIND_OF_NAME:
        raise ValueError(f"{name!r} is not a round wind (東 南 西 北)")
    return WIND_OF_NAME[name]


def _item(text: str) -> tuple[str, int]:
    name, _, tai = text.rpartition(" ")
    return name, int(tai)


def _hand(text: str) -> str | None:
    if text and not is_json_object(text):
        raise ValueError("hand: not a JSON object")
    return text or None


def _jiang(text: str) -> int:
    number = int(text)
    if number < 1:
        raise ValueError(f"jiang: {number} is not a 將 (1, 2, ...)")
    return number


def _check_players(row: dict[str, str], hand: Recorded) -> None:
    """The player columns say what the seat columns and the seating say."""
    for column, cell in row.items():
        found = PLAYER_COLUMN.fullmatch(column)
        if found and cell != str(hand.net_by_player.get(int(found[1]), "")):
            raise ValueError(f"{column}: {cell!r} is not that player's money on this hand")


def read_csv(text: str) -> list[Recorded]:
    """Hands from `write_csv`'s text (a leading byte-order mark, as spreadsheets add, is fine)."""
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    hands = []
    for n, row in enumerate(rows, 2):
        if set(COLUMNS) - set(LATER) - set(row):
            raise CsvError(f"line 1: expected the columns {', '.join(COLUMNS)}")
        if None in row or None in row.values():  # DictReader's marks of a row longer or shorter than the header
            raise CsvError(f"line {n}: expected {len(COLUMNS)} values")
        try:
            winner, discarder = _optional_seat(row["winner"]), _optional_seat(row["discarder"])
            line = LedgerLine(
                deal=Deal(_wind(row["round"]), _seat(row["dealer"]), int(row["streak"])),
                winner=winner, discarder=discarder, total=int(row["total"]),
                items=tuple(_item(i) for i in row["items"].split(ITEM_SEPARATOR)) if row["items"] else (),
                net=in_seat_order({s: int(row[s.zh]) for s in SEATS}),
                hand=_hand(row["hand"]),
                ruleset=row["ruleset"] or None, photo_id=row["photo_id"] or None,
                others=others_of(row.get("others") or None, winner, discarder),
                false_win=false_win_of(row.get("false_win") or None), reason=reason_of(row.get("reason") or None),
            )
            seating = seating_of(row.get("seating") or "[1, 2, 3, 4]")
            hand = Recorded(int(row["seq"]), line, row["recorded_at"], row["edited_at"] or None, None,
                            _jiang(row.get("jiang") or "1"), seating, cut_of(row.get("cut") or None, line.winners))
            if (row.get("pot") or "") != str(hand.pot or ""):
                raise ValueError(f"pot: {row['pot']!r} is not the 東錢 this hand put in the pot")
            _check_players(row, hand)
            hands.append(hand)
        except BadValue as bad:
            raise CsvError(f"line {n}: {bad.column}: not as the ledger writes it") from bad
        except (ValueError, TypeError, RecursionError) as exc:
            raise CsvError(f"line {n}: {exc}") from exc
    return hands
