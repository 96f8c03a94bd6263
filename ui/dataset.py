"""A player's corrected photo as training data: the upright photo and its boxes in YOLO format.

Layout (ultralytics, like `python -m datasets generate`): `images/train/<id>.jpg`,
`labels/train/<id>.txt` (one `class cx cy w h` line per box, normalised), `data.yaml` naming the
classes of `vision.classes.CLASSES`. A player's set has no held-out split, so `val` points at the
same images; saving the same photo again overwrites its files with the latest corrections.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import yaml

from datasets.yolo import yolo_lines
from vision.classes import CLASSES

JPEG_QUALITY = 95


@dataclass(frozen=True)
class Saved:
    image: Path
    labels: Path
    boxes: int


def save_example(folder: str | Path, name: str, image: np.ndarray, boxes: np.ndarray,
                 codes: list[str | None]) -> Saved:
    """Write the BGR photo (already upright) and its labelled boxes under `folder`."""
    root = Path(folder).expanduser()
    images, labels = root / "images" / "train", root / "labels" / "train"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise OSError("could not encode the photo as JPEG")
    image_path, label_path = images / f"{name}.jpg", labels / f"{name}.txt"
    image_path.write_bytes(jpeg.tobytes())
    lines = yolo_lines(boxes, codes, image.shape[1], image.shape[0])
    label_path.write_text("".join(line + "\n" for line in lines))
    data = {"path": str(root.resolve()), "train": "images/train", "val": "images/train",
            "names": dict(enumerate(CLASSES))}
    (root / "data.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return Saved(image_path, label_path, len(lines))
