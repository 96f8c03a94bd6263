"""Real close-ups: a tile photographed near, filling 0.6-0.9 of the frame's height (a third to a half of its area),
made from real photos.

    python -m datasets.close_ups OUT [--side 1024]

Each close-up of `CLOSE_UPS` is one of two kinds:
- a cut from a labelled real photo (`real-labelled/<set>/images/{train,val}`, never a test split) around one tile,
  the 4:3 window sized so that tile fills `fill` of its height, kept inside the photo's content (not its letterbox
  bars); the labels are those of the boxes lying mostly (`INSIDE`) in the window;
- a real crop of a design the models never trained on (`real-crops/<code>/<file>`, 240x320, numbered in
  `datasets.styles.HELD_OUT_CROP_RANGES`) on a procedural table surface
  (`datasets.backgrounds`), the tile filling `fill` of the frame's height, labelled with its code.
Both are resized to `side` px wide (4:3) and written as `<name>.jpg` (quality 85) and `<name>.txt` (YOLO labels, our
43 classes). The same OUT results every time: nothing is drawn at random but the surface, from a fixed seed.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from datasets.backgrounds import felt, wood
from datasets.shared import require_shared
from vision.labels import read_labels, yolo_lines

INSIDE = 0.6  # a labelled box this much inside the window is one of the close-up's tiles
ASPECT = 4 / 3  # a phone's frame, landscape
CONTENT = 12  # a row or column of the photo darker than this on average is a letterbox bar


@dataclass(frozen=True)
class CloseUp:
    name: str
    source: str  # "<set>/<split>/<photo id>" of a labelled photo, or "crop/<code>/<file>" of a real crop
    tile: int | str  # which labelled box (its line in the labels), or the crop's surface ("felt", "wood")
    fill: float  # the tile's height over the frame's


CLOSE_UPS = (
    CloseUp("hk-val-5f-in-two-rows", "hk-bonus-label/val/il_fullxfull-445755834", 6, 0.8),
    CloseUp("hk-val-2f-in-two-rows", "hk-bonus-label/val/il_fullxfull-445755834", 1, 0.7),
    CloseUp("hk-train-3f-on-a-mat", "hk-bonus-label/train/IMG_3288", 1, 0.75),
    CloseUp("hk-train-1f-on-a-mat", "hk-bonus-label/train/IMG_3256", 0, 0.9),
    CloseUp("hk-train-7f-on-a-mat", "hk-bonus-label/train/IMG_3265", 1, 0.8),
    CloseUp("crop-8f-on-felt", "crop/8f/587.jpg", "felt", 0.9),
    CloseUp("crop-4f-on-wood", "crop/4f/149.jpg", "wood", 0.6),
    CloseUp("crop-2f-on-felt", "crop/2f/593.jpg", "felt", 0.8),
    CloseUp("crop-6f-on-wood", "crop/6f/154.jpg", "wood", 0.75),
)


def photo_files(source: str) -> tuple[Path, Path]:
    """The image and label files of a labelled photo `<set>/<split>/<photo id>` (the id: before `.rf.`)."""
    name, split, photo = source.split("/")
    if split == "test":
        raise ValueError(f"{source}: close-ups are never cut from a test split")
    images = require_shared("data", "real-labelled", name, "images", split, needed_for="datasets.close_ups")
    found = sorted(p for p in images.iterdir() if p.name.startswith(photo + "_"))
    if len(found) != 1:
        raise ValueError(f"{source}: {len(found)} photos match, not 1")
    return found[0], images.parents[1] / "labels" / split / (found[0].stem + ".txt")


def content(image: np.ndarray) -> tuple[int, int, int, int]:
    """x1 y1 x2 y2 of the photo inside its letterbox bars."""
    grey = image.mean(axis=2)
    cols, rows = np.flatnonzero(grey.mean(axis=0) > CONTENT), np.flatnonzero(grey.mean(axis=1) > CONTENT)
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def window(box: np.ndarray, fill: float, bounds: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The 4:3 window centred on `box` where it fills `fill` of the height, moved (and shrunk, if it must) to lie
    inside `bounds`."""
    bx1, by1, bx2, by2 = bounds
    h = min((box[3] - box[1]) / fill, by2 - by1, (bx2 - bx1) / ASPECT)
    w = h * ASPECT
    x1 = np.clip((box[0] + box[2]) / 2 - w / 2, bx1, bx2 - w)
    y1 = np.clip((box[1] + box[3]) / 2 - h / 2, by1, by2 - h)
    return round(x1), round(y1), round(x1 + w), round(y1 + h)


def cut(close_up: CloseUp, side: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A close-up cut from a labelled photo: the frame `side` px wide, its boxes and codes."""
    image_file, label_file = photo_files(close_up.source)
    image = cv2.imread(str(image_file))
    boxes, codes = read_labels(label_file, image.shape[1], image.shape[0])
    x1, y1, x2, y2 = window(boxes[int(close_up.tile)], close_up.fill, content(image))
    inside = np.clip(boxes, [x1, y1, x1, y1], [x2, y2, x2, y2])
    area = lambda b: (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])  # noqa: E731
    kept = np.flatnonzero(area(inside) >= INSIDE * area(boxes))
    scale = side / (x2 - x1)
    frame = cv2.resize(image[y1:y2, x1:x2], (side, round(side / ASPECT)), interpolation=cv2.INTER_CUBIC)
    return frame, (inside[kept] - [x1, y1, x1, y1]) * scale, [codes[k] for k in kept]


def on_table(close_up: CloseUp, side: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A real crop laid on a table surface in the middle of a frame `side` px wide, its box and code."""
    _, code, file = close_up.source.split("/")
    tile = cv2.imread(str(require_shared("data", "real-crops", code, file, needed_for="datasets.close_ups")))
    height = round(side / ASPECT)
    th = round(close_up.fill * height)
    tw = round(tile.shape[1] * th / tile.shape[0])
    surface = {"felt": felt, "wood": wood}[str(close_up.tile)]
    frame = np.clip(surface(np.random.default_rng(0), height, side), 0, 255).astype(np.uint8)
    x1, y1 = (side - tw) // 2, (height - th) // 2
    frame[y1:y1 + th, x1:x1 + tw] = cv2.resize(tile, (tw, th), interpolation=cv2.INTER_CUBIC)
    return frame, np.array([[x1, y1, x1 + tw, y1 + th]], np.float32), [code]


def make(close_up: CloseUp, side: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    return (on_table if close_up.source.startswith("crop/") else cut)(close_up, side)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m datasets.close_ups", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--side", type=int, default=1024, help="each close-up's width in px (4:3)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for close_up in CLOSE_UPS:
        frame, boxes, codes = make(close_up, args.side)
        cv2.imwrite(str(args.out / f"{close_up.name}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        lines = yolo_lines(boxes, codes, frame.shape[1], frame.shape[0])
        (args.out / f"{close_up.name}.txt").write_text("\n".join(lines) + "\n")
        print(f"{close_up.name}: {' '.join(codes)}")


if __name__ == "__main__":
    main()
