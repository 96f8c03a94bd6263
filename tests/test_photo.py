"""Opening uploads: EXIF rotation applied, broken files rejected with a message for the user."""

import io

import numpy as np
import pytest
from PIL import Image

from vision.photo import PhotoError, load_photo


def jpeg(width: int, height: int, orientation: int | None = None) -> bytes:
    image = Image.new("RGB", (width, height), (200, 30, 30))
    image.paste((30, 30, 200), (0, 0, width // 2, height // 2))  # blue top-left quarter
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    buf = io.BytesIO()
    image.save(buf, "JPEG", exif=exif.tobytes())
    return buf.getvalue()


def test_exif_rotation_is_applied():
    upright = load_photo(jpeg(400, 300))
    assert upright.shape == (300, 400, 3)
    turned = load_photo(jpeg(400, 300, orientation=6))  # phone held upright: rotate 90° clockwise
    assert turned.shape == (400, 300, 3)
    # The blue quarter was top-left; after a clockwise turn it is top-right. BGR: blue channel first.
    assert turned[10, -10, 0] > 150 and turned[-10, 10, 0] < 100


def test_reads_a_path(tmp_path):
    path = tmp_path / "hand.jpg"
    path.write_bytes(jpeg(64, 48))
    assert load_photo(path).dtype == np.uint8


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"this is not an image at all", "not a readable image"),
        (jpeg(64, 48)[:200], "not a readable image"),
        (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64, "HEIC"),
    ],
)
def test_broken_uploads_get_a_clear_error(data, message):
    with pytest.raises(PhotoError, match=message):
        load_photo(data)


def test_missing_file(tmp_path):
    with pytest.raises(PhotoError, match="cannot open"):
        load_photo(tmp_path / "nope.jpg")


def test_broken_uploads_still_get_a_clear_error_once_ultralytics_patched_pillow():
    from models.ultralytics_env import load_ultralytics

    load_ultralytics()
    import ultralytics.utils.patches  # noqa: F401  (replaces PIL.Image.open with a HEIF-trying wrapper)

    for data in (b"this is not an image at all", b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64):
        with pytest.raises(PhotoError, match="not a readable image"):
            load_photo(data)
