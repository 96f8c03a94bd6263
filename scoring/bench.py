"""Benchmark: score a few thousand random legal winning hands, print median and p99 per hand.

    python -m scoring.bench [--hands 5000] [--seed 0] [--ruleset tw16-improved] [--repeat 3]

Each hand is timed through `score` (validation, waits, every reading, the table); the caches
of splits start cold, as in a fresh process. With --repeat N each hand's time is the least of N
passes (the later ones warm): on a machine whose cores other jobs share, that shows the scorer's
own tail apart from time the process was not running.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from .hand import HandError
from .random_hands import random_winning_hand
from .ruleset import DEFAULT_RULESET, available_rulesets, load_ruleset
from .score import score


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m scoring.bench")
    p.add_argument("--hands", type=int, default=5000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ruleset", default=DEFAULT_RULESET, help="one of " + ", ".join(available_rulesets()))
    p.add_argument("--repeat", type=int, default=1, help="passes; each hand's least time is kept")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    hands = [random_winning_hand(rng, table_prob=0.0) for _ in range(args.hands)]
    rules = load_ruleset(args.ruleset)
    times = [float("inf")] * len(hands)
    for _ in range(max(1, args.repeat)):
        for k, hand in enumerate(hands):
            t0 = time.perf_counter()
            try:
                score(hand, rules)
            except HandError:  # 改良式: a hand under 1 台 is no win (起胡); timed all the same
                pass
            times[k] = min(times[k], (time.perf_counter() - t0) * 1000)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    passes = f", least of {args.repeat} passes" if args.repeat > 1 else ""
    print(f"{len(times)} random legal winning hands, ruleset {rules.id}{passes}")
    print(f"median {statistics.median(times):.3f} ms  p99 {p99:.3f} ms  max {times[-1]:.3f} ms "
          "per hand")


if __name__ == "__main__":
    main()
