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


def row_angle(boxes: np.ndarray, min_boxes: int, coherence: float) -> float:
    """How far (degrees, -45 to 45, clockwise as shown) rows of tiles in these xyxy boxes lie turned from level or
    plumb: the mean direction from each box to its nearest neighbour, modulo 90 degrees (a row's tiles touch along
    it, stacked rows across it); 0.0 when fewer than `min_boxes` boxes, or directions less alike than `coherence`
    (the mean's length, 0-1), say."""
    if len(boxes) < min_boxes:
        return 0.0
    angle, alike = mean_direction(nearest_steps(boxes), 4)
    return angle if alike >= coherence else 0.0


def row_direction(boxes: np.ndarray, min_boxes: int, coherence: float) -> float | None:
    """Which way (degrees, -90 to 90, clockwise as shown) rows of tiles in these xyxy boxes run: the mean direction
    from each box to its nearest neighbour, modulo 180 degrees, which tells a level row from a plumb one where
    most tiles' nearest lies along their row; None when fewer than `min_boxes` boxes, or directions less alike
    than `coherence`, say (stacked rows as many as the tiles along them)."""
    if len(boxes) < min_boxes:
        return None
    angle, alike = mean_direction(nearest_steps(boxes), 2)
    return angle if alike >= coherence else None


def nearest_steps(boxes: np.ndarray, stacked_iou: float | None = None, within: float | None = None) -> np.ndarray:
    """(M, 2): each box centre's step to its nearest neighbour's centre. With `stacked_iou`, a box overlapping
    another by more (a tile stacked on another, a wall two high) is not its neighbour; with `within`, steps that
    long or longer are left out (as is a box with no neighbour)."""
    centers = (boxes[:, :2] + boxes[:, 2:]).astype(np.float64) / 2
    if len(centers) < 2:
        return np.zeros((0, 2))
    apart = np.linalg.norm(centers[:, None] - centers[None], axis=2)
    np.fill_diagonal(apart, np.inf)
    if stacked_iou is not None:
        apart[iou_matrix(boxes, boxes) > stacked_iou] = np.inf
    nearest = apart.argmin(axis=1)
    kept = apart[np.arange(len(centers)), nearest] < (np.inf if within is None else within)
    return (centers[nearest] - centers)[kept]


def mean_direction(steps: np.ndarray, fold: int) -> tuple[float, float]:
    """The mean direction (degrees, clockwise as shown) of these steps modulo 360 / `fold` (2: a row has no
    preferred way along it yet; 4: nor does it tell level from plumb), and how alike they are (the length of the
    mean of their angles times `fold` as unit vectors, 0-1)."""
    turned = fold * np.arctan2(steps[:, 1], steps[:, 0])
    sin, cos = np.sin(turned).mean(), np.cos(turned).mean()
    return float(np.degrees(np.arctan2(sin, cos)) / fold), float(np.hypot(sin, cos))


def mapped(box: tuple[float, float, float, float], affine: np.ndarray) -> tuple[float, float, float, float]:
    """An xyxy box of a turned photo in the photo's pixels (`affine`, 2x3: a turn, a scale, a shift): its centre
    mapped, its sides scaled. The box of a tile seen level stays the box of that tile, its size, as the labels of a
    row seen askew give it (where the tiles hide each other's edges), not the upright box around it turned; a turn
    nearer a quarter than level or a half (a row seen plumb) swaps its sides."""
    x1, y1, x2, y2 = box
    x, y = affine[:, :2] @ np.array([(x1 + x2) / 2, (y1 + y2) / 2]) + affine[:, 2]
    scale = np.sqrt(abs(np.linalg.det(affine[:, :2])))
    half_w, half_h = (x2 - x1) * scale / 2, (y2 - y1) * scale / 2
    if abs(affine[0, 0]) < abs(affine[1, 0]):  # |cos| < |sin|
        half_w, half_h = half_h, half_w
    return float(x - half_w), float(y - half_h), float(x + half_w), float(y + half_h)
