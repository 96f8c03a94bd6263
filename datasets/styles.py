"""Tile styles: where each tile's top comes from (art sets, real crops, the face renderer).

Train styles read only datasets/assets (vendored). Unseen styles are held out from training:
xmahjongg-real (licence unclear, so never vendored, read from the shared folder of
datasets/shared.py) and the real crops whose upstream file numbers fall in HELD_OUT_CROP_RANGES.
Upstream numbered the crops photo by photo, so a run of numbers is one or a few tile designs;
these three runs (147 of 628 crops, 23%) hold the cream set, the grey set and the blue-green set
seen on a contact sheet sorted by number. Splitting by run instead of at random keeps whole
designs out of training.
"""

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from datasets import tile_bodies as tb
from datasets.shared import require_shared
from datasets.tile_faces import draw_face, face_variant
from scoring.tiles import TILE_CODES

ASSETS = Path(__file__).resolve().parent / "assets"
HELD_OUT_CROP_RANGES = ((141, 199), (391, 420), (571, 628))
VENDORED_ART_SETS = (
    "fluffystuff-regular",
    "fluffystuff-black",
    "kmahjongg-default",
    "kmahjongg-traditional",
    "kmahjongg-jade",
    "gnome-smooth",
    "gnome-postmodern",
)
# Scene weights: realistic sets high (see the shared folder's data/README.md realism notes);
# kmahjongg classic is left out entirely (万 for 萬, creatures for dragons).
TRAIN_WEIGHTS = {
    "real-crops": 3.0,
    "drawn": 3.0,
    "gnome-smooth": 1.5,
    "kmahjongg-default": 1.5,
    "fluffystuff-regular": 1.2,
    "gnome-postmodern": 0.8,
    "kmahjongg-traditional": 0.6,
    "kmahjongg-jade": 0.3,
    "fluffystuff-black": 0.3,
}
UNSEEN_WEIGHTS = {"xmahjongg-real": 1.0, "real-crops-held-out": 1.0}
# Art sets whose 白 is a blank face; Taiwanese sets mostly frame it, so it is often redrawn.
BLANK_WHITE_SETS = {"fluffystuff-regular", "fluffystuff-black", "kmahjongg-default", "kmahjongg-jade"}
# Art sets whose face glyphs are white, drawn for dark tiles: on an ivory body they vanish, so
# these sets are only shown with their own full tiles.
WHITE_GLYPH_SETS = {"fluffystuff-black", "kmahjongg-jade"}


def crop_number(path: Path) -> int:
    return int(path.stem)


def _read_rgba(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img.ndim == 2 or img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA if img.ndim == 2 else cv2.COLOR_BGR2BGRA)
    return img.astype(np.float32)


@dataclass
class Style:
    """One source of tile tops. `full`/`faces`: code -> RGBA; `crops`: code -> [(number, BGR)]."""

    name: str
    full: dict = field(default_factory=dict)
    faces: dict = field(default_factory=dict)
    crops: dict = field(default_factory=dict)
    back: np.ndarray | None = None

    def has(self, code: str) -> bool:
        return self.name == "drawn" or code in self.full or code in self.faces or code in self.crops


@cache
def load_style(name: str) -> Style:
    if name == "drawn":
        return Style(name)
    if name in ("real-crops", "real-crops-held-out"):
        held_out = name.endswith("held-out")
        root = _shared_style_root(name, "real-crops") if held_out else ASSETS / "real-crops"
        style = Style(name)
        for jpg in sorted(root.glob("*/*.jpg")):
            n = crop_number(jpg)
            if any(lo <= n <= hi for lo, hi in HELD_OUT_CROP_RANGES) == held_out:
                style.crops.setdefault(jpg.parent.name, []).append((n, cv2.imread(str(jpg))))
        return style
    root = _shared_style_root(name, "tile-art", name) if name == "xmahjongg-real" else ASSETS / "tile-art" / name
    style = Style(name)
    for png in sorted((root / "full").glob("*.png")):
        if png.stem in TILE_CODES:
            style.full[png.stem] = tb.fit_width(_read_rgba(png))
        elif png.stem == "back":
            style.back = tb.fit_width(_read_rgba(png))
    for png in sorted((root / "face").glob("*.png")):
        style.faces[png.stem] = _read_rgba(png)
    if name == "gnome-postmodern":  # its 7z is the GNOME logo and its flowers unidentified
        for code in ["7z"] + [f"{n}f" for n in range(1, 9)]:
            style.full.pop(code, None)
    return style


def _shared_style_root(name: str, *parts: str) -> Path:
    return require_shared("data", *parts, needed_for=f"the unseen style {name!r}")


class SceneSet:
    """The tile set of one scene: a style plus the per-set choices (body colour, back colour,
    how faces are put on, which crop design) so all its tiles look like one physical set."""

    def __init__(self, style: Style, rng: np.random.Generator):
        self.style = style
        self.palette = tb.scene_palette(rng)
        self.variant = face_variant(rng)
        self.glyph_mode = bool(style.faces) and rng.random() < 0.5 and style.name not in WHITE_GLYPH_SETS
        self.frame_white = style.name in BLANK_WHITE_SETS and rng.random() < 0.7
        self.crop_anchor = float(rng.uniform(0, 650))  # nearby numbers ~ same crop design
        self.art_back = style.back is not None and rng.random() < 0.5
        self._cache: dict[str, np.ndarray] = {}

    def top(self, code: str, rng: np.random.Generator) -> np.ndarray:
        """BGRA top (TOP_W wide) of one tile; cached so a set's identical tiles look identical."""
        if code not in self._cache:
            self._cache[code] = self._make_top(code, rng)
        return self._cache[code]

    def _make_top(self, code: str, rng: np.random.Generator) -> np.ndarray:
        s, p = self.style, self.palette
        if code == "back":
            return s.back if self.art_back else tb.back_top(p["back"], rng)
        if code == "7z" and self.frame_white or not s.has(code):
            return tb.body_top(p["body"], draw_face(code, rng, self.variant), p["face_scale"])
        if s.name == "drawn":
            return tb.body_top(p["body"], draw_face(code, rng, self.variant), p["face_scale"])
        if s.crops:
            options = s.crops[code]
            dist = [abs(n - self.crop_anchor) + rng.uniform(0, 60) for n, _ in options]
            return tb.crop_top(options[int(np.argmin(dist))][1])
        if self.glyph_mode and code in s.faces:
            return tb.body_top(p["body"], s.faces[code], p["face_scale"])
        return s.full[code] if code in s.full else tb.body_top(p["body"], s.faces[code], 0.9)


def pick_style(rng: np.random.Generator, which: str) -> Style:
    weights = TRAIN_WEIGHTS if which == "train" else UNSEEN_WEIGHTS
    names = list(weights)
    w = np.array([weights[n] for n in names])
    return load_style(names[int(rng.choice(len(names), p=w / w.sum()))])
