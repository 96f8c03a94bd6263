"""The data-set audit: the flags on hand-made detections, then label errors planted in a generated
set, which the audit on the committed model must rank at the top; the CLI and its HTML report."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.audit import ImageAudit, audit, find_flags, summarise
from datasets.audit_report import label_picture, reading_picture, thumbnail, write_html
from datasets.generate import generate
from datasets.yolo import image_labels, read_labels, yolo_lines
from vision.boxes import iou_matrix
from vision.classes import CLASS_INDEX, CLASSES
from vision.detections import Detections
from vision.detector import MODELS_DIR, TileDetector
from vision.photo import load_photo

ROOT = Path(__file__).resolve().parents[1]
MODELS = MODELS_DIR
needs_model = pytest.mark.skipif(not (MODELS / "model.json").exists(),
                                 reason="no committed model (models/model.json) to audit with")
PLANTED_PER_KIND = 4
TOP_K_PER_PLANTED = 2  # every planted error must be among the top 2 x (number planted) flags


def dets(*rows) -> Detections:
    """Detections from (box, {code: score}) rows."""
    scores = np.zeros((len(rows), len(CLASSES)), np.float32)
    for i, (_, by_code) in enumerate(rows):
        for code, score in by_code.items():
            scores[i, CLASS_INDEX[code]] = score
    return Detections(np.array([box for box, _ in rows], np.float32).reshape(-1, 4), scores)


LABELS = np.array([[0, 0, 10, 14], [10, 0, 20, 14], [20, 0, 30, 14], [60, 0, 70, 14], [30, 0, 40, 14]], float)
CODES = ["1m", "2m", "3m", "4m", "5m"]
FOUND = dets(
    ([0, 0, 10, 14], {"1m": 0.9}),  # agrees
    ([10, 0, 20, 14], {"2p": 0.8, "2m": 0.05}),  # 2m read as 2p
    ([25, 0, 35, 14], {"3m": 0.9, "4m": 0.1}),  # 3m's tile is half a tile off its label
    ([60, 0, 70, 14], {"4m": 0.1}),  # too weak to count as read: 4m unseen
    ([80, 0, 90, 14], {"7z": 0.7}),  # a tile with no label
    ([32, 0, 42, 14], {"5m": 0.95}),  # 5m found a little off (IoU 0.67)
)


def test_each_kind_of_flag_and_its_suspicion():
    labels, codes, found = LABELS, CODES, FOUND
    flags = find_flags("a.jpg", labels, codes, found, conf=0.25)
    got = sorted((f.kind, f.label, f.detection, round(f.suspicion, 3)) for f in flags)
    assert got == sorted([
        ("wrong-class", 1, 1, 0.75),
        ("shifted", 2, 2, round(0.9 * (1 - 1 / 3), 3)),
        ("missed", 3, None, 0.9),
        ("unlabelled", None, 4, 0.7),
        ("shifted", 4, 5, round(0.95 * (1 - 8 / 12), 3)),
    ])
    wrong = next(f for f in flags if f.kind == "wrong-class")
    assert (wrong.labelled, wrong.read, wrong.message) == ("2m", "2p", "labelled 2m, read as 2p (0.80)")
    assert find_flags("b.jpg", labels[:1], codes[:1], found[[0]], conf=0.25) == []
    assert [f.kind for f in find_flags("c.jpg", np.zeros((0, 4)), [], found[[4]], conf=0.25)] == ["unlabelled"]


def test_pictures_and_html_report_of_hand_made_audit(tmp_path):
    path = tmp_path / "a.jpg"
    cv2.imwrite(str(path), np.full((40, 100, 3), 120, np.uint8))
    item = ImageAudit(path, "a.jpg", LABELS, CODES, FOUND, 0.25, find_flags("a.jpg", LABELS, CODES, FOUND, 0.25))
    result = summarise(str(tmp_path), "hand-made", 0.25, [item], [("b.jpg", "no label file")])
    assert [f.kind for f in result.flags] == ["missed", "wrong-class", "unlabelled", "shifted", "shifted"]
    image = load_photo(path)
    assert label_picture(image, item).shape == reading_picture(image, item).shape == image.shape
    assert not np.array_equal(label_picture(image, item), reading_picture(image, item))
    for flag in result.flags:
        assert thumbnail(image, item, flag).shape[0] == 160
    off = type(result.flags[0])(**{**result.flags[0].__dict__, "box": (150.0, 50.0, 160.0, 64.0)})
    assert thumbnail(image, item, off).shape[0] == 160  # a box off the image still gets a thumbnail
    index = write_html(result, tmp_path / "report")
    page = index.read_text()
    assert page.count("<img src='thumbs/") == 5 and "b.jpg: no label file" in page
    assert "labelled 2m, read as 2p (0.80)" in page and "2m 二萬" in page
    assert cv2.imread(str(tmp_path / "report" / "confusion.png")) is not None


def plant_errors(root: Path, seed: int = 7) -> dict[str, list[tuple[str, int | np.ndarray]]]:
    """Swap a class, drop a box, shift a box by half a tile, or add a box on the empty table, each in an
    image of its own; what was planted where: kind -> [(image, label index or the dropped box)]."""
    rng = np.random.default_rng(seed)
    pairs = [(image, label) for image, label in image_labels(root) if label and label.read_text().strip()]
    chosen = rng.choice(len(pairs), 4 * PLANTED_PER_KIND, replace=False)
    planted = {"swap": [], "drop": [], "shift": [], "spurious": []}
    for n, i in enumerate(chosen):
        image, label = pairs[i]
        kind = list(planted)[n // PLANTED_PER_KIND]
        h, w = load_photo(image).shape[:2]
        boxes, codes = read_labels(label, w, h)
        t = int(rng.integers(len(codes)))
        rel = str(image.relative_to(root))
        if kind == "swap":
            codes[t] = str(rng.choice([c for c in CLASSES[:-1] if c != codes[t]]))
            planted[kind].append((rel, t))
        elif kind == "drop":
            planted[kind].append((rel, boxes[t].copy()))
            boxes, codes = np.delete(boxes, t, axis=0), codes[:t] + codes[t + 1:]
        elif kind == "shift":
            bw, bh = boxes[t, 2] - boxes[t, 0], boxes[t, 3] - boxes[t, 1]
            step = np.array([bw, 0, bw, 0]) if rng.random() < 0.5 else np.array([0, bh, 0, bh])
            boxes[t] += (0.5 if rng.random() < 0.5 else -0.5) * step
            planted[kind].append((rel, t))
        else:
            size = np.median(boxes[:, 2:] - boxes[:, :2], axis=0)
            while True:  # somewhere on the table clear of every tile
                x, y = rng.uniform(0, w - size[0]), rng.uniform(0, h - size[1])
                box = np.array([x, y, x + size[0], y + size[1]])
                if iou_matrix(box[None] + [-size[0], -size[1], size[0], size[1]], boxes).max() == 0:
                    break
            boxes, codes = np.vstack([boxes, box]), codes + [str(rng.choice(CLASSES[:-1]))]
            planted[kind].append((rel, len(codes) - 1))
        label.write_text("".join(line + "\n" for line in yolo_lines(boxes, codes, w, h)))
    return planted


def planted_ranks(result, planted) -> dict[str, list[int | None]]:
    """1-based rank of the first flag that points at each planted error (None: not flagged)."""
    def points_at(flag, kind, where) -> bool:
        rel, what = where
        if flag.image != rel:
            return False
        if kind == "drop":
            return flag.kind == "unlabelled" and iou_matrix(np.array(flag.box)[None], what[None])[0, 0] >= 0.5
        accepted = {"swap": {"wrong-class"}, "shift": {"shifted", "missed"}, "spurious": {"missed"}}[kind]
        return flag.kind in accepted and flag.label == what

    return {kind: [next((r for r, f in enumerate(result.flags, 1) if points_at(f, kind, w)), None) for w in wheres]
            for kind, wheres in planted.items()}


@pytest.fixture(scope="module")
def planted_set(tmp_path_factory):
    root = tmp_path_factory.mktemp("planted")
    generate(root, 30, seed=9091, workers=1, long_side=512)
    return root, plant_errors(root)


@pytest.fixture(scope="module")
def planted_audit(planted_set):
    root, planted = planted_set
    return audit(root, TileDetector(MODELS)), planted


@needs_model
def test_planted_label_errors_rank_at_the_top(planted_audit):
    result, planted = planted_audit
    ranks = planted_ranks(result, planted)
    n = sum(len(v) for v in planted.values())
    worst = max((r or len(result.flags) + 1) for rs in ranks.values() for r in rs)
    summary = f"ranks {ranks} of {len(result.flags)} flags; mAP50 {result.map50:.3f}"
    assert worst <= TOP_K_PER_PLANTED * n, summary
    assert result.map50 > 0.5, summary


@needs_model
def test_report_json_and_html(planted_set, planted_audit, tmp_path):
    root, _ = planted_set
    result, _ = planted_audit
    data = result.to_json()
    assert data["images"] == 30 and data["labels"] == sum(len(r.codes) for r in result.images)
    assert data["flags"][0]["suspicion"] >= data["flags"][-1]["suspicion"]
    assert len(data["confusion"]["rows_labelled_columns_read"]) == len(CLASSES) + 1
    index = write_html(result, tmp_path / "report", shown=10)
    page = index.read_text()
    assert page.count("<img src='thumbs/") == 10 and "confusion.png" in page
    thumb = cv2.imread(str(tmp_path / "report" / "thumbs" / "0001.jpg"))
    assert thumb is not None and thumb.shape[0] == 160
    assert cv2.imread(str(tmp_path / "report" / "confusion.png")) is not None


@needs_model
def test_cli_prints_json_writes_the_report_and_shows_progress(tmp_path):
    data = tmp_path / "set"
    shutil.copytree(ROOT / "tests" / "data" / "unseen-small", data)
    (data / "labels" / "val" / "000003.txt").unlink()  # an image without labels is skipped, and said so
    out = subprocess.run([sys.executable, "-m", "datasets", "audit", str(data), "--json", "--out", str(tmp_path / "r"),
                          "--models", str(MODELS)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["images"] == 39 and report["skipped"] == [{"image": "images/val/000003.jpg",
                                                              "why": "no label file"}]
    assert 0 < report["mAP50-95"] <= report["mAP50"] <= 1
    assert "auditing" in out.stderr and "39/40" not in out.stdout
    assert (tmp_path / "r" / "index.html").is_file() and report["report"] == str(tmp_path / "r" / "index.html")


def test_cli_without_a_model_says_so(tmp_path):
    out = subprocess.run([sys.executable, "-m", "datasets", "audit", str(ROOT / "tests" / "data" / "unseen-small"),
                          "--models", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "no model card" in out.stderr
