"""Settlement (牌局另计): who pays what, from the hand's 台 and the table.

Payment = 底 + 台 × 每台 × multiplier, where 台 is the hand's total plus, on that payment only,
庄家 (+1, and the ruleset's 台 per 连庄) when the winner or the payer is the dealer, and 听牌
when the winner declared ready and the ruleset has that item. A table whose 连庄 台 go on
every payment of the hand (比赛规则 「连庄台套用全场」) adds them also between two non-dealers.
Self-drawn: each of the other three pays; off a discard (抢杠 and 七抢一 included): the discarder
alone. The ruleset says whether there is a 底 and the multipliers (改良式: no 底; a discarder pays 台 × 每台 × 3,
each self-draw payer 台 × 每台 × 2); an entry of the win may drop the 底 or some extras
(比赛规则 八仙过海: 三家通赔8台, 不含底; 改良式 天胡: 不计庄家一台).

    settle(score(hand), hand).net == {"E": 810, "S": -310, "W": -250, "N": -250}

A table may also allow one discard to be won by several players (改良式 「無攔胡，放槍幾家付幾家」:
`settle_several_winners`) and state a penalty for a false win (改良式 詐胡: `settle_false_win`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from typing import cast

from .hand import Hand, HandError, Table, brief, checked_int
from .ruleset import DEFAULT_RULESET, Ruleset, SettlementRules, load_ruleset
from .score import Score
from .tiles import COPIES, WINDS, tile_name
from .validate import check_discarder, check_impossible

MAX_TAI = 9_999  # a 台 count a player states (詐胡): far above any hand, and still a number


@dataclass(frozen=True, slots=True)
class Payment:
    payer: str
    tai: int  # the hand's total plus the extras
    extras: tuple[tuple[str, int], ...]  # (庄家/连庄/听牌 name, 台) added on this payment
    amount: int  # 底 + 台 × 每台 × multiplier


@dataclass(frozen=True, slots=True)
class Settlement:
    winner: str
    payments: tuple[Payment, ...]
    net: dict[str, int]  # per seat E, S, W, N: the winner positive, payers negative


def _extras(rules: SettlementRules, table: Table, winner: str, payer: str, drop=()):
    names = {"dealer": "庄家", "streak": "连庄", "pull": "拉庄", "ready": "听牌"}
    names.update({k: v[0] for k, v in rules.names.items()})
    out = []
    dealer_involved = table.dealer in (winner, payer)
    if dealer_involved and "dealer" not in drop and rules.dealer_tai:
        out.append((names["dealer"], rules.dealer_tai))
    streak_paid = dealer_involved or rules.streak_every_payment
    if streak_paid and table.streak and "streak" not in drop and rules.streak_tai:
        out.append((names["streak"], rules.streak_tai * table.streak))
    if dealer_involved and table.streak and "pull" not in drop and rules.pull_tai:
        out.append((names["pull"], rules.pull_tai * table.streak))
    if table.declared_ready and "ready" not in drop and rules.ready_tai:
        out.append((names["ready"], rules.ready_tai))
    return tuple(out)


def settle(result: Score | int, hand: Hand, table: Table | None = None,
           ruleset: Ruleset | str | None = None) -> Settlement:
    """Payments of a scored hand. `table` defaults to `hand.table`; `result` is the Score
    (or just its total). Raises HandError when the table cannot settle this hand."""
    table = table or hand.table
    if table is None:
        raise HandError("settlement needs a table: dealer, 底 (base) and 每台 (per_tai)",
                        "算錢要知道莊家、底和每台多少")
    ruleset = _rules_of(result, ruleset)
    if table is not hand.table:  # a table given apart: what it states may not fit the hand
        check_impossible(hand, ruleset, table)
    rules = ruleset.settlement
    total = result.total if isinstance(result, Score) else int(result)
    # entries of the win that change the payment (no 底, extras dropped)
    won = {i.entry for i in result.items} if isinstance(result, Score) else set()
    special = [e for e in ruleset.entries if e.name in won]
    base = rules.base and all(e.payment_base for e in special)
    drop = {x for e in special for x in e.payment_drop}
    winner = hand.situation.seat_wind
    if hand.situation.self_draw:
        payers = [w for w in WINDS if w != winner]
    else:
        payers = [check_discarder(winner, table)]
    payments = []
    key = "self_draw_multiplier" if hand.situation.self_draw else "discard_multiplier"
    times = next((v for e in special for k, v in e.payment_times if k == key), getattr(rules, key))
    for payer in payers:
        extras = _extras(rules, table, winner, payer, drop)
        tai = total + sum(t for _, t in extras)
        amount = (table.base if base else 0) + tai * table.per_tai * times
        payments.append(Payment(payer, tai, extras, amount))
    net = dict.fromkeys(WINDS, 0)
    for p in payments:
        net[p.payer] -= p.amount
        net[winner] += p.amount
    return Settlement(winner, tuple(payments), net)


def _rules_of(result: Score | int, ruleset: Ruleset | str | None) -> Ruleset:
    if isinstance(ruleset, Ruleset):
        return ruleset
    default = result.ruleset if isinstance(result, Score) else DEFAULT_RULESET
    return load_ruleset(ruleset or default)


# -- several winners off one discard (改良式 無攔胡) ------------------------------------------

@dataclass(frozen=True, slots=True)
class SharedDiscard:
    """One discard won by several players: each winner's settlement, as for a single win."""

    discarder: str
    settlements: tuple[Settlement, ...]  # in the order the wins were given
    net: dict[str, int]  # per seat, every winner's payment added up

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(s.winner for s in self.settlements)


def settle_several_winners(wins: Sequence[tuple[Score | int, Hand]],
                           ruleset: Ruleset | str | None = None) -> SharedDiscard:
    """Payments of one discard won by several players, each `(score, hand)` scored as usual and
    its hand carrying the table (the same for all, but for each winner's own 听牌 declaration):
    the discarder pays each winner as for that win alone (改良式 「無攔胡，放槍幾家付幾家」). Raises
    HandError under a table with one winner per discard (`several_winners` false: 截胡), or where
    the wins cannot be one discard."""
    if not wins:
        raise HandError("several winners: no win given", "一炮多響：沒有胡牌的人")
    rules = _rules_of(wins[0][0], ruleset)
    hands = [hand for _, hand in wins]
    if len(wins) > 1 and not rules.settlement.several_winners:
        raise HandError(f"several winners: under {rules.id} one discard has one winner (截胡: the "
                        "first in turn after the discarder wins); score that hand alone",
                        "這個規則一張牌只能一家胡（截胡），不能一炮多響")
    _check_one_discard(hands)
    settled = tuple(settle(result, hand, None, rules) for result, hand in wins)
    net = dict.fromkeys(WINDS, 0)
    for one in settled:
        for seat, amount in one.net.items():
            net[seat] += amount
    table = cast(Table, hands[0].table)  # each hand has its table (_check_one_discard)
    return SharedDiscard(check_discarder(hands[0].seat_wind, table), settled, net)


def _check_one_discard(hands: list[Hand]) -> None:
    """Several wins off one discard: off a discard, by different players, on the same tile and
    table, and together holding no more of a tile (or flower) than a set has."""
    if any(h.table is None for h in hands):
        raise HandError("several winners: each hand needs the table (dealer, 底, 每台, discarder)",
                        "一炮多響：每一手都要有莊家、底、每台和放槍的人")
    if any(h.self_draw for h in hands):
        raise HandError("several winners: a shared win is off a discard, so no hand is self-drawn",
                        "一炮多響是胡同一張打出的牌，不能有人自摸")
    seats = [h.seat_wind for h in hands]
    if len(set(seats)) < len(seats):
        raise HandError("several winners: each winner is a different seat", "一炮多響：同一家不能胡兩次")
    shared = {replace(cast(Table, h.table), declared_ready=False) for h in hands}  # none is None: refused above
    if len(shared) > 1:
        raise HandError("several winners: one discard has one table (dealer, streak, 底, 每台, "
                        "discarder); the hands give different ones",
                        "一炮多響：每一手的莊家、連莊、底、每台和放槍的人要一樣")
    first = hands[0]
    if any((h.win, h.situation.last_tile, h.situation.rob_kong)
           != (first.win, first.situation.last_tile, first.situation.rob_kong) for h in hands):
        raise HandError("several winners: one discard is one tile, so every hand wins on the same "
                        "tile, and alike last (河底) or robbed (抢杠)",
                        "一炮多響是同一張牌：每一手胡的牌要一樣，河底、搶槓也要一樣")
    # the hands are one set's tiles: the discard once, every other tile as many times as held
    tiles = Counter(chain([first.win], *(h.held_tiles() for h in hands)))
    over = sorted(t for t, n in tiles.items() if n > COPIES)
    flowers = Counter(chain(*(h.flowers for h in hands)))
    if over:
        t, n = over[0], tiles[over[0]]
        raise HandError(f"several winners: the winners' hands and the discard hold {n} {tile_name(t)} ({t}); "
                        f"there are only {COPIES}",
                        f"一炮多響：胡的人手上和打出的{tile_name(t, 'traditional')}一共 {n} 張，一副牌只有 {COPIES} 張")
    if any(n > 1 for n in flowers.values()):
        f = next(f for f, n in flowers.items() if n > 1)
        raise HandError(f"several winners: two winners hold the flower {tile_name(f)} ({f}); there is one",
                        f"一炮多響：花牌{tile_name(f, 'traditional')}只有一張，不能兩家都有")


# -- 詐胡, a false win (改良式) ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PenaltyPayment:
    payee: str
    tai: int  # the 台 it is paid by
    amount: int  # 台 × 每台
    reason: str  # for the table, in Traditional Chinese: 聽牌：所聽台數 / 未聽：詐胡台數


@dataclass(frozen=True, slots=True)
class FalseWin:
    """A false win's penalty: the caller pays each of the three others."""

    caller: str
    payments: tuple[PenaltyPayment, ...]
    net: dict[str, int]  # per seat: the caller negative, the others positive


def settle_false_win(caller: str, claimed_tai: int, waiting: Mapping[str, int | None], table: Table,
                     ruleset: Ruleset | str | None = None) -> FalseWin:
    """The payments of a false win (詐胡) under a table that states its penalty (`false_win`:
    改良式 「詐胡通賠三家，賠聽牌者所聽台數，賠未聽者自己詐胡的台數」): `caller` pays each of the
    three others, a player who was ready the 台 of the hand they waited for (`waiting[seat]`),
    one who was not (None) the 台 the caller claimed, each × 每台 (「賠…台數」: no 底, no
    multiplier, no 庄家 台). Raises HandError, in both scripts, for a table with no such penalty
    or inputs that are not three other seats and whole numbers of 台."""
    rules = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset or DEFAULT_RULESET)
    if not rules.settlement.false_win:
        raise HandError(f"false win: {rules.id} states no 詐胡 penalty; settle it as the table agrees",
                        "這個規則沒有寫詐胡怎麼賠：請照牌桌的約定")
    if caller not in WINDS:
        raise HandError(f"false win: the caller {brief(caller)} is not a seat (E, S, W or N)",
                        "詐胡：請選是哪一家詐胡")
    claimed = _tai(claimed_tai, "詐胡", "the claimed win")
    others = [w for w in WINDS if w != caller]
    if not isinstance(waiting, Mapping) or set(waiting) != set(others):
        raise HandError(f"false win: say for each of the three other seats ({', '.join(others)}) the 台 "
                        "they were ready for, or None", "詐胡：另外三家都要說有沒有聽牌、聽幾台")
    payments = []
    for seat in others:
        ready = waiting[seat]
        tai = claimed if ready is None else _tai(ready, f"{seat}家所聽", f"seat {seat}'s wait")
        reason = "未聽：詐胡台數" if ready is None else "聽牌：所聽台數"
        payments.append(PenaltyPayment(seat, tai, tai * table.per_tai, reason))
    net = dict.fromkeys(WINDS, 0)
    for p in payments:
        net[p.payee] += p.amount
        net[caller] -= p.amount
    return FalseWin(caller, tuple(payments), net)


def _tai(value, zh: str, english: str) -> int:
    try:
        return checked_int(value, f"false win: the 台 of {english}", MAX_TAI)
    except HandError as e:
        raise HandError(str(e), f"{zh}的台數要是 0 到 {MAX_TAI:,} 的整數") from None
