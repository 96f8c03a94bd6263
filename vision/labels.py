"""A photo's tile labels in YOLO's format: one line `class cx cy w h` per tile, its box centre and size
normalised to the photo, the class an index of our 43 (vision/classes.py). `python -m vision remember`
reads one; the data sets (datasets/yolo.py), the app's saved corrections and the evaluations read and
write them.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from scoring.hand import brief
from vision.classes import CLASS_INDEX, CLASSES


class LabelError(ValueError):
    """A label file that cannot be read as tile boxes (`python -m datasets check` says why)."""


def parse_line(text: str) -> tuple[int, float, float, float, float] | str:
    """(class id, cx, cy, w, h) or a reason the line is malformed; the class id is not range-checked."""
    fields = text.split()
    if len(fields) != 5:
        return f"{len(fields)} fields, expected 5 (class cx cy w h)"
    try:
        cls = int(fields[0])
    except ValueError:
        return f"class {brief(fields[0])} is not an integer"
    try:
        values = [float(v) for v in fields[1:]]
    except ValueError:
        return "coordinates are not numbers"
    if not all(math.isfinite(v) for v in values):
        return "coordinates are not finite"
    cx, cy, w, h = values
    return cls, cx, cy, w, h


def to_xyxy(cx: float, cy: float, w: float, h: float, width: int, height: int) -> np.ndarray:
    """A normalised centre/size box as x1 y1 x2 y2 pixels of a width x height image."""
    return np.array([(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height])


def read_labels(label: Path, width: int, height: int) -> tuple[np.ndarray, list[str]]:
    """A label file as (boxes xyxy in pixels as float32, codes); LabelError on a bad line or class."""
    boxes, codes = [], []
    for n, text in enumerate(Path(label).read_text().splitlines(), 1):
        if not text.strip():
            continue
        parsed = parse_line(text)
        if isinstance(parsed, str):
            raise LabelError(f"{label}:{n}: {parsed}")
        cls, cx, cy, w, h = parsed
        if not 0 <= cls < len(CLASSES):
            raise LabelError(f"{label}:{n}: class {cls} is not in 0..{len(CLASSES) - 1}")
        boxes.append(to_xyxy(cx, cy, w, h, width, height))
        codes.append(CLASSES[cls])
    return np.array(boxes, np.float32).reshape(-1, 4), codes


def yolo_lines(boxes: np.ndarray, codes: list[str | None], width: int, height: int) -> list[str]:
    """`class cx cy w h` (normalised to the image) for every box with a code; None codes are skipped."""
    lines = []
    for (x0, y0, x1, y1), code in zip(np.asarray(boxes, np.float64).reshape(-1, 4), codes, strict=True):
        if code is None:
            continue
        x0, x1 = np.clip([x0, x1], 0, width)
        y0, y1 = np.clip([y0, y1], 0, height)
        lines.append(f"{CLASS_INDEX[code]} {(x0 + x1) / 2 / width:.6f} {(y0 + y1) / 2 / height:.6f} "
                     f"{(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}")
    return lines
