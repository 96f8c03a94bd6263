"""Detections as a perfect detector would report a laid-out hand: for testing layout and correction
without a model. Rows of touching tiles, melds in a second row, flowers apart. `reading_at_a_table`:
the reading a hand-finding reader gives of such a hand among other tiles (for the app's tests)."""

from __future__ import annotations

import numpy as np

from scoring.hand import Hand
from scoring.melds import GroupRole
from vision.classes import CLASS_INDEX, CLASSES
from vision.detections import Detections
from vision.groups import TileGroup
from vision.notices import Notice
from vision.read import PhotoReading, Proposal, Row, shown_rows

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


def around_the_hand(dets: Detections, wall: bool = False, discards: int = 0, loose: str | None = None,
                    seed: int = 0) -> Detections:
    """`dets` (a hand from `laid_out`) with what a photo taken at a table shows besides: the player's
    wall of backs two high beyond the hand, discards smaller (farther) and turned every way beyond
    it in rows of six, and a loose tile on the row's line, well past its end. The hand's detections come first."""
    rng = np.random.default_rng(seed)
    top, right = float(dets.boxes[:, 1].min()), float(dets.boxes[:, 2].max())
    left = float(dets.boxes[:, 0].min())
    boxes, codes = [], []
    if wall:
        for layer in (0, 1):  # the upper layer sits higher, hiding part of the lower one
            y = top - 1.6 * TILE_H - layer * 0.6 * TILE_H
            for k in range(14):
                x = left + k * (TILE_W + 1)
                boxes.append((x, y, x + TILE_W, y + TILE_H))
                codes.append("back")
    faces = [c for c in CLASSES if c != "back" and not c.endswith("f")]
    for k in range(discards):  # in rows of six, each turned a little
        w, h = 0.7 * TILE_W, 0.7 * TILE_H
        t = np.radians(rng.uniform(-20, 20))
        bw, bh = abs(w * np.cos(t)) + abs(h * np.sin(t)), abs(w * np.sin(t)) + abs(h * np.cos(t))
        cx, cy = left + 3 * TILE_W + (k % 6) * 1.4 * TILE_W, top - (4.5 + 1.4 * (k // 6)) * TILE_H
        boxes.append((cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2))
        codes.append(str(rng.choice(faces)))
    if loose is not None:
        row = dets.boxes[np.argmax(dets.boxes[:, 2])]
        x = right + 4 * TILE_W
        boxes.append((x, float(row[1]), x + TILE_W, float(row[3])))
        codes.append(loose)
    extra = Detections(np.array(boxes, np.float32).reshape(-1, 4), one_hot(codes))
    return Detections.concat([Detections(dets.boxes, dets.scores), extra])


def reading_at_a_table(hand: Hand, missed: int, apart: list[str], recoded: dict[int, str]) -> PhotoReading:
    """`hand` laid out (`laid_out`, winning tile set apart) with its concealed tile `missed` not in the
    photo and the tiles `apart` in a row beside its melds, read as a reader that finds the hand would: the
    hand's groups, the tiles `apart` in a group set apart, the missed tile a supposed row in the concealed
    group. Two runner-ups: the concealed tiles `recoded` ({index in hand.concealed: code}) read otherwise,
    and the flowers set apart with the other loose tiles (`hand` needs flowers and no concealed kong)."""
    dets, codes = laid_out(hand)
    keep = [i for i in range(len(codes)) if i != missed]
    beside = np.array([[800.0 + 31 * k, 630.0, 830.0 + 31 * k, 670.0] for k in range(len(apart))], np.float32)
    photo = Detections.concat([dets[keep], Detections(beside.reshape(-1, 4), one_hot(apart))])
    photo = photo.with_facts(id=range(len(photo)))
    codes = [codes[i] for i in keep] + list(apart)
    n = len(hand.concealed)  # the concealed tiles and the winning tile come first, one short
    supposed = len(codes)  # its id: past every detection's
    groups = [TileGroup("concealed", (*range(n - 1), supposed, n - 1), win=n - 1, win_apart=True)]
    at = n
    for meld in hand.melds:
        groups.append(TileGroup(meld.kind, tuple(range(at, at + len(meld.tiles)))))
        at += len(meld.tiles)
    flowers = tuple(range(at, at + len(hand.flowers)))
    loose = tuple(range(len(keep), len(codes)))
    added = Row(supposed, hand.concealed[missed], hand.concealed[missed], 0.0, 0.0, None, supposed=True)

    def proposal(codes, groups, probability=1.0, differs=()):
        why = ["legal hand" if c != r else "" for c, r in zip(codes, photo.raw_codes, strict=True)]
        return Proposal((*shown_rows(photo, codes, why), added), tuple(groups), probability, tuple(differs))

    shift = [i - (i > missed) for i in recoded]  # detection index of each recoded concealed tile
    new_codes = dict(zip(shift, recoded.values(), strict=True))
    misread = proposal([new_codes.get(i, c) for i, c in enumerate(codes)],
                       (*groups, TileGroup("flowers", flowers), TileGroup("unknown", loose, GroupRole.APART)), 0.5,
                       (Notice.of("alt-tile", number=i + 1, before=codes[i], after=c) for i, c in new_codes.items()))
    no_flowers = proposal(codes, (*groups, TileGroup("unknown", flowers + loose, GroupRole.APART)), 0.25,
                          (Notice.of("alt-set-apart", tiles=hand.flowers),))
    best = proposal(codes, (*groups, TileGroup("flowers", flowers), TileGroup("unknown", loose, GroupRole.APART)))
    return PhotoReading(best, True, 0.8, (), (misread, no_flowers))
