"""The phone camera: output size, tile size in pixels, and the homography from the table plane
(tile-width units) to the image, built as scale -> tilt (a trapezoid) -> roll -> placement."""

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Camera:
    width: int
    height: int
    tile_px: float  # width of a tile top in pixels before tilt
    tilt: float  # 0 = straight down; larger = lower camera (more foreshortening)
    roll: float  # degrees, in-plane rotation of the photo
    H: np.ndarray  # 3x3, table units -> image pixels

    @property
    def edge(self) -> float:
        """How much of a lying tile's front edge shows, in tile widths (thickness ~0.7 x tan)."""
        return 0.7 * float(np.tan(np.deg2rad(self.tilt))) * 0.6


def sample_size(rng: np.random.Generator, long_side: int, aspects) -> tuple[int, int]:
    """(width, height) for one of the recipe's ((width / height, weight), ...)."""
    ratios = np.array([p for _, p in aspects])
    aspect = aspects[int(rng.choice(len(aspects), p=ratios / ratios.sum()))][0]
    if aspect >= 1:
        return long_side, int(round(long_side / aspect / 2) * 2)
    return int(round(long_side * aspect / 2) * 2), long_side


def pick_in_bands(rng: np.random.Generator, bands, log: bool = False) -> float:
    """A value from ((lo, hi, weight), ...): a band by weight, then uniform in it (in log if `log`)."""
    w = np.array([b[2] for b in bands], np.float64)
    lo, hi, _ = bands[int(rng.choice(len(bands), p=w / w.sum()))]
    if log:
        return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
    return float(rng.uniform(lo, hi))


def sample_tile_px(rng: np.random.Generator, long_side: int, bands) -> float:
    """A tile's width in pixels from the recipe's bands at 640 px (log-uniform in a band), scaled
    to `long_side`. The default: mostly 26-64, sometimes 16-26 (a row across a third of a photo)
    or close-ups. The reader resizes a photo so its tiles come out near the training median
    (docs/decisions/detector-passes.md), so the bulk of the range is where tiles are large enough to tell 七 from
    四 apart."""
    return pick_in_bands(rng, bands, log=True) * long_side / 640


def sample_camera(rng, width, height, tile_px, extent, tilt_bands) -> Camera:
    """extent: (x0, y0, x1, y1) of the layout in table units; the layout is centred with a
    random shift, so big layouts at close-up run off the image (cut tiles at the border).
    tilt_bands: the recipe's ((lo, hi, weight), ...) in degrees from straight down."""
    tilt = pick_in_bands(rng, tilt_bands)
    u = rng.random()
    roll = rng.normal(0, 4) if u < 0.7 else rng.uniform(-20, 20) if u < 0.95 else rng.uniform(-180, 180)
    x0, y0, x1, y1 = extent
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    scale = np.array([[tile_px, 0, -cx * tile_px], [0, tile_px, -cy * tile_px], [0, 0, 1]])
    # Tilt: the far (top) side of a frame-sized rectangle shrinks and the plane foreshortens.
    w, h = width, height
    k = 1 - 0.9 * np.sin(np.deg2rad(tilt)) * rng.uniform(0.4, 0.8)
    fy = np.cos(np.deg2rad(tilt))
    src = np.float32([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    dst = np.float32([[-w / 2 * k, -h / 2 * fy], [w / 2 * k, -h / 2 * fy], [w / 2, h / 2 * fy],
                      [-w / 2, h / 2 * fy]])
    dst += rng.normal(0, 0.015 * w, dst.shape).astype(np.float32)
    tilt_h = cv2.getPerspectiveTransform(src, dst)
    a = np.deg2rad(roll)
    rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    # Keep the layout centre in the frame; shift by up to a third of the free room.
    lw, lh = (x1 - x0) * tile_px, (y1 - y0) * tile_px
    room_x, room_y = abs(w - lw) / 2, abs(h - lh) / 2
    shift = rng.uniform(-1, 1, 2) * [min(room_x, w / 3), min(room_y, h / 3)]
    place = np.array([[1, 0, w / 2 + shift[0]], [0, 1, h / 2 + shift[1]], [0, 0, 1]])
    H = place @ rot @ tilt_h @ scale
    return Camera(width, height, tile_px, float(tilt), float(roll), H / H[2, 2])


def apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Map (N, 2) points through a homography."""
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
