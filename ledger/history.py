"""A table's history: its evenings (the closed ones kept, and the open one), each with its 將 and its
hands; each player's figures across them; the whole history as CSV and as JSON and back
(`history_from_json(history_json(h)) == h`; the format: docs/ledger-json.md).

`Ledger.history(code)` reads it; the sound hands only (a damaged hand is reported by `Ledger.state`
while its evening is open, and counted here in `History.damaged`).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from scoring.seats import SEATS, Seat

from .csvfile import write_csv
from .rows import (
    HAND_COLUMNS,
    BadValue,
    CutRule,
    Jiang,
    LedgerError,
    Player,
    Recorded,
    cut_rule_of,
    cut_rule_text,
    cut_text,
    false_win_text,
    hand_object_text,
    others_text,
    read_jiang,
    read_values,
)

FORMAT = "taishu-ledger-history"
VERSION = 1
MAX_TEXT = 10_000_000  # characters of JSON read back at most: years of weekly evenings are far below it


@dataclass(frozen=True)
class EveningRecord:
    number: int  # 1, 2, ... at the table
    opened_at: str
    closed_at: str | None  # None: the open evening
    jiangs: tuple[Jiang, ...]  # in order
    hands: tuple[Recorded, ...]  # the sound hands, in seq order


@dataclass(frozen=True)
class History:
    code: str
    created_at: str
    base: int
    per_tai: int
    ruleset: str
    cut: CutRule | None
    players: tuple[Player, ...]  # by id
    evenings: tuple[EveningRecord, ...]  # in order, the open one last
    damaged: int = field(default=0, compare=False)  # hands left out: they do not read back

    def hands(self) -> Iterable[tuple[int, Recorded]]:
        """(evening number, hand) of every evening, in order."""
        return ((e.number, h) for e in self.evenings for h in e.hands)


@dataclass(frozen=True)
class Biggest:
    """A player's biggest win: its 台, where it was recorded, and its photo (None where none was saved)."""

    tai: int
    evening: int
    seq: int
    photo_id: str | None


@dataclass(frozen=True)
class PlayerFigures:
    """One player's evenings at the table, all of them together."""

    player: int
    net: int  # their money, 東錢 included
    hands: int  # hands they sat in
    won: int  # hands won (one discard won by several: each winner's)
    self_drawn: int  # of them 自摸
    dealt_in: int  # 放槍: a discard they dealt was won (by one or several)
    false_wins: int  # 詐胡 called
    false_draws: int  # 詐摸 called
    biggest: Biggest | None


COUNTS = ("net", "hands", "won", "self_drawn", "dealt_in", "false_wins", "false_draws")  # PlayerFigures' sums


def player_figures(history: History) -> dict[int, PlayerFigures]:
    """Each player's figures across the table's evenings (every player of the table, by id)."""
    count: dict[int, dict[str, int]] = {p.id: dict.fromkeys(COUNTS, 0) for p in history.players}
    biggest: dict[int, Biggest] = {}

    def of(who: int) -> dict[str, int]:
        return count.setdefault(who, dict.fromkeys(COUNTS, 0))

    def player(h: Recorded, seat: Seat) -> dict[str, int]:
        return of(h.seating[SEATS.index(seat)])

    for evening, h in history.hands():
        e = h.line
        for who, money in h.net_by_player.items():
            of(who)["net"] += money
        for seat in SEATS:
            player(h, seat)["hands"] += 1
        for winner, tai in ((e.winner, e.total), *((o.winner, o.total) for o in e.others)):
            if winner is None:
                continue
            player(h, winner)["won"] += 1
            player(h, winner)["self_drawn"] += e.discarder is None
            who = h.seating[SEATS.index(winner)]
            if who not in biggest or tai > biggest[who].tai:
                biggest[who] = Biggest(tai, evening, h.seq, e.photo_id)
        if e.discarder is not None:
            player(h, e.discarder)["dealt_in"] += 1
        if e.false_win is not None:
            player(h, e.false_win.caller)["false_draws" if e.false_win.self_drawn else "false_wins"] += 1
    return {who: PlayerFigures(who, biggest=biggest.get(who), **figures) for who, figures in sorted(count.items())}


# -- CSV ----------------------------------------------------------------------------------------------
def write_history_csv(history: History) -> str:
    """Every evening's hands as `ledger.csvfile.write_csv` writes one evening's, after a column `evening`
    (the evening's number), one player column per player of the table."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header: list[str] | None = None
    for evening in history.evenings:
        first, *rows = csv.reader(io.StringIO(write_csv(list(evening.hands), history.players)))
        if header is None:
            header = ["evening", *first]
            writer.writerow(header)
        writer.writerows([evening.number, *row] for row in rows)
    return out.getvalue()


# -- JSON ---------------------------------------------------------------------------------------------
def _object(text: str | None) -> object:
    return None if text is None else json.loads(text)


def _hand(h: Recorded) -> dict:
    e = h.line
    return {
        "seq": h.seq, "recorded_at": h.recorded_at, "edited_at": h.edited_at, "jiang": h.jiang,
        "seating": list(h.seating),
        "deal": {"round": e.deal.round.value, "dealer": e.deal.dealer.code, "streak": e.deal.streak},
        "winner": None if e.winner is None else e.winner.code,
        "discarder": None if e.discarder is None else e.discarder.code,
        "total": e.total, "items": [[name, tai] for name, tai in e.items], "net": list(e.net),
        "hand": _object(e.hand), "ruleset": e.ruleset, "photo_id": e.photo_id,
        "others": _object(others_text(e.others)) or [], "false_win": _object(false_win_text(e.false_win)),
        "reason": e.reason, "cut": _object(cut_text(h.cut)),
    }


def _jiang(j: Jiang) -> dict:
    return {"number": j.number, "seating": list(j.seating), "first_dealer": j.first_dealer.code, "drawn": j.drawn,
            "started_at": j.started_at}


def history_json(history: History) -> dict:
    """The history as a JSON object (docs/ledger-json.md): `json.dumps` it to keep it."""
    return {
        "format": FORMAT, "version": VERSION,
        "table": {"code": history.code, "created_at": history.created_at, "base": history.base,
                  "per_tai": history.per_tai, "ruleset": history.ruleset, "cut": _object(cut_rule_text(history.cut))},
        "players": [{"id": p.id, "name": p.name} for p in history.players],
        "evenings": [{"number": e.number, "opened_at": e.opened_at, "closed_at": e.closed_at,
                      "jiangs": [_jiang(j) for j in e.jiangs], "hands": [_hand(h) for h in e.hands]}
                     for e in history.evenings],
    }


class HistoryError(LedgerError, ValueError):
    """JSON that is not a history written by `history_json`; the message says where."""


def _fields(value: object, keys: Iterable[str], where: str) -> dict:
    keys = tuple(keys)
    if type(value) is not dict or set(value) != set(keys):
        raise HistoryError(f"{where}: expected an object with {', '.join(keys)}")
    return value


def _text(value: object, where: str, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if type(value) is not str:
        raise HistoryError(f"{where}: expected text")
    return value


def _whole(value: object, where: str, low: int = 0) -> int:
    if type(value) is not int or value < low:
        raise HistoryError(f"{where}: expected a whole number from {low}")
    return value


def _json_text(value: object) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _read_hand(value: object, players: frozenset[int], where: str) -> Recorded:
    d = _fields(value, ("seq", "recorded_at", "edited_at", "jiang", "seating", "deal", "winner", "discarder", "total",
                        "items", "net", "hand", "ruleset", "photo_id", "others", "false_win", "reason", "cut"), where)
    deal = _fields(d["deal"], ("round", "dealer", "streak"), f"{where}: deal")
    columns = dict(
        seq=_whole(d["seq"], f"{where}: seq", 1), revision=0, recorded_at=d["recorded_at"], edited_at=d["edited_at"],
        round=deal["round"], dealer=deal["dealer"], streak=deal["streak"], winner=d["winner"],
        discarder=d["discarder"], total=d["total"], items=_json_text(d["items"]), net=_json_text(d["net"]),
        hand=None if d["hand"] is None else hand_object_text(d["hand"]), ruleset=d["ruleset"],
        photo_id=d["photo_id"], others=_json_text(d["others"] or None), false_win=_json_text(d["false_win"]),
        reason=d["reason"], jiang=d["jiang"], seating=_json_text(d["seating"]), cut=_json_text(d["cut"]))
    return read_values(tuple(columns[c] for c in HAND_COLUMNS), players)


def history_from_json(data: object) -> History:
    """A history from `history_json`'s object (or its text), every value checked as the ledger checks its
    file: `HistoryError` saying where it is not as the ledger writes it."""
    if isinstance(data, str):
        if len(data) > MAX_TEXT:
            raise HistoryError(f"more than {MAX_TEXT:,} characters: not a table's history")
        try:
            data = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise HistoryError(f"not JSON: {exc}") from None
    top = _fields(data, ("format", "version", "table", "players", "evenings"), "history")
    if top["format"] != FORMAT or top["version"] != VERSION:
        raise HistoryError(f"history: expected format {FORMAT!r} version {VERSION}")
    table = _fields(top["table"], ("code", "created_at", "base", "per_tai", "ruleset", "cut"), "table")
    if type(top["players"]) is not list or type(top["evenings"]) is not list:
        raise HistoryError("history: players and evenings are lists")
    read = []
    for i, value in enumerate(top["players"]):
        p = _fields(value, ("id", "name"), f"players[{i}]")
        read.append(Player(_whole(p["id"], f"players[{i}]: id", 1), str(_text(p["name"], f"players[{i}]: name"))))
    players = tuple(read)
    ids = frozenset(p.id for p in players)
    if len(ids) != len(players):
        raise HistoryError("players: two with one id")
    where = "table: cut"
    try:
        cut = cut_rule_of(_json_text(table["cut"]), ids)
        evenings = []
        for n, e in enumerate(top["evenings"]):
            where = f"evenings[{n}]"
            e = _fields(e, ("number", "opened_at", "closed_at", "jiangs", "hands"), where)
            if type(e["jiangs"]) is not list or type(e["hands"]) is not list:
                raise HistoryError(f"{where}: jiangs and hands are lists")
            jiangs = []
            for k, j in enumerate(e["jiangs"]):
                where = f"evenings[{n}]: jiangs[{k}]"
                j = _fields(j, ("number", "seating", "first_dealer", "drawn", "started_at"), where)
                jiangs.append(read_jiang((j["number"], _json_text(j["seating"]), j["first_dealer"],
                                          int(j["drawn"]) if type(j["drawn"]) is bool else None, j["started_at"]), ids))
            hands = []
            for k, h in enumerate(e["hands"]):
                where = f"evenings[{n}]: hands[{k}]"
                hands.append(_read_hand(h, ids, where))
            evenings.append(EveningRecord(_whole(e["number"], f"evenings[{n}]: number", 1),
                                          str(_text(e["opened_at"], f"evenings[{n}]: opened_at")),
                                          _text(e["closed_at"], f"evenings[{n}]: closed_at", optional=True),
                                          tuple(jiangs), tuple(hands)))
    except BadValue as bad:
        raise HistoryError(f"{where}: {bad.column}: not as the ledger writes it") from None
    return History(str(_text(table["code"], "table: code")), str(_text(table["created_at"], "table: created_at")),
                   _whole(table["base"], "table: base"), _whole(table["per_tai"], "table: per_tai"),
                   str(_text(table["ruleset"], "table: ruleset")), cut, players, tuple(evenings))
