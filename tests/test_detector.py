"""The committed detector: loads offline with its hash checked, reads committed images, the ONNX
and ultralytics paths agree, and ultralytics itself never reaches for the network."""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from datasets.scene_truth import SceneTruth
from scoring.hand import Hand
from scoring.melds import GroupKind
from training.evaluate import read_labels, reading_hand
from vision.boxes import match
from vision.classes import CLASSES
from vision.detections import Detections
from vision.detector import TileDetector, letterbox, scale_clusters
from vision.model_files import MODELS_DIR, ModelError
from vision.notices import CATALOGUE
from vision.photo import READ_SIDE, load_photo, open_photo
from vision.read import UPSIDE_DOWN, read_photo
from vision.settings import DETECTOR_DEFAULT
from vision.stages import STAGES

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
GUARD = REPO / "tests" / "network_guard"
# What the committed model must at least do on each committed sample photo. The hardest is the
# unseen-style scene shot at a 53° tilt: 73% of its tiles found, 45% read right.
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


def test_two_phones_reading_at_once_each_get_their_own_reading(detector):
    """The app's one detector serves every phone at the table: reads in two threads at once give each photo
    the reading it gets alone."""
    photos = [load_photo(p) for p in sample_images()[:4]]
    alone = [detector.read(image) for image in photos]
    with ThreadPoolExecutor(2) as pool:
        together = list(pool.map(detector.read, photos + photos))
    for one, dets in zip(alone + alone, together, strict=True):
        assert np.array_equal(one.boxes, dets.boxes) and np.array_equal(one.scores, dets.scores)


def test_a_reading_carries_what_each_stage_of_its_read_took(detector):
    """`read_photo` times its stages (vision/stages.py): a sample's read goes through every one, two reads at once
    each time their own, the stages add up to the read, and they are no part of what was read. A photo opened as
    an upload is decoded within the read (`open_photo`)."""
    data = sample_images()[0].read_bytes()

    def timed(_) -> tuple[float, dict[str, float]]:
        photo = open_photo(data)
        start = time.perf_counter()
        reading = read_photo(photo, detector)
        took = (time.perf_counter() - start) * 1000
        assert replace(reading, stage_ms={}) == reading and "stage_ms" not in reading.to_json()
        return took, reading.stage_ms

    with ThreadPoolExecutor(2) as pool:
        for took, ms in pool.map(timed, range(2)):
            assert list(ms) == list(STAGES) and min(ms.values()) >= 0
            assert took - 5 <= sum(ms.values()) <= took


@pytest.mark.parametrize("photo", sample_images(), ids=lambda p: p.stem)
def test_reads_the_committed_sample_photos(detector, photo):
    """Most labelled tiles are found at the right place with the right code."""
    image = load_photo(photo)
    boxes, codes = read_labels(photo.with_suffix(".txt"), image.shape[1], image.shape[0])
    shown = read_photo(image, detector).best.shown
    pairs = match(boxes, np.array([row.box for row in shown], np.float32))
    found = len(pairs) / len(codes)
    right = sum(shown[p].code == codes[t] for t, p in pairs.items()) / len(codes)
    assert found >= FOUND_AT_LEAST, (found, right)
    assert right >= READ_RIGHT_AT_LEAST, (found, right)


@pytest.mark.slow
def test_onnx_and_ultralytics_paths_agree(detector):
    from training.ultralytics_env import load_ultralytics

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
        assert all(ours.raw_codes[p] == theirs_codes[t] for t, p in pairs.items()), photo.name


def test_a_hand_photographed_from_too_far_is_read_with_a_notice_to_take_it_closer(detector):
    """A committed sample (its tiles 25 px on their short side) shrunk to half its size: the hand is read, with the
    notice that its tiles are small; as it is, without."""
    photo = load_photo(DATA / "samples" / "train-style-000000.jpg")
    assert read_photo(photo, detector).warning("tiles-small") is None
    far = read_photo(cv2.resize(photo, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA), detector)
    small = far.warning("tiles-small")
    assert far.legal and small is not None and dict(small.params)["size"] < 16


@pytest.mark.slow
def test_evaluation_reproduces_the_model_card_small_figures(tmp_path):
    """models/README.md quotes models/metrics-small.json; recomputing it gives the same figures."""
    expected = json.loads((MODELS_DIR / "metrics-small.json").read_text())
    out = tmp_path / "small.json"
    subprocess.run([sys.executable, "-m", "training.evaluate", str(DATA / "unseen-small"), "--json", str(out)],
                   cwd=REPO, check=True, capture_output=True, timeout=600)
    got = json.loads(out.read_text())
    for key in ("tiles", "row_exact", "hand_exact", "riichi34"):
        assert got["read_path"][key] == expected["read_path"][key], key
    for key in ("mAP50", "mAP50-95"):
        assert got["detector"][key] == pytest.approx(expected["detector"][key], abs=0.005), key


@pytest.mark.slow
def test_ultralytics_trains_and_exports_offline(tmp_path):
    """One tiny epoch with the recipe's settings (plots and AMP check off, as training/train.py) and an
    ONNX export, with every socket refused: nothing reaches for a font, weights or the hub. (With
    plots on, ultralytics looks for its font online: this test caught that.)"""
    script = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
from training.ultralytics_env import load_ultralytics
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
    kinds = {"concealed", "chi", "pon", "kong", "ankong", "flowers", "unknown"}
    for reading in (lines[0], lines[2]):
        assert set(reading) == {"detections", "groups", "legal", "hand", "confidence", "warnings", "alternatives"}
        for warning in reading["warnings"]:
            assert warning["code"] in CATALOGUE and {"code", "text"} <= set(warning) <= {"code", "text", "params"}
        for proposal in (reading, *reading["alternatives"]):
            rows = proposal["detections"]
            assert len({d["id"] for d in rows}) == len(rows)  # ids are stable and unique
            for det in rows:
                assert {"id", "code", "raw_code", "conf", "box", "group"} <= set(det) \
                    <= {"id", "code", "raw_code", "conf", "box", "group", "why", "supposed"}
                assert det["code"] in CLASSES and det["raw_code"] in CLASSES
                assert (det["box"] is None) == det.get("supposed", False) and len(det["box"] or [0] * 4) == 4
            for g in proposal["groups"]:
                assert g["kind"] in kinds and g["role"] in ("hand", "apart")
                assert g["tiles"] == [next(d["code"] for d in rows if d["id"] == i) for i in g["ids"]]
                assert g["kind"] != "concealed" or g["win"] in g["ids"]
        for alt in reading["alternatives"]:
            assert 0 <= alt["probability"] <= 1 and all(d["code"] in CATALOGUE for d in alt["differs"])
            assert alt["tai"] is None or isinstance(alt["tai"], int)


def test_read_under_a_named_table_and_a_table_that_does_not_exist():
    photo = str(sample_images()[0])
    out = subprocess.run([sys.executable, "-m", "vision", "read", photo, "--json", "--ruleset", "tw16-improved"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and json.loads(out.stdout)["detections"], out.stderr[-2000:]
    out = subprocess.run([sys.executable, "-m", "vision", "read", photo, "--ruleset", "no-such-table"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "no-such-table" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("name", ["a" * 300, "台" * 90], ids=["300-letters", "90-han"])
def test_read_refuses_a_table_name_too_long_for_a_file_by_the_known_ones(name):
    out = subprocess.run([sys.executable, "-m", "vision", "read", str(sample_images()[0]), "--json", "--ruleset", name],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr and out.stdout == "", out.stderr[-2000:]
    assert "known: tw16-2026.09-p0" in out.stderr and str(REPO) not in out.stderr


def test_people_cli_prints_groups_and_annotates(tmp_path):
    out_png = tmp_path / "annotated.png"
    photo = sample_images()[0]
    out = subprocess.run([sys.executable, "-m", "vision", "read", str(photo), "--annotate", str(out_png)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "concealed" in out.stdout and "tiles" in out.stdout
    assert load_photo(out_png).shape == load_photo(photo).shape


def test_the_command_line_draws_a_reading_as_the_page_draws_it_untouched(tmp_path, detector):
    """`vision read --annotate` and the page draw a reading by one rule (`vision.draw.annotate`): the command line's
    picture of a photo taken at a table is the page's picture of that reading as read, pixel for pixel, and a tile
    set apart that the reader was unsure of is greyed with the rest set apart, never flagged (the command line used
    to draw it red, the page grey)."""
    from ui.photo import annotate as page_annotate
    from ui.picture import Picture
    from vision.detections import UNSURE_BELOW
    from vision.draw import flagged

    photo = DATA / "unseen-small" / "images" / "val" / "000026.jpg"
    out_png = tmp_path / "annotated.png"
    run = subprocess.run([sys.executable, "-m", "vision", "read", str(photo), "--annotate", str(out_png)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    drawn = cv2.imread(str(out_png))
    image = load_photo(photo)
    best = read_photo(image, detector).best
    assert np.array_equal(drawn, page_annotate(Picture(image, 1.0), best, best.draft))
    unsure_apart = [k for k, row in enumerate(best.shown) if row.id in best.apart and row.certainty < UNSURE_BELOW]
    flags = flagged(best, best.draft)
    assert unsure_apart and not any(flags[k] for k in unsure_apart)
    assert any(flags)  # a tile of the hand the reader was unsure of, or changed, is flagged


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
    hand = reading_hand(turned)
    assert hand is not None and sorted(hand.all_tiles()) == sorted(truth.all_tiles())
    upright = read_photo(photo, detector)
    codes = lambda reading: [row.code for row in reading.best.rows]  # noqa: E731
    assert UPSIDE_DOWN not in upright.warnings and sorted(codes(upright)) == sorted(codes(turned))
    if name == "train-style-000009":
        assert turned.warnings[0] == UPSIDE_DOWN and codes(upright) == codes(turned)
        # Read the other way up, each row keeps its id, the index of its detection in what the detector
        # saw (the photo turned back), its box mapped into the pixels of the photo given.
        seen, (h, w) = detector.read(photo), photo.shape[:2]
        for row in turned.best.shown:
            x1, y1, x2, y2 = seen.boxes[row.id]
            assert row.raw_code == seen.raw_codes[row.id]
            assert row.box == pytest.approx((w - x2, h - y2, w - x1, h - y1), abs=1e-3)
        assert {s.det for s in turned.best.draft.all_slots()} <= {row.id for row in turned.best.rows}


def truth_groups(scene: dict) -> list[tuple[str, int]]:
    """The scene's groups as the reader reports them: the winning tile laid apart is one of the concealed tiles."""
    groups = SceneTruth.from_json(scene).groups
    concealed = sum(len(g.tiles) for g in groups if g.kind == GroupKind.CONCEALED)
    return sorted([(g.kind, len(g.tiles)) for g in groups if g.kind != GroupKind.CONCEALED]
                  + [(GroupKind.CONCEALED, concealed)])


def test_layout_groups_of_the_sample_photos(detector):
    """Layout and group kinds end to end on the real detector. Measured: 3 of the 5 samples come out
    with exactly the scene's groups (a missed tile breaks the steep-tilt unseen one and splits the
    concealed row of train-style-000005); fewer is a regression."""
    right = []
    for photo in sample_images():
        reading = read_photo(load_photo(photo), detector)
        got = sorted((g.kind, len(g.members)) for g in reading.best.groups)
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
        self.classifier, self.settings = None, DETECTOR_DEFAULT
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
    # 4 px at the 512 px first pass, 19 px at its last (2560 px): under the trained 30, read again larger
    small = boxes_in_a_row(16, 1000, 1500, 30, 41)
    reader = ScriptedDetector(sure_of(small[::2], score=0.3), sure_of(small - [1000 - 45, 1500 - 45, 1000 - 45,
                                                                               1500 - 45], score=0.9))
    reader.photo_shape = image.shape[:2]
    got = reader.read(image)
    assert len(reader.regions) == 1 and len(got) == 16
    reader.regions, reader.settings = [], replace(DETECTOR_DEFAULT, max_second_passes=0)
    assert len(reader.read(image)) == 8 and not reader.regions  # no second pass: the first pass stands



class RecordingDetector(TileDetector):
    """Passes answered by their image's shape (`answers`, none found otherwise), each pass's shape and
    input size recorded."""

    def __init__(self, answers: dict[tuple[int, int], Detections]) -> None:
        self.card = SimpleNamespace(imgsz=512, tile_width=30.0, max_side=1280, conf=0.25)
        self.classifier, self.settings = None, DETECTOR_DEFAULT
        self.answers, self.passes = answers, []

    def detect(self, image, long_side=None, conf=None, iou=0.5, faint_flowers=False):
        self.passes.append((image.shape[:2], long_side))
        return self.answers.get(image.shape[:2], Detections.empty())


@pytest.mark.parametrize("shape, sides", [
    ((3024, 4032), [512, 512, 1024, 2560]),  # it went on 2048, 4096 (2 GB, 8-15 s for that pass alone)
    ((1500, 2000), [512, 512, 1024, 2048]),  # as before: to the photo's size, at twice the last
    ((480, 640), [512, 512, 1024]),
])
def test_a_photo_of_nothing_is_looked_at_no_larger_than_twice_the_cards_largest_side(shape, sides):
    """The second look is the photo shrunk amid grey at the model's size (a close-up?: `TileDetector.close_up`)."""
    reader = RecordingDetector({})
    assert not len(reader.read(np.zeros((*shape, 3), np.uint8)))
    assert [side for _, side in reader.passes] == sides and max(sides) <= 2 * reader.card.max_side
    assert reader.passes[1][0] == (512, 512)


def test_a_photo_smaller_than_the_first_pass_is_enlarged_only_as_far_as_the_settings_say():
    """A photo of nothing (its second look, at the model's size, is the photo shrunk amid grey: `close_up`)."""
    image = np.zeros((384, 512, 3), np.uint8)
    reader = RecordingDetector({})
    reader.read(image)
    assert [side for _, side in reader.passes] == [512, 512]
    reader.passes, reader.settings = [], replace(DETECTOR_DEFAULT, first_pass_enlarge=2.0)
    reader.read(image)
    assert [side for _, side in reader.passes] == [512, 512, 1024]


def test_tiles_a_little_under_the_trained_width_are_read_again_at_it():
    """A hand at 0.8 of the trained tile width reads better looked at again at the trained width
    (docs/decisions/detector-head-room.md); `second_pass_scale` looks at it that many times larger."""
    image = np.zeros((384, 512, 3), np.uint8)
    reader = RecordingDetector({image.shape[:2]: sure_of(boxes_in_a_row(14, 50, 150, 24, 32))})
    reader.read(image)
    (region, side), = reader.passes[1:]
    assert side == int(max(region) * 30 / 24)
    reader.passes, reader.settings = [], replace(DETECTOR_DEFAULT, second_pass_scale=1.5)
    reader.read(image)
    assert reader.passes[1:] == [(region, int(max(region) * 30 / (24 / 1.5)))]
    reader.passes, reader.settings = [], replace(DETECTOR_DEFAULT, same_scale_from=0.7)
    reader.read(image)
    assert len(reader.passes) == 1  # the earlier threshold: read as the first pass found them


def test_a_squashed_photo_is_widened_no_larger_than_the_largest_photo_read():
    """Tiles 0.15 as wide as tall ask for the width restored 5x: a 12 MP photo 20160 px wide. It keeps
    READ_SIDE instead (its height shrinks), and the boxes come back in the photo's own pixels."""
    squashed = boxes_in_a_row(16, 100, 1000, 12, 80, gap=1)
    shrink = READ_SIDE / (4032 * 5)
    widened = (round(3024 * shrink), READ_SIDE)
    reader = RecordingDetector({(3024, 4032): sure_of(squashed),
                                widened: sure_of(squashed * np.array([5 * shrink, shrink] * 2, np.float32))})
    got = reader.read(np.zeros((3024, 4032, 3), np.uint8))
    shapes = {shape for shape, _ in reader.passes}
    assert widened in shapes and max(max(shape) for shape in shapes) == READ_SIDE
    assert np.allclose(got.boxes, squashed, atol=1.0)


# Reading under an address-space limit: the interpreter, its imports and the loaded models, plus 1 GiB.
READ_UNDER_A_GIGABYTE = """
import resource, sys
from vision.detector import TileDetector
from vision.photo import load_photo
from training.evaluate import reading_hand
from vision.read import read_photo
detector = TileDetector()
vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (1 << 30), vm + (1 << 30)))
for path in sys.argv[1:]:
    reading = read_photo(load_photo(path), detector)
    hand = reading_hand(reading)
    print(len(reading.best.shown), sorted(hand.all_tiles()) if hand else None,
          *[w.code for w in reading.warnings])
"""


def test_twelve_megapixels_of_nothing_and_a_small_hand_in_them_read_within_a_gigabyte(tmp_path):
    """A 12 MP photo of noise took 3.3 GB and 20-37 s here (four passes up to 4096 px, then all again turned);
    it says "no tiles" after three passes up to 2560 px. A hand a tenth of that photo's width (tiles ~22 px)
    is still found by those passes and read right."""
    rng = np.random.default_rng(0)
    noise = tmp_path / "noise.jpg"
    cv2.imwrite(str(noise), rng.integers(0, 256, (3024, 4032, 3), dtype=np.uint8))
    name = "train-style-000009"
    plain = np.full((3024, 4032, 3), (60, 120, 90), np.uint8) + rng.integers(0, 6, (3024, 4032, 3), dtype=np.uint8)
    hand = cv2.resize(cv2.imread(str(DATA / "samples" / f"{name}.jpg")), None, fx=0.75, fy=0.75,
                      interpolation=cv2.INTER_AREA)
    plain[1000:1000 + hand.shape[0], 1000:1000 + hand.shape[1]] = hand
    small = tmp_path / "small-hand.jpg"
    cv2.imwrite(str(small), plain)
    # MALLOC_ARENA_MAX: glibc gives each thread that allocates (onnxruntime's, OpenCV's) a heap of 64 MB of
    # address space it mostly never touches; the limit is on memory the read uses (its peak RSS: ~780 MB).
    p = subprocess.run([sys.executable, "-c", READ_UNDER_A_GIGABYTE, str(noise), str(small)], cwd=REPO,
                       capture_output=True, text=True, timeout=300,
                       env={"PYTHONPATH": str(REPO), "OPENBLAS_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"})
    assert p.returncode == 0, p.stderr[-2000:]
    nothing, found = p.stdout.splitlines()
    assert nothing == "0 None no-tiles"
    truth = Hand.from_json(json.loads((DATA / "samples" / f"{name}.json").read_text())["hand"])
    assert found.startswith(f"18 {sorted(truth.all_tiles())}")


def model_folder(into: Path) -> Path:
    """A model folder like models/: the cards copied (to break), the large files linked."""
    into.mkdir()
    for path in MODELS_DIR.iterdir():
        if path.is_file():
            if path.suffix == ".json":
                shutil.copyfile(path, into / path.name)
            else:
                (into / path.name).symlink_to(path)
    return into


def card_with(**changes) -> bytes:
    card = json.loads((MODELS_DIR / "model.json").read_text())
    for key, value in changes.items():
        if value is None:
            del card[key]
        else:
            card[key] = value
    return json.dumps(card).encode()


@pytest.mark.parametrize("content, said", [
    (b"\x00\xffgarbage", "not JSON we read"),
    (b"", "not JSON we read"),
    (b"[1, 2]", "a JSON list, not an object"),
    (b"{" * 100_000 + b"}" * 100_000, "not JSON we read"),
    (card_with(imgsz=None), "'imgsz' is None, expected an integer from 32 to 1280"),
    (card_with(imgsz=0), "'imgsz' is 0, expected an integer from 32 to 1280"),  # it hung: 0 doubled is 0
    (card_with(imgsz="512"), "'imgsz' is '512', expected an integer"),
    (card_with(max_side=100_000), "'max_side' is 100000, expected an integer from 512 to 1280"),
    (card_with(tile_width=float("nan")), "'tile_width' is nan, expected a number from 1 to 512"),
    (card_with(conf=True), "'conf' is True, expected a number"),
    (card_with(onnx="../../etc/passwd"), "'onnx' is '../../etc/passwd', expected a file name in the card's folder"),
    (card_with(sha256=[]), "no SHA-256 for tiles.onnx under 'sha256'"),
])
def test_a_broken_model_card_is_refused_saying_what_is_wrong(tmp_path, content, said):
    models = model_folder(tmp_path / "models")
    (models / "model.json").write_bytes(content)
    with pytest.raises(ModelError, match="^the model card .*model.json is broken: ") as err:
        TileDetector(models)
    assert said in str(err.value) and err.value.notice.code == "model-card-broken"


@pytest.mark.parametrize("change, said", [
    ("missing", "hand finder file .*hand_finder.json is missing"),
    ("changed", "hand_finder.json has SHA-256 .* expected 7e316bd3db8f"),
    ("unrecorded", "model card .* is broken: no SHA-256 for hand_finder.json"),
    ("other features", "fitted on other features than the reader's"),
])
def test_a_missing_changed_or_unvouched_hand_finder_is_refused(tmp_path, change, said):
    from vision.hand_finding import weights

    models = model_folder(tmp_path / "models")
    finder, card = models / "hand_finder.json", json.loads((models / "model.json").read_text())
    if change == "missing":
        finder.unlink()
    elif change == "changed":
        finder.write_text(finder.read_text().replace("-0.47592", "-0.47593"))
    elif change == "unrecorded":
        del card["sha256"]["hand_finder.json"]
    else:  # refitted on other features, its new hash recorded
        refit = json.loads(finder.read_text())
        refit["features"] = refit["features"][::-1]
        finder.write_text(json.dumps(refit))
        card["sha256"]["hand_finder.json"] = hashlib.sha256(finder.read_bytes()).hexdigest()
    (models / "model.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match=said):
        weights(finder)


def test_the_committed_hand_finder_is_the_one_its_card_records():
    from vision.hand_finding import FEATURES, weights

    assert weights()["w1"].shape[0] == len(FEATURES)


@pytest.mark.parametrize("broken", ["model.json", "hand_finder.json"])
def test_the_command_line_with_a_broken_model_file_says_so_with_status_2(tmp_path, broken):
    """A copy of the reader whose models/ holds a broken card or hand finder: a traceback and status 1
    before (docs/command-line.md promises 2 and a message)."""
    for package in ("vision", "scoring"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    models = model_folder(tmp_path / "models")
    (models / broken).write_bytes(card_with(imgsz=0) if broken == "model.json" else b"{}")
    p = subprocess.run([sys.executable, "-m", "vision", "read", str(sample_images()[0])], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert p.returncode == 2 and p.stderr.startswith("error: ") and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert ("'imgsz' is 0" if broken == "model.json" else "hand_finder.json has SHA-256") in p.stderr


@pytest.mark.parametrize("seat", ["ES", "", "SWN"])
def test_a_seat_or_round_that_is_not_one_wind_is_a_wrong_command_line(seat):
    """argparse took "ES" as one of the choices "ESWN" (a substring), and the scorer's HandError came
    out as a traceback."""
    seat_wind = "--seat-wind/--seat"  # the old name of the flag still taken
    for flag, named in (("--seat-wind", seat_wind), ("--seat", seat_wind), ("--round", "--round")):
        p = subprocess.run([sys.executable, "-m", "vision", "read", str(sample_images()[0]), flag, seat], cwd=REPO,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr[-2000:]
        assert f"argument {named}: invalid choice: '{seat}'" in p.stderr


def test_the_seat_wind_is_the_hands_and_the_old_flag_still_says_it_with_a_note():
    photo = str(sample_images()[0])
    new, old, plain = (subprocess.run([sys.executable, "-m", "vision", "read", photo, "--json", *flags], cwd=REPO,
                                      capture_output=True, text=True, timeout=120)
                       for flags in (["--seat-wind", "S"], ["--seat=S"], []))
    assert new.returncode == old.returncode == plain.returncode == 0, (new.stderr, old.stderr)
    assert new.stdout == old.stdout and json.loads(new.stdout)["hand"]["seat"] == "S"
    assert json.loads(plain.stdout)["hand"]["seat"] == "E"
    assert "--seat is now --seat-wind" in old.stderr and "--seat" not in new.stderr + plain.stderr


def test_photo_and_annotation_names_that_are_not_utf8_are_read_written_and_printed(tmp_path):
    """OpenCV's writer crashed the process (SIGSEGV) on such a name; printing one failed too."""
    folder = os.fsencode(tmp_path)
    photo, annotated = folder + b"/hand-\xff.jpg", folder + b"/boxes-\xfe.png"
    shutil.copyfile(sample_images()[0], photo)
    for extra in ([], ["--json"]):
        p = subprocess.run([sys.executable, "-m", "vision", "read", photo, "--annotate", annotated, *extra], cwd=REPO,
                           capture_output=True, timeout=120)
        assert p.returncode == 0 and b"Traceback" not in p.stderr, p.stderr[-2000:]
        assert load_photo(os.fsdecode(annotated)).shape == load_photo(os.fsdecode(photo)).shape
    assert p.stdout.decode() and json.loads(p.stdout)["detections"]
    people = subprocess.run([sys.executable, "-m", "vision", "read", photo], cwd=REPO, capture_output=True, timeout=120)
    assert people.returncode == 0 and people.stdout.startswith(os.fsencode(tmp_path) + b"/hand-\\udcff.jpg: ")
    assert sorted(os.listdir(folder)) == [b"boxes-\xfe.png", b"hand-\xff.jpg"]  # no temporary file left


@pytest.mark.parametrize("target, said", [
    ("annotated.xyz", "not an image type OpenCV writes (use .png or .jpg)"),
    ("folder.png", "it is a folder"),
])
def test_an_annotation_in_the_way_of_a_folder_or_of_no_image_type_is_said(tmp_path, target, said):
    (tmp_path / "folder.png").mkdir()
    p = subprocess.run([sys.executable, "-m", "vision", "read", str(sample_images()[0]), "--annotate",
                        str(tmp_path / target)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and said in p.stderr and "Traceback" not in p.stderr, p.stderr[-2000:]


def test_output_into_a_closed_pipe_ends_quietly_as_a_unix_tool():
    """`vision read … --json | head -1`: the rest of the output goes to a pipe nobody reads, which was a
    BrokenPipeError traceback; now SIGPIPE ends the process, as it ends `cat`."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (head) has gone before the first line
    try:
        p = subprocess.run([sys.executable, "-m", "vision", "read", str(sample_images()[0]), "--json"], cwd=REPO,
                           stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert p.returncode == -signal.SIGPIPE and p.stderr == ""
