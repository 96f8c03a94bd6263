"""Tiles photographed close up (tests/data/close-ups: real tiles filling 0.6-0.9 of the frame's height, made by
`python -m datasets.close_ups`): the committed detector finds each, with its code, by reading the photo shrunk amid
grey (`TileDetector.close_up`); read as it is it found 1 of the 9 (`python -m training.close_ups`). A photo of tiles
at the size the detector knows is read as before, and a close-up costs no pass larger than the model's size."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets import close_ups
from datasets.shared import shared_path
from tests.shared import needs_shared
from vision.boxes import match
from vision.detector import TileDetector
from vision.labels import read_labels
from vision.photo import load_photo
from vision.read import PhotoView, read_photo
from vision.settings import DetectorSettings

DATA = Path(__file__).resolve().parent / "data"
CLOSE_UPS = sorted((DATA / "close-ups").glob("*.jpg"))
WITHOUT = DetectorSettings(close_up_boxes=-1)  # no first pass finds fewer boxes: never read shrunk


@pytest.fixture(scope="module")
def detector():
    return TileDetector()


def labelled(photo: Path, image: np.ndarray) -> tuple[np.ndarray, list[str]]:
    return read_labels(photo.with_suffix(".txt"), image.shape[1], image.shape[0])


def read_tile(dets, box: np.ndarray) -> tuple[str, float] | None:
    """The code and confidence of the detection on the labelled `box`, None where none is."""
    found = match(box[None], dets.boxes)
    return (dets.raw_codes[found[0]], float(dets.confidences[found[0]])) if found else None


def test_every_close_up_is_found_with_its_code_and_all_but_one_surely(detector):
    assert len(CLOSE_UPS) == 9 and any(p.stem.startswith("crop-") for p in CLOSE_UPS)
    sure = 0
    for photo in CLOSE_UPS:
        image = load_photo(photo)
        boxes, codes = labelled(photo, image)
        tile = read_tile(detector.read(image), boxes[0])
        assert tile is not None and tile[0] == codes[0], (photo.name, tile)
        sure += tile[1] >= detector.card.conf
    assert sure >= 8


def test_a_close_up_is_read_to_its_flower_as_the_page_reads_it(detector):
    photo = DATA / "close-ups" / "hk-train-1f-on-a-mat.jpg"
    reading = read_photo(load_photo(photo), detector)
    assert [row.code for row in reading.best.shown] == ["1f"]


def test_a_close_up_at_a_phones_size_takes_two_passes_at_the_models_size(detector, monkeypatch):
    """A 12 MP close-up found nothing at 512 px and was read again at 1024 and 2560 px (finding nothing)."""
    image = load_photo(DATA / "close-ups" / "crop-8f-on-felt.jpg")
    boxes, codes = labelled(DATA / "close-ups" / "crop-8f-on-felt.jpg", image)
    phone = cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    sides = []
    detect = TileDetector.detect

    def counted(self, image, long_side=None, conf=None, faint_flowers=False):
        sides.append(long_side)
        return detect(self, image, long_side, conf, faint_flowers)

    monkeypatch.setattr(TileDetector, "detect", counted)
    tile = read_tile(detector.read(phone), boxes[0] * 4000 / image.shape[1])
    assert tile is not None and tile[0] == codes[0]
    assert sides == [detector.card.imgsz] * 2


@pytest.mark.parametrize(("name", "angle"), [("kim-first-project-mahjon_image13", 0.0),
                                             ("hk-bonus-label-IMG_6453-keyboard", 0.0),
                                             ("hk-bonus-label-IMG_6453-keyboard", 45.0),
                                             ("chinese-mahjong-detection-387334399-wall", 0.0)])
def test_a_photo_whose_first_pass_finds_few_tiles_of_the_known_size_reads_as_before(detector, name, angle):
    """Real test photos whose first pass finds 1-8 tiles: the keyboard, unsure of its one "tile", is read shrunk too,
    also as `read_photo` probes it, turned 45 degrees, where a shrunk reading of keys is surer than the first pass;
    the shrunk reading is not kept (its tiles are no close-ups: `close_up_share`), and the detections are those of
    the detector without it."""
    image = PhotoView(angle).photo(load_photo(DATA / "real" / "images" / f"{name}.jpg"))
    dets, before = detector.read(image), TileDetector(settings=WITHOUT).read(image)
    assert np.array_equal(dets.boxes, before.boxes) and np.array_equal(dets.scores, before.scores)


@needs_shared("data", "real-scenes", needed_for="a product photo of large tiles")
def test_large_tiles_the_first_pass_reads_surely_are_not_read_shrunk(detector):
    """Eight tiles each half the photo's width (a set's product photo): the first pass is sure of them
    (`close_up_unsure`), so they are read as before, at the trained size; read shrunk, a flower came out a 1s."""
    image = load_photo(shared_path("data", "real-scenes", "1-4.jpg"))
    dets, before = detector.read(image), TileDetector(settings=WITHOUT).read(image)
    assert np.array_equal(dets.boxes, before.boxes) and np.array_equal(dets.scores, before.scores)


@needs_shared("data", "real-labelled", needed_for="making the close-ups again")
@needs_shared("data", "real-crops", needed_for="making the close-ups again")
def test_the_committed_close_ups_are_what_the_script_makes(tmp_path):
    close_ups.main([str(tmp_path)])
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == sorted(p.name for p in (DATA / "close-ups").iterdir())
    assert all((tmp_path / name).read_bytes() == (DATA / "close-ups" / name).read_bytes() for name in made)


def test_a_close_up_is_never_cut_from_a_test_split():
    with pytest.raises(ValueError, match="test split"):
        close_ups.photo_files("hk-bonus-label/test/IMG_6148")
