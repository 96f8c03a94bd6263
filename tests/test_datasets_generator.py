"""The synthetic scene generator: reproducible, boxes tight on what is drawn, truth consistent."""

import json

import numpy as np
import pytest
import yaml

from datasets import tile_bodies as tb
from datasets.camera import apply
from datasets.generate import generate, make_sample, split_of
from datasets.scene import _affine, _blend
from vision.classes import CLASSES
from vision.draw import draw_boxes


def test_same_seed_same_bytes():
    assert make_sample(3, 7) == make_sample(3, 7)
    assert make_sample(3, 7)[0] != make_sample(4, 7)[0]


@pytest.mark.parametrize("angle,persp", [(0, 0.0), (17, 0.0004), (-65, 0.001)])
def test_box_of_warped_outline_is_tight_on_drawn_pixels(angle, persp):
    top = tb.body_top(np.float32([230, 240, 250]), None, 0.9)
    sprite = tb.with_thickness(top, tb.scene_palette(np.random.default_rng(0)), 0.3, False, False)
    M = _affine(200, 150, angle, 0.4) @ _affine(-60, -90)
    M[2, :2] = [persp, persp / 2]
    img = np.zeros((300, 400, 3), np.float32)
    poly = apply(M, tb.hull(sprite))
    _blend(img, sprite, M, poly, 1.0)
    ys, xs = np.nonzero(img.max(2) > 60)
    drawn = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
    box = np.concatenate([poly.min(0), poly.max(0)])
    assert np.abs(drawn - box).max() <= 1.5


def test_generated_set_layout_and_truth(tmp_path):
    generate(tmp_path, 12, seed=5, workers=1)
    data = yaml.safe_load((tmp_path / "data.yaml").read_text())
    assert list(data["names"].values()) == list(CLASSES)
    images = sorted(tmp_path.glob("images/*/*.jpg"))
    assert len(images) == 12 and len(list(tmp_path.glob("images/val/*.jpg"))) == 1
    for img in images:
        split, stem = img.parent.name, img.stem
        rows = (tmp_path / "labels" / split / f"{stem}.txt").read_text().splitlines()
        truth = json.loads((tmp_path / "scenes" / split / f"{stem}.json").read_text())
        for line in rows:
            c, *xywh = line.split()
            assert 0 <= int(c) < len(CLASSES)
            assert all(0 <= float(v) <= 1 for v in xywh)
        seen = []
        for group in truth["groups"]:
            assert len(group["label_rows"]) == len(group["tiles"])
            for code, row in zip(group["tiles"], group["label_rows"], strict=True):
                if row is not None:
                    assert CLASSES[int(rows[row].split()[0])] == code
                    seen.append(row)
        assert sorted(seen) == list(range(len(rows)))


def test_val_split_is_exact():
    assert sum(split_of(i, 0.1) == "val" for i in range(1000)) == 100


def test_draw_boxes_returns_a_copy():
    img = np.zeros((50, 80, 3), np.uint8)
    out = draw_boxes(img, np.array([[5, 20, 30, 45]]), ["5m"], [True])
    assert out.shape == img.shape and out.any() and not img.any()
