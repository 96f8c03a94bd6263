"""Who deals next, and each seat's 門風.

Players keep their seats around the table (方位: the app's 東家 南家 西家 北家, in turn order); the
deal moves around them. The dealer keeps the deal on a win or a 流局 (連莊 +1) and passes it to
the next seat otherwise (連莊 back to 0); the round wind (圈風) moves on when the deal comes back
to the table's first dealer (起莊), that is after the four seats have dealt.

The dealer's 門風 is 東, the next seat's 南, and so on. The scorer speaks in 門風 (its `seat` is
the winner's 門風, its dealer and discarder are 門風 too), so at a table the dealer is `E` for
the scorer and `seated` turns its payments back into seats.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from scoring.hand import HandError, Table
from scoring.settle import Settlement
from scoring.tiles import WINDS


@dataclass(frozen=True, slots=True)
class Deal:
    """The deal a hand is played under: 圈風, the dealer's seat, and the 連莊 count before it."""

    round: str = "E"
    dealer: str = "E"
    streak: int = 0

    def __post_init__(self) -> None:
        if self.round not in WINDS or self.dealer not in WINDS:
            raise HandError(f"deal: round {self.round!r} and dealer {self.dealer!r} must be winds (E, S, W, N)")
        if isinstance(self.streak, bool) or not isinstance(self.streak, int) or self.streak < 0:
            raise HandError(f"deal: streak must be a whole number >= 0, got {self.streak!r}")


def _step(wind: str, steps: int = 1) -> str:
    return WINDS[(WINDS.index(wind) + steps) % 4]


def next_deal(deal: Deal, winner: str | None, first_dealer: str = "E") -> Deal:
    """The deal after a hand won by seat `winner` (None: 流局)."""
    if winner is None or winner == deal.dealer:
        return replace(deal, streak=deal.streak + 1)
    dealer = _step(deal.dealer)
    return Deal(_step(deal.round) if dealer == first_dealer else deal.round, dealer, 0)


def seat_wind(seat: str, dealer: str) -> str:
    """門風 of the player in `seat` while `dealer` deals: the dealer is 東, the next seat 南…"""
    return _step(seat, -WINDS.index(dealer))


def seat_of_wind(wind: str, dealer: str) -> str:
    """The seat whose 門風 is `wind` while `dealer` deals (the inverse of `seat_wind`)."""
    return _step(wind, WINDS.index(dealer))


def as_dealt(table: Table) -> Table:
    """The scorer's table for a hand at a table whose dealer and discarder are seats: the dealer
    as 東 (`E`), the discarder by 門風."""
    discarder = None if table.discarder is None else seat_wind(table.discarder, table.dealer)
    return replace(table, dealer="E", discarder=discarder)


def seated(settlement: Settlement, dealer: str) -> Settlement:
    """A settlement worked out in 門風 (the dealer as `E`) with its winner, payers and net by seat."""
    def seat(wind: str) -> str:
        return seat_of_wind(wind, dealer)

    return Settlement(seat(settlement.winner),
                      tuple(replace(p, payer=seat(p.payer)) for p in settlement.payments),
                      {seat(w): n for w, n in settlement.net.items()})

