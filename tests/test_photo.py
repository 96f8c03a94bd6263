"""Opening uploads: EXIF rotation applied, broken files rejected with a message for the user,
big photos shrunk to what the reader needs within bounded memory."""

import io
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from vision.photo import MAX_PIXELS, READ_SIDE, PhotoError, _whole_jpeg, load_photo, open_photo

ROOT = Path(__file__).resolve().parents[1]


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
        (b"this is not an image at all", r"^upload is not an image we can read \(JPEG, PNG, WebP or HEIC\)$"),
        (jpeg(64, 48)[:200], "not an image we can read"),
        (jpeg(640, 480)[:2000], "not a readable image: image file is truncated"),
        (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64, "is a HEIC photo that could not be decoded"),
        (b"\x00\x00\x00\x18ftyphevc" + b"\x00" * 64, "is a HEIC photo that could not be decoded"),  # an HEVC brand
    ],
)
def test_broken_uploads_get_a_clear_error(data, message):
    with pytest.raises(PhotoError, match=message):
        load_photo(data)


def test_missing_file(tmp_path):
    with pytest.raises(PhotoError, match="cannot open"):
        load_photo(tmp_path / "nope.jpg")


def test_broken_uploads_still_get_a_clear_error_once_ultralytics_patched_pillow():
    from training.ultralytics_env import load_ultralytics

    load_ultralytics()
    import ultralytics.utils.patches  # noqa: F401  (replaces PIL.Image.open with a HEIF-trying wrapper)

    for data, said in ((b"this is not an image at all", "not an image we can read"),
                       (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64, "is a HEIC photo that could not be decoded")):
        with pytest.raises(PhotoError, match=said):
            load_photo(data)
    assert load_photo(encoded("HEIF")).shape == (48, 64, 3)  # a real one still reads


def png(width: int, height: int, color_type: int, depth: int, rows=None) -> bytes:
    """A PNG written row by row (`rows`: the sample bytes of each row, blank by default), so a
    huge blank image costs its compressed size, not its decoded size, to make."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    channels = {0: 1, 2: 3, 6: 4}[color_type]
    blank = b"\x00" + bytes(width * channels * depth // 8)
    z = zlib.compressobj(1)
    if rows is None:  # blank: compress 100 rows at a time
        idat = b"".join(z.compress(blank * min(100, height - y)) for y in range(0, height, 100))
    else:
        idat = b"".join(z.compress(b"\x00" + row) for row in rows)
    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat + z.flush())
            + chunk(b"IEND", b""))


def test_sixteen_bit_greyscale_keeps_its_range():
    ramp = np.linspace(0, 65535, 256).astype(">u2")  # PNG samples are big-endian
    photo = load_photo(png(256, 4, 0, 16, [ramp.tobytes()] * 4))
    assert photo.shape == (4, 256, 3)
    assert np.array_equal(photo[0, :, 0], (ramp.astype(np.uint32) >> 8).astype(np.uint8))  # not clipped at 255


def test_a_big_photo_is_shrunk_to_what_the_reader_needs():
    wide = load_photo(jpeg(READ_SIDE + 1000, 500))
    assert wide.shape == (round(500 * READ_SIDE / (READ_SIDE + 1000)), READ_SIDE, 3)
    assert wide[5, 5, 0] > 150 and wide[5, -5, 2] > 150  # blue top-left quarter, red elsewhere (BGR)
    assert load_photo(jpeg(4032, 3024)).shape == (3024, 4032, 3)  # a 12 MP phone photo as taken


# The decode under an address-space limit: the interpreter and imports, plus 1 GiB.
UNDER_A_GIGABYTE = """
import resource, sys
from vision.photo import load_photo
vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (1 << 30), vm + (1 << 30)))
print(load_photo(sys.argv[1]).shape)
"""


@pytest.mark.parametrize("color_type, depth", [(6, 8), (0, 16)])  # RGBA 8-bit, grey 16-bit
def test_the_largest_photo_accepted_decodes_within_a_gigabyte(tmp_path, color_type, depth):
    """A ~1 MB PNG that decodes to just under MAX_PIXELS (10000 x 7999) took 4 GB before."""
    path = tmp_path / "bomb.png"
    path.write_bytes(png(10_000, MAX_PIXELS // 10_000 - 1, color_type, depth))
    p = subprocess.run([sys.executable, "-c", UNDER_A_GIGABYTE, str(path)], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"})
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == f"({round(7999 * READ_SIDE / 10_000)}, {READ_SIDE}, 3)"


def test_more_pixels_than_the_cap_are_refused_before_decoding():
    with pytest.raises(PhotoError, match=r"is 10000x8001 pixels, too large to read \(at most 80 million\)"):
        load_photo(png(10_000, 8001, 0, 8, [b""] * 0))


def encoded(fmt: str, **options) -> bytes:
    image = Image.new("RGB", (64, 48), (200, 30, 30))
    image.paste((30, 30, 200), (0, 0, 32, 24))  # blue top-left quarter
    buf = io.BytesIO()
    image.save(buf, fmt, **options)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "HEIF"])
def test_the_photo_formats_phones_send_are_read_by_their_content_whatever_their_name(tmp_path, fmt):
    path = tmp_path / "photo.tif"  # the name says nothing
    path.write_bytes(encoded(fmt))
    photo = load_photo(path)
    assert photo.shape == (48, 64, 3) and photo[5, 5, 0] > 150 and photo[-5, -5, 2] > 150  # blue, then red (BGR)


def test_a_heic_photo_from_an_iphone_held_upright_is_turned_once():
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to view
    photo = load_photo(encoded("HEIF", exif=exif.tobytes()))
    assert photo.shape == (64, 48, 3)
    assert photo[5, -5, 0] > 150 and photo[-5, 5, 0] < 100  # the blue quarter now top-right


@pytest.mark.parametrize("fmt", ["TIFF", "GIF", "BMP", "PPM", "ICO"])
def test_other_formats_are_refused_by_name_even_when_named_jpg(tmp_path, fmt):
    """A TIFF named .jpg was parsed like any format Pillow knows."""
    path = tmp_path / "hand.jpg"
    path.write_bytes(encoded(fmt))
    with pytest.raises(PhotoError, match=rf"hand.jpg is in {fmt} format, not a photo format we read: send it as "
                                         "JPEG, PNG, WebP or HEIC$") as err:
        load_photo(path)
    assert err.value.notice.code == "photo-format"


def test_a_data_set_may_hold_what_ultralytics_trains_on_besides():
    from datasets.yolo import DATASET_FORMATS

    assert load_photo(encoded("TIFF"), DATASET_FORMATS).shape == load_photo(encoded("BMP"), DATASET_FORMATS).shape
    with pytest.raises(PhotoError, match="is in GIF format"):
        load_photo(encoded("GIF"), DATASET_FORMATS)


@pytest.mark.parametrize("orientation", [None, *range(1, 10)])  # 9: no orientation EXIF knows
@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_a_whole_jpeg_decoded_by_opencv_has_pillows_pixels_and_turn(orientation, mode):
    """The fast path for complete JPEGs (`_whole_jpeg`, decoded by `Photo.pixels`) against Pillow's own decode and
    exif_transpose, whole and at each reduction (libjpeg's scaled decoding, Pillow's `draft`)."""
    data = noise_jpeg(orientation, mode, (45, 61))  # odd sides: a reduction rounds each up
    photo = open_photo(data)
    assert photo.reducible and photo.covering(8) == 8 and photo.covering(9) == 4 and photo.covering(62) == 1
    for reduction in (1, 2, 4, 8):
        with Image.open(io.BytesIO(data)) as img:
            img.draft("RGB", (61 // reduction, 45 // reduction))  # Pillow divides each side down, then rounds it up
            slow = cv2.cvtColor(np.asarray(ImageOps.exif_transpose(img).convert("RGB")), cv2.COLOR_RGB2BGR)
        fast = photo.pixels(reduction)
        assert fast.shape == slow.shape and np.array_equal(fast, slow), reduction
    assert (photo.width, photo.height) == photo.pixels().shape[1::-1]


def noise_jpeg(orientation: int | None, mode: str, size: tuple[int, int]) -> bytes:
    """A JPEG of noise (h, w), its EXIF orientation set."""
    noise = np.random.default_rng(orientation or 0).integers(0, 256, (*size, 3), np.uint8)
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    buf = io.BytesIO()
    Image.fromarray(noise).convert(mode).save(buf, "JPEG", exif=exif.tobytes())
    return buf.getvalue()


def test_a_jpeg_missing_its_end_is_left_to_pillow():
    data = jpeg(640, 480)
    assert _whole_jpeg(Image.open(io.BytesIO(data)), data)
    assert not _whole_jpeg(Image.open(io.BytesIO(data[:-2])), data[:-2])


def test_a_photo_other_than_a_whole_jpeg_is_decoded_once_and_whole():
    for data in (encoded("PNG"), encoded("HEIF"), jpeg(READ_SIDE + 8, 64)):
        photo = open_photo(data)
        assert photo.covering(8) == 1 and list(photo.decoded) == [1]
