"""A photo into a hand: detections → layout → group kinds → legal-hand correction → `Hand`."""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from scoring.hand import Hand, Situation
from vision.correction import correct
from vision.detections import Detections
from vision.groups import Group, classify
from vision.layout import group_rows, in_reading_order


@dataclass(frozen=True)
class Reading:
    detections: Detections  # the tiles kept by the layout, in reading order
    raw_codes: tuple[str, ...]  # the detector's top class per detection
    codes: tuple[str, ...]  # the final reading per detection (after correction)
    groups: tuple[Group, ...]  # members index `detections`
    hand: Hand | None
    confidence: float
    changed: tuple[int, ...]  # detections whose code correction changed
    warnings: tuple[str, ...]

    def group_of(self) -> list[int]:
        """The group index of each detection."""
        out = [-1] * len(self.detections)
        for gi, g in enumerate(self.groups):
            for i in g.members:
                out[i] = gi
        return out

    def to_json(self) -> dict:
        """The `vision read --json` contract (one object per photo)."""
        group = self.group_of()
        conf = self.detections.confidences
        return {
            "detections": [
                {"code": self.codes[i], "raw_code": self.raw_codes[i], "conf": round(float(conf[i]), 3),
                 "box": [round(float(v), 1) for v in self.detections.boxes[i]], "group": group[i]}
                for i in range(len(self.detections))
            ],
            "groups": [{"kind": g.kind, "tiles": [self.codes[i] for i in g.members],
                        **({"win_apart": g.win_apart} if g.kind == "concealed" else {})}
                       for g in self.groups],
            "hand": self.hand.to_json() if self.hand else None,
            "confidence": round(self.confidence, 3),
            "warnings": list(self.warnings),
        }


def read_detections(dets: Detections, situation: Situation | None = None) -> Reading:
    """Everything after the detector: pure geometry and rules, testable without a model."""
    dets, layout = in_reading_order(dets, group_rows(dets))
    raw = dets.codes
    groups, group_warnings = classify(layout, raw)
    warnings = list(layout.warnings) + group_warnings
    if not len(dets):
        return Reading(dets, (), (), (), None, 0.0, (), ("no tiles found in the photo",))
    fixed = correct(dets, groups, situation)
    warnings += fixed.warnings
    for i, before, after in fixed.changed:
        warnings.append(f"tile {i + 1} read as {before}, corrected to {after} to make a legal hand")
    codes = tuple(fixed.codes.get(i, raw[i]) for i in range(len(dets)))
    return Reading(dets, tuple(raw), codes, fixed.groups, fixed.hand, fixed.confidence,
                   tuple(i for i, _, _ in fixed.changed), tuple(warnings))


def read_photo(image: np.ndarray, detector, situation: Situation | None = None) -> Reading:
    """Read a BGR photo with a `vision.detector.TileDetector`; a reading less sure of its tiles' faces
    than SURE_UPRIGHT (mean certainty) is compared with the photo read turned half a turn, and the
    turned reading is kept when it is clearly surer (by TURNED_BY), boxes mapped back to `image`'s pixels.

    A photo taken from across the table shows the tiles upside down; read as it is, it gave a legal
    but wrong hand. On the 5 committed sample photos turned half a turn, read as they were: mean
    certainty 0.37-0.79 with v2 (upright 0.57-0.97), 0.62-0.94 with v3 (upright 0.58-0.98); read
    both ways up, each reads exactly as its upright photo (tests/test_detector.py). A sure reading
    (8 of the 12 committed photos upright) skips the second read, which doubles the time,
    and so does a photo of more tiles than a hand shows (a whole set laid out, a table from above)."""
    upright = read_detections(detector.read(image), situation)
    if _sureness(upright) >= SURE_UPRIGHT or len(upright.detections) > MAX_HAND_TILES:
        return upright
    turned = read_detections(detector.read(cv2.rotate(image, cv2.ROTATE_180)), situation)
    if _sureness(turned) <= _sureness(upright) + TURNED_BY:
        return upright
    h, w = image.shape[:2]
    x1, y1, x2, y2 = turned.detections.boxes.T
    back = np.stack([w - x2, h - y2, w - x1, h - y1], axis=1).astype(np.float32)
    return replace(turned, detections=Detections(back, turned.detections.scores),
                   warnings=(UPSIDE_DOWN, *turned.warnings))


# The committed photos turned half a turn that v3 reads at 0.9 or more (6 of 12) read the same hand
# as upright, or no hand either way; upright, 8 of them read at 0.93-0.98.
SURE_UPRIGHT = 0.9
# The turned reading replaces the upright one only when it is this much surer: a hard upright photo
# (the committed sample shot at a 53° tilt: 0.58) can read a little surer turned (0.62) and wrong.
TURNED_BY = 0.05
# A winning hand shows at most 16 + 1 tiles, 4 more for kongs and 8 flowers.
MAX_HAND_TILES = 30
UPSIDE_DOWN = "the photo shows the tiles upside down (taken from across the table): read turned half a turn"


def _sureness(reading: Reading) -> float:
    return float(reading.detections.certainty.mean()) if len(reading.detections) else 0.0
