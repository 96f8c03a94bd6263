"""How long the ledger takes on a long evening: `python -m ledger.bench [--hands 3000] [--repeat 7]`.

A fresh file in a temporary folder gets one table with `--hands` scored hands (a few real hands
scored by the scorer, dealt in turn), then each operation the page uses is timed `--repeat` times
and its median printed in milliseconds: the page's check for a change (`revision`), reading the
evening (`state`), recording the next hand, editing a hand in the middle, undoing the last one; and
the table's memory of its tiles, as full as it grows (MEMORY_BYTES): the page's check for a change
(`memory revision`), reading it (`memory`) and changing it (`teach`: the stored bytes read and written
back under the write lock; the app's embedding of the crops is timed by `python -m training.bench`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from scoring.payout import Deal, Result, judge, seat_hand
from scoring.random_hands import random_winning_hand
from scoring.seats import SEATS, Seat

from .deal import ends_jiang, next_deal
from .line import LedgerLine, win
from .store import Jiang, Ledger, Recorded, _insert, _keep_jiang, _now, _set_open_jiang

CODE = "bench"
MEMORY_BYTES = 90_000  # a full memory: 43 classes x 4 examples x 192 floats, as vision/memory.py stores it


def _scored(rng: random.Random, winner: Seat) -> LedgerLine:
    """A real scored win by seat `winner` off the next seat, 東家 dealing."""
    result = Result(Deal(), winner, winner.step())
    return win(judge(seat_hand(random_winning_hand(rng, situation=False), result, 100, 20), result))


def fill(led: Ledger, count: int, seed: int = 0) -> None:
    """`count` hands at table CODE in one transaction (recording them one by one is what is timed)."""
    rng = random.Random(seed)
    kinds = [_scored(rng, rng.choice(SEATS)) for _ in range(24)]
    deal, first, jiang = Deal(), led.open_table(CODE).first_dealer, 1
    with led._session(write=True) as db:
        for seq in range(1, count + 1):
            line = replace(rng.choice(kinds), deal=deal)
            _insert(db, CODE, 1, Recorded(seq, line, _now(), None, seq, jiang))
            played, deal = deal, next_deal(deal, line.winner, first)
            if ends_jiang(played, deal):  # the same seating goes on, as `record` does when none is drawn
                _keep_jiang(db, CODE, 1, Jiang(jiang, (1, 2, 3, 4), first, False, _now()))
                jiang += 1
        _set_open_jiang(db, CODE, Jiang(jiang, (1, 2, 3, 4), first, False, _now()))


def _median_ms(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def measure(led: Ledger, repeat: int) -> dict[str, float]:
    """Median milliseconds of each operation on the table CODE as it is now (left as it was)."""
    evening = led.state(CODE)
    middle, last = evening.hands[len(evening.hands) // 2], evening.hands[-1]

    def record_and_undo() -> tuple[float, float]:
        start = time.perf_counter()
        new = led.record(CODE, replace(last.line, photo_id="bench"), evening.next_seq)
        recorded = time.perf_counter()
        led.undo(CODE, new.seq, new.revision)
        return recorded - start, time.perf_counter() - recorded

    def teach(data: bytes | None) -> bytes:
        assert data is not None  # filled to MEMORY_BYTES below, before anything is timed
        return data[1:] + data[:1]

    def edit() -> None:  # as a page does: naming the revision the last edit left
        nonlocal middle
        middle = led.edit(CODE, middle.seq, middle.line, middle.revision)

    pairs = [record_and_undo() for _ in range(repeat)]
    led.change_memory(CODE, lambda data: bytes(MEMORY_BYTES))
    return {
        "revision": _median_ms(lambda: led.revision(CODE), repeat),
        "state": _median_ms(lambda: led.state(CODE), repeat),
        "record": 1000 * statistics.median(p[0] for p in pairs),
        "undo": 1000 * statistics.median(p[1] for p in pairs),
        "edit": _median_ms(edit, repeat),
        "memory revision": _median_ms(lambda: led.memory_revision(CODE), repeat),
        "memory": _median_ms(lambda: led.memory(CODE), repeat),
        "teach": _median_ms(lambda: led.change_memory(CODE, teach), repeat),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ledger.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000, choices=range(1, 100_001), metavar="1..100000")
    parser.add_argument("--repeat", type=int, default=7, choices=range(1, 1001), metavar="1..1000")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        led = Ledger(Path(folder) / "bench.db")
        fill(led, args.hands)
        figures = measure(led, args.repeat)
    print(f"{args.hands} hands, median of {args.repeat}: "
          + ", ".join(f"{name} {ms:.1f} ms" for name, ms in figures.items()))


if __name__ == "__main__":
    main()
