"""Real labelled photos made ready to train on (datasets/real_train.py): only the train split is read,
partially labelled photos are dropped, stretched photos are restored, walls of backs get labels, and
the label boxes stay on their tiles through all of it."""

import csv
import json

import cv2
import numpy as np
import pytest

from datasets.real_train import ASPECT_RANGE, Recipe, build, unstretch_factor
from vision.classes import CLASSES
from vision.detections import Detections
from vision.labels import read_labels


def write_set(root, photos):
    """A real-format set: images/<split>/*.jpg, labels/<split>/*.txt and a manifest.csv."""
    rows = []
    for name, split, boxes, manifest in photos:
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        image = np.full((200, 400, 3), 90, np.uint8)
        for _code, (x1, y1, x2, y2) in boxes:
            cv2.rectangle(image, (x1, y1), (x2, y2), (230, 230, 230), -1)
        cv2.imwrite(str(root / "images" / split / f"{name}.jpg"), image)
        lines = [f"{CLASSES.index(c)} {(x1 + x2) / 800} {(y1 + y2) / 400} {(x2 - x1) / 400} {(y2 - y1) / 200}"
                 for c, (x1, y1, x2, y2) in boxes]
        (root / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + "\n")
        rows.append({"out_image": f"images/{split}/{name}.jpg", "split": split, **manifest})
    with open(root / "manifest.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, ["out_image", "split", "median_box_aspect", "unlabelled_face_est"])
        writer.writeheader()
        writer.writerows(rows)


class WallFinder:
    """A stand-in detector that finds one back where the photo has a wall, and the labelled tile."""

    def __init__(self, backs):
        self.backs = backs

    def detect(self, image, conf=None):
        boxes = np.array(self.backs, np.float32).reshape(-1, 4)
        scores = np.zeros((len(boxes), len(CLASSES)), np.float32)
        scores[:, CLASSES.index("back")] = 0.9
        return Detections(boxes, scores)


@pytest.mark.parametrize("aspect, expected", [(0.75, 1.0), (1.0, 1.0), (3.0, ASPECT_RANGE[1] / 3.0),
                                              (0.2, ASPECT_RANGE[0] / 0.2), (float("nan"), 1.0)])
def test_unstretch_brings_the_median_box_aspect_back_into_range(aspect, expected):
    assert unstretch_factor(aspect) == pytest.approx(expected)


def test_build_reads_train_only_drops_partial_photos_restores_aspect_and_adds_backs(tmp_path):
    src = tmp_path / "some-set"
    tile = [("5m", (100, 50, 140, 100))]
    write_set(src, [
        ("plain", "train", tile, {"median_box_aspect": "0.8", "unlabelled_face_est": "0"}),
        ("stretched", "train", tile, {"median_box_aspect": "2.7", "unlabelled_face_est": "2"}),
        ("partial", "train", tile, {"median_box_aspect": "0.8", "unlabelled_face_est": "12"}),
        ("held-out", "test", tile, {"median_box_aspect": "0.8", "unlabelled_face_est": "0"}),
    ])
    # one back on the bare table, one on the labelled tile (a label covers it: not added)
    detector = WallFinder([(300, 20, 330, 60), (100, 50, 140, 100)])
    out = tmp_path / "out"
    summary = build([src], out, Recipe(size=200), detector)
    counts = summary["sets"]["some-set"]
    assert counts == {"photos": 3, "kept": 2, "dropped_partial": 1, "dropped_one_code": 0, "unstretched": 1,
                      "backs_added": 2, "boxes_dropped": 0, "relabelled": 0, "boxes": 4}
    written = sorted(p.name for p in (out / "images" / "train").iterdir())
    assert written == ["some-set-plain.webp", "some-set-stretched.webp"]
    plain = cv2.imread(str(out / "images" / "train" / "some-set-plain.webp"))
    stretched = cv2.imread(str(out / "images" / "train" / "some-set-stretched.webp"))
    assert plain.shape[:2] == (100, 200)
    assert stretched.shape[1] / stretched.shape[0] == pytest.approx(2 * ASPECT_RANGE[1] / 2.7, rel=0.02)
    boxes, codes = read_labels(out / "labels" / "train" / "some-set-plain.txt", 200, 100)
    assert codes == ["5m", "back"]
    np.testing.assert_allclose(boxes, [[50, 25, 70, 50], [150, 10, 165, 30]], atol=0.01)
    # the tile is still under its box after the photo is resized
    x1, y1, x2, y2 = boxes[0].astype(int)
    assert plain[y1 + 3:y2 - 3, x1 + 3:x2 - 3].mean() > 200
    recipe = json.loads((out / "recipe.json").read_text())
    assert recipe["recipe"]["size"] == 200 and recipe["sets"]["some-set"] == counts
    assert "val: images/train" in (out / "data.yaml").read_text()


def test_a_photo_whose_every_label_is_one_code_is_not_trained_on(tmp_path):
    """A labeller who gave every tile of a photo 1p would teach 1p for every tile; five 5m of one set's four are kept
    when they are not all: a wall of backs is one code rightly."""
    src = tmp_path / "some-set"
    row = [(60 * k + 10, 50, 60 * k + 50, 100) for k in range(6)]
    fine = {"median_box_aspect": "0.8", "unlabelled_face_est": "0"}
    write_set(src, [("all-1p", "train", [("1p", b) for b in row], fine),
                    ("mixed", "train", [("5m", b) for b in row[:5]] + [("6m", row[5])], fine),
                    ("wall", "train", [("back", b) for b in row], fine)])
    counts = build([src], tmp_path / "out", Recipe(size=200))["sets"]["some-set"]
    assert (counts["photos"], counts["kept"], counts["dropped_one_code"]) == (3, 2, 1)
    assert sorted(p.name for p in (tmp_path / "out" / "images" / "train").iterdir()) == [
        "some-set-mixed.webp", "some-set-wall.webp"]
