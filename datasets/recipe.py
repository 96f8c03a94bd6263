"""The generator's recipe: its random draws as named settings, so a data set can say how it was made.

`python -m datasets generate --recipe table` picks a named recipe (or a recipe.json written by an
earlier run) and writes the one used into OUT/recipe.json with the generator's git commit, so a
model card can cite it. Probabilities are per scene unless said otherwise; (lo, hi) pairs are
uniform ranges; dicts of weights are relative.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Recipe:
    name: str = "default"
    # Scene kinds (datasets/scene_layout.py): a laid-out winning hand, rows of a set, loose tiles,
    # an empty table, a hand at a table with what surrounds it, a table with clutter and no hand, and
    # "flower_row" (in no recipe's defaults: the eight flowers in a row, the photo that teaches a table its set).
    kinds: dict = field(default_factory=lambda: {"hand": 0.72, "rows": 0.12, "loose": 0.13, "negative": 0.03,
                                                 "table": 0.0, "clutter": 0.0})
    # Table surfaces (datasets/backgrounds.py).
    surfaces: dict = field(default_factory=lambda: {"wood": 3.0, "felt": 3.0, "plain": 2.0, "dotted_mat": 1.0,
                                                    "woven": 1.0, "cloth": 1.5, "paper": 1.0, "auto_table": 0.0})
    # The hand's layout.
    unsorted_hand: float = 0.25  # the concealed row not sorted by suit
    win_apart: float = 0.5  # the winning tile set apart from the row
    standing_row: float = 0.15  # the concealed row stands (seen from the player's seat)
    melds_beside: float = 0.4  # exposed melds in the main row, else in a second row
    flowers_right: float = 0.3  # flowers at the right end of the main row
    melds_behind_standing: float = 0.5  # with a standing row: melds beyond it, partly hidden
    # The tile set and how the photo is taken; bands are ((lo, hi, weight), ...).
    aspects: tuple = ((4 / 3, 0.45), (16 / 9, 0.2), (1.0, 0.15), (3 / 4, 0.12), (9 / 16, 0.08))  # (w / h, weight)
    tile_px_bands: tuple = ((16, 26, 0.1), (26, 64, 0.77), (64, 120, 0.13))  # at 640 px, log-uniform in a band
    tilt_bands: tuple = ((0, 15, 0.35), (15, 40, 0.55), (40, 55, 0.1))  # degrees from straight down
    second_set: float = 0.2  # rows/loose scenes mix two sets
    lying_edge: float = 0.7  # the front edge of lying tiles shows (else a flat top only)
    standing_squash: tuple = (1.0, 1.0)  # a standing face's height seen from above / its true height
    printout: float = 0.05  # a photo of a printed photo
    glare: float = 0.2  # a lamp's specular spot
    occluder: float = 0.1  # a hand or a cup over the tiles (can hide tiles)
    rack: float = 0.0  # a rack in front of a standing row (hides the feet of its tiles)
    # Table scenes (kind "table"): what surrounds the hand.
    own_wall: float = 0.85  # the player's wall of backs, two high, beyond the hand
    side_walls: float = 0.6  # the left and right walls
    far_wall: float = 0.6  # the opposite wall
    wall_stacks: tuple = (6, 18)  # stacks in a wall (18 when nothing is drawn yet)
    wall_gap: float = 0.3  # a wall broken where tiles were drawn from it
    missing_top: float = 0.1  # per stack: the top tile taken
    table_side: tuple = (19.0, 23.0)  # distance between opposite walls, in tile widths
    discards: float = 0.9  # face-up discards in the middle
    discards_in_rows: float = 0.5  # in rows of six per player, else scattered at any angle
    discard_count: tuple = (4, 40)
    opposite_row: float = 0.6  # the opposite player's standing row (backs toward the camera)
    other_melds: float = 0.5  # other players' exposed melds, face up, turned toward them
    console: float = 0.6  # an automatic table's raised centre console (display, dice window)
    table_tilt_bands: tuple = ((35, 62, 1.0),)  # camera tilt from the player's chair
    table_hand: float = 0.9  # a table scene shows the player's hand (else only the surroundings)
    table_standing: float = 0.7  # at a table, the hand's concealed row stands
    table_tile_px_bands: tuple = ((20, 52, 1.0),)  # a hand tile's width in pixels at 640, from the chair
    # Clutter on the table (never labelled), each drawn with its probability in every scene kind.
    clutter: dict = field(default_factory=lambda: {"keyboard": 0.0, "phone": 0.0, "cup": 0.0, "chips": 0.0,
                                                   "dice": 0.0, "wind_marker": 0.0, "paper": 0.0})

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Recipe:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown recipe settings: {', '.join(sorted(unknown))}")
        return cls(**{k: _tuples(v) for k, v in data.items()})


def _tuples(value):
    """JSON lists back into the tuples the recipe holds."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


TABLE = Recipe(
    name="table",
    kinds={"hand": 0.3, "rows": 0.06, "loose": 0.06, "negative": 0.02, "table": 0.48, "clutter": 0.08},
    surfaces={"wood": 2.0, "felt": 2.0, "plain": 1.5, "dotted_mat": 0.5, "woven": 0.5, "cloth": 1.0,
              "paper": 0.5, "auto_table": 5.0},
    standing_row=0.3,
    standing_squash=(0.7, 1.0),
    lying_edge=1.0,
    occluder=0.15,
    rack=0.25,
    clutter={"keyboard": 0.12, "phone": 0.2, "cup": 0.2, "chips": 0.25, "dice": 0.3, "wind_marker": 0.3,
             "paper": 0.15},
)
RECIPES = {"default": Recipe(), "table": TABLE}


def load_recipe(name_or_path: str) -> Recipe:
    """A named recipe, or the recipe in a recipe.json (as `generate` writes it, or bare settings)."""
    if name_or_path in RECIPES:
        return RECIPES[name_or_path]
    path = Path(name_or_path)
    if not path.is_file():
        raise ValueError(f"recipe {name_or_path!r} is neither one of {', '.join(RECIPES)} nor a recipe.json file")
    data = json.loads(path.read_text())
    return Recipe.from_json(data.get("recipe", data))


def generator_commit() -> str | None:
    """The commit the generator runs from ("+dirty" when datasets/ has uncommitted changes), or None."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "datasets"], cwd=REPO, capture_output=True,
                               text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")

