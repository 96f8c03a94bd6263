"""Crops of one physical set seen in several photos (training/set_views.py), for the within-set loss: each set's
faces together and labelled, from the training styles' sets, reproducible from the seed; bad input refused."""

import subprocess
import sys
from pathlib import Path

import numpy as np

from training import set_views
from vision.classes import CLASS_INDEX
from vision.crop_classifier import CROP_H, CROP_W

REPO = Path(__file__).resolve().parents[1]


def test_each_sets_faces_come_together_from_several_photos_and_repeat_from_the_seed(monkeypatch):
    drawn = []
    real_pick = set_views.pick_style
    monkeypatch.setattr(set_views, "pick_style", lambda rng, which: drawn.append(which) or real_pick(rng, which))
    x, y, group = set_views.set_views(2, 2, seed=4)
    assert drawn == ["train", "train"]  # the held-out designs are never drawn
    assert x.shape == (len(y), CROP_H, CROP_W, 3) and x.dtype == np.uint8 and len(y) >= 2 * 2 * 14
    assert list(group) == sorted(group) and set(group) == {0, 1}
    assert CLASS_INDEX["back"] not in set(y)  # a face-down tile tells no tile from another
    assert all(np.bincount(y[group == k]).max() >= 2 for k in (0, 1))  # a tile seen again: something to be like
    again = set_views.set_views(2, 2, seed=4)
    assert np.array_equal(x, again[0]) and np.array_equal(y, again[1])


def test_the_command_refuses_a_set_seen_once(tmp_path):
    done = subprocess.run([sys.executable, "-m", "training.set_views", "--sets", "1", "--photos", "1", "--out",
                           str(tmp_path / "s.npz")], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "--photos at least 2" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "s.npz").exists()
