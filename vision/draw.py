"""Boxes and tile codes drawn on a photo (cv2 only: the codes are ASCII)."""

import cv2
import numpy as np

NORMAL, HIGHLIGHT, DIMMED = (0, 200, 0), (0, 0, 255), (150, 150, 150)  # BGR


def draw_boxes(
    image: np.ndarray,
    boxes: np.ndarray,
    labels: list[str],
    highlight: list[bool] | None = None,
    dimmed: list[bool] | None = None,
) -> np.ndarray:
    """A copy of a BGR image with xyxy pixel boxes and their labels; highlighted boxes in red,
    dimmed ones (tiles that are not part of the hand) in grey."""
    out = image.copy()
    scale = max(0.3, min(out.shape[:2]) / 1600)
    thick = max(1, round(min(out.shape[:2]) / 500))
    for i, (box, label) in enumerate(zip(np.asarray(boxes).reshape(-1, 4), labels, strict=True)):
        colour = (HIGHLIGHT if highlight is not None and highlight[i]
                  else DIMMED if dimmed is not None and dimmed[i] else NORMAL)
        x0, y0, x1, y1 = (int(round(v)) for v in box)
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, thick)
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        ty = y0 - 2 if y0 - th - base >= 0 else y1 + th + 2
        cv2.rectangle(out, (x0, ty - th - 1), (x0 + tw + 1, ty + base - 1), colour, -1)
        cv2.putText(out, label, (x0 + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (255, 255, 255), 1, cv2.LINE_AA)
    return out
