"""Second stage: a small CNN that reads each detected tile from a crop of the photo (onnxruntime or OpenVINO, no torch).

The detector finds tiles well but confuses look-alike faces (萬 numerals 七/四/六, 伍) that span a
few pixels of its input. The classifier sees each tile on its own, cut from the photo's full
resolution and resized to CROP_H x CROP_W, and replaces (or is blended with) the detector's
per-class scores. `crop_region`/`cut_crop` are the one definition of the crop: training
(`training/crops.py`) and read time both use them.

A rescored tile's scores are the classifier's class probabilities times the detector's confidence
that a tile is there (its top score). They keep the meaning of the detector's own scores (a YOLO
class score is P(tile and class)), so the layout's choice between boxes competing for a slot, the
confidence shown to the player and the audit's precision ranking still weigh box quality, while
legal-hand correction, which normalises each tile's scores, gets the classifier's probabilities.

Crop size 64 x 48 (h x w): portrait, as tiles are, and tall enough that a 萬 numeral keeps its strokes
while the network stays cheap to train (models/CLASSIFIER.md, "Model details"). A box wider than tall (a
tile lying sideways, or a photo rolled by ~90°) is turned a quarter turn so every crop is portrait.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASSES
from vision.detections import Detections
from vision.model_files import MODELS_DIR, Engine, ModelError, classifier_card, model_session, runtime
from vision.notices import Notice
from vision.photo import halved
from vision.settings import DETECTOR_DEFAULT
from vision.stages import CLASSIFIER_NETWORK, CLASSIFY, CROPS, stage

CROP_H, CROP_W = 64, 48
EXPAND = 0.08  # each side grows by this fraction of the box's size: the tile's edges stay in view
PAD_VALUE = 114  # grey outside the photo, as the detector's letterbox
BATCH = 64
# The ONNX output holding each crop's pooled features before the linear layer: a table's memory compares them
# (vision/memory.py). A classifier exported without it still reads; it cannot be taught a table's set.
EMBEDDING = "embedding"


def crop_region(box, expand: float = EXPAND, jitter=None) -> np.ndarray:
    """The photo region (x1 y1 x2 y2, float) cut for a tile box: each side pushed out by `expand` of
    the box's size, then each edge moved by `jitter` (4 fractions of the box's width/height: x1 y1
    x2 y2, positive outwards) to mimic a detector's box error when making training crops."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    grow = np.full(4, expand) if jitter is None else expand + np.asarray(jitter, np.float64)
    return np.array([x1 - grow[0] * w, y1 - grow[1] * h, x2 + grow[2] * w, y2 + grow[3] * h])


def cut_crop(image: np.ndarray, box, expand: float = EXPAND, jitter=None) -> np.ndarray:
    """A (CROP_H, CROP_W, 3) uint8 crop of BGR `image` for a tile box in its pixels.

    Parts of the region outside the photo are PAD_VALUE grey, so a tile at the border keeps its
    place in the crop. Landscape regions are turned a quarter turn clockwise first.
    """
    x1, y1, x2, y2 = crop_region(box, expand, jitter)
    ix1, iy1 = int(np.floor(x1)), int(np.floor(y1))
    ix2, iy2 = max(int(np.ceil(x2)), ix1 + 1), max(int(np.ceil(y2)), iy1 + 1)
    h, w = image.shape[:2]
    inside = image[max(iy1, 0):max(min(iy2, h), 0), max(ix1, 0):max(min(ix2, w), 0)]
    region: np.ndarray
    if inside.size == 0:
        region = np.full((iy2 - iy1, ix2 - ix1, 3), PAD_VALUE, np.uint8)
    elif inside.shape[:2] == (iy2 - iy1, ix2 - ix1):  # all in the photo: resized from the view, not a padded copy
        region = inside
    else:
        region = cv2.copyMakeBorder(inside, max(-iy1, 0), max(iy2 - h, 0), max(-ix1, 0), max(ix2 - w, 0),
                                    cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
    if region.shape[1] > region.shape[0]:
        region = cv2.rotate(region, cv2.ROTATE_90_CLOCKWISE)
    shrink = region.shape[0] > CROP_H
    return cv2.resize(region, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)


def cut_crops(image: np.ndarray, boxes: np.ndarray, halve_from: float) -> np.ndarray:
    """(N, CROP_H, CROP_W, 3) uint8 crops of every box. While even the smallest tile is `halve_from` times
    the crop's height (`DetectorSettings.halve_from`), they are cut from the photo halved (2x2 averages):
    shrinking each large tile by area cost more than halving the whole photo once, for the same codes
    (docs/decisions/detector-passes.md)."""
    if not len(boxes):
        return np.zeros((0, CROP_H, CROP_W, 3), np.uint8)
    scale = 1.0
    while float((boxes[:, 3] - boxes[:, 1]).min()) * scale >= halve_from * CROP_H:
        image = halved(image)
        scale /= 2
    return np.stack([cut_crop(image, b * scale) for b in boxes])


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def combine(detector_scores: np.ndarray, classifier_probs: np.ndarray, weight: float) -> np.ndarray:
    """Per-tile class probabilities from both stages: p ∝ p_cls^weight · p_det^(1-weight), where
    p_det is the detector's independent per-class scores normalised to sum 1."""
    if weight >= 1.0:
        return classifier_probs.astype(np.float32)
    det = np.clip(detector_scores, 1e-6, None)
    det = det / det.sum(axis=1, keepdims=True)
    log_p = weight * np.log(np.clip(classifier_probs, 1e-9, None)) + (1.0 - weight) * np.log(det)
    return softmax(log_p).astype(np.float32)


class TileClassifier:
    """The crop classifier's ONNX model (uint8 NHWC BGR crops in, 43 logits out), hash-checked."""

    def __init__(self, onnx: Path, sha256: str, threads: int | None = None, weight: float = 1.0,
                 halve_from: float = DETECTOR_DEFAULT.halve_from, chosen: Engine | None = None) -> None:
        """`weight`: read-time scores are a weighted geometric mean of this classifier's softmax (weight)
        and the detector's scores normalised to sum 1 (1 - weight); the model card sets it per detector
        (`classifier_weight` in model.json, docs/decisions/read-threshold.md). `halve_from`: from what tile
        height the crops it reads and teaches a table's memory from are cut from a halved photo (`cut_crops`;
        the detector gives its settings'). `chosen`: what runs it (`vision.model_files.runtime()`'s when None)."""
        self.engine = chosen or runtime().classifier
        self.session = model_session(onnx, sha256, "classifier", self.engine, threads)
        spec = self.session.get_inputs()[0]
        if list(spec.shape[1:]) != [CROP_H, CROP_W, 3]:
            raise ModelError(Notice.of("model-input", name=onnx.name, shape=str(spec.shape[1:]),
                                       expected=str([CROP_H, CROP_W, 3])))
        self.input_name = spec.name
        self.weight, self.halve_from = weight, halve_from
        self.sha256 = sha256  # what a table's memory records: embeddings of another classifier do not compare
        outputs = [o.name for o in self.session.get_outputs()]
        self.outputs = outputs[:1] + [EMBEDDING] if EMBEDDING in outputs else outputs[:1]

    @classmethod
    def from_card(cls, models_dir: Path = MODELS_DIR, threads: int | None = None) -> TileClassifier:
        """The classifier named by `models_dir/classifier.json` (what training wrote)."""
        return cls(*classifier_card(models_dir), threads)

    @property
    def embeds(self) -> bool:
        """Whether the model gives each crop's embedding (a table's memory needs it)."""
        return EMBEDDING in self.outputs

    def read_crops(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(N, 43) softmax over the classes for (N, CROP_H, CROP_W, 3) uint8 BGR crops, and their (N, D)
        embeddings (None when the model has no such output), from one run of the network."""
        if not len(crops):
            return np.zeros((0, len(CLASSES)), np.float32), np.zeros((0, 0), np.float32) if self.embeds else None
        with stage(CLASSIFIER_NETWORK):
            runs = [self.session.run(self.outputs, {self.input_name: np.ascontiguousarray(crops[i:i + BATCH])})
                    for i in range(0, len(crops), BATCH)]
        probs = softmax(np.concatenate([r[0] for r in runs]).astype(np.float64)).astype(np.float32)
        return probs, np.concatenate([r[1] for r in runs]).astype(np.float32) if self.embeds else None

    @stage(CROPS)
    def crops(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The crops this classifier reads of these boxes (xyxy, `image`'s pixels): `cut_crops`."""
        return cut_crops(image, np.asarray(boxes, np.float32), self.halve_from)

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, 43) softmax over the classes for (N, CROP_H, CROP_W, 3) uint8 BGR crops."""
        return self.read_crops(crops)[0]

    @stage(CLASSIFY)
    def rescore(self, image: np.ndarray, dets: Detections, memory=None) -> Detections:
        """The same boxes; each tile's scores are the class probabilities from its crop of `image`
        (combined with the detector's per `weight`, then with a table's `memory` of its own tiles when
        given: `vision.memory.TableMemory.blend_crops`) times the detector's confidence in the tile."""
        if not len(dets):
            return dets
        crops = self.crops(image, dets.boxes)
        probs, embeddings = self.read_crops(crops)
        probs = combine(dets.scores, probs, self.weight)
        if memory is not None:
            memory.check(self)
            probs = memory.blend_crops(self, crops, probs, embeddings)
        return Detections(dets.boxes, (probs * dets.confidences[:, None]).astype(np.float32))
