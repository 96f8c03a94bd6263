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

from vision.classes import CLASS_INDEX, CLASSES

JPEG_QUALITY = 95


@dataclass(frozen=True)
class Saved:
    image: Path
    labels: Path
    boxes: int


def yolo_lines(boxes: np.ndarray, codes: list[str | None], width: int, height: int) -> list[str]:
    """`class cx cy w h` (normalised to the image) for every box with a code; None codes are skipped."""
    lines = []
    for (x0, y0, x1, y1), code in zip(np.asarray(boxes, np.float64).reshape(-1, 4), codes, strict=True):
        if code is None:
            continue
        x0, x1 = np.clip([x0, x1], 0, width)
        y0, y1 = np.clip([y0, y1], 0, height)
        lines.append(f"{CLASS_INDEX[code]} {(x0 + x1) / 2 / width:.6f} {(y0 + y1) / 2 / height:.6f} "
                     f"{(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}")
    return lines


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
