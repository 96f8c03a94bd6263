"""The read's settings, each a frozen config with its defaults in one place: `ReaderSettings`, the numbers
that tune the read after the detector (and how a table's memory weighs its examples), and `DetectorSettings`,
those of the detector (its passes, faint flowers, crops).

`read_detections` and `read_photo` take a `ReaderSettings` (`READER_DEFAULT` unless given) and pass it down; a
`TileDetector` holds its `DetectorSettings` (`DETECTOR_DEFAULT` unless given). Every evaluation writes both into
its JSON (`to_json`) and `training.evaluate` and `training.evening` vary them with `--reader-settings FILE
--detector-settings FILE` (`add_settings_arguments`, `settings_from_arguments`). One line per knob; the name in
brackets is the decision in docs/decisions/ (`NAME.md`) that holds its evidence. Facts of the game (a hand's tile
counts, class lists) and of the trained models (the crop's size) are not settings and stay module constants.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, ClassVar, Self


class Settings:
    """What both configs share: their JSON round trip, and the refusal of what is not one of them."""

    what: ClassVar[str]  # the config's name in the messages: "reader", "detector"
    __dataclass_fields__: ClassVar[dict[str, Any]]  # each config is a dataclass

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> Self:
        """Settings from a JSON object, defaults for the keys it leaves out; unknown keys and values of
        the wrong type are refused (ValueError naming them), so a typo cannot silently run the defaults."""
        if not isinstance(data, dict):
            raise ValueError(f"{cls.what} settings must be a JSON object, not {type(data).__name__}")
        types = {f.name: f.type for f in fields(cls)}
        unknown = sorted(set(data) - set(types))
        if unknown:
            raise ValueError(f"unknown {cls.what} settings: {', '.join(map(str, unknown))} "
                             f"(known: {', '.join(types)})")
        for key, value in data.items():
            # bool is an int in Python, and an int is fine where a float is wanted
            ok = not isinstance(value, bool) and (
                isinstance(value, int) if types[key] == "int" else isinstance(value, int | float))
            if not ok:
                raise ValueError(f"{cls.what} setting {key} must be "
                                 f"{'an integer' if types[key] == 'int' else 'a number'}, not {value!r}")
        return cls(**data)

    @classmethod
    def from_file(cls, path: Path) -> Self:
        """Settings from a JSON file (`from_json`); a file that cannot be read or is not JSON is refused
        with a ValueError naming it."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"cannot read {cls.what} settings from {path}: {exc}") from exc
        try:
            return cls.from_json(data)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from exc


@dataclass(frozen=True)
class ReaderSettings(Settings):
    what: ClassVar[str] = "reader"

    # vision.search: which parts form the hand, and how far the search goes
    max_flip: float = 8.0  # a part e^8 times likelier in than out (or out than in) is never changed
    max_flip_in: float = 3.0  # a part of faces e^3 times likelier out than in is never taken in [hand-among-the-table]
    max_memberships: int = 300  # memberships counted, cheapest first
    max_laid_out: int = 8  # memberships with a hand's tile count laid out, cheapest first
    max_searched: int = 6  # of those whose tile counts can make a hand, how many are searched for codes
    visits_per_variant: int = 400  # readings of one group's codes tried per membership and grouping
    readings_per_variant: int = 4  # legal hands kept per membership and grouping (the best and runner-ups)
    cut_step: float = 1.1  # a step this many times the row's steps there: a cut as likely as not [melds-need-evidence]
    cut_scale: float = 0.03  # how sharply those odds turn around `cut_step`
    max_cut_cost: float = 3.0  # groupings with melds cut off the row dearer than this are not tried
    hole: float = 1.5  # a step with room for a tile: a missed tile as much as a cut, no more evidence than this
    missing_cost: float = 4.0  # a tile the photo does not show: as unlikely as a code read at e^-4
    hole_beside_meld: float = 0.15  # row and meld ends two steps apart, give or take this: a hole [hole-beside-a-meld]
    filled_hole: float = 1.0  # a tile supposed in that hole costs this less than one no hole shows [hole-beside-a-meld]
    stray_back_cost: float = 1.0  # backs no concealed kong holds, set apart, tried at this cost
    # vision.search: what is shown where no legal hand is found [hand-without-a-legal-reading]
    shown_without_hand: float = 0.5  # the parts this likely in the hand are shown as it...
    likeliest_shown_from: float = 0.3  # ...else the likeliest part, from this likely on...
    likeliest_shown_tiles: int = 12  # ...of this many tiles or more
    # vision.layout: rows and groups of touching tiles [layout-gaps, melds-need-evidence]
    group_gap: float = 0.45  # boxes with facing edges closer than this many tile widths (theirs if wider): one group
    row_tolerance: float = 0.5  # boxes whose centres differ by less than this many tile heights are one row
    spacing_jump: float = 0.25  # a step between centres this much longer than those around it cuts a group
    stacked_iou: float = 0.2  # boxes overlapping more are stacked or read twice, not side by side
    room_for_a_tile: float = 0.65  # a gap between neighbours this many pitches wide may hide a missed tile
    # vision.correction: how far a code may be changed to make a legal hand
    candidates: int = 4  # alternatives considered per tile
    max_cost: float = 12.0  # a reading e^-12 less likely than the cheapest is no longer "close"
    per_group: int = 3  # readings kept per group (the concealed tiles, each meld) before combining them
    # vision.read: which way up, askew, too small [which-way-up, askew-rows, rows-found-turned, tiles-too-small]
    sure_upright: float = 0.9  # an askew photo's level turns end at a legal reading this sure (mean certainty)
    turned_by: float = 0.5  # a half-turned reading is kept only where its boxes' scores sum this much more...
    turned_more_tiles: int = 4  # ...it shows at most this many tiles more (alone legal: a hand's) [across-the-table]...
    turned_less_sure: float = 0.1  # ...and its faces' mean certainty is no lower than this less
    small_tile: float = 16.0  # a hand whose tiles' median short side is under this (px) carries a notice
    askew_from: float = 20.0  # rows at this many degrees or more: the photo is read again turned level
    askew_coherence: float = 0.5  # the boxes' common direction must be at least this coherent (0-1)...
    min_for_askew: int = 5  # ...over at least this many boxes
    probe_turn: float = 45.0  # 1-4 tiles found: read turned this many degrees each way to find the rows
    # vision.hand_finding: which runs of tiles are one part
    touch: float = 0.3  # tiles touch side by side when the gap between them is under this of a tile's width...
    stacked: float = 0.5  # ...they overlap by less than this of it (more is a tile lying on another)...
    level: float = 0.5  # ...they share this much of their height (a wall behind the hand does not)...
    same_size: float = 0.75  # ...and each one's shorter side is at least this of the other's
    flowers_kept: float = 1 - 1e-4  # a part of flowers alone is the hand's this surely [flowers-kept]
    unsure_box: float = 0.7  # no legal hand: face-up boxes under this presence are set apart [boxes-on-the-mat]
    # vision.memory: how a table's memory of its own tiles moves each tile's class odds [table-memory]
    similar: float = 0.7  # a crop this like a class's nearest example leaves that class as the model read it
    strength: float = 15.0  # log-odds per unit of likeness above or below `similar`...
    max_shift: float = 4.0  # ...at most this many up...
    max_down: float = 1.0  # ...and this many down
    relative: float = 20.0  # where the crop is of this set, log-odds lost per unit below its likest example
    same_set: float = 0.75  # a crop this like its likest example is of the table's own set [tiles-within-a-set]
    probe: float = 1.0  # weight of the probe fitted on the table's examples, where the crop is of this set
    probe_scale: float = 10.0  # the probe's unit embeddings times this
    probe_l2: float = 0.01  # the probe's L2 penalty
    probe_steps: int = 50  # the probe's steps of full-batch gradient descent from zero
    probe_rate: float = 1.0  # the probe's learning rate
    flower_views_from: float = 0.2  # crops this likely a flower are compared steadied [flowers-steadied]
    flower_view_shift: int = 3  # steadied: the crop and four copies moved this many pixels


@dataclass(frozen=True)
class DetectorSettings(Settings):
    what: ClassVar[str] = "detector"

    # vision.detector: the passes, and which clusters of tiles are read again at the trained size [detector-passes]
    min_found_tile: float = 12.0  # below this width (px at the network input) the first pass misses tiles: look larger
    same_scale_from: float = 0.85  # clusters between these multiples of the trained width... [detector-head-room]
    same_scale_to: float = 1.5  # ...are read as the first pass found them
    cluster_size_ratio: float = 1.6  # tiles of one cluster differ in size by less than this factor...
    cluster_reach: float = 3.0  # ...and lie within this many tile sizes of a neighbour of the cluster
    max_second_passes: int = 3  # second passes for at most this many clusters, the largest first
    first_pass_max: int = 2  # the first pass's largest input is this many times the card's max_side
    first_pass_enlarge: float = 1.0  # ...and this many times the photo's long side [detector-head-room]
    min_aspect: float = 0.45  # a median box narrower than this (width / height) is a squashed photo...
    upright_aspect: float = 0.75  # ...read again with its width restored so the median comes to this...
    max_restore: float = 6.0  # ...by at most this factor...
    min_for_aspect: int = 3  # ...judged on at least this many boxes
    faint_flower: float = 0.05  # a flower box is kept from this score up... [faint-flowers]
    faint_flower_sure: float = 0.7  # ...where the crop classifier gives the flowers this much [faint-flowers]
    flower_run_touch: float = 0.3  # or it lies inside a run of flowers, touching within this of its width
    nms_iou: float = 0.5  # boxes overlapping more than this (IoU) are one tile, within a pass and across passes
    region_margin: float = 1.5  # a second pass reads its cluster's region with this many tile widths around it
    second_pass_scale: float = 1.0  # ...resized so its tiles come out this many times the trained width
    # [detector-head-room]
    halve_from: float = 4.0  # crops of tiles this many crop heights or taller are cut from a halved photo
    reduced_decode: float = 1.0  # a JPEG is decoded at 1/2, 1/4, 1/8 while its tiles stay this many crop heights
    # tall; 0: always whole [reduced-decode]
    # vision.detector: a tile photographed close up, larger than the detector knows [close-up-tiles]
    close_up_boxes: int = 8  # a first pass at the model's size finding none or this many sure boxes or fewer...
    close_up_unsure: float = 0.7  # ...the surest of them scored under this...
    close_up_side: float = 0.375  # ...is read again shrunk to this part of its input side amid grey, and that...
    close_up_share: float = 0.35  # ...kept where its tiles' short sides are this much of the photo's at the median...
    sliver_inside: float = 0.5  # ...and it is surer, a first-pass box this much inside one of its tiles a sliver of it


READER_DEFAULT = ReaderSettings()
DETECTOR_DEFAULT = DetectorSettings()


def add_settings_arguments(parser: argparse.ArgumentParser) -> None:
    """`--reader-settings FILE` and `--detector-settings FILE`, for a command that reads with other settings."""
    parser.add_argument("--reader-settings", type=Path, metavar="FILE",
                        help="JSON of vision.settings.ReaderSettings fields to vary (the others keep their defaults)")
    parser.add_argument("--detector-settings", type=Path, metavar="FILE",
                        help="JSON of vision.settings.DetectorSettings fields to vary (the others keep their defaults)")


def settings_from_arguments(args: argparse.Namespace) -> tuple[ReaderSettings, DetectorSettings]:
    """The settings `add_settings_arguments`' options name (the defaults where not given); a bad file exits with
    its error."""
    try:
        return (ReaderSettings.from_file(args.reader_settings) if args.reader_settings else READER_DEFAULT,
                DetectorSettings.from_file(args.detector_settings) if args.detector_settings else DETECTOR_DEFAULT)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from exc
