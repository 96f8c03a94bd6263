"""Settlement (牌局另计): who pays what, from the hand's 台 and the table.

Payment = 底 + 台 × 每台, where 台 is the hand's total plus, on that payment only,
庄家 (+1, and +2 per 连庄) when the winner or the payer is the dealer, and 听牌 (+1) when the
winner declared ready. Self-drawn: each of the other three pays; off a discard (抢杠
included): the discarder alone.

    settle(score(hand), hand).net == {"E": 810, "S": -310, "W": -250, "N": -250}
"""

from __future__ import annotations

from dataclasses import dataclass

from .hand import Hand, HandError, Table
from .ruleset import DEFAULT_RULESET, Ruleset, SettlementRules, load_ruleset
from .score import Score
from .tiles import WINDS


@dataclass(frozen=True, slots=True)
class Payment:
    payer: str
    tai: int  # the hand's total plus the extras
    extras: tuple[tuple[str, int], ...]  # (庄家/连庄/听牌 name, 台) added on this payment
    amount: int  # 底 + 台 × 每台


@dataclass(frozen=True, slots=True)
class Settlement:
    winner: str
    payments: tuple[Payment, ...]
    net: dict[str, int]  # per seat E, S, W, N: the winner positive, payers negative


def _extras(rules: SettlementRules, table: Table, winner: str, payer: str):
    names = {"dealer": "庄家", "streak": "连庄", "ready": "听牌"}
    names.update({k: v[0] for k, v in rules.names.items()})
    out = []
    if table.dealer in (winner, payer):
        out.append((names["dealer"], rules.dealer_tai))
        if table.streak:
            out.append((names["streak"], rules.streak_tai * table.streak))
    if table.declared_ready:
        out.append((names["ready"], rules.ready_tai))
    return tuple(out)


def settle(result: Score | int, hand: Hand, table: Table | None = None,
           ruleset: Ruleset | str | None = None) -> Settlement:
    """Payments of a scored hand. `table` defaults to `hand.table`; `result` is the Score
    (or just its total). Raises HandError when the table cannot settle this hand."""
    table = table or hand.table
    if table is None:
        raise HandError("settlement needs a table: dealer, 底 (base) and 每台 (per_tai)")
    if not isinstance(ruleset, Ruleset):
        default = result.ruleset if isinstance(result, Score) else DEFAULT_RULESET
        ruleset = load_ruleset(ruleset or default)
    rules = ruleset.settlement
    total = result.total if isinstance(result, Score) else int(result)
    winner = hand.situation.seat
    if hand.situation.self_draw:
        payers = [w for w in WINDS if w != winner]
    else:
        if table.discarder is None:
            raise HandError("table.discarder: a win off a discard needs the discarder's seat")
        if table.discarder == winner:
            raise HandError(f"table.discarder: the winner ({winner}) cannot be the discarder")
        payers = [table.discarder]
    payments = []
    for payer in payers:
        extras = _extras(rules, table, winner, payer)
        tai = total + sum(t for _, t in extras)
        payments.append(Payment(payer, tai, extras, table.base + tai * table.per_tai))
    net = dict.fromkeys(WINDS, 0)
    for p in payments:
        net[p.payer] -= p.amount
        net[winner] += p.amount
    return Settlement(winner, tuple(payments), net)
