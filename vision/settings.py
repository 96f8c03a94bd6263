"""The read's settings, each a frozen config with its defaults in one place: `ReaderSettings`, the numbers
that tune the read after the detector (and how a table's memory weighs its examples), and `DetectorSettings`,
those of the detector (its passes, faint flowers, crops).

`read_detections` and `read_photo` take a `ReaderSettings` (`READER_DEFAULT` unless given) and pass it down; a
`TileDetector` holds its `DetectorSettings` (`DETECTOR_DEFAULT` unless given). Every evaluation writes both into
its JSON (`to_json`) and `training.evaluate` and `training.evening` vary them with `--reader-settings FILE
--detector-settings FILE` (`add_settings_arguments`, `settings_from_arguments`). The long reasons for the
defaults are in models/README.md ("Reader decisions", "The reader's constants", "Faint flowers", "The table's
memory"). Facts of the game (a hand's tile counts, class lists) and of the trained models (the crop's size) are
not settings and stay module constants.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import ClassVar, Self


class Settings:
    """What both configs share: their JSON round trip, and the refusal of what is not one of them."""

    what: ClassVar[str]  # the config's name in the messages: "reader", "detector"

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
    max_memberships: int = 300  # memberships counted, cheapest first
    max_laid_out: int = 8  # memberships with a hand's tile count laid out, cheapest first
    max_searched: int = 6  # of those whose tile counts can make a hand, how many are searched for codes
    visits_per_variant: int = 400  # readings of one group's codes tried per membership and grouping
    readings_per_variant: int = 4  # legal hands kept per membership and grouping (the best and runner-ups)
    # a step between the concealed row's centres cut_step times the row's median is as likely a cut
    # between a meld and the row as not; cut_scale: how sharply the odds turn around it
    cut_step: float = 1.1
    cut_scale: float = 0.03
    max_cut_cost: float = 3.0  # groupings with melds cut off the row dearer than this are not tried
    hole: float = 1.5  # a step with room for a tile is a missed tile as much as a cut: no more evidence than this
    missing_cost: float = 4.0  # a tile the photo does not show: as unlikely as a code read at e^-4
    # the backs no concealed kong holds (`vision.groups.stray_backs`: mostly the table seen through a gap) set
    # apart: tried beside the layout that keeps them (a tile lying face down), at this cost
    stray_back_cost: float = 1.0
    shown_without_hand: float = 0.5  # with no legal hand, parts likelier in the hand than not are shown as it
    # with no legal hand and no part likelier in it than not, the likeliest part of this many tiles or more is
    # shown as the hand, from this likely on: a hand's row set apart costs a tap a tile, shown as the hand only
    # its misreads; shorter parts are more often loose tiles or discards (models/README.md, "Reader decisions")
    likeliest_shown_from: float = 0.3
    likeliest_shown_tiles: int = 12
    # vision.layout: rows and groups of touching tiles
    group_gap: float = 0.45  # boxes whose facing edges are closer than this many tile widths are one group
    row_tolerance: float = 0.5  # boxes whose centres differ by less than this many tile heights are one row
    spacing_jump: float = 0.25  # a step between centres this much longer than those around it cuts a group
    stacked_iou: float = 0.2  # boxes overlapping more are stacked or read twice, not side by side
    room_for_a_tile: float = 0.65  # a gap between neighbours this many pitches wide may hide a missed tile
    # vision.correction: how far a code may be changed to make a legal hand
    candidates: int = 4  # alternatives considered per tile
    max_cost: float = 12.0  # a reading e^-12 less likely than the cheapest is no longer "close"
    per_group: int = 3  # readings kept per group (the concealed tiles, each meld) before combining them
    # vision.read: a photo turned level is left once a turn reads a legal hand surer than this (mean certainty)
    sure_upright: float = 0.9
    # a photo of a hand read turned half a turn replaces its reading as it is where it is a legal hand as often and
    # the sum of its boxes' scores is this much more, and it shows at most `turned_more_tiles` more tiles: turned,
    # a real game table's photo read 40 tiles where it read 15, the table and the walls upside down
    turned_by: float = 0.5
    turned_more_tiles: int = 4
    # and its faces (their mean certainty) read no less surely but for `turned_less_sure`: upside down, a taught set's
    # 1s read as pins into a legal hand with a tile more, its faces at 0.85 where they read at 0.998 as it was
    turned_less_sure: float = 0.1
    # a hand whose tiles are under `small_tile` pixels on their short side (the median) in the photo is read with a
    # notice to check each tile and take the next photo closer: faces that small are often misread
    # (models/README.md, "Tiles too small")
    small_tile: float = 16.0
    # a row photographed askew: the detector, trained on rows mostly level, misses many tiles of a row at 30-45
    # degrees (6 of 21 on one generated evening photo at 37 degrees, all found once the photo was turned level),
    # and the layout finds no row in the rest. The rows' angle is the mean direction from each box to its
    # nearest, modulo 90 degrees (`vision.boxes.row_angle`: coherence 0-1 at least `askew_coherence`, over at
    # least `min_for_askew` boxes), turned to the way they run modulo 180 (`row_direction`); from `askew_from`
    # degrees (or plumb, where the photo as it is reads no legal hand) the photo is read again each way that lays
    # them level, and the reading kept that is a legal hand where the others are not, or as legal surer of more
    # tiles (models/README.md, "Askew rows")
    askew_from: float = 20.0
    askew_coherence: float = 0.5
    min_for_askew: int = 5
    # a photo where the detector finds some tiles as it is but fewer than `min_for_askew` tells nothing of how their
    # rows lie: it is read turned by `probe_turn` degrees each way, and the rows' angle taken from the turn that finds
    # more (a hand at 145 degrees, upside down and askew: 2 tiles found as it is, 17 turned by -45; models/README.md,
    # "Rows found turned")
    probe_turn: float = 45.0
    # vision.hand_finding: which runs of tiles are one part
    # two tiles touch side by side when the gap between them is under `touch` of a tile's width, they overlap by
    # less than `stacked` of it (more is a tile lying on another), they share `level` of their height (a tilted
    # row still does; a wall behind the hand does not) and the shorter side of each is at least `same_size` of
    # the other's (a tile of the next row in perspective is not)
    touch: float = 0.3
    stacked: float = 0.5
    level: float = 0.5
    same_size: float = 0.75
    # flowers are never discarded and a player lays them apart from the hand, so a part of flowers alone is the
    # hand's, as sure as the search never doubts (`max_flip`): the hand is legal without them, so unsure
    # flowers were left out as strays (models/README.md, "Reader decisions")
    flowers_kept: float = 1 - 1e-4
    # where no legal hand is found, a face-up box the detector scores under `unsure_box` as a tile at all
    # (`Detections.presence`) is read again as a part of its own, in the hand with that chance times its part's: a
    # patterned mat between and beside the tiles is boxed as 8p or 9p (0.26-0.61, the hand's tiles 0.8 and up
    # but flowers), and inside a row no legal hand holds it (models/README.md, "Boxes on the mat")
    unsure_box: float = 0.7
    # vision.memory: how a table's memory of its own tiles moves each tile's class odds
    # a crop's cosine similarity to a class's nearest example is weighed against `similar`: likelier that class
    # above it, less likely below, by `strength` per unit (the log-odds), at most `max_shift` up and `max_down`
    # down. Chosen on the evening benchmark and the real test splits read as evenings (training/evening.py,
    # models/README.md): a tile unlike its class's examples is often that class still (another pose, light, or
    # on real photos another set of the collection), so the memory lowers a class little. Both cut-offs are the
    # classifier's: the one trained to tell a set's tiles apart puts a set's other tiles further from a crop than
    # the one before it (0.75 and 0.85 then; models/CLASSIFIER.md, "Tiles within a set")
    similar: float = 0.7
    strength: float = 15.0
    max_shift: float = 4.0
    max_down: float = 1.0
    # a set's tiles look alike to the classifier (its flowers above all), so a crop is often above `similar` to
    # the examples of two classes. Where its likest example is at least `same_set` like it (the table's own
    # set), each class with examples also loses `relative` log-odds per unit its nearest example is less like
    # the crop than that likest one. Below `same_set` the likest example is often of another set (the real
    # collections mix sets), and the term cost taps there (models/README.md, "The table's memory"). A class with
    # no example yet counts there as `similar` like the crop, so a set's flower the model reads as a tile the
    # table has not shown yet (the bamboo bird) goes to the flower its examples say ("A class the table has not
    # shown")
    relative: float = 20.0
    same_set: float = 0.75
    # and there a linear probe fitted on the table's own examples (multinomial logistic regression over the classes
    # with examples: unit embeddings times `probe_scale`, L2 `probe_l2`, `probe_steps` steps of gradient descent
    # from zero at `probe_rate`) gives each of those classes `probe` times its log-probability less the
    # likeliest's: it finds the few directions in which one set's alike flowers differ, where a cosine over all
    # 192 features barely moves (models/README.md, "The table's memory")
    probe: float = 1.0
    probe_scale: float = 10.0
    probe_l2: float = 0.01
    probe_steps: int = 50
    probe_rate: float = 1.0
    # a flower is compared steadied (`vision.memory.steadied`): by the mean of its unit embeddings over its crop and
    # the crop moved `flower_view_shift` pixels (of its 48 x 64) each way. Read with a memory, a crop whose flower
    # probability is `flower_views_from` or more is (a fifth of a hand photo's tiles: four more classifier runs
    # each); taught, every flower is. On the evening benchmark's crops the likest taught flower was the right one
    # for 83% of xmahjongg-real's flowers unsteadied, 92% steadied (models/README.md, "Flowers steadied")
    flower_views_from: float = 0.2
    flower_view_shift: int = 3


@dataclass(frozen=True)
class DetectorSettings(Settings):
    what: ClassVar[str] = "detector"

    # vision.detector: the first pass, and which clusters of tiles are read again at the trained size
    min_found_tile: float = 12.0  # below this width (px at the network input) the first pass misses tiles: look larger
    # tiles found between these multiples of the trained tile width are read as found, in one pass (a second
    # pass at the trained size reads them no better)
    same_scale_from: float = 0.7
    same_scale_to: float = 1.5
    # tiles of one cluster differ in size by less than this factor (near tiles can be 5x far ones in a photo
    # of a table), and lie within this many tile sizes of a neighbour of the cluster
    cluster_size_ratio: float = 1.6
    cluster_reach: float = 3.0
    # second passes for at most this many clusters, the largest first (the rest keep the first pass):
    # bounds the time a cluttered photo takes
    max_second_passes: int = 3
    # the first pass's largest input (long side) is this many times the card's max_side (2560 px): its memory
    # and time grow with its area, and a read stays under 1 GB at this cap
    first_pass_max: int = 2
    # vision.detector: a photo squashed by a resize that did not keep its aspect (a data set's "stretch"
    # export, a 16:9 frame shown square). An upright tile's face is about `upright_aspect` as wide as tall; no
    # view of a table makes its tiles' median box narrower than `min_aspect` (a row seen end on: 0.5), so such
    # a photo is read again with its width restored, by at most `max_restore`, judged on at least
    # `min_for_aspect` boxes. Wide boxes are no such sign: tiles lying flat seen at a grazing angle reach 3-4
    min_aspect: float = 0.45
    upright_aspect: float = 0.75
    max_restore: float = 6.0
    min_for_aspect: int = 3
    # vision.detector: a box whose likeliest class is a flower is kept from `faint_flower` up (others from the
    # card's conf): a flower of a set the detector never saw scores low, and a hand without it loses its 台.
    # Such a faint box is kept only where no surer box covers it and the crop classifier gives the flowers
    # `faint_flower_sure` of its probability: the two bounds that kept faint flowers and no faint other tile
    # (models/README.md, "Faint flowers")
    faint_flower: float = 0.05
    faint_flower_sure: float = 0.7
    # a faint box kept although the classifier doubts it is a flower, where it lies inside a run of flowers: a box
    # touching it on each side (facing edges closer than this many of its widths, as the reader's `touch`), the
    # run holding two flowers or more. A player lays the flowers touching in a row, and one of a set the models
    # never saw can read as no flower (models/README.md, "Faint flowers")
    flower_run_touch: float = 0.3
    # vision.detector: boxes overlapping more than this (IoU) are one tile, within a pass and across passes
    nms_iou: float = 0.5
    region_margin: float = 1.5  # a second pass reads its cluster's region with this many tile widths around it
    # vision.crop_classifier: the smallest tile's height, in crop heights, from which crops are cut from a
    # halved photo (models/README.md, "The reader's constants")
    halve_from: float = 4.0


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
