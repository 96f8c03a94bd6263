"""A photo of a printed photo: the scene printed on paper (ink that never gets black, duller
colours, often a halftone screen, paper grain), the sheet lying on a table, photographed a little
askew with its edge in view. Returns the photo and the homography that moved the scene in it."""

import cv2
import numpy as np


def _print(rng, scene: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """The scene as ink on paper: coverage 0 (paper) .. 1 (the darkest the ink gets)."""
    h, w = scene.shape[:2]
    grey = scene.mean(2, keepdims=True)
    ink = 1 - np.clip(grey + (scene - grey) * rng.uniform(0.55, 0.9), 0, 255) / 255
    if rng.random() < 0.6:  # a 45-degree halftone screen, partly blurred away by the camera
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        period = rng.uniform(2.5, 4.5)
        screen = 0.5 + 0.25 * (np.cos(np.pi * (xx + yy) / period) + np.cos(np.pi * (xx - yy) / period))
        dots = np.clip((ink - screen[:, :, None]) * rng.uniform(2, 4) + 0.5, 0, 1)
        ink = ink + (dots - ink) * rng.uniform(0.3, 0.7)
    darkest = rng.uniform(0.72, 0.9)
    return paper * (1 - darkest * ink)


def printout(rng: np.random.Generator, scene: np.ndarray, table: np.ndarray):
    """(photo of the printed scene lying on `table`, 3x3 map from scene to photo pixels)."""
    h, w = scene.shape[:2]
    paper = np.float32([238, 242, 244]) + rng.normal(0, 5, 3).astype(np.float32)
    m = int(rng.uniform(0.04, 0.12) * max(w, h))
    ph, pw = h + 2 * m, w + 2 * m
    grain = 1 + rng.normal(0, 0.02, (ph, pw)).astype(np.float32)
    page = np.empty((ph, pw, 3), np.float32)
    page[:] = paper
    page[m : m + h, m : m + w] = _print(rng, scene, paper)
    page *= grain[:, :, None]
    # The sheet in the photo: fitted, a little bigger or smaller (an edge may run off), turned and
    # seen slightly off square.
    s = min(w / pw, h / ph) * rng.uniform(0.75, 1.05)
    a = np.deg2rad(rng.normal(0, 6))
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    half = np.array([[-pw, -ph], [pw, -ph], [pw, ph], [-pw, ph]]) * s / 2
    centre = np.array([w, h]) * (0.5 + rng.uniform(-0.08, 0.08, 2))
    dst = half @ rot.T + centre + rng.normal(0, 0.015 * min(w, h), (4, 2))
    src = np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]])
    P = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    sheet = cv2.warpPerspective(page, P, (w, h), flags=cv2.INTER_LINEAR)
    cover = cv2.warpPerspective(np.ones((ph, pw), np.float32), P, (w, h), flags=cv2.INTER_LINEAR)
    # The sheet lifts a little off the table: a thin soft shadow along its edge; light falls off
    # across it.
    shadow = cv2.GaussianBlur(cover, (0, 0), rng.uniform(1, 4))
    out = table * (1 - rng.uniform(0.15, 0.35) * shadow)[:, :, None]
    light = 1 + rng.uniform(-0.08, 0.08) * np.linspace(-1, 1, w, dtype=np.float32)[None, :, None]
    out = out * (1 - cover[:, :, None]) + sheet * light * cover[:, :, None]
    return out, P @ np.array([[1, 0, m], [0, 1, m], [0, 0, 1]])
