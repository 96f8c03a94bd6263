"""YOLO-format tile data sets: which files are images and labels, and where a label file lives (a
label file's lines: vision/labels.py). Layouts: `images/<split>/x.jpg` with `labels/<split>/x.txt`
(ultralytics), `<split>/images` with `<split>/labels` (Roboflow exports), or labels next to their
images. A label belongs to the image whose path has its last `images` folder replaced by `labels`, as
ultralytics pairs them.
"""

from __future__ import annotations

from pathlib import Path

from vision.photo import PHOTO_FORMATS

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".heic"}
# Their formats by content (Pillow's names): a player's photo formats, and what else ultralytics trains on.
DATASET_FORMATS = PHOTO_FORMATS | {"BMP", "TIFF"}


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
