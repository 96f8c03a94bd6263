"""One line of the ledger: a scored win or a 流局, with the deal it was played under and the
payments by seat, so the evening's totals are sums of stored numbers and a later change of the
scorer does not rewrite history."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from scoring.payout import Deal, Result, Verdict
from scoring.seats import SEATS, Seat


@dataclass(frozen=True)
class Entry:
    deal: Deal
    winner: Seat | None = None  # None for a 流局
    discarder: Seat | None = None  # who dealt the winning tile; None for a self-draw and a 流局
    total: int = 0  # the hand's 台 (莊家 and 連莊 are on the payments)
    items: tuple[tuple[str, int], ...] = ()  # (台 item in traditional characters, 台)
    net: tuple[int, int, int, int] = (0, 0, 0, 0)  # each seat's money, 東家 南家 西家 北家
    # The hand as scored, the JSON text of Hand.to_json() (its winds by scoring.payout.seat_hand),
    # None for a 流局. Kept as text: an evening is read far more often than one of its hands is
    # looked at again (`Recorded.scored_hand` turns it back into a Hand).
    hand: str | None = None
    ruleset: str | None = None
    photo_id: str | None = None

    @property
    def net_by_seat(self) -> dict[Seat, int]:
        return dict(zip(SEATS, self.net, strict=True))

    @property
    def result(self) -> Result | None:
        """Who won and how; None for a 流局."""
        return None if self.winner is None else Result(self.deal, self.winner, self.discarder)

    def same_hand(self, other: Entry) -> bool:
        """The same result of the same deal, whichever phone (and photo) recorded it."""
        return replace(self, photo_id=None) == replace(other, photo_id=None)


def win(verdict: Verdict, photo_id: str | None = None) -> Entry:
    """A scored win (`scoring.payout.judge`) as a ledger line."""
    result = verdict.result
    return Entry(
        deal=result.deal, winner=result.winner, discarder=result.discarder, total=verdict.score.total,
        items=tuple((item.trad, item.tai) for item in verdict.score.items), net=verdict.payout.nets,
        hand=json.dumps(verdict.hand.to_json(), ensure_ascii=False, separators=(",", ":")),
        ruleset=verdict.score.ruleset, photo_id=photo_id,
    )


def draw(deal: Deal) -> Entry:
    """A 流局: nobody wins, nobody pays, the dealer keeps the deal."""
    return Entry(deal)
