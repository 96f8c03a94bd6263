"""A photo into a hand: detections → layout → group kinds → legal-hand correction → `Hand`."""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from scoring.hand import Hand, Situation
from vision.correction import correct
from vision.detections import Detections, Detector
from vision.groups import Group, classify
from vision.layout import group_rows, in_reading_order
from vision.notices import Notice


@dataclass(frozen=True)
class Alternative:
    """A runner-up legal hand the photo may show: one tap for the player to take it instead."""

    codes: tuple[str, ...]  # per detection of the reading, as this alternative reads them
    groups: tuple[Group, ...]  # members index the reading's detections; kind "loose" for tiles set apart
    hand: Hand
    tai: int  # its 台 total under the situation and ruleset the photo was read with
    differs: tuple[str, ...]  # what it changes from the best reading, in words
    added: tuple[str, ...] = ()  # a tile the photo does not show that this hand supposes (a missed one)


@dataclass(frozen=True)
class Reading:
    # Every kept tile in reading order, each with its facts (`code`, `group`, `why`: vision/detections.py).
    detections: Detections
    groups: tuple[Group, ...]  # members index `detections`; kind "loose" for tiles set apart from the hand
    hand: Hand | None
    confidence: float
    warnings: tuple[Notice, ...]  # what the player should know of this reading (vision/notices.py)
    alternatives: tuple[Alternative, ...] = ()  # up to 3 runner-up hands, best first
    added: tuple[str, ...] = ()  # tiles the hand supposes that the photo does not show (a missed tile)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self.detections.codes)

    @property
    def raw_codes(self) -> tuple[str, ...]:
        return tuple(self.detections.raw_codes)

    @property
    def changed(self) -> tuple[int, ...]:
        """Detections whose code the search changed from the detector's top class."""
        return tuple(i for i, (a, b) in enumerate(zip(self.codes, self.raw_codes, strict=True)) if a != b)

    def group_of(self) -> list[int]:
        """The group index of each detection."""
        return self.detections.groups

    def to_json(self) -> dict:
        """The `vision read --json` contract (one object per photo): each detection's code, raw code,
        confidence, box, group (and `why` when set); the groups' kinds and tiles; the hand (scoring's
        JSON) or null; the tiles `added`; the confidence; the warnings, each `{"code", "text"}` (the
        English words of vision/notices.py; `params` too when it has any, tiles as codes); the
        runner-up hands."""
        d = self.detections
        conf, group, why = d.confidences, d.groups, d.whys
        return {
            "detections": [
                {"code": self.codes[i], "raw_code": self.raw_codes[i], "conf": round(float(conf[i]), 3),
                 "box": [round(float(v), 1) for v in d.boxes[i]], "group": group[i],
                 **({"why": why[i]} if why[i] else {})}
                for i in range(len(d))
            ],
            "groups": [{"kind": g.kind, "tiles": [self.codes[i] for i in g.members],
                        **({"win_apart": g.win_apart} if g.kind == "concealed" else {})}
                       for g in self.groups],
            "hand": self.hand.to_json() if self.hand else None,
            "added": list(self.added),
            "confidence": round(self.confidence, 3),
            "warnings": [w.to_json() for w in self.warnings],
            "alternatives": [{"hand": a.hand.to_json(), "tai": a.tai, "differs": list(a.differs),
                              "added": list(a.added)} for a in self.alternatives],
        }


def with_groups(dets: Detections, groups, codes) -> Detections:
    """`dets` with each tile's final code and group index set."""
    group = [-1] * len(dets)
    for gi, g in enumerate(groups):
        for i in g.members:
            group[i] = gi
    return dets.with_facts(code=list(codes), group=group)


def read_detections(dets: Detections, situation: Situation | None = None) -> Reading:
    """Everything after the detector: pure geometry and rules, testable without a model."""
    dets, layout = in_reading_order(dets, group_rows(dets))
    raw = dets.raw_codes
    groups, group_warnings = classify(layout, raw)
    warnings = list(layout.warnings) + group_warnings
    if not len(dets):
        return Reading(dets.with_facts(code=[], group=[], why=[]), (), None, 0.0, (Notice.of("no-tiles"),))
    fixed = correct(dets, groups, situation)
    warnings += fixed.warnings
    why = [""] * len(dets)
    for i, before, after in fixed.changed:
        warnings.append(Notice.of("tile-corrected", number=i + 1, before=before, after=after))
        why[i] = "legal hand"
    codes = tuple(fixed.codes.get(i, raw[i]) for i in range(len(dets)))
    return Reading(with_groups(dets, fixed.groups, codes).with_facts(why=why), fixed.groups, fixed.hand,
                   fixed.confidence, tuple(warnings))


def read_photo(image: np.ndarray, detector: Detector, situation: Situation | None = None) -> Reading:
    """Read a BGR photo with a detector (`vision.detector.TileDetector`); a reading less sure of its tiles' faces
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
    return replace(turned, detections=Detections(back, turned.detections.scores, turned.detections.data),
                   warnings=(UPSIDE_DOWN, *turned.warnings))


# The committed photos turned half a turn that v3 reads at 0.9 or more (6 of 12) read the same hand
# as upright, or no hand either way; upright, 8 of them read at 0.93-0.98.
SURE_UPRIGHT = 0.9
# The turned reading replaces the upright one only when it is this much surer: a hard upright photo
# (the committed sample shot at a 53° tilt: 0.58) can read a little surer turned (0.62) and wrong.
TURNED_BY = 0.05
# A winning hand shows at most 16 + 1 tiles, 4 more for kongs and 8 flowers.
MAX_HAND_TILES = 30
UPSIDE_DOWN = Notice.of("upside-down")


def _sureness(reading: Reading) -> float:
    return float(reading.detections.certainty.mean()) if len(reading.detections) else 0.0
