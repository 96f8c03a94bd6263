"""Files the project writes for a person: whole or not at all, under any name the file system takes.

A write that fails part way (a full disk) must not leave half a file where a whole one was, or seemed
to be: each file is written under a temporary name beside its own, then renamed over it (a rename
within a folder is all or nothing). Images are encoded by OpenCV but written by Python: OpenCV's own
writer (`cv2.imwrite`, even `cv2.haveImageWriter`) crashes the process on a name that is not UTF-8,
which Python keeps as surrogates (PEP 383) and hands back to the file system as the bytes it was.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import cv2
import numpy as np


class ImageWriteError(OSError):
    """An image that could not be written; the message says which file and why, in words."""


def temporary_beside(path: Path, data: bytes) -> Path:
    """`data` written and flushed to disk under a new temporary name in `path`'s folder; renaming it
    to `path` (`os.replace`) is then the whole write. OSError, leaving nothing behind, when it cannot be."""
    # Made as open() makes a file (mode 0o666 less the umask; mkstemp's would be 0o600), never over another.
    temporary = path.parent / f".{path.name[:40]}.{secrets.token_hex(6)}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with open(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary


def write_atomically(path: Path, data: bytes) -> None:
    """`path` holds `data` whole, or (OSError) is left as it was."""
    temporary = temporary_beside(path, data)
    try:
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def image_target(path: str | Path) -> Path:
    """`path`, once an image can be written there: its suffix a type OpenCV writes, its folder there
    and no folder in its place; ImageWriteError saying which is not so (asked before long work)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if not suffix.isascii() or not cv2.haveImageWriter(f"image{suffix}"):
        raise ImageWriteError(f"cannot write {path}: not an image type OpenCV writes (use .png or .jpg)")
    if path.is_dir():
        raise ImageWriteError(f"cannot write {path}: it is a folder")
    if not path.parent.is_dir():
        raise ImageWriteError(f"cannot write {path}: no folder {path.parent}")
    return path


def write_image(path: str | Path, image: np.ndarray, params: tuple[int, ...] = ()) -> None:
    """Write a BGR image in the format its name's suffix says (OpenCV's `imencode` params), whole or not
    at all; ImageWriteError saying why (`image_target`'s reasons, or the disk full)."""
    path = image_target(path)
    ok, encoded = cv2.imencode(path.suffix.lower(), image, list(params))
    if not ok:
        raise ImageWriteError(f"cannot write {path}: OpenCV could not encode the image as {path.suffix}")
    try:
        write_atomically(path, encoded.tobytes())
    except OSError as exc:
        raise ImageWriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
