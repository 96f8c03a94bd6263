"""A phone's JPEG is decoded only as finely as its read needs (`vision.photo.Photo`, `TileDetector.look`): read from
half its pixels where its tiles are large, as it reads whole; its EXIF turn kept; the whole photo where its tiles are
small; any other photo (a HEIC) decoded whole as it is opened, and read as before."""

import io
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.detector import TileDetector
from vision.photo import load_photo, open_photo
from vision.read import PhotoReading, read_photo
from vision.settings import DETECTOR_DEFAULT

SAMPLE = Path(__file__).resolve().parent / "data" / "samples" / "train-style-000000.jpg"


@pytest.fixture(scope="module")
def detector():
    return TileDetector()


def enlarged(size: tuple[int, int], orientation: int | None = None, canvas: tuple[int, int] | None = None) -> bytes:
    """The committed sample enlarged to `size` (w, h) as a phone's JPEG (quality 90), in the middle of a grey
    `canvas` (w, h) where given; with an EXIF `orientation`, stored turned so that the orientation turns it back
    upright (6: stored a quarter turn anticlockwise)."""
    bgr = cv2.resize(cv2.imread(str(SAMPLE)), size, interpolation=cv2.INTER_CUBIC)
    if canvas:
        (x, y), (w, h) = ((c - s) // 2 for c, s in zip(canvas, size, strict=True)), size
        bgr = cv2.copyMakeBorder(bgr, y, canvas[1] - h - y, x, canvas[0] - w - x, cv2.BORDER_CONSTANT,
                                 value=(128, 128, 128))
    image = Image.fromarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
    exif = Image.Exif()
    if orientation == 6:
        image, exif[0x0112] = image.transpose(Image.Transpose.ROTATE_90), 6
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=90, exif=exif.tobytes())
    return buf.getvalue()


def same_tiles(one: PhotoReading, other: PhotoReading, within: float) -> None:
    """The two readings show the same tiles with the same codes, their boxes within `within` pixels."""
    assert [row.code for row in one.best.shown] == [row.code for row in other.best.shown]
    assert one.legal == other.legal
    assert np.abs(one.best.boxes - other.best.boxes).max() <= within


def test_a_phone_photo_of_large_tiles_is_read_from_half_its_pixels_as_it_reads_whole(detector):
    data = enlarged((4000, 3000))
    photo = open_photo(data)
    reduced = read_photo(photo, detector)
    assert sorted(photo.decoded) == [2]  # never decoded whole
    assert reduced.legal and reduced.stage_ms["decode"] > 0
    same_tiles(reduced, read_photo(load_photo(data), detector), within=8.0)  # 8 px of 4000: boxes in its pixels


def test_a_phone_photo_taken_sideways_is_turned_upright_before_it_is_read(detector):
    upright = read_photo(open_photo(enlarged((4000, 3000))), detector)
    photo = open_photo(enlarged((4000, 3000), orientation=6))
    assert (photo.width, photo.height) == (4000, 3000)
    sideways = read_photo(photo, detector)
    assert sorted(photo.decoded) == [2] and photo.pixels(2).shape == (1500, 2000, 3)
    same_tiles(sideways, upright, within=8.0)


def test_a_photo_whose_tiles_half_its_pixels_would_blur_is_read_whole(detector):
    data = enlarged((1536, 864), canvas=(2400, 1800))  # tiles ~100 px tall: half would leave a crop ~50 px of 64
    photo = open_photo(data)
    reading = read_photo(photo, detector)
    assert sorted(photo.decoded) == [1, 2]  # the first pass from half, the rest whole
    same_tiles(reading, read_photo(load_photo(data), detector), within=2.0)


def test_a_heic_photo_is_decoded_whole_as_it_is_opened_and_read_as_before(detector):
    buf = io.BytesIO()
    Image.open(io.BytesIO(enlarged((2400, 1800)))).save(buf, "HEIF")
    photo = open_photo(buf.getvalue())
    assert list(photo.decoded) == [1] and photo.covering(2) == 1
    assert read_photo(photo, detector) == read_photo(load_photo(buf.getvalue()), detector)


def test_with_the_reduced_decode_set_off_a_jpeg_is_read_whole_as_a_decoded_photo_is():
    whole = TileDetector(settings=replace(DETECTOR_DEFAULT, reduced_decode=0))
    data = enlarged((4000, 3000))
    photo = open_photo(data)
    assert read_photo(photo, whole) == read_photo(load_photo(data), whole)
    assert list(photo.decoded) == [1]


def test_the_command_line_reads_a_phone_photo_as_the_reader_does_and_annotates_it_whole(tmp_path, capsys):
    from vision.__main__ import main

    path, out = tmp_path / "hand.jpg", tmp_path / "annotated.png"
    path.write_bytes(enlarged((4000, 3000)))
    assert main(["read", str(path), "--json", "--annotate", str(out)]) == 0
    said = json.loads(capsys.readouterr().out)
    reading = read_photo(open_photo(path), TileDetector())
    assert [d["box"] for d in said["detections"]] == [d["box"] for d in reading.to_json()["detections"]]
    assert load_photo(out).shape == (3000, 4000, 3)


def test_a_detector_that_reads_on_its_own_reads_a_photo_decoded_already_as_before(detector):
    """A `TileDetector` whose `read` takes only the photo (as the page's tests make to read from elsewhere) is handed
    a decoded photo as it was: no first pass is made for it."""
    found = detector.read(load_photo(SAMPLE))

    class Reads(TileDetector):
        def read(self, image):
            return found

    assert read_photo(load_photo(SAMPLE), Reads()).best.boxes.shape == (len(found), 4)
