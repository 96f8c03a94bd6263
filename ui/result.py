"""A draft and the table's situation → the scorer's result and payments, as rows for the screen."""

from __future__ import annotations

from dataclasses import dataclass

from scoring.hand import Hand, Situation, Table
from scoring.ruleset import load_ruleset
from scoring.score import Score, score
from scoring.settle import Settlement, settle
from scoring.tiles import WINDS
from ui.draft import Draft, to_hand
from ui.text import in_script, seat_label


@dataclass(frozen=True)
class Outcome:
    hand: Hand
    score: Score
    settlement: Settlement


def evaluate(draft: Draft, situation: Situation, table: Table, ruleset: str) -> Outcome:
    """Score and settle; raises HandError (what is wrong, for the player) for a hand that is not a win."""
    hand = to_hand(draft, situation, table)
    result = score(hand, ruleset)
    return Outcome(hand, result, settle(result, hand, ruleset=ruleset))


def item_rows(result: Score, script: str) -> list[dict[str, object]]:
    """One row per 台 item: its name in the chosen script and its 台."""
    return [{in_script("項目", script): item.trad if script == "traditional" else item.name, "台": item.tai}
            for item in result.items]


def _extra_name(name: str, ruleset: str, script: str) -> str:
    # settle() names the extras (庄家, 连庄, 听牌) in simplified; the ruleset holds both scripts.
    if script == "simplified":
        return name
    trad = {simp: trad for simp, trad in load_ruleset(ruleset).settlement.names.values()}
    return trad.get(name, in_script(name, script))


def payment_rows(settlement: Settlement, ruleset: str, script: str) -> list[dict[str, object]]:
    """Who pays the winner: the payer, the 台 on that payment (with the extras named), the amount."""
    rows = []
    for p in settlement.payments:
        extras = "、".join(f"{_extra_name(name, ruleset, script)} +{tai}" for name, tai in p.extras)
        rows.append({
            in_script("誰付", script): seat_label(p.payer, script),
            "台": f"{p.tai}（{extras}）" if extras else str(p.tai),
            in_script("金額", script): p.amount,
        })
    return rows


def net_line(settlement: Settlement, script: str) -> str:
    """東家 +810 · 南家 −310 · …"""
    def signed(n: int) -> str:
        return f"+{n}" if n > 0 else ("0" if n == 0 else f"−{-n}")

    return " · ".join(f"{seat_label(w, script)} {signed(settlement.net[w])}" for w in WINDS)
