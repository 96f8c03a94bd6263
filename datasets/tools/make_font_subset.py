"""Subset Noto CJK (Debian fonts-noto-cjk, OFL-1.1) to the glyphs the face renderer draws.

Run once on a machine with the package installed; the output is committed under
datasets/assets/fonts/ so generation never needs the 20 MB collections.
    python -m datasets.tools.make_font_subset
"""

from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

from datasets.tile_faces import FONT_TEXT

SOURCE_DIR = Path("/usr/share/fonts/opentype/noto")
OUT_DIR = Path(__file__).resolve().parent.parent / "assets" / "fonts"
# (collection, face name inside it, output file): a Ming (serif) and a bold sans, both TC.
FONTS = (
    ("NotoSerifCJK-Bold.ttc", "Noto Serif CJK TC", "NotoSerifTC-Bold-subset.otf"),
    ("NotoSansCJK-Bold.ttc", "Noto Sans CJK TC", "NotoSansTC-Bold-subset.otf"),
)


def main() -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for collection, family, out_name in FONTS:
        fonts = TTCollection(str(SOURCE_DIR / collection)).fonts
        font = next(f for f in fonts if f["name"].getDebugName(1) == family)
        options = subset.Options()
        options.name_IDs = ["*"]  # keep the copyright and licence records
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=FONT_TEXT)
        subsetter.subset(font)
        font.save(str(OUT_DIR / out_name))
        print(out_name, (OUT_DIR / out_name).stat().st_size, "bytes")


if __name__ == "__main__":
    main()
