"""Box geometry shared by the checker, the evaluation and the audit: IoU and one-to-one matching.

Boxes are (N, 4) arrays of x1 y1 x2 y2, as in `Detections.boxes`.
"""

from __future__ import annotations

import numpy as np


def areas(boxes: np.ndarray) -> np.ndarray:
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    return np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1], 0, None)


def intersections(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) areas of the overlap of each box of `a` with each of `b`."""
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    top_left = np.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = np.minimum(a[:, None, 2:], b[None, :, 2:])
    return np.prod(np.clip(bottom_right - top_left, 0, None), axis=2)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) IoU between two box sets; 0 where both boxes are empty."""
    inter = intersections(a, b)
    union = areas(a)[:, None] + areas(b)[None, :] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


def intersection_over_area(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) share of each box of `a` that each box of `b` covers; 0 for an empty box of `a`."""
    inter = intersections(a, b)
    area = areas(a)[:, None]
    return np.divide(inter, area, out=np.zeros_like(inter), where=area > 0)


def pairwise_iou(boxes: np.ndarray) -> np.ndarray:
    """(N, N) IoU of every box with every other (and 1 with itself unless empty)."""
    return iou_matrix(boxes, boxes)


def match(a: np.ndarray, b: np.ndarray, iou: float = 0.5) -> dict[int, int]:
    """Greedy one-to-one matching by IoU, best overlap first: index in `a` → index in `b`.

    Only pairs with IoU at or above `iou` are matched; classes play no part.
    """
    m = iou_matrix(a, b)
    rows, cols = np.nonzero(m >= iou)
    order = np.lexsort((cols, rows, -m[rows, cols]))  # highest IoU first, ties by index
    out: dict[int, int] = {}
    used: set[int] = set()
    for i, j in zip(rows[order].tolist(), cols[order].tolist(), strict=True):
        if i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out
