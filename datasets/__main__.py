"""python -m datasets generate OUT --count N --seed S [--recipe table] | preview DIR -n 16 OUT.png | check DIR [--json]
| audit DIR [--models MODELS_DIR] [--out REPORT_DIR] [--json] [--conf C] | real-train OUT [...]

Exit status: 0 done (check: no errors in the set); 1 check found errors, or a command could not
run (no such folder, no model, nothing to audit, a report that cannot be written); 2 the
command line is wrong (argparse).
"""

import argparse
import sys
from pathlib import Path

from datasets.check import IOU_DUPLICATE
from vision.console import as_a_command
from vision.photo import READ_SIDE

# Generated images from a size at which a hand's tiles are a few pixels wide to the largest the reader reads.
MIN_SIDE, MAX_SIDE = 64, READ_SIDE


def _number(text: str, kind: type, ok, what: str) -> float:
    """`text` as a `kind` for which `ok` holds, or argparse's error (status 2) saying `what` it must be."""
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not ok(value):  # a comparison with nan is false: refused too
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not {what}")
    return value


def confidence(text: str) -> float:
    """A detection score threshold, strictly between 0 and 1."""
    return _number(text, float, lambda v: 0 < v < 1, "a confidence between 0 and 1 (e.g. 0.25)")


def overlap(text: str) -> float:
    """An IoU threshold: above 0, at most 1 (1: only boxes exactly on each other are one tile twice)."""
    return _number(text, float, lambda v: 0 < v <= 1, "an IoU above 0 and at most 1 (e.g. 0.7)")


def fraction(text: str) -> float:
    return _number(text, float, lambda v: 0 <= v <= 1, "a fraction from 0 to 1 (e.g. 0.1)")


def count(text: str) -> int:
    return _number(text, int, lambda v: v >= 1, "a whole number of at least 1")


def seed(text: str) -> int:
    return _number(text, int, lambda v: v >= 0, "a whole number of at least 0")


def image_side(text: str) -> int:
    """A generated image's long side: a tile must stay some pixels wide, and a scene fit in memory."""
    return _number(text, int, lambda v: MIN_SIDE <= v <= MAX_SIDE,
                   f"a long side in pixels from {MIN_SIDE} to {MAX_SIDE} (e.g. 640)")


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["real-train"]:  # its own options: datasets/real_train.py
        from datasets.real_train import main as real_train

        return real_train(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m datasets")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("real-train", help="real labelled photos made ready to train on (datasets/real_train.py)")
    gen = sub.add_parser("generate", help="write a synthetic YOLO data set")
    gen.add_argument("out", type=Path)
    gen.add_argument("--count", type=count, required=True)
    gen.add_argument("--seed", type=seed, default=0)
    gen.add_argument("--styles", choices=("train", "unseen"), default="train",
                     help="unseen: only the held-out styles (needs the shared folder, $TAISHU_SHARED)")
    gen.add_argument("--val-fraction", type=fraction, default=0.1)
    gen.add_argument("--workers", type=count, default=2)
    gen.add_argument("--size", type=image_side, default=640, help="long side in pixels")
    gen.add_argument("--recipe", default="default",
                     help="default | table (hands at a table: walls, discards, clutter) | a recipe.json to remake")
    pre = sub.add_parser("preview", help="contact sheet of images with their boxes")
    pre.add_argument("dir", type=Path)
    pre.add_argument("-n", type=count, default=16)
    pre.add_argument("out", type=Path)
    chk = sub.add_parser("check", help="check a YOLO-format tile data set; exit status 1 on errors")
    chk.add_argument("dir", type=Path)
    chk.add_argument("--json", action="store_true", help="print the report as JSON")
    chk.add_argument("--sheet", type=Path, metavar="OUT.png", help="contact sheet of sample images")
    chk.add_argument("--samples", type=count, default=16, help="images on the contact sheet")
    chk.add_argument("--iou", type=overlap, default=IOU_DUPLICATE, help="IoU at which two boxes are one tile twice")
    aud = sub.add_parser("audit", help="run the detector over a YOLO data set: mAP, confusions, likely label errors")
    aud.add_argument("dir", type=Path)
    aud.add_argument("--models", type=Path, help="folder with model.json and the ONNX model (default: models/)")
    aud.add_argument("--out", type=Path, metavar="REPORT_DIR", help="write REPORT_DIR/index.html with thumbnails")
    aud.add_argument("--json", action="store_true", help="print the audit as JSON (every flag)")
    aud.add_argument("--conf", type=confidence,
                     help="confidence at which a detection counts as read (default: the model card's)")
    args = parser.parse_args(argv)
    if args.command == "check":
        raise SystemExit(_check(args))
    if args.command == "audit":
        return _audit(args)
    if args.command == "generate":
        return _generate(args)
    return _preview(args)


def _generate(args) -> None:
    from datasets.generate import generate
    from datasets.recipe import load_recipe
    from datasets.shared import MissingSharedData

    try:
        recipe = load_recipe(args.recipe)
    except (ValueError, TypeError) as exc:
        raise SystemExit(f"error: {exc}") from exc
    if args.out.exists() and not args.out.is_dir():
        raise SystemExit(f"error: {args.out} is a file, not a folder to write the data set into")
    try:
        generate(args.out, args.count, args.seed, args.styles, args.val_fraction,
                 args.workers, args.size, recipe)
    except MissingSharedData as exc:
        raise SystemExit(f"error: {exc}") from exc
    except OSError as exc:  # a full disk, a file where a folder goes, no permission
        raise SystemExit(f"error: cannot write the data set to {args.out}: {exc.strerror or exc}"
                         + (f" ({exc.filename})" if exc.filename else "")) from exc


def _preview(args) -> None:
    from datasets.preview import contact_sheet
    from vision.labels import LabelError
    from vision.photo import PhotoError

    if not args.dir.is_dir():
        raise SystemExit(f"error: {args.dir} is not a folder")
    try:
        drawn = contact_sheet(args.dir, args.n, args.out)
    except (PhotoError, LabelError, OSError) as exc:  # OSError: the sheet not written, a label file missing
        raise SystemExit(f"error: {exc}") from exc
    if not drawn:
        raise SystemExit(f"error: no generated images (images/<split>/*.jpg) under {args.dir}: nothing to draw")
    print(f"contact sheet of {drawn} images: {args.out}")


def _check(args) -> int:
    import json

    from datasets.check import check
    from datasets.check_report import text, write_sheet
    from vision.files import ImageWriteError, image_target

    if not args.dir.is_dir():
        raise SystemExit(f"error: {args.dir} is not a folder")
    try:  # a sheet that cannot be written at all is said before the check, not after it
        if args.sheet:
            args.sheet.parent.mkdir(parents=True, exist_ok=True)
            image_target(args.sheet)
    except OSError as exc:
        raise SystemExit(f"error: {exc}") from exc
    report, samples = check(args.dir, args.iou)
    unwritten = None
    if args.sheet:
        try:
            write_sheet(report, samples, args.sheet, args.samples)
        except ImageWriteError as exc:  # the disk filled during the check
            unwritten = exc
    print(json.dumps(report.to_json(), ensure_ascii=False, indent=1) if args.json else text(report), flush=True)
    if unwritten:
        print(f"error: {unwritten}", file=sys.stderr)
    return 1 if report.errors or unwritten else 0


def _audit(args) -> None:
    import json
    import sys

    from tqdm import tqdm

    from datasets.audit import audit
    from datasets.audit_report import text, write_html
    from vision.detector import TileDetector
    from vision.model_files import MODELS_DIR, ModelError

    if not args.dir.is_dir():
        raise SystemExit(f"error: {args.dir} is not a folder")
    if args.out:  # said before the audit, not after it
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SystemExit(f"error: cannot write the report to {args.out}: {exc.strerror or exc}") from exc
    try:
        detector = TileDetector(args.models or MODELS_DIR)
    except ModelError as exc:
        raise SystemExit(f"error: {exc}") from exc
    with tqdm(desc="auditing", unit="img", file=sys.stderr) as bar:
        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        result = audit(args.dir, detector, args.conf, progress)
    if not result.images:
        if not result.skipped:
            raise SystemExit(f"error: no images under {args.dir}")
        why = "".join(f"\n  {image}: {reason}" for image, reason in result.skipped[:5])
        more = f"\n  … and {len(result.skipped) - 5} more" if len(result.skipped) > 5 else ""
        raise SystemExit(f"error: none of the {len(result.skipped)} images under {args.dir} could be audited:"
                         f"{why}{more}")
    try:
        report = write_html(result, args.out) if args.out else None
    except OSError as exc:
        raise SystemExit(f"error: cannot write the report to {args.out}: {exc.strerror or exc}") from exc
    if args.json:
        print(json.dumps(result.to_json() | {"report": str(report) if report else None}, ensure_ascii=False,
                         indent=1))
    else:
        print(text(result) + (f"\nreport: {report}" if report else ""))


if __name__ == "__main__":
    as_a_command()
    main()
