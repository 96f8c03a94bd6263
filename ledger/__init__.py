"""A table's evening: the running ledger of the hands scored at one table, shared by its phones.

Pure Python and sqlite3 (no Streamlit): `deal` (who deals next), `line` (a scored hand
(`scoring.payout.judge`), one discard won by several seats (`judge_several`), a 流局, a 詐胡
(`scoring.payout.judge_false_win`; a 詐摸 the same, marked as drawn) or a penalty as one ledger line,
payments by seat), `rows` (a stored row checked as it is read: a damaged hand is reported as that
hand; a table's players, 將 and 東錢 rule), `store` (the SQLite file: tables, players, evenings, 將,
hands, transactions, versions, schema migrations), `csvfile` (the evening as CSV and back), `history`
(the evenings kept: each player's figures across them, the whole history as CSV and as JSON and
back), `bench` (`python -m ledger.bench`: the operations timed on a long evening).

    ledger = Ledger("taishu.db")
    table = ledger.open_table("friday")
    evening = ledger.state("friday")    # .table, .hands (sound), .damaged (reported), .next_deal
    last = ledger.record("friday", draw(evening.next_deal), expected_seq=evening.next_seq)
    ledger.revision("friday")           # one small query: read the evening again only when it moved
    ledger.undo("friday", last.seq, last.revision)  # refused (Conflict) if hand 1 changed meanwhile
    totals(ledger.hands("friday"))      # by player id: {1: 0, 2: 0, 3: 0, 4: 0}, whatever seats they sat in
    ledger.rename_player("friday", 2, "阿華")  # a new name: no money moves (it is kept by id)
    evening.jiang_over                  # the 將 has ended: the next one's seating, given or drawn here
    ledger.start_jiang("friday", evening.table.revision, None, None)  # seats and 起莊 drawn, stored
    ledger.set_cut("friday", CutRule("self_draw", 100, 1000, None))  # 東錢: 100 a 自摸 to the pot, 1000 at most
    ledger.close_evening("friday", revision)  # kept; the next evening opens (seats asked again)
    player_figures(ledger.history("friday"))  # each player across the evenings: net, 自摸, 放槍, ...
    ledger.change_memory("friday", teach)  # the table's memory of its tiles: teach(bytes | None) -> bytes
"""

from .csvfile import CsvError, read_csv, write_csv
from .deal import after_hand, deal_after_line, ends_jiang, next_deal
from .history import (
    Biggest,
    EveningRecord,
    History,
    HistoryError,
    PlayerFigures,
    history_from_json,
    history_json,
    player_figures,
    write_history_csv,
)
from .line import MAX_REASON, FalseWinRecord, LedgerLine, OtherWinner, draw, false_win, penalty, shared_win, win
from .rows import CUT_PER, CutRule, CutTaken, Damaged, Jiang, LedgerError, Player, Recorded, Seating, TableInfo
from .store import (
    MAX_MEMORY_BYTES,
    Conflict,
    Evening,
    Ledger,
    StoredMemory,
    deal_after,
    jiang_totals,
    running_totals,
    table_code,
    totals,
)

__all__ = [
    "Biggest", "CUT_PER", "Conflict", "CsvError", "CutRule", "CutTaken", "Damaged", "Evening", "EveningRecord",
    "FalseWinRecord", "History", "HistoryError", "Jiang", "Ledger", "LedgerError", "LedgerLine", "MAX_MEMORY_BYTES",
    "MAX_REASON", "OtherWinner", "Player", "PlayerFigures", "Recorded", "Seating", "StoredMemory", "TableInfo",
    "after_hand", "deal_after", "deal_after_line", "draw", "ends_jiang", "false_win", "history_from_json",
    "history_json", "jiang_totals", "next_deal", "penalty", "player_figures", "read_csv", "running_totals",
    "shared_win", "table_code", "totals", "win", "write_csv", "write_history_csv",
]
