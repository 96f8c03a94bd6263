"""Benchmark: the scorer beside a plain reference scorer, per hand, on the same random hands;
and the legality check by tile counts, per check.

    python -m scoring.bench [--hands 2000] [--seed 0] [--repeat 1] [--ruleset NAME] [--json OUT]

One run times, on the same N random legal winning hands (`random_winning_hand`, seed fixed):
  reference   `scoring.reference.score_hand(hand JSON)`: the plain scorer of the default table
  score       `score(hand, ruleset)`: validation, waits, every reading, the table
  score_json  `cli.score_json(hand JSON, ruleset)`: what `python -m scoring score --json` does
              per hand (JSON → Hand → score → result)
and prints per hand the median and p99 of each, and how many times faster than the reference
(the ratio of medians). A hand's time is CPU time (`time.process_time`: time another job takes
from a shared machine is not counted); the three take each hand in turn, the first of them
rotating, so that what load there is falls on all alike. The scorer's memoised tables start
empty, as in a fresh process. With --repeat N each hand's time is the least of N passes, each
from empty tables again.

`can_win` (scoring.legal) is timed on each hand's counts and on the same counts with one tile
changed (mostly not a win), in µs per check, cold (first pass) and warm (the passes after).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from . import decompose
from .cli import score_json
from .decompose import counts_of
from .hand import HandError
from .legal import can_win
from .random_hands import random_winning_hand
from .reference import score_hand
from .ruleset import DEFAULT_RULESET, available_rulesets, load_ruleset
from .score import score
from .tiles import INDEX

WARM_PASSES = 20  # can_win: passes over the count vectors once the tables are filled


def _interleaved(paths: dict, repeat: int) -> dict[str, list[float]]:
    """CPU ms per input of each path (name → (fn, inputs)), each the least of `repeat` passes.
    The paths take the same hand in turn, the first of them rotating from hand to hand, so that
    a shared machine's load and the filling of the memoised tables fall on all alike."""
    names = list(paths)
    n = len(next(iter(paths.values()))[1])
    best = {name: [float("inf")] * n for name in names}
    for _ in range(repeat):
        decompose.clear_caches()
        for k in range(n):
            for j in range(len(names)):
                name = names[(k + j) % len(names)]
                fn, inputs = paths[name]
                t0 = time.process_time()
                fn(inputs[k])
                best[name][k] = min(best[name][k], (time.process_time() - t0) * 1000)
    return best


def _summary(times: list[float]) -> dict:
    ordered = sorted(times)
    return {"median_ms": statistics.median(ordered),
            "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]}


def _scoring(fn):
    """fn, with a hand its ruleset does not take as a win (改良式 起胡) timed all the same."""
    def run(x):
        try:
            fn(x)
        except HandError:
            pass
    return run


def _count_vectors(hands, rng: random.Random) -> list[tuple[list[int], int]]:
    """Each hand's concealed tiles with the winning tile as counts, and the same with one tile
    changed to another face (as a photo search tries them)."""
    out = []
    for h in hands:
        counts = counts_of(h.concealed)
        counts[INDEX[h.win]] += 1
        out.append((counts, len(h.melds)))
        changed = list(counts)
        changed[rng.choice([i for i, n in enumerate(counts) if n])] -= 1
        changed[rng.randrange(34)] += 1
        out.append((changed, len(h.melds)))
    return out


def _per_check_us(vectors, shapes, passes: int) -> float:
    t0 = time.process_time()
    for _ in range(passes):
        for counts, melds in vectors:
            can_win(counts, melds, shapes)
    return (time.process_time() - t0) / (passes * len(vectors)) * 1e6


def bench(hands: int = 2000, seed: int = 0, repeat: int = 1, ruleset: str = DEFAULT_RULESET) -> dict:
    rng = random.Random(seed)
    made = [random_winning_hand(rng, table_prob=0.0) for _ in range(hands)]
    as_json = [h.to_json() for h in made]
    rules = load_ruleset(ruleset)
    report: dict[str, Any] = {"hands": hands, "seed": seed, "repeat": repeat, "ruleset": rules.id}
    paths = {"score": (_scoring(lambda h: score(h, rules)), made),
             "score_json": (lambda j: score_json(j, rules), as_json)}
    if rules.id == load_ruleset(DEFAULT_RULESET).id:  # the reference knows the default table only
        paths["reference"] = (score_hand, as_json)
    for name, times in _interleaved(paths, repeat).items():
        report[name] = _summary(times)
    if "reference" in report:
        for path in ("score", "score_json"):
            report[path]["vs_reference"] = report["reference"]["median_ms"] / report[path]["median_ms"]
    vectors = _count_vectors(made, rng)
    decompose.clear_caches()
    report["can_win"] = {"checks": len(vectors), "wins": sum(can_win(c, m, rules.shapes) for c, m in vectors),
                         "cold_us": 0.0, "warm_us": 0.0}
    decompose.clear_caches()
    report["can_win"]["cold_us"] = _per_check_us(vectors, rules.shapes, 1)
    report["can_win"]["warm_us"] = _per_check_us(vectors, rules.shapes, WARM_PASSES)
    return report


def text(report: dict) -> str:
    passes = f", least of {report['repeat']} passes" if report["repeat"] > 1 else ""
    lines = [f"{report['hands']} random legal winning hands (seed {report['seed']}), "
             f"ruleset {report['ruleset']}{passes}; per hand:"]
    for path in ("reference", "score", "score_json"):
        if path not in report:
            lines.append(f"  {path:<11} (the default table only)")
            continue
        r = report[path]
        ratio = f"  {r['vs_reference']:.1f}x the reference" if "vs_reference" in r else ""
        lines.append(f"  {path:<11} median {r['median_ms']:.3f} ms  p99 {r['p99_ms']:.3f} ms{ratio}")
    c = report["can_win"]
    lines.append(f"  can_win     {c['warm_us']:.2f} µs per check warm, {c['cold_us']:.2f} µs cold "
                 f"({c['checks']} count vectors, {c['wins']} wins)")
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m scoring.bench")
    p.add_argument("--hands", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ruleset", default=DEFAULT_RULESET, help="one of " + ", ".join(available_rulesets()))
    p.add_argument("--repeat", type=int, default=1, help="passes; each hand's least time is kept")
    p.add_argument("--json", metavar="OUT", help="also write the figures to this JSON file")
    args = p.parse_args(argv)
    report = bench(args.hands, args.seed, max(1, args.repeat), args.ruleset)
    print(text(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
