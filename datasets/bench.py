"""python -m datasets.bench [--count N] [--workers K] [--recipe table]: images per second of the
generator at the default size, writing to a temporary directory as `generate` does."""

import argparse
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
        start = time.perf_counter()
        generate(Path(tmp) / "bench", args.count, seed=0, workers=args.workers, recipe=recipe)
        elapsed = time.perf_counter() - start
    print(f"{args.count / elapsed:.1f} images/s ({args.count} images, {args.workers} workers, recipe {args.recipe})")


if __name__ == "__main__":
    main()
