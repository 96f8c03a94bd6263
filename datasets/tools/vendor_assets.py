"""Copy the tile art and real crops the generator uses from the shared folder into datasets/assets.

Run once by a maintainer; the output is committed so a fresh machine needs no shared folder.
    python -m datasets.tools.vendor_assets [SHARED_DATA_DIR]   # default: $TAISHU_SHARED/data
Images are shrunk to a 160 px tall face (the largest tile the generator draws is ~120 x 160)
and full tiles lose their soft drop shadow (the generator casts its own), which keeps the
assets small. xmahjongg-real (licence unclear) and the held-out real crops are never copied.
"""

import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

from datasets.shared import MissingSharedData, require_shared
from datasets.styles import HELD_OUT_CROP_RANGES, VENDORED_ART_SETS, crop_number

ASSETS = Path(__file__).resolve().parent.parent / "assets"
HEIGHT = 160
PNG = [cv2.IMWRITE_PNG_COMPRESSION, 9]
GPL_SETS = {s for s in VENDORED_ART_SETS if s.startswith(("kmahjongg", "gnome"))}


def _shrink(img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    if h <= HEIGHT:
        return img
    return cv2.resize(img, (round(w * HEIGHT / h), HEIGHT), interpolation=cv2.INTER_AREA)


def _drop_shadow(rgba: np.ndarray) -> np.ndarray:
    """Zero the translucent drop shadow and crop to the opaque tile."""
    rgba = rgba.copy()
    rgba[rgba[:, :, 3] < 128] = 0
    ys, xs = np.nonzero(rgba[:, :, 3])
    return rgba[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def vendor_art(shared: Path) -> None:
    for name in VENDORED_ART_SETS:
        src, dst = shared / "tile-art" / name, ASSETS / "tile-art" / name
        (dst / "full").mkdir(parents=True, exist_ok=True)
        for png in sorted((src / "full").glob("*.png")):
            rgba = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
            cv2.imwrite(str(dst / "full" / png.name), _shrink(_drop_shadow(rgba)), PNG)
        # Face-only glyphs (fluffystuff, kmahjongg) go on the generator's own bodies.
        if name.startswith(("fluffystuff", "kmahjongg")):
            (dst / "face").mkdir(exist_ok=True)
            for png in sorted(src.glob("[1-9][mpszf].png")):
                rgba = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
                cv2.imwrite(str(dst / "face" / png.name), _shrink(rgba), PNG)
        if (src / "back.png").exists():
            rgba = cv2.imread(str(src / "back.png"), cv2.IMREAD_UNCHANGED)
            cv2.imwrite(str(dst / "full" / "back.png"), _shrink(_drop_shadow(rgba)), PNG)
        shutil.copy(src / "SOURCE.md", dst / "SOURCE.md")
        if name in GPL_SETS:  # the GPL asks for the preferred form of the work alongside
            shutil.copytree(src / "_source", dst / "_source", dirs_exist_ok=True)


def vendor_crops(shared: Path) -> None:
    src, dst = shared / "real-crops", ASSETS / "real-crops"
    for jpg in sorted(src.glob("*/*.jpg")):
        if any(lo <= crop_number(jpg) <= hi for lo, hi in HELD_OUT_CROP_RANGES):
            continue
        out = dst / jpg.parent.name / jpg.name
        out.parent.mkdir(parents=True, exist_ok=True)
        img = cv2.resize(cv2.imread(str(jpg)), (120, 160), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(out), img, [cv2.IMWRITE_JPEG_QUALITY, 88])
    shutil.copy(src / "SOURCE.md", dst / "SOURCE.md")


def vendor_licences(shared: Path) -> None:
    dst = ASSETS / "LICENSES"
    dst.mkdir(parents=True, exist_ok=True)
    for name in (
        "CC0-FluffyStuff-riichi-mahjong-tiles.md",
        "GPL-2.0.txt",
        "MIT-Camerash-mahjong-dataset.txt",
        "debian-copyright-gnome-mahjongg.txt",
        "debian-copyright-kdegames-mahjongg-data-kf5.txt",
    ):
        shutil.copy(shared / "LICENSES" / name, dst / name)


def main() -> None:
    try:
        shared = Path(sys.argv[1]) if len(sys.argv) > 1 else require_shared("data", needed_for="vendor_assets")
    except MissingSharedData as exc:
        raise SystemExit(f"error: {exc}") from exc
    vendor_art(shared)
    vendor_crops(shared)
    vendor_licences(shared)


if __name__ == "__main__":
    main()
