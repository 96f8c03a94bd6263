"""The tile detector at read time: the committed ONNX model on onnxruntime (no torch needed).

`TileDetector.detect` is one forward pass at a given input size. `TileDetector.read` is what a
photo gets: a first pass finds the tiles and their sizes; tiles of one size that lie together form a
cluster (a photo of a table holds near tiles several times the size of far ones), and each cluster
far from the size the model was trained on is read again, its region resized so its tiles come out at
that size. That makes a 12 MP photo whose tiles are 80 px wide read the same as a close-up (see
models/README.md).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scoring.hand import brief
from scoring.tiles import FLOWERS
from vision.classes import CLASSES
from vision.detections import Detections
from vision.notices import Notice, NoticeError
from vision.photo import READ_SIDE

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
STRIDE = 32
# Below this width (px at the network input) the first pass misses tiles: look again larger.
MIN_FOUND_TILE = 12.0
# Tiles found between these multiples of the trained tile width are read as found, in one pass
# (measured: a second pass at the trained size did not read such scenes better; models/README.md).
SAME_SCALE = (0.7, 1.5)
# Tiles of one cluster differ in size by less than this factor (near tiles can be 5x far ones in a photo
# of a table), and lie within this many tile sizes of a neighbour of the cluster.
CLUSTER_SIZE_RATIO = 1.6
CLUSTER_REACH = 3.0
# Second passes for at most this many clusters, the largest first (the rest keep the first pass):
# bounds the time a cluttered photo takes.
MAX_SECOND_PASSES = 3
# The first pass's largest input (long side) is this many times the card's max_side (2560 px). Its
# memory and time grow with its area: a process making one pass at 2560 over a 12 MP photo peaks at
# ~720 MB, the pass taking 2-4 s on 2 cores; the 4096 px pass the doubling used to reach took 8-15 s
# and the read 3.4 GB (README, "Reading photos").
FIRST_PASS_MAX = 2
# An upright tile's face is about 0.75 as wide as tall; no view of a table makes its tiles' median box
# narrower than MIN_ASPECT (a row seen end on: 0.5), so such a photo was squashed by a resize that did not
# keep its aspect (a data set's "stretch" export, a 16:9 frame shown square; KIM test: 6 of 12 photos at
# 0.13-0.29). It is read again with its width restored, by at most MAX_RESTORE, judged on at least
# MIN_FOR_ASPECT boxes. Wide boxes are no such sign: tiles lying flat seen at a grazing angle reach 3-4.
MIN_ASPECT, UPRIGHT_ASPECT = 0.45, 0.75
MAX_RESTORE = 6.0
MIN_FOR_ASPECT = 3
# The largest max_side a model card may ask for: a read's 1 GB bound is measured at it (tests/test_detector.py).
MAX_SIDE_LIMIT = 1280
# A box whose likeliest class is a flower is kept from FAINT_FLOWER up (others from the card's conf): a flower
# of a set the detector never saw scores low (on generated hands of the unseen designs, 14 of the 15 hand tiles
# it missed were flowers, each found read at 0.03), and a hand without it loses its 台. Such a faint box is kept only
# where no surer box covers it and the crop classifier gives the flowers FAINT_FLOWER_SURE of its probability:
# on 32 photos of unseen designs and 90 real test photos, of 28 faint boxes 15 were flowers, and these two
# bounds keep 10 of them and none of the others (0.03 and flower-faced alone kept all 15 and all 13 others).
FAINT_FLOWER, FAINT_FLOWER_SURE = 0.05, 0.7
FLOWER_IDS = np.flatnonzero(np.isin(CLASSES, FLOWERS))


class ModelError(NoticeError, RuntimeError):
    """The committed model is missing or does not match its recorded hash (its notice says which)."""


@dataclass(frozen=True)
class ModelCard:
    """`models/model.json`: which file to load, its SHA-256, and how it was trained to see tiles."""

    onnx: Path
    sha256: str
    imgsz: int  # first-pass input size (long side)
    tile_width: float  # median tile width (px, at network input) the model was trained around
    max_side: int  # cap on the second pass's input long side
    conf: float = 0.25  # a box is a tile when its best class scores this much (chosen per model)
    classifier: Path | None = None  # the crop classifier (second stage), when the card names one
    classifier_sha256: str | None = None
    # its share in each tile's class scores against the detector's (vision/crop_classifier.py): it
    # depends on how well this detector reads classes, so it is chosen per model, as conf is
    classifier_weight: float = 1.0

    @classmethod
    def load(cls, models_dir: Path = MODELS_DIR) -> ModelCard:
        """The card in `models_dir`; ModelError naming the field when one is missing or out of range (an
        input size of 0 made the first pass double it forever)."""
        path = models_dir / "model.json"
        meta = read_card(path, "model")
        try:
            onnx, name = card_file(meta, "onnx"), meta.get("classifier") and card_file(meta, "classifier")
            imgsz = card_number(meta, "imgsz", STRIDE, MAX_SIDE_LIMIT, integer=True)
            return cls(models_dir / onnx, card_hash(meta, onnx), imgsz,
                       tile_width=card_number(meta, "tile_width", 1, imgsz),
                       max_side=card_number(meta, "max_side", imgsz, MAX_SIDE_LIMIT, integer=True),
                       conf=card_number(meta, "conf", 0.001, 0.999, default=0.25),
                       classifier=models_dir / name if name else None,
                       classifier_sha256=card_hash(meta, name) if name else None,
                       classifier_weight=card_number(meta, "classifier_weight", 0, 1, default=1.0))
        except CardProblem as exc:
            raise ModelError(Notice.of("model-card-broken", what="model", path=str(path), why=str(exc))) from exc


class CardProblem(ValueError):
    """A field of a model card that is missing or unusable; the message names it."""


def card_file(meta: dict, key: str) -> str:
    """A file the card names: a plain name inside the card's folder."""
    name = meta.get(key)
    if not isinstance(name, str) or not name or Path(name).name != name:
        raise CardProblem(f"{key!r} is {brief(name)}, expected a file name in the card's folder")
    return name


def card_hash(meta: dict, name: str) -> str:
    digest = meta.get("sha256", {}).get(name) if isinstance(meta.get("sha256"), dict) else None
    if not isinstance(digest, str) or len(digest) != 64:
        raise CardProblem(f"no SHA-256 for {name} under 'sha256'")
    return digest


def card_number(meta: dict, key: str, low: float, high: float, *, integer: bool = False,
                default: float | None = None) -> float:
    """A number of the card, refused outside low..high (nan, a string or a boolean too)."""
    value = meta.get(key, default)
    kinds = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
        raise CardProblem(f"{key!r} is {brief(value)}, expected {'an integer' if integer else 'a number'} "
                          f"from {low} to {high}")
    return value if integer else float(value)


def read_card(path: Path, what: str) -> dict:
    """A model's JSON card, refused unless it exists, is a JSON object and lists our classes in our order."""
    if not path.exists():
        raise ModelError(Notice.of("model-card-missing", what=what, path=str(path)))
    try:
        card = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: not JSON, or not UTF-8
        raise ModelError(Notice.of("model-card-broken", what=what, path=str(path),
                                   why=f"not JSON we read ({str(exc)[:100]})")) from exc
    if not isinstance(card, dict):
        raise ModelError(Notice.of("model-card-broken", what=what, path=str(path),
                                   why=f"a JSON {type(card).__name__}, not an object"))
    if card.get("classes") != list(CLASSES):
        raise ModelError(Notice.of("model-classes-differ", what=what))
    return card


def checked_file(path: Path, sha256: str, what: str) -> Path:
    """`path`, once it exists and matches its recorded SHA-256 (ModelError otherwise)."""
    if not path.is_file():
        raise ModelError(Notice.of("model-file-missing", what=what, path=str(path)))
    actual = sha256_of(path)
    if actual != sha256:
        raise ModelError(Notice.of("model-corrupt", name=path.name, actual=actual[:12], expected=sha256[:12]))
    return path


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def letterbox(image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """Resize so the long side is `long_side`, pad right/bottom to a multiple of the stride.

    Padding only right/bottom keeps the mapping back to photo pixels a pure scale.
    """
    h, w = image.shape[:2]
    scale = long_side / max(h, w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image, (nw, nh), interpolation=interp)
    ph, pw = -nh % STRIDE, -nw % STRIDE
    padded = cv2.copyMakeBorder(resized, 0, ph, 0, pw, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return padded, scale


def decode(output: np.ndarray, conf: float, iou: float, flower_conf: float | None = None) -> Detections:
    """YOLO head output (4 + classes, anchors) → boxes after class-agnostic NMS; a box whose likeliest
    class is a flower is kept from `flower_conf` (when given and lower).

    Agnostic NMS: two boxes on one tile are one tile whatever their classes; the losing class
    survives as the runner-up score that correction can use.
    """
    pred = output.T  # (anchors, 4 + classes)
    scores = pred[:, 4:]
    top = scores.max(axis=1)
    keep = top >= conf
    if flower_conf is not None and flower_conf < conf:
        keep |= (top >= flower_conf) & np.isin(scores.argmax(axis=1), FLOWER_IDS)
        conf = flower_conf
    pred, scores = pred[keep], scores[keep]
    if not len(pred):
        return Detections.empty()
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    idx = cv2.dnn.NMSBoxes(np.stack([boxes[:, 0], boxes[:, 1], w, h], 1).tolist(),
                           scores.max(axis=1).tolist(), conf, iou)
    idx = np.asarray(idx, dtype=np.int64).reshape(-1)
    return Detections(boxes[idx].astype(np.float32), scores[idx].astype(np.float32))


def side_for(card: ModelCard, image: np.ndarray, tile_w: float) -> int:
    """The input size (long side) at which tiles `tile_w` px wide in `image` come out at the width the
    model was trained around, within the stride and the card's cap."""
    return int(np.clip(max(image.shape[:2]) * card.tile_width / tile_w, STRIDE, card.max_side))


def scale_clusters(dets: Detections) -> list[np.ndarray]:
    """Indices of the boxes in clusters of one tile size, largest cluster first: two boxes are linked
    when their sizes differ by less than CLUSTER_SIZE_RATIO and they lie within CLUSTER_REACH sizes."""
    size = np.minimum(dets.widths, dets.heights).astype(np.float64)
    centres = dets.centers.astype(np.float64)
    ratio = np.maximum(size[:, None], size[None, :]) / np.maximum(np.minimum(size[:, None], size[None, :]), 1e-6)
    distance = np.linalg.norm(centres[:, None] - centres[None, :], axis=2)
    linked = (ratio < CLUSTER_SIZE_RATIO) & (distance < CLUSTER_REACH * np.maximum(size[:, None], size[None, :]))
    label = -np.ones(len(dets), np.int64)
    for start in range(len(dets)):  # connected components, breadth first
        if label[start] >= 0:
            continue
        label[start], queue = start, [start]
        while queue:
            nxt = np.nonzero(linked[queue.pop()] & (label < 0))[0]
            label[nxt] = start
            queue += nxt.tolist()
    clusters = [np.nonzero(label == k)[0] for k in np.unique(label)]
    return sorted(clusters, key=len, reverse=True)


def aspect_restore(dets: Detections) -> float:
    """What the photo's width should be multiplied by for its tiles to have a tile's shape: 1.0 when
    their median box is not squashed (or too few boxes say)."""
    if len(dets) < MIN_FOR_ASPECT:
        return 1.0
    aspect = float(np.median(dets.widths / np.maximum(dets.heights, 1e-6)))
    return 1.0 if aspect >= MIN_ASPECT else min(UPRIGHT_ASPECT / aspect, MAX_RESTORE)


def suppress_overlaps(dets: Detections, iou: float = 0.5) -> Detections:
    """One box per tile where readings of overlapping regions found it twice (class-agnostic NMS)."""
    xywh = np.concatenate([dets.boxes[:, :2], dets.boxes[:, 2:] - dets.boxes[:, :2]], axis=1)
    keep = np.asarray(cv2.dnn.NMSBoxes(xywh.tolist(), dets.confidences.tolist(), 0.0, iou), np.int64).reshape(-1)
    return dets[np.sort(keep)]


def session_options(threads: int | None):
    """onnxruntime options for our models: `threads` intra-op threads (None: one per core), which sleep
    between runs rather than spin. A read alternates two sessions (the detector's passes, the crop
    classifier) and the machine is shared: a pool spinning after its run takes a core from the other
    session and from every other job. Same kernels, same outputs; on this 2-core machine under load the
    detector's passes and the classifier took about half as long (models/README.md, "Speed")."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


class TileDetector:
    """The detector, and the crop classifier when the model card names one (`classifier=False` leaves it
    out): `read` then takes each tile's class scores from its crop (vision/crop_classifier.py)."""

    def __init__(self, models_dir: Path = MODELS_DIR, threads: int | None = None, classifier: bool = True) -> None:
        import onnxruntime as ort

        from vision.hand_finding import weights  # here: hand_finding takes the card's helpers from this module

        self.card = ModelCard.load(models_dir)
        checked_file(self.card.onnx, self.card.sha256, "model")
        weights()  # what every read needs besides the detector: refused here rather than at the first photo
        self.session = ort.InferenceSession(str(self.card.onnx), session_options(threads),
                                            providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name
        self.classifier = None
        if classifier and self.card.classifier:
            from vision.crop_classifier import TileClassifier

            self.classifier = TileClassifier(self.card.classifier, self.card.classifier_sha256, threads,
                                             self.card.classifier_weight)

    def detect(self, image: np.ndarray, long_side: int | None = None, conf: float | None = None,
               iou: float = 0.5, faint_flowers: bool = False) -> Detections:
        """One pass over the whole BGR `image` resized to `long_side`; boxes in `image` pixels (and faint
        flowers, FAINT_FLOWER, with `faint_flowers`)."""
        padded, scale = letterbox(image, long_side or self.card.imgsz)
        blob = cv2.dnn.blobFromImage(padded, 1.0, swapRB=True)  # NCHW RGB float32 in one pass (3x numpy's)
        blob /= 255.0
        output = self.session.run(None, {self.input_name: blob})[0][0]
        return decode(output, self.card.conf if conf is None else conf, iou,
                      FAINT_FLOWER if faint_flowers else None).scaled(scale)

    def read(self, image: np.ndarray, conf: float | None = None, memory=None) -> Detections:
        """Find the tiles; each cluster of tiles of one size (the hand near the camera, the discards
        farther off) that came out far from the trained tile size is read again, its region resized so
        its tiles match that size; with a classifier, each tile's scores then come from its crop. A photo
        whose tiles come out squashed is read with its width restored (`aspect_restore`). A table's `memory`
        of its own tiles (vision/memory.py) joins the classifier in reading each tile's face."""
        first, long_side = self.find(image, conf)
        restore = aspect_restore(self.sure(first, conf))
        if restore == 1.0:
            return self.read_found(image, first, long_side, conf, memory)
        h, w = image.shape[:2]
        # Widened 6x, a 12 MP photo would be 24000 px wide (220 MB, and as much again per copy): the
        # restored photo keeps the reader's largest side, giving up height instead.
        shrink = min(1.0, READ_SIDE / (w * restore))
        size = (round(w * restore * shrink), max(1, round(h * shrink)))
        restored = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR if shrink == 1.0 else cv2.INTER_AREA)
        first, long_side = self.find(restored, conf)
        return self.read_found(restored, first, long_side, conf, memory).scaled((size[0] / w, size[1] / h))

    def read_found(self, image: np.ndarray, first: Detections, long_side: int, conf: float | None,
                   memory=None) -> Detections:
        """`read` after the first pass (`find`) gave `first` at input size `long_side`."""
        if not len(first):
            return first
        faint = first[np.flatnonzero(first.confidences < self.threshold(conf))]
        first = self.sure(first, conf)  # a faint flower sizes no second pass
        if not len(first):
            return first
        parts = []
        clusters = scale_clusters(first)
        for rank, members in enumerate(clusters):
            group = first[members]
            tile_w = float(np.median(np.minimum(group.widths, group.heights)))
            at_input = tile_w * long_side / max(image.shape[:2])
            if rank >= MAX_SECOND_PASSES or SAME_SCALE[0] <= at_input / self.card.tile_width <= SAME_SCALE[1]:
                parts.append(group)  # at the trained scale already (or one pass too many): keep as found
                continue
            second = self.read_region(image, group.boxes, tile_w, conf)
            # A first pass that boxed several tiles as one sizes the second pass wrong: keep whichever
            # reading is surer of more tiles, never less than the first pass found.
            parts.append(second if second.confidences.sum() >= group.confidences.sum() else group)
        dets = suppress_overlaps(Detections.concat(parts + [faint])) if len(parts) > 1 or len(faint) else parts[0]
        surely = dets.confidences >= self.threshold(conf)
        if self.classifier is None:  # nothing says whether a faint box is a flower
            return dets[np.flatnonzero(surely)]
        dets = self.classifier.rescore(image, dets, memory)
        flowers = dets.scores[:, FLOWER_IDS].sum(axis=1) / np.maximum(dets.scores.sum(axis=1), 1e-9)
        return dets[np.flatnonzero(surely | (flowers >= FAINT_FLOWER_SURE))]

    def threshold(self, conf: float | None) -> float:
        """The score from which a box is a tile (the card's, unless the caller says)."""
        return self.card.conf if conf is None else conf

    def sure(self, dets: Detections, conf: float | None) -> Detections:
        """The boxes scored a tile surely (not the faint flowers kept beside them: FAINT_FLOWER)."""
        return dets[np.flatnonzero(dets.confidences >= self.threshold(conf))]

    def read_region(self, image: np.ndarray, boxes: np.ndarray, tile_w: float, conf: float | None) -> Detections:
        """The region around `boxes` (with a margin of a tile and a half) resized so tiles `tile_w` wide
        come out at the trained tile width, read in one pass; boxes in photo pixels."""
        pad = 1.5 * tile_w
        h, w = image.shape[:2]
        x1, y1 = np.maximum(boxes[:, :2].min(axis=0) - pad, 0).astype(int)
        x2, y2 = np.minimum(boxes[:, 2:].max(axis=0) + pad, [w, h]).astype(int)
        region = image[y1:y2, x1:x2]
        found = self.detect(region, long_side=side_for(self.card, region, tile_w), conf=conf, faint_flowers=True)
        return Detections(found.boxes + np.array([x1, y1, x1, y1], np.float32), found.scores)

    def find(self, image: np.ndarray, conf: float | None) -> tuple[Detections, int]:
        """First pass: the whole photo at the model's size, then at 2x, 4x… while the tiles come out
        too small to be found reliably (a 17-tile row across a third of a 12 MP photo is ~8 px wide
        at 512), until the photo's own size, never past FIRST_PASS_MAX times the card's `max_side`
        (the cap). A size whose double would pass the cap is skipped for the cap itself: on a 12 MP
        photo 512, 1024, then 2560 (passes at 2048 and 2560 cost 1.6x the one at 2560 alone, and find
        no smaller tiles). Returns the detections (faint flowers among them, which `sure` leaves out)
        and the input size that found them."""
        long_side, photo_side = self.card.imgsz, max(image.shape[:2])
        cap = FIRST_PASS_MAX * self.card.max_side
        while True:
            found = self.detect(image, long_side=long_side, conf=conf, faint_flowers=True)
            sure = self.sure(found, conf)
            input_tile = float(np.median(np.minimum(sure.widths, sure.heights))) * long_side / photo_side \
                if len(sure) else 0.0
            if input_tile >= MIN_FOUND_TILE or long_side >= min(photo_side, cap):
                return found, long_side
            doubled = 2 * long_side
            long_side = cap if 2 * doubled > cap and doubled < min(photo_side, cap) else doubled
