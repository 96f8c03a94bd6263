"""One line of the ledger: a scored win (one winner, or several off one discard), a 流局, a 詐胡 or
a penalty, with the deal it was played under and the payments by seat, so the evening's totals are
sums of stored numbers and a later change of the scorer does not rewrite history."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from scoring.payout import Deal, FalseWinPayout, Nets, Result, SeatPenalty, SharedVerdict, Verdict
from scoring.seats import SEATS, Seat

MAX_REASON = 40  # a penalty's reason, as typed on the page: a few words


@dataclass(frozen=True)
class OtherWinner:
    """Another winner off the same discard (一炮多響): its seat, 台, items and hand, as a `LedgerLine`
    holds them for its first winner."""

    winner: Seat
    total: int
    items: tuple[tuple[str, int], ...]
    hand: str  # the JSON text of Hand.to_json(), as `LedgerLine.hand`


@dataclass(frozen=True)
class FalseWinRecord:
    """A 詐胡 as a ledger line holds it (`LedgerLine.false_win`): who called it, the 台 claimed, what
    each of the three others was ready for (None: not ready), and the caller's payment to each (its 台,
    amount and reason). A 詐摸 (`self_drawn`: the false win was called on the caller's own draw) is
    paid the same: the tables that state the penalty name 詐胡 whichever way it was called."""

    caller: Seat
    claimed: int
    waiting: tuple[tuple[Seat, int | None], ...]  # the three other seats, in seat order
    payments: tuple[SeatPenalty, ...]  # in seat order
    self_drawn: bool = False  # a 詐摸


@dataclass(frozen=True)
class LedgerLine:
    deal: Deal
    winner: Seat | None = None  # the (first) winner; None for a 流局, a 詐胡 and a penalty
    discarder: Seat | None = None  # who dealt the winning tile; None for a self-draw and a non-win
    total: int = 0  # the (first) winner's 台 (莊家 and 連莊 are on the payments)
    items: tuple[tuple[str, int], ...] = ()  # (台 item in traditional characters, 台)
    net: Nets = (0, 0, 0, 0)  # each seat's money, 東家 南家 西家 北家
    # The hand as scored, the JSON text of Hand.to_json() (its winds by scoring.payout.seat_hand),
    # None for a non-win. Kept as text: an evening is read far more often than one of its hands is
    # looked at again (`Recorded.scored_hand` turns it back into a Hand).
    hand: str | None = None
    ruleset: str | None = None
    photo_id: str | None = None
    # The other winners off the same discard, in turn after the discarder (the first is `winner`).
    others: tuple[OtherWinner, ...] = ()
    false_win: FalseWinRecord | None = None  # a 詐胡
    reason: str | None = None  # a penalty: its payments (`net`) need not balance; no hand was played

    @property
    def net_by_seat(self) -> dict[Seat, int]:
        return dict(zip(SEATS, self.net, strict=True))

    @property
    def winners(self) -> tuple[Seat, ...]:
        """Every winner, in turn after the discarder; () for a 流局, a 詐胡 and a penalty."""
        return () if self.winner is None else (self.winner, *(o.winner for o in self.others))

    @property
    def result(self) -> Result | None:
        """Who won (first) and how; None for a non-win."""
        return None if self.winner is None else Result(self.deal, self.winner, self.discarder)

    def same_hand(self, other: LedgerLine) -> bool:
        """The same result of the same deal, whichever phone (and photo) recorded it."""
        return replace(self, photo_id=None) == replace(other, photo_id=None)


def _text(verdict: Verdict) -> str:
    return json.dumps(verdict.hand.to_json(), ensure_ascii=False, separators=(",", ":"))


def _items(verdict: Verdict) -> tuple[tuple[str, int], ...]:
    return tuple((item.trad, item.tai) for item in verdict.score.items)


def win(verdict: Verdict, photo_id: str | None = None) -> LedgerLine:
    """A scored win (`scoring.payout.judge`) as a ledger line."""
    result = verdict.result
    return LedgerLine(
        deal=result.deal, winner=result.winner, discarder=result.discarder, total=verdict.score.total,
        items=_items(verdict), net=verdict.payout.nets, hand=_text(verdict), ruleset=verdict.score.ruleset,
        photo_id=photo_id,
    )


def shared_win(shared: SharedVerdict, photo_id: str | None = None) -> LedgerLine:
    """One discard won by several seats (`scoring.payout.judge_several`) as one ledger line: the
    first winner in turn after the discarder as for a single win, the others beside it, one net."""
    first, *others = shared.verdicts
    return replace(win(first, photo_id), net=shared.nets, others=tuple(
        OtherWinner(v.result.winner, v.score.total, _items(v), _text(v)) for v in others))


def false_win(payout: FalseWinPayout, deal: Deal, ruleset: str | None = None, self_drawn: bool = False) -> LedgerLine:
    """A 詐胡 (`scoring.payout.judge_false_win`), or a 詐摸 (`self_drawn`), as a ledger line of its own:
    nobody won."""
    waiting = tuple((s, payout.waiting[s]) for s in SEATS if s != payout.caller)
    return LedgerLine(deal, net=payout.nets, ruleset=ruleset,
                      false_win=FalseWinRecord(payout.caller, payout.claimed, waiting, payout.payments,
                                               self_drawn is True))


def penalty(deal: Deal, net: Nets, reason: str) -> LedgerLine:
    """A penalty the table agreed on: each seat's money (+ paid, − paying; it need not add up to
    zero: a fine may go to the house) and why. Checked as it is recorded."""
    return LedgerLine(deal, net=net, reason=reason)


def draw(deal: Deal) -> LedgerLine:
    """A 流局: nobody wins, nobody pays, the dealer keeps the deal."""
    return LedgerLine(deal)
