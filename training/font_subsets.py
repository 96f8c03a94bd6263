"""The fonts `training.flower_faces` draws with, cut down to the characters it draws, to carry to a machine
that lacks them (a lent GPU machine: no fonts, nothing to install from).

    python -m training.font_subsets OUT_DIR
    TAISHU_FONTS=OUT_DIR python -m training.flower_faces ...   # there

Each file of `SYSTEM_FONTS` found on this machine is written under OUT_DIR at the same relative path, every
face of a collection kept in its place (the faces are named by index), holding only the flowers' and honours'
characters, the simplified 兰, the numbers and the wind letters: 55 faces in 1.0 MiB instead of 421 MiB.
The subsets draw every character the whole fonts draw, in the same glyphs (placed within a pixel: the
outlines are re-encoded), and nothing they lack (`tests/test_flower_faces.py`).
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

from training.flower_faces import (
    FLOWER_CHARS,
    FONT_ROOT,
    HONOUR_CHARS,
    NUMBER_FORMS,
    SIMPLIFIED,
    SYSTEM_FONTS,
    WIND_LETTERS,
)

DRAWN = FLOWER_CHARS + "".join(SIMPLIFIED.values()) + "".join(NUMBER_FORMS) + HONOUR_CHARS + WIND_LETTERS


def subset_face(font: TTFont) -> TTFont:
    """The face with the drawn characters only; the outline drawn for a missing character kept, since
    `flower_faces.drawable` compares with it."""
    options = subset.Options()
    options.notdef_outline = True
    options.layout_features = ["*"]  # Pillow shapes with them (locl picks a region's glyph forms)
    options.name_IDs = ["*"]
    options.drop_tables += ["gasp"]  # malformed in one of the fonts; FreeType reads it only at small sizes
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in DRAWN])
    subsetter.subset(font)
    return font


def write_subset(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.suffix.lower() == ".ttc":
        collection = TTCollection(source)
        collection.fonts = [subset_face(face) for face in collection.fonts]
        collection.save(target)
    else:
        subset_face(TTFont(source)).save(target)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.font_subsets", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="folder to write the subsets under (TAISHU_FONTS there)")
    args = parser.parse_args(argv)
    logging.getLogger("fontTools").setLevel(logging.ERROR)  # a line for every table it drops or repairs
    found = [path for path, _ in SYSTEM_FONTS if (FONT_ROOT / path).exists()]
    if not found:
        raise SystemExit(f"none of the fonts of training.flower_faces is under {FONT_ROOT} (docs/data-and-training.md "
                         "says which packages to install)")
    for path in found:
        write_subset(FONT_ROOT / path, args.out / path)
    size = sum(f.stat().st_size for f in args.out.rglob("*") if f.is_file())
    print(f"{len(found)} of {len(SYSTEM_FONTS)} font files → {args.out} ({size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
