"""Detection metrics in numpy (no torch): average precision over IoU thresholds, per-class precision
and recall at a confidence, and a confusion matrix of codes.

AP is all-point interpolated: the area under the precision-recall curve after precision is made
non-increasing from the right (the VOC 2010+ rule; ultralytics samples the same envelope at 101
recall points, so its figures differ in the third decimal). Detections are matched to labels of
their own class in order of falling confidence, each to the unmatched label it overlaps most at
or above the IoU threshold, as COCO does. mAP is the mean over classes that have labels.
"""

from __future__ import annotations

import numpy as np

from vision.boxes import iou_matrix, match

IOU_THRESHOLDS = np.round(np.linspace(0.5, 0.95, 10), 2)


def average_precision(recall: np.ndarray, precision: np.ndarray) -> float:
    """All-point interpolated AP of a precision-recall curve ordered by falling confidence."""
    r = np.concatenate([[0.0], recall, [1.0]])
    p = np.concatenate([[1.0], precision, [0.0]])
    p = np.maximum.accumulate(p[::-1])[::-1]
    steps = np.nonzero(r[1:] != r[:-1])[0]
    return float(np.sum((r[steps + 1] - r[steps]) * p[steps + 1]))


def true_positives(det_boxes: np.ndarray, det_classes: np.ndarray, det_scores: np.ndarray,
                   true_boxes: np.ndarray, true_classes: np.ndarray,
                   thresholds: np.ndarray = IOU_THRESHOLDS) -> np.ndarray:
    """(detections, thresholds) bool: is each detection of one image a true positive at each IoU?"""
    tp = np.zeros((len(det_boxes), len(thresholds)), bool)
    if not len(det_boxes) or not len(true_boxes):
        return tp
    iou = iou_matrix(det_boxes, true_boxes)
    iou[np.asarray(det_classes)[:, None] != np.asarray(true_classes)[None, :]] = 0.0
    for t, threshold in enumerate(thresholds):
        taken = np.zeros(len(true_boxes), bool)
        for d in np.argsort(-np.asarray(det_scores), kind="stable"):
            candidates = np.where(taken, 0.0, iou[d])
            best = int(candidates.argmax())
            if candidates[best] >= threshold:
                tp[d, t] = taken[best] = True
    return tp


def ap_per_class(tp: np.ndarray, scores: np.ndarray, classes: np.ndarray, true_counts: np.ndarray) -> np.ndarray:
    """(classes, thresholds) AP from the true-positive table of every detection in a data set;
    NaN for a class without labels."""
    ap = np.full((len(true_counts), tp.shape[1]), np.nan)
    for c in np.nonzero(true_counts)[0]:
        mine = np.nonzero(classes == c)[0]
        mine = mine[np.argsort(-scores[mine], kind="stable")]
        if not len(mine):
            ap[c] = 0.0
            continue
        hits = np.cumsum(tp[mine], axis=0)
        precision = hits / np.arange(1, len(mine) + 1)[:, None]
        recall = hits / true_counts[c]
        ap[c] = [average_precision(recall[:, t], precision[:, t]) for t in range(tp.shape[1])]
    return ap


def confusion(det_boxes: np.ndarray, det_classes: np.ndarray, true_boxes: np.ndarray, true_classes: np.ndarray,
              n_classes: int, iou: float = 0.5) -> np.ndarray:
    """(n + 1, n + 1) counts for one image: rows the labelled class, columns the class read.

    Boxes are paired whatever their classes (IoU at or above `iou`, best first); the last row
    counts detections with no label, the last column labels with no detection.
    """
    out = np.zeros((n_classes + 1, n_classes + 1), np.int64)
    pairs = match(true_boxes, det_boxes, iou)
    for t, d in pairs.items():
        out[true_classes[t], det_classes[d]] += 1
    for t in set(range(len(true_boxes))) - pairs.keys():
        out[true_classes[t], n_classes] += 1
    for d in set(range(len(det_boxes))) - set(pairs.values()):
        out[n_classes, det_classes[d]] += 1
    return out
