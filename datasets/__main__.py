"""python -m datasets generate OUT --count N --seed S | preview DIR -n 16 OUT.png | check DIR [--json]"""

import argparse
from pathlib import Path

from datasets.check import IOU_DUPLICATE


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
    chk = sub.add_parser("check", help="check a YOLO-format tile data set; exit status 1 on errors")
    chk.add_argument("dir", type=Path)
    chk.add_argument("--json", action="store_true", help="print the report as JSON")
    chk.add_argument("--sheet", type=Path, metavar="OUT.png", help="contact sheet of sample images")
    chk.add_argument("--samples", type=int, default=16, help="images on the contact sheet")
    chk.add_argument("--iou", type=float, default=IOU_DUPLICATE, help="IoU at which two boxes are one tile twice")
    args = parser.parse_args(argv)
    if args.command == "check":
        raise SystemExit(_check(args))
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


def _check(args) -> int:
    import json

    from datasets.check import check
    from datasets.check_report import text, write_sheet

    if not args.dir.is_dir():
        raise SystemExit(f"error: {args.dir} is not a folder")
    report, samples = check(args.dir, args.iou)
    if args.sheet:
        write_sheet(report, samples, args.sheet, args.samples)
    print(json.dumps(report.to_json(), ensure_ascii=False, indent=1) if args.json else text(report))
    return 1 if report.errors else 0


if __name__ == "__main__":
    main()
