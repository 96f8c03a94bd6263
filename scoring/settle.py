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
"""

from __future__ import annotations

from dataclasses import dataclass

from .hand import Hand, HandError, Table
from .ruleset import DEFAULT_RULESET, Ruleset, SettlementRules, load_ruleset
from .score import Score
from .tiles import WINDS
from .validate import check_discarder, check_impossible


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
    names = {"dealer": "庄家", "streak": "连庄", "ready": "听牌"}
    names.update({k: v[0] for k, v in rules.names.items()})
    out = []
    dealer_involved = table.dealer in (winner, payer)
    if dealer_involved and "dealer" not in drop and rules.dealer_tai:
        out.append((names["dealer"], rules.dealer_tai))
    streak_paid = dealer_involved or rules.streak_every_payment
    if streak_paid and table.streak and "streak" not in drop and rules.streak_tai:
        out.append((names["streak"], rules.streak_tai * table.streak))
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
    if not isinstance(ruleset, Ruleset):
        default = result.ruleset if isinstance(result, Score) else DEFAULT_RULESET
        ruleset = load_ruleset(ruleset or default)
    if table is not hand.table:  # a table given apart: what it states may not fit the hand
        check_impossible(hand, ruleset, table)
    rules = ruleset.settlement
    total = result.total if isinstance(result, Score) else int(result)
    # entries of the win that change the payment (no 底, extras dropped)
    won = {i.entry for i in result.items} if isinstance(result, Score) else set()
    special = [e for e in ruleset.entries if e.name in won]
    base = rules.base and all(e.payment_base for e in special)
    drop = {x for e in special for x in e.payment_drop}
    winner = hand.situation.seat
    if hand.situation.self_draw:
        payers = [w for w in WINDS if w != winner]
    else:
        check_discarder(winner, table)
        payers = [table.discarder]
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
