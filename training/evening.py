"""The evening benchmark: a table plays one set all evening, and each hand it confirms teaches its memory.

    python -m training.evening [--evenings 3] [--hands 8] [--seed 0] [--size 512] [--real DIR ...] [--json OUT]
                               [--detail] [--taught] [--photographer owner|across] [--sideways]
                               [--reader-settings FILE] [--detector-settings FILE]

For each unseen design (the styles never trained on: `xmahjongg-real`, and the three designs of the
held-out real crops, `datasets/styles.py`), `--evenings` evenings of `--hands` generated photos of
winning hands with flowers and melds, all of one physical set (`SceneSet`), are read one by one as the app
reads a photo (`vision.read.read_photo`: turned level where its rows lie askew, and either way up) with the
table's memory (vision/memory.py) and, beside it, without one. After each read the memory is taught
the hand as the player's fixes give it: each hand tile the reading found (a detection matched to a
labelled hand tile at IoU 0.5) with its true code; a tile the player adds by hand has no box and
teaches nothing. Reported for hands 1-2 (the memory still empty or nearly) and for hands 3 on, with and
without the memory: the hand taps to fix (`training.evaluate.judge_hand`; by what they fix; and over the hands whose
photo tells them, `SceneTruth.tells_hand`, as below),
groups-and-kinds exact over whole hands, *台 exact* over the same hands (`training.evaluate.tai_exact`: the
reading scored as the page scores it, in the hand's situation, totals its 台; also over the hands whose photo tells
them, `SceneTruth.tells_hand`: which tile won and each kong's face, as a hand that sorts its winning tile into its row
or lays a concealed kong as four backs does not; and the misses by why, `training.evaluate.TAI_MISSES`), and
*flower groups right*: the
reading's flower group holds exactly the hand's flowers (over the hands whose flowers are all in view), and what
became of each of those flowers (`FLOWER_OUTCOMES`: read right, read as another flower, kept as no flower, set apart,
not found) and of each tile the flower group holds that is none of them (`extra`). `--detail` also writes a line
per hand read with the memory to stderr: its taps, the camera's turn about its axis, and the hand's groups
beside the reading's where they differ.

`--taught`: each evening starts as a table that uses the app's "teach this set" step (ui/teach_page.py):
a photo of the set's eight flowers in a row (a `flower_row` scene, drawn after the hands, so that the hands
are the same as without it) is read, and the flowers it found are taught with their names (the player's
taps), before hand 1.

`--photographer across`: every hand is photographed by the player across the table from its owner: the same
hands (their tiles, groups and places) turned half a turn on the table, so their faces are upside down in the
photo while each tile's near edge still faces the camera, laid flat as a hand shown to the table (a standing
row would show its backs). The suits read surely either way up, the flowers of an unseen set do not: the reader
must find which way up the hand lies. The flower row of `--taught` is photographed by its owner.

`--sideways`: every photo is taken with the phone held sideways and saved without the turn (a phone that writes no
EXIF orientation, a photo passed on through a chat app): turned a quarter turn as an image, clockwise for the
odd hands and anticlockwise for the even ones, so the rows run up the photo.

`--real DIR` reads a real set's test split (the shared folder's data/real-labelled) as one table's
evening: its photos in the order of their source photos (the file name before Roboflow's `.rf.`),
each read and then taught its labelled tiles found; every tile is judged as `training.evaluate` judges a
real set (every label judged, set apart or not; a box set apart on no label greyed, no tap), with and without
the memory.

`--reader-settings FILE`, `--detector-settings FILE`: as in `training.evaluate` (the memory is weighed as the
reader's settings say); the JSON names the settings it was read with.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import cv2
import numpy as np

from datasets.photo import apply_photo, photo_effects
from datasets.recipe import Recipe
from datasets.scene import render_scene
from datasets.scene_truth import SceneTruth
from datasets.styles import HELD_OUT_CROP_RANGES, SceneSet, load_style
from scoring.melds import GroupKind
from training.evaluate import (
    TAI_MISSES,
    TAP_CAUSES,
    in_hand,
    is_real,
    judge_hand,
    load_samples,
    reading_groups,
    truth_groups,
)
from vision.boxes import match
from vision.classes import CLASSES
from vision.detector import TileDetector
from vision.memory import TableMemory
from vision.photo import load_photo
from vision.read import PhotoReading, read_photo
from vision.settings import (
    READER_DEFAULT,
    ReaderSettings,
    add_settings_arguments,
    settings_from_arguments,
)

HANDS_ONLY = Recipe(name="evening", kinds={"hand": 1.0})
HANDS_SHOWN = replace(HANDS_ONLY, standing_row=0.0)  # every hand laid flat, face up, for the whole table to see
PHOTOGRAPHERS = ("owner", "across")  # who photographs each hand: its owner, or the player across the table
FLOWER_ROW = Recipe(name="teach", kinds={"flower_row": 1.0})
# The unseen designs: (style, the held-out crop number a set's crops are drawn nearest to, or None).
DESIGNS = (("xmahjongg-real", None),) + tuple(("real-crops-held-out", (lo + hi) / 2) for lo, hi in HELD_OUT_CROP_RANGES)
FIRST_HANDS = 2  # "hands 1-2": read with the memory of at most one hand
# what became of a hand's flower tile in the reading (`flower_outcomes`)
FLOWER_OUTCOMES = ("right", "another flower", "no flower", "set apart", "not found")
TRIES = 40  # scenes drawn for one hand with flowers and melds before giving up


def design_name(style: str, anchor: float | None) -> str:
    return style if anchor is None else f"{style}@{anchor:.0f}"


def tile_set_of(style: str, anchor: float | None, rng: np.random.Generator) -> SceneSet:
    """One physical set of the design: every hand of an evening is drawn with it."""
    tile_set = SceneSet(load_style(style), rng)
    if anchor is not None:
        tile_set.crop_anchor = anchor
    return tile_set


def hand_photo(rng: np.random.Generator, tile_set: SceneSet, size: int, effects,
               photographer: str = "owner") -> tuple[np.ndarray, list, SceneTruth]:
    """A photo of a whole winning hand (every tile in view, as a player shows it) with flowers and melds in
    `tile_set`, taken by `photographer` (`PHOTOGRAPHERS`): (BGR image, labels, truth), passed through a phone's
    photo effects and JPEG as the generated data sets are. The player across the table photographs the hand
    its owner would have, drawn from the same state of `rng`, which goes on as after the owner's photo; where one of
    the two photos leaves a tile of the hand out, both are drawn again."""
    for _ in range(TRIES):
        before = copy.deepcopy(rng)
        image, labels, truth = render_scene(rng, "unseen", size, HANDS_ONLY, tile_set)
        if not whole_hand_shown(truth):
            continue
        if photographer == "across":  # framed from the other side, a tile of the same hand may fall outside the photo
            image, labels, truth = render_scene(before, "unseen", size, HANDS_SHOWN, tile_set, facing_away=True)
            if not whole_hand_shown(truth):
                continue
        return photographed(rng, effects, image), labels, truth
    raise RuntimeError(f"no hand with flowers and melds in {TRIES} scenes")


def whole_hand_shown(truth: SceneTruth) -> bool:
    """A hand with flowers and melds, every tile of it in the photo."""
    hand = truth.hand
    return bool(hand and hand.flowers and hand.melds) and all(None not in g.label_rows for g in truth.hand_groups())


def held_sideways(image: np.ndarray, labels: list, truth: SceneTruth,
                  clockwise: bool) -> tuple[np.ndarray, list, SceneTruth]:
    """A photo turned a quarter turn as an image, its label boxes (class, x1, y1, x2, y2 in pixels) with it, and
    the camera's turn about its axis (`roll`, clockwise) with them."""
    h, w = image.shape[:2]
    if clockwise:  # (x, y) → (h - y, x)
        turned, labels = cv2.ROTATE_90_CLOCKWISE, [(c, h - y2, x1, h - y1, x2) for c, x1, y1, x2, y2 in labels]
    else:  # (x, y) → (y, w - x)
        turned, labels = cv2.ROTATE_90_COUNTERCLOCKWISE, [(c, y1, w - x2, y2, w - x1) for c, x1, y1, x2, y2 in labels]
    roll = truth.roll + (90 if clockwise else -90)
    return cv2.rotate(image, turned), labels, replace(truth, roll=(roll + 180) % 360 - 180)


def photographed(rng: np.random.Generator, effects, image: np.ndarray) -> np.ndarray:
    """A rendered scene as a phone's photo: its effects, then JPEG (as the generated data sets are)."""
    image = apply_photo(effects, image, int(rng.integers(2**31)))
    jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 96))])[1]
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def teach_flowers(memory: TableMemory, detector: TileDetector, rng: np.random.Generator, tile_set: SceneSet,
                  size: int, effects) -> int:
    """The "teach this set" step: a photo of the set's eight flowers in a row, read, and each flower found
    taught under its name; how many were taught."""
    image, labels, _ = render_scene(rng, "unseen", size, FLOWER_ROW, tile_set)
    image = photographed(rng, effects, image)
    boxes = np.array([box for _, *box in labels], np.float32).reshape(-1, 4)
    found = detector.read(image)
    pairs = match(boxes, found.boxes)
    rows = [r for r in range(len(labels)) if r in pairs]
    if rows:
        memory.teach(detector.classifier, image, found.boxes[[pairs[r] for r in rows]],
                     [CLASSES[labels[r][0]] for r in rows])
    return len(rows)


def flower_ids(reading: PhotoReading) -> set[int]:
    """The row ids of the tiles the best reading's flower group holds."""
    return {i for g in reading.best.groups if g.kind == GroupKind.FLOWERS for i in g.members}


def flower_group(reading: PhotoReading) -> Counter:
    return Counter(reading.best.row(i).code for i in flower_ids(reading))


def flower_outcomes(reading: PhotoReading, pairs: dict[int, int], codes: list[str], rows: list[int]) -> Counter:
    """What became of the hand's flower tiles (label `rows`) in the reading, by `FLOWER_OUTCOMES`, and how many
    tiles its flower group holds besides them (`extra`: another tile, or a box on nothing)."""
    best, kept, in_group = reading.best, in_hand(reading), flower_ids(reading)
    out = Counter({outcome: 0 for outcome in (*FLOWER_OUTCOMES, "extra")})
    for r in rows:
        p = pairs.get(r)
        if p is None:
            out["not found"] += 1
        elif not kept[p]:
            out["set apart"] += 1
        elif best.shown[p].id not in in_group:
            out["no flower"] += 1
        else:
            out["right" if best.shown[p].code == codes[r] else "another flower"] += 1
    flower_boxes = {pairs[r] for r in rows if r in pairs}
    out["extra"] = sum(row.id in in_group and p not in flower_boxes for p, row in enumerate(best.shown))
    return out


def mean_taps(taps) -> float | None:
    """Taps per hand, to 3 places; None for no hands."""
    taps = list(taps)
    return round(statistics.fmean(taps), 3) if taps else None


@dataclass
class Tally:
    """Taps (and what they fix), groups-and-kinds and 台 exact, flower groups right over some of an evening's hands."""

    taps: list[int] = field(default_factory=list)
    taps_told: list[int] = field(default_factory=list)  # the same, of the hands the photo tells (`tells_hand`)
    exact: list[bool] = field(default_factory=list)
    tai: list[bool] = field(default_factory=list)  # per whole hand scored at the default table: its 台 read right
    tai_told: list[bool] = field(default_factory=list)  # the same, of the hands the photo tells (`tells_hand`)
    tai_misses: Counter = field(default_factory=Counter)  # the hands whose 台 is wrong, by why (TAI_MISSES)
    flowers: list[bool] = field(default_factory=list)
    codes: list[bool] = field(default_factory=list)  # per hand tile found: its face read right (before the search)
    causes: list[dict[str, int]] = field(default_factory=list)  # per hand: its taps by what they fix (TAP_CAUSES)
    flowers_by_outcome: Counter = field(default_factory=Counter)  # the hands' flower tiles (`flower_outcomes`)
    small: list[bool] = field(default_factory=list)  # per hand: read with the notice that its tiles are small

    def result(self) -> dict:
        rate = lambda v: round(sum(v) / len(v), 4) if v else None  # noqa: E731
        return {"hands": len(self.taps), "taps": mean_taps(self.taps), "taps_told": mean_taps(self.taps_told),
                "groups_exact": rate(self.exact), "whole_hands": len(self.exact),
                "tai_exact": rate(self.tai), "scored_hands": len(self.tai),
                "tai_exact_told": rate(self.tai_told), "told_hands": len(self.tai_told),
                "tai_misses": {m: self.tai_misses[m] for m in TAI_MISSES},
                "flower_groups_right": rate(self.flowers), "flower_hands": len(self.flowers),
                "hand_tiles_read_right": rate(self.codes),
                "taps_by_cause": {c: mean_taps(k[c] for k in self.causes) for c in TAP_CAUSES},
                "flowers_by_outcome": self.outcomes() if self.flowers else None,
                "small_tiles_notice": self.small_tiles()}

    def add(self, other: Tally) -> None:
        """`other`'s hands added to these: every field, each a list or a Counter."""
        for f in fields(self):
            mine = getattr(self, f.name)
            if isinstance(mine, Counter):
                mine.update(getattr(other, f.name))
            else:
                mine += getattr(other, f.name)

    def small_tiles(self) -> dict:
        """How many hands were read with the notice that their tiles are small, and the taps of those and the rest."""
        pairs = list(zip(self.taps, self.small, strict=True))
        return {"hands": sum(self.small), "taps": mean_taps(t for t, s in pairs if s),
                "others_taps": mean_taps(t for t, s in pairs if not s)}

    def outcomes(self) -> dict:
        counts = self.flowers_by_outcome
        return {"of": sum(counts[o] for o in FLOWER_OUTCOMES)} | {o: counts[o] for o in (*FLOWER_OUTCOMES, "extra")}


def judged(tally: Tally, reading: PhotoReading, boxes: np.ndarray, codes: list[str],
           truth: SceneTruth) -> dict[int, int]:
    """Add one generated hand's reading to `tally`; the label → detection pairs."""
    pairs = match(boxes, reading.best.boxes)
    verdict = judge_hand(reading, pairs, codes, truth)
    told = truth.tells_hand()
    tally.taps.append(verdict.taps)
    if told:
        tally.taps_told.append(verdict.taps)
    tally.causes.append(verdict.causes)
    tally.small.append(reading.warning("tiles-small") is not None)
    shown = reading.best.shown
    tally.codes += [shown[pairs[r]].raw_code == codes[r] for r in hand_rows(truth) if r in pairs]
    if verdict.groups_exact is not None:
        tally.exact.append(verdict.groups_exact)
    if verdict.tai_exact is not None:
        tally.tai.append(verdict.tai_exact)
        if told:
            tally.tai_told.append(verdict.tai_exact)
    if verdict.tai_miss is not None:
        tally.tai_misses[verdict.tai_miss] += 1
    shown = [g for g in truth.hand_groups() if g.kind == GroupKind.FLOWERS]
    if shown and None not in shown[0].label_rows:
        tally.flowers.append(flower_group(reading) == Counter(shown[0].tiles))
        tally.flowers_by_outcome.update(flower_outcomes(reading, pairs, codes, list(shown[0].label_rows)))
    return pairs


def hand_rows(truth: SceneTruth) -> list[int]:
    """The label rows of the hand's tiles (what the player confirms)."""
    return [r for g in truth.hand_groups() for r in g.label_rows if r is not None]


def teach_found(memory: TableMemory, detector: TileDetector, image: np.ndarray, reading: PhotoReading,
                pairs: dict[int, int], codes: list[str], rows: list[int]) -> None:
    """Teach the tiles the reading found among `rows` (labels), each with its labelled code."""
    found = [(pairs[r], codes[r]) for r in rows if r in pairs]
    if found:  # each tile as the reader saw it (the photo turned level or half a turn, as the app teaches)
        memory.teach(detector.classifier, *reading.view.seen(image, reading.best.boxes[[p for p, _ in found]]),
                     [c for _, c in found])


def detail(name: str, n: int, reading: PhotoReading, truth: SceneTruth, taps: int) -> str:
    """One hand's line of `--detail`: its taps, how far the camera was turned about its axis (the rows' angle in
    the photo, give or take the perspective), how the reader turned the photo to read it where it did, and where
    the reading's groups (kind: codes) differ from the hand's, both."""
    line = f"{name} hand {n + 1}: {taps} taps, camera turned {truth.roll:.0f}°"
    view = reading.view
    if view.angle or view.half_turn:
        line += f", read turned {view.angle:.0f}°" + (" and half a turn" if view.half_turn else "")
    if reading.warning("tiles-small") is not None:
        line += ", tiles small"
    read, held = reading_groups(reading), truth_groups(truth)
    if read == held:
        return line + ", groups exact"
    show = lambda groups: "; ".join(f"{kind}: {' '.join(codes)}" for kind, codes in sorted(groups.elements()))  # noqa: E731
    return f"{line}\n  hand    {show(held)}\n  reading {show(read)}"


def evening(detector: TileDetector, style: str, anchor: float | None, hands: int, seed: int, size: int,
            effects, show_detail: bool = False, taught: bool = False, photographer: str = "owner",
            sideways: bool = False, reader: ReaderSettings = READER_DEFAULT) -> dict[str, Tally]:
    """One evening of one design: its hands read with and without the memory, by hand number; `taught`: the
    memory first taught the set's flowers (`teach_flowers`); each hand photographed by `photographer`
    (`hand_photo`), the phone held `sideways` or not (`held_sideways`)."""
    rng = np.random.default_rng(seed)
    tile_set = tile_set_of(style, anchor, rng)
    memory = TableMemory.for_classifier(detector.classifier, settings=reader)
    # The hands are drawn before the flower row, as the set draws each face the first time it shows one: so
    # the hands are the same with `taught` as without it.
    photos = [hand_photo(rng, tile_set, size, effects, photographer) for _ in range(hands)]
    if sideways:
        photos = [held_sideways(*photo, clockwise=n % 2 == 0) for n, photo in enumerate(photos)]
    if taught:
        teach_flowers(memory, detector, np.random.default_rng([seed, 1]), tile_set, size, effects)
    out = {f"{phase} {mode}": Tally() for phase in ("hands 1-2", "hands 3 on") for mode in ("memory", "alone")}
    for n, (image, labels, truth) in enumerate(photos):
        boxes = np.array([box for _, *box in labels], np.float32).reshape(-1, 4)
        codes = [CLASSES[c] for c, *_ in labels]
        phase = "hands 1-2" if n < FIRST_HANDS else "hands 3 on"
        alone = read_photo(image, detector, settings=reader)
        judged(out[f"{phase} alone"], alone, boxes, codes, truth)
        reading = read_photo(image, detector, memory=memory, settings=reader)
        pairs = judged(out[f"{phase} memory"], reading, boxes, codes, truth)
        if show_detail:
            print(detail(f"{design_name(style, anchor)} seed {seed}", n, reading, truth,
                         out[f"{phase} memory"].taps[-1]), file=sys.stderr)
        teach_found(memory, detector, image, reading, pairs, codes, hand_rows(truth))
    return out


def source_photo(path: Path) -> str:
    """A real photo's source (Roboflow names its exports `<source>_jpg.rf.<hash>.jpg`)."""
    return path.name.split(".rf.")[0]


def real_evening(detector: TileDetector, root: Path, limit: int | None,
                 reader: ReaderSettings = READER_DEFAULT) -> dict:
    """A real set's test split read as one table's evening, in the order of its source photos."""
    samples = sorted(load_samples(root, "test", None), key=lambda s: source_photo(s["image"]))[:limit]
    memory = TableMemory.for_classifier(detector.classifier, settings=reader)
    taps = {"memory": [], "alone": []}
    for s in samples:
        image = load_photo(s["image"])
        alone = read_photo(image, detector, settings=reader)
        taps["alone"].append(judge_hand(alone, match(s["boxes"], alone.best.boxes), s["codes"], None).taps)
        reading = read_photo(image, detector, memory=memory, settings=reader)
        pairs = match(s["boxes"], reading.best.boxes)
        taps["memory"].append(judge_hand(reading, pairs, s["codes"], None).taps)
        teach_found(memory, detector, image, reading, pairs, s["codes"], list(range(len(s["codes"]))))
    return {"photos": len(samples), **{f"taps {k}": mean_taps(v)
                                       for k, v in taps.items()}, "examples kept": len(memory)}


def merge(tallies: list[dict[str, Tally]]) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for t in tallies:
        for key, tally in t.items():
            out.setdefault(key, Tally()).add(tally)
    return out


def run(evenings: int, hands: int, seed: int, size: int, real: list[Path], limit: int | None = None,
        designs=DESIGNS, detector: TileDetector | None = None, show_detail: bool = False,
        taught: bool = False, photographer: str = "owner", sideways: bool = False,
        reader: ReaderSettings = READER_DEFAULT) -> dict:
    detector = detector or TileDetector()
    effects = photo_effects()
    by_design = {}
    for d, (style, anchor) in enumerate(designs):
        nights = [evening(detector, style, anchor, hands, seed + 1000 * d + e, size, effects, show_detail, taught,
                          photographer, sideways, reader)
                  for e in range(evenings)]
        by_design[design_name(style, anchor)] = merge(nights)
    result = {"evenings": evenings, "hands": hands, "seed": seed, "size": size, "taught": taught,
              "photographer": photographer, "sideways": sideways, "runtime": detector.runtime.to_json(),
              "reader_settings": reader.to_json(),
              "detector_settings": detector.settings.to_json(),
              "all": {k: t.result() for k, t in merge(list(by_design.values())).items()},
              "by_design": {name: {k: t.result() for k, t in tallies.items()} for name, tallies in by_design.items()}}
    if real:
        result["real"] = {root.name: real_evening(detector, root, limit, reader) for root in real}
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.evening", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evenings", type=int, default=3, help="evenings per design")
    parser.add_argument("--hands", type=int, default=8, help="hands per evening")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=512, help="the photos' long side")
    parser.add_argument("--real", type=Path, nargs="*", default=[], help="real sets to read as evenings (test split)")
    parser.add_argument("--limit", type=int, help="the first N photos of each real set")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--detail", action="store_true", help="a line per hand read with the memory (stderr)")
    parser.add_argument("--taught", action="store_true",
                        help="teach each evening's memory a photo of its eight flowers before hand 1")
    parser.add_argument("--photographer", choices=PHOTOGRAPHERS, default="owner",
                        help="who photographs every hand: its owner, or the player across the table (the hand's "
                             "faces upside down)")
    parser.add_argument("--sideways", action="store_true",
                        help="every photo taken with the phone held sideways and saved without the turn")
    add_settings_arguments(parser)
    args = parser.parse_args(argv)
    reader, detector_settings = settings_from_arguments(args)
    if args.evenings < 1 or args.hands < 1:
        parser.error("--evenings and --hands must be at least 1")
    for root in args.real:
        if not (root / "images" / "test").is_dir() or not is_real(root):
            parser.error(f"{root} is not a real set with a test split (images/test)")
    text = json.dumps(run(args.evenings, args.hands, args.seed, args.size, args.real, args.limit,
                          detector=TileDetector(settings=detector_settings), show_detail=args.detail,
                          taught=args.taught, photographer=args.photographer, sideways=args.sideways,
                          reader=reader), indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
