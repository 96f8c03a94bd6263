"""Box geometry (vision.boxes), YOLO label files (vision.labels) and data sets (datasets.yolo), shared by
checker, evaluation and audit."""

import numpy as np
import pytest

from datasets.yolo import image_labels
from vision.boxes import iou_matrix, match, pairwise_iou
from vision.labels import LabelError, read_labels, yolo_lines


def test_iou_between_two_sets_and_pairwise():
    a = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]], float)
    assert np.allclose(pairwise_iou(a), [[1, 1 / 3, 0], [1 / 3, 1, 0], [0, 0, 1]])
    b = np.array([[0, 0, 10, 5], [3, 3, 3, 3]], float)  # half of the first box; an empty box
    assert np.allclose(iou_matrix(a, b), [[0.5, 0], [0.2, 0], [0, 0]])
    assert iou_matrix(a, np.zeros((0, 4))).shape == (3, 0)


def test_match_is_one_to_one_best_overlap_first():
    truth = np.array([[0, 0, 10, 10], [10, 0, 20, 10]], float)
    pred = np.array([[1, 0, 11, 10], [0, 0, 10, 10], [30, 30, 40, 40]], float)
    # pred 1 is the better box for truth 0; pred 0 is left for truth 1 only if it overlaps enough
    assert match(truth, pred) == {0: 1}
    assert match(truth, pred, iou=0.05) == {0: 1, 1: 0}
    assert match(truth, np.zeros((0, 4))) == {}


def test_label_file_round_trip_and_errors(tmp_path):
    boxes = np.array([[10, 20, 30, 60], [50, 0, 70, 40]], float)
    label = tmp_path / "a.txt"
    label.write_text("\n".join(yolo_lines(boxes, ["1m", "back"], 100, 80)) + "\n\n")
    got, codes = read_labels(label, 100, 80)
    assert codes == ["1m", "back"] and np.allclose(got, boxes, atol=1e-3)
    label.write_text("0 0.5 0.5 0.1 0.1\n43 0.5 0.5 0.1 0.1\n")
    with pytest.raises(LabelError, match=r"a.txt:2: class 43"):
        read_labels(label, 100, 80)
    label.write_text("0 0.5 0.5 0.1\n")
    with pytest.raises(LabelError, match="4 fields"):
        read_labels(label, 100, 80)


@pytest.mark.parametrize("image, label", [
    ("images/train/a.jpg", "labels/train/a.txt"),  # ultralytics
    ("valid/images/a.jpg", "valid/labels/a.txt"),  # Roboflow export
    ("photos/a.jpg", "photos/a.txt"),  # labels beside the images
])
def test_image_labels_in_every_layout(tmp_path, image, label):
    for rel in (image, label, "images/train/unlabelled.jpg"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"")
    assert sorted(image_labels(tmp_path)) == sorted([(tmp_path / image, tmp_path / label),
                                                     (tmp_path / "images/train/unlabelled.jpg", None)])
