"""The real labelled photos (the shared folder's data/real-labelled, datasets/shared.py): where
they are and what each photo shows.

Three Roboflow sets relabelled to our 43 codes (their SOURCE.md: attribution, class mapping, label
problems). A photo's scene type comes from its file-name family: each uploader named a series of
shots of one kind of scene (a rack on felt, tiles in a tray, a video frame…), and the file name is
all Roboflow kept of the upload. Scene types let an evaluation say *where* a model reads real tables
badly, not just how badly on average.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from datasets.shared import shared_path

REAL_LABELLED = shared_path("data", "real-labelled")
REAL_SETS = ("chinese-mahjong-detection", "hk-bonus-label", "kim-first-project")

# File-name family (the part before Roboflow's `.rf.` suffix) → scene type, first match wins.
# Families and what they show: SOURCE.md ("Scenes" and "Label quality" of each set) and contact
# sheets of each family. Table scenes often have only the rack row labelled (SOURCE.md).
SCENE_TYPES: tuple[tuple[str, str], ...] = (
    # chinese-mahjong-detection
    (r"hand_\d+_jpg", "rack on green felt"),
    (r"\d{9}_\d+_\d+_n_jpg", "game table (Facebook photos)"),
    (r"IMG_2023\d{4}_\d{6}_jpg", "tray or table layout"),
    (r"IMG_27\d\d_JPG", "pink table close-up"),
    (r"(one_bamboo_flowers|\w+_family|discards)_\d+_jpg", "rows on a backdrop"),
    # hk-bonus-label
    (r"IMG_3[2-4]\d\d", "single tiles on a mat"),
    (r"IMG_(1[78]|6[0-3])\d\d", "row on fabric or wood"),
    (r"(rotated_)?home-mj-IMG_", "rows on a home desk"),
    (r"IMG_64\d\d", "desk with keyboard"),
    (r"(Screenshot-|Pasted-Graphic)", "video frame"),
    (r"[0-9A-F]{8}-[0-9A-F-]{27}_1_1\d\d_[oc]", "green-felt table (web photos)"),
    (r"[0-9A-F]{8}-[0-9A-F-]{27}_jpe?g", "rows on red cloth"),
    # kim-first-project
    (r"mahjon_image\d+", "riichi table or grid"),
)
OTHER = "other (web, product photos)"


def scene_type(file_name: str) -> str:
    """The scene type of a real photo from its file name (`OTHER` when no family matches)."""
    family = file_name.split(".rf.")[0]
    return next((scene for pattern, scene in SCENE_TYPES if re.match(pattern, family)), OTHER)


def manifest(root: Path) -> list[dict]:
    """The rows of a real set's `manifest.csv` (one per stored image; SOURCE.md names the columns),
    none when the set has no manifest."""
    path = root / "manifest.csv"
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
