"""A table's and a hand's stored row, and what they say: a hand written from a `LedgerLine` and read
back with every value checked, so that one damaged row (a flipped byte in its JSON, a value of
the wrong type, text that is not UTF-8) is reported as that row, `Damaged`, and the rest of the
evening still reads and adds up.

Reading a hand never raises: `read_hand` returns a `Recorded` or a `Damaged`. The connections'
text factory (`text_or_bytes`) keeps stored text that is not UTF-8 as bytes, so that it is found
here as a value of the wrong type instead of failing the fetch half-way through the rows.

What is checked is what the ledger writes: seats and winds among E S W N, whole numbers, the 台
items adding up to the total, the payments adding up to zero with the winners paid and nobody
else, a 流局 with no items, payments or hand, the stored hand a JSON object; the other winners off
one discard (一炮多響) each so, in turn after the discarder; a 詐胡's caller paying each of the
three others the 台 of its wait (or the 台 claimed) and the net those payments; a penalty's reason
a few words and its payments not all nothing (they need not add up to zero). A change that keeps
all of that (a letter of a 台 item's name, of a photo's id, a tile code in the stored hand) reads
as a sound hand; the stored hand is only turned back into a `Hand` when asked
(`Recorded.scored_hand`, which says so when it cannot be).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache

from scoring.hand import MAX_STREAK, Hand
from scoring.payout import Deal, Nets, SeatPenalty, turn_after
from scoring.seats import SEATS, Seat, Wind

from .deal import after_hand
from .line import MAX_REASON, FalseWinRecord, LedgerLine, OtherWinner

JIANG_COLUMNS = ("number", "seating", "first_dealer", "drawn", "started_at")  # a row of `jiangs`
# The table's row: its settings, its players, and its open 將 (as `JIANG_COLUMNS`: jiang ... jiang_started_at).
TABLE_COLUMNS = ("code", "base", "per_tai", "ruleset", "revision", "created_at", "evening", "cut_rule", "players",
                 "jiang", "seating", "first_dealer", "drawn", "jiang_started_at")
HAND_COLUMNS = ("seq", "revision", "recorded_at", "edited_at", "round", "dealer", "streak", "winner", "discarder",
                "total", "items", "net", "hand", "ruleset", "photo_id", "others", "false_win", "reason", "jiang",
                "seating", "cut")
# What tells whether a hand ended its 將: its 將, its deal, its winners, whether it is a penalty.
PLAIN_COLUMNS = ("jiang", "round", "dealer", "streak", "winner", "others", "reason")
MAX_PLAYERS = 64  # players a table keeps across its evenings: far beyond any group of friends
# Whether a hand's stored text is a JSON object, asked of SQLite's JSON parser (in C): the hand is
# checked on every read of the evening without being parsed in Python (1: an object).
HAND_IS_OBJECT = "CASE WHEN json_valid(hand) THEN json_type(hand) = 'object' END"
SELECTED = (*HAND_COLUMNS, HAND_IS_OBJECT)  # what a read of hands selects, in this order

# The columns in the player's words, for the message that says which one is damaged.
COLUMN_WORDS = {
    "code": "牌桌代號", "names": "玩家名字", "first_dealer": "起莊", "base": "底", "per_tai": "每台",
    "ruleset": "台數規則", "seq": "局號", "revision": "版本", "created_at": "開桌時間", "recorded_at": "記下的時間",
    "edited_at": "修改的時間", "round": "圈風", "dealer": "莊家", "streak": "連莊", "winner": "誰胡",
    "discarder": "誰放槍", "total": "台數", "items": "台數項目", "net": "每家輸贏", "hand": "這手牌",
    "photo_id": "照片代號", "others": "一炮多響的其他贏家", "false_win": "詐胡", "reason": "罰款原因",
    "players": "玩家名字", "seating": "座位", "jiang": "將", "evening": "第幾晚", "number": "第幾將", "drawn": "抽位",
    "started_at": "開將時間", "cut_rule": "東錢的規則", "cut": "東錢", "jiang_started_at": "開將時間",
}
CUT_PER = ("self_draw", "win")  # 東錢 from each 自摸, or from each hand won
Seating = tuple[int, int, int, int]  # the players' ids by seat 東家 南家 西家 北家


class LedgerError(Exception):
    """The ledger could not be read or written; the message is for the player."""


class BadValue(Exception):
    """A stored value that is not one the ledger writes; `store` turns it into words for the player."""

    def __init__(self, column: str) -> None:
        super().__init__(column)
        self.column = column

    @property
    def words(self) -> str:
        return COLUMN_WORDS[self.column]


@dataclass(frozen=True)
class Player:
    """A player at a table: the money is theirs, by `id` (1, 2, ... at the table, never reused), so a
    new name moves none of it."""

    id: int
    name: str  # "" where not given


@dataclass(frozen=True)
class Jiang:
    """A 將 of the open evening: who sits where (`seating`) and who dealt first (起莊)."""

    number: int  # 1, 2, ... in the evening
    seating: Seating
    first_dealer: Seat
    drawn: bool  # the seating was drawn at random (抓位) rather than given by the table
    started_at: str


@dataclass(frozen=True)
class CutRule:
    """東錢, a table option: `amount` from each winner of each 自摸 (`per` "self_draw") or of each hand won
    ("win"), until `cap` has been taken in the evening, to player `to` (the host, or one of the players)
    or, None, to the pot."""

    per: str  # one of CUT_PER
    amount: int
    cap: int
    to: int | None


@dataclass(frozen=True)
class CutTaken:
    """The 東錢 taken on one hand: each paying seat (a winner) and its amount, and who got it (None: the pot)."""

    paid: tuple[tuple[Seat, int], ...]
    to: int | None

    @property
    def total(self) -> int:
        return sum(n for _, n in self.paid)


@dataclass(frozen=True)
class TableInfo:
    code: str
    players: tuple[Player, ...]  # every player the table has had, by id
    jiang: Jiang  # the open evening's latest 將: the next hand is played under its seating
    base: int
    per_tai: int
    ruleset: str
    revision: int  # bumped by every write at the table: the page's cheap "did anything change"
    created_at: str
    evening: int = 1  # the open evening's number: 1, 2, ... (the closed ones are kept)
    cut: CutRule | None = None  # 東錢, where the table takes it

    @property
    def seating(self) -> Seating:
        return self.jiang.seating

    @property
    def first_dealer(self) -> Seat:
        return self.jiang.first_dealer

    def name(self, player: int) -> str:
        return next((p.name for p in self.players if p.id == player), "")

    @property
    def names(self) -> tuple[str, str, str, str]:
        """The names of the players sitting now, by seat 東家 南家 西家 北家 ("" where not given)."""
        east, south, west, north = (self.name(i) for i in self.seating)
        return east, south, west, north


@dataclass(frozen=True)
class Recorded:
    seq: int
    line: LedgerLine
    recorded_at: str
    edited_at: str | None = None
    # The table's revision when this hand was last written: undo and edit name it, so they act on
    # the hand the page showed. Not part of the hand itself (a CSV does not carry it).
    revision: int | None = field(default=None, compare=False)
    jiang: int = 1  # the 將 of the evening it was played in
    seating: Seating = (1, 2, 3, 4)  # who sat where when it was played: its money is theirs
    cut: CutTaken | None = None  # the 東錢 taken on it, a line of its own

    @property
    def net_by_player(self) -> dict[int, int]:
        """Each player's money on this hand: the seated ones' payments, less the 東錢 a winner paid, and the
        東錢 to the player who gets it (who need not be seated)."""
        out = dict(zip(self.seating, self.line.net, strict=True))
        if self.cut is not None:
            for seat, amount in self.cut.paid:
                out[self.seating[SEATS.index(seat)]] -= amount
            if self.cut.to is not None:
                out[self.cut.to] = out.get(self.cut.to, 0) + self.cut.total
        return out

    @property
    def pot(self) -> int:
        """The 東錢 this hand put in the pot: the players' money and the pot add up to the payments' sum (zero
        but for a penalty, which need not balance)."""
        return self.cut.total if self.cut is not None and self.cut.to is None else 0

    def scored_hand(self) -> Hand | None:
        """The hand as it was scored (None for a 流局). Only read when asked: a whole evening of
        hands turned back into `Hand`s would cost the page more than the rest of its read."""
        if self.line.hand is None:
            return None
        return self._hand(self.line.hand)

    def scored_hands(self) -> tuple[Hand, ...]:
        """Every winner's hand as scored, the first winner's first (() for a non-win)."""
        first = self.scored_hand()
        if first is None:
            return ()
        return (first, *(self._hand(o.hand) for o in self.line.others))

    def _hand(self, text: str) -> Hand:
        """A winner's stored hand; the ledger writes each one seated (its table in it), so one without is damaged."""
        try:
            hand = Hand.from_json(json.loads(text))
        except (ValueError, RecursionError) as exc:  # a HandError is a ValueError, as is JSON that does not parse
            raise LedgerError(f"第 {self.seq} 局存的牌在帳本檔裡壞了，讀不回來：請重新輸入這一局的牌") from exc
        if hand.table is None:
            raise LedgerError(f"第 {self.seq} 局存的牌在帳本檔裡壞了，讀不回來：請重新輸入這一局的牌")
        return hand


@dataclass(frozen=True)
class Damaged:
    """A stored hand that does not read back as the ledger wrote it: not in the totals or the CSV."""

    seq: int
    message: str  # for the player, in traditional characters: which hand, what is wrong, what to do
    revision: int | None  # as stored, None where that is damaged too: what undo and edit take
    played: Deal | None  # the deal it was played under, where those columns are sound
    after: Deal | None  # the deal after it, where its deal and its winner are sound
    jiang: int | None = None  # the 將 it was played in, where that is sound


def text_or_bytes(data: bytes) -> str | bytes:
    """SQLite text as str; bytes where it is not UTF-8 (a damaged value, checked as one)."""
    try:
        return data.decode()
    except UnicodeDecodeError:
        return data


def _whole(value: object, column: str) -> int:
    if type(value) is not int or value < 0:
        raise BadValue(column)
    return value


def _text(value: object, column: str) -> str:
    if type(value) is not str:
        raise BadValue(column)
    return value


def _optional_text(value: object, column: str) -> str | None:
    return None if value is None else _text(value, column)


def _wind(value: object, column: str) -> Wind:
    if type(value) is not str or value not in Wind.__members__:
        raise BadValue(column)
    return Wind(value)


def _seat(value: object, column: str) -> Seat:
    if type(value) is not str or value not in Seat.__members__:
        raise BadValue(column)
    return Seat(value)


def _code(seat: Seat | None) -> str | None:
    return None if seat is None else seat.code


def _json(value: object, column: str) -> object:
    try:
        return json.loads(_text(value, column))
    except (ValueError, RecursionError):
        raise BadValue(column) from None


def _deal(round_: object, dealer: object, streak: object) -> Deal:
    count = _whole(streak, "streak")
    if count > MAX_STREAK:
        raise BadValue("streak")
    return Deal(_wind(round_, "round"), _seat(dealer, "dealer"), count)


def _winner(value: object) -> Seat | None:
    return None if value is None else _seat(value, "winner")


def _items(value: object, total: int, column: str = "items", total_column: str = "total"
           ) -> tuple[tuple[str, int], ...]:
    if type(value) is not list or not all(type(i) is list and len(i) == 2 and type(i[0]) is str and type(i[1]) is int
                                          for i in value):
        raise BadValue(column)
    if sum(tai for _, tai in value) != total:
        raise BadValue(total_column)
    return tuple((name, tai) for name, tai in value)


def _net(value: object, winners: tuple[Seat, ...], false_win: FalseWinRecord | None, penalty: bool) -> Nets:
    """Four whole numbers: a penalty's, not all zero; otherwise adding up to zero, nobody's for a
    流局, the winners' the only gains, a 詐胡's the caller's payments."""
    if type(value) is not list or len(value) != 4 or not all(type(n) is int for n in value):
        raise BadValue("net")
    if penalty:
        if not any(value):
            raise BadValue("net")
        return tuple(value)
    if false_win is not None:
        paid = {p.payee: p.amount for p in false_win.payments}
        if value != [paid.get(s, -sum(paid.values())) for s in SEATS]:
            raise BadValue("net")
    if sum(value) != 0:
        raise BadValue("net")
    if winners and any((n < 0) if s in winners else (n > 0) for s, n in zip(SEATS, value, strict=True)):
        raise BadValue("net")
    if not winners and false_win is None and any(value):  # a 流局
        raise BadValue("net")
    return tuple(value)


def _hand_text(value: object, column: str) -> str:
    """A hand kept inside another column's JSON (an object), as the text `LedgerLine.hand` would hold."""
    if type(value) is not dict:
        raise BadValue(column)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def others_of(value: object, winner: Seat | None, discarder: Seat | None) -> tuple[OtherWinner, ...]:
    """The `others` column (JSON text, None: one winner or none): more winners off the first's
    discard, each a seat neither the discarder nor a winner before it, in turn after the discarder."""
    if value is None:
        return ()
    data = _json(value, "others")
    if type(data) is not list or not data or winner is None or discarder is None:
        raise BadValue("others")
    out = []
    for one in data:
        if type(one) is not dict or set(one) != {"winner", "total", "items", "hand"}:
            raise BadValue("others")
        total = _whole(one["total"], "others")
        out.append(OtherWinner(_seat(one["winner"], "others"), total, _items(one["items"], total, "others", "others"),
                               _hand_text(one["hand"], "others")))
    turns = [turn_after(discarder, s) for s in (winner, *(o.winner for o in out))]
    if any(a >= b for a, b in zip(turns, turns[1:], strict=False)):
        raise BadValue("others")
    return tuple(out)


def others_text(others: tuple[OtherWinner, ...]) -> str | None:
    """`others` as the column stores it (each hand as a JSON object); `BadValue` where one is not JSON."""
    if not others:
        return None
    if not isinstance(others, tuple) or not all(isinstance(o, OtherWinner) and isinstance(o.winner, Seat)
                                                for o in others):
        raise BadValue("others")
    try:
        hands = [json.loads(o.hand) for o in others]
    except (TypeError, ValueError, RecursionError):
        raise BadValue("others") from None
    return _dumps([{"winner": _code(o.winner), "total": o.total, "items": o.items, "hand": hand}
                   for o, hand in zip(others, hands, strict=True)], "others")


def false_win_of(value: object) -> FalseWinRecord | None:
    """The `false_win` column (JSON text, None: no 詐胡): the caller, the 台 claimed, the three
    others' waits, and the caller's payment to each, its 台 the wait's (or the 台 claimed, not ready);
    `"self_drawn": true` where it was a 詐摸 (a 詐胡 stored before 詐摸 was kept has no such key)."""
    if value is None:
        return None
    data = _json(value, "false_win")
    if type(data) is not dict or set(data) - {"self_drawn"} != {"caller", "claimed", "waiting", "payments"} \
            or data.get("self_drawn", True) is not True:
        raise BadValue("false_win")
    caller, claimed = _seat(data["caller"], "false_win"), _whole(data["claimed"], "false_win")
    others = [s for s in SEATS if s != caller]
    waiting, payments = data["waiting"], data["payments"]
    if type(waiting) is not dict or set(waiting) != {s.code for s in others} or not all(
            n is None or type(n) is int and n >= 0 for n in waiting.values()):
        raise BadValue("false_win")
    if type(payments) is not list or len(payments) != len(others) or not all(
            type(p) is list and len(p) == 4 and p[0] == s.code and p[1] == (claimed if waiting[s.code] is None
                                                                            else waiting[s.code])
            and type(p[2]) is int and p[2] >= 0 and type(p[3]) is str for p, s in zip(payments, others, strict=False)):
        raise BadValue("false_win")
    return FalseWinRecord(caller, claimed, tuple((s, waiting[s.code]) for s in others),
                          tuple(SeatPenalty(s, p[1], p[2], p[3]) for p, s in zip(payments, others, strict=True)),
                          "self_drawn" in data)


def false_win_text(false_win: FalseWinRecord | None) -> str | None:
    """A 詐胡 as the `false_win` column stores it."""
    if false_win is None:
        return None
    if not isinstance(false_win, FalseWinRecord) or not isinstance(false_win.caller, Seat) or not all(
            isinstance(s, Seat) for s, _ in false_win.waiting) or not all(
            isinstance(p, SeatPenalty) and isinstance(p.payee, Seat) for p in false_win.payments) or not isinstance(
            false_win.self_drawn, bool):
        raise BadValue("false_win")
    drawn = {"self_drawn": True} if false_win.self_drawn is True else {}
    return _dumps({"caller": _code(false_win.caller), "claimed": false_win.claimed,
                   "waiting": {_code(s): n for s, n in false_win.waiting},
                   "payments": [[_code(p.payee), p.tai, p.amount, p.reason] for p in false_win.payments], **drawn},
                  "false_win")


def reason_of(value: object) -> str | None:
    """A penalty's reason (None: not a penalty): a few words, as the page takes them."""
    if value is None:
        return None
    if type(value) is not str or not value.strip() or value != value.strip() or len(value) > MAX_REASON:
        raise BadValue("reason")
    return value


def seating_of(value: object, players: frozenset[int] | None = None, column: str = "seating") -> Seating:
    """A seating (JSON text): four different players' ids by seat, each among `players` where given."""
    data = _json(value, column)
    if type(data) is not list or len(data) != 4 or not all(type(i) is int and i >= 1 for i in data) \
            or len(set(data)) != 4 or players is not None and not set(data) <= players:
        raise BadValue(column)
    east, south, west, north = data
    return east, south, west, north


# An evening's hands share a few seatings: each stored text is parsed once (the evening is read on every change).
_seating_of = lru_cache(maxsize=256)(seating_of)


def seating_text(seating: Seating) -> str:
    return json.dumps(list(seating))


def _player_id(value: object, column: str, players: frozenset[int] | None) -> int | None:
    """A player's id, or None (the pot); among `players` where given."""
    if value is None:
        return None
    if type(value) is not int or value < 1 or players is not None and value not in players:
        raise BadValue(column)
    return value


def cut_rule_of(value: object, players: frozenset[int] | None = None) -> CutRule | None:
    """The `cut_rule` column (JSON text, None: no 東錢)."""
    if value is None:
        return None
    data = _json(value, "cut_rule")
    if type(data) is not dict or set(data) != {"per", "amount", "cap", "to"} or data["per"] not in CUT_PER:
        raise BadValue("cut_rule")
    amount, cap = _whole(data["amount"], "cut_rule"), _whole(data["cap"], "cut_rule")
    if not 1 <= amount <= cap:
        raise BadValue("cut_rule")
    return CutRule(data["per"], amount, cap, _player_id(data["to"], "cut_rule", players))


def cut_rule_text(rule: CutRule | None) -> str | None:
    return None if rule is None else _dumps({"per": rule.per, "amount": rule.amount, "cap": rule.cap,
                                              "to": rule.to}, "cut_rule")


def cut_of(value: object, winners: tuple[Seat, ...], players: frozenset[int] | None = None) -> CutTaken | None:
    """The `cut` column (JSON text, None: none taken): each paying seat, one of the hand's `winners`, once,
    a whole amount above zero; who got it."""
    if value is None:
        return None
    data = _json(value, "cut")
    if type(data) is not dict or set(data) != {"paid", "to"} or type(data["paid"]) is not list or not data["paid"]:
        raise BadValue("cut")
    paid = []
    for one in data["paid"]:
        if type(one) is not list or len(one) != 2 or type(one[1]) is not int or one[1] < 1:
            raise BadValue("cut")
        paid.append((_seat(one[0], "cut"), one[1]))
    if not {s for s, _ in paid} <= set(winners) or len({s for s, _ in paid}) != len(paid):
        raise BadValue("cut")
    return CutTaken(tuple(paid), _player_id(data["to"], "cut", players))


def cut_text(cut: CutTaken | None) -> str | None:
    if cut is None:
        return None
    if not isinstance(cut, CutTaken) or not all(isinstance(s, Seat) for s, _ in cut.paid):
        raise BadValue("cut")
    return _dumps({"paid": [[s.code, n] for s, n in cut.paid], "to": cut.to}, "cut")


def _read(values: tuple, hand_is_object: bool, players: frozenset[int] | None) -> Recorded:
    (seq, revision, recorded_at, edited_at, round_, dealer, streak, winner, discarder, total, items, net, hand,
     ruleset, photo_id, others, false_win, reason, jiang, seating, cut) = values
    winner = _winner(winner)
    discarder = None if discarder is None else _seat(discarder, "discarder")
    if discarder is not None and (discarder == winner or winner is None):
        raise BadValue("discarder")
    total = _whole(total, "total")
    items = _items(_json(items, "items"), total)
    if winner is None and (items or total):
        raise BadValue("items")
    if (winner is None) != (hand is None) or hand is not None and (type(hand) is not str or not hand_is_object):
        raise BadValue("hand")
    others, false_win, reason = others_of(others, winner, discarder), false_win_of(false_win), reason_of(reason)
    if false_win is not None and winner is not None:
        raise BadValue("false_win")
    if reason is not None and (winner is not None or false_win is not None):
        raise BadValue("reason")
    winners = () if winner is None else (winner, *(o.winner for o in others))
    line = LedgerLine(_deal(round_, dealer, streak), winner, discarder, total, items,
                       _net(_json(net, "net"), winners, false_win, reason is not None), hand,
                       _optional_text(ruleset, "ruleset"), _optional_text(photo_id, "photo_id"), others, false_win,
                       reason)
    if type(jiang) is not int or jiang < 1:
        raise BadValue("jiang")
    return Recorded(seq, line, _text(recorded_at, "recorded_at"), _optional_text(edited_at, "edited_at"),
                    _whole(revision, "revision"), jiang, _seating_of(seating, players), cut_of(cut, winners, players))


def read_hand(values: tuple, first_dealer: Seat, players: frozenset[int] | None = None) -> Recorded | Damaged:
    """A fetched hand row (`SELECTED`, its seq already checked) as a hand, or as the report of its
    damage; `first_dealer` works out the deal after a damaged one, `players` (the table's) are the
    ones a seating may name."""
    try:
        return _read(values[:-1], values[-1] == 1, players)
    except BadValue as bad:
        return _damaged(dict(zip(HAND_COLUMNS, values, strict=False)), bad, first_dealer)


def is_json_object(text: str) -> bool:
    """What `HAND_IS_OBJECT` says of `text`, in Python: JSON (no NaN: SQLite does not read it), an object."""
    def refuse(constant: str) -> None:
        raise ValueError(constant)

    try:
        return type(json.loads(text, parse_constant=refuse)) is dict
    except (ValueError, RecursionError):
        return False


def read_values(values: tuple, players: frozenset[int] | None = None) -> Recorded:
    """A hand from the values of `HAND_COLUMNS` (from elsewhere than the file: an export read back),
    checked as a stored row is; `BadValue` naming the first value that is not as the ledger writes it."""
    hand = values[HAND_COLUMNS.index("hand")]
    return _read(values, type(hand) is str and is_json_object(hand), players)


def hand_object_text(value: object, column: str = "hand") -> str:
    """A hand kept as a JSON object elsewhere (an export) as the text `LedgerLine.hand` holds."""
    return _hand_text(value, column)


def storable(r: Recorded) -> Recorded:
    """`r` as it will read back once written; `BadValue` naming the value that would not read back,
    so that nothing is written that the ledger cannot read."""
    values = hand_values(r)
    return _read(values, type(r.line.hand) is str and is_json_object(r.line.hand), None)


def plain_deals(row: dict, first_dealer: Seat) -> tuple[Deal, Deal] | None:
    """The deal a hand's row (its `PLAIN_COLUMNS` at least) was played under and the deal after it; None
    where those columns are damaged."""
    try:
        played = _deal(row["round"], row["dealer"], row["streak"])
        return played, _after_damaged(row, played, first_dealer)
    except BadValue:
        return None


def _damaged(row: dict, bad: BadValue, first_dealer: Seat) -> Damaged:
    try:
        played: Deal | None = _deal(row["round"], row["dealer"], row["streak"])
    except BadValue:
        played = None
    deals = plain_deals(row, first_dealer)
    after = None if deals is None else deals[1]
    try:
        revision = _whole(row["revision"], "revision")
    except BadValue:
        revision = None
    message = (f"第 {row['seq']} 局在帳本檔裡壞了（{bad.words}的資料不對），沒有算進總帳和 CSV："
               "請修改這一局重新記下，或刪掉它（最後一局才能刪）")
    jiang = row["jiang"] if type(row["jiang"]) is int and row["jiang"] >= 1 else None
    return Damaged(row["seq"], message, revision, played, after, jiang)


def _after_damaged(row: dict, played: Deal, first_dealer: Seat) -> Deal:
    """The deal after a damaged row, from its winners and whether it is a penalty; `BadValue` where
    those are damaged or say two things (a win that is a penalty too)."""
    winners, penalty = _winners(row), reason_of(row["reason"]) is not None
    if winners and penalty:
        raise BadValue("reason")
    return after_hand(played, winners, penalty, first_dealer)


def _winners(row: dict) -> tuple[Seat, ...]:
    """A damaged row's winners, from its winner and others columns (`BadValue` where they are damaged)."""
    winner = _winner(row["winner"])
    if row["others"] is None:
        return () if winner is None else (winner,)
    others = _json(row["others"], "others")
    if winner is None or type(others) is not list or not all(type(o) is dict and "winner" in o for o in others):
        raise BadValue("others")
    return (winner, *(_seat(o["winner"], "others") for o in others))


def _dumps(value: object, column: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:  # not JSON (a set, a circular list): the ledger could not read it back
        raise BadValue(column) from exc


def hand_values(r: Recorded) -> tuple:
    """`r` as the values of `HAND_COLUMNS`; `BadValue` where a value cannot be stored as JSON."""
    e = r.line
    return (r.seq, r.revision, r.recorded_at, r.edited_at, e.deal.round.value, e.deal.dealer.code, e.deal.streak,
            _code(e.winner), _code(e.discarder), e.total, _dumps(e.items, "items"), _dumps(e.net, "net"), e.hand,
            e.ruleset, e.photo_id, others_text(e.others), false_win_text(e.false_win), e.reason, r.jiang,
            seating_text(r.seating) if isinstance(r.seating, tuple) else None, cut_text(r.cut))


@lru_cache(maxsize=64)  # every operation reads the table first: the same players, parsed once
def read_players(value: object) -> tuple[Player, ...]:
    """The table's `players` (JSON `[[id, name], ...]`, by id, each id once); `BadValue` where damaged."""
    rows = _json(value, "players")
    if type(rows) is not list or not all(type(one) is list and len(one) == 2 and type(one[0]) is int and one[0] >= 1
                                         and type(one[1]) is str for one in rows):
        raise BadValue("players")
    ids = [one[0] for one in rows]
    if ids != sorted(set(ids)):
        raise BadValue("players")
    return tuple(Player(id_, name) for id_, name in rows)


def players_text(players: tuple[Player, ...]) -> str:
    return json.dumps([[p.id, p.name] for p in players], ensure_ascii=False)


def read_jiang(values: tuple, players: frozenset[int]) -> Jiang:
    """A fetched `JIANG_COLUMNS` row; `BadValue` naming the first damaged value."""
    row = dict(zip(JIANG_COLUMNS, values, strict=True))
    number = _whole(row["number"], "number")
    if number < 1 or row["drawn"] not in (0, 1):
        raise BadValue("number" if number < 1 else "drawn")
    return Jiang(number, _seating_of(row["seating"], players), _seat(row["first_dealer"], "first_dealer"),
                 row["drawn"] == 1, _text(row["started_at"], "started_at"))


def read_table(values: tuple) -> TableInfo:
    """A fetched table row (`TABLE_COLUMNS`); `BadValue` naming the first damaged value."""
    row = dict(zip(TABLE_COLUMNS, values, strict=True))
    evening = _whole(row["evening"], "evening")
    if evening < 1:
        raise BadValue("evening")
    players = read_players(row["players"])
    try:
        jiang = read_jiang(tuple(row[c] for c in ("jiang", "seating", "first_dealer", "drawn", "jiang_started_at")),
                           frozenset(p.id for p in players))
    except BadValue as bad:
        raise BadValue({"number": "jiang", "started_at": "jiang_started_at"}.get(bad.column, bad.column)) from None
    return TableInfo(_text(row["code"], "code"), players, jiang, _whole(row["base"], "base"),
                     _whole(row["per_tai"], "per_tai"), _text(row["ruleset"], "ruleset"),
                     _whole(row["revision"], "revision"), _text(row["created_at"], "created_at"), evening,
                     cut_rule_of(row["cut_rule"], frozenset(p.id for p in players)))
