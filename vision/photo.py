"""Opening a user's photo: any format Pillow reads, EXIF orientation applied, as a BGR array."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

# A 12 MP phone photo is ~4000x3000; refuse absurd sizes before decoding them (decompression bombs).
MAX_PIXELS = 80_000_000


class PhotoError(ValueError):
    """The file is not a photo we can read; the message is meant for the user."""


def load_photo(source: str | Path | bytes) -> np.ndarray:
    """Decode `source` (a path or the uploaded bytes), rotate it upright by EXIF, return BGR uint8."""
    name = "upload" if isinstance(source, bytes) else str(source)
    try:
        data = source if isinstance(source, bytes) else Path(source).read_bytes()
    except OSError as exc:
        raise PhotoError(f"cannot open {name}: {exc.strerror or exc}") from exc
    if not data:
        raise PhotoError(f"{name} is empty")
    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.width * img.height > MAX_PIXELS:
                raise PhotoError(f"{name} is {img.width}x{img.height} pixels, too large to read")
            img = ImageOps.exif_transpose(img)
            rgb = np.asarray(img.convert("RGB"))
    except PhotoError:
        raise
    # Any decoder failure is a bad upload, whatever it raises (ultralytics, when imported, patches
    # Image.open to try a HEIF plugin it may not have: ModuleNotFoundError).
    except Exception as exc:  # noqa: BLE001
        heic = data[4:12] in (b"ftypheic", b"ftypmif1", b"ftypheix")
        hint = " (an iPhone HEIC photo: set Camera › Formats to 'Most Compatible', or send a JPEG)" if heic else ""
        raise PhotoError(f"{name} is not a readable image{hint}: {exc}") from exc
    return np.ascontiguousarray(rgb[:, :, ::-1])
