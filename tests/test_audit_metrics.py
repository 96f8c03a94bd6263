"""AP, per-class true positives and the confusion matrix of the audit, against hand-computed cases."""

import numpy as np
import pytest

from datasets.metrics import IOU_THRESHOLDS, ap_per_class, average_precision, confusion, true_positives

# Three labelled 1m tiles (class 0) and five detections, by falling score:
LABELS = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], float)
DETS = np.array([
    [0, 0, 10, 10],  # .9 1m on label 0: a hit at every IoU
    [100, 100, 110, 110],  # .8 1m on nothing: a false positive
    [20, 0, 30, 8.2],  # .7 1m on label 1 at IoU 0.82: a hit up to IoU 0.8, a miss above
    [40, 0, 50, 10],  # .6 read as 2m (class 1) on label 2: a false positive for 2m, label 2 unfound
    [0, 0, 10, 10],  # .5 1m on label 0 again: a duplicate, so a false positive
], float)
SCORES = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
CLASSES = np.array([0, 0, 0, 1, 0])


def test_all_point_average_precision():
    # precision 1 up to recall 0.5, then 0.5 up to recall 1
    assert average_precision(np.array([0.5, 1.0]), np.array([1.0, 0.5])) == pytest.approx(0.75)
    # a dip is filled by the later, higher precision (the envelope)
    assert average_precision(np.array([0.5, 0.5, 1.0]), np.array([1.0, 0.5, 2 / 3])) == pytest.approx(0.5 + 1 / 3)
    assert average_precision(np.zeros(0), np.zeros(0)) == 0.0


def test_hand_computed_map():
    tp = true_positives(DETS, CLASSES, SCORES, LABELS, np.zeros(3, int))
    loose = IOU_THRESHOLDS <= 0.8
    assert tp[:, loose].T.tolist() == [[True, False, True, False, False]] * loose.sum()
    assert tp[:, ~loose].T.tolist() == [[True, False, False, False, False]] * (~loose).sum()
    ap = ap_per_class(tp, SCORES, CLASSES, np.array([3, 0]))
    # IoU <= 0.8: precision 1, 1/2, 2/3, 2/4 at recall 1/3, 1/3, 2/3, 2/3 -> 1/3 * 1 + 1/3 * 2/3 = 5/9
    # IoU > 0.8: only the first is a hit -> 1/3
    assert ap[0, loose] == pytest.approx([5 / 9] * loose.sum())
    assert ap[0, ~loose] == pytest.approx([1 / 3] * (~loose).sum())
    assert np.isnan(ap[1]).all()  # no 2m labels: not part of the mean
    assert np.nanmean(ap) == pytest.approx((7 * 5 / 9 + 3 / 3) / 10)


def test_a_class_with_labels_and_no_detections_has_zero_ap():
    ap = ap_per_class(np.zeros((1, 10), bool), np.array([0.9]), np.array([1]), np.array([2, 1]))
    assert (ap[0] == 0).all() and (ap[1] == 0).all()


def test_confusion_pairs_boxes_whatever_the_codes():
    m = confusion(DETS, CLASSES, LABELS, np.zeros(3, int), n_classes=2)
    assert m.tolist() == [[2, 1, 0],  # 1m labels: read 1m twice, 2m once
                          [0, 0, 0],
                          [2, 0, 0]]  # the stray and the duplicate 1m: no label
