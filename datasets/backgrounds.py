"""Procedural table surfaces: wood, felt (incl. mahjong-table green/blue), mats, cloth, paper, and
the flat plastic top of an automatic table."""

import cv2
import numpy as np


def _low_freq(rng, h, w, cells=6, amp=1.0):
    """Smooth random field in -amp..amp (lighting blotches, felt unevenness)."""
    small = rng.normal(0, amp, (cells, max(2, cells * w // h))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _fine_noise(rng, h, w, sigma, blur=0):
    n = rng.normal(0, sigma, (h, w)).astype(np.float32)
    return cv2.GaussianBlur(n, (0, 0), blur) if blur else n


def _colour(rng, base, jitter=12):
    return np.clip(np.array(base, np.float32) + rng.normal(0, jitter, 3), 0, 255).astype(np.float32)


def _muted(rng, lo=40, hi=230):
    """A random colour pulled toward grey: tablecloths and mats are rarely fully saturated."""
    c = rng.uniform(lo, hi, 3)
    return (c.mean() + (c - c.mean()) * rng.uniform(0.3, 0.8)).astype(np.float32)


def _streaks(rng, h, w, length, sigma):
    """Noise stretched along x: the fine pores and fibres of wood."""
    small = rng.normal(0, sigma, (h, max(2, int(w / length)))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


WOODS = ((40, 62, 92), (55, 95, 150), (70, 120, 180), (95, 150, 200), (45, 75, 135))  # BGR mid tones


def wood(rng, h, w):
    """Flat-sawn planks: growth rings as long bands that wander slowly along the grain (x), dark
    latewood lines, fibre streaks, a tone per plank and thin seams between planks."""
    across = h > w and rng.random() < 0.5  # grain along the long side or across it
    if across:
        h, w = w, h
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    spacing = rng.uniform(4, 14)
    # Distortion varying slowly along the grain and faster across it: cathedral arches, not swirls.
    bend = cv2.resize(rng.normal(0, 1, (10, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    phase = (yy + spacing * rng.uniform(1.5, 4) * bend + 0.002 * (xx - w / 2) ** 2 * rng.uniform(-1, 1)) / spacing
    t = phase - np.floor(phase)
    rings = t ** rng.uniform(2, 5)  # light earlywood darkening into a sharp latewood line
    plank_h = int(rng.uniform(0.15, 0.5) * h) + 8
    plank = (yy // plank_h).astype(np.int32)
    tone = 1 + rng.normal(0, 0.07, plank.max() + 1).astype(np.float32)[plank]
    shade = tone * (1 - rng.uniform(0.15, 0.35) * rings) * (1 + _streaks(rng, h, w, 30, 0.05))
    shade *= 1 + 0.06 * _low_freq(rng, h, w, 3)
    seam = (yy % plank_h) < 1
    shade[seam] *= 0.6
    base = np.float32(WOODS[int(rng.integers(len(WOODS)))]) * rng.uniform(0.8, 1.15) + rng.normal(0, 4, 3)
    img = base.astype(np.float32) * shade[:, :, None]
    return img.transpose(1, 0, 2) if across else img


def felt(rng, h, w):
    base = [[60, 120, 30], [120, 80, 20], [50, 90, 40], [70, 70, 150], [60, 60, 60]]
    c = _colour(rng, base[int(rng.integers(len(base)))], 15)
    img = np.empty((h, w, 3), np.float32)
    img[:] = c
    return img * (1 + 0.08 * _low_freq(rng, h, w))[:, :, None] + _fine_noise(rng, h, w, 8, 0.7)[
        :, :, None
    ]


def plain(rng, h, w):
    c = _colour(rng, _muted(rng), 5)
    img = np.empty((h, w, 3), np.float32)
    img[:] = c
    return img * (1 + 0.06 * _low_freq(rng, h, w, 3))[:, :, None] + _fine_noise(rng, h, w, 3)[
        :, :, None
    ]


def dotted_mat(rng, h, w):
    """Dots on a staggered grid, anti-aliased from their distance to the nearest grid point."""
    img = plain(rng, h, w)
    step = rng.uniform(8, 24)
    dot = _muted(rng, 0, 255)
    r = max(1.0, step * rng.uniform(0.12, 0.3))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    row = np.round(yy / step)
    dy = yy - row * step
    dx = (xx - (row % 2) * step / 2 + step / 2) % step - step / 2
    m = np.clip(r - np.hypot(dx, dy) + 0.5, 0, 1)[:, :, None]
    return img * (1 - m) + dot * m


def woven(rng, h, w):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    p = rng.uniform(4, 12)
    weave = np.sin(xx / p * np.pi) * np.sin(yy / p * np.pi)
    c = _colour(rng, [110, 170, 200], 25)
    shade = 1 + 0.18 * np.sign(weave) * np.abs(weave) ** 0.5
    return c * shade[:, :, None] + _fine_noise(rng, h, w, 5)[:, :, None]


def cloth(rng, h, w):
    """Plaid/striped fabric."""
    img = plain(rng, h, w)
    stripe = _muted(rng, 0, 255)
    for axis in (0, 1):
        n = h if axis == 0 else w
        period = int(rng.integers(20, 80))
        width = int(rng.integers(2, period // 3 + 3))
        mask = ((np.arange(n) % period) < width).astype(np.float32) * rng.uniform(0.3, 0.7)
        m = mask[:, None] if axis == 0 else mask[None, :]
        img = img * (1 - m[:, :, None]) + stripe * m[:, :, None]
    return img + _fine_noise(rng, h, w, 4)[:, :, None]


def paper(rng, h, w):
    c = _colour(rng, [225, 235, 240], 8)
    img = np.empty((h, w, 3), np.float32)
    img[:] = c
    img += _fine_noise(rng, h, w, 4, 0.6)[:, :, None]
    if rng.random() < 0.4:  # ruled lines
        step = int(rng.integers(18, 40))
        img[::step] *= np.float32([0.85, 0.8, 0.75])
    return img


AUTO_TABLE_COLOURS = ((150, 150, 148), (75, 125, 45), (140, 95, 40), (45, 45, 48), (95, 60, 30), (60, 100, 40))


def auto_table(rng, h, w):
    """An automatic table's top: flat grey, green, blue or dark plastic or baize, a faint sheen
    across it and a little grain."""
    c = _colour(rng, AUTO_TABLE_COLOURS[int(rng.integers(len(AUTO_TABLE_COLOURS)))], 10)
    img = np.empty((h, w, 3), np.float32)
    img[:] = c
    yy = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    sheen = 1 + rng.uniform(0.03, 0.12) * np.exp(-((yy - rng.uniform(-1, 1)) ** 2) / rng.uniform(0.05, 0.5))
    grain = _fine_noise(rng, h, w, rng.uniform(1.5, 6), 0.6)
    return img * (sheen * (1 + 0.04 * _low_freq(rng, h, w, 3)))[:, :, None] + grain[:, :, None]


GENERATORS = {
    "wood": wood,
    "felt": felt,
    "plain": plain,
    "dotted_mat": dotted_mat,
    "woven": woven,
    "cloth": cloth,
    "paper": paper,
    "auto_table": auto_table,
}


MAX_CANVAS = 0.5  # texture pixels per image pixel, at most


def background(rng: np.random.Generator, h: int, w: int, cam, weights: dict) -> tuple[np.ndarray, str]:
    """A (h, w, 3) float32 BGR table surface seen through the camera, and its kind (drawn with
    `weights`, the recipe's `surfaces`).

    The texture is made flat on the patch of table the photo sees, at about half the image's
    scale (textures are smooth enough), then warped by the camera's homography, so its pattern
    recedes and turns with the tiles on it."""
    names = [n for n in GENERATORS if weights.get(n, 0) > 0]
    p = np.array([weights[n] for n in names])
    name = names[int(rng.choice(len(names), p=p / p.sum()))]
    # The table patch: preimage of the frame (a grid, in case the horizon comes near), at most
    # three frames wide around the frame centre's preimage.
    gx, gy = np.meshgrid(np.linspace(0, w, 5), np.linspace(0, h, 5))
    q = np.linalg.inv(cam.H) @ np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)])
    ahead = q[2] > 1e-9
    pts = (q[:2, ahead] / q[2, ahead]).T
    centre = pts[12] if ahead[12] else pts.mean(0)
    reach = 1.5 * np.array([w, h]) / cam.tile_px
    lo = np.maximum(pts.min(0), centre - reach)
    hi = np.minimum(pts.max(0), centre + reach)
    scale = cam.tile_px / 2  # texture pixels per table unit
    scale = min(scale, np.sqrt(MAX_CANVAS * w * h / np.prod(hi - lo)))
    cw, ch = (np.ceil((hi - lo) * scale) + 2).astype(int)
    small = GENERATORS[name](rng, ch, cw)
    to_table = np.array([[1 / scale, 0, lo[0]], [0, 1 / scale, lo[1]], [0, 0, 1]])
    img = cv2.warpPerspective(small.astype(np.float32), cam.H @ to_table, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT_101)
    return np.clip(img, 0, 255), name
