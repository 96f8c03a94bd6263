"""Audit a YOLO tile data set against the detector: how well the model reads it (mAP, per-class
precision and recall, which codes it mistakes for which) and which labels look wrong.

Every labelled image is read as a player's photo is (`TileDetector.read` at `conf`): that reading
gives precision, recall, the confusions and the flags. One more pass of the detector alone over
the whole image, at the scale the reading found the tiles and with scores down to MIN_SCORE, gives
the precision-recall curves of AP (as ultralytics' val does) and the evidence for a missed label.

A flag is a label the model disagrees with. Its suspicion, from 0 to 1, ranks the flags of all
kinds in one list (higher: more likely a label error, less likely a model error). It is the
evidence of the flag (how plainly the model disagrees) times the model's trust (how often, on the
audited set, the model is right in a claim like this one):

- wrong-class: a labelled tile the model finds (IoU >= 0.5 with a detection) but reads as another
  code. Evidence: `certainty` that the labelled code is not there: 1 when its score for the
  labelled code is nothing (a 2筒 labelled 2條 that it reads as 2筒 at 0.9 and 2條 at 0.005),
  much less when it hesitates between the two (0.9 against 0.3 gives 0.24). Trust: the share of
  the found tiles it reads at this score whose code it reads as labelled.
- missed: a label with no detection on it (a box on the bare table, or far off its tile).
  Evidence: `certainty(conf, s)`, s the best score of any detection, however weak, covering the
  label at IoU >= 0.5: 1 where the model sees nothing at all, 0.28 for a tile it doubts at 0.1.
  Trust: the share of labels the model finds (box recall).
- unlabelled: a detection that overlaps no label much (IoU < 0.2 with every one): a tile nobody
  boxed. Evidence: 1 (its confidence is weighed by the trust). Trust: the share of its
  detections at this confidence that lie on a label (box precision), lowered for a code it
  finds off the labels more than others (a back seen in the side of a standing tile).
- shifted: a label and a detection of one tile that overlap only partly (0.1 <= IoU < 0.7).
  Evidence: 1 at IoU 0.5 or less, falling to 0 at 0.7, since a model's own boxes are rarely that
  far off. Trust: box precision at the detection's confidence, times the share of the tiles it
  finds whose box it places at IoU >= 0.7.

Trust is measured on the audited set itself (label errors are few, so they barely move it), and
at the model's own score (`datasets.calibration`): a score means different things for different
models, and an undertrained model that reads most tiles right at 0.1 deserves to be believed at
0.1. A model that misses a third of the tiles cannot say much about a missing tile, and its
"missed" flags sink below the kinds it is good at. Images differ in how well the model sees them
(style, blur, light), so the box recall and precision behind "missed" and "unlabelled" are the
image's own, shrunk toward the whole set's with PRIOR pseudo-counts: a label the model misses in an
image where it finds every other tile is suspect; one of a row it misses whole is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from datasets.calibration import Calibration
from datasets.metrics import IOU_THRESHOLDS, ap_per_class, confusion, true_positives
from datasets.yolo import LabelError, image_labels, read_labels
from vision.boxes import iou_matrix, match
from vision.classes import CLASS_INDEX, CLASSES
from vision.detections import Detections
from vision.detector import STRIDE, TileDetector
from vision.photo import PhotoError, load_photo

MIN_SCORE = 0.01  # lowest detection score in the tail (AP curves, evidence for a missed label)
MATCH_IOU = 0.5  # a label and a detection of the same tile
SHIFTED_IOU = 0.7  # a matched pair overlapping less than this is a shifted box
PARTIAL_IOU = 0.1  # an unmatched label and detection overlapping this much are one tile, shifted
LONE_IOU = 0.2  # a detection overlapping every label less than this is a tile without a label
KINDS = ("wrong-class", "missed", "unlabelled", "shifted")
PRIOR = 5  # pseudo-counts of the whole set's box recall/precision in an image's own


@dataclass(frozen=True)
class Flag:
    kind: str
    evidence: float  # how plainly the model disagrees, 0-1
    image: str  # relative to the data set's root
    label: int | None  # index of the box in the image's label file (blank lines skipped)
    detection: int | None  # index into the image's `reading`
    labelled: str | None  # the labelled code
    read: str | None  # the code the model reads
    confidence: float | None  # the model's confidence in `read`
    iou: float | None  # between the label and the detection
    box: tuple[float, float, float, float]  # region in image pixels (label and detection together)
    trust: float = 1.0  # how often the model is right in a claim like this on the audited set

    @property
    def suspicion(self) -> float:
        return self.evidence * self.trust

    @property
    def message(self) -> str:
        if self.kind == "wrong-class":
            return f"labelled {self.labelled}, read as {self.read} ({self.confidence:.2f})"
        if self.kind == "missed":
            return f"labelled {self.labelled}, nothing found there"
        if self.kind == "unlabelled":
            return f"{self.read} found ({self.confidence:.2f}) with no label"
        return f"labelled {self.labelled}, {self.read} found ({self.confidence:.2f}) overlapping IoU {self.iou:.2f}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "suspicion": round(self.suspicion, 4), "evidence": round(self.evidence, 4),
                "trust": round(self.trust, 4), "image": self.image, "label": self.label,
                "detection": self.detection, "labelled": self.labelled, "read": self.read,
                "confidence": None if self.confidence is None else round(self.confidence, 4),
                "iou": None if self.iou is None else round(self.iou, 4),
                "box": [round(v, 1) for v in self.box], "message": self.message}


@dataclass(eq=False)
class ImageAudit:
    """One labelled image: its labels, the model's reading and the flags between them."""

    path: Path
    rel: str
    boxes: np.ndarray  # (N, 4) label boxes, xyxy pixels
    codes: list[str]
    reading: Detections  # what the model reads, at or above the audit's confidence
    tail: Detections  # the detector alone, down to MIN_SCORE
    flags: list[Flag] = field(default_factory=list)


def _union(a, b) -> tuple[float, float, float, float]:
    boxes = np.array([x for x in (a, b) if x is not None], np.float64).reshape(-1, 4)
    return (*boxes[:, :2].min(axis=0).tolist(), *boxes[:, 2:].max(axis=0).tolist())


def certainty(high: float, low: float) -> float:
    """How sure a model scoring one thing `high` is that another it scores `low` is not there: 0 when
    low >= high, 1 when low is at MIN_SCORE or below, log-scaled between (0.28 for 0.25 against 0.1)."""
    if high <= MIN_SCORE:
        return 0.0
    return float(np.clip(np.log(high / max(low, MIN_SCORE)) / np.log(high / MIN_SCORE), 0.0, 1.0))


def find_flags(rel: str, boxes: np.ndarray, codes: list[str], reading: Detections, tail: Detections,
               conf: float) -> list[Flag]:
    """The flags of one image (unranked): its labels against the reading at `conf`, with the
    detector's weak detections (`tail`) as the evidence for a missed label."""
    read_boxes = reading.boxes
    iou = iou_matrix(boxes, read_boxes)
    flags = []

    def flag(kind: str, evidence: float, t: int | None, r: int | None) -> None:
        flags.append(Flag(
            kind, float(evidence), rel, t, r, None if t is None else codes[t],
            None if r is None else CLASSES[int(reading.class_ids[r])],
            None if r is None else float(reading.confidences[r]),
            None if t is None or r is None else float(iou[t, r]),
            _union(None if t is None else boxes[t], None if r is None else read_boxes[r])))

    pairs = match(boxes, read_boxes, MATCH_IOU)
    for t, r in pairs.items():
        scores = reading.scores[r]
        top, labelled = int(scores.argmax()), CLASS_INDEX[codes[t]]
        if top != labelled:
            flag("wrong-class", certainty(scores[top], scores[labelled]), t, r)
        if iou[t, r] < SHIFTED_IOU:
            flag("shifted", (SHIFTED_IOU - iou[t, r]) / (SHIFTED_IOU - MATCH_IOU), t, r)
    lone_labels = [t for t in range(len(boxes)) if t not in pairs]
    lone_reads = [r for r in range(len(reading)) if r not in pairs.values()]
    partial = match(boxes[lone_labels], read_boxes[lone_reads], PARTIAL_IOU)
    for i, j in partial.items():
        t, r = lone_labels[i], lone_reads[j]
        flag("shifted", 1.0, t, r)
    covering = iou_matrix(boxes, tail.boxes) >= MATCH_IOU
    for i, t in enumerate(lone_labels):
        if i not in partial:
            flag("missed", certainty(conf, tail.confidences[covering[t]].max(initial=0.0)), t, None)
    paired = set(partial.values())
    for j, r in enumerate(lone_reads):
        if j not in paired and (not len(boxes) or iou[:, r].max() < LONE_IOU):
            flag("unlabelled", 1.0, None, r)
    return flags


def tail_side(detector: TileDetector, image: np.ndarray, reading: Detections) -> int:
    """The input size at which the whole image shows the reading's tiles at the trained tile size."""
    if not len(reading):
        return detector.card.imgsz
    tile = float(np.median(np.minimum(reading.widths, reading.heights)))
    return int(np.clip(max(image.shape[:2]) * detector.card.tile_width / tile, STRIDE, detector.card.max_side))


def audit_image(detector: TileDetector, path: Path, label: Path, rel: str, conf: float) -> ImageAudit:
    """Read one image and compare with its labels; PhotoError or LabelError when either is unreadable."""
    image = load_photo(path)
    h, w = image.shape[:2]
    boxes, codes = read_labels(label, w, h)
    reading = detector.read(image, conf=conf)
    tail = detector.detect(image, long_side=tail_side(detector, image, reading), conf=MIN_SCORE)
    return ImageAudit(path, rel, boxes, codes, reading, tail, find_flags(rel, boxes, codes, reading, tail, conf))


@dataclass(eq=False)
class Audit:
    root: str
    model: str
    conf: float
    images: list[ImageAudit]
    skipped: list[tuple[str, str]]  # (image, why)
    ap: np.ndarray  # (classes, IoU thresholds) of the detector alone, NaN for classes without labels
    labels: np.ndarray  # labels per class
    detections: np.ndarray  # detections at or above conf per class
    hits: np.ndarray  # of those, right box (IoU >= 0.5) and right code
    confusion: np.ndarray  # (classes + 1, classes + 1): labelled x read; last row/column: none
    trust: dict[str, float]  # per kind of flag: how often the model is right about that on this set
    flags: list[Flag]  # all images', most suspicious first

    @property
    def map50(self) -> float:
        return float(np.nanmean(self.ap[:, 0])) if self.labels.any() else 0.0

    @property
    def map50_95(self) -> float:
        return float(np.nanmean(self.ap)) if self.labels.any() else 0.0

    @property
    def precision(self) -> float:
        return float(self.hits.sum() / max(self.detections.sum(), 1))

    @property
    def recall(self) -> float:
        return float(self.hits.sum() / max(self.labels.sum(), 1))

    def class_rows(self) -> list[dict]:
        """Per class with labels or detections: counts, precision and recall at conf, AP."""
        rows = []
        for c, code in enumerate(CLASSES):
            if not self.labels[c] and not self.detections[c]:
                continue
            rows.append({
                "code": code, "labels": int(self.labels[c]), "detections": int(self.detections[c]),
                "precision": round(float(self.hits[c] / self.detections[c]), 4) if self.detections[c] else None,
                "recall": round(float(self.hits[c] / self.labels[c]), 4) if self.labels[c] else None,
                "ap50": None if np.isnan(self.ap[c, 0]) else round(float(self.ap[c, 0]), 4),
                "ap50_95": None if np.isnan(self.ap[c, 0]) else round(float(self.ap[c].mean()), 4),
            })
        return rows

    def to_json(self) -> dict:
        return {
            "root": self.root, "model": self.model, "conf": self.conf,
            "images": len(self.images), "labels": int(self.labels.sum()),
            "detections": int(self.detections.sum()),
            "mAP50": round(self.map50, 4), "mAP50-95": round(self.map50_95, 4),
            "precision": round(self.precision, 4), "recall": round(self.recall, 4),
            "classes": self.class_rows(),
            "confusion": {"codes": [*CLASSES, "none"], "rows_labelled_columns_read": self.confusion.tolist()},
            "flag_counts": {kind: sum(f.kind == kind for f in self.flags) for kind in KINDS},
            "trust": {kind: round(value, 4) for kind, value in self.trust.items()},
            "flags": [f.to_json() for f in self.flags],
            "skipped": [{"image": image, "why": why} for image, why in self.skipped],
        }


def _shrunk(hits, count, overall: float):
    """A share of `count` (an image's, a code's) shrunk toward the set's `overall` with PRIOR pseudo-counts."""
    return (hits + PRIOR * overall) / (count + PRIOR)


def summarise(root: str, model: str, conf: float, images: list[ImageAudit],
              skipped: list[tuple[str, str]]) -> Audit:
    n = len(CLASSES)
    labels, detections, hits = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    matrix = np.zeros((n + 1, n + 1), np.int64)
    tight = 0  # tiles found with their box at IoU >= SHIFTED_IOU
    per_image = []  # (tiles found, labels, detections read) of each image
    tps, scores, classes = [np.zeros((0, len(IOU_THRESHOLDS)), bool)], [np.zeros(0)], [np.zeros(0, np.int64)]
    read_scores, read_right, tile_scores, on_tile = [], [], [], []  # the calibrations' observations
    read_as = []  # the code of each detection, beside on_tile
    for item in images:
        true = np.array([CLASS_INDEX[c] for c in item.codes], np.int64)
        tail, reading = item.tail, item.reading
        tps.append(true_positives(tail.boxes, tail.class_ids, tail.confidences, item.boxes, true))
        scores.append(tail.confidences)
        classes.append(tail.class_ids)
        labels += np.bincount(true, minlength=n)
        right = true_positives(reading.boxes, reading.class_ids, reading.confidences, item.boxes, true,
                               np.array([MATCH_IOU]))[:, 0]
        detections += np.bincount(reading.class_ids, minlength=n)
        hits += np.bincount(reading.class_ids[right], minlength=n)
        matrix += confusion(reading.boxes, reading.class_ids, item.boxes, true, n, MATCH_IOU)
        iou = iou_matrix(item.boxes, reading.boxes)
        pairs = match(item.boxes, reading.boxes, MATCH_IOU)
        tight += sum(iou[t, r] >= SHIFTED_IOU for t, r in pairs.items())
        per_image.append((len(pairs), len(item.boxes), len(reading)))
        read_scores += [reading.confidences[r] for r in pairs.values()]
        read_right += [reading.class_ids[r] == true[t] for t, r in pairs.items()]
        tile_scores += reading.confidences.tolist()
        on_tile += [r in pairs.values() for r in range(len(reading))]
        read_as += reading.class_ids.tolist()
    ap = ap_per_class(np.concatenate(tps), np.concatenate(scores), np.concatenate(classes), labels)
    found = int(matrix[:n, :n].sum())
    trust = {"wrong-class": np.trace(matrix[:n, :n]) / max(found, 1), "missed": found / max(matrix[:n].sum(), 1),
             "unlabelled": found / max(matrix[:, :n].sum(), 1), "shifted": tight / max(found, 1)}
    trust = {kind: float(value) for kind, value in trust.items()}
    reads_right, is_tile = Calibration(read_scores, read_right), Calibration(tile_scores, on_tile)
    # Box precision per code read, shrunk toward the set's: a model that sees a back in the side of
    # a standing tile makes "unlabelled back" flags that say little.
    on_code = np.bincount(read_as, np.array(on_tile, np.float64), minlength=n) if read_as else np.zeros(n)
    code_share = _shrunk(on_code, np.bincount(read_as, minlength=n), trust["unlabelled"])
    code_factor = np.minimum(1.0, code_share / max(trust["unlabelled"], 1e-9))

    def trusted(f: Flag, recall_here: float, precision_here: float) -> float:
        if f.kind == "wrong-class":
            return reads_right(f.confidence)
        if f.kind == "shifted":
            return is_tile(f.confidence) * trust["shifted"]
        if f.kind == "unlabelled":  # an image full of stray detections (a busy mat) says less
            return (is_tile(f.confidence) * min(1.0, precision_here / max(trust["unlabelled"], 1e-9))
                    * code_factor[CLASS_INDEX[f.read]])
        return recall_here

    for item, (found_here, labels_here, reads_here) in zip(images, per_image, strict=True):
        recall_here = _shrunk(found_here, labels_here, trust["missed"])
        precision_here = _shrunk(found_here, reads_here, trust["unlabelled"])
        item.flags = [replace(f, trust=trusted(f, recall_here, precision_here)) for f in item.flags]
    flags = sorted((f for item in images for f in item.flags), key=lambda f: (-f.suspicion, f.image, f.kind))
    return Audit(root, model, conf, images, skipped, ap, labels, detections, hits, matrix, trust, flags)


def audit(root: Path, detector: TileDetector, conf: float | None = None,
          progress: Callable[[int, int], None] | None = None) -> Audit:
    """Audit every image under root that has a label file; `progress(done, total)` after each.
    `conf` defaults to the model card's, the threshold the app reads photos at."""
    root = Path(root)
    conf = detector.card.conf if conf is None else conf
    pairs = image_labels(root)
    images, skipped = [], []
    for i, (path, label) in enumerate(pairs):
        rel = str(path.relative_to(root))
        if label is None:
            skipped.append((rel, "no label file"))
        else:
            try:
                images.append(audit_image(detector, path, label, rel, conf))
            except (PhotoError, LabelError, OSError, UnicodeDecodeError) as exc:
                skipped.append((rel, str(exc)[:300]))
        if progress:
            progress(i + 1, len(pairs))
    card = detector.card
    model = f"{card.onnx} (SHA-256 {card.sha256[:12]})"
    if detector.classifier:  # the crop classifier rescoring each tile in `read`
        model += f" with classifier {card.classifier.name} (SHA-256 {card.classifier_sha256[:12]})"
    return summarise(str(root), model, conf, images, skipped)
