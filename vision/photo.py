"""Opening a user's photo: JPEG, PNG, WebP or HEIC (what phones send), told by its content, not its
name; EXIF orientation applied; as a BGR array no larger than the reader needs. Any other format
Pillow could parse (a TIFF named .jpg, a GIF, a PSD) is refused by name: each parser is more code
that meets hostile bytes, for no photo a player takes. A data set's images may also be BMP or TIFF
(`datasets.yolo.DATASET_FORMATS`, what ultralytics trains on).

Memory is bounded by decoding at most MAX_PIXELS (a decoded pixel takes at most 4 bytes in
Pillow: 320 MB), then shrinking at once to READ_SIDE; a JPEG is decoded at 1/2, 1/4 or 1/8 of its
size when that still covers READ_SIDE (Pillow's `draft`). tests/test_photo.py holds the peak under
1 GiB of address space for the largest photo accepted.

Pillow identifies every photo and reads its orientation; a complete RGB or grey JPEG within READ_SIDE
(a phone's photo as taken) is then decoded by OpenCV, whose wheel bundles libjpeg-turbo as Pillow's
does: the same pixels, without Pillow's copies (`_whole_jpeg`). It is a second copy of that decoder
meeting the bytes, for the reader's largest cost before the detector.

`open_photo` opens a photo for a read without decoding such a JPEG yet: its `Photo` decodes it at the size the
read asks for, 1/2, 1/4 or 1/8 of the photo where that is all its tiles need (libjpeg's scaled decoding, which
skips most of the work: docs/decisions/reduced-decode.md).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import pillow_heif
from PIL import Image, ImageOps

from vision.notices import Notice, NoticeError
from vision.stages import DECODE, stage

pillow_heif.register_heif_opener()  # HEIC/HEIF, iPhones' default (it turns the image by its orientation itself)
# Pillow's names for the formats accepted from a player: MPO is the JPEG of phones that add a second,
# smaller picture; HEIF covers HEIC.
PHOTO_FORMATS = frozenset({"JPEG", "MPO", "PNG", "WEBP", "HEIF"})
# ISO base media files (the `ftyp` box at byte 4) whose brand is a HEIF still image or sequence.
HEIF_BRANDS = frozenset({b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs", b"mif1", b"msf1"})

# A 12 MP phone photo is ~4000x3000; refuse absurd sizes before decoding them (decompression bombs).
MAX_PIXELS = 80_000_000
# The reader never needs more: its first pass looks at most at 2 x max_side (2560 px) of the whole
# photo, and a tile's crop is 64 px high, which a tile keeps at this size whenever a hand of 17
# tiles spans a fifth of the photo's width. A 12 MP photo (4032 px) is read as taken.
READ_SIDE = 4096


class PhotoError(NoticeError, ValueError):
    """The file is not a photo we can read; its notice says why, in the player's words."""


def load_photo(source: str | Path | bytes, formats: frozenset[str] = PHOTO_FORMATS) -> np.ndarray:
    """Decode `source` (a path or the uploaded bytes) if its content is one of `formats` (Pillow's
    names), rotate it upright by EXIF, shrink it to at most READ_SIDE on its long side, return BGR uint8."""
    return open_photo(source, formats).pixels()


def open_photo(source: str | Path | bytes, formats: frozenset[str] = PHOTO_FORMATS) -> Photo:
    """`load_photo`'s photo opened for a read: a whole JPEG (`_whole_jpeg`) is decoded when the read asks for its
    pixels, at the size it asks for (`Photo.pixels`); any other photo is decoded now."""
    name = "upload" if isinstance(source, bytes) else str(source)
    try:
        data = source if isinstance(source, bytes) else Path(source).read_bytes()
    except OSError as exc:
        raise PhotoError(Notice.of("photo-cannot-open", name=name, why=str(exc.strerror or exc))) from exc
    if not data:
        raise PhotoError(Notice.of("photo-empty", name=name))
    heic = Notice.of("photo-heic", name=name) if data[4:8] == b"ftyp" and data[8:12] in HEIF_BRANDS else None
    # Any decoder failure is a bad upload, whatever it raises (ultralytics, when imported, patches
    # Image.open to try a HEIF plugin it may not have: ModuleNotFoundError).
    try:
        img = Image.open(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001
        raise PhotoError(heic or Notice.of("photo-not-image", name=name)) from exc
    with img:
        if img.format not in formats:
            raise PhotoError(Notice.of("photo-format", name=name, format=img.format or "unknown"))
        if img.width * img.height > MAX_PIXELS:
            raise PhotoError(Notice.of("photo-too-large", name=name, width=img.width, height=img.height,
                                       limit=MAX_PIXELS // 1_000_000))
        if _whole_jpeg(img, data):
            turn = img.getexif().get(ORIENTATION, 1)
            width, height = img.size[::-1] if turn in SIDEWAYS else img.size
            return Photo(width, height, name, data, turn)
        try:
            return Photo.of(cv2.cvtColor(_upright_rgb(img), cv2.COLOR_RGB2BGR))  # 12 MP in 9 ms; numpy's: 120
        except Exception as exc:  # noqa: BLE001
            raise PhotoError(heic or Notice.of("photo-unreadable", name=name, why=str(exc)[:200])) from exc


# libjpeg's scaled decodings: a JPEG decoded at 1/2, 1/4 or 1/8 of its size (each side rounded up).
REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}


@dataclass(eq=False)
class Photo:
    """A photo opened for reading (`open_photo`): upright, `width` x `height` as `load_photo` gives it. `pixels()`
    is that BGR array; a whole JPEG also gives `pixels(reduction)`, itself decoded at 1/2, 1/4 or 1/8 of its size.
    A whole JPEG is decoded at each size when first asked for it (a stream broken past its headers is refused
    then, with `load_photo`'s error); any other photo was decoded as it was opened."""

    width: int
    height: int
    name: str = "upload"
    data: bytes = b""  # a whole JPEG's bytes, decoded on demand; empty: decoded already
    orientation: int = 1  # a whole JPEG's (EXIF, else XMP)
    decoded: dict[int, np.ndarray] = field(default_factory=dict)  # the pixels by reduction

    @classmethod
    def of(cls, image: np.ndarray) -> Photo:
        """A photo decoded already."""
        return cls(image.shape[1], image.shape[0], decoded={1: image})

    @property
    def reducible(self) -> bool:
        """Whether it decodes at a reduction too (a whole JPEG)."""
        return bool(self.data)

    def covering(self, side: int = 0, width: int = 0) -> int:
        """The largest reduction this photo decodes at whose long side is still `side` or more, and its width `width`
        or more (1: none)."""
        long_side = max(self.width, self.height)
        return max([r for r in REDUCED if self.reducible and -(-long_side // r) >= side
                    and -(-self.width // r) >= width], default=1)

    def pixels(self, reduction: int = 1) -> np.ndarray:
        """The upright BGR pixels at 1/`reduction` of the photo's size (1, or a reduction `covering` allows)."""
        if reduction not in self.decoded:
            with stage(DECODE):
                self.decoded[reduction] = self._decoded(reduction)
        return self.decoded[reduction]

    def _decoded(self, reduction: int) -> np.ndarray:
        """OpenCV's decode, turned; Pillow's where OpenCV gives no image of the size (the same libjpeg scaling)."""
        stored = (self.height, self.width) if self.orientation in SIDEWAYS else (self.width, self.height)
        w, h = (-(-side // reduction) for side in stored)
        turn = TURNS.get(self.orientation)
        bgr = cv2.imdecode(np.frombuffer(self.data, np.uint8),
                           REDUCED.get(reduction, cv2.IMREAD_COLOR) | cv2.IMREAD_IGNORE_ORIENTATION)
        if bgr is None or bgr.shape != (h, w, 3):
            try:
                with Image.open(io.BytesIO(self.data)) as img:
                    img.draft("RGB", (stored[0] // reduction, stored[1] // reduction))  # libjpeg's scaling
                    rgb = np.asarray(img.convert("RGB"))
            except Exception as exc:  # noqa: BLE001
                raise PhotoError(Notice.of("photo-unreadable", name=self.name, why=str(exc)[:200])) from exc
            if rgb.shape[:2] != (h, w):
                raise PhotoError(Notice.of("photo-unreadable", name=self.name, why=f"decoded {rgb.shape[1::-1]}"))
            bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
        return turn(bgr) if turn else bgr


def halved(image: np.ndarray) -> np.ndarray:
    """`image` at half its size, each pixel the mean of 2x2 (an odd last row or column is dropped: even sides
    are OpenCV's fast path for exactly half)."""
    h, w = image.shape[0] // 2, image.shape[1] // 2
    return cv2.resize(image[:2 * h, :2 * w], (w, h), interpolation=cv2.INTER_AREA)


def resized(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`image` at `size` (w, h): enlarged bilinearly; shrunk by area averages, first halved while it stays at
    least four times the size. One area resize of a large photo costs its every pixel at the general path's
    price (8 MP to 512 px: 20 ms, to 239 px: 36 ms), each halving a tenth of that; the last step stays an
    area resize by 2x or more, so a photo shrunk less than 4x is resized as before (docs/decisions/read-speed.md)."""
    w, h = size
    while image.shape[1] >= 4 * w and image.shape[0] >= 4 * h:
        image = halved(image)
    shrink = image.shape[1] > w or image.shape[0] > h
    return cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)


def level_transform(width: int, height: int, angle: float) -> tuple[np.ndarray, tuple[int, int]]:
    """The 2x3 transform that turns a photo of this size by `angle` degrees (counter-clockwise as shown: rows
    `vision.boxes.row_angle` found at that angle come out level) onto a canvas that holds all of it, shrunk to
    `READ_SIDE` where it would pass it; and the canvas's size (width, height)."""
    cos, sin = abs(np.cos(np.radians(angle))), abs(np.sin(np.radians(angle)))
    turned_w, turned_h = width * cos + height * sin, width * sin + height * cos
    scale = min(1.0, READ_SIDE / max(turned_w, turned_h))
    affine = cv2.getRotationMatrix2D((width / 2, height / 2), angle, scale)
    affine[:, 2] += (turned_w * scale - width) / 2, (turned_h * scale - height) / 2
    return affine, (max(1, round(turned_w * scale)), max(1, round(turned_h * scale)))


def turned_level(image: np.ndarray, angle: float) -> np.ndarray:
    """The photo turned by `angle` degrees as `level_transform` says, grey outside it as the detector's
    letterbox (its pixels map back to the photo's by that transform inverted: `vision.read.PhotoView`)."""
    affine, size = level_transform(image.shape[1], image.shape[0], angle)
    shrunk = np.linalg.det(affine[:, :2]) < 1.0 - 1e-9  # the square of the scale
    return cv2.warpAffine(image, affine, size, flags=cv2.INTER_AREA if shrunk else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))


def _whole_jpeg(img: Image.Image, data: bytes) -> bool:
    """Whether Pillow's `img` of these bytes is a complete RGB or grey JPEG that needs no shrinking, which
    `Photo.pixels` decodes straight to BGR by OpenCV, turned by the orientation Pillow reads (EXIF, else XMP).
    Same libjpeg-turbo, same pixels (the 254 photos of docs/decisions/read-speed.md read bit-identically), in a
    third of the CPU time for 12 MP: Pillow's array hand-over copies the decoded photo twice and the BGR
    conversion once more. Only bytes Pillow has taken for a JPEG get here, and only those ending in the
    end-of-image marker: OpenCV fills a truncated stream with grey where Pillow refuses it."""
    return img.format in ("JPEG", "MPO") and img.mode in ("RGB", "L") and max(img.size) <= READ_SIDE \
        and data.endswith(b"\xff\xd9")


ORIENTATION = 0x0112  # the EXIF tag
# Each EXIF orientation's turn of an (H, W, 3) array, as ImageOps.exif_transpose turns the image
# (tests/test_photo.py compares all eight).
TURNS: dict[int, Callable[[np.ndarray], np.ndarray]] = {
    2: lambda a: cv2.flip(a, 1), 3: lambda a: cv2.flip(a, -1), 4: lambda a: cv2.flip(a, 0),
    5: cv2.transpose, 6: lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE),
    7: lambda a: cv2.flip(cv2.transpose(a), -1), 8: lambda a: cv2.rotate(a, cv2.ROTATE_90_COUNTERCLOCKWISE)}
SIDEWAYS = frozenset({5, 6, 7, 8})  # the orientations that swap the photo's width and height


def _upright_rgb(img: Image.Image) -> np.ndarray:
    scale = min(1.0, READ_SIDE / max(img.size))
    img.draft("RGB", (round(img.width * scale), round(img.height * scale)))  # JPEG only; else a no-op
    if img.mode.startswith("I;16"):  # 16-bit greyscale: Pillow resizes it as 32-bit integers
        img = img.convert("I")
    elif img.mode not in ("RGB", "L", "I", "F", "CMYK"):
        # Palette and 1-bit images resize only by nearest neighbour, and alpha would cost a
        # premultiplied full-size copy; the reader sees RGB anyway.
        img = img.convert("RGB")
    img.thumbnail((READ_SIDE, READ_SIDE), Image.Resampling.BOX)  # area average, as the detector shrinks
    if img.mode == "I":  # 16-bit samples to 8 (Pillow's convert would clip all above 255 to white)
        grey = Image.fromarray((np.clip(np.asarray(img), 0, 65535) >> 8).astype(np.uint8), "L")
        grey.info = img.info  # keeps the EXIF orientation
        img = grey
    ImageOps.exif_transpose(img, in_place=True)
    # convert() copies even an RGB image: a 12 MP photo's 36 MB once more, a quarter of its decoding time
    return np.asarray(img if img.mode == "RGB" else img.convert("RGB"))
