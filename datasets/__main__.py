"""python -m datasets generate OUT --count N --seed S | preview DIR -n 16 OUT.png"""

import argparse
from pathlib import Path


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m datasets")
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write a synthetic YOLO data set")
    gen.add_argument("out", type=Path)
    gen.add_argument("--count", type=int, required=True)
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--styles", choices=("train", "unseen"), default="train",
                     help="unseen: only the held-out styles (needs ../shared/data)")
    gen.add_argument("--val-fraction", type=float, default=0.1)
    gen.add_argument("--workers", type=int, default=2)
    gen.add_argument("--size", type=int, default=640, help="long side in pixels")
    pre = sub.add_parser("preview", help="contact sheet of images with their boxes")
    pre.add_argument("dir", type=Path)
    pre.add_argument("-n", type=int, default=16)
    pre.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "generate":
        from datasets.generate import generate

        try:
            generate(args.out, args.count, args.seed, args.styles, args.val_fraction,
                     args.workers, args.size)
        except FileNotFoundError as exc:
            raise SystemExit(f"error: {exc}") from exc
    else:
        from datasets.preview import contact_sheet

        contact_sheet(args.dir, args.n, args.out)


if __name__ == "__main__":
    main()
