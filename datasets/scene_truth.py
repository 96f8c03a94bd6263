"""What a generated scene shows: the value `datasets/scene.py` draws it from and writes beside
each image (`scenes/<split>/<stem>.json`), and what the evaluators read back
(`training/evaluate.py`, `training/evaluate_layout.py`, `training/train_hand_finder.py`).

    truth = SceneTruth.read(Path("set/scenes/val/000000.json"))
    truth.hand                    # the scorer's Hand shown, or None (loose tiles, clutter)
    [g.kind for g in truth.hand_groups()]   # GroupKind: concealed (and the winning tile laid apart), a meld, flowers
    truth.to_json()               # the file's object again, key for key

The JSON form is the generator's, unchanged: `image`, `seed`, `index` (where the set's writer put
it), `hand` (Hand.to_json), `kind`, `groups` (the hand's groups, or a set's rows or loose tiles:
`kind`, `tiles`, `label_rows`; a group's `kind` is its GroupKind's value, or "win" for the winning tile laid
apart, "loose" for tiles set apart, a surround's place: `TruthGroup.word`), `surround` (a table's walls,
discards and the other players' tiles), `clutter`, `console`, `style`, `surface`, `width`, `height`,
`tile_px`, `tilt`, `roll`, `upright`, `occluder`, `rack`. Sets written before `surround`, `clutter`,
`console` and `rack` existed read with them empty or false. A file that is not such an object, or a
group whose `kind` is none of those words, is a SceneTruthError
naming the file and the key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from datasets.scene_layout import SURROUNDS
from scoring.hand import Hand, HandError, brief
from scoring.melds import GroupKind, GroupRole
from scoring.tiles import BACK

# The file's words for the groups that are not one of a hand's kinds (scoring.melds.GroupKind)
WIN_APART, LOOSE = "win", "loose"  # the winning tile laid apart from the concealed row; tiles set apart


class SceneTruthError(ValueError):
    """A scene file that is not a scene's truth; the message names the file and the key."""


@dataclass(frozen=True)
class TruthGroup:
    """A group of tiles the scene laid out (datasets.scene_layout.SceneGroup) and where each one is in
    the image's label file."""

    kind: GroupKind  # a hand's group's (datasets.scene_layout.SceneGroup); UNKNOWN for tiles set apart
    tiles: tuple[str, ...]
    label_rows: tuple[int | None, ...]  # per tile, its line in the label file; None: not labelled (hidden)
    role: GroupRole = GroupRole.HAND
    win_apart: bool = False  # the winning tile laid apart from the concealed row (a concealed group of one)
    surround: str | None = None  # at a table, not the hand: one of datasets.scene_layout.SURROUNDS

    @property
    def word(self) -> str:
        """The file's word for its kind (the generator's JSON form)."""
        if self.surround is not None:
            return self.surround
        return WIN_APART if self.win_apart else LOOSE if self.role == GroupRole.APART else self.kind.value

    def to_json(self) -> dict:
        return {"kind": self.word, "tiles": list(self.tiles), "label_rows": list(self.label_rows)}

    @classmethod
    def from_json(cls, data: Any, where: str) -> TruthGroup:
        data = _object(data, where, ("kind", "tiles", "label_rows"))
        tiles = _list(data["tiles"], f"{where}.tiles", str)
        rows = _list(data["label_rows"], f"{where}.label_rows", int, none=True)
        if len(rows) != len(tiles):
            raise SceneTruthError(f"{where}: {len(tiles)} tiles but {len(rows)} label_rows")
        return cls(tiles=tiles, label_rows=rows, **_of_word(_of(data["kind"], f"{where}.kind", str), f"{where}.kind"))


@dataclass(frozen=True)
class SceneTruth:
    """A generated scene: its hand, its groups with their label rows, and how it was drawn."""

    kind: str  # the layout, a key of datasets.recipe.Recipe.kinds: hand, rows, loose, table, negative …
    hand: Hand | None  # the winning hand shown; None: no hand (rows, loose tiles, clutter)
    groups: tuple[TruthGroup, ...]  # the hand's groups, or a set's rows, loose tiles
    surround: tuple[TruthGroup, ...] = ()  # at a table: walls, discards, other players' tiles
    clutter: tuple[str, ...] = ()  # the things drawn beside the tiles
    console: bool = False  # an automatic table's centre console
    style: tuple[str, ...] = ()  # the tile sets' styles (datasets.styles)
    surface: str = ""
    width: int = 0
    height: int = 0
    tile_px: float = 0.0
    tilt: float = 0.0
    roll: float = 0.0
    upright: bool = False  # a row stands on its edge
    occluder: bool = False  # a hand or a finger covers part of the photo
    rack: bool = False
    # Where the set's writer (datasets.generate) put it: the image's path in the set, the seed and
    # the image's index; None for a scene just drawn.
    image: str | None = None
    seed: int | None = None
    index: int | None = None

    def hand_groups(self) -> tuple[TruthGroup, ...]:
        """The groups that make the winning hand: all but those set apart (what surrounds the hand at
        a table is in `surround`)."""
        return tuple(g for g in self.groups if g.role == GroupRole.HAND)

    def tells_hand(self) -> bool:
        """Whether the photo alone can tell the hand's 台: it shows which tile won (laid apart from the concealed
        row, or last in it, where the reader takes it) and the face of each kong (a concealed kong laid as four
        backs shows none). A hand that sorts its winning tile into its row shows it nowhere."""
        if self.hand is None:
            return False
        hand = self.hand_groups()
        if any(g.tiles and all(t == BACK for t in g.tiles) for g in hand):
            return False
        rows = [g for g in hand if g.kind == GroupKind.CONCEALED and not g.win_apart]
        return any(g.win_apart for g in hand) or bool(rows and rows[0].tiles and rows[0].tiles[-1] == self.hand.win)

    def fully_labelled(self) -> bool:
        """Every tile of every group has a label row (none hidden)."""
        return all(None not in g.label_rows for g in self.groups)

    def to_json(self) -> dict:
        placed = {"image": self.image, "seed": self.seed, "index": self.index}
        return {**{k: v for k, v in placed.items() if v is not None},
                "hand": None if self.hand is None else self.hand.to_json(), "kind": self.kind,
                "groups": [g.to_json() for g in self.groups], "surround": [g.to_json() for g in self.surround],
                "clutter": list(self.clutter), "console": self.console, "style": list(self.style),
                "surface": self.surface, "width": self.width, "height": self.height, "tile_px": self.tile_px,
                "tilt": self.tilt, "roll": self.roll, "upright": self.upright, "occluder": self.occluder,
                "rack": self.rack}

    @classmethod
    def from_json(cls, data: Any, where: str = "scene") -> SceneTruth:
        data = _object(data, where, ("kind", "groups"))
        hand = data.get("hand")
        try:
            hand = None if hand is None else Hand.from_json(hand)
        except HandError as e:
            raise SceneTruthError(f"{where}.hand: {e}") from e
        groups = {key: tuple(TruthGroup.from_json(g, f"{where}.{key}[{i}]")
                             for i, g in enumerate(_list(data.get(key, []), f"{where}.{key}", object)))
                  for key in ("groups", "surround")}
        get = lambda key, kind, default: _of(data.get(key, default), f"{where}.{key}", kind)  # noqa: E731
        return cls(
            kind=get("kind", str, None), hand=hand, **groups,
            clutter=_list(data.get("clutter", []), f"{where}.clutter", str),
            console=get("console", bool, False), style=_list(data.get("style", []), f"{where}.style", str),
            surface=get("surface", str, ""), width=get("width", int, 0), height=get("height", int, 0),
            tile_px=get("tile_px", (int, float), 0.0), tilt=get("tilt", (int, float), 0.0),
            roll=get("roll", (int, float), 0.0), upright=get("upright", bool, False),
            occluder=get("occluder", bool, False), rack=get("rack", bool, False),
            image=_of(data.get("image"), f"{where}.image", str, none=True),
            seed=_of(data.get("seed"), f"{where}.seed", int, none=True),
            index=_of(data.get("index"), f"{where}.index", int, none=True),
        )

    @classmethod
    def read(cls, path: Path) -> SceneTruth:
        """The scene file at `path`; SceneTruthError (naming it) for one that is not JSON or not a
        scene's truth."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise SceneTruthError(f"{path}: not a readable JSON file ({str(e)[:120]})") from e
        return cls.from_json(data, str(path))

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), ensure_ascii=False), encoding="utf-8")


def _of_word(word: str, where: str) -> dict:
    """A group's kind, role and place from the file's word for it (`TruthGroup.word`)."""
    if word in SURROUNDS:
        return {"kind": GroupKind.UNKNOWN, "role": GroupRole.APART, "surround": word}
    if word == LOOSE:
        return {"kind": GroupKind.UNKNOWN, "role": GroupRole.APART}
    if word == WIN_APART:
        return {"kind": GroupKind.CONCEALED, "win_apart": True}
    try:
        return {"kind": GroupKind(word)}
    except ValueError:
        raise SceneTruthError(f"{where}: no group's kind: {brief(word)}") from None


def _object(data: Any, where: str, needed: tuple[str, ...]) -> dict:
    if not isinstance(data, dict):
        raise SceneTruthError(f"{where}: expected an object, got {brief(data)}")
    missing = [k for k in needed if k not in data]
    if missing:
        raise SceneTruthError(f"{where}: missing {', '.join(missing)}")
    return data


def _of(value: Any, where: str, kind, none: bool = False):
    """`value` when it is of `kind` (None too where `none`); a bool is not a number here."""
    if value is None and none:
        return value
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise SceneTruthError(f"{where}: expected {getattr(kind, '__name__', 'a number')}, got {brief(value)}")
    return value


def _list(value: Any, where: str, kind, none: bool = False) -> tuple:
    if not isinstance(value, list):
        raise SceneTruthError(f"{where}: expected a list, got {brief(value)}")
    return tuple(_of(v, f"{where}[{i}]", kind, none) for i, v in enumerate(value))
