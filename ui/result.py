"""A draft and what the players say happened → the hand, its 台 and its payments by seat, as rows
for the screen. The one place the page turns a draft into a scored hand (`evaluate`), and the wins
set aside for one discard won by several seats into one (`evaluate_several`); the hand on the page, judged once
per run, is a `Judged`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.draft import Draft, to_hand
from scoring.hand import Hand, Situation
from scoring.payout import Deal, Payout, Result, SharedVerdict, Verdict, judge, judge_several, seat_hand
from scoring.ruleset import SettlementRules, load_ruleset
from scoring.score import Score
from scoring.seats import SEATS, Seat
from ui.text import in_script, seat_label


def evaluate(draft: Draft, flags: Situation, result: Result, base: int, per_tai: int, declared_ready: bool,
             ruleset: str) -> Verdict:
    """Score and settle the draft as `result` says it was won (`flags`: 海底, 槓上 …; its winds
    are the result's). Raises HandError (what is wrong, for the player) for a hand that is not a win."""
    return settle_hand(to_hand(draft, flags), result, base, per_tai, declared_ready, ruleset)


def settle_hand(hand: Hand, result: Result, base: int, per_tai: int, declared_ready: bool, ruleset: str) -> Verdict:
    """`evaluate` of a draft already made a hand."""
    return judge(seat_hand(hand, result, base, per_tai, declared_ready), result, ruleset)


@dataclass(frozen=True)
class Judged:
    """The hand on the page, judged once per run and handed to everything that speaks of it (the top bar, ④, the
    other readings of its photo, the table's record button): the draft as a hand (None: not one yet), its verdict
    (None: `why_not` says why, `("prompt" | "error", what to say)`), and where wins are set aside for its discard
    (一炮多響) all of them as one discard, or why they cannot be (`ui.table_record.judge_discard`)."""

    hand: Hand | None
    verdict: Verdict | None
    why_not: tuple[str, str] | None = None
    shared: SharedVerdict | None = None
    shared_problem: str | None = None


@dataclass(frozen=True)
class SetAside:
    """A win set aside on the page while the next winner of the same discard is entered (一炮多響):
    its hand (its tiles and flags; its winds and table are given again, from the page's deal, when
    the discard is scored), its winner, and whether that winner had declared 聽牌."""

    hand: Hand
    winner: Seat
    declared_ready: bool = False

    @classmethod
    def of(cls, verdict: Verdict) -> SetAside:
        table = verdict.hand.table
        assert table is not None  # a verdict's hand is seated: judge refuses one without its table
        return cls(verdict.hand, verdict.result.winner, table.declared_ready)


def evaluate_several(aside: Sequence[SetAside], current: Verdict | None, deal: Deal, discarder: Seat | None,
                     base: int, per_tai: int, ruleset: str) -> SharedVerdict:
    """The wins set aside and the page's current one (None: none being entered) as one discard of
    `discarder`'s under `deal` (`scoring.payout.judge_several`). Raises HandError (for the player)
    where they cannot be one discard or the table allows one winner only."""
    wins = [(one.hand, Result(deal, one.winner, discarder), one.declared_ready) for one in aside]
    seated = [(seat_hand(hand, result, base, per_tai, ready), result) for hand, result, ready in wins]
    if current is not None:
        seated.append((current.hand, current.result))
    return judge_several(seated, ruleset)


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


def payment_rows(payout: Payout, ruleset: str, script: str, player=seat_label) -> list[dict[str, object]]:
    """Who pays the winner: the payer (`player(seat, script)` names them), the 台 on that payment
    (with the extras named), the amount."""
    rows = []
    for p in payout.payments:
        extras = "、".join(f"{_extra_name(name, ruleset, script)} +{tai}" for name, tai in p.extras)
        rows.append({
            in_script("誰付", script): player(p.payer, script),
            "台": f"{p.tai}（{extras}）" if extras else str(p.tai),
            in_script("金額", script): p.amount,
        })
    return rows


def stake_words(rules: SettlementRules) -> str:
    """How one payment is worked out at this table (traditional characters): 底 + 台數 × 每台, times the ruleset's
    multiplier for a discard or a self-draw (`scoring.settle`)."""
    def amount(times: int) -> str:
        return ("底 + " if rules.base else "") + "台數 × 每台" + (f" × {times}" if times != 1 else "")

    return (("" if rules.base else "這個規則沒有底。") + f"放槍的人付 {amount(rules.discard_multiplier)}；"
            f"自摸時三家各付 {amount(rules.self_draw_multiplier)}（台數加上莊家、連莊的台）")


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("0" if n == 0 else f"−{-n}")


def net_line(payout: Payout, script: str, player=seat_label) -> str:
    """東家 +810 · 南家 −310 · …"""
    return " · ".join(f"{player(s, script)} {signed(payout.net[s])}" for s in SEATS)
