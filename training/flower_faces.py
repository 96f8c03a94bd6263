"""Flower tiles in many designs, as crops for the crop classifier.

    python -m training.flower_faces --count 24000 --seed 0 --out data/crops/flowers-v1.npz

A flower is known across sets by its character (梅蘭菊竹 1f-4f, 春夏秋冬 5f-8f) and, on most Taiwanese
sets, its number in a corner: 梅1 蘭2 菊3 竹4 and 春1 夏2 秋3 冬4 (so the number tells a flower within
its group of four). The picture changes from set to set. So every crop here is its own design: the
character in one of the CJK fonts on the machine (SYSTEM_FONTS: Noto Sans/Serif CJK in four weights and
their TC, HK, SC and JP forms, and brush, Ming and Hei faces; the vendored subsets where none is installed)
reshaped (weight, slant, stretch, hollow or brush-rough strokes), traditional or simplified (蘭 / 兰), in one
of several inks; the number as a digit, a Chinese numeral or a circled digit in any corner, or none; and a
procedural plant or figure drawn at random *without regard to the flower*, so that the picture teaches
nothing and the character and number everything. Layouts: the character large, a picture with the character
and number small in the corners, or the two halves together. The tile is put on a body of random colour with its edge,
beside neighbour tiles on a table, boxed as the generator boxes (whole body) or as the real sets do (the
face), and cut with `vision.crop_classifier.cut_crop` and the crops' box jitter (`training.crops.JITTER`).
None of this reads the held-out designs (`datasets/styles.py`): they stay for judging.
Output: an .npz with `x` (N, CROP_H, CROP_W, 3) uint8 BGR and `y` (N,) class ids, as `training.crops`.
With `--sets`, whole sets for the within-set loss instead: each set's eight flowers in one design, each seen in
`--views` views as one evening's photos show a tile (`photographed`), and each crop's set (`group`).
"""

from __future__ import annotations

import argparse
import os
from functools import cache
from pathlib import Path

import albumentations as A
import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from datasets import tile_bodies as tb
from datasets.photo import apply_photo, photo_effects
from datasets.tile_faces import FACE_H, FACE_W, FLOWER_CHARS, FONT_DIR, FONT_FILES, HONOUR_CHARS
from scoring.tiles import FLOWERS
from training.crops import JITTER
from vision.classes import CLASS_INDEX
from vision.crop_classifier import CROP_H, CROP_W, cut_crop

# 東南西北中發 drawn the same way: a large character alone is what tells them from a flower (白 has none)
HONOUR_CODES = tuple(f"{n}z" for n in range(1, 7))
WIND_LETTERS = "ESWN"  # the corner index some sets print on a wind
SIMPLIFIED = {"蘭": "兰"}  # the only flower character simplified Chinese writes otherwise
NUMBER_FORMS = ("1234", "一二三四", "①②③④")
NUMBER_FORM_WEIGHTS = (0.6, 0.3, 0.1)
# (font file under FONT_ROOT, faces to take by index) of the Debian packages docs/data-and-training.md installs:
# the Noto CJK collections' JP, SC, TC and HK forms (not Mono, not KR) in four weights, and the brush (楷),
# Song/Ming and Hei faces of Taiwan's, China's and Japan's free fonts: a set's flower characters are most often
# brush-written. FONT_ROOT is the setting TAISHU_FONTS where set (a folder of `training.font_subsets`, carried to
# a machine without these fonts), else the system's.
FONT_ROOT = Path(os.environ.get("TAISHU_FONTS", "/usr/share/fonts"))
OPENTYPE = "opentype/"
NOTO = OPENTYPE + "noto/"
TRUETYPE = "truetype/"
SYSTEM_FONTS = tuple((NOTO + f"Noto{family}CJK-{weight}.ttc", (0, 2, 3, 4)) for family in ("Sans", "Serif")
                     for weight in ("Light", "Regular", "Bold", "Black")) + (
    (TRUETYPE + "arphic/ukai.ttc", (0, 2)), (TRUETYPE + "arphic/uming.ttc", (0, 2)),
    (TRUETYPE + "arphic-bkai00mp/bkai00mp.ttf", (0,)), (TRUETYPE + "arphic-gkai00mp/gkai00mp.ttf", (0,)),
    (TRUETYPE + "arphic-bsmi00lp/bsmi00lp.ttf", (0,)), (TRUETYPE + "arphic-gbsn00lp/gbsn00lp.ttf", (0,)),
    (TRUETYPE + "cwtex/cwkai.ttf", (0,)), (TRUETYPE + "cwtex/cwming.ttf", (0,)), (TRUETYPE + "cwtex/cwheib.ttf", (0,)),
    (TRUETYPE + "cwtex/cwyen.ttf", (0,)), (TRUETYPE + "cwtex/cwfs.ttf", (0,)),
    (TRUETYPE + "lxgw-wenkai/LXGWWenKai-Light.ttf", (0,)), (TRUETYPE + "lxgw-wenkai/LXGWWenKai-Bold.ttf", (0,)),
    (TRUETYPE + "klee/KleeOne-Regular.ttf", (0,)), (TRUETYPE + "klee/KleeOne-SemiBold.ttf", (0,)),
    (TRUETYPE + "wqy/wqy-zenhei.ttc", (0,)), (TRUETYPE + "wqy/wqy-microhei.ttc", (0,)),
    (TRUETYPE + "hanazono/HanaMinA.ttf", (0,)), (TRUETYPE + "horai-umefont/ume-pmo3.ttf", (0,)),
    (OPENTYPE + "ipafont-mincho/ipam.ttf", (0,)), (OPENTYPE + "ipafont-gothic/ipag.ttf", (0,)))
INKS = ((25, 25, 25), (160, 70, 20), (35, 30, 200), (50, 130, 20), (40, 95, 20), (130, 40, 120), (30, 110, 170),
        (90, 50, 30))  # BGR: black, blue, red, green, dark green, purple, gold, brown
TABLE_COLOURS = ((60, 110, 40), (120, 80, 30), (50, 60, 70), (200, 200, 200), (40, 70, 120), (90, 40, 30))
GLYPH_PX = 160
LARGE_CHAR = (18, 30, FACE_W - 14, FACE_H - 8)  # where a face's one large character goes
LACKED = "\U0010fffd"  # a private-use character no font draws


@cache
def fonts() -> tuple[tuple[str, int], ...]:
    """(font file, face index) of every font to draw with: SYSTEM_FONTS on the machine, else the vendored two."""
    found = tuple((str(FONT_ROOT / path), i) for path, faces in SYSTEM_FONTS if (FONT_ROOT / path).exists()
                  for i in faces)
    return found or tuple((str(FONT_DIR / name), 0) for name in FONT_FILES)


@cache
def glyph(char: str, font: tuple[str, int]) -> np.ndarray:
    """Tight uint8 coverage mask of one character at GLYPH_PX."""
    face = ImageFont.truetype(font[0], GLYPH_PX, index=font[1])
    left, top, right, bottom = face.getbbox(char)
    img = Image.new("L", (right - left + 8, bottom - top + 8), 0)
    ImageDraw.Draw(img).text((4 - left, 4 - top), char, font=face, fill=255)
    return np.asarray(img)


@cache
def drawable(char: str, font: tuple[str, int]) -> bool:
    """Whether the font has the character: it draws ink, and not the box it draws for a character it lacks."""
    mask = glyph(char, font)
    return bool(mask.any()) and not np.array_equal(mask, glyph(LACKED, font))


def restyled(mask: np.ndarray, rng: np.random.Generator, own: np.random.Generator | None = None) -> np.ndarray:
    """The glyph as another typeface might draw it: heavier or lighter, slanted, stretched, hollow, rough; the
    brush's roughness drawn from `own` where given (it takes as many draws as the glyph has pixels)."""
    m = mask.astype(np.float32) / 255
    h, w = m.shape
    pad = int(0.15 * max(h, w))
    m = cv2.copyMakeBorder(m, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    h, w = m.shape
    weight = int(rng.integers(-3, 6))
    if weight:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(weight) + 1,) * 2)
        m = cv2.dilate(m, kernel) if weight > 0 else cv2.erode(m, kernel)
    shear, stretch = rng.uniform(-0.22, 0.22), rng.uniform(0.8, 1.2)
    affine = np.float32([[stretch, shear, -shear * h / 2 + (1 - stretch) * w / 2], [0, 1, 0]])
    m = cv2.warpAffine(m, affine, (w, h), flags=cv2.INTER_LINEAR)
    if rng.random() < 0.3:  # a brush's uneven edge: a smooth random displacement
        field = [cv2.GaussianBlur((own or rng).normal(0, 1, (h, w)).astype(np.float32), (0, 0), 6) * 25
                 for _ in range(2)]
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        m = cv2.remap(m, xs + field[0], ys + field[1], cv2.INTER_LINEAR)
    if rng.random() < 0.12:  # outlined (hollow) characters
        m = np.clip(m - cv2.erode(m, np.ones((7, 7), np.uint8)), 0, 1)
    ys, xs = np.nonzero(m > 0.1)
    return m[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(ys) else m


def paint(face: np.ndarray, mask: np.ndarray, box, colour) -> None:
    """Put a coverage mask into box (x0, y0, x1, y1) of the RGBA face, aspect kept, centred."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    s = min((x1 - x0) / mask.shape[1], (y1 - y0) / mask.shape[0])
    w, h = max(1, int(mask.shape[1] * s)), max(1, int(mask.shape[0] * s))
    x0, y0 = max(0, x0 + (x1 - x0 - w) // 2), max(0, y0 + (y1 - y0 - h) // 2)
    m = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)
    roi = face[y0:y0 + h, x0:x0 + w]
    m = m[:roi.shape[0], :roi.shape[1], None]
    roi[:, :, :3] = roi[:, :, :3] * (1 - m) + np.float32(colour) * m
    roi[:, :, 3:] = np.maximum(roi[:, :, 3:], m * 255)


def ink(rng: np.random.Generator) -> tuple:
    base = np.float32(INKS[int(rng.integers(len(INKS)))])
    return tuple(np.clip(base + rng.normal(0, 12, 3), 0, 255))


def _c(colour) -> tuple:
    return (*(float(v) for v in colour), 255.0)


def _petals(face, cx, cy, r, n, colour, centre):
    for k in range(n):
        a = 2 * np.pi * k / n
        cv2.ellipse(face, (int(cx + r * 0.55 * np.cos(a)), int(cy + r * 0.55 * np.sin(a))),
                    (max(1, int(r * 0.5)), max(1, int(r * 0.3))), float(np.degrees(a)), 0, 360, _c(colour), -1,
                    cv2.LINE_AA)
    cv2.circle(face, (int(cx), int(cy)), max(1, int(r * 0.25)), _c(centre), -1, cv2.LINE_AA)


def picture(face: np.ndarray, region, rng: np.random.Generator) -> None:
    """A procedural drawing in region (x0, y0, x1, y1): a branch with blossoms, long leaves, a flower head,
    stalks, a little figure or a landscape, chosen at random whatever the flower (pictures differ by set)."""
    x0, y0, x1, y1 = region
    w, h = x1 - x0, y1 - y0
    kind = int(rng.integers(6))
    stem, bloom = ink(rng), ink(rng)

    def pt(fx, fy):
        return int(x0 + fx * w), int(y0 + fy * h)

    if kind == 0:  # a crooked branch, blossoms along it
        pts = np.array([pt(rng.uniform(0, 1), 1 - k / 4 + rng.uniform(-0.1, 0.1)) for k in range(5)], np.int32)
        cv2.polylines(face, [pts], False, _c(stem), int(rng.integers(2, 6)), cv2.LINE_AA)
        for x, y in pts[1:]:
            _petals(face, x, y, rng.uniform(0.08, 0.16) * w, int(rng.integers(4, 7)), bloom, ink(rng))
    elif kind == 1:  # long arching leaves from the foot
        base = pt(rng.uniform(0.3, 0.7), 1.0)
        for _ in range(int(rng.integers(3, 7))):
            a = np.deg2rad(rng.uniform(-150, -30))
            length = rng.uniform(0.5, 1.0) * h
            tip = (int(base[0] + np.cos(a) * length), int(base[1] + np.sin(a) * length))
            mid = ((base[0] + tip[0]) // 2, (base[1] + tip[1]) // 2)
            cv2.ellipse(face, mid, (max(1, int(length / 2)), int(rng.integers(2, 6))), float(np.degrees(a)), 0, 360,
                        _c(stem), -1, cv2.LINE_AA)
        for _ in range(int(rng.integers(1, 4))):
            _petals(face, *pt(rng.uniform(0.2, 0.8), rng.uniform(0.1, 0.5)), 0.12 * w, 5, bloom, ink(rng))
    elif kind == 2:  # a head of thin petals on a stem
        cx, cy = pt(rng.uniform(0.35, 0.65), rng.uniform(0.25, 0.45))
        cv2.line(face, (cx, cy), pt(0.5, 1.0), _c(stem), 3, cv2.LINE_AA)
        _petals(face, cx, cy, rng.uniform(0.25, 0.4) * w, int(rng.integers(10, 20)), bloom, ink(rng))
    elif kind == 3:  # jointed stalks with leaves
        for _ in range(int(rng.integers(1, 4))):
            x = int(x0 + rng.uniform(0.15, 0.85) * w)
            cv2.line(face, (x, y1), (x, int(y0 + rng.uniform(0, 0.3) * h)), _c(stem), int(rng.integers(3, 8)),
                     cv2.LINE_AA)
            for _ in range(int(rng.integers(2, 5))):
                y = int(y0 + rng.uniform(0.1, 0.9) * h)
                cv2.ellipse(face, (x + int(rng.integers(-12, 13)), y), (int(0.2 * w), 4), float(rng.uniform(-40, 40)),
                            0, 360, _c(bloom), -1, cv2.LINE_AA)
    elif kind == 4:  # a little figure: head, robe, arms
        cx, top = pt(rng.uniform(0.35, 0.65), rng.uniform(0.05, 0.2))
        r = int(0.12 * w)
        cv2.circle(face, (cx, top + r), r, _c(stem), -1, cv2.LINE_AA)
        robe = np.array([(cx, top + 2 * r), (cx - int(0.3 * w), y1), (cx + int(0.3 * w), y1)], np.int32)
        cv2.fillConvexPoly(face, robe, _c(bloom), cv2.LINE_AA)
        cv2.line(face, (cx - int(0.25 * w), top + 4 * r), (cx + int(0.25 * w), top + 3 * r), _c(stem), 3, cv2.LINE_AA)
    else:  # hills, a sun or moon, water lines
        for _ in range(int(rng.integers(1, 3))):
            pts = np.array([pt(0, 1), pt(rng.uniform(0.2, 0.5), rng.uniform(0.3, 0.6)), pt(rng.uniform(0.6, 1), 1)],
                           np.int32)
            cv2.fillConvexPoly(face, pts, _c(stem), cv2.LINE_AA)
        cv2.circle(face, pt(rng.uniform(0.6, 0.9), rng.uniform(0.1, 0.3)), int(0.1 * w), _c(bloom), -1, cv2.LINE_AA)
        for k in range(int(rng.integers(0, 4))):
            y = int(y0 + (0.8 + 0.05 * k) * h)
            cv2.line(face, (x0, y), (x1, y), _c(ink(rng)), 1, cv2.LINE_AA)


def flower_design(code: str, rng: np.random.Generator) -> dict:
    """What one design shows of a flower: its character (or simplified form), its number in one of the
    NUMBER_FORMS or none, the layout (0 the character large, 1 a picture with the character small, 2 the two
    halves) and the font. A design never shows neither character nor number."""
    n = int(code[0])
    char = FLOWER_CHARS[n - 1]
    if rng.random() < 0.3:
        char = SIMPLIFIED.get(char, char)
    form = NUMBER_FORMS[int(rng.choice(len(NUMBER_FORMS), p=NUMBER_FORM_WEIGHTS))]
    number = form[(n - 1) % 4] if rng.random() < 0.85 else None
    layout = int(rng.choice(3, p=(0.4, 0.35, 0.25)))
    if layout == 1 and number is not None and rng.random() < 0.15:
        char = None  # a picture and its number alone, as some sets paint them
    font = fonts()[int(rng.integers(len(fonts())))]
    # the vendored subsets hold the traditional characters and the digits only (the machine's fonts hold all)
    if char is not None and not drawable(char, font):
        char = FLOWER_CHARS[n - 1]
    if number is not None and not drawable(number, font):
        number = NUMBER_FORMS[0][(n - 1) % 4]
    return {"char": char, "number": number, "layout": layout, "font": font}


def flower_face(code: str, rng: np.random.Generator, own: np.random.Generator | None = None) -> np.ndarray:
    """The RGBA face (FACE_W x FACE_H, float32) of one flower tile in a design drawn from `rng`. With `own`, its
    picture and its strokes' roughness come from `own` and the rest from `rng`: the eight flowers drawn from
    generators of one seed share the font, layout, number form, inks and places, as one set's flowers do
    (`flower_set`)."""
    design = flower_design(code, rng)
    own = own or rng
    char, number, font = design["char"], design["number"], design["font"]
    face = np.zeros((FACE_H, FACE_W, 4), np.float32)
    corners = [(4, 4), (FACE_W - 34, 4), (4, FACE_H - 38), (FACE_W - 34, FACE_H - 38)]
    order = rng.permutation(4)
    if design["layout"] == 0:  # the character large; perhaps a faint picture under it
        if rng.random() < 0.3:
            picture(face, (10, 20, FACE_W - 10, FACE_H - 10), own)
            face[:, :, 3] *= 0.5
        paint(face, restyled(glyph(char, font), rng, own), LARGE_CHAR, ink(rng))
    elif design["layout"] == 1:  # a picture, the character small in a corner
        picture(face, (8, 30, FACE_W - 8, FACE_H - 6), own)
        if char:
            x, y = corners[order[1]]
            paint(face, restyled(glyph(char, font), rng, own), (x, y, x + 32, y + 34), ink(rng))
    else:  # the character over (or under) a picture
        char_top = rng.random() < 0.7
        picture(face, (10, 82, FACE_W - 10, FACE_H - 4) if char_top else (10, 4, FACE_W - 10, 78), own)
        paint(face, restyled(glyph(char, font), rng, own), (24, 28, FACE_W - 18, 84) if char_top else
              (24, 80, FACE_W - 18, FACE_H - 4), ink(rng))
    if number is not None:
        x, y = corners[order[0]]
        size = rng.uniform(24, 34)
        paint(face, restyled(glyph(number, font), rng, own), (x, y, x + size, y + size), ink(rng))
    return face


def honour_face(code: str, rng: np.random.Generator) -> np.ndarray:
    """The RGBA face of an honour in a design drawn as `flower_face` draws its large character: the same fonts,
    reshaping and inks, and no picture; a wind perhaps with its letter in a corner."""
    n = int(code[0])
    char = HONOUR_CHARS[n - 1]
    font = fonts()[int(rng.integers(len(fonts())))]
    face = np.zeros((FACE_H, FACE_W, 4), np.float32)
    paint(face, restyled(glyph(char, font), rng), LARGE_CHAR, ink(rng))
    if n <= 4 and rng.random() < 0.3 and drawable(WIND_LETTERS[n - 1], font):  # the vendored subsets have none
        x, y = [(4, 4), (FACE_W - 30, 4)][int(rng.integers(2))]
        paint(face, restyled(glyph(WIND_LETTERS[n - 1], font), rng), (x, y, x + 24, y + 26), ink(rng))
    return face


def tile_sprite(code: str, rng: np.random.Generator, face: np.ndarray | None = None) -> np.ndarray:
    """A flower's (or an honour's) top on a body of random colour, with its edge strip seen from the front or not;
    the face drawn from `rng` unless given."""
    palette = tb.scene_palette(rng)
    palette["body"] = np.clip(palette["body"] + rng.normal(0, 10, 3), 0, 255).astype(np.float32)
    if face is None:
        face = flower_face(code, rng) if code in FLOWERS else honour_face(code, rng)
    top = tb.body_top(palette["body"], face, palette["face_scale"])
    if rng.random() < 0.5:
        return top
    return tb.with_thickness(top, palette, float(rng.uniform(0.1, 0.35)), bool(rng.random() < 0.5), False)


def flower_crop(code: str, rng: np.random.Generator) -> np.ndarray:
    """One crop as the classifier gets it: the tile among neighbours on a table, boxed, cut and scaled."""
    return seen(tile_sprite(code, rng), rng)


def flower_set(rng: np.random.Generator) -> list[np.ndarray]:
    """The eight flower tiles (BGRA tops, FLOWERS' order) of one set: one body, font, layout, number form,
    inks and places, each flower its own character, number and picture. Told apart only by those, as a table's
    memory must tell its set's flowers apart (vision/memory.py)."""
    design = int(rng.integers(2**63))
    return [tile_sprite(code, np.random.default_rng([design, 0]),
                        flower_face(code, np.random.default_rng([design, 1]), rng)) for code in FLOWERS]


def seen(sprite: np.ndarray, rng: np.random.Generator, effects: A.Compose | None = None) -> np.ndarray:
    """One view of a tile as the classifier gets it: among neighbours on a table, near or far, boxed, perhaps
    compressed, cut and scaled. With `effects` (a phone photo's, `datasets.photo.photo_effects`), also as one
    evening's photos show a tile from one to the next (`photographed`)."""
    scale = rng.uniform(0.25, 0.9)  # tiles of 30-110 px across: far and near
    sprite = cv2.resize(sprite, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    h, w = sprite.shape[:2]
    canvas_h, canvas_w = 2 * h, 3 * w
    table = np.float32(TABLE_COLOURS[int(rng.integers(len(TABLE_COLOURS)))]) + rng.normal(0, 15, 3)
    image = np.empty((canvas_h, canvas_w, 3), np.float32)
    image[:] = table
    image += rng.normal(0, 4, image.shape).astype(np.float32)
    x0, y0 = w, h // 2
    gap = int(rng.integers(0, 4))
    neighbour = cv2.resize(tb.body_top(np.float32(sprite[h // 2, w // 2, :3]), None, 0.9), (w, h))
    for x in (x0 - w - gap, x0 + w + gap):  # the hand's other tiles beside it (blank: any face would do)
        if rng.random() < 0.7:
            _over(image, neighbour, x, y0)
    _over(image, sprite, x0, y0)
    if rng.random() < 0.5:  # the real sets box the face, the generator the whole body
        box = np.float32([x0, y0, x0 + w, y0 + h])
    else:
        inset = rng.uniform(0.03, 0.1)
        box = np.float32([x0 + inset * w, y0 + inset * h, x0 + w - inset * w, y0 + h - inset * h])
    image = np.clip(image, 0, 255).astype(np.uint8)
    if effects is not None:
        image, box = photographed(image, box, rng, effects)
    elif rng.random() < 0.5:  # a phone's compression
        image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])[1],
                             cv2.IMREAD_COLOR)
    return cut_crop(image, box, jitter=rng.uniform(-JITTER, JITTER, 4))


def photographed(image: np.ndarray, box: np.ndarray, rng: np.random.Generator,
                 effects: A.Compose) -> tuple[np.ndarray, np.ndarray]:
    """The canvas as a phone photo of a table shows it, and the tile's box in it: the camera's tilt foreshortens
    the tile (its height to 55-100%, its far edge up to 15% narrower), the photo is turned up to 12°, and lit,
    blurred and compressed by `effects`: the views of one drawn face differ as an evening's photos of one tile do,
    which the within-set loss needs (docs/decisions/tiles-within-a-set.md)."""
    h, w = image.shape[:2]
    squash, narrow, turn = rng.uniform(0.55, 1.0), rng.uniform(0.0, 0.15), rng.uniform(-12.0, 12.0)
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    tilted = np.float32([[narrow * w / 2, (1 - squash) * h], [w - narrow * w / 2, (1 - squash) * h], [w, h], [0, h]])
    turned = cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0)
    warp = np.vstack([turned, [0, 0, 1]]) @ cv2.getPerspectiveTransform(corners, tilted)
    edge = tuple(int(v) for v in image[0, 0])
    image = cv2.warpPerspective(image, warp, (w, h), borderMode=cv2.BORDER_CONSTANT, borderValue=edge)
    x1, y1, x2, y2 = box
    moved = cv2.perspectiveTransform(np.float32([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]]), warp)[0]
    return apply_photo(effects, image, int(rng.integers(2**31))), np.float32([*moved.min(axis=0), *moved.max(axis=0)])


def _over(image: np.ndarray, sprite: np.ndarray, x: int, y: int) -> None:
    """Alpha-blend the BGRA sprite onto the image at (x, y), clipped to the image."""
    h, w = sprite.shape[:2]
    ix0, iy0, ix1, iy1 = max(0, x), max(0, y), min(image.shape[1], x + w), min(image.shape[0], y + h)
    if ix0 >= ix1 or iy0 >= iy1:
        return
    part = sprite[iy0 - y:iy1 - y, ix0 - x:ix1 - x]
    a = part[:, :, 3:] / 255
    image[iy0:iy1, ix0:ix1] = image[iy0:iy1, ix0:ix1] * (1 - a) + part[:, :, :3] * a


def flower_crops(count: int, seed: int, honours: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """`count` crops, each its own design: the eight flowers in turn, and where `honours` > 0 that share of
    them the six honours that bear a character in turn (`honour_face`)."""
    rng = np.random.default_rng(seed)
    x = np.empty((count, CROP_H, CROP_W, 3), np.uint8)
    y = np.empty(count, np.int64)
    made = {"f": 0, "z": 0}
    for i in range(count):
        kind = "z" if int((i + 1) * honours) > int(i * honours) else "f"  # `honours` of the first i, spread evenly
        codes = HONOUR_CODES if kind == "z" else FLOWERS
        code = codes[made[kind] % len(codes)]
        made[kind] += 1
        x[i], y[i] = flower_crop(code, rng), CLASS_INDEX[code]
    return x, y


def flower_set_crops(sets: int, seed: int, views: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`sets` sets' eight flowers (`flower_set`), each flower seen `views` times as photos show it (`seen` with a
    phone's effects): the crops, their class ids, and each crop's set (0..sets-1)."""
    rng = np.random.default_rng(seed)
    effects = photo_effects()
    x = np.empty((sets * len(FLOWERS) * views, CROP_H, CROP_W, 3), np.uint8)
    y = np.tile(np.repeat([CLASS_INDEX[c] for c in FLOWERS], views), sets)
    group = np.repeat(np.arange(sets), len(FLOWERS) * views)
    i = 0
    for _ in range(sets):
        for sprite in flower_set(rng):
            for _ in range(views):
                x[i] = seen(sprite, rng, effects)
                i += 1
    return x, y, group


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.flower_faces", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    size = parser.add_mutually_exclusive_group(required=True)
    size.add_argument("--count", type=int, help="crops to write (the eight flowers in turn), each its own design")
    size.add_argument("--sets", type=int, help="sets to write: each set's eight flowers in one design, each seen "
                                               "--views times as photos show it (the .npz also holds each crop's "
                                               "set, `group`)")
    parser.add_argument("--views", type=int, default=2, help="with --sets: views of each flower")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help=".npz to write")
    parser.add_argument("--honours", type=float, default=0.0,
                        help="share of the crops that are honours drawn the same way (0-0.5), the flowers' foils")
    parser.add_argument("--sheet", type=Path, help="also write a contact sheet of the first 64 crops (PNG)")
    args = parser.parse_args(argv)
    for name in ("count", "sets", "views"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise SystemExit(f"--{name} must be at least 1")
    if not 0 <= args.honours <= 0.5:
        raise SystemExit("--honours must be between 0 and 0.5")
    if args.sets and args.honours:
        raise SystemExit("--honours goes with --count: a set's crops are its flowers")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.sets:
        x, y, group = flower_set_crops(args.sets, args.seed, args.views)
        np.savez(args.out, x=x, y=y, group=group)
    else:
        x, y = flower_crops(args.count, args.seed, args.honours)
        np.savez(args.out, x=x, y=y)
    if args.sheet:
        tiles = list(x[:64]) + [np.zeros_like(x[0])] * (-min(64, len(x)) % 8)
        rows = [np.hstack(tiles[i:i + 8]) for i in range(0, len(tiles), 8)]
        cv2.imwrite(str(args.sheet), np.vstack(rows))
    honour_crops = int(np.isin(y, [CLASS_INDEX[c] for c in HONOUR_CODES]).sum())
    print(f"{len(y)} crops of {CROP_H}x{CROP_W} ({honour_crops} of them honours) in {len(fonts())} fonts → {args.out}")


if __name__ == "__main__":
    main()
