"""Tile bodies: the ivory/white/cream top a face sits on, coloured backs, and the thickness
strip (front edge when lying, top edge when standing) that makes a tile look solid.

All images are float32 BGRA 0..255 at TOP_W wide; a sprite is a top plus its strip.
"""

from functools import lru_cache

import cv2
import numpy as np

TOP_W, TOP_H = 120, 160
BODY_COLOURS = ((228, 242, 250), (240, 243, 245), (205, 228, 240), (215, 235, 245))  # BGR
BACK_COLOURS = ((70, 140, 30), (60, 105, 20), (170, 95, 40), (40, 170, 225), (45, 45, 185), (212, 220, 224))


def scene_palette(rng: np.random.Generator) -> dict:
    """One set's body and back colours (real sets: ivory face layer over a coloured back)."""
    body = np.array(BODY_COLOURS[int(rng.integers(len(BODY_COLOURS)))], np.float32)
    back = np.array(BACK_COLOURS[int(rng.integers(len(BACK_COLOURS)))], np.float32)
    return {
        "body": body + rng.normal(0, 4, 3).astype(np.float32),
        "back": back + rng.normal(0, 10, 3).astype(np.float32),
        "two_layer": bool(rng.random() < 0.75),
        "face_scale": float(rng.uniform(0.8, 0.92)),
    }


@lru_cache(maxsize=16)
def rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    """Anti-aliased rounded-rectangle coverage, float32 0..1."""
    m = np.zeros((h * 4, w * 4), np.uint8)
    r = radius * 4
    cv2.rectangle(m, (r, 0), (w * 4 - r - 1, h * 4 - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w * 4 - 1, h * 4 - r - 1), 255, -1)
    for cx, cy in ((r, r), (w * 4 - r - 1, r), (r, h * 4 - r - 1), (w * 4 - r - 1, h * 4 - r - 1)):
        cv2.circle(m, (cx, cy), r, 255, -1)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


@lru_cache(maxsize=16)
def _bevel(w: int, h: int) -> np.ndarray:
    """Shading that darkens the rim of a top a little, as the rounded edge turns away."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.minimum.reduce([xx, yy, w - 1 - xx, h - 1 - yy]) / (0.08 * w)
    return (0.86 + 0.14 * np.clip(d, 0, 1))[:, :, None]


def body_top(colour: np.ndarray, face: np.ndarray | None, face_scale: float) -> np.ndarray:
    """A blank top in `colour` with the RGBA face glyph layer (any size) centred on it."""
    top = np.empty((TOP_H, TOP_W, 4), np.float32)
    top[:, :, :3] = colour
    if face is not None:
        fw, fh = int(TOP_W * face_scale), int(TOP_H * face_scale)
        scale = min(fw / face.shape[1], fh / face.shape[0])
        fw, fh = max(1, int(face.shape[1] * scale)), max(1, int(face.shape[0] * scale))
        f = cv2.resize(face, (fw, fh), interpolation=cv2.INTER_AREA)
        x0, y0 = (TOP_W - fw) // 2, (TOP_H - fh) // 2
        roi = top[y0 : y0 + fh, x0 : x0 + fw, :3]
        a = f[:, :, 3:] / 255
        roi[:] = roi * (1 - a) + f[:, :, :3] * a
    top[:, :, :3] *= _bevel(TOP_W, TOP_H)
    top[:, :, 3] = rounded_mask(TOP_W, TOP_H, 10) * 255
    return top


def crop_top(crop_bgr: np.ndarray) -> np.ndarray:
    """A real tile crop (an upright face photo) as a top with rounded corners."""
    top = np.empty((TOP_H, TOP_W, 4), np.float32)
    top[:, :, :3] = cv2.resize(crop_bgr, (TOP_W, TOP_H), interpolation=cv2.INTER_AREA)
    top[:, :, 3] = rounded_mask(TOP_W, TOP_H, 10) * 255
    return top


def back_top(colour: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A face-down tile: the coloured back, lit a little unevenly."""
    top = np.empty((TOP_H, TOP_W, 4), np.float32)
    grad = np.linspace(1.06, 0.94, TOP_H, dtype=np.float32)[:, None, None]
    top[:, :, :3] = colour * grad + rng.normal(0, 2, 3).astype(np.float32)
    top[:, :, :3] *= _bevel(TOP_W, TOP_H)
    top[:, :, 3] = rounded_mask(TOP_W, TOP_H, 10) * 255
    return np.clip(top, 0, 255)


def fit_width(rgba: np.ndarray) -> np.ndarray:
    """Scale any tile image to TOP_W wide (art sets differ in size and aspect)."""
    h, w = rgba.shape[:2]
    return cv2.resize(rgba, (TOP_W, max(8, round(h * TOP_W / w))), interpolation=cv2.INTER_AREA)


def with_thickness(
    top: np.ndarray, palette: dict, edge: float, upright: bool, is_back: bool
) -> np.ndarray:
    """Add the visible edge strip, `edge` x TOP_W tall: below the top for a lying tile seen
    from the front, above the face for a standing tile seen from the front."""
    h, w = top.shape[:2]
    e = int(round(edge * w))
    if e < 2:
        return top
    opaque = top[:, :, 3] > 200
    bottom_rows = top[max(0, h - 12) : h][opaque[max(0, h - 12) : h]][:, :3]
    body = np.median(bottom_rows, axis=0) if len(bottom_rows) else palette["body"]
    if is_back:  # face down: the back's colour, then the ivory face layer under it (a wall's stripes)
        layers = [(body, 0.5), (palette["body"], 0.5)]
    elif not palette["two_layer"]:
        layers = [(body, 1.0)]
    else:  # face layer then the coloured back layer, as on Taiwanese sets
        layers = [(body, 0.5), (palette["back"], 0.5)]
    strip = np.empty((e, w, 3), np.float32)
    y = 0
    for i, (colour, frac) in enumerate(layers):
        n = e - y if i == len(layers) - 1 else int(e * frac)
        strip[y : y + n] = colour
        y += n
    if upright:
        strip = strip[::-1] * 0.97  # the top edge catches the light
    else:
        strip = strip * np.linspace(0.82, 0.68, e, dtype=np.float32)[:, None, None]
    sprite = np.zeros((h + e, w, 4), np.float32)
    r = 10
    full = rounded_mask(w, h + e, r) * 255
    if upright:
        sprite[:e, :, :3] = strip
        sprite[e:] = top
        sprite[: e + r, :, 3] = full[: e + r]
    else:
        sprite[:h] = top
        sprite[h:, :, :3] = strip
        sprite[h - r :, :, 3] = full[h - r :]
    # The seam between top and strip: a thin dark line reads as the tile's edge.
    seam = e if upright else h
    sprite[max(0, seam - 1) : seam + 1, :, :3] *= 0.75
    return sprite


def hull(sprite: np.ndarray) -> np.ndarray:
    """Convex outline (N, 2) float32 of a sprite's opaque pixels, in sprite pixel coordinates."""
    opaque = sprite[:, :, 3] > 96
    rows = np.nonzero(opaque.any(1))[0]
    # Each row's first and last opaque pixel span the same hull as all of them, at a tenth the cost.
    first = opaque[rows].argmax(1)
    last = opaque.shape[1] - 1 - opaque[rows, ::-1].argmax(1)
    pts = np.concatenate([np.stack([first, rows], 1), np.stack([last, rows], 1)]).astype(np.int32)
    outline = cv2.convexHull(pts).reshape(-1, 2).astype(np.float32)
    return outline + np.float32([0.5, 0.5]) * np.sign(outline - outline.mean(0))
