"""Judge the committed detector on a generated data set, beside the peer detector.

    python -m models.evaluate DIR [--split val] [--limit N] [--json OUT.json] [--no-map] [--no-classifier]

Reports, on the images of DIR (a `python -m datasets generate` output, e.g. the unseen-styles set):
- mAP50 / mAP50-95 and per-class recall (ultralytics val of models/tiles.pt, one pass at imgsz);
- what a player gets from the ONNX read path (two passes + layout + correction): tile precision
  and recall at IoU 0.5, the whole-row exact rate (every tile of the concealed row found once
  with the right code), the hand exact rate after correction, and the median time per photo;
  and how far off the found boxes are (`box_error`, in label widths: the noise layout must bear);
  with the crop classifier when model.json names one (`--no-classifier`: the detector's own
  classes, to see what the second stage adds; `--classifier-weight`: its blend with the detector);
- the peer `mahjong-detector` (YOLO11n, 34 riichi classes) on the same images: precision/recall
  on those 34 classes for both models, and its median time per photo.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import yaml

from datasets.yolo import label_path_of, read_labels
from scoring.hand import Hand
from scoring.tiles import FLOWERS
from vision.boxes import match
from vision.classes import CLASSES
from vision.detector import MODELS_DIR, ModelCard, TileDetector
from vision.photo import load_photo
from vision.read import read_detections

PEER_NAMES = {"chun": "5z", "haku": "7z", "hatsu": "6z", "nan": "2z", "pe": "4z", "sha": "3z", "tou": "1z"}
RIICHI = {c for c in CLASSES if c not in FLOWERS and c != "back"}  # the peer's 34 classes


def load_samples(root: Path, split: str, limit: int | None) -> list[dict]:
    samples = []
    for image in sorted((root / "images" / split).glob("*.jpg"))[:limit]:
        scene = root / "scenes" / split / f"{image.stem}.json"
        truth = json.loads(scene.read_text()) if scene.exists() else {}
        h, w = truth.get("height"), truth.get("width")
        if not (h and w):
            h, w = load_photo(image).shape[:2]
        boxes, codes = read_labels(label_path_of(root, image), w, h)
        samples.append({"image": image, "boxes": boxes, "codes": codes, "truth": truth})
    return samples


class Tally:
    """Tile precision and recall (right box and right code) over a run, and how many of the found
    tiles (right box, any code) got the right code: the classes alone, apart from box finding."""

    def __init__(self) -> None:
        self.tp = self.pred = self.true = self.found = 0
        self.offsets: list[np.ndarray] = []  # found boxes' x1 y1 x2 y2 minus the label's, in label widths

    def add(self, pred_boxes, pred_codes, true_boxes, true_codes) -> dict[int, int]:
        pairs = match(true_boxes, pred_boxes)  # true index → predicted index, whatever the codes
        self.tp += sum(pred_codes[p] == true_codes[t] for t, p in pairs.items())
        self.pred += len(pred_codes)
        self.true += len(true_codes)
        self.found += len(pairs)
        self.offsets += [(pred_boxes[p] - true_boxes[t]) / (true_boxes[t, 2] - true_boxes[t, 0])
                         for t, p in pairs.items()]
        return pairs

    def result(self) -> dict:
        out = {"precision": round(self.tp / max(self.pred, 1), 4), "recall": round(self.tp / max(self.true, 1), 4),
               "code_right_of_found": round(self.tp / max(self.found, 1), 4)}
        if self.offsets:  # how far off the boxes are (layout's noise: models/evaluate_layout.py)
            off = np.array(self.offsets)
            out["box_error"] = {"edge_std": round(float(off.std(axis=0).mean()), 4),
                                "centre_x_std": round(float(((off[:, 0] + off[:, 2]) / 2).std()), 4)}
        return out


def same_hand(a: Hand, truth: dict) -> bool:
    b = Hand.from_json(truth)
    melds = lambda h: sorted((m.kind, tuple(sorted(m.tiles))) for m in h.melds)  # noqa: E731
    return (Counter(a.concealed) == Counter(b.concealed) and a.win == b.win
            and sorted(a.flowers) == sorted(b.flowers) and melds(a) == melds(b))


def peer_detect(image_bgr: np.ndarray):
    from mahjong_detector.predict import CLASS_NAMES, predict
    from mahjong_detector.preprocess import preprocess_image
    from PIL import Image

    img, padding = preprocess_image(Image.fromarray(image_bgr[:, :, ::-1]))
    found = predict(img, padding)
    boxes = np.array([[d.x1, d.y1, d.x2, d.y2] for d in found], np.float32).reshape(-1, 4)
    names = [CLASS_NAMES[d.class_id] for d in found]
    return boxes, [PEER_NAMES.get(n, n) for n in names]


def evaluate_read_path(samples: list[dict], detector: TileDetector, peer: bool, passes: int = 2,
                       upscale: float = 1.0, conf: float | None = None) -> dict:
    """`passes` 1 reads at the first-pass size only (no tile-size normalisation); `upscale` > 1
    enlarges every photo first, as a phone photo's tiles are larger in pixels than the scenes'."""
    ours, ours34, theirs34 = Tally(), Tally(), Tally()
    rows_exact = rows = hands_exact = hands = 0
    t_ours, t_peer = [], []
    for s in samples:
        image = load_photo(s["image"])
        true_boxes = s["boxes"] * upscale
        if upscale != 1.0:
            image = cv2.resize(image, None, fx=upscale, fy=upscale, interpolation=cv2.INTER_CUBIC)
        start = time.perf_counter()
        if passes == 2:
            dets = detector.read(image, conf)
        else:
            dets = detector.detect(image, conf=conf)
            dets = detector.classifier.rescore(image, dets) if detector.classifier else dets
        reading = read_detections(dets, None)
        t_ours.append(time.perf_counter() - start)
        codes = list(reading.raw_codes)
        pairs = ours.add(reading.detections.boxes, codes, true_boxes, s["codes"])
        keep_t = [i for i, c in enumerate(s["codes"]) if c in RIICHI]
        keep_p = [i for i, c in enumerate(codes) if c in RIICHI]
        ours34.add(reading.detections.boxes[keep_p], [codes[i] for i in keep_p],
                   true_boxes[keep_t], [s["codes"][i] for i in keep_t])
        truth = s["truth"]
        for group in truth.get("groups", []):
            if group["kind"] != "concealed" or None in group["label_rows"] or not group["label_rows"]:
                continue
            rows += 1
            hit = [pairs.get(r) for r in group["label_rows"]]
            rows_exact += all(p is not None and codes[p] == s["codes"][r] for r, p in zip(group["label_rows"], hit,
                                                                                            strict=True))
        if truth.get("hand") and all(None not in g["label_rows"] for g in truth["groups"]):
            hands += 1
            hands_exact += reading.hand is not None and same_hand(reading.hand, truth["hand"])
        if peer:
            start = time.perf_counter()
            boxes, pcodes = peer_detect(image)
            t_peer.append(time.perf_counter() - start)
            theirs34.add(boxes, pcodes, true_boxes[keep_t], [s["codes"][i] for i in keep_t])
    out = {
        "images": len(samples),
        "tiles": ours.result(),
        "row_exact": round(rows_exact / max(rows, 1), 4), "rows": rows,
        "hand_exact": round(hands_exact / max(hands, 1), 4), "hands": hands,
        "ms_per_photo": round(1000 * statistics.median(t_ours), 1) if t_ours else None,
        "riichi34": {"ours": ours34.result()},
    }
    if peer:
        out["riichi34"]["peer"] = theirs34.result()
        out["peer_ms_per_photo"] = round(1000 * statistics.median(t_peer), 1)
    return out


def evaluate_map(root: Path, split: str, imgsz: int, models_dir: Path = MODELS_DIR) -> dict:
    from models.ultralytics_env import load_ultralytics

    load_ultralytics()
    from ultralytics import YOLO

    cfg = yaml.safe_load((root / "data.yaml").read_text())
    cfg.update(path=str(root.resolve()), train=f"images/{split}", val=f"images/{split}")
    with tempfile.TemporaryDirectory() as tmp:  # plots on: ultralytics fills its confusion matrix only then
        data = Path(tmp) / "data.yaml"
        data.write_text(yaml.safe_dump(cfg, allow_unicode=True))
        metrics = YOLO(str(models_dir / "tiles.pt")).val(data=str(data), split="val", imgsz=imgsz, batch=8,
                                                          device="cpu", plots=True, verbose=False,
                                                          project=tmp, name="val")
    box = metrics.box
    recall = {CLASSES[c]: round(float(box.r[i]), 3) for i, c in enumerate(box.ap_class_index)}
    matrix = metrics.confusion_matrix.matrix  # rows: predicted, columns: true (last = background)
    confused = sorted(((int(matrix[p, t]), CLASSES[t], CLASSES[p]) for t in range(len(CLASSES))
                       for p in range(len(CLASSES)) if p != t and matrix[p, t] > 0), reverse=True)[:15]
    return {"mAP50": round(float(box.map50), 4), "mAP50-95": round(float(box.map), 4),
            "per_class_recall": recall,
            "confused": [{"true": t, "read_as": p, "count": n} for n, t, p in confused]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m models.evaluate", description=__doc__)
    parser.add_argument("dir", type=Path)
    parser.add_argument("--split", default="val")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--no-map", action="store_true", help="skip the ultralytics (torch) mAP pass")
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--passes", type=int, choices=(1, 2), default=2, help="1: no tile-size normalisation")
    parser.add_argument("--upscale", type=float, default=1.0, help="enlarge each photo first (phone-size tiles)")
    parser.add_argument("--conf", type=float, help="tile threshold (default: the model card's)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="folder holding model.json")
    parser.add_argument("--no-classifier", action="store_true", help="read without the crop classifier")
    parser.add_argument("--classifier-weight", type=float,
                        help="1: the classifier's scores only, 0: the detector's only, between: a blend")
    args = parser.parse_args(argv)

    samples = load_samples(args.dir, args.split, args.limit)
    if not samples:
        raise SystemExit(f"no images under {args.dir / 'images' / args.split}")
    detector = TileDetector(args.models, classifier=not args.no_classifier)
    if detector.classifier and args.classifier_weight is not None:
        detector.classifier.weight = args.classifier_weight
    result = {"data": str(args.dir), "split": args.split, "passes": args.passes, "upscale": args.upscale,
              "conf": detector.card.conf if args.conf is None else args.conf,
              "classifier": detector.card.classifier.name if detector.classifier else None,
              "classifier_weight": detector.classifier.weight if detector.classifier else None}
    result["read_path"] = evaluate_read_path(samples, detector, not args.no_peer, args.passes, args.upscale,
                                             args.conf)
    if not args.no_map:
        result["detector"] = evaluate_map(args.dir, args.split, ModelCard.load(args.models).imgsz, args.models)
    text = json.dumps(result, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
