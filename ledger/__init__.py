"""A table's evening: the running ledger of the hands scored at one table, shared by its phones.

Pure Python and sqlite3 (no Streamlit): `deal` (who deals next), `entry` (a scored hand
(`scoring.payout.judge`) or a 流局 as one ledger line, payments by seat), `store` (the SQLite file: tables,
hands, transactions, schema migrations), `csvfile` (the evening as CSV and back).

    ledger = Ledger("taishu.db")
    table = ledger.open_table("friday")
    table, hands = ledger.state("friday")
    ledger.record("friday", draw(deal_after(table, hands)), expected_seq=len(hands) + 1)
    totals(ledger.hands("friday"))      # {Seat.E: 0, Seat.S: 0, Seat.W: 0, Seat.N: 0}
"""

from .csvfile import CsvError, read_csv, write_csv
from .deal import next_deal
from .entry import Entry, draw, win
from .store import Conflict, Ledger, LedgerError, Recorded, TableInfo, deal_after, running_totals, table_code, totals

__all__ = [
    "Conflict", "CsvError", "Entry", "Ledger", "LedgerError", "Recorded", "TableInfo", "deal_after", "draw",
    "next_deal", "read_csv", "running_totals", "table_code", "totals", "win", "write_csv",
]
