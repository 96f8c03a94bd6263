"""`Detections`: the one value that flows from the detector through layout and the hand search to the app.

Boxes are xyxy in the pixels of the (EXIF-rotated) photo. `scores` keeps every class's score, not
only the top one, because the hand search needs the runner-up readings of each tile. A fact of each
tile travels with it in `data` (as supervision's `Detections.data` does), so indexing, concatenating
or scaling never separates a tile from it: `id`, its index in the detector's output. The reading gives
each tile its id once and keeps the photo's detections in the detector's order, so a tile's id is its
index there; the layout's groups, the hand's parts and the search's groups hold ids, and a subset of the
tiles (the hand laid out alone) carries them (`ids`). It is the id of the reading's row for the tile
(`vision.read.Row`; what the reading makes of each tile, its code, group and why, lives there).

A detector is anything with `read(image) -> Detections` (`vision.detector.TileDetector`, a fake in
the tests, another model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from scoring.tiles import FLOWERS
from vision.classes import CLASSES

# A tile whose face the reading is less sure of than this is shown to the player as one to check.
UNSURE_BELOW = 0.5
FACTS = ("id",)
FLOWER_CLASSES = np.isin(CLASSES, FLOWERS)  # which of the score columns are flowers


class Detector(Protocol):
    def read(self, image: np.ndarray) -> Detections: ...


@dataclass(frozen=True, eq=False)
class Detections:
    boxes: np.ndarray  # (N, 4) float32, x1 y1 x2 y2
    # (N, len(CLASSES)) float32 per-class scores in [0, 1]: the detector's independent scores, or, once
    # `TileDetector.read` rescored them, the crop classifier's probabilities times the detector's
    # confidence in the tile (vision/crop_classifier.py)
    scores: np.ndarray
    data: dict[str, np.ndarray] = field(default_factory=dict)  # per-tile facts (FACTS), each (N,)

    def __post_init__(self) -> None:
        if self.boxes.shape != (len(self.scores), 4) or self.scores.shape[1:] != (len(CLASSES),):
            raise ValueError(f"inconsistent shapes {self.boxes.shape} / {self.scores.shape}")
        if any(len(v) != len(self.scores) for v in self.data.values()):
            raise ValueError("every per-tile fact needs one value per detection")

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros((0, len(CLASSES)), np.float32))

    @classmethod
    def concat(cls, parts: list[Detections]) -> Detections:
        if not parts:
            return cls.empty()
        keys = set.intersection(*(set(p.data) for p in parts))
        return cls(np.concatenate([p.boxes for p in parts]), np.concatenate([p.scores for p in parts]),
                   {k: np.concatenate([p.data[k] for p in parts]) for k in keys})

    def __len__(self) -> int:
        return len(self.boxes)

    def __getitem__(self, index) -> Detections:
        index = np.atleast_1d(np.asarray(index))
        return Detections(self.boxes[index].reshape(-1, 4), self.scores[index].reshape(-1, len(CLASSES)),
                          {k: v[index].reshape(-1) for k, v in self.data.items()})

    def with_facts(self, **facts) -> Detections:
        """A copy with these per-tile facts set (each a sequence of one value per detection)."""
        unknown = set(facts) - set(FACTS)
        if unknown:
            raise ValueError(f"unknown per-tile facts {sorted(unknown)}; known: {FACTS}")
        arrays = {k: np.asarray(v, dtype=np.int64) for k, v in facts.items()}
        return Detections(self.boxes, self.scores, self.data | arrays)

    @property
    def ids(self) -> np.ndarray:
        """Each tile's id: its `id` fact, or where it has none (a detector's own output), its index here."""
        return self.data["id"] if "id" in self.data else np.arange(len(self), dtype=np.int64)

    @property
    def class_ids(self) -> np.ndarray:
        return self.scores.argmax(axis=1) if len(self) else np.zeros(0, np.int64)

    @property
    def confidences(self) -> np.ndarray:
        return self.scores.max(axis=1) if len(self) else np.zeros(0, np.float32)

    @property
    def presence(self) -> np.ndarray:
        """The detector's confidence that a tile is there at all, whatever its face: its classes' scores summed."""
        return self.scores.sum(axis=1) if len(self) else np.zeros(0, np.float32)

    @property
    def certainty(self) -> np.ndarray:
        """How sure the reading is of each tile's face: its top class's share of the tile's scores (with
        the crop classifier, that class's probability), whatever the detector's confidence that a tile
        is there at all (`presence`)."""
        return self.confidences / np.maximum(self.presence, 1e-9) if len(self) else np.zeros(0, np.float32)

    @property
    def raw_codes(self) -> list[str]:
        """The detector's top class per tile."""
        return [CLASSES[i] for i in self.class_ids]

    @property
    def layout_codes(self) -> list[str]:
        """The code each tile is laid out by (which group it can be in): its top class, but a tile whose
        flower classes together outweigh its likeliest other class is a flower, its likeliest one. A
        flower of a set the models never saw reads as no flower surely (0.2-0.33 spread over the eight,
        some on a look-alike honour), yet as a flower all the same; which one the hand search decides."""
        if not len(self):
            return []
        flower = FLOWER_CLASSES
        as_flower = self.scores[:, flower].sum(axis=1) > self.scores[:, ~flower].max(axis=1)
        return [f if a else c for a, f, c in zip(as_flower, self.likeliest_flowers, self.raw_codes, strict=True)]

    @property
    def likeliest_flowers(self) -> list[str]:
        """Each tile's likeliest flower, were it one."""
        flower = FLOWER_CLASSES
        return [CLASSES[i] for i in np.flatnonzero(flower)[self.scores[:, flower].argmax(axis=1)]] if len(self) else []

    @property
    def widths(self) -> np.ndarray:
        return self.boxes[:, 2] - self.boxes[:, 0]

    @property
    def heights(self) -> np.ndarray:
        return self.boxes[:, 3] - self.boxes[:, 1]

    @property
    def centers(self) -> np.ndarray:
        return np.stack([(self.boxes[:, 0] + self.boxes[:, 2]) / 2, (self.boxes[:, 1] + self.boxes[:, 3]) / 2], axis=1)

    def scaled(self, factor: float | tuple[float, float], offset: tuple[float, float] = (0.0, 0.0)) -> Detections:
        """Map boxes from a resized crop back to photo pixels: photo = crop / factor + offset (`factor`
        one for both axes, or (x, y))."""
        ox, oy = offset
        fx, fy = factor if isinstance(factor, tuple) else (factor, factor)
        boxes = self.boxes / np.array([fx, fy, fx, fy], np.float32) + np.array([ox, oy, ox, oy], np.float32)
        return Detections(boxes.astype(np.float32), self.scores, self.data)
