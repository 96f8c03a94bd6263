"""python -m datasets.bench [--count N] [--workers K]: images per second of the generator at
the default size, writing to a temporary directory as `generate` does."""

import argparse
import tempfile
import time
from pathlib import Path

from datasets.generate import generate


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m datasets.bench")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), 8, seed=1, workers=1)  # warm-up: asset loading, imports
        start = time.perf_counter()
        generate(Path(tmp) / "bench", args.count, seed=0, workers=args.workers)
        elapsed = time.perf_counter() - start
    print(f"{args.count / elapsed:.1f} images/s ({args.count} images, {args.workers} workers)")


if __name__ == "__main__":
    main()
