"""The synthetic scene generator: reproducible, boxes tight on what is drawn, truth consistent."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from datasets import scene
from datasets import tile_bodies as tb
from datasets.camera import apply
from datasets.generate import generate, make_sample, split_of
from datasets.printout import printout
from datasets.scene import _affine, _blend, visibility
from datasets.scene_layout import Placed, SceneGroup, SceneLayout
from datasets.styles import UNSEEN_WEIGHTS
from scoring.melds import GroupKind, GroupRole
from tests.limits import files_limited_to
from tests.shared import needs_shared
from vision.classes import CLASSES
from vision.draw import draw_boxes

ROOT = Path(__file__).resolve().parents[1]


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


@needs_shared("data", "tile-art", "xmahjongg-real", needed_for="the unseen style 'xmahjongg-real'")
@needs_shared("data", "real-crops", needed_for="the unseen style 'real-crops-held-out'")
def test_unseen_scenes_draw_only_the_held_out_styles():
    styles = {name for i in range(4) for name in make_sample(i, 11, "unseen")[2].style}
    assert styles and styles <= set(UNSEEN_WEIGHTS)


def test_val_split_is_exact():
    assert sum(split_of(i, 0.1) == "val" for i in range(1000)) == 100


def test_draw_boxes_returns_a_copy():
    img = np.zeros((50, 80, 3), np.uint8)
    out = draw_boxes(img, np.array([[5, 20, 30, 45]]), ["5m"], [True])
    assert out.shape == img.shape and out.any() and not img.any()


def _black_table(monkeypatch):
    """Scenes on a black table with no glare, occluder or printout: every bright pixel is a drawn tile."""
    monkeypatch.setattr(scene, "background", lambda rng, h, w, cam, weights: (np.zeros((h, w, 3), np.float32),
                                                                               "black"))
    monkeypatch.setattr(scene, "DEFAULT_RECIPE", replace(scene.DEFAULT_RECIPE, glare=0.0, occluder=0.0, printout=0.0))


def test_scene_boxes_cover_the_drawn_tiles(monkeypatch):
    """Render whole scenes: every drawn tile pixel lies in a label box, and each box reaches drawn
    pixels on all four sides (it is not loose around its tile)."""
    _black_table(monkeypatch)
    checked = 0
    for index in range(16):
        image, labels, truth = scene.render_scene(np.random.default_rng([4, index]))
        rows = [r for g in truth.groups for r in g.label_rows]
        if not rows or None in rows:  # negatives, and tiles too hidden or cut to be labelled
            continue
        checked += 1
        h, w = image.shape[:2]
        drawn = image.max(2) > 12
        inside = np.zeros_like(drawn)
        for _, x0, y0, x1, y1 in labels:
            a, b, c, d = int(x0), int(y0), int(np.ceil(x1)), int(np.ceil(y1))
            inside[max(0, b - 2) : d + 2, max(0, a - 2) : c + 2] = True
            sides = [drawn[b:d, a : a + 2], drawn[b:d, c - 2 : c], drawn[b : b + 2, a:c], drawn[d - 2 : d, a:c]]
            assert all(side.any() for side in sides), (index, x0, y0, x1, y1)
        assert not (drawn & ~inside).any(), index
    assert checked >= 6


def _scene_with(monkeypatch, placed):
    groups = [SceneGroup(GroupKind.UNKNOWN, [p.code], GroupRole.APART) for p in placed]
    monkeypatch.setattr(scene, "layout", lambda rng, recipe: SceneLayout("rows", None, groups, placed))


@pytest.mark.parametrize("seed", range(4))  # seed 0 has the photo rolled upside down
def test_tile_hidden_behind_a_standing_tile_is_not_labelled(monkeypatch, seed):
    _black_table(monkeypatch)
    behind, standing, apart = Placed("1m", 0, 0, -0.2, 0), Placed("2m", 1, 0, 0, 0, True), Placed("3m", 2, 3, -0.2, 0)
    _scene_with(monkeypatch, [behind, standing, apart])
    _, labels, truth = scene.render_scene(np.random.default_rng([9, seed]))
    rows = [g.label_rows[0] for g in truth.groups]
    assert rows[0] is None and None not in rows[1:]
    assert [CLASSES[labels[r][0]] for r in rows[1:]] == ["2m", "3m"]


def test_visibility_counts_what_neighbours_frame_and_occluder_hide():
    square = np.float32([[10, 10], [50, 10], [50, 50], [10, 50]])
    front = square + [0, 12]  # covers the lower 70% of the square
    sliver = square + [39, 0]  # covers 1 px of its right side
    (frac, box), _ = visibility([square, front], 100, 100, None)
    assert frac == pytest.approx(0.3, abs=0.03) and box == pytest.approx((10, 10, 50, 22), abs=1)
    (frac, box), _ = visibility([square, sliver], 100, 100, None)
    assert frac > 0.95 and box == (10, 10, 50, 50)
    (frac, box), = visibility([square - [30, 0]], 100, 100, None)
    assert frac == pytest.approx(0.5, abs=0.03) and box == (0, 10, 20, 50)
    occluder = np.zeros((100, 100), np.float32)
    occluder[:, :30] = 1
    (frac, box), = visibility([square], 100, 100, occluder)
    assert frac == pytest.approx(0.5, abs=0.03) and box == (10, 10, 50, 50)


@pytest.mark.parametrize("seed", range(3))
def test_printout_boxes_follow_the_page(monkeypatch, seed):
    """The same scene photographed directly and as a printout: each printed tile's box lies in the
    page image of its box in the direct photo (so cut tiles stay cut at the picture's edge)."""
    _black_table(monkeypatch)
    _, direct, _ = scene.render_scene(np.random.default_rng([6, seed]))
    maps = []

    def recorded(*args):
        photo, to_photo = printout(*args)
        maps.append(to_photo)
        return photo, to_photo

    monkeypatch.setattr(scene, "DEFAULT_RECIPE", replace(scene.DEFAULT_RECIPE, printout=1.0))
    monkeypatch.setattr(scene, "printout", recorded)
    _, printed, _ = scene.render_scene(np.random.default_rng([6, seed]))
    assert printed and len(maps) == 1
    for c, *box in printed:
        inside = False
        for c0, x0, y0, x1, y1 in direct:
            q = apply(maps[0], np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
            inside |= c0 == c and (q.min(0) - 1 <= box[:2]).all() and (box[2:] <= q.max(0) + 1).all()
        assert inside, (c, box)


@pytest.mark.parametrize("flags, said", [
    (["--val-fraction", "nan"], "argument --val-fraction: 'nan' is not a fraction from 0 to 1"),  # was a traceback
    (["--val-fraction", "2"], "argument --val-fraction: '2' is not a fraction from 0 to 1"),  # was accepted
    (["--size", "0"], "argument --size: '0' is not a long side in pixels from 64 to 4096"),  # a traceback
    (["--size", "-5"], "argument --size: '-5' is not a long side in pixels from 64 to 4096"),
    (["--count", "-3"], "argument --count: '-3' is not a whole number of at least 1"),  # silently nothing
    (["--seed", "-1"], "argument --seed: '-1' is not a whole number of at least 0"),  # numpy's traceback
    (["--workers", "0"], "argument --workers: '0' is not a whole number of at least 1"),
])
def test_generate_refuses_flags_out_of_range_as_a_wrong_command_line(tmp_path, flags, said):
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "datasets", "generate", str(out), "--count", "2", *flags], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and said in p.stderr and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert not out.exists()


def test_generate_into_a_file_or_onto_a_full_disk_says_so(tmp_path):
    taken = tmp_path / "a-file"
    taken.write_text("mine")
    p = subprocess.run([sys.executable, "-m", "datasets", "generate", str(taken), "--count", "2"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and p.stderr == f"error: {taken} is a file, not a folder to write the data set into\n"
    assert taken.read_text() == "mine"
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "datasets", "generate", str(out), "--count", "2", "--workers", "1"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120, preexec_fn=files_limited_to(2_000))
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert p.stderr.splitlines()[-1] == f"error: cannot write the data set to {out}: File too large"
