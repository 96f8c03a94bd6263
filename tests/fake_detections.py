"""Detections as a perfect detector would report a laid-out hand: for testing layout and correction
without a model. Rows of touching tiles, melds in a second row, flowers apart."""

from __future__ import annotations

import numpy as np

from scoring.hand import Hand
from vision.classes import CLASS_INDEX, CLASSES
from vision.detections import Detections

TILE_W, TILE_H = 30.0, 40.0


def laid_out(hand: Hand, win_apart: bool = True, angle: float = 0.0, gap: float = 1.0,
             melds_beside: float | None = None, noise: float = 0.0, seed: int = 0,
             face_down: bool = False) -> tuple[Detections, list[str]]:
    """Boxes for `hand` as a player shows it; `angle` turns the whole layout (degrees). `melds_beside`:
    the melds go first in the concealed row's line, this many tile widths apart from it and each other,
    instead of in a second row. `noise`: each box edge off by this many tile widths (standard deviation).
    A concealed kong shows its two middle tiles, or none with `face_down`."""
    centers, codes = [], []
    x = 0.0
    if melds_beside is not None:
        for meld in hand.melds:
            for code in meld.tiles:
                centers.append((x + TILE_W / 2, 0.0))
                codes.append(code)
                x += TILE_W + gap
            x += melds_beside * TILE_W
    tiles = [*hand.concealed, hand.win]
    for n, code in enumerate(tiles):
        if win_apart and n == len(tiles) - 1:
            x += TILE_W  # the winning tile a tile's width apart
        centers.append((x + TILE_W / 2, 0.0))
        codes.append(code)
        x += TILE_W + gap
    x = 0.0
    for meld in hand.melds if melds_beside is None else ():
        middle = ["back"] * 2 if face_down else list(meld.tiles[1:3])
        shown = ["back", *middle, "back"] if meld.kind == "ankong" else list(meld.tiles)
        for code in shown:
            centers.append((x + TILE_W / 2, 2 * TILE_H))
            codes.append(code)
            x += TILE_W + gap
        x += TILE_W
    x += TILE_W
    for code in hand.flowers:
        centers.append((x + TILE_W / 2, 2 * TILE_H))
        codes.append(code)
        x += TILE_W + gap
    c = np.array(centers) @ _rotation(angle).T + 500.0
    # The axis-aligned box of a turned tile, as a detector would draw it.
    half = np.abs(_rotation(angle)) @ np.array([TILE_W / 2, TILE_H / 2])
    boxes = np.concatenate([c - half, c + half], axis=1)
    boxes += np.random.default_rng(seed).normal(0.0, noise * TILE_W, boxes.shape)
    return Detections(boxes.astype(np.float32), one_hot(codes)), codes


def one_hot(codes: list[str], top: float = 0.9, rest: float = 0.002) -> np.ndarray:
    scores = np.full((len(codes), len(CLASSES)), rest, np.float32)
    for i, code in enumerate(codes):
        scores[i, CLASS_INDEX[code]] = top
    return scores


def _rotation(degrees: float) -> np.ndarray:
    t = np.radians(degrees)
    return np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
