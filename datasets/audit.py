"""Audit a YOLO tile data set against the detector: how well the model reads it (mAP, per-class
precision and recall, which codes it mistakes for which) and which labels look wrong.

Every labelled image is read as a player's photo is (`TileDetector.read` at `conf`): that reading
gives precision, recall, the confusions and the flags. One more pass of the detector alone over
the whole image, at the scale the reading found the tiles and with scores down to MIN_SCORE, gives
the precision-recall curves of AP (as ultralytics' val does) and the evidence for a missed label.

Labellers box a tile their own way: real sets box a standing tile's face only (its top 60%), or the
whole tile, where the model boxes the tile's body. So each image's convention is learnt first
(`learn_conventions`: the median offset and scale of its labels on the detections they pair with,
shrunk toward the set's) and every detection is compared as that labeller would have boxed it: a
consistent face-only habit is no flag, and a tile whose face-only label overlaps the model's box at
IoU 0.4 is still found (and its code judged).

A flag is a label the model disagrees with. Its suspicion, from 0 to 1, ranks the flags of all
kinds in one list (higher: more likely a label error, less likely a model error). It is the
evidence of the flag (how plainly the model disagrees) times the model's trust (how often, on the
audited set, the model is right in a claim like this one):

- wrong-class: a labelled tile the model finds (IoU >= 0.5 with a detection) but reads as another
  code. Evidence: `certainty` that the labelled code is not there: 1 when its score for the
  labelled code is nothing (a 2筒 labelled 2條 that it reads as 2筒 at 0.9 and 2條 at 0.005),
  much less when it hesitates between the two (0.9 against 0.3 gives 0.24). Trust: the share of
  the found tiles it reads at this score whose code it reads as labelled, lowered where it misreads
  the neighbouring tiles more than the set's.
- missed: a label with no detection on it (a box on the bare table, or far off its tile).
  Evidence: `certainty(conf, s)`, s the best score of any detection, however weak, covering the
  label at IoU >= 0.5: 1 where the model sees nothing at all, 0.28 for a tile it doubts at 0.1.
  Trust: the share of the neighbouring labels the model finds (box recall), lowered for a code it
  misses more than others (riichi's blank 白).
- unlabelled: a detection that overlaps no label much (IoU < 0.2 with every one): a tile nobody
  boxed. Evidence: 1 (its confidence is weighed by the trust). Trust: the share of its
  detections at this confidence that lie on a label (box precision), lowered where its neighbouring
  detections lie off the labels and for a code it finds off the labels more than others (a back
  seen in the side of a standing tile).
- shifted: a label and a detection of one tile that overlap only partly (0.1 <= IoU < 0.7).
  Evidence: 1 at IoU 0.5 or less, falling to 0 at 0.7, since a model's own boxes are rarely that
  far off. Trust: box precision at the detection's confidence, times the share of the neighbouring
  tiles it finds whose box it places at IoU >= 0.7.

Trust is measured on the audited set itself (label errors are few, so they barely move it), and
at the model's own score (`datasets.calibration`): a score means different things for different
models, and an undertrained model that reads most tiles right at 0.1 deserves to be believed at
0.1. A model that misses a third of the tiles cannot say much about a missing tile, and its
"missed" flags sink below the kinds it is good at. Parts of a photo differ in how well the model
sees them (style, blur, light, a stretched export), so its record on a flag's NEIGHBOURS nearest
tiles weighs the flag, shrunk toward the whole set's with PRIOR pseudo-counts: a label the model
misses among tiles it finds is suspect; one of a row it misses whole is not.

A photo most of whose found labels the model plainly reads as another code (their evidence summed
over its found labels above WRONG_PHOTO, at least PHOTO_AT_LEAST found) is one `mislabelled-photo`
flag standing for its wrong-class flags, ranked above every flag of a single box: a labeller who gave
every tile of a photo one code made one error to fix as a whole, which would otherwise be a dozen
wrong-class flags each doubted for its neighbours' disagreeing too, sunk below other photos' single
boxes. On the real sets (every split; the committed detector and classifier) the six such photos of a val
split (13 to 42 tiles all labelled 1p) score 0.79 to 1; no other photo more than 0.43 (a hard photo read at
0.1 to 0.5). Evidence: that share; trust: the share of found tiles the model reads as labelled.

Patches of GROUP or more neighbouring "missed" labels or "unlabelled" detections are one flag per
image (`grouped`), standing for the rest (`Flag.others`): a row the model cannot see, or the part
of a table photo nobody labelled (real sets often box only the rack, not the discards), is one
thing to look at, not a dozen errors burying the lone ones; and such a heap's detections are left
out of the box precision that trusts the lone ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import cast

import numpy as np

from datasets.calibration import Calibration
from datasets.metrics import IOU_THRESHOLDS, ap_per_class, confusion, true_positives
from datasets.yolo import DATASET_FORMATS, image_labels
from vision.boxes import iou_matrix, match
from vision.classes import CLASS_INDEX, CLASSES
from vision.detections import Detections
from vision.detector import TileDetector, side_for
from vision.labels import LabelError, read_labels
from vision.photo import PhotoError, load_photo

MIN_SCORE = 0.01  # lowest detection score in the tail (AP curves, evidence for a missed label)
MATCH_IOU = 0.5  # a label and a detection of the same tile
SHIFTED_IOU = 0.7  # a matched pair overlapping less than this is a shifted box
PARTIAL_IOU = 0.1  # an unmatched label and detection overlapping this much are one tile, shifted
LONE_IOU = 0.2  # a detection overlapping every label less than this is a tile without a label
PHOTO = "mislabelled-photo"  # a photo whose labels disagree with the reading as a whole
KINDS = (PHOTO, "wrong-class", "missed", "unlabelled", "shifted")
WRONG_PHOTO = 0.5  # wrong-class evidence per found label above which a photo is labelled wrong as a whole
PHOTO_AT_LEAST = 5  # found labels a photo needs before that share says more than a model's bad day
PRIOR = 5  # pseudo-counts of the whole set's box recall/precision (and box convention) in an image's own
NEIGHBOURS = 4  # the nearest tiles whose record weighs a flag (a tile's neighbours in its row and the next)
GROUP = 3  # neighbouring flags of one kind that are one patch (a row missed, a heap left unlabelled)
HEAPED = ("missed", "unlabelled")  # the kinds whose patches are one flag per image
LINK = 1.5  # tiles whose centres are closer than this many long sides are neighbours
CONVENTION_IOU = 0.3  # a label and a detection paired to learn how the labeller boxes a tile
SAME_BOXES = np.zeros(4)  # a convention that boxes tiles as the model does


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
    others: tuple[int, ...] = ()  # more labels (missed, mislabelled-photo) or detections (unlabelled) it stands for
    found: int = 0  # mislabelled-photo: the labels found, of which it and its others are read as another code
    labelled_codes: int = 0  # mislabelled-photo: the codes its labels say ...
    read_codes: int = 0  # ... and the codes the model reads on them

    @property
    def suspicion(self) -> float:
        return self.evidence * self.trust

    @property
    def message(self) -> str:
        if self.kind == PHOTO:
            said = (f"every label {self.labelled}" if self.labelled_codes == 1
                    else f"{self.labelled_codes} codes labelled")
            return (f"{len(self.others) + 1} of its {self.found} labels found are read as another code ({said}, "
                    f"{self.read_codes} codes read): the whole photo labelled wrong?")
        if self.kind == "wrong-class":
            return f"labelled {self.labelled}, read as {self.read} ({self.confidence:.2f})"
        if self.kind == "missed" and self.others:
            return (f"{len(self.others) + 1} neighbouring labels with nothing found on them (one a {self.labelled}): "
                    "a part the model cannot see?")
        if self.kind == "missed":
            return f"labelled {self.labelled}, nothing found there"
        if self.kind == "unlabelled" and self.others:
            return (f"{len(self.others) + 1} neighbouring tiles found with no label (one a {self.read}, "
                    f"{self.confidence:.2f}): a part left unlabelled?")
        if self.kind == "unlabelled":
            return f"{self.read} found ({self.confidence:.2f}) with no label"
        return f"labelled {self.labelled}, {self.read} found ({self.confidence:.2f}) overlapping IoU {self.iou:.2f}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "suspicion": round(self.suspicion, 4), "evidence": round(self.evidence, 4),
                "trust": round(self.trust, 4), "image": self.image, "label": self.label,
                "detection": self.detection, "labelled": self.labelled, "read": self.read,
                "confidence": None if self.confidence is None else round(self.confidence, 4),
                "iou": None if self.iou is None else round(self.iou, 4),
                "box": [round(v, 1) for v in self.box], "others": list(self.others), "message": self.message}


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
    convention: np.ndarray = field(default_factory=SAME_BOXES.copy)  # how its labeller boxes a tile found

    @property
    def seen_boxes(self) -> np.ndarray:
        """The reading's boxes as this image's labeller would have drawn them."""
        return in_convention(self.reading.boxes, self.convention)


def box_offsets(labels: np.ndarray, found: np.ndarray) -> np.ndarray:
    """(n, 4) how each label sits on the detection it pairs with (IoU >= CONVENTION_IOU): centre
    offsets in detection widths and heights, log width and height ratios."""
    pairs = match(labels, found, CONVENTION_IOU)
    t, r = np.array(list(pairs), np.int64), np.array(list(pairs.values()), np.int64)
    lab, det = np.asarray(labels, np.float64)[t].reshape(-1, 4), np.asarray(found, np.float64)[r].reshape(-1, 4)
    size_l, size_d = lab[:, 2:] - lab[:, :2], np.maximum(det[:, 2:] - det[:, :2], 1e-6)
    centre = ((lab[:, :2] + lab[:, 2:]) - (det[:, :2] + det[:, 2:])) / 2 / size_d
    return np.hstack([centre, np.log(np.maximum(size_l, 1e-6) / size_d)])


def in_convention(boxes: np.ndarray, convention: np.ndarray) -> np.ndarray:
    """Detection boxes moved and scaled by a convention (`box_offsets`' four numbers)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    size = boxes[:, 2:] - boxes[:, :2]
    centre = (boxes[:, :2] + boxes[:, 2:]) / 2 + convention[:2] * size
    half = size * np.exp(convention[2:]) / 2
    return np.hstack([centre - half, centre + half]).astype(np.float32)


def learn_conventions(images: list[ImageAudit]) -> None:
    """Each image's box convention: the median of how its labels sit on their detections, shrunk
    toward the whole set's with PRIOR pseudo-pairs. Real sets box a standing tile's face only, or the
    whole tile, where the model boxes the tile's body: one such set's boxes all sit 0.6 of the
    detection high, a consistent habit, not a shifted label each."""
    offsets = [box_offsets(item.boxes, item.reading.boxes) for item in images]
    pooled = np.vstack([SAME_BOXES[None], *offsets])[1:]
    overall = np.median(pooled, axis=0) if len(pooled) else SAME_BOXES
    for item, own in zip(images, offsets, strict=True):
        mine = np.median(own, axis=0) if len(own) else overall
        item.convention = (len(own) * mine + PRIOR * overall) / (len(own) + PRIOR)


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
               conf: float, convention: np.ndarray = SAME_BOXES) -> list[Flag]:
    """The flags of one image (unranked): its labels against the reading at `conf`, with the
    detector's weak detections (`tail`) as the evidence for a missed label; the detections are
    compared as the image's labeller would have boxed them (`convention`)."""
    read_boxes = in_convention(reading.boxes, convention)
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
    covering = iou_matrix(boxes, in_convention(tail.boxes, convention)) >= MATCH_IOU
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
    return side_for(detector.card, image, float(np.median(np.minimum(reading.widths, reading.heights))))


def audit_image(detector: TileDetector, path: Path, label: Path, rel: str, conf: float) -> ImageAudit:
    """Read one image and its labels (`compare` flags them); PhotoError or LabelError when either is
    unreadable."""
    image = load_photo(path, DATASET_FORMATS)
    h, w = image.shape[:2]
    boxes, codes = read_labels(label, w, h)
    reading = detector.read(image, conf=conf)
    tail = detector.detect(image, long_side=tail_side(detector, image, reading), conf=MIN_SCORE)
    return ImageAudit(path, rel, boxes, codes, reading, tail)


def compare(images: list[ImageAudit], conf: float) -> None:
    """Each image's flags, once the set's box conventions are learnt."""
    learn_conventions(images)
    for item in images:
        item.flags = find_flags(item.rel, item.boxes, item.codes, item.reading, item.tail, conf, item.convention)


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


def _centres(boxes: np.ndarray) -> np.ndarray:
    return (np.asarray(boxes, np.float64)[:, :2] + np.asarray(boxes, np.float64)[:, 2:]) / 2


def local_share(centres: np.ndarray, hits: np.ndarray, overall: float, among: np.ndarray | None = None) -> np.ndarray:
    """For each point: the share of hits among its NEIGHBOURS nearest other points (of those `among`
    marks), shrunk toward `overall`."""
    among = np.ones(len(centres), bool) if among is None else np.asarray(among, bool)
    distance = np.linalg.norm(centres[:, None] - centres[None], axis=2) if len(centres) else np.zeros((0, 0))
    distance[:, ~among] = np.inf
    np.fill_diagonal(distance, np.inf)
    near = np.argsort(distance, axis=1, kind="stable")[:, :NEIGHBOURS]
    counted = np.take_along_axis(np.isfinite(distance), near, axis=1)
    return _shrunk((np.asarray(hits, np.float64)[near] * counted).sum(axis=1), counted.sum(axis=1), overall)


def neighbourhood(item: ImageAudit, pairs: dict[int, int], trust: dict[str, float]) -> dict[str, np.ndarray]:
    """The model's record around each label and detection of an image, shrunk toward the set's:
    per label, of its neighbour labels: `found` the share found, `agree` the share of those found
    read as labelled, `tight` the share of those found boxed tightly (IoU >= SHIFTED_IOU); per
    detection, `on label` the share of its neighbour detections on a label. A label missed among
    tiles found is suspect, one of a row missed whole is not; a tile found among labelled ones is a
    box left out, one of a heap found without labels is a part nobody labelled; a code read wrong,
    or a box off, where the model reads its neighbours right says more than in a photo it misreads."""
    labels, reads = _centres(item.boxes), _centres(item.reading.boxes)
    found = np.array([t in pairs for t in range(len(labels))], bool)
    on_label = np.zeros(len(reads), bool)
    on_label[list(pairs.values())] = True
    iou = iou_matrix(item.boxes, item.seen_boxes)
    right, tight = np.zeros(len(labels), bool), np.zeros(len(labels), bool)
    for t, r in pairs.items():
        right[t] = item.reading.class_ids[r] == CLASS_INDEX[item.codes[t]]
        tight[t] = iou[t, r] >= SHIFTED_IOU
    return {"found": local_share(labels, found, trust["missed"]),
            "agree": local_share(labels, right, trust["wrong-class"], found),
            "tight": local_share(labels, tight, trust["shifted"], found),
            "on label": local_share(reads, on_label, trust["unlabelled"])}


def _near(a, b) -> bool:
    """Two boxes of neighbouring tiles: centres closer than LINK of their long sides."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    reach = LINK * max(*(a[2:] - a[:2]), *(b[2:] - b[:2]))
    return bool(np.linalg.norm((a[:2] + a[2:] - b[:2] - b[2:]) / 2) < reach)


def in_heaps(flags: list[Flag]) -> set[int]:
    """Indices of the flags (of one kind, in one image) that lie in a patch of GROUP or more neighbours."""
    patch = list(range(len(flags)))  # union-find: each flag's patch

    def root(i: int) -> int:
        while patch[i] != i:
            i = patch[i]
        return i

    for i in range(len(flags)):
        for j in range(i):
            if _near(flags[i].box, flags[j].box):
                patch[root(i)] = root(j)
    sizes = np.bincount([root(i) for i in range(len(flags))], minlength=len(flags))
    return {i for i in range(len(flags)) if sizes[root(i)] >= GROUP}


def grouped(flags: list[Flag]) -> list[Flag]:
    """An image's flags with its patches of GROUP or more neighbouring "missed" labels (a part the
    model cannot see) or "unlabelled" tiles (a part nobody labelled: real sets often box only the
    rack) as one flag per kind, its most suspicious, standing for the rest: one thing for a player
    to look at, and a half-labelled photo no longer buries the lone errors under its heap."""
    out = [f for f in flags if f.kind not in HEAPED]
    for kind in HEAPED:
        these = [f for f in flags if f.kind == kind]
        heap = in_heaps(these)
        out += [f for i, f in enumerate(these) if i not in heap]
        if heap:
            first, *rest = sorted((these[i] for i in heap), key=lambda f: -f.suspicion)
            box = np.array([f.box for f in these])[sorted(heap)]
            # a missed label's flag has its label, an unlabelled tile's its detection
            others = cast("tuple[int, ...]", tuple(f.label if kind == "missed" else f.detection for f in rest))
            out.append(replace(first, others=others,
                               box=(*box[:, :2].min(axis=0).tolist(), *box[:, 2:].max(axis=0).tolist())))
    return out


def whole_photo(item: ImageAudit, pairs: dict[int, int], flags: list[Flag], reads_right: float) -> list[Flag]:
    """An image's flags with its wrong-class flags as one mislabelled-photo flag, standing for them all,
    when more than WRONG_PHOTO of its found labels (at least PHOTO_AT_LEAST) are read as another code,
    each counted by its evidence (a code it hesitates over counts little); trusted as much as the model
    reads the set's found tiles right (`reads_right`)."""
    wrong = sorted((f for f in flags if f.kind == "wrong-class"), key=lambda f: -f.suspicion)
    share = sum(f.evidence for f in wrong) / max(len(pairs), 1)  # each as plainly as the model disagrees
    if len(pairs) < PHOTO_AT_LEAST or share <= WRONG_PHOTO:
        return flags
    first, *rest = wrong
    read = {int(item.reading.class_ids[r]) for r in pairs.values()}
    photo = replace(first, kind=PHOTO, evidence=share, trust=reads_right,
                    box=(*item.boxes[:, :2].min(axis=0).tolist(), *item.boxes[:, 2:].max(axis=0).tolist()),
                    others=tuple(cast(int, f.label) for f in rest), found=len(pairs),
                    labelled_codes=len(set(item.codes)), read_codes=len(read))
    return [photo, *(f for f in flags if f.kind != "wrong-class")]


def ranked(flags: list[Flag]) -> list[Flag]:
    """Most suspicious first, a mislabelled photo above every flag of a single box."""
    return sorted(flags, key=lambda f: (f.kind != PHOTO, -f.suspicion, f.image, f.kind))


def summarise(root: str, model: str, conf: float, images: list[ImageAudit],
              skipped: list[tuple[str, str]]) -> Audit:
    n = len(CLASSES)
    labels, detections, hits = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    matrix = np.zeros((n + 1, n + 1), np.int64)
    tight = 0  # tiles found with their box at IoU >= SHIFTED_IOU
    per_image = []  # the label → detection pairs of each image
    tps, scores, classes = [np.zeros((0, len(IOU_THRESHOLDS)), bool)], [np.zeros(0)], [np.zeros(0, np.int64)]
    read_scores, read_right, tile_scores, on_tile = [], [], [], []  # the calibrations' observations
    read_as = []  # the code of each detection, beside on_tile
    found_codes = np.zeros(n, np.int64)  # labels found, per labelled code
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
        seen = item.seen_boxes  # the model is trusted as its flags judge: in the labeller's convention
        iou = iou_matrix(item.boxes, seen)
        pairs = match(item.boxes, seen, MATCH_IOU)
        tight += sum(iou[t, r] >= SHIFTED_IOU for t, r in pairs.items())
        per_image.append(pairs)
        read_scores += [reading.confidences[r] for r in pairs.values()]
        read_right += [reading.class_ids[r] == true[t] for t, r in pairs.items()]
        lone = [f for f in item.flags if f.kind == "unlabelled"]  # a heap nobody labelled is tiles, not
        unsure = {lone[i].detection for i in in_heaps(lone)}  # the model's mistakes: left out of its precision
        kept = [r for r in range(len(reading)) if r not in unsure]
        tile_scores += reading.confidences[kept].tolist()
        on_tile += [r in pairs.values() for r in kept]
        read_as += reading.class_ids[kept].tolist()
        found_codes += np.bincount(true[list(pairs)], minlength=n)
    ap = ap_per_class(np.concatenate(tps), np.concatenate(scores), np.concatenate(classes), labels)
    found = sum(len(pairs) for pairs in per_image)
    trust = {"wrong-class": sum(read_right) / max(found, 1), "missed": found / max(int(labels.sum()), 1),
             "unlabelled": found / max(len(tile_scores), 1), "shifted": tight / max(found, 1)}
    trust = {kind: float(value) for kind, value in trust.items()}
    reads_right, is_tile = Calibration(read_scores, read_right), Calibration(tile_scores, on_tile)
    # Box precision per code read, shrunk toward the set's: a model that sees a back in the side of
    # a standing tile makes "unlabelled back" flags that say little.
    on_code = np.bincount(read_as, np.array(on_tile, np.float64), minlength=n) if read_as else np.zeros(n)
    code_share = _shrunk(on_code, np.bincount(read_as, minlength=n), trust["unlabelled"])
    code_factor = np.minimum(1.0, code_share / max(trust["unlabelled"], 1e-9))
    # Box recall per labelled code, likewise: a model that misses most blank riichi 白 says little
    # about one more it misses.
    code_recall = np.minimum(1.0, _shrunk(found_codes, labels, trust["missed"]) / max(trust["missed"], 1e-9))

    # A flag has what its kind is about (`find_flags`): a label and a detection (wrong-class, shifted), a
    # label (missed) or a detection (unlabelled), each with its code, the detection's with its confidence.
    def trusted(f: Flag, near: dict[str, np.ndarray]) -> float:
        if f.kind == "wrong-class":  # a code read wrong among tiles read wrong says less
            assert f.label is not None and f.confidence is not None
            return reads_right(f.confidence) * min(1.0, near["agree"][f.label] / max(trust["wrong-class"], 1e-9))
        if f.kind == "shifted":
            assert f.label is not None and f.confidence is not None
            return is_tile(f.confidence) * near["tight"][f.label]
        if f.kind == "unlabelled":  # one of a heap nobody labelled (a busy mat, a pile of discards) says less
            assert f.detection is not None and f.confidence is not None and f.read is not None
            return (is_tile(f.confidence) * min(1.0, near["on label"][f.detection] / max(trust["unlabelled"], 1e-9))
                    * code_factor[CLASS_INDEX[f.read]])
        assert f.label is not None and f.labelled is not None
        return near["found"][f.label] * code_recall[CLASS_INDEX[f.labelled]]

    for item, pairs in zip(images, per_image, strict=True):
        near = neighbourhood(item, pairs, trust)
        flags = grouped([replace(f, trust=trusted(f, near)) for f in item.flags])
        item.flags = whole_photo(item, pairs, flags, trust["wrong-class"])
    flags = ranked([f for item in images for f in item.flags])
    return Audit(root, model, conf, images, skipped, ap, labels, detections, hits, matrix, trust, flags)


def audit(root: Path, detector: TileDetector, conf: float | None = None,
          progress: Callable[[int, int], object] | None = None) -> Audit:
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
        assert card.classifier is not None and card.classifier_sha256 is not None  # the detector's is the card's
        model += f" with classifier {card.classifier.name} (SHA-256 {card.classifier_sha256[:12]})"
    compare(images, conf)
    return summarise(str(root), model, conf, images, skipped)
