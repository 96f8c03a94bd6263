"""The committed detector: loads offline with its hash checked, reads committed images, the ONNX
and ultralytics paths agree, and ultralytics itself never reaches for the network."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from models.evaluate import read_labels
from scoring.hand import Hand
from vision.boxes import match
from vision.classes import CLASSES
from vision.detections import Detections
from vision.detector import MODELS_DIR, ModelError, TileDetector, letterbox, scale_clusters
from vision.notices import CATALOGUE
from vision.photo import load_photo
from vision.read import UPSIDE_DOWN, read_photo

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
GUARD = REPO / "tests" / "network_guard"
# What the committed model must at least do on each committed sample photo. The hardest is the
# unseen-style scene shot at a 53° tilt: 73% of its tiles found, 45% read right (models/README.md).
FOUND_AT_LEAST = 0.7
READ_RIGHT_AT_LEAST = 0.4


def guarded_env(tmp_path: Path) -> dict:
    return dict(os.environ, PYTHONPATH=f"{GUARD}{os.pathsep}{REPO}", NETWORK_GUARD_LOG=str(tmp_path / "network.log"))


@pytest.fixture(scope="module")
def detector():
    return TileDetector()


def sample_images():
    return sorted((DATA / "samples").glob("*.jpg"))


def test_model_loads_and_reads_with_the_network_off(tmp_path):
    env = guarded_env(tmp_path)
    photo = sample_images()[0]
    out = subprocess.run([sys.executable, "-m", "vision", "read", str(photo), "--json"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    reading = json.loads(out.stdout)
    assert len(reading["detections"]) >= 10
    assert not (tmp_path / "network.log").exists()


def test_a_changed_model_file_is_refused(tmp_path):
    copy = tmp_path / "models"
    shutil.copytree(MODELS_DIR, copy, ignore=shutil.ignore_patterns("*.pt"))
    onnx = copy / json.loads((copy / "model.json").read_text())["onnx"]
    data = bytearray(onnx.read_bytes())
    data[len(data) // 2] ^= 0xFF
    onnx.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="SHA-256"):
        TileDetector(copy)


def test_a_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="no model card"):
        TileDetector(tmp_path)


@pytest.mark.parametrize("photo", sample_images(), ids=lambda p: p.stem)
def test_reads_the_committed_sample_photos(detector, photo):
    """Most labelled tiles are found at the right place with the right code."""
    image = load_photo(photo)
    boxes, codes = read_labels(photo.with_suffix(".txt"), image.shape[1], image.shape[0])
    reading = read_photo(image, detector)
    pairs = match(boxes, reading.detections.boxes)
    found = len(pairs) / len(codes)
    right = sum(reading.codes[p] == codes[t] for t, p in pairs.items()) / len(codes)
    assert found >= FOUND_AT_LEAST, (found, right)
    assert right >= READ_RIGHT_AT_LEAST, (found, right)


@pytest.mark.slow
def test_onnx_and_ultralytics_paths_agree(detector):
    from models.ultralytics_env import load_ultralytics

    load_ultralytics()
    from ultralytics import YOLO

    model = YOLO(str(MODELS_DIR / "tiles.pt"))
    for photo in sample_images():
        image = load_photo(photo)
        padded, _ = letterbox(image, detector.card.imgsz)
        ours = detector.detect(padded, long_side=max(padded.shape[:2]), conf=0.3)
        result = model.predict(padded, imgsz=list(padded.shape[:2]), conf=0.3, iou=0.5, agnostic_nms=True,
                               device="cpu", verbose=False)[0]
        theirs_boxes = result.boxes.xyxy.numpy()
        theirs_codes = [CLASSES[int(c)] for c in result.boxes.cls.numpy()]
        pairs = match(theirs_boxes, ours.boxes, iou=0.9)
        assert len(pairs) == len(theirs_codes) == len(ours), photo.name
        assert all(ours.codes[p] == theirs_codes[t] for t, p in pairs.items()), photo.name


@pytest.mark.slow
def test_evaluation_reproduces_the_model_card_small_figures(tmp_path):
    """models/README.md quotes models/metrics-small.json; recomputing it gives the same figures."""
    expected = json.loads((MODELS_DIR / "metrics-small.json").read_text())
    out = tmp_path / "small.json"
    subprocess.run([sys.executable, "-m", "models.evaluate", str(DATA / "unseen-small"), "--json", str(out)],
                   cwd=REPO, check=True, capture_output=True, timeout=600)
    got = json.loads(out.read_text())
    for key in ("tiles", "row_exact", "hand_exact", "riichi34"):
        assert got["read_path"][key] == expected["read_path"][key], key
    for key in ("mAP50", "mAP50-95"):
        assert got["detector"][key] == pytest.approx(expected["detector"][key], abs=0.005), key


@pytest.mark.slow
def test_ultralytics_trains_and_exports_offline(tmp_path):
    """One tiny epoch with the recipe's settings (plots and AMP check off, as models/train.py) and an
    ONNX export, with every socket refused: nothing reaches for a font, weights or the hub. (With
    plots on, ultralytics looks for its font online: this test caught that.)"""
    script = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
from models.ultralytics_env import load_ultralytics
load_ultralytics()
from ultralytics import YOLO
import yaml
data = {str(tmp_path / 'data.yaml')!r}
yaml.safe_dump({{'path': {str(DATA / 'unseen-small')!r}, 'train': 'images/val', 'val': 'images/val',
                'names': dict(enumerate({list(CLASSES)!r}))}}, open(data, 'w'))
model = YOLO('yolo11n.yaml')
model.train(data=data, epochs=1, imgsz=128, batch=8, device='cpu', workers=0, plots=False, amp=False,
            project={str(tmp_path)!r}, name='run', fraction=0.25, val=True)
model.export(format='onnx', imgsz=128, dynamic=True, simplify=True)
print('OK')
"""
    env = guarded_env(tmp_path)
    env["YOLO_CONFIG_DIR"] = str(tmp_path / "config")
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr[-3000:]
    log = tmp_path / "network.log"
    assert not log.exists(), log.read_text()


def test_read_json_contract_with_a_broken_photo_among_good_ones(tmp_path):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    good = sample_images()[:2]
    out = subprocess.run([sys.executable, "-m", "vision", "read", str(good[0]), str(broken), str(good[1]), "--json"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(lines) == 3
    assert "not an image we can read" in lines[1]["error"] and lines[1]["code"] == "photo-not-image"
    for reading in (lines[0], lines[2]):
        assert set(reading) >= {"detections", "groups", "hand", "warnings", "alternatives", "added"}
        for warning in reading["warnings"]:
            assert warning["code"] in CATALOGUE and {"code", "text"} <= set(warning) <= {"code", "text", "params"}
        for det in reading["detections"]:
            assert {"code", "raw_code", "conf", "box", "group"} <= set(det) <= {"code", "raw_code", "conf", "box",
                                                                                "group", "why"}
            assert det["code"] in CLASSES and det["raw_code"] in CLASSES and len(det["box"]) == 4
        kinds = {"concealed", "chi", "pon", "kong", "ankong", "flowers", "unknown", "loose"}
        assert all(g["kind"] in kinds for g in reading["groups"])
        for alt in reading["alternatives"]:
            assert isinstance(alt["tai"], int) and all(d["code"] in CATALOGUE for d in alt["differs"])


def test_read_under_a_named_table_and_a_table_that_does_not_exist():
    photo = str(sample_images()[0])
    out = subprocess.run([sys.executable, "-m", "vision", "read", photo, "--json", "--ruleset", "tw16-improved"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and json.loads(out.stdout)["detections"], out.stderr[-2000:]
    out = subprocess.run([sys.executable, "-m", "vision", "read", photo, "--ruleset", "no-such-table"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "no-such-table" in out.stderr and "Traceback" not in out.stderr


def test_people_cli_prints_groups_and_annotates(tmp_path):
    out_png = tmp_path / "annotated.png"
    photo = sample_images()[0]
    out = subprocess.run([sys.executable, "-m", "vision", "read", str(photo), "--annotate", str(out_png)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "concealed" in out.stdout and "tiles" in out.stdout
    assert load_photo(out_png).shape == load_photo(photo).shape


@pytest.mark.parametrize("target, said", [
    ("annotated.txt", "not an image type OpenCV writes (use .png or .jpg)"),
    ("missing/dir/annotated.png", "no folder"),
])
def test_an_annotation_that_cannot_be_written_is_an_error_and_every_photo_is_still_read(tmp_path, target, said):
    photos = [str(p) for p in sample_images()[:2]]
    out = subprocess.run([sys.executable, "-m", "vision", "read", *photos, "--json", "--annotate",
                          str(tmp_path / target)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert said in out.stderr
    assert [set(json.loads(line)) >= {"detections", "hand"} for line in out.stdout.splitlines()] == [True, True]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["train-style-000000", "train-style-000009"])
def test_a_photo_taken_from_across_the_table_reads_as_upright(detector, name):
    """Read as they are, these two turned half a turn made legal but wrong hands with v2 (confidence
    0.77, 0.60). v3 reads the first right as it is, surely (0.90: no second read); the second it reads
    unsurely (0.81), so it is read turned too and the surer reading kept."""
    photo = load_photo(DATA / "samples" / f"{name}.jpg")
    truth = Hand.from_json(json.loads((DATA / "samples" / f"{name}.json").read_text())["hand"])
    turned = read_photo(cv2.rotate(photo, cv2.ROTATE_180), detector)
    assert turned.hand is not None and sorted(turned.hand.all_tiles()) == sorted(truth.all_tiles())
    upright = read_photo(photo, detector)
    assert UPSIDE_DOWN not in upright.warnings and sorted(upright.codes) == sorted(turned.codes)
    if name == "train-style-000009":
        assert turned.warnings[0] == UPSIDE_DOWN and upright.codes == turned.codes


def truth_groups(scene: dict) -> list[tuple[str, int]]:
    """The scene's groups as the reader reports them: the winning tile set apart is part of the concealed group."""
    groups = [(g["kind"], len(g["tiles"])) for g in scene["groups"] if g["kind"] != "win"]
    apart = sum(len(g["tiles"]) for g in scene["groups"] if g["kind"] == "win")
    return sorted((kind, n + apart if kind == "concealed" else n) for kind, n in groups)


def test_layout_groups_of_the_sample_photos(detector):
    """Layout and group kinds end to end on the real detector. Measured: 3 of the 5 samples come out
    with exactly the scene's groups (a missed tile breaks the steep-tilt unseen one and splits the
    concealed row of train-style-000005); fewer is a regression."""
    right = []
    for photo in sample_images():
        reading = read_photo(load_photo(photo), detector)
        got = sorted((g.kind, len(g.members)) for g in reading.groups)
        right.append(got == truth_groups(json.loads(photo.with_suffix(".json").read_text())))
    assert sum(right) >= 3, right


def boxes_in_a_row(n: int, x0: float, y0: float, w: float, h: float, gap: float = 2.0) -> np.ndarray:
    return np.array([[x0 + i * (w + gap), y0, x0 + i * (w + gap) + w, y0 + h] for i in range(n)], np.float32)


def sure_of(boxes: np.ndarray, code: str = "5m", score: float = 0.8) -> Detections:
    scores = np.zeros((len(boxes), len(CLASSES)), np.float32)
    scores[:, CLASSES.index(code)] = score
    return Detections(boxes.astype(np.float32), scores)


def test_tiles_of_two_sizes_far_apart_are_two_clusters():
    """The hand near the camera and the discards beyond it: each read at its own scale."""
    near = boxes_in_a_row(16, 100, 900, 60, 80)
    far = boxes_in_a_row(8, 300, 200, 15, 20)
    clusters = scale_clusters(sure_of(np.concatenate([near, far])))
    assert [sorted(c.tolist()) for c in clusters] == [list(range(16)), list(range(16, 24))]


class ScriptedDetector(TileDetector):
    """The read path over scripted passes: the whole photo gives `first`; a region gives `second`."""

    def __init__(self, first: Detections, second: Detections) -> None:
        self.card = SimpleNamespace(imgsz=512, tile_width=30.0, max_side=1280, conf=0.25)
        self.classifier = None
        self.first, self.second, self.regions = first, second, []

    def detect(self, image, long_side=None, conf=None, iou=0.5, faint_flowers=False):
        if image.shape[:2] == self.photo_shape:
            return self.first
        self.regions.append(image.shape[:2])
        return self.second


def test_a_second_pass_that_finds_less_never_loses_the_first_pass():
    """A plain row whose first pass came out as a few wide boxes (several tiles each) sizes the second
    pass wrong; the read keeps what the first pass found instead of returning nothing."""
    image = np.zeros((1000, 1500, 3), np.uint8)
    wide = boxes_in_a_row(9, 100, 400, 130, 60, gap=5)  # 2-4 tiles per box
    reader = ScriptedDetector(sure_of(wide, score=0.4), Detections.empty())
    reader.photo_shape = image.shape[:2]
    got = reader.read(image)
    assert reader.regions and len(got) == 9


def test_a_surer_second_pass_replaces_the_first():
    image = np.zeros((3000, 4000, 3), np.uint8)
    small = boxes_in_a_row(16, 1000, 1500, 40, 55)  # 5 px at the 512 px first pass: read again larger
    reader = ScriptedDetector(sure_of(small[::2], score=0.3), sure_of(small - [1000 - 60, 1500 - 82, 1000 - 60,
                                                                               1500 - 82], score=0.9))
    reader.photo_shape = image.shape[:2]
    got = reader.read(image)
    assert len(reader.regions) == 1 and len(got) == 16
