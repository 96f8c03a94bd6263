"""Who deals next.

Players keep their seats around the table (`scoring.seats.Seat`: 東家 南家 西家 北家, in turn
order); the deal moves around them. The dealer keeps the deal on a win or a 流局 (連莊 +1) and
passes it to the next seat otherwise (連莊 back to 0); the round wind (圈風) moves on when the
deal comes back to the table's first dealer (起莊), that is after the four seats have dealt.
Each seat's 門風 under a deal is `scoring.seats.seat_wind`.

A 將 is the four wind rounds: it ends when, in the 北風圈, the deal would come back to the first
dealer (`ends_jiang`). Every table here keeps the deal on a 流局 (the seeds: 「流局，由庄家连庄」,
「莊家胡牌或流局即連莊」), so the 將 ends after the hand that passes the deal from the seat before
起莊 in the 北風圈, however many hands 連莊 took before it. The next 將 starts in the 東風圈 at its own
起莊, often after the players drew their seats again (`ledger.store.Ledger.start_jiang`).

The other lines of a ledger (docs/rules.md, 一炮多響 and 詐胡): with several winners off one
discard the dealer keeps the deal when among them; a 詐胡 ends the hand with nobody winning, as a
流局 does; a penalty is no hand played, so the deal stays as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from scoring.hand import MAX_STREAK
from scoring.payout import Deal
from scoring.seats import Seat, Wind

from .line import LedgerLine


def next_deal(deal: Deal, winner: Seat | None, first_dealer: Seat = Seat.E) -> Deal:
    """The deal after a hand won by seat `winner` (None: 流局)."""
    if winner is None or winner == deal.dealer:
        return replace(deal, streak=min(deal.streak + 1, MAX_STREAK))
    dealer = deal.dealer.step()
    return Deal(deal.round.step() if dealer == first_dealer else deal.round, dealer, 0)


def after_hand(deal: Deal, winners: Sequence[Seat], penalty: bool, first_dealer: Seat = Seat.E) -> Deal:
    """The deal after a line of the ledger played under `deal`: won by `winners` (none: a 流局 or a
    詐胡), or a penalty (`penalty`: no hand played, the deal unchanged)."""
    if penalty:
        return deal
    return next_deal(deal, deal.dealer if deal.dealer in winners else next(iter(winners), None), first_dealer)


def deal_after_line(line: LedgerLine, first_dealer: Seat = Seat.E) -> Deal:
    """The deal after `line`."""
    return after_hand(line.deal, line.winners, line.reason is not None, first_dealer)


def ends_jiang(played: Deal, after: Deal) -> bool:
    """A hand played under `played`, with `after` the deal after it, ends the 將: the round wind
    would come back to 東 (the deal back at 起莊 in the 北風圈)."""
    return played.round is Wind.N and after.round is Wind.E
