"""Procedural table surfaces: wood, felt (incl. mahjong-table green/blue), mats, cloth, paper."""

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


def wood(rng, h, w):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, np.pi)
    u = xx * np.cos(a) + yy * np.sin(a)
    v = -xx * np.sin(a) + yy * np.cos(a)
    warp = _low_freq(rng, h, w, 4, 25)
    grain = np.sin((v + warp) * rng.uniform(0.05, 0.2) + np.sin(u * 0.01) * 2)
    grain = 0.5 + 0.5 * grain + _fine_noise(rng, h, w, 0.15, 1.0)
    dark = _colour(rng, [30, 60, 100], 15)
    light = _colour(rng, [80, 130, 185], 20)
    t = np.clip(grain, 0, 1)[:, :, None]
    return dark * (1 - t) * 0.6 + light * (0.4 + 0.6 * t) * 0.8


def felt(rng, h, w):
    base = [[60, 120, 30], [120, 80, 20], [50, 90, 40], [70, 70, 150], [60, 60, 60]]
    c = _colour(rng, base[int(rng.integers(len(base)))], 15)
    img = np.empty((h, w, 3), np.float32)
    img[:] = c
    return img * (1 + 0.08 * _low_freq(rng, h, w))[:, :, None] + _fine_noise(rng, h, w, 8, 0.7)[
        :, :, None
    ]


def plain(rng, h, w):
    c = _colour(rng, rng.uniform(40, 230, 3), 5)
    img = np.empty((h, w, 3), np.float32)
    img[:] = c
    return img * (1 + 0.06 * _low_freq(rng, h, w, 3))[:, :, None] + _fine_noise(rng, h, w, 3)[
        :, :, None
    ]


def dotted_mat(rng, h, w):
    img = plain(rng, h, w)
    step = int(rng.integers(8, 24))
    dot = _colour(rng, rng.uniform(0, 255, 3), 10)
    r = max(1, int(step * rng.uniform(0.12, 0.3)))
    for y in range(step // 2, h, step):
        off = step // 2 if (y // step) % 2 else 0
        for x in range(off, w, step):
            cv2.circle(img, (x, y), r, dot.tolist(), -1, cv2.LINE_AA)
    return img


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
    stripe = _colour(rng, rng.uniform(0, 255, 3), 10)
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


GENERATORS = {
    "wood": (wood, 3.0),
    "felt": (felt, 3.0),
    "plain": (plain, 2.0),
    "dotted_mat": (dotted_mat, 1.0),
    "woven": (woven, 1.0),
    "cloth": (cloth, 1.5),
    "paper": (paper, 1.0),
}


def background(rng: np.random.Generator, h: int, w: int) -> tuple[np.ndarray, str]:
    """A (h, w, 3) float32 BGR table surface and its kind. Built at half size (textures are
    smooth enough) then upscaled, which keeps generation fast."""
    names = list(GENERATORS)
    weights = np.array([GENERATORS[n][1] for n in names])
    name = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    small = GENERATORS[name][0](rng, h // 2 + 1, w // 2 + 1)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(img, 0, 255), name
