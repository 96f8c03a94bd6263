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

import os
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import yaml

from datasets.yolo import yolo_lines
from vision.classes import CLASSES

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


def save_example(root: Path, name: str, photo: str, image: np.ndarray, boxes: np.ndarray,
                 codes: list[str | None]) -> Saved:
    """Write the BGR photo (already upright) and its labelled boxes to the data set `name` under
    `root` (see `dataset_folder`), named `photo`. DatasetError before anything is written when
    the folder is not one the app may write."""
    folder = dataset_folder(root, name)
    _claim(folder / "data.yaml")
    images, labels = folder / SPLIT, folder / "labels" / "train"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise OSError("could not encode the photo as JPEG")
    image_path, label_path = images / f"{photo}.jpg", labels / f"{photo}.txt"
    image_path.write_bytes(jpeg.tobytes())
    lines = yolo_lines(boxes, codes, image.shape[1], image.shape[0])
    label_path.write_text("".join(line + "\n" for line in lines))
    data = {"path": str(folder.resolve()), "train": SPLIT, "val": SPLIT, "names": dict(enumerate(CLASSES))}
    (folder / "data.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return Saved(image_path, label_path, len(lines))
