"""The photo reading next to the player's draft: what each box is now, and which boxes to flag."""

from __future__ import annotations

import hashlib

import numpy as np

from ui.draft import Draft
from vision.classes import BACK
from vision.detections import UNSURE_BELOW
from vision.draw import draw_boxes

REMOVED = "x"  # drawn on a box whose tile the player removed from the hand


def photo_id(data: bytes) -> str:
    """Names an uploaded photo by its bytes: the same photo is read once, and saved under one name."""
    return hashlib.sha256(data).hexdigest()[:16]


def box_codes(reading, draft: Draft) -> list[str | None]:
    """The class of each detection as the player has it now: the code of the draft tile holding
    it (a face-down tile stays `back`), or None when the player removed that tile."""
    codes: list[str | None] = [None] * len(reading.detections)
    for slot in draft.all_slots():
        if slot.det is not None and slot.det < len(codes):
            codes[slot.det] = BACK if reading.codes[slot.det] == BACK else slot.code
    return codes


def flagged(reading, draft: Draft) -> list[bool]:
    """Boxes to highlight: the reader was unsure, correction changed the tile, or the player did."""
    now = box_codes(reading, draft)
    sure = reading.detections.certainty
    changed = set(reading.changed)
    return [bool(sure[i] < UNSURE_BELOW) or i in changed or now[i] != reading.codes[i] for i in range(len(now))]


def annotate(image: np.ndarray, reading, draft: Draft) -> np.ndarray:
    """The photo (BGR) with each box and its current code; flagged boxes in the highlight colour."""
    labels = [REMOVED if c is None else c for c in box_codes(reading, draft)]
    return draw_boxes(image, reading.detections.boxes, labels, flagged(reading, draft))
