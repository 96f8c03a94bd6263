"""Who deals next.

Players keep their seats around the table (`scoring.seats.Seat`: 東家 南家 西家 北家, in turn
order); the deal moves around them. The dealer keeps the deal on a win or a 流局 (連莊 +1) and
passes it to the next seat otherwise (連莊 back to 0); the round wind (圈風) moves on when the
deal comes back to the table's first dealer (起莊), that is after the four seats have dealt.
Each seat's 門風 under a deal is `scoring.seats.seat_wind`.

The other lines of a ledger (docs/rules.md, 一炮多響 and 詐胡): with several winners off one
discard the dealer keeps the deal when among them; a 詐胡 ends the hand with nobody winning, as a
流局 does; a penalty is no hand played, so the deal stays as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from scoring.hand import MAX_STREAK
from scoring.payout import Deal
from scoring.seats import Seat

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
