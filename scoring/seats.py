"""Seats and winds: two words, two types.

A **wind** (`Wind`, 東南西北) is a tile's face and what the scorer reads: 門風 (the winner's own
wind) and 圈風 (the round's). A wind is the scorer's string `"E"` … `"N"` (the JSON of the rules
spec), so a `Wind` is a `str`.

A **seat** (`Seat`, 東家 南家 西家 北家) is a place at the table, fixed for the evening, in turn
order. A seat is not a string: passing one where a wind belongs fails at once.

The deal moves around the seats: while `dealer` deals, the dealer's 門風 is 東, the next seat's 南,
and so on (`seat_wind`). The scorer speaks in winds; `ledger`, the page and the CLI speak in seats
and turn the one into the other here.
"""

from __future__ import annotations

from enum import Enum, StrEnum


class Wind(StrEnum):
    """東 南 西 北 as a tile, 門風 or 圈風."""

    E = "E"
    S = "S"
    W = "W"
    N = "N"

    @property
    def zh(self) -> str:
        """東 (the same character in both scripts)."""
        return "東南西北"[_ORDER.index(self.value)]

    def step(self, n: int = 1) -> Wind:
        return Wind(_ORDER[(_ORDER.index(self.value) + n) % 4])


class Seat(Enum):
    """東家 南家 西家 北家: a place at the table. `code` is its letter in files (`E` … `N`)."""

    E = "E"
    S = "S"
    W = "W"
    N = "N"

    @property
    def code(self) -> str:
        return self.value

    @property
    def zh(self) -> str:
        """東家 (traditional; `scoring.script.in_script` gives 东家)."""
        return "東南西北"[_ORDER.index(self.value)] + "家"

    def step(self, n: int = 1) -> Seat:
        """The seat `n` turns after this one (the next dealer is `dealer.step()`)."""
        return Seat(_ORDER[(_ORDER.index(self.value) + n) % 4])

    @classmethod
    def of(cls, value: object) -> Seat:
        """A seat from a file or a form: a `Seat`, or its code; ValueError otherwise."""
        if isinstance(value, Seat):
            return value
        if isinstance(value, str) and not isinstance(value, Wind) and value in _ORDER:
            return cls(value)
        raise ValueError(f"{value!r} is not a seat (E, S, W, N)")


_ORDER = "ESWN"
SEATS = tuple(Seat)


def seat_wind(seat: Seat, dealer: Seat) -> Wind:
    """門風 of the player in `seat` while `dealer` deals: the dealer is 東, the next seat 南 …"""
    return Wind.E.step(_ORDER.index(seat.value) - _ORDER.index(dealer.value))


def seat_with_wind(wind: str, dealer: Seat) -> Seat:
    """The seat whose 門風 is `wind` while `dealer` deals (the inverse of `seat_wind`)."""
    return dealer.step(_ORDER.index(Wind(wind).value))
