"""A player's corrected photo as training data: the upright photo and its boxes in YOLO format.

Everything is written under one folder chosen when the server starts (environment variable
TAISHU_DATASET_ROOT, default ./my-dataset): any phone on the table's Wi-Fi can use the page, so
the page may only name a sub-folder (checked: letters, digits, - and _), never a path, and a
data.yaml this app did not write is never overwritten.

Layout (ultralytics, like `python -m datasets generate`): `images/train/<id>.jpg`,
`labels/train/<id>.txt` (one `class cx cy w h` line per box, normalised), `data.yaml` naming the
classes of `vision.classes.CLASSES`. A player's set has no held-out split, so `val` points at the
same images; saving the same photo again overwrites its files with the latest corrections.
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import yaml

from vision.classes import CLASSES
from vision.files import temporary_beside, write_atomically
from vision.labels import yolo_lines

ROOT_SETTING = "TAISHU_DATASET_ROOT"
DEFAULT_ROOT = "./my-dataset"
JPEG_QUALITY = 95
NAME = re.compile(r"\w[\w-]{0,63}")  # no separators, no dots: never a path
SPLIT = "images/train"
MAX_YAML_BYTES = 64_000  # ours is ~1 KB


class DatasetError(ValueError):
    """Saving is refused; the message is for the player (traditional Chinese)."""


@dataclass(frozen=True)
class Saved:
    image: Path
    labels: Path
    boxes: int


def dataset_root() -> Path:
    """The one folder the app writes into, as the server was started."""
    return Path(os.environ.get(ROOT_SETTING) or DEFAULT_ROOT).expanduser()


PHOTO_ID = re.compile(r"[0-9a-f]{16}")  # `ui.photo.photo_id`: what a saved photo is named


def saved_photo(root: Path, photo: str) -> Path | None:
    """The photo named `photo` (its id, as a hand keeps it) as saved under `root`, in the root's own set or a named
    one; None where it was not saved (or `photo` is no photo's id: the ledger's file is not trusted)."""
    if not PHOTO_ID.fullmatch(photo):
        return None
    found = [root / SPLIT / f"{photo}.jpg", *sorted(root.glob(f"*/{SPLIT}/{photo}.jpg"))]
    return next((path for path in found if path.is_file()), None)


def dataset_folder(root: Path, name: str) -> Path:
    """`root` itself for an empty name, else the checked sub-folder `root/name`."""
    name = name.strip()
    if not name:
        return root
    if not NAME.fullmatch(name):
        raise DatasetError("資料集名稱只能用字母、數字、- 和 _（最多 64 個字），不能是路徑")
    folder = root / name
    if not folder.resolve().is_relative_to(root.resolve()):  # a link inside the root leading out
        raise DatasetError(f"「{name}」指到資料集資料夾外面，請換一個名稱")
    return folder


def _claim(data_yaml: Path) -> None:
    """Refuse a folder whose data.yaml this app did not write (same classes, same layout)."""
    if not data_yaml.exists():
        return
    try:
        ours = data_yaml.stat().st_size <= MAX_YAML_BYTES and _is_ours(yaml.safe_load(data_yaml.read_text()))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        ours = False
    if not ours:
        raise DatasetError(f"{data_yaml.parent.name or data_yaml.parent} 裡已經有別的 data.yaml，"
                           "不會覆蓋它；請換一個資料集名稱")


def _is_ours(data) -> bool:
    return isinstance(data, dict) and data.get("names") == dict(enumerate(CLASSES)) and data.get("train") == SPLIT


class NotSaved(DatasetError):
    """Writing the example failed part way (a full disk, a read-only folder): neither its photo nor its
    label file was kept, earlier examples are untouched; the message says why, for the player
    (traditional Chinese)."""


# What the player is told of the write errors a phone's owner can do something about, by the OSError's
# errno (looked up with None too: an OSError need not have one).
WHY_NOT_SAVED: dict[int | None, str] = {
    errno.ENOSPC: "磁碟滿了", errno.EDQUOT: "超過了磁碟配額", errno.EFBIG: "檔案太大，磁碟不接受",
    errno.EROFS: "資料夾在唯讀的磁碟上", errno.EACCES: "沒有寫入資料夾的權限", errno.EPERM: "沒有寫入資料夾的權限"}


def save_example(root: Path, name: str, photo: str, image: np.ndarray, boxes: np.ndarray,
                 codes: list[str | None]) -> Saved:
    """Write the BGR photo (already upright) and its labelled boxes to the data set `name` under
    `root` (see `dataset_folder`), named `photo`: both or neither (each is written under a temporary
    name first, and renamed once both are whole). DatasetError before anything is written when the
    folder is not one the app may write; NotSaved, with the set as it was, when the writing fails."""
    folder = dataset_folder(root, name)
    _claim(folder / "data.yaml")
    images, labels = folder / SPLIT, folder / "labels" / "train"
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise OSError("could not encode the photo as JPEG")
    image_path, label_path = images / f"{photo}.jpg", labels / f"{photo}.txt"
    lines = yolo_lines(boxes, codes, image.shape[1], image.shape[0])
    data = {"path": str(folder.resolve()), "train": SPLIT, "val": SPLIT, "names": dict(enumerate(CLASSES))}
    written: list[Path] = []
    try:
        images.mkdir(parents=True, exist_ok=True)
        labels.mkdir(parents=True, exist_ok=True)
        # data.yaml first: it names the classes, the same for every example, so it may go in alone.
        write_atomically(folder / "data.yaml", yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode())
        for path, content in ((image_path, jpeg.tobytes()), (label_path, "".join(f"{ln}\n" for ln in lines).encode())):
            written.append(temporary_beside(path, content))
        # Both whole on disk: two renames within their folders, which need no space. An image without
        # its label is the harm (training takes it for a photo of no tiles), so the label goes in first.
        os.replace(written[1], label_path)
        os.replace(written[0], image_path)
    except OSError as exc:
        for temporary in written:
            temporary.unlink(missing_ok=True)
        why = WHY_NOT_SAVED.get(exc.errno, exc.strerror or str(exc))
        raise NotSaved(f"寫入時出錯（{why}）：這張照片和它的標註都沒有存，之前存的都還在") from exc
    return Saved(image_path, label_path, len(lines))
