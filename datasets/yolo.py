"""YOLO-format tile data sets: label lines, label files and where a label file lives.

A label line is `class cx cy w h`, the box centre and size normalised to the image. Layouts:
`images/<split>/x.jpg` with `labels/<split>/x.txt` (ultralytics), `<split>/images` with
`<split>/labels` (Roboflow exports), or labels next to their images. A label belongs to the image
whose path has its last `images` folder replaced by `labels`, as ultralytics pairs them.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from scoring.hand import brief
from vision.classes import CLASS_INDEX, CLASSES
from vision.photo import PHOTO_FORMATS

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".heic"}
# Their formats by content (Pillow's names): a player's photo formats, and what else ultralytics trains on.
DATASET_FORMATS = PHOTO_FORMATS | {"BMP", "TIFF"}


class LabelError(ValueError):
    """A label file that cannot be read as tile boxes (`python -m datasets check` says why)."""


def parse_line(text: str) -> tuple[int, float, float, float, float] | str:
    """(class id, cx, cy, w, h) or a reason the line is malformed; the class id is not range-checked."""
    fields = text.split()
    if len(fields) != 5:
        return f"{len(fields)} fields, expected 5 (class cx cy w h)"
    try:
        cls = int(fields[0])
    except ValueError:
        return f"class {brief(fields[0])} is not an integer"
    try:
        values = [float(v) for v in fields[1:]]
    except ValueError:
        return "coordinates are not numbers"
    if not all(math.isfinite(v) for v in values):
        return "coordinates are not finite"
    return (cls, *values)


def to_xyxy(cx: float, cy: float, w: float, h: float, width: int, height: int) -> np.ndarray:
    """A normalised centre/size box as x1 y1 x2 y2 pixels of a width x height image."""
    return np.array([(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height])


def read_labels(label: Path, width: int, height: int) -> tuple[np.ndarray, list[str]]:
    """A label file as (boxes xyxy in pixels as float32, codes); LabelError on a bad line or class."""
    boxes, codes = [], []
    for n, text in enumerate(Path(label).read_text().splitlines(), 1):
        if not text.strip():
            continue
        parsed = parse_line(text)
        if isinstance(parsed, str):
            raise LabelError(f"{label}:{n}: {parsed}")
        cls, *box = parsed
        if not 0 <= cls < len(CLASSES):
            raise LabelError(f"{label}:{n}: class {cls} is not in 0..{len(CLASSES) - 1}")
        boxes.append(to_xyxy(*box, width, height))
        codes.append(CLASSES[cls])
    return np.array(boxes, np.float32).reshape(-1, 4), codes


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


def label_path_of(root: Path, image: Path) -> Path:
    parts = image.relative_to(root).parts
    dirs = parts[:-1]
    if "images" in dirs:
        i = len(dirs) - 1 - dirs[::-1].index("images")
        parts = parts[:i] + ("labels",) + parts[i + 1 :]
    return root.joinpath(*parts).with_suffix(".txt")


def split_of(root: Path, image: Path) -> str:
    dirs = [d for d in image.relative_to(root).parts[:-1] if d != "images"]
    return "/".join(dirs) or "."


def find_files(root: Path) -> tuple[list[Path], list[Path]]:
    """(images, candidate label files) under root, sorted, skipping hidden folders."""
    root = Path(root)
    images, texts = [], []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if any(p.startswith(".") for p in rel) or not path.is_file():
            continue
        if path.suffix.lower() in IMAGE_SUFFIXES:
            images.append(path)
        elif path.suffix == ".txt":
            texts.append(path)
    image_dirs = {p.parent for p in images}
    # Label files live under a `labels` folder or beside their images; a flat export's
    # classes.txt is a list of names, not a label file.
    labels = [t for t in texts if "labels" in t.relative_to(root).parts[:-1]
              or (t.parent in image_dirs and t.name != "classes.txt")]
    return images, labels


def image_labels(root: Path) -> list[tuple[Path, Path | None]]:
    """(image, its label file or None when it has none) for every image under root."""
    root = Path(root)
    pairs = ((image, label_path_of(root, image)) for image in find_files(root)[0])
    return [(image, label if label.is_file() else None) for image, label in pairs]
