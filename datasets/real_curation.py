"""Which real photos and boxes to leave out of training: datasets/real_curation.json.

    python -m datasets.real_curation AUDIT_DIR [--out datasets/real_curation.json]

AUDIT_DIR holds `audit-<set>-train.json` for each real set: `python -m datasets audit` (--json) of
that set's train split alone. Only train and val are curated; test splits stay as they are, so
every model is judged on the same photos. Conservative rules (models/REAL_DATA.md says why):

- drop a train photo with many face-up tiles left unboxed (a table whose discard pile nobody
  labelled teaches that tiles are background): at least UNLABELLED_AT_LEAST by the set's manifest
  (`unlabelled_face_est`: the v2 detector alone at 0.35) *or* by the audit (its unlabelled, non-`back`
  flags at FLAG_CONF: the read path, whose blended scores run lower), and seen to be so on a contact
  sheet of every such photo. The audit reads at the rack's scale and misses most of a far pile, the
  manifest's one pass finds it; both count subtitles, keyboard keys and a cutting mat's grid as
  tiles, so the photos the eye found complete are kept (NOT_PARTIAL). Stretched photos are not
  dropped: `datasets real-train` restores their aspect;
- relabel a box whose tile plainly shows another code: the audit's highest wrong-class flags of each
  train split, read on crops (RELABEL; most of those flags are the model's errors, not the labels');
- drop one line of a tile boxed twice (`python -m datasets check`'s duplicate-box): the later line
  when both say the same code, else the line whose code the tile does not show (read by eye:
  WRONG_OF_TWO).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from datasets.check import IOU_DUPLICATE
from datasets.real import REAL_LABELLED, REAL_SETS, manifest
from vision.boxes import pairwise_iou
from vision.classes import CLASSES
from vision.labels import parse_line, to_xyxy

CURATION = Path(__file__).with_name("real_curation.json")
UNLABELLED_AT_LEAST = 10
FLAG_CONF = 0.1
CURATED_SPLITS = ("train", "val")
# Photos over the threshold whose labels are complete, read on the contact sheet: what was counted.
NOT_PARTIAL = {
    ("hk-bonus-label", "images/train/IMG_3331_jpeg.rf.390da653ea80c74968359cf20baef18e.jpg"):
        "two tiles on a cutting mat, both boxed (the mat's grid was counted)",
    ("hk-bonus-label", "images/train/IMG_6454_jpg.rf.a004e1f4d34ddb088729e67de1d462cd.jpg"):
        "a desk with a keyboard, every tile boxed (keys were counted)",
    ("hk-bonus-label", "images/train/Screenshot-2024-09-23-at-4-26-10-PM_png.rf.0f3ba4cabb26af2eb4a4deb77f38f8ce.jpg"):
        "a video frame, every face-up tile boxed (subtitle characters were counted)",
    ("hk-bonus-label", "images/train/Screenshot-2024-09-24-at-9-00-59-PM_png.rf.8ca9deee543f466f47e644ecbf48b201.jpg"):
        "a video frame, every face-up tile boxed (subtitle characters were counted)",
}
# Labelled code → the code the tile shows, read on crops of the top 16 wrong-class flags of each train
# split (CMD: 5 of 16 are label errors, 3 of them seasons labelled by their numeral as flowers; HK: none).
RELABEL = {
    ("chinese-mahjong-detection", "images/train/hand_101_jpg.rf.7a569b82612d2c38ee186529c4e4ff50.jpg", 3):
        ("9p", "9m", "the tile is 九萬"),
    ("chinese-mahjong-detection",
     "images/train/421228375_228393930327701_3607711690449264464_n_jpg.rf.abbccdccdbaebd826ad212bb66cd89d3.jpg", 1):
        ("9s", "6s", "six bamboos, corner numeral 6"),
    ("chinese-mahjong-detection",
     "images/train/noxHzTFzOujT86JA3BB2LjdVfRPBw8_jpg.rf.8d25e45f0385b31270b9232e17bb7fcb.jpg", 70):
        ("2f", "6f", "the season 夏 (numeral 2)"),
    ("chinese-mahjong-detection",
     "images/train/2aGXQnBH5SHRuF2LqyrkpYxAIOY3vY_jpg.rf.5662bf152f937a69bd6cdd8fa65f6830.jpg", 70):
        ("5f", "7f", "the season 秋 (numeral 3)"),
    ("chinese-mahjong-detection",
     "images/train/370016222_1500674184032780_3587499100410576785_n_jpg.rf.e2c9b4b60d8ba325010973204fb45083.jpg", 4):
        ("3f", "7f", "the season 秋 (numeral 3)"),
}
# Two boxes of different codes on one tile, and the one that is wrong, read on the crop.
WRONG_OF_TWO = {
    ("chinese-mahjong-detection",
     "labels/val/396615245_1012553140002307_5358505426230168323_n_jpg.rf.fa70f677763ee9db936afe9c12ce62ef.txt"): 7,
    ("kim-first-project", "labels/train/mahjon_image2_jpg.rf.e97cf680f46bda96335a23122a2b7f8d.txt"): 13,
    ("kim-first-project", "labels/train/mahjon_image96_jpg.rf.4e0eac6738574375d3504031d806bb31.txt"): 61,
}


def unlabelled_face_flags(audit: dict) -> dict[str, int]:
    """Per image (relative path), the audit's unlabelled detections read as a face at FLAG_CONF or more."""
    counts: dict[str, int] = {}
    for flag in audit["flags"]:
        if flag["kind"] == "unlabelled" and flag["read"] != "back" and flag["confidence"] >= FLAG_CONF:
            counts[flag["image"]] = counts.get(flag["image"], 0) + 1
    return counts


def boxes_by_line(label: Path) -> tuple[list[int], np.ndarray, list[str]]:
    """(1-based line numbers, boxes in normalised x1 y1 x2 y2, codes) of a label file's boxes."""
    numbers, boxes, codes = [], [], []
    for n, text in enumerate(label.read_text().splitlines(), 1):
        if text.strip():
            cls, *box = parse_line(text)
            numbers.append(n)
            boxes.append(to_xyxy(*box, 1, 1))  # IoU is the same in normalised coordinates
            codes.append(CLASSES[cls])
    return numbers, np.array(boxes).reshape(-1, 4), codes


def duplicate_lines(set_name: str, root: Path, image: str) -> list[dict]:
    """The lines to drop from an image's label file: one of each pair of boxes on one tile."""
    label = str(Path(image.replace("images/", "labels/", 1)).with_suffix(".txt"))
    numbers, boxes, codes = boxes_by_line(root / label)
    code_of = dict(zip(numbers, codes, strict=True))
    drops = []
    for a, b in zip(*np.nonzero(np.triu(pairwise_iou(boxes), k=1) >= IOU_DUPLICATE), strict=True):
        line_a, line_b = numbers[a], numbers[b]
        if codes[a] == codes[b]:
            drop, why = line_b, f"same tile as line {line_a}, same code {codes[a]}"
        else:
            drop = WRONG_OF_TWO.get((set_name, label))
            if drop not in (line_a, line_b):
                raise ValueError(f"{set_name}/{label}: lines {line_a} ({codes[a]}) and {line_b} ({codes[b]}) "
                                 "box one tile; read the crop and add the wrong one to WRONG_OF_TWO")
            keep = line_a if drop == line_b else line_b
            why = f"same tile as line {keep}; the tile shows {code_of[keep]}, not {code_of[drop]}"
        drops.append({"set": set_name, "image": image, "label": label, "line": drop, "box": numbers.index(drop),
                      "reason": f"boxed twice: {why}"})
    return drops


def relabels(set_name: str, root: Path) -> list[dict]:
    """RELABEL's boxes of one set, checked against the label files as they are."""
    out = []
    for (name, image, box), (was, code, why) in RELABEL.items():
        if name != set_name:
            continue
        label = str(Path(image.replace("images/", "labels/", 1)).with_suffix(".txt"))
        numbers, _, codes = boxes_by_line(root / label)
        if codes[box] != was:
            raise ValueError(f"{set_name}/{label}: box {box} is {codes[box]}, RELABEL expects {was}")
        out.append({"set": set_name, "image": image, "label": label, "line": numbers[box], "box": box,
                    "from": was, "to": code, "reason": why})
    return out


def curate_set(set_name: str, root: Path, audit: dict) -> tuple[list[dict], list[dict]]:
    """(photos to drop, label lines to drop) of one real set."""
    rows = manifest(root)
    train = sum(row["split"] == "train" for row in rows)
    if audit["images"] != train:
        raise ValueError(f"the audit of {set_name} read {audit['images']} images; its train split has {train}")
    flags = unlabelled_face_flags(audit)
    images, lines = [], []
    for row in rows:
        if row["split"] not in CURATED_SPLITS:
            continue
        image = row["out_image"]
        lines += duplicate_lines(set_name, root, image)
        if row["split"] != "train":
            continue
        est, found = int(row["unlabelled_face_est"] or 0), flags.get(image, 0)
        if max(est, found) < UNLABELLED_AT_LEAST or (set_name, image) in NOT_PARTIAL:
            continue
        reason = (f"face-up tiles left unboxed: {est} by the manifest's estimate, {found} by the audit, "
                  "seen on a contact sheet")
        images.append({"set": set_name, "image": image, "reason": reason})
    return images, lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m datasets.real_curation", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("audits", type=Path, help="folder of audit-<set>-train.json")
    parser.add_argument("--out", type=Path, default=CURATION)
    args = parser.parse_args(argv)
    images, lines, codes = [], [], []
    for set_name in REAL_SETS:
        audit = json.loads((args.audits / f"audit-{set_name}-train.json").read_text())
        got = curate_set(set_name, REAL_LABELLED / set_name, audit)
        images += got[0]
        lines += got[1]
        codes += relabels(set_name, REAL_LABELLED / set_name)
    rules = {"unlabelled_face_at_least": UNLABELLED_AT_LEAST, "flag_conf": FLAG_CONF,
             "duplicate_iou": IOU_DUPLICATE, "curated_splits": list(CURATED_SPLITS),
             "kept_by_eye": [{"set": k[0], "image": k[1], "why": v} for k, v in NOT_PARTIAL.items()]}
    out = {"about": "real train photos and label lines (box: its index among the file's boxes) that "
                    "python -m datasets real-train leaves out, and boxes it relabels; models/REAL_DATA.md",
           "sets": list(REAL_SETS), "rules": rules, "drop_images": images, "drop_lines": lines,
           "relabel": codes}
    args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(images)} photos and {len(lines)} label lines to drop, {len(codes)} boxes to relabel: {args.out}")


if __name__ == "__main__":
    main()
