"""Real labelled photos made ready to train on beside generated scenes (models/REAL_DATA.md).

    python -m datasets real-train OUT [--sets DIR ...] [--size 512] [--quality 65] [--models models/]

Reads only the `train` split of each real set (val and test stay out of training) and writes an
ultralytics data set `OUT/images/train`, `OUT/labels/train`, `OUT/data.yaml` and `OUT/recipe.json`
(every setting and what each step did, so a model card can cite it). Per photo:
- **drop** it when its labels are evidently partial (a detector learning from such a photo learns
  that discards are background): as `datasets/real_curation.json` decides for the sets it covers
  (either estimate, the manifest's or the audit's, checked by eye; it also drops the second box of
  a tile boxed twice and relabels the boxes whose tile shows another code), else when the set's
  manifest estimates at least `max_unlabelled_faces` readable face-up tiles without a box;
- **drop** it when every label is one face code, more than a set holds (`datasets check`'s one-code: a
  labeller gave every tile one code, which would teach that code for every tile; none of the real sets'
  train splits has one, six of a val split do);
- **un-stretch** it: Roboflow's "Stretch" squashed photos to 640x640; a photo whose median box aspect
  (w/h) is outside the range undistorted real photos show is resized so it comes back inside it;
- **label its backs**: no real set labels face-down tiles, so their walls would teach that backs are
  background. The committed detector's `back` boxes at `BACK_CONF` or more that no label covers are
  added as `back` (pseudo-labels; `python -m datasets audit` on OUT shows them beside the rest);
- **re-encode** it at `--size` (long side) as WebP, small enough to travel to a training machine.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from datasets.check import one_code
from datasets.real import manifest
from datasets.yolo import label_path_of
from vision.boxes import intersection_over_area
from vision.classes import CLASSES
from vision.labels import read_labels
from vision.photo import load_photo

# Undistorted real photos (hk-bonus-label, letterboxed) have median box aspects of 0.73-1.3 for 90%
# of photos (its manifest): tiles lying flat ~0.75, tilted or turned ones wider.
ASPECT_RANGE = (0.65, 1.35)


@dataclass(frozen=True)
class Recipe:
    size: int = 512
    quality: int = 65
    max_unlabelled_faces: int = 10  # manifest `unlabelled_face_est` at which a photo's labels are partial
    back_conf: float = 0.6  # a detected back at this score, covered by no label, becomes a `back` label
    back_cover: float = 0.3  # ... where no label covers this much of it


def unstretch_factor(median_aspect: float) -> float:
    """Horizontal scale that brings a stretched photo's median box aspect back into ASPECT_RANGE."""
    if not np.isfinite(median_aspect) or median_aspect <= 0:
        return 1.0
    return float(np.clip(median_aspect, *ASPECT_RANGE) / median_aspect)


def pseudo_backs(detector, image: np.ndarray, labelled: np.ndarray, recipe: Recipe) -> np.ndarray:
    """Boxes of face-down tiles the detector finds where no label is (xyxy pixels)."""
    found = detector.detect(image, conf=recipe.back_conf)
    back = CLASSES.index("back")
    keep = found.class_ids == back
    boxes = found.boxes[keep]
    if len(boxes) and len(labelled):
        covered = intersection_over_area(boxes, labelled).max(axis=1)
        boxes = boxes[covered < recipe.back_cover]
    return boxes


def curated_drops(curation: dict | None, set_name: str) -> tuple[set[str] | None, dict, dict]:
    """(photos to drop or None when the curation does not cover the set, image → box indices to drop,
    (image, box index) → the code to give it)."""
    if not curation or set_name not in curation["sets"]:
        return None, {}, {}
    boxes: dict[str, set[int]] = {}
    for d in curation["drop_lines"]:
        if d["set"] == set_name:
            boxes.setdefault(d["image"], set()).add(d["box"])
    relabel = {(d["image"], d["box"]): d["to"] for d in curation.get("relabel", []) if d["set"] == set_name}
    return {d["image"] for d in curation["drop_images"] if d["set"] == set_name}, boxes, relabel


def build(sets: list[Path], out: Path, recipe: Recipe, detector=None, curation: dict | None = None) -> dict:
    images_out, labels_out = out / "images" / "train", out / "labels" / "train"
    if out.exists():
        shutil.rmtree(out)
    images_out.mkdir(parents=True)
    labels_out.mkdir(parents=True)
    summary: dict = {"recipe": asdict(recipe), "curated_sets": sorted(curation["sets"]) if curation else [],
                     "sets": {}}
    for root in sets:
        rows = {Path(r["out_image"]).name: r for r in manifest(root)}
        drops, box_drops, relabel = curated_drops(curation, root.name)
        counts = {"photos": 0, "kept": 0, "dropped_partial": 0, "dropped_one_code": 0, "unstretched": 0,
                  "backs_added": 0, "boxes_dropped": 0, "relabelled": 0, "boxes": 0}
        for image_path in sorted((root / "images" / "train").glob("*.jpg")):
            counts["photos"] += 1
            row = rows.get(image_path.name, {})
            rel = f"images/train/{image_path.name}"
            if rel in drops if drops is not None else (
                    int(row.get("unlabelled_face_est") or 0) >= recipe.max_unlabelled_faces):
                counts["dropped_partial"] += 1
                continue
            image = load_photo(image_path)
            h, w = image.shape[:2]
            boxes, codes = read_labels(label_path_of(root, image_path), w, h)
            codes = [relabel.get((rel, i), c) for i, c in enumerate(codes)]
            counts["relabelled"] += sum((rel, i) in relabel for i in range(len(codes)))
            keep = [i for i in range(len(codes)) if i not in box_drops.get(rel, ())]
            counts["boxes_dropped"] += len(codes) - len(keep)
            boxes, codes = boxes[keep], [codes[i] for i in keep]
            if one_code(codes):
                counts["dropped_one_code"] += 1
                continue
            if detector is not None:
                backs = pseudo_backs(detector, image, boxes, recipe)
                boxes = np.concatenate([boxes.reshape(-1, 4), backs]).astype(np.float32)
                codes = codes + ["back"] * len(backs)
                counts["backs_added"] += len(backs)
            fx = unstretch_factor(float(row.get("median_box_aspect") or "nan"))
            counts["unstretched"] += fx != 1.0
            scale = recipe.size / max(w * fx, h)
            nw, nh = max(1, round(w * fx * scale)), max(1, round(h * scale))
            resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
            stem = f"{root.name}-{image_path.stem}"
            cv2.imwrite(str(images_out / f"{stem}.webp"), resized, [cv2.IMWRITE_WEBP_QUALITY, recipe.quality])
            # normalised boxes do not change under a resize
            norm = boxes / np.array([w, h, w, h], np.float32)
            lines = [f"{CLASSES.index(c)} {(b[0] + b[2]) / 2:.6f} {(b[1] + b[3]) / 2:.6f} {b[2] - b[0]:.6f} "
                     f"{b[3] - b[1]:.6f}" for b, c in zip(np.clip(norm, 0, 1), codes, strict=True)]
            (labels_out / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
            counts["kept"] += 1
            counts["boxes"] += len(lines)
        summary["sets"][root.name] = counts
    (out / "data.yaml").write_text(
        "path: .\ntrain: images/train\nval: images/train\nnames:\n"
        + "".join(f"  {i}: '{c}'\n" for i, c in enumerate(CLASSES)))
    (out / "recipe.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def main(argv: list[str] | None = None) -> None:
    import argparse

    from datasets.real import REAL_LABELLED
    from datasets.real_curation import CURATION
    from datasets.shared import SETTING

    parser = argparse.ArgumentParser(prog="python -m datasets real-train", description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--sets", type=Path, nargs="+",
                        default=sorted(p for p in REAL_LABELLED.glob("*") if (p / "images").is_dir()))
    parser.add_argument("--size", type=int, default=Recipe.size)
    parser.add_argument("--quality", type=int, default=Recipe.quality)
    parser.add_argument("--models", type=Path, help="detector for back pseudo-labels (default: models/)")
    parser.add_argument("--no-backs", action="store_true", help="add no back pseudo-labels")
    parser.add_argument("--curation", type=Path, default=CURATION,
                        help="photos and boxes to drop (default: datasets/real_curation.json)")
    args = parser.parse_args(argv)
    if not args.sets:
        raise SystemExit(f"error: no real photo sets under {REAL_LABELLED} "
                         f"(optional data the repository does not carry: set {SETTING} to the shared folder)")
    detector = None
    if not args.no_backs:
        from vision.detector import TileDetector
        from vision.model_files import MODELS_DIR

        detector = TileDetector(args.models or MODELS_DIR, threads=1, classifier=False)
    curation = json.loads(args.curation.read_text()) if args.curation.is_file() else None
    summary = build(args.sets, args.out, Recipe(size=args.size, quality=args.quality), detector, curation)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
