"""Who deals next.

Players keep their seats around the table (`scoring.seats.Seat`: 東家 南家 西家 北家, in turn
order); the deal moves around them. The dealer keeps the deal on a win or a 流局 (連莊 +1) and
passes it to the next seat otherwise (連莊 back to 0); the round wind (圈風) moves on when the
deal comes back to the table's first dealer (起莊), that is after the four seats have dealt.
Each seat's 門風 under a deal is `scoring.seats.seat_wind`.
"""

from __future__ import annotations

from dataclasses import replace

from scoring.hand import MAX_STREAK
from scoring.payout import Deal
from scoring.seats import Seat


def next_deal(deal: Deal, winner: Seat | None, first_dealer: Seat = Seat.E) -> Deal:
    """The deal after a hand won by seat `winner` (None: 流局)."""
    if winner is None or winner == deal.dealer:
        return replace(deal, streak=min(deal.streak + 1, MAX_STREAK))
    dealer = deal.dealer.step()
    return Deal(deal.round.step() if dealer == first_dealer else deal.round, dealer, 0)
