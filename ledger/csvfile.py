"""The evening as CSV (one row per hand, a spreadsheet opens it) and back: `read_csv(write_csv(h)) == h`.

Columns: `seq, recorded_at, edited_at, round, dealer, streak, winner, discarder, total, items, E, S, W, N,
ruleset, photo_id, hand`. Seats and winds are E/S/W/N; an empty winner is a 流局, an empty
discarder a self-draw; `items` reads `門清 1 · 平和 2`; E..N are each seat's money on that hand;
`hand` is the scored hand as JSON (`Hand.to_json()`, 門風 with the dealer as E).
"""

from __future__ import annotations

import csv
import io

from scoring.tiles import WINDS

from .deal import Deal
from .entry import Entry
from .rows import LedgerError, Recorded, is_json_object

COLUMNS = ("seq", "recorded_at", "edited_at", "round", "dealer", "streak", "winner", "discarder", "total", "items",
           *WINDS, "ruleset", "photo_id", "hand")
ITEM_SEPARATOR = " · "


class CsvError(LedgerError, ValueError):
    """A CSV that is not an evening written by `write_csv`; the message names the row."""


def write_csv(hands: list[Recorded]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for h in hands:
        e = h.entry
        writer.writerow([
            h.seq, h.recorded_at, h.edited_at or "", e.deal.round, e.deal.dealer, e.deal.streak, e.winner or "",
            e.discarder or "", e.total, ITEM_SEPARATOR.join(f"{name} {tai}" for name, tai in e.items), *e.net,
            e.ruleset or "", e.photo_id or "",
            e.hand or "",
        ])
    return out.getvalue()


def _item(text: str) -> tuple[str, int]:
    name, _, tai = text.rpartition(" ")
    return name, int(tai)


def _hand(text: str) -> str | None:
    if text and not is_json_object(text):
        raise ValueError("hand: not a JSON object")
    return text or None


def read_csv(text: str) -> list[Recorded]:
    """Hands from `write_csv`'s text (a leading byte-order mark, as spreadsheets add, is fine)."""
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    hands = []
    for n, row in enumerate(rows, 2):
        if set(COLUMNS) - set(row):
            raise CsvError(f"line 1: expected the columns {', '.join(COLUMNS)}")
        if None in row or None in row.values():  # DictReader's marks of a row longer or shorter than the header
            raise CsvError(f"line {n}: expected {len(COLUMNS)} values")
        try:
            entry = Entry(
                deal=Deal(row["round"], row["dealer"], int(row["streak"])),
                winner=row["winner"] or None, discarder=row["discarder"] or None, total=int(row["total"]),
                items=tuple(_item(i) for i in row["items"].split(ITEM_SEPARATOR)) if row["items"] else (),
                net=tuple(int(row[w]) for w in WINDS),
                hand=_hand(row["hand"]),
                ruleset=row["ruleset"] or None, photo_id=row["photo_id"] or None,
            )
            hands.append(Recorded(int(row["seq"]), entry, row["recorded_at"], row["edited_at"] or None))
        except (ValueError, TypeError, RecursionError) as exc:
            raise CsvError(f"line {n}: {exc}") from exc
    return hands
