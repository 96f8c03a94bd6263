"""Taiwan-style tile faces drawn from scratch, so the detector never sees only the art sets.

Faces are RGBA (BGR + alpha) glyph layers on transparency, FACE_W x FACE_H, like the face-only
PNGs of the art sets, and go onto a body from tile_bodies. Characters come from a subset of
Noto CJK TC (see tools/make_font_subset.py), rendered once per process with Pillow.
"""

from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).resolve().parent / "assets" / "fonts"
FONT_FILES = ("NotoSerifTC-Bold-subset.otf", "NotoSansTC-Bold-subset.otf")
NUMERALS = "一二三四五六七八九"
HONOUR_CHARS = "東南西北中發"
FLOWER_CHARS = "梅蘭菊竹春夏秋冬"
# 伍 is the formal five many Taiwanese sets print on 5m (a look-alike the detector must learn).
FONT_TEXT = NUMERALS + "伍萬" + HONOUR_CHARS + FLOWER_CHARS + "12345678"
FACE_W, FACE_H = 120, 160

BLACK, RED, GREEN, BLUE = (25, 25, 25), (35, 30, 200), (50, 130, 20), (160, 70, 20)
DARK_GREEN = (40, 95, 20)

# Pip centres (x, y in 0..1 of the face) for dots and bamboo, the usual arrangements.
DOT_LAYOUT = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.27), (0.5, 0.73)],
    3: [(0.24, 0.2), (0.5, 0.5), (0.76, 0.8)],
    4: [(0.3, 0.27), (0.7, 0.27), (0.3, 0.73), (0.7, 0.73)],
    5: [(0.27, 0.22), (0.73, 0.22), (0.5, 0.5), (0.27, 0.78), (0.73, 0.78)],
    6: [(0.3, 0.18), (0.7, 0.18), (0.3, 0.55), (0.7, 0.55), (0.3, 0.84), (0.7, 0.84)],
    7: [(0.2, 0.13), (0.5, 0.24), (0.8, 0.35), (0.3, 0.6), (0.7, 0.6), (0.3, 0.86), (0.7, 0.86)],
    8: [(x, y) for y in (0.13, 0.38, 0.62, 0.87) for x in (0.3, 0.7)],
    9: [(x, y) for y in (0.19, 0.5, 0.81) for x in (0.2, 0.5, 0.8)],
}
BAMBOO_LAYOUT = {
    2: [(0.5, 0.28), (0.5, 0.72)],
    3: [(0.5, 0.28), (0.3, 0.72), (0.7, 0.72)],
    4: [(0.3, 0.28), (0.7, 0.28), (0.3, 0.72), (0.7, 0.72)],
    5: [(0.25, 0.28), (0.75, 0.28), (0.5, 0.5), (0.25, 0.72), (0.75, 0.72)],
    6: [(x, y) for y in (0.28, 0.72) for x in (0.22, 0.5, 0.78)],
    7: [(0.5, 0.17)] + [(x, y) for y in (0.5, 0.83) for x in (0.22, 0.5, 0.78)],
    8: [(x, y) for y in (0.28, 0.72) for x in (0.16, 0.38, 0.62, 0.84)],
    9: [(x, y) for y in (0.17, 0.5, 0.83) for x in (0.22, 0.5, 0.78)],
}
# Sticks drawn red in the common designs (index into BAMBOO_LAYOUT[n]).
RED_STICKS = {5: {2}, 7: {0}, 9: {1, 4, 7}}


@cache
def _glyph(char: str, font_index: int) -> np.ndarray:
    """Tight uint8 coverage mask of one character, rendered large once."""
    font = ImageFont.truetype(str(FONT_DIR / FONT_FILES[font_index]), 160)
    left, top, right, bottom = font.getbbox(char)
    img = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(img).text((2 - left, 2 - top), char, font=font, fill=255)
    return np.asarray(img)


def put_char(face, char, font_index, box, colour, keep_aspect=True):
    """Draw `char` into the face, fitted to box (x0, y0, x1, y1 in pixels)."""
    mask = _glyph(char, font_index)
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    bw, bh = x1 - x0, y1 - y0
    if keep_aspect:
        s = min(bw / mask.shape[1], bh / mask.shape[0])
        w, h = max(1, int(mask.shape[1] * s)), max(1, int(mask.shape[0] * s))
        x0, y0 = x0 + (bw - w) // 2, y0 + (bh - h) // 2
    else:
        w, h = bw, bh
    _paint(face, _fitted(char, font_index, w, h), x0, y0, colour)


@lru_cache(maxsize=512)
def _fitted(char: str, font_index: int, w: int, h: int) -> np.ndarray:
    """A glyph's coverage at w x h, float32 0..1 (printed paper draws the same few at one size)."""
    return cv2.resize(_glyph(char, font_index), (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


def _paint(face, m, x0, y0, colour):
    roi = face[y0 : y0 + m.shape[0], x0 : x0 + m.shape[1]]
    m = m[: roi.shape[0], : roi.shape[1], None]
    roi[:, :, :3] = roi[:, :, :3] * (1 - m) + np.array(colour, np.float32) * m
    roi[:, :, 3:] = np.maximum(roi[:, :, 3:], m * 255)


def _dot(face, cx, cy, r, colour, rng):
    ring = GREEN if colour != GREEN else BLUE
    cv2.circle(face, (cx, cy), r, (*colour, 255), -1, cv2.LINE_AA)
    cv2.circle(face, (cx, cy), int(r * 0.72), (235, 240, 245, 255), max(1, r // 7), cv2.LINE_AA)
    cv2.circle(face, (cx, cy), int(r * 0.45), (*ring, 255), -1, cv2.LINE_AA)
    if rng.random() < 0.5:
        cv2.circle(face, (cx, cy), max(1, int(r * 0.15)), (235, 240, 245, 255), -1, cv2.LINE_AA)


def _stick(face, cx, cy, w, h, colour, tilt):
    rect = ((float(cx), float(cy)), (float(w), float(h)), float(tilt))
    pts = cv2.boxPoints(rect).astype(np.int32)
    cv2.fillConvexPoly(face, pts, (*colour, 255), cv2.LINE_AA)
    # Nodes of the bamboo: a pale band in the middle and at the ends.
    for f in (0.5,):
        a = np.deg2rad(tilt)
        dx, dy = -np.sin(a) * h * (f - 0.5), np.cos(a) * h * (f - 0.5)
        c = (int(cx + dx), int(cy + dy))
        cv2.line(face, (c[0] - w // 2, c[1]), (c[0] + w // 2, c[1]), (225, 235, 235, 255), 2)


def _c(colour, shade=1.0):
    return (*(float(v) * shade for v in colour), 255)


def _bird(face, body, tail, rng):
    """1s: a peacock-like bird on a bamboo perch, tail feathers with eye spots fanning down."""
    cv2.line(face, (12, 138), (108, 122), _c(DARK_GREEN), 6, cv2.LINE_AA)
    for k in range(5):  # tail feathers, each ending in an eye spot
        a = np.deg2rad(25 + k * 14 + rng.normal(0, 3))
        tip = (int(62 + 52 * np.cos(a)), int(96 + 52 * np.sin(a)))
        cv2.line(face, (62, 96), tip, _c(tail), 4, cv2.LINE_AA)
        cv2.circle(face, tip, 7, _c(tail), -1, cv2.LINE_AA)
        cv2.circle(face, tip, 4, _c(BLUE), -1, cv2.LINE_AA)
    cv2.line(face, (52, 112), (50, 132), _c(RED), 3, cv2.LINE_AA)  # legs on the perch
    cv2.line(face, (62, 112), (64, 130), _c(RED), 3, cv2.LINE_AA)
    cv2.ellipse(face, (56, 86), (21, 30), 25, 0, 360, _c(body), -1, cv2.LINE_AA)
    cv2.ellipse(face, (50, 84), (9, 20), 20, 0, 360, _c(body, 1.45), -1, cv2.LINE_AA)  # pale breast
    cv2.ellipse(face, (64, 88), (11, 22), 30, 0, 360, _c(body, 0.65), -1, cv2.LINE_AA)  # wing
    for k in range(3):
        cv2.ellipse(face, (66, 80 + 9 * k), (8, 5), 30, 0, 180, _c(tail), 2, cv2.LINE_AA)
    cv2.circle(face, (42, 48), 13, _c(body), -1, cv2.LINE_AA)
    for dx in (-5, 0, 5):  # crest
        cv2.line(face, (42, 36), (42 + dx, 24), _c(body), 2, cv2.LINE_AA)
        cv2.circle(face, (42 + dx, 24), 3, _c(tail), -1, cv2.LINE_AA)
    cv2.circle(face, (38, 45), 4, _c((235, 240, 245)), -1, cv2.LINE_AA)
    cv2.circle(face, (37, 45), 2, _c(BLACK), -1, cv2.LINE_AA)
    cv2.fillPoly(face, [np.array([[31, 46], [16, 53], [32, 54]], np.int32)], _c(RED), cv2.LINE_AA)


def _blossom(face, cx, cy, r, colour):
    for k in range(5):
        a = 2 * np.pi * k / 5
        cv2.circle(face, (int(cx + r * 0.6 * np.cos(a)), int(cy + r * 0.6 * np.sin(a))), int(r * 0.5),
                   _c(colour), -1, cv2.LINE_AA)
    cv2.circle(face, (int(cx), int(cy)), max(1, int(r * 0.3)), _c((40, 190, 230)), -1, cv2.LINE_AA)


def _leaf(face, x, y, angle, length, width, colour):
    a = np.deg2rad(angle)
    centre = (int(x + np.cos(a) * length / 2), int(y + np.sin(a) * length / 2))
    cv2.ellipse(face, centre, (int(length / 2), int(width / 2)), angle, 0, 360, _c(colour), -1, cv2.LINE_AA)


def _painting(face, n, rng):
    """The picture of a flower/season tile, in the lower part of the face: plum, orchid,
    chrysanthemum, bamboo, then spring blossom, summer lotus, autumn flower, winter pine."""
    pink, purple, yellow, brown = (150, 110, 235), (170, 80, 150), (30, 170, 235), (40, 70, 110)
    kind = (n - 1) % 4
    if n == 6:  # lotus: broad petals over a round leaf
        cv2.ellipse(face, (60, 138), (40, 12), 0, 0, 360, _c(GREEN), -1, cv2.LINE_AA)
        for a in (-50, -25, 0, 25, 50):
            _leaf(face, 60, 128, -90 + a, 46, 20, pink)
        return
    if n == 8:  # pine: a trunk and needle tufts, a little snow
        cv2.line(face, (58, 156), (64, 60), _c(brown), 6, cv2.LINE_AA)
        for y in (70, 95, 120):
            for a in range(-70, 71, 20):
                _leaf(face, 62, y, 180 + a if a < 0 else a, 30, 4, DARK_GREEN)
            cv2.ellipse(face, (62, y - 3), (18, 4), 0, 180, 360, _c((245, 245, 245)), 3, cv2.LINE_AA)
        return
    if kind == 0:  # plum / spring: a crooked branch with blossoms
        pts = np.array([[18, 156], [40, 120], [34, 96], [62, 78], [96, 60]], np.int32)
        cv2.polylines(face, [pts], False, _c(brown), 5, cv2.LINE_AA)
        for x, y in pts[1:]:
            _blossom(face, x + rng.integers(-6, 7), y + rng.integers(-6, 7), 15, RED if n == 1 else pink)
    elif kind == 1:  # orchid: long arching leaves, small purple flowers
        for a, length in ((-120, 80), (-100, 95), (-70, 85), (-50, 70)):
            _leaf(face, 60, 156, a, length, 8, GREEN)
        for x, y in ((40, 80), (78, 72), (60, 98)):
            _blossom(face, x, y, 13, purple)
    elif kind == 2:  # chrysanthemum / autumn: a head of many thin petals on a leafy stem
        cv2.line(face, (60, 156), (60, 100), _c(GREEN), 4, cv2.LINE_AA)
        _leaf(face, 60, 135, -150, 30, 12, GREEN)
        _leaf(face, 60, 125, -30, 30, 12, GREEN)
        petal = yellow if n == 3 else (40, 90, 220)
        for k in range(16):
            _leaf(face, 60, 90, k * 22.5, 28, 7, petal)
        cv2.circle(face, (60, 90), 8, _c(brown), -1, cv2.LINE_AA)
    else:  # bamboo: two jointed stalks and leaves
        for x in (46, 74):
            cv2.line(face, (x, 156), (x, 58), _c(GREEN), 8, cv2.LINE_AA)
            for y in (80, 110, 140):
                cv2.line(face, (x - 5, y), (x + 5, y), _c(DARK_GREEN), 3, cv2.LINE_AA)
        for x, y, a in ((46, 80, 200), (74, 70, -20), (74, 110, 15), (46, 118, 160)):
            _leaf(face, x, y, a, 32, 9, DARK_GREEN)


def draw_face(code: str, rng: np.random.Generator, variant: dict) -> np.ndarray:
    """RGBA face glyphs (float32 0..255 BGR+alpha) for one tile code in a scene's variant.

    `variant` (from `face_variant`) holds the per-set choices: font, numeral colour, ....
    """
    face = np.zeros((FACE_H, FACE_W, 4), np.float32)
    n, suit = int(code[0]), code[1]
    font = variant["font"]
    if suit == "m":
        numeral = "伍" if n == 5 and variant["wu"] else NUMERALS[n - 1]
        put_char(face, numeral, font, (18, 8, 102, 72), variant["numeral_colour"])
        put_char(face, "萬", font, (14, 78, 106, 154), RED)
    elif suit == "p":
        pts = DOT_LAYOUT[n]
        r = {1: 40, 2: 22, 3: 19, 4: 19, 5: 17, 6: 15, 7: 13, 8: 13, 9: 14}[n]
        palette = variant["dot_colours"]
        for i, (x, y) in enumerate(pts):
            colour = RED if (n == 1 or (n in (5, 9) and i == len(pts) // 2)) else palette[i % 2]
            _dot(face, int(x * FACE_W), int(y * FACE_H), r, colour, rng)
    elif suit == "s":
        if n == 1:
            _bird(face, variant["stick_colour"], RED, rng)
        else:
            w, h = (16, 46) if n < 8 else (14, 44)
            for i, (x, y) in enumerate(BAMBOO_LAYOUT[n]):
                colour = RED if i in RED_STICKS.get(n, ()) else variant["stick_colour"]
                tilt = (18 if i % 4 in (0, 2) else -18) if n == 8 else 0
                _stick(face, int(x * FACE_W), int(y * FACE_H), w, h, colour, tilt)
    elif suit == "z" and n == 7:
        # 白: the blue frame of Taiwanese sets.
        cv2.rectangle(face, (16, 18), (104, 142), (*BLUE, 255), 7, cv2.LINE_AA)
        cv2.rectangle(face, (27, 29), (93, 131), (*BLUE, 255), 2, cv2.LINE_AA)
    elif suit == "z":
        colour = {5: RED, 6: GREEN}.get(n, variant["wind_colour"])
        put_char(face, HONOUR_CHARS[n - 1], font, (10, 18, 110, 142), colour)
    elif variant["flower_painting"]:  # a picture, the number and a small character in the corners
        colour = BLUE if n <= 4 else RED
        _painting(face, n, rng)
        put_char(face, str((n - 1) % 4 + 1), 1, (6, 4, 30, 36), colour)
        put_char(face, FLOWER_CHARS[n - 1], font, (78, 4, 114, 40), variant["flower_colour"])
    else:  # the character large, the number and a few petals
        colour = BLUE if n <= 4 else RED
        put_char(face, FLOWER_CHARS[n - 1], font, (22, 40, 108, 150), variant["flower_colour"])
        put_char(face, str((n - 1) % 4 + 1), 1, (8, 6, 34, 40), colour)
        for _ in range(3):
            x, y = int(rng.integers(60, 110)), int(rng.integers(8, 40))
            cv2.circle(face, (x, y), 6, (*colour, 255), -1, cv2.LINE_AA)
    return face


def face_variant(rng: np.random.Generator) -> dict:
    """The choices one physical set makes once (all its tiles share them)."""
    return {
        "font": int(rng.integers(len(FONT_FILES))),
        "wu": bool(rng.random() < 0.4),
        "numeral_colour": BLACK if rng.random() < 0.7 else BLUE,
        "wind_colour": BLACK if rng.random() < 0.6 else BLUE,
        "flower_colour": [BLACK, BLUE, RED, DARK_GREEN][int(rng.integers(4))],
        "dot_colours": [(BLUE, GREEN), (GREEN, BLUE), (BLUE, RED)][int(rng.integers(3))],
        "stick_colour": GREEN if rng.random() < 0.7 else DARK_GREEN,
        "flower_painting": bool(rng.random() < 0.5),
    }
