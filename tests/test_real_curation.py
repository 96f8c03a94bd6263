"""datasets.real_curation on a small hand-made real-format set: which photos and label lines it drops,
and `datasets real-train` leaving them out."""

import csv
import json

import cv2
import numpy as np
import pytest

from datasets.real import REAL_LABELLED, REAL_SETS
from datasets.real_curation import CURATION, NOT_PARTIAL, curate_set
from datasets.real_train import Recipe, build
from tests.shared import needs_shared
from vision.classes import CLASSES

FIELDS = ["out_image", "split", "median_box_aspect", "unlabelled_face_est"]
ROW = "0 0.1 0.5 0.05 0.1"  # a 1m box on the left
NEXT = "1 0.2 0.5 0.05 0.1"  # a 2m box beside it


def fake_set(root, photos: dict[str, tuple[str, float, int, list[str]]]):
    """photos: name → (split, median box w/h, unlabelled_face_est, label lines)."""
    rows = []
    for name, (split, aspect, est, lines) in photos.items():
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(root / "images" / split / f"{name}.jpg"), np.full((48, 64, 3), 90, np.uint8))
        (root / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + "\n")
        rows.append({"out_image": f"images/{split}/{name}.jpg", "split": split, "median_box_aspect": aspect,
                     "unlabelled_face_est": est})
    with open(root / "manifest.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    return root


def flags(image: str, n: int, read: str = "3p", confidence: float = 0.6) -> list[dict]:
    return [{"kind": "unlabelled", "image": f"images/train/{image}.jpg", "read": read, "confidence": confidence}] * n


def test_drops_photos_with_many_unboxed_face_up_tiles_by_either_count_unless_the_eye_found_them_complete(
        tmp_path, monkeypatch):
    root = fake_set(tmp_path, {
        "table": ("train", 0.8, 12, [ROW]),  # both counts agree: dropped
        "far-pile": ("train", 0.8, 12, [ROW]),  # the audit read at the rack's scale and missed the pile
        "near-pile": ("train", 0.8, 2, [ROW]),  # the manifest's one pass missed what the audit found
        "walls": ("train", 0.8, 3, [ROW]),  # backs and weak reads do not count: kept
        "keys": ("train", 0.8, 14, [ROW]),  # a keyboard counted as tiles, seen on the sheet: kept
        "squashed": ("train", 0.15, 0, [ROW]),  # stretched: real-train restores it, kept
        "val-table": ("val", 0.8, 30, [ROW]),  # val photos are never dropped
    })
    monkeypatch.setitem(NOT_PARTIAL, ("cmd", "images/train/keys.jpg"), "a keyboard")
    unlabelled = (flags("table", 11) + flags("near-pile", 10) + flags("walls", 12, read="back")
                  + flags("walls", 12, confidence=0.05))
    images, lines = curate_set("cmd", root, {"images": 6, "flags": unlabelled})
    assert [d["image"] for d in images] == [f"images/train/{n}.jpg" for n in ("table", "far-pile", "near-pile")]
    assert images[0]["reason"].startswith("face-up tiles left unboxed: 12 by the manifest's estimate, 11 by the audit")
    assert lines == []


def test_a_tile_boxed_twice_loses_the_later_line_and_two_codes_on_one_tile_need_a_reading(tmp_path):
    root = fake_set(tmp_path, {"twice": ("train", 0.8, 0, [ROW, NEXT, "", ROW])})
    (_, lines) = curate_set("cmd", root, {"images": 1, "flags": []})
    assert [(d["label"], d["line"]) for d in lines] == [("labels/train/twice.txt", 4)]  # blank line 3 counted
    (root / "labels/train/twice.txt").write_text(f"{ROW}\n0{NEXT[1:]}\n5 0.1 0.5 0.05 0.1\n")  # 1m and 6m on one tile
    with pytest.raises(ValueError, match="WRONG_OF_TWO"):
        curate_set("cmd", root, {"images": 1, "flags": []})


def test_an_audit_of_part_of_the_train_split_is_refused(tmp_path):
    root = fake_set(tmp_path, {"a": ("train", 0.8, 0, [ROW]), "b": ("train", 0.8, 0, [ROW])})
    with pytest.raises(ValueError, match="read 1 images; its train split has 2"):
        curate_set("cmd", root, {"images": 1, "flags": []})


def test_real_train_follows_the_curation_where_it_covers_a_set(tmp_path, monkeypatch):
    root = fake_set(tmp_path / "cmd", {
        "twice": ("train", 0.8, 0, [ROW, NEXT, ROW]),  # the 1m boxed twice: its line 3 goes
        "table": ("train", 0.8, 12, [ROW]),  # unboxed tiles, confirmed: dropped
        "keyboard": ("train", 0.8, 12, [ROW]),  # the manifest counted keys: kept by eye
    })
    monkeypatch.setitem(NOT_PARTIAL, ("cmd", "images/train/keyboard.jpg"), "a keyboard")
    images, lines = curate_set("cmd", root, {"images": 3, "flags": flags("table", 10)})
    relabel = [{"set": "cmd", "image": "images/train/twice.jpg", "box": 1, "to": "9m"}]  # its 2m is a 九萬
    curation = {"sets": ["cmd"], "drop_images": images, "drop_lines": lines, "relabel": relabel}
    summary = build([root], tmp_path / "out", Recipe(size=64), None, curation)
    assert summary["curated_sets"] == ["cmd"]
    counts = summary["sets"]["cmd"]
    assert (counts["kept"], counts["dropped_partial"], counts["boxes_dropped"], counts["relabelled"],
            counts["boxes"]) == (2, 1, 1, 1, 3)
    assert sorted(p.name for p in (tmp_path / "out/labels/train").iterdir()) == ["cmd-keyboard.txt", "cmd-twice.txt"]
    assert [line.split()[0] for line in (tmp_path / "out/labels/train/cmd-twice.txt").read_text().splitlines()] == [
        "0", "8"]
    # a set the curation does not cover keeps the manifest's own rule
    assert build([root], tmp_path / "out", Recipe(size=64), None, None)["sets"]["cmd"]["dropped_partial"] == 2


@needs_shared("data", "real-labelled", needed_for="the committed curation's check against the real sets")
def test_the_committed_curation_names_real_train_photos_and_lines():
    committed = json.loads(CURATION.read_text())
    for d in committed["drop_images"]:
        assert d["set"] in REAL_SETS and d["image"].startswith("images/train/")
        assert (REAL_LABELLED / d["set"] / d["image"]).is_file()
    for d in committed["drop_lines"] + committed["relabel"]:
        assert not d["label"].startswith("labels/test/") and d["image"].startswith("images/")
        lines = (REAL_LABELLED / d["set"] / d["label"]).read_text().splitlines()
        assert [n for n, text in enumerate(lines, 1) if text.strip()][d["box"]] == d["line"]
    for d in committed["relabel"]:  # the label files still say what the curation corrects
        line = (REAL_LABELLED / d["set"] / d["label"]).read_text().splitlines()[d["line"] - 1]
        assert CLASSES[int(line.split()[0])] == d["from"]
