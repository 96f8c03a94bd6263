"""Contact sheet of generated images with their label boxes, to look at realism and boxes.

`cell` and `sheet` are shared with the data-set checker, which draws its own samples."""

from pathlib import Path

import cv2
import numpy as np

from datasets.yolo import label_path_of
from vision.draw import draw_boxes
from vision.files import write_image
from vision.labels import read_labels
from vision.photo import load_photo

CELL = 480


def cell(image: np.ndarray, boxes: np.ndarray, names: list[str], caption: str,
         highlight: list[bool] | None = None) -> np.ndarray:
    """One CELL x CELL square: the image with its boxes drawn, shrunk to fit, captioned."""
    h, w = image.shape[:2]
    drawn = draw_boxes(image, boxes, names, highlight)
    s = CELL / max(h, w)
    drawn = cv2.resize(drawn, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA)
    out = np.full((CELL, CELL, 3), 40, np.uint8)
    out[: drawn.shape[0], : drawn.shape[1]] = drawn
    cv2.putText(out, caption, (4, CELL - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 0), 1)
    return out


def sheet(cells: list[np.ndarray], cols: int = 4) -> np.ndarray:
    """Cells in rows of `cols`, the last row padded with black."""
    cells = list(cells) or [np.zeros((CELL, CELL, 3), np.uint8)]
    while len(cells) % cols:
        cells.append(np.zeros((CELL, CELL, 3), np.uint8))
    return np.vstack([np.hstack(cells[i : i + cols]) for i in range(0, len(cells), cols)])


def contact_sheet(root: Path, n: int, out: Path, cols: int = 4) -> int:
    """The first `n` generated images (`images/<split>/*.jpg`) under `root` with their boxes, written to
    `out`; how many (ImageWriteError when `out` cannot be written)."""
    cells = []
    for path in sorted(Path(root).glob("images/*/*.jpg"))[:n]:
        img = load_photo(path)
        boxes, names = read_labels(label_path_of(Path(root), path), img.shape[1], img.shape[0])
        cells.append(cell(img, boxes, names, path.stem))
    if cells:
        write_image(out, sheet(cells, cols))
    return len(cells)
