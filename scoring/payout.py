"""A hand's result as players say it, and its payments by seat: the one way from "南家 won off
西家, 西家 dealing, 連莊 1, 東風圈" to 台 and money, for the page, the ledger and the CLI alike.

The players say who won and how in seats (`Result`); the scorer reads winds (門風, 圈風) and a
table whose dealer is 東. `seat_hand` gives a hand the winds and table its result implies,
`judge` scores it and settles it, and the payments come back by seat (`Payout`).

    verdict = judge(seat_hand(hand, Result(Deal(Wind.E, Seat.W, 1), Seat.S, Seat.W), 100, 20))
    verdict.payout.net   # {Seat.E: 0, Seat.S: +…, Seat.W: −…, Seat.N: 0}

Where the table allows it, one discard won by several seats is `judge_several` (a `SharedVerdict`:
each winner's verdict, one net by seat), and a 詐胡's penalty is `judge_false_win` (a `FalseWinPayout`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from .hand import MAX_STREAK, Hand, HandError, Table
from .ruleset import DEFAULT_RULESET, Ruleset, load_ruleset
from .score import Score, score
from .seats import SEATS, Seat, Wind, seat_wind, seat_with_wind
from .settle import Settlement, settle, settle_false_win, settle_several_winners


@dataclass(frozen=True, slots=True)
class Deal:
    """The deal a hand is played under: 圈風, the dealer's seat and the 連莊 count before it."""

    round: Wind = Wind.E
    dealer: Seat = Seat.E
    streak: int = 0

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "round", Wind(self.round))
        except ValueError:
            raise HandError(f"deal: round {self.round!r} is not a wind (E, S, W, N)",
                            "圈風要是東、南、西或北") from None
        if not isinstance(self.dealer, Seat):
            raise HandError(f"deal: dealer {self.dealer!r} is not a seat", "莊家要是東家、南家、西家或北家")
        if isinstance(self.streak, bool) or not isinstance(self.streak, int) or not 0 <= self.streak <= MAX_STREAK:
            raise HandError(f"deal: streak must be a whole number from 0 to {MAX_STREAK}, got {self.streak!r}",
                            f"連莊次數要是 0 到 {MAX_STREAK} 的整數")


@dataclass(frozen=True, slots=True)
class Result:
    """Who won (`winner`) and how: self-drawn (`discarder` None) or off `discarder`'s tile."""

    deal: Deal
    winner: Seat
    discarder: Seat | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.winner, Seat) or not (self.discarder is None or isinstance(self.discarder, Seat)):
            raise HandError(f"result: winner {self.winner!r} and discarder {self.discarder!r} must be seats",
                            "胡牌和放槍的人要是東家、南家、西家或北家")
        if self.discarder == self.winner:
            raise HandError("result: the winner cannot be the discarder", "放槍的人不能是胡牌的人")

    @property
    def self_draw(self) -> bool:
        return self.discarder is None

    @property
    def winner_wind(self) -> Wind:
        """門風 of the winner under this deal."""
        return seat_wind(self.winner, self.deal.dealer)


def seat_hand(hand: Hand, result: Result, base: int, per_tai: int, declared_ready: bool = False) -> Hand:
    """`hand` (its tiles and flags) with the winds and table `result` implies: 門風 from the
    winner's seat and the dealer, 圈風 from the deal, the dealer as 東, the discarder by 門風."""
    dealer = result.deal.dealer
    table = Table(dealer=Wind.E.value, base=base, per_tai=per_tai, streak=result.deal.streak,
                  declared_ready=declared_ready,
                  discarder=None if result.discarder is None else seat_wind(result.discarder, dealer).value)
    return hand.replace(seat_wind=result.winner_wind.value, round=result.deal.round.value, self_draw=result.self_draw,
                        table=table)


def result_of(hand: Hand, dealer: Seat) -> Result:
    """The result of a hand given winds by `seat_hand` (the inverse), `dealer` dealing."""
    table = hand.table
    if table is None or table.dealer != Wind.E:
        raise HandError("a seated hand has its table, the dealer as E (門風)")
    discarder = None if hand.self_draw else seat_with_wind(cast(str, table.discarder), dealer)
    winner = seat_with_wind(hand.seat_wind, dealer)
    return Result(Deal(Wind(hand.situation.round), dealer, table.streak), winner, discarder)


# Each seat's money, in seat order 東家 南家 西家 北家: a payout's, and a ledger line's as stored.
Nets = tuple[int, int, int, int]


def in_seat_order(net: Mapping[Seat, int]) -> Nets:
    """A net by seat as its four numbers in seat order."""
    east, south, west, north = SEATS
    return net[east], net[south], net[west], net[north]


@dataclass(frozen=True, slots=True)
class SeatPayment:
    payer: Seat
    tai: int  # the hand's total plus the extras on this payment
    extras: tuple[tuple[str, int], ...]  # (莊家/連莊/聽牌 name, 台)
    amount: int


@dataclass(frozen=True, slots=True)
class Payout:
    """Who pays the winner what, by seat; `net` has all four seats (the winner positive)."""

    winner: Seat
    payments: tuple[SeatPayment, ...]
    net: dict[Seat, int]

    @classmethod
    def of(cls, settlement: Settlement, dealer: Seat) -> Payout:
        """A settlement in winds (the dealer as 東) by seat."""
        def seat(wind: str) -> Seat:
            return seat_with_wind(wind, dealer)

        return cls(seat(settlement.winner),
                   tuple(SeatPayment(seat(p.payer), p.tai, p.extras, p.amount) for p in settlement.payments),
                   {seat(w): n for w, n in settlement.net.items()})

    def net_of(self, seat: Seat) -> int:
        return self.net[seat]

    @property
    def nets(self) -> Nets:
        """Each seat's money in seat order 東家 南家 西家 北家."""
        return in_seat_order(self.net)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A seated hand scored and settled."""

    hand: Hand
    result: Result
    score: Score
    payout: Payout


def judge(hand: Hand, result: Result, ruleset: Ruleset | str = DEFAULT_RULESET) -> Verdict:
    """Score `hand` (given its winds and table by `seat_hand(hand, result, …)`) and settle it by
    seat. Raises HandError, with words for the player, for a hand that is not a win."""
    if result_of(hand, result.deal.dealer) != result:
        raise HandError("the hand's winds and table are not the result's: give it them with seat_hand")
    scored = score(hand, ruleset)
    return Verdict(hand, result, scored, Payout.of(settle(scored, hand, ruleset=ruleset), result.deal.dealer))


# -- one discard won by several seats (一炮多響) ---------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SharedVerdict:
    """One discard won by several seats: each winner's verdict (its own 台 and the discarder's
    payment to it), in turn after the discarder, and every payment added up by seat."""

    verdicts: tuple[Verdict, ...]
    net: dict[Seat, int]

    @property
    def discarder(self) -> Seat:
        return cast(Seat, self.verdicts[0].result.discarder)  # one discard's: judge_several refuses a win without one

    @property
    def winners(self) -> tuple[Seat, ...]:
        return tuple(v.result.winner for v in self.verdicts)

    @property
    def nets(self) -> Nets:
        return in_seat_order(self.net)


def turn_after(seat: Seat, other: Seat) -> int:
    """How many turns after `seat` `other` plays (1 the next seat … 3, 0 itself)."""
    return next(n for n in range(4) if seat.step(n) == other)


def judge_several(wins: Sequence[tuple[Hand, Result]], ruleset: Ruleset | str = DEFAULT_RULESET) -> SharedVerdict:
    """Score and settle one discard won by several seats, each `(hand, result)` as for `judge`
    (the hand given its winds by `seat_hand`; one deal and one discarder for all): the discarder
    pays each winner as for that win alone where the ruleset allows several winners
    (`scoring.settle.settle_several_winners`). The winners come back in turn after the discarder,
    however they were given. HandError, in both scripts, where the wins cannot be one discard or
    the table allows one winner only."""
    rules = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    if not wins:
        raise HandError("several winners: no win given", "一炮多響：沒有胡牌的人")
    first = wins[0][1]
    if first.discarder is None or any((r.deal, r.discarder) != (first.deal, first.discarder) for _, r in wins):
        raise HandError("several winners: every win is off one discard, under one deal",
                        "一炮多響：每一家都要胡同一個人打出的牌、在同一局")
    discarder = first.discarder
    ordered = sorted(wins, key=lambda win: turn_after(discarder, win[1].winner))
    if any(result_of(hand, first.deal.dealer) != result for hand, result in ordered):
        raise HandError("the hand's winds and table are not the result's: give it them with seat_hand")
    scored = [(score(hand, rules), hand) for hand, _ in ordered]
    shared = settle_several_winners(scored, rules)
    dealer = first.deal.dealer
    verdicts = tuple(Verdict(hand, result, one, Payout.of(settled, dealer))
                     for (hand, result), (one, _), settled in zip(ordered, scored, shared.settlements, strict=True))
    return SharedVerdict(verdicts, _by_seat(shared.net, dealer))


# -- 詐胡, a false win, by seat -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SeatPenalty:
    payee: Seat
    tai: int
    amount: int
    reason: str  # in traditional characters: 聽牌：所聽台數 / 未聽：詐胡台數


@dataclass(frozen=True, slots=True)
class FalseWinPayout:
    """A 詐胡 by seat: who called it, the 台 claimed, what each other seat was ready for (None: not
    ready), and the caller's payment to each."""

    caller: Seat
    claimed: int
    waiting: dict[Seat, int | None]
    payments: tuple[SeatPenalty, ...]
    net: dict[Seat, int]

    @property
    def nets(self) -> Nets:
        return in_seat_order(self.net)


def judge_false_win(caller: Seat, claimed_tai: int, waiting: Mapping[Seat, int | None], deal: Deal, per_tai: int,
                    ruleset: Ruleset | str = DEFAULT_RULESET) -> FalseWinPayout:
    """The penalty of a 詐胡 called by seat `caller` under `deal`, `waiting` giving each of the three
    other seats the 台 it was ready for (None: not ready): `scoring.settle.settle_false_win` in the
    scorer's winds, its payments back by seat. HandError, in both scripts, where the table states
    no such penalty or the inputs are not seats and whole numbers of 台."""
    if not isinstance(caller, Seat) or not isinstance(waiting, Mapping) or not all(isinstance(s, Seat)
                                                                                   for s in waiting):
        raise HandError("false win: the caller and the players waiting are seats",
                        "詐胡：請選是哪一家詐胡，另外三家有沒有聽牌")
    dealer = deal.dealer
    table = Table(dealer=Wind.E.value, base=0, per_tai=per_tai, streak=deal.streak)  # 「賠…台數」: no 底
    settled = settle_false_win(seat_wind(caller, dealer).value, claimed_tai,
                               {seat_wind(s, dealer).value: tai for s, tai in waiting.items()}, table, ruleset)
    payments = sorted((SeatPenalty(seat_with_wind(p.payee, dealer), p.tai, p.amount, p.reason)
                       for p in settled.payments), key=lambda p: SEATS.index(p.payee))
    return FalseWinPayout(caller, claimed_tai, {p.payee: waiting[p.payee] for p in payments}, tuple(payments),
                          _by_seat(settled.net, dealer))


def _by_seat(net: Mapping[str, int], dealer: Seat) -> dict[Seat, int]:
    """A net in the scorer's winds (the dealer as 東) by seat, in seat order."""
    return {s: net[seat_wind(s, dealer)] for s in SEATS}
