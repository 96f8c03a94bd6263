"""Contact sheet of generated images with their label boxes, to look at realism and boxes."""

from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASSES
from vision.draw import draw_boxes

CELL = 480


def read_labels(label_path: Path, w: int, h: int):
    rows = [ln.split() for ln in label_path.read_text().splitlines() if ln.strip()]
    boxes = np.array(
        [[(float(x) - float(bw) / 2) * w, (float(y) - float(bh) / 2) * h,
          (float(x) + float(bw) / 2) * w, (float(y) + float(bh) / 2) * h]
         for _, x, y, bw, bh in rows]
    ).reshape(-1, 4)
    return boxes, [CLASSES[int(r[0])] for r in rows]


def contact_sheet(root: Path, n: int, out: Path, cols: int = 4) -> None:
    images = sorted(Path(root).glob("images/*/*.jpg"))[:n]
    cells = []
    for path in images:
        img = cv2.imread(str(path))
        h, w = img.shape[:2]
        label = path.parent.parent.parent / "labels" / path.parent.name / f"{path.stem}.txt"
        boxes, names = read_labels(label, w, h)
        drawn = draw_boxes(img, boxes, names)
        s = CELL / max(h, w)
        drawn = cv2.resize(drawn, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA)
        cell = np.full((CELL, CELL, 3), 40, np.uint8)
        cell[: drawn.shape[0], : drawn.shape[1]] = drawn
        cv2.putText(cell, path.stem, (4, CELL - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 0), 1)
        cells.append(cell)
    while len(cells) % cols:
        cells.append(np.zeros((CELL, CELL, 3), np.uint8))
    rows = [np.hstack(cells[i : i + cols]) for i in range(0, len(cells), cols)]
    cv2.imwrite(str(out), np.vstack(rows))
