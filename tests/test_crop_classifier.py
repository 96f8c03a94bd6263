"""The crop classifier (second stage): crop geometry shared by training and read time, the committed
ONNX model loading offline with its hash checked, its readings of the committed sample photos, the
model card and export carrying it, and `TileDetector.read` using it."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from training.crops import make_crops
from training.export import with_classifier
from vision.classes import CLASS_INDEX, CLASSES
from vision.crop_classifier import (
    CROP_H,
    CROP_W,
    PAD_VALUE,
    TileClassifier,
    combine,
    crop_region,
    cut_crop,
    cut_crops,
)
from vision.detections import Detections
from vision.detector import TileDetector
from vision.labels import read_labels
from vision.model_files import MODELS_DIR, ModelCard, ModelError
from vision.photo import load_photo
from vision.settings import DETECTOR_DEFAULT

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
GUARD = REPO / "tests" / "network_guard"
# Share of the labelled tiles of the committed sample photos the classifier reads right from their
# label boxes (measured 51/52 train-style, 33/39 unseen-style), with a margin.
SAMPLES_RIGHT_AT_LEAST = {"train-style": 0.9, "unseen-style": 0.75}


def coordinate_image(h: int = 200, w: int = 240) -> np.ndarray:
    """A BGR image whose blue channel is x and green channel is y of each pixel."""
    ys, xs = np.mgrid[0:h, 0:w]
    return np.stack([xs, ys, np.full_like(xs, 7)], axis=2).astype(np.uint8)


def test_the_region_grows_by_the_expansion_and_moves_by_the_jitter():
    assert crop_region((10, 20, 40, 60)) == pytest.approx([7.6, 16.8, 42.4, 63.2])
    assert crop_region((10, 20, 40, 60), expand=0.0, jitter=(0.1, -0.05, 0.0, 0.2)) == pytest.approx(
        [7.0, 22.0, 40.0, 68.0])


def test_a_crop_at_the_crop_size_is_the_photo_region_itself():
    image = coordinate_image()
    crop = cut_crop(image, (100, 50, 100 + CROP_W, 50 + CROP_H), expand=0.0)
    assert crop.shape == (CROP_H, CROP_W, 3) and crop.dtype == np.uint8
    assert np.array_equal(crop, image[50:50 + CROP_H, 100:100 + CROP_W])


def test_a_larger_box_is_resized_to_span_its_expanded_region():
    image = coordinate_image()
    box = (60, 40, 60 + 2 * CROP_W / 1.16, 40 + 2 * CROP_H / 1.16)  # expanded region: 96 x 128 px
    x1, y1, x2, y2 = crop_region(box)
    crop = cut_crop(image, box).astype(float)
    assert crop[:, 0, 0].mean() == pytest.approx(x1 + 0.5, abs=1.0)  # first column averages two pixels
    assert crop[:, -1, 0].mean() == pytest.approx(x2 - 1.5, abs=1.0)
    assert crop[0, :, 1].mean() == pytest.approx(y1 + 0.5, abs=1.0)
    assert crop[-1, :, 1].mean() == pytest.approx(y2 - 1.5, abs=1.0)


def test_outside_the_photo_is_grey_and_the_inside_keeps_its_place():
    image = np.full((100, 100, 3), 200, np.uint8)
    crop = cut_crop(image, (-CROP_W // 2, 0, CROP_W // 2, CROP_H), expand=0.0)
    assert (crop[:, :CROP_W // 2] == PAD_VALUE).all()
    assert (crop[:, CROP_W // 2:] == 200).all()
    assert (cut_crop(image, (150, 150, 180, 190)) == PAD_VALUE).all()  # wholly outside


def test_a_landscape_box_is_turned_to_portrait():
    image = np.zeros((100, 100, 3), np.uint8)
    image[:, :32] = (255, 0, 0)  # left part of a 64 x 48 landscape box: blue
    crop = cut_crop(image, (0, 0, CROP_H, CROP_W), expand=0.0)
    assert crop.shape == (CROP_H, CROP_W, 3)
    assert (crop[:32, :, 0] == 255).all() and (crop[32:, :, 0] == 0).all()  # a quarter turn clockwise: on top


def test_training_crops_are_the_read_time_crops():
    root = DATA / "unseen-small"
    x, y = make_crops(root, "val", jitters=1, jitter=0.0)
    image_path = sorted((root / "images" / "val").glob("*.jpg"))[0]
    image = load_photo(image_path)
    boxes, codes = read_labels(root / "labels" / "val" / f"{image_path.stem}.txt", image.shape[1], image.shape[0])
    assert np.array_equal(x[:len(boxes)], cut_crops(image, boxes, DETECTOR_DEFAULT.halve_from))
    assert y[:len(codes)].tolist() == [CLASS_INDEX[c] for c in codes]


def test_a_class_filter_keeps_the_same_crops_as_the_whole_run():
    """`--classes` cuts those classes' crops with the jitter each gets in the whole run: the whole file's subset."""
    root = DATA / "unseen-small"
    x, y = make_crops(root, "val", jitters=2)
    kept = {"1z", "5p", "9m"}
    fx, fy = make_crops(root, "val", jitters=2, classes=kept)
    mask = np.isin(y, [CLASS_INDEX[c] for c in kept])
    assert 0 < len(fy) < len(y) and np.array_equal(fy, y[mask]) and np.array_equal(fx, x[mask])


def test_jittered_crops_differ_and_a_cap_keeps_whole_images():
    root = DATA / "unseen-small"
    plain, _ = make_crops(root, "val", jitters=1, jitter=0.0)
    x, y = make_crops(root, "val", jitters=2, max_crops=100)
    assert 60 <= len(y) <= 100 and len(y) % 2 == 0 and (y[::2] == y[1::2]).all()
    assert not np.array_equal(x[0], x[1])


def test_combining_scores():
    det = np.array([[0.9, 0.5, 0.0] + [0.0] * (len(CLASSES) - 3)], np.float32)
    cls = np.full((1, len(CLASSES)), 0.01 / (len(CLASSES) - 1), np.float32)
    cls[0, 1] = 0.99
    assert np.array_equal(combine(det, cls, 1.0), cls)
    assert combine(det, cls, 0.0)[0, 0] == pytest.approx(0.9 / 1.4, abs=1e-3)
    blend = combine(det, cls, 0.5)
    assert blend.sum() == pytest.approx(1.0) and blend.argmax() == 1


@pytest.fixture(scope="module")
def classifier():
    return TileClassifier.from_card(MODELS_DIR)


def test_the_classifier_loads_and_classifies_with_the_network_off(tmp_path):
    script = ("import numpy as np; from vision.crop_classifier import TileClassifier as T; "
              "print(T.from_card().probabilities(np.zeros((3, 64, 48, 3), np.uint8)).shape)")
    env = dict(os.environ, PYTHONPATH=f"{GUARD}{os.pathsep}{REPO}", NETWORK_GUARD_LOG=str(tmp_path / "network.log"))
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"(3, {len(CLASSES)})"
    assert not (tmp_path / "network.log").exists()


def copy_classifier(tmp_path: Path) -> Path:
    folder = tmp_path / "models"
    folder.mkdir()
    card = json.loads((MODELS_DIR / "classifier.json").read_text())
    for name in ("classifier.json", card["onnx"]):
        shutil.copyfile(MODELS_DIR / name, folder / name)
    return folder


def test_a_changed_classifier_file_is_refused(tmp_path):
    folder = copy_classifier(tmp_path)
    onnx = folder / json.loads((folder / "classifier.json").read_text())["onnx"]
    data = bytearray(onnx.read_bytes())
    data[len(data) // 2] ^= 0xFF
    onnx.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="SHA-256"):
        TileClassifier.from_card(folder)
    onnx.unlink()
    with pytest.raises(ModelError, match="missing"):
        TileClassifier.from_card(folder)



@pytest.mark.parametrize("change, said", [
    ({"onnx": None}, "'onnx' is None, expected a file name in the card's folder"),
    ({"onnx": "../tiles.onnx"}, "'onnx' is '../tiles.onnx', expected a file name"),
    ({"sha256": None}, "'sha256' is None, expected the SHA-256 of tile_classifier.onnx"),
    ({"sha256": "c82a"}, "'sha256' is 'c82a', expected the SHA-256"),
])
def test_a_classifier_card_without_its_file_or_hash_is_refused_naming_the_field(tmp_path, change, said):
    """It raised KeyError (a traceback, not the exit-2 message) when a field was missing."""
    folder = copy_classifier(tmp_path)
    card = json.loads((folder / "classifier.json").read_text())
    card.update(change)
    (folder / "classifier.json").write_text(json.dumps({k: v for k, v in card.items() if v is not None}))
    with pytest.raises(ModelError, match="^the classifier card .*classifier.json is broken: ") as err:
        TileClassifier.from_card(folder)
    assert said in str(err.value) and err.value.notice.code == "model-card-broken"

def sample_images():
    return sorted((DATA / "samples").glob("*.jpg"))


@pytest.mark.parametrize("style", sorted(SAMPLES_RIGHT_AT_LEAST))
def test_reads_the_tiles_of_the_committed_sample_photos(classifier, style):
    right = total = 0
    for photo in sample_images():
        if not photo.stem.startswith(style):
            continue
        image = load_photo(photo)
        boxes, codes = read_labels(photo.with_suffix(".txt"), image.shape[1], image.shape[0])
        pred = classifier.probabilities(classifier.crops(image, boxes)).argmax(1)
        right += sum(CLASSES[p] == c for p, c in zip(pred, codes, strict=True))
        total += len(codes)
    assert total >= 20
    assert right / total >= SAMPLES_RIGHT_AT_LEAST[style], right / total


def test_large_tiles_are_cut_from_the_photo_halved_and_read_the_same(classifier):
    """The samples enlarged to a phone photo's size (4000 px wide, or more where a tile would stay under
    `halve_from` crop heights): their crops come from the photo halved (2x2 averages), within two grey
    levels of the direct crops on average, and read as the same codes as those."""
    for photo in sample_images():
        small = load_photo(photo)
        boxes, _ = read_labels(photo.with_suffix(".txt"), small.shape[1], small.shape[0])
        f = max(4000 / small.shape[1], 1.05 * classifier.halve_from * CROP_H / (boxes[:, 3] - boxes[:, 1]).min())
        image = cv2.resize(small, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
        boxes = boxes * f
        halved = classifier.crops(image, boxes)
        direct = np.stack([cut_crop(image, b) for b in boxes])
        assert np.abs(halved.astype(int) - direct).mean() < 2.0
        read = lambda crops: classifier.probabilities(crops).argmax(1).tolist()  # noqa: E731
        assert read(halved) == read(direct), photo.name


def test_rescore_keeps_the_boxes_and_the_detectors_confidence_in_each_tile(classifier):
    photo = sample_images()[0]
    image = load_photo(photo)
    boxes, codes = read_labels(photo.with_suffix(".txt"), image.shape[1], image.shape[0])
    sure = np.linspace(0.3, 0.9, len(boxes), dtype=np.float32)
    dets = Detections(boxes, np.repeat(sure[:, None], len(CLASSES), axis=1))  # the detector cannot tell classes
    out = classifier.rescore(image, dets)
    assert np.array_equal(out.boxes, boxes)
    probs = classifier.probabilities(classifier.crops(image, boxes))
    assert np.allclose(out.scores, probs * sure[:, None], atol=1e-6)
    assert np.mean([a == b for a, b in zip(out.raw_codes, codes, strict=True)]) >= 0.9
    assert len(classifier.rescore(image, Detections.empty())) == 0


def test_the_model_card_names_the_classifier_and_export_keeps_it(tmp_path):
    folder = copy_classifier(tmp_path)
    meta = {"onnx": "tiles.onnx", "sha256": {"tiles.onnx": "d" * 64}, "imgsz": 512, "tile_width": 30.0,
            "max_side": 1280, "classes": list(CLASSES)}
    merged = with_classifier(meta, folder)
    card = json.loads((folder / "classifier.json").read_text())
    assert merged["classifier"] == card["onnx"] and merged["sha256"][card["onnx"]] == card["sha256"]
    assert merged["sha256"]["tiles.onnx"] == "d" * 64
    (folder / "model.json").write_text(json.dumps(merged))
    loaded = ModelCard.load(folder)
    assert loaded.classifier == folder / card["onnx"] and loaded.classifier_sha256 == card["sha256"]
    (folder / "classifier.json").unlink()
    assert "classifier" not in with_classifier(merged, folder) and len(with_classifier(merged, folder)["sha256"]) == 1
    (folder / "model.json").write_text(json.dumps(meta))
    assert ModelCard.load(folder).classifier is None


def test_export_refuses_a_classifier_that_changed_since_training(tmp_path):
    folder = copy_classifier(tmp_path)
    onnx = folder / json.loads((folder / "classifier.json").read_text())["onnx"]
    onnx.write_bytes(onnx.read_bytes() + b"\0")
    with pytest.raises(SystemExit, match="does not match"):
        with_classifier({"onnx": "tiles.onnx", "sha256": {}}, folder)


def committed_card_has_classifier() -> bool:
    card = MODELS_DIR / "model.json"
    return card.exists() and "classifier" in json.loads(card.read_text())


@pytest.mark.skipif(not committed_card_has_classifier(), reason="models/model.json does not name the classifier yet")
def test_read_takes_the_classes_from_the_classifier():
    with_cls, without = TileDetector(), TileDetector(classifier=False)
    assert with_cls.classifier is not None and without.classifier is None
    for photo in sample_images()[:2]:
        image = load_photo(photo)
        plain, rescored = without.read(image), with_cls.read(image)
        assert len(plain) >= 10
        assert np.array_equal(plain.boxes, rescored.boxes)
        assert np.allclose(rescored.scores, with_cls.classifier.rescore(image, plain).scores)
        assert not np.allclose(rescored.scores, plain.scores)


def test_the_blend_weight_comes_from_the_model_card(tmp_path):
    """`classifier_weight` is chosen per detector (docs/decisions/read-threshold.md); a card without one reads with the
    classifier alone."""
    card = json.loads((MODELS_DIR / "model.json").read_text())
    assert TileDetector(MODELS_DIR).classifier.weight == card["classifier_weight"]
    for name in {card["onnx"], card["classifier"]}:
        shutil.copyfile(MODELS_DIR / name, tmp_path / name)
    del card["classifier_weight"]
    (tmp_path / "model.json").write_text(json.dumps(card))
    assert TileDetector(tmp_path).classifier.weight == 1.0
