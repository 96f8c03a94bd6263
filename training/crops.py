"""Tile crops from a YOLO data set, for the crop classifier (`training/train_classifier.py`).

    python -m training.crops data/gen-v1 --split train --jitters 2 --max-crops 130000 --out data/crops/gen-v1-train.npz
    python -m training.crops data/gen-v1 --split val --out data/crops/gen-v1-val.npz
    python -m training.crops data/unseen-v1 --split val --out data/crops/unseen-v1-val.npz
    python -m training.crops data/real-train --split train --classes 1f 2f 3f 4f 5f 6f 7f 8f --out F.npz

Every labelled box is cut with `vision.crop_classifier.cut_crop`, the crop the classifier gets at
read time, its edges moved by a random ±JITTER of the box's size per crop to mimic the detector's
box error. When the boxes times `jitters` exceed `--max-crops`, whole images are drawn at random
until the cap (all boxes of an image or none). `--classes` keeps those classes' crops only, each with
the jitter it gets in the whole run (the same crops as in the whole run's file, so they can be weighed
up in training). Output: an .npz with `x` (N, CROP_H, CROP_W, 3) uint8 BGR and `y` (N,) class ids.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from datasets.yolo import IMAGE_SUFFIXES, label_path_of
from vision.classes import CLASS_INDEX
from vision.crop_classifier import CROP_H, CROP_W, cut_crop
from vision.labels import read_labels
from vision.photo import load_photo

JITTER = 0.08  # each box edge moves by up to this fraction of the box's size


def count_boxes(label: Path) -> int:
    return sum(1 for line in label.read_text().splitlines() if line.strip()) if label.exists() else 0


def make_crops(root: Path, split: str, jitters: int = 1, max_crops: int | None = None, seed: int = 0,
               jitter: float = JITTER, classes: set[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(crops, class ids) of the labelled boxes under root/images/split (of `classes` only, when given)."""
    rng = np.random.default_rng(seed)
    images = sorted(p for p in (root / "images" / split).glob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise SystemExit(f"no images under {root / 'images' / split}")
    order = rng.permutation(len(images)) if max_crops else np.arange(len(images))
    chosen, total = [], 0
    for i in order:
        n = count_boxes(label_path_of(root, images[i])) * jitters
        if max_crops and total + n > max_crops:
            continue
        chosen.append(images[i])
        total += n
    x = np.empty((total, CROP_H, CROP_W, 3), np.uint8)
    y = np.empty(total, np.int64)
    k = 0
    for image_path in sorted(chosen):
        image = load_photo(image_path)
        h, w = image.shape[:2]
        boxes, codes = read_labels(label_path_of(root, image_path), w, h)
        for box, code in zip(boxes, codes, strict=True):
            for _ in range(jitters):
                moved = rng.uniform(-jitter, jitter, 4)  # drawn for every box: a class's crops are as in the whole run
                if classes is None or code in classes:
                    x[k], y[k] = cut_crop(image, box, jitter=moved), CLASS_INDEX[code]
                    k += 1
    return x[:k], y[:k]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.crops", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a YOLO data set (images/<split>, labels/<split>)")
    parser.add_argument("--split", default="train")
    parser.add_argument("--jitters", type=int, default=1, help="crops per box, each with its own edge jitter")
    parser.add_argument("--max-crops", type=int, help="cap on the number of crops (whole images are drawn)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--classes", nargs="+", metavar="CODE", help="keep these classes' crops only (1f 2f ...)")
    parser.add_argument("--out", type=Path, required=True, help=".npz to write")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.classes or ()) - set(CLASS_INDEX))
    if unknown:
        raise SystemExit(f"--classes: no such class {', '.join(unknown)}")

    x, y = make_crops(args.root, args.split, args.jitters, args.max_crops, args.seed,
                      classes=set(args.classes) if args.classes else None)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, x=x, y=y)
    counts = np.bincount(y, minlength=int(y.max()) + 1 if len(y) else 0)
    if args.classes:  # the fewest among the classes kept
        counts = counts[[CLASS_INDEX[c] for c in args.classes if CLASS_INDEX[c] < len(counts)]]
    print(f"{len(y)} crops of {CROP_H}x{CROP_W} from {args.root}/{args.split} → {args.out} "
          f"({x.nbytes / 2**20:.0f} MiB); fewest per class: {int(counts.min()) if len(counts) else 0}")


if __name__ == "__main__":
    main()
