"""Where two figures files of one benchmark differ beyond the bounds a change that should not move the readings
(another runtime, another precision) is allowed: each file the `--json` of `training.evaluate` or `training.evening`.

    python -m training.compare_figures BASE.json OTHER.json [--taps 0.02] [--points 1]

Every number the two hold at the same place is judged: a taps figure (a key that says taps, `mean` under `taps`, a
cause under `taps_by_cause`) beyond ±`--taps`, any other fraction (a rate from 0 to 1) beyond ±`--points`
percentage points. Counts, times and settings are not judged. It prints the figures judged, the largest move of each
kind and every figure beyond its bound; exit status 1 when there is one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.console import as_a_command

NOT_FIGURES = {"runtime", "reader_settings", "detector_settings", "ms_per_photo", "peer_ms_per_photo", "seconds",
               "conf", "classifier_weight", "upscale"}


def figures(tree, path: tuple[str, ...] = ()):
    """(path, kind, value) of every float in a figures JSON: kind `taps` or `rate`."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            if key not in NOT_FIGURES:
                yield from figures(value, (*path, key))
    elif isinstance(tree, float) and path:
        key, parent = path[-1], path[-2] if len(path) > 1 else ""
        if "taps" in key or parent == "taps_by_cause" or (parent == "taps" and key == "mean"):
            yield path, "taps", tree
        elif 0.0 <= tree <= 1.0:
            yield path, "rate", tree


def compare(base: dict, other: dict, taps: float, points: float) -> tuple[dict, list[str]]:
    """The largest move of each kind, and a line for each figure beyond its bound."""
    theirs = {path: value for path, _, value in figures(other)}
    largest, beyond, judged = {"taps": 0.0, "rate": 0.0}, [], 0
    for path, kind, value in figures(base):
        if path not in theirs:
            continue
        judged += 1
        move = theirs[path] - value
        largest[kind] = max(largest[kind], abs(move))
        bound = taps if kind == "taps" else points / 100
        if abs(move) > bound + 1e-9:
            shown = f"{value:.3f} -> {theirs[path]:.3f}" if kind == "taps" else \
                f"{value:.2%} -> {theirs[path]:.2%}"
            beyond.append(f"{' / '.join(path)}: {shown}")
    return {"judged": judged, "largest taps move": round(largest["taps"], 4),
            "largest rate move (points)": round(100 * largest["rate"], 2)}, beyond


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.compare_figures", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", type=Path)
    parser.add_argument("other", type=Path)
    parser.add_argument("--taps", type=float, default=0.02, help="bound on a taps figure's move")
    parser.add_argument("--points", type=float, default=1.0, help="bound on a rate's move, in percentage points")
    args = parser.parse_args(argv)
    summary, beyond = compare(*(json.loads(p.read_text()) for p in (args.base, args.other)), args.taps, args.points)
    print(json.dumps(summary))
    for line in beyond:
        print(f"beyond the bound: {line}")
    return 1 if beyond else 0


if __name__ == "__main__":
    as_a_command()
    sys.exit(main())
