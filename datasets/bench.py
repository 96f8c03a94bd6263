"""python -m datasets.bench [--count N] [--workers K] [--recipe table]: images per second of the
generator at the default size, writing to a temporary directory as `generate` does, and the CPU
seconds per image (all workers; steadier than images per second on a shared machine)."""

import argparse
import os
import tempfile
import time
from pathlib import Path

from datasets.generate import generate
from datasets.recipe import RECIPES


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m datasets.bench")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--recipe", choices=list(RECIPES), default="default")
    args = parser.parse_args()
    recipe = RECIPES[args.recipe]
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), 8, seed=1, workers=1, recipe=recipe)  # warm-up: asset loading, imports
        start, cpu = time.perf_counter(), _cpu_seconds()
        generate(Path(tmp) / "bench", args.count, seed=0, workers=args.workers, recipe=recipe)
        elapsed, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    print(f"{args.count / elapsed:.1f} images/s, {cpu / args.count:.3f} CPU s/image ({args.count} images, "
          f"{args.workers} workers, recipe {args.recipe})")


def _cpu_seconds() -> float:
    """CPU time of this process and its finished workers."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


if __name__ == "__main__":
    main()
