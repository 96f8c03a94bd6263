"""What else lies on a mahjong table, drawn as sprites lying on the table plane (never labelled):
keyboards (rows of small keycaps, the tile-like thing detectors mistake most), phones, cups, chips
and coins, dice, wind markers (a disc or cube with 東南西北), printed paper with characters, and an
automatic table's centre console (a raised square with a display and a dice window).

Each maker returns BGRA float32 sprites at `res` pixels per table unit (one tile width). Solid
things get their near side drawn below their top (`rise`: pixels of side per unit of height at
this camera tilt), as a tile's front edge is, so they look raised under the camera's tilt.
"""

import cv2
import numpy as np

from datasets.tile_bodies import rounded_mask
from datasets.tile_faces import FLOWER_CHARS, FONT_FILES, HONOUR_CHARS, NUMERALS, put_char

WINDS = HONOUR_CHARS[:4]
PRINTED_CHARS = NUMERALS + "萬" + HONOUR_CHARS + FLOWER_CHARS  # what a score sheet or rule card prints
KEY_LABELS = "QWERTYUIOPASDFGHJKLZXCVBNM1234567890"


def _blank(w_px: int, h_px: int, colour, radius_frac: float = 0.1) -> np.ndarray:
    s = np.empty((h_px, w_px, 4), np.float32)
    s[:, :, :3] = colour
    s[:, :, 3] = rounded_mask(w_px, h_px, max(1, int(min(w_px, h_px) * radius_frac))) * 255
    return s


def _disc(d_px: int, colour) -> np.ndarray:
    s = np.zeros((d_px, d_px, 4), np.float32)
    s[:, :, :3] = colour
    m = np.zeros((d_px * 4, d_px * 4), np.uint8)
    cv2.circle(m, (d_px * 2, d_px * 2), d_px * 2 - 2, 255, -1)
    s[:, :, 3] = cv2.resize(m, (d_px, d_px), interpolation=cv2.INTER_AREA)
    return s


def _print_text(s: np.ndarray, lines: list[tuple[str, tuple, float, int]], colour) -> None:
    """Hershey text (OpenCV draws it on 8-bit images only) painted into a float sprite:
    `lines` of (text, bottom-left origin, scale, thickness), all in one colour."""
    ink = np.zeros(s.shape[:2], np.uint8)
    for text, org, scale, thickness in lines:
        cv2.putText(ink, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thickness, cv2.LINE_AA)
    a = ink[:, :, None].astype(np.float32) / 255
    s[:, :, :3] = s[:, :, :3] * (1 - a) + np.float32(colour) * a


def raised(top: np.ndarray, side_px: int, shade: float = 0.7) -> np.ndarray:
    """The top with its near side showing below it: the outline swept down `side_px` rows, in
    the top's bottom colour darkened by `shade`."""
    if side_px < 1:
        return top
    h, w = top.shape[:2]
    out = np.zeros((h + side_px, w, 4), np.float32)
    alpha = np.zeros((h + side_px, w), np.float32)
    alpha[:h] = top[:, :, 3]
    # Dilating with a column anchored at its bottom sweeps the outline down side_px rows.
    alpha = cv2.dilate(alpha, np.ones((side_px + 1, 1), np.uint8), anchor=(0, side_px))
    opaque = top[:, :, 3] > 128
    rows = np.nonzero(opaque.any(1))[0]
    colour = np.median(top[rows[-max(1, len(rows) // 10) :]][opaque[rows[-max(1, len(rows) // 10) :]]][:, :3], 0)
    ramp = np.linspace(1.0, 0.8, h + side_px, dtype=np.float32)[:, None, None]
    out[:, :, :3] = colour * shade * ramp
    out[:, :, 3] = alpha
    a = top[:, :, 3:] / 255
    out[:h, :, :3] = out[:h, :, :3] * (1 - a) + top[:, :, :3] * a
    return out


def keyboard(rng, res, rise):
    cols, rows = int(rng.integers(11, 16)), int(rng.integers(4, 7))
    pitch, key, margin = 0.73, rng.uniform(0.56, 0.66), 0.3
    px = lambda u: int(round(u * res))  # noqa: E731
    dark = rng.random() < 0.6
    body = np.float32(rng.uniform(20, 60, 1).repeat(3) if dark else rng.uniform(185, 235, 1).repeat(3))
    body += rng.normal(0, 6, 3).astype(np.float32)
    keycap = np.clip(body + (rng.uniform(5, 25) if dark else -rng.uniform(0, 20)), 0, 255)
    if rng.random() < 0.25:  # white keys on a dark board, or the other way round
        keycap = np.float32([235, 235, 235]) if dark else np.float32([40, 40, 40])
    ink = np.float32([230, 230, 230]) if keycap.mean() < 128 else np.float32([30, 30, 30])
    s = _blank(px(cols * pitch + 2 * margin), px(rows * pitch + 2 * margin), body, 0.05)
    k = px(key)
    labels = []
    for r in range(rows):
        c = 0
        while c < cols:
            wide = 5 if r == rows - 1 and c == cols // 2 - 2 else 1  # the space bar
            x0, y0 = px(margin + c * pitch), px(margin + r * pitch)
            x1 = x0 + px((wide - 1) * pitch) + k
            cap = np.clip(keycap * rng.uniform(0.95, 1.05), 0, 255)
            cv2.rectangle(s, (x0, y0), (x1, y0 + k), (*(cap * 0.8).tolist(), 255), -1, cv2.LINE_AA)
            inset = max(1, k // 8)
            cv2.rectangle(s, (x0 + inset, y0 + inset // 2), (x1 - inset, y0 + k - inset * 2),
                          (*cap.tolist(), 255), -1, cv2.LINE_AA)
            if wide == 1 and k >= 8:
                label = KEY_LABELS[int(rng.integers(len(KEY_LABELS)))]
                labels.append((label, (x0 + inset + 1, y0 + k // 2), k / 60, max(1, k // 20)))
            c += wide
    _print_text(s, labels, ink)
    return [raised(s, int(0.8 * rise * res))]


def phone(rng, res, rise):
    s = _blank(int(2.8 * res), int(5.8 * res), np.float32(rng.uniform(15, 200, 3)), 0.15)
    h, w = s.shape[:2]
    m = max(1, int(0.12 * res))
    screen = (m, m * 2, w - m, h - m * 2)
    if rng.random() < 0.5:  # off: black glass with a reflection
        cv2.rectangle(s, screen[:2], screen[2:], (12, 12, 14, 255), -1)
        band = np.linspace(0, 1, w, dtype=np.float32)[None, :, None]
        s[screen[1] : screen[3], screen[0] : screen[2], :3] += 40 * np.exp(-((band - rng.uniform()) ** 2) / 0.02)[
            :, screen[0] : screen[2]
        ]
    else:  # on: wallpaper and a grid of app icons
        top, bottom = rng.uniform(30, 230, 3), rng.uniform(30, 230, 3)
        ramp = np.linspace(0, 1, screen[3] - screen[1], dtype=np.float32)[:, None, None]
        s[screen[1] : screen[3], screen[0] : screen[2], :3] = top * (1 - ramp) + bottom * ramp
        icon, gap = (screen[2] - screen[0]) / 4 * 0.7, (screen[2] - screen[0]) / 4
        for r in range(int(rng.integers(3, 7))):
            for c in range(4):
                x0 = int(screen[0] + gap * c + (gap - icon) / 2)
                y0 = int(screen[1] + gap * 0.6 + r * gap * 1.2)
                cv2.rectangle(s, (x0, y0), (int(x0 + icon), int(y0 + icon)),
                              (*rng.uniform(20, 250, 3).tolist(), 255), -1, cv2.LINE_AA)
    return [raised(s, int(0.35 * rise * res))]


def cup(rng, res, rise):
    d = int(rng.uniform(2.6, 3.4) * res)
    body = np.float32(rng.uniform(60, 245, 3))
    s = _disc(d, body)
    drink = np.float32([(30, 70, 120), (20, 35, 60), (200, 210, 215), (60, 120, 150)][int(rng.integers(4))])
    cv2.circle(s, (d // 2, d // 2), int(d * 0.42), (*drink.tolist(), 255), -1, cv2.LINE_AA)
    return [raised(s, int(rng.uniform(2.5, 4.0) * rise * res), 0.8)]


def chips(rng, res, rise):
    out = []
    coins = rng.random() < 0.4
    for _ in range(int(rng.integers(2, 9))):
        d = int((rng.uniform(0.8, 1.1) if coins else rng.uniform(1.3, 1.6)) * res)
        if coins:
            metal = np.float32([(60, 160, 200), (180, 180, 185), (50, 110, 170)][int(rng.integers(3))])
            s = _disc(d, metal)
            cv2.circle(s, (d // 2, d // 2), int(d * 0.38), (*(metal * 0.8).tolist(), 255), max(1, d // 20),
                       cv2.LINE_AA)
        else:
            colour = np.float32([(40, 40, 200), (180, 80, 30), (50, 140, 40), (30, 30, 30), (230, 230, 230),
                                 (40, 180, 220)][int(rng.integers(6))])
            s = _disc(d, colour)
            for a in np.linspace(0, 2 * np.pi, 8, endpoint=False):  # the edge spots of a poker chip
                p = (int(d / 2 + np.cos(a) * d * 0.42), int(d / 2 + np.sin(a) * d * 0.42))
                cv2.circle(s, p, max(1, d // 12), (235, 235, 235, 255), -1, cv2.LINE_AA)
            cv2.circle(s, (d // 2, d // 2), int(d * 0.3), (235, 235, 235, 255), max(1, d // 25), cv2.LINE_AA)
        out.append(raised(s, int(0.12 * rise * res)))
    return out


def _pips(s, n, x0, y0, size, colour):
    layout = {1: [(0.5, 0.5)], 2: [(0.25, 0.25), (0.75, 0.75)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
              4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
              5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
              6: [(x, y) for y in (0.22, 0.5, 0.78) for x in (0.28, 0.72)]}
    for u, v in layout[n]:
        r = max(1, int(size * (0.13 if n == 1 else 0.09)))
        cv2.circle(s, (int(x0 + u * size), int(y0 + v * size)), r, (*colour, 255), -1, cv2.LINE_AA)


def dice(rng, res, rise):
    out = []
    for _ in range(int(rng.integers(1, 4))):
        size = int(rng.uniform(0.5, 0.7) * res)
        body = np.float32([(235, 240, 240), (40, 40, 190), (225, 235, 245)][int(rng.integers(3))])
        s = _blank(size, size, body, 0.18)
        n = int(rng.integers(1, 7))
        ink = (40, 40, 200) if n in (1, 4) and body[2] > 200 else (30, 30, 30) if body[2] > 200 else (235, 235, 235)
        _pips(s, n, 0, 0, size, ink)
        out.append(raised(s, int(size * rise), 0.85))
    return out


def wind_marker(rng, res, rise):
    char = WINDS[int(rng.integers(4))]
    font = int(rng.integers(len(FONT_FILES)))
    ink = [(30, 30, 190), (25, 25, 25), (40, 120, 30)][int(rng.integers(3))]
    if rng.random() < 0.5:  # a disc
        d = int(rng.uniform(1.6, 2.6) * res)
        s = _disc(d, np.float32(rng.uniform(150, 240, 3)))
        cv2.circle(s, (d // 2, d // 2), int(d * 0.42), (*ink, 255), max(1, d // 25), cv2.LINE_AA)
        put_char(s, char, font, (d * 0.25, d * 0.22, d * 0.75, d * 0.78), ink)
        return [raised(s, int(0.2 * rise * res))]
    size = int(rng.uniform(0.9, 1.4) * res)  # a cube
    s = _blank(size, size, np.float32(rng.uniform(150, 240, 3)), 0.12)
    put_char(s, char, font, (size * 0.15, size * 0.15, size * 0.85, size * 0.85), ink)
    return [raised(s, int(size * rise), 0.8)]


def paper(rng, res, rise):
    w, h = rng.uniform(4.5, 8.5), rng.uniform(6.0, 11.0)
    s = _blank(int(w * res), int(h * res), np.float32([236, 240, 242]) + rng.normal(0, 5, 3).astype(np.float32), 0.01)
    hp, wp = s.shape[:2]
    ink = (30, 30, 30) if rng.random() < 0.7 else (40, 40, 170)
    line = rng.uniform(0.3, 0.6) * res
    font = int(rng.integers(len(FONT_FILES)))
    y = line * 1.5
    while y + line < hp - line:
        x = line
        for _ in range(int(rng.integers(3, 40))):
            if x + line > wp - line:
                break
            if rng.random() < 0.15:  # a space between words
                x += line
                continue
            put_char(s, PRINTED_CHARS[int(rng.integers(len(PRINTED_CHARS)))], font, (x, y, x + line * 0.9,
                     y + line * 0.9), ink)
            x += line
        y += line * rng.uniform(1.4, 2.0)
    if rng.random() < 0.4:  # a score sheet's grid
        step = max(4, int(rng.uniform(0.8, 1.5) * res))
        for gx in range(step, wp, step):
            cv2.line(s, (gx, 0), (gx, hp), (80, 80, 80, 255), 1)
    return [s]


def console(rng, res, rise, side_units):
    """An automatic table's centre: a raised square with a small display and a dice window."""
    n = int(side_units * res)
    dark = rng.random() < 0.6
    colour = np.float32(rng.uniform(25, 60, 1).repeat(3) if dark else rng.uniform(120, 200, 3))
    s = _blank(n, n, colour, 0.06)
    cv2.rectangle(s, (n // 12, n // 12), (n - n // 12, n - n // 12), (*(colour * 1.25).clip(0, 255).tolist(), 255),
                  max(1, n // 60), cv2.LINE_AA)
    # The display: digits (the round, the dealer's seat) in red or green on black.
    x0, y0 = int(n * rng.uniform(0.3, 0.45)), int(n * 0.72)
    cv2.rectangle(s, (x0, y0), (x0 + n // 4, y0 + n // 10), (10, 10, 10, 255), -1)
    digit = (40, 40, 230) if rng.random() < 0.6 else (60, 220, 60)
    _print_text(s, [(f"{int(rng.integers(10))}{int(rng.integers(10))}", (x0 + n // 40, y0 + n // 12), n / 600,
                     max(1, n // 150))], digit)
    # The dice window: a clear dome with two dice under it.
    c, r = (n // 2, n // 2), int(n * rng.uniform(0.1, 0.16))
    cv2.circle(s, c, r, (*(colour * 0.6).tolist(), 255), -1, cv2.LINE_AA)
    for dx in (-1, 1):
        size = int(r * 0.6)
        x, y = c[0] + dx * int(r * 0.45) - size // 2, c[1] - size // 2 + int(rng.integers(-2, 3))
        cv2.rectangle(s, (x, y), (x + size, y + size), (235, 238, 240, 255), -1, cv2.LINE_AA)
        _pips(s, int(rng.integers(1, 7)), x, y, size, (30, 30, 30))
    cv2.circle(s, (c[0] - r // 3, c[1] - r // 3), max(1, r // 4), (250, 250, 250, 255), -1, cv2.LINE_AA)
    return raised(s, int(0.6 * rise * res), 0.75)


MAKERS = {"keyboard": keyboard, "phone": phone, "cup": cup, "chips": chips, "dice": dice,
          "wind_marker": wind_marker, "paper": paper}
FLAT = {"paper", "chips"}  # may lie at any angle; raised things keep their side toward the camera
