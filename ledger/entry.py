"""One line of the ledger: a scored win or a 流局, with the deal it was played under and the
payments by seat (方位), so the evening's totals are sums of stored numbers and a later change of
the scorer does not rewrite history."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from scoring.hand import Hand
from scoring.score import Score
from scoring.settle import Settlement
from scoring.tiles import WINDS

from .deal import Deal, seat_of_wind, seated


@dataclass(frozen=True)
class Entry:
    deal: Deal
    winner: str | None = None  # seat; None for a 流局
    discarder: str | None = None  # seat that dealt the winning tile; None for a self-draw and a 流局
    total: int = 0  # the hand's 台 (莊家 and 連莊 are on the payments)
    items: tuple[tuple[str, int], ...] = ()  # (台 item in traditional characters, 台)
    net: tuple[int, int, int, int] = (0, 0, 0, 0)  # per seat E, S, W, N
    # The hand as scored, the JSON text of Hand.to_json() (門風: dealer E), None for a 流局. Kept
    # as text: an evening is read far more often than one of its hands is looked at again
    # (`Recorded.scored_hand` turns it back into a Hand).
    hand: str | None = None
    ruleset: str | None = None
    photo_id: str | None = None

    @property
    def net_by_seat(self) -> dict[str, int]:
        return dict(zip(WINDS, self.net, strict=True))

    def same_hand(self, other: Entry) -> bool:
        """The same result of the same deal, whichever phone (and photo) recorded it."""
        return replace(self, photo_id=None) == replace(other, photo_id=None)


def win(hand: Hand, result: Score, settlement: Settlement, dealer: str, photo_id: str | None = None) -> Entry:
    """A scored win as a ledger line. `hand` and `settlement` are in the scorer's terms, 門風 with
    the dealer as `E` (see `deal`); `dealer` is the dealer's seat."""
    table = hand.table
    if table is None or table.dealer != "E":
        raise ValueError("a ledger hand is scored with its table, the dealer as E (門風)")
    return Entry(
        deal=Deal(hand.situation.round, dealer, table.streak),
        winner=seat_of_wind(hand.seat, dealer),
        discarder=None if hand.self_draw else seat_of_wind(table.discarder, dealer),
        total=result.total,
        items=tuple((item.trad, item.tai) for item in result.items),
        net=tuple(seated(settlement, dealer).net[w] for w in WINDS),
        hand=json.dumps(hand.to_json(), ensure_ascii=False, separators=(",", ":")),
        ruleset=result.ruleset,
        photo_id=photo_id,
    )


def draw(deal: Deal) -> Entry:
    """A 流局: nobody wins, nobody pays, the dealer keeps the deal."""
    return Entry(deal)
