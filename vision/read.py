"""A photo into a proposal of a hand: detections → the whole photo's layout → which parts are the hand
(`vision.hand_finding`) → one search for the likeliest legal hand (`vision.search`: membership, codes,
groupings, a missed tile) → `PhotoReading`: the best `Proposal` and up to 3 runner-ups.

A proposal is what the photo shows, not a scored hand: its rows (each detection with a stable id, and
a tile the hand supposes the photo does not show as a row flagged `supposed`), its groups (stored once,
over row ids: each group's kind, its role in or out of the hand, the winning tile named), and its
`draft` (`scoring.draft.Draft`, slots carrying row ids). It does not depend on how the hand was won:
whoever scores it (the page, `vision read`) turns the draft into a hand under its own situation with
`scoring.draft.to_hand`, the one place a hand is built; a reading depends only on the photo and the
table's rules, so it can be kept per (photo, ruleset).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import cv2
import numpy as np

from scoring.draft import Draft, MeldDraft, Slot
from scoring.melds import GroupKind, GroupRole, MeldKind, meld_kind
from scoring.ruleset import Ruleset, load_ruleset
from vision.boxes import mapped, row_angle, row_direction
from vision.classes import BACK
from vision.correction import as_distinct_flowers, count_problem
from vision.detections import Detections, Detector
from vision.groups import TileGroup
from vision.hand_finding import Part, find_parts, flower_tiles, unsure_boxes
from vision.layout import group_rows
from vision.notices import Notice
from vision.photo import Photo, level_transform, turned_level
from vision.search import (
    Candidate,
    HandLayout,
    Layouts,
    a_set_laid_out,
    likely_hand,
    merged_into_row,
    photo_group,
    search,
)
from vision.settings import READER_DEFAULT, ReaderSettings
from vision.stages import LAYOUT, stage, timing

if TYPE_CHECKING:  # the memory is the detector's to use (`vision.detector.TileDetector.read`): not imported to read
    from vision.memory import TableMemory


# What the layout says of its own groups' tile counts and sets: a legal hand the search found grouped them otherwise
# (a meld cut off the row, strays joined to it), so these are no word on it.
_LAYOUT_COUNTS = frozenset({"shown-not-set", "concealed-count-off", "no-concealed-group", "stray-group"})


@dataclass(frozen=True)
class Row:
    """One tile of a reading: a detection of the photo, or a tile the hand supposes the photo does not show."""

    id: int  # stable: the detection's index in the detector's output (a supposed tile: past them all)
    code: str  # as this reading reads it
    raw_code: str  # the detector's top class (a supposed tile: its code)
    conf: float  # the detector's top score (0 for a supposed tile)
    certainty: float  # how sure of its face (`Detections.certainty`; 0 for a supposed tile)
    box: tuple[float, float, float, float] | None  # x1 y1 x2 y2 in the photo's pixels; None when supposed
    why: str = ""  # why its code differs from the detector's top class, or why it was set apart
    supposed: bool = False

    def to_json(self, group: int) -> dict:
        out = {"id": self.id, "code": self.code, "raw_code": self.raw_code, "conf": round(self.conf, 3),
               "box": None if self.box is None else [round(v, 1) for v in self.box], "group": group}
        return out | ({"why": self.why} if self.why else {}) | ({"supposed": True} if self.supposed else {})


@dataclass(frozen=True)
class Proposal:
    """One way to read the photo: its rows with their codes, its groups over row ids, how likely it
    is beside the best reading, what it changes from it."""

    rows: tuple[Row, ...]  # the photo's detections in reading order, then a supposed tile if any
    groups: tuple[TileGroup, ...]  # the hand's groups (the concealed one names the winning tile), then those set apart
    probability: float = 1.0  # relative to the best reading's (1 for the best)
    differs: tuple[Notice, ...] = ()  # what it changes from the best reading (none for the best)

    @cached_property
    def _index(self) -> dict[int, int]:
        return {row.id: k for k, row in enumerate(self.rows)}

    @cached_property
    def _group_of(self) -> dict[int, int]:
        return {i: k for k, g in enumerate(self.groups) for i in g.members}

    def row(self, id: int) -> Row:
        return self.rows[self._index[id]]

    def group_of(self, id: int) -> int:
        """The index of the group holding row `id`, -1 for none (a box the layout found doubled)."""
        return self._group_of.get(id, -1)

    @property
    def shown(self) -> tuple[Row, ...]:
        """The rows with a box in the photo, in reading order."""
        return tuple(row for row in self.rows if not row.supposed)

    @property
    def supposed(self) -> tuple[Row, ...]:
        return tuple(row for row in self.rows if row.supposed)

    @property
    def boxes(self) -> np.ndarray:
        """(shown rows, 4) xyxy."""
        return np.array([row.box for row in self.shown], np.float32).reshape(-1, 4)

    @property
    def apart(self) -> tuple[int, ...]:
        """The ids of the tiles set apart from the hand (walls, discards, strays), in reading order."""
        held = {i for g in self.groups if g.role == GroupRole.APART for i in g.members}
        return tuple(row.id for row in self.rows if row.id in held)

    @property
    def changed(self) -> tuple[int, ...]:
        """The ids of the detections whose code the search changed from the detector's top class."""
        return tuple(row.id for row in self.shown if row.code != row.raw_code)

    @cached_property
    def draft(self) -> Draft:
        """The hand as this reading proposes it, each slot holding its row's id: the concealed group's
        winning tile as the winning tile; a concealed kong's face-down tiles the face shown, or unknown
        when all four are face down; a group that makes no set keeps its tiles with the kind left to the
        player; any other face-down tile is unknown. Tiles set apart stay out."""
        concealed: tuple[Slot, ...] = ()
        win: Slot | None = None
        melds: list[MeldDraft] = []
        flowers: list[Slot] = []
        for g in self.groups:
            if g.role != GroupRole.HAND:
                continue
            slots = tuple(Slot(None if self.row(i).code == BACK else self.row(i).code, i) for i in g.members)
            if g.kind == GroupKind.CONCEALED:
                concealed = tuple(s for s in slots if s.det != g.win)
                win = next((s for s in slots if s.det == g.win), None)
            elif g.kind == GroupKind.FLOWERS:
                flowers.extend(slots)
            elif g.kind == GroupKind.ANKONG:
                face = next((s.code for s in slots if s.code is not None), None)
                melds.append(MeldDraft(MeldKind.ANKONG, tuple(replace(s, code=face) for s in slots)))
            else:
                melds.append(MeldDraft(meld_kind(g.kind), slots))
        return Draft(concealed, win, tuple(melds), tuple(flowers))

    def to_json(self) -> dict:
        """Each row (`Row.to_json`: its group's index, `supposed` when it is) and each group: its kind,
        role, tiles (codes) and row ids, and for the concealed group the winning tile's id and whether
        the photo showed it set apart."""
        return {
            "detections": [row.to_json(self.group_of(row.id)) for row in self.rows],
            "groups": [{"kind": g.kind, "role": g.role, "tiles": [self.row(i).code for i in g.members],
                        "ids": list(g.members),
                        **({"win": g.win, "win_apart": g.win_apart} if g.kind == GroupKind.CONCEALED else {})}
                       for g in self.groups],
        }


@dataclass(frozen=True)
class PhotoView:
    """How `read_photo` saw the photo: decoded at 1/`reduction` of its size (`vision.photo.Photo.pixels`), turned by
    `angle` degrees (counter-clockwise as shown) to lay its rows level, then half a turn or not. A reading's boxes
    are in the photo's own pixels; its tiles' faces were read as this view shows them, and a table's memory is
    taught them so (`seen`)."""

    angle: float = 0.0
    half_turn: bool = False
    reduction: int = 1

    def to_seen(self, width: int, height: int) -> np.ndarray:
        """The 2x3 transform from the pixels of a photo of this size to those of the photo as the reader saw it."""
        to_seen = np.eye(3)
        if self.angle:
            to_level, (width, height) = level_transform(width, height, self.angle)
            to_seen = np.vstack([to_level, [0.0, 0.0, 1.0]])
        if self.half_turn:
            to_seen = np.array([[-1.0, 0.0, width], [0.0, -1.0, height], [0.0, 0.0, 1.0]]) @ to_seen
        return to_seen[:2]

    def to_photo(self, width: int, height: int) -> np.ndarray:
        """The 2x3 transform back from the pixels of the photo as the reader saw it to those of a photo of this size."""
        return cv2.invertAffineTransform(self.to_seen(width, height))

    def photo(self, image: np.ndarray) -> np.ndarray:
        """The photo as the reader saw it."""
        if self.angle:
            image = turned_level(image, self.angle)
        return cv2.rotate(image, cv2.ROTATE_180) if self.half_turn else image

    def seen(self, photo: np.ndarray | Photo, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The photo (BGR, or as `vision.photo.open_photo` opened it) as the reader saw it, and these xyxy boxes (in
        the photo's pixels) in its pixels."""
        photo = photo if isinstance(photo, Photo) else Photo.of(photo)
        image = photo.pixels(self.reduction)
        to_decoded = np.diag([image.shape[1] / photo.width, image.shape[0] / photo.height, 1.0])
        to_seen = self.to_seen(image.shape[1], image.shape[0]) @ to_decoded
        moved_boxes = np.array([mapped(tuple(box), to_seen) for box in np.asarray(boxes, np.float64)])
        return self.photo(image), moved_boxes.astype(np.float32).reshape(-1, 4)


@dataclass(frozen=True)
class PhotoReading:
    best: Proposal
    legal: bool  # whether the best proposal is a legal winning hand at the table it was read for
    confidence: float
    warnings: tuple[Notice, ...]  # what the player should know of this reading (vision/notices.py)
    runner_ups: tuple[Proposal, ...] = ()  # up to 3 other legal hands, likeliest first
    view: PhotoView = PhotoView()  # how the photo was turned to be read (`read_photo`)
    # What each stage of `read_photo` took, in ms, over every pass and turn (vision/stages.py: the stages
    # do not overlap and add up to the read); {} for a reading not made by `read_photo`. Not part of what
    # was read: readings compare equal and `to_json` leaves it out.
    stage_ms: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    @property
    def proposals(self) -> tuple[Proposal, ...]:
        """The best reading, then the runner-ups: index 0 is the best."""
        return (self.best, *self.runner_ups)

    def warning(self, code: str) -> Notice | None:
        """The reading's warning of this code (vision/notices.py), None where it gives none."""
        return next((w for w in self.warnings if w.code == code), None)

    def to_json(self) -> dict:
        """The reader's part of the `vision read --json` contract (docs/command-line.md): the best
        proposal's rows and groups, whether it is a legal hand, the confidence, the warnings (each
        `{"code", "text"}`, the English words of vision/notices.py; `params` too when it has any, tiles
        as codes), and each runner-up's rows, groups, probability and what differs."""
        return {
            **self.best.to_json(), "legal": self.legal, "confidence": round(self.confidence, 3),
            "warnings": [w.to_json() for w in self.warnings],
            "alternatives": [{**p.to_json(), "probability": round(p.probability, 4),
                              "differs": [d.to_json() for d in p.differs]} for p in self.runner_ups],
        }


def read_detections(dets: Detections, rules: Ruleset | None = None,
                    settings: ReaderSettings = READER_DEFAULT) -> PhotoReading:
    """Everything after the detector: pure geometry and rules, testable without a model. The hand is
    found among everything the photo shows (`vision.hand_finding`) and read as the most probable
    legal winning hand under `rules` (default: the default table) by one search (`vision.search`).
    Each tile's id, its index in `dets`, is given here once: the layout, the parts, the search's groups
    and the proposals' rows and groups all hold it, and `dets` stays in the detector's order."""
    with stage(LAYOUT):  # the search within is a stage of its own
        rules = rules or load_ruleset()
        dets = dets.with_facts(id=range(len(dets)))
        tiles = _Tiles.of(dets)
        layout = group_rows(dets, settings)
        order = layout.order
        if not order:
            return PhotoReading(Proposal((), ()), False, 0.0, (Notice.of("no-tiles"),))
        parts = find_parts(dets, layout, settings)
        layouts = Layouts(dets, order, flower_tiles(parts), settings)
        found = search(dets, parts, rules, layouts, settings)
        unsure = unsure_boxes(dets, layout, settings) if not found else frozenset()
        if unsure:  # perhaps boxes on the table's cloth, in the rows or between them
            apart = find_parts(dets, layout, settings, unsure)
            flowers = flower_tiles(apart)
            if not a_set_laid_out(apart):
                again = Layouts(dets, order, flowers, settings)
                found = search(dets, apart, rules, again, settings)
                if found:
                    parts, layouts = apart, again
        if not found:
            return _no_legal_hand(dets, tiles, order, parts, layouts, settings)
        best = found[0]
        # the layout's word on the codes as read; a legal hand's melds are sets, whatever the layout saw of them
        laid_out = cast(HandLayout, layouts.of(best.members, best.backs_apart))  # the best candidate's, so made
        proposal = tiles.proposal(order, best, parts)
        runner_ups = tuple(replace(tiles.proposal(order, c, parts), probability=math.exp(best.cost - c.cost),
                                   differs=_differs(c, best, tiles.raw, order)) for c in found[1:])
        warnings = [w for w in laid_out.warnings if w.code not in _LAYOUT_COUNTS]
        for k, row in enumerate(proposal.shown):
            if row.code != row.raw_code:
                warnings.append(Notice.of("tile-corrected", number=k + 1, before=row.raw_code, after=row.code))
        set_apart = len(proposal.apart)
        if set_apart:
            warnings.append(Notice.of("tiles-set-apart", count=set_apart))
        if best.added:
            warnings.append(Notice.of("tile-supposed", tile=best.added[0]))
        warnings += [Notice.of("kong-supposed", tile=face) for face in best.kongs]
        confidence = 1.0 if len(found) == 1 else 1.0 / (1.0 + math.exp(best.cost - found[1].cost))
        return PhotoReading(proposal, True, confidence, tuple(warnings), runner_ups)


@dataclass(frozen=True)
class _Tiles:
    """What the rows of one photo's proposals show of its tiles, read off its detections once, each by the tile's id
    (its index in the detections)."""

    raw: list[str]  # the detector's top class
    conf: list[float]
    certainty: list[float]
    boxes: list[tuple[float, float, float, float]]

    @classmethod
    def of(cls, dets: Detections) -> _Tiles:
        return cls(dets.raw_codes, dets.confidences.tolist(), dets.certainty.tolist(),
                   [tuple(box) for box in dets.boxes.tolist()])

    @property
    def supposed_id(self) -> int:
        """The id a supposed tile takes: past every detection's."""
        return len(self.raw)

    def shown(self, order: Iterable[int], codes: list[str], why: list[str]) -> tuple[Row, ...]:
        """A row per tile of `order` (ids), read as `codes`, each with why its code or place is as it is (both by
        id)."""
        return tuple(Row(i, codes[i], self.raw[i], self.conf[i], self.certainty[i], self.boxes[i], why[i])
                     for i in order)

    def proposal(self, order: tuple[int, ...], c: Candidate, parts: list[Part]) -> Proposal:
        """Candidate `c` as a proposal, its rows in reading order (`order`), a tile set apart saying why (the
        photo's `parts` it was read from)."""
        raw = self.raw
        why = [""] * len(raw)
        for g in c.groups:
            if g.role == GroupRole.APART:
                part = next((p for p in parts if set(p.members) & set(g.members)), None)
                for i in g.members:
                    why[i] = part.why if part else "doubled"
        codes = [c.codes.get(i, raw[i]) for i in range(len(raw))]
        why = ["legal hand" if code != raw[i] else w for i, (code, w) in enumerate(zip(codes, why, strict=True))]
        supposed = tuple(Row(self.supposed_id, code, code, 0.0, 0.0, None, supposed=True) for code in c.added)
        return Proposal(self.shown(order, codes, why) + supposed, c.groups)


def shown_rows(dets: Detections, codes: list[str], why: list[str]) -> tuple[Row, ...]:
    """A row per detection, in `dets`' order, its id its index there."""
    return _Tiles.of(dets).shown(range(len(dets)), codes, why)


def _no_legal_hand(dets: Detections, tiles: _Tiles, order: tuple[int, ...], parts: list[Part], layouts: Layouts,
                   settings: ReaderSettings) -> PhotoReading:
    """The likeliest hand tiles as read, for the player to fix, with why no legal hand was found."""
    raw = tiles.raw
    ms = likely_hand(parts, order, settings)
    hl = layouts.of(ms.members) if ms.members else None
    laid, laid_warnings, problem = [], [], Notice.of("no-hand-like-tiles")
    if hl:
        # what makes no set is shown in the concealed row, where the player fixes codes: a group of its own would
        # be put back as well
        merged = merged_into_row(hl.groups, hl.runs)
        laid = merged or hl.groups
        laid_warnings = [w for w in hl.warnings if not (merged and w.code == "stray-group")]
        problem = count_problem(laid) or Notice.of("no-close-codes")
    hand, apart = [photo_group(g) for g in laid], ms.apart
    groups = tuple(hand) + tuple(TileGroup(GroupKind.UNKNOWN, part.members, GroupRole.APART) for part in apart)
    # the flowers shown each once even so (a flower read twice is a misread)
    flowers = {i: c for g in hand if g.kind == GroupKind.FLOWERS
               for i, c in as_distinct_flowers(dets, g.members).items()}
    why = [""] * len(raw)
    for part in apart:
        for i in part.members:
            why[i] = part.why
    warnings = laid_warnings + [Notice.of("no-legal-hand", reason=problem)]
    codes = [flowers.get(i, c) for i, c in enumerate(raw)]
    why = [("each flower once" if i in flowers and codes[i] != raw[i] else w) for i, w in enumerate(why)]
    return PhotoReading(Proposal(tiles.shown(order, codes, why), groups), False, 0.0, tuple(warnings))


def _differs(c: Candidate, best: Candidate, raw: list[str], order: tuple[int, ...]) -> tuple[Notice, ...]:
    """What a runner-up changes from the best reading (the tiles shown numbered in reading order, `order`, from 1)."""
    def code(cand: Candidate, i: int) -> str:
        return cand.codes.get(i, raw[i])

    number = {i: k + 1 for k, i in enumerate(order)}  # a supposed tile is none of these: told by alt-supposes

    def in_order(ids: set[int]) -> list[int]:
        return sorted(ids, key=number.__getitem__)

    kept = {i for g in c.groups if g.role == GroupRole.HAND for i in g.members if i in number}
    best_kept = {i for g in best.groups if g.role == GroupRole.HAND for i in g.members if i in number}
    differs = [Notice.of("alt-tile", number=number[i], before=code(best, i), after=code(c, i))
               for i in in_order(kept & best_kept) if code(c, i) != code(best, i)]
    if kept - best_kept:
        differs.append(Notice.of("alt-in-hand", tiles=tuple(code(c, i) for i in in_order(kept - best_kept))))
    if best_kept - kept:
        differs.append(Notice.of("alt-set-apart", tiles=tuple(code(best, i) for i in in_order(best_kept - kept))))
    if c.added != best.added:
        differs.append(Notice.of("alt-supposes", tile=c.added[0]) if c.added else Notice.of("alt-no-supposed"))
    win, best_win = cast(Slot, c.draft.win), cast(Slot, best.draft.win)  # legal hands' drafts name their winning tiles
    if win.code != best_win.code:
        differs.append(Notice.of("alt-wins-on", tile=win.code))
    if sorted(map(str, (m.kind for m in c.draft.melds))) != sorted(map(str, (m.kind for m in best.draft.melds))):
        differs.append(Notice.of("alt-melds", count=len(c.draft.melds)) if c.draft.melds else Notice.of("alt-no-melds"))
    return tuple(differs)


def read_photo(image: np.ndarray | Photo, detector: Detector, rules: Ruleset | None = None,
               memory: TableMemory | None = None, settings: ReaderSettings = READER_DEFAULT) -> PhotoReading:
    """Read a BGR photo, or one opened by `vision.photo.open_photo` (decoded only as finely as the detector's
    `look` finds it needs), with a detector (`vision.detector.TileDetector`), with a table's `memory` of its own
    tiles when given (`vision.memory.TableMemory`, used by the crop classifier, weighed as the memory's own
    `settings` say): turned level first where its rows lie askew (`read_level`); a photo of a hand read as it is
    is read turned half a turn too, and the turned reading kept where it is a legal hand as often and holds its
    tiles more surely (`_standing`) by `settings.turned_by` in the sum of its boxes' scores, with at most
    `settings.turned_more_tiles` tiles more (a hand's where it alone is a legal hand, `_as_found`), and reads its
    faces no less surely (`_sureness`) but for `settings.turned_less_sure` (`_reads_better_turned`). Boxes are
    mapped back to the photo's own pixels, ids kept. The player across the table photographs the hand upside down;
    the suits read surely either way up, the flowers and characters of an unseen set do not, so how sure the tiles'
    faces read did not tell which way up the photo lies, but a turned reading much less sure of them is a misread
    (docs/decisions/which-way-up.md). A photo of more tiles than a hand shows, or of none, is not read turned. A hand
    of tiles smaller than `settings.small_tile` pixels is read with a notice to check them and take the next photo
    closer (`_small_tiles`). The reading carries what each stage took (`PhotoReading.stage_ms`)."""
    with timing() as clock:
        reading = _read_photo(image, detector, rules, memory, settings)
    return replace(reading, stage_ms=clock.ms)


def _read_photo(source: np.ndarray | Photo, detector: Detector, rules: Ruleset | None, memory: TableMemory | None,
                settings: ReaderSettings) -> PhotoReading:
    """`read_photo`'s work, inside the clock it opens."""
    photo = source if isinstance(source, Photo) else Photo.of(source)
    look = getattr(detector, "look", None)  # a plain `Detector` reads the whole photo
    reduction, first = look(photo) if look and photo.reducible else (1, None)
    image = photo.pixels(reduction)
    view, reading = read_level(image, detector, rules, memory, settings, first)
    if view == PhotoView() and _of_a_hand(reading):
        turned = read_detections(_detect(detector, cv2.rotate(image, cv2.ROTATE_180), memory), rules, settings)
        if _reads_better_turned(reading, turned, settings):
            reading, view = turned, PhotoView(half_turn=True)
    scale = photo.width / image.shape[1], photo.height / image.shape[0]  # from the pixels read to the photo's
    small = _small_tiles(reading.best, settings, scale[0])
    if small is not None:
        reading = replace(reading, warnings=(small, *reading.warnings))
    if view == PhotoView() and scale == (1.0, 1.0):
        return reading
    if view.half_turn:
        reading = replace(reading, warnings=(UPSIDE_DOWN, *reading.warnings))
    to_photo = np.diag([*scale, 1.0]) @ np.vstack([view.to_photo(image.shape[1], image.shape[0]), [0.0, 0.0, 1.0]])
    return replace(moved(reading, to_photo[:2]), view=replace(view, reduction=reduction))


def read_level(image: np.ndarray, detector: Detector, rules: Ruleset | None, memory: TableMemory | None,
               settings: ReaderSettings, first=None) -> tuple[PhotoView, PhotoReading]:
    """How the photo was turned to read it (`PhotoView()`: not at all) and its reading there, boxes in that view's
    pixels. A photo whose rows lie askew, or plumb where it reads no legal hand as it is or shows a hand's tiles or
    fewer (the detector reads tiles lying on their sides less surely), is read again each way that lays them level
    (`level_views`), likeliest first, until one reads a legal hand surely
    (`settings.sure_upright`) with its rows level, and that turn has been read both ways up; the reading kept is
    the best by `_standing`, the photo as it is among them: the detector misses many tiles of a row at 30-45
    degrees, and the layout finds no row in the rest, and the boxes tell the rows' direction only roughly, which
    way up only the faces do, and the suits read surely either way up, the flowers not
    (docs/decisions/askew-rows.md). A turn that shows more than a hand's tiles more than the photo as it is has read
    the table's pattern, and is not kept. Where the photo as it is shows some tiles but too few to tell how their rows
    lie, they are told from the photo turned `settings.probe_turn` degrees each way (`_probed`); a photo where none is
    found is not (a photo of no tiles would take three times as long; docs/decisions/rows-found-turned.md). `first`: the
detector's first pass on the photo as it is, where its `look` made it."""
    best = PhotoView(), read_detections(_detect(detector, image, memory, first), rules, settings)
    shown = len(best[1].best.shown)
    boxes = _probed(detector, image, settings) if 0 < shown < settings.min_for_askew else best[1].best.boxes
    for view in level_views(boxes, settings, plumb=not best[1].legal or _of_a_hand(best[1])):
        reading = read_detections(_detect(detector, view.photo(image), memory), rules, settings)
        if len(reading.best.shown) > shown + MAX_HAND_TILES:
            continue  # turning a photo shows no more tiles: the table's pattern, read as tiles in this view
        if _standing(reading) > _standing(best[1]):
            best = view, reading
        direction = _direction(best[1], settings)
        if view.half_turn and best[0] != PhotoView() and best[1].legal and _sureness(best[1]) >= settings.sure_upright \
                and direction is not None and abs(direction) < settings.askew_from:
            break
    return best


def _probed(detector: Detector, image: np.ndarray, settings: ReaderSettings) -> np.ndarray:
    """The boxes the detector finds in the photo turned by `settings.probe_turn` degrees one way or the other,
    whichever finds more, in the photo's pixels: a row at 30-45 degrees is mostly missed as it is."""
    found = []
    for angle in (settings.probe_turn, -settings.probe_turn):
        view = PhotoView(angle)
        back = view.to_photo(image.shape[1], image.shape[0])
        found.append(np.array([mapped(tuple(box), back) for box in detector.read(view.photo(image)).boxes],
                              np.float32).reshape(-1, 4))
    return max(found, key=len)


def level_views(boxes: np.ndarray, settings: ReaderSettings = READER_DEFAULT,
                plumb: bool = True) -> tuple[PhotoView, ...]:
    """The ways to turn a photo that lay level the rows of tiles in these boxes, likeliest first: none where they
    lie level already, within `settings.askew_from` degrees. The rows' angle modulo 90 degrees (`row_angle`) is
    turned to the nearest direction the rows run modulo 180 (`row_direction`, where it is sure): a row plumb or
    at 60 degrees lies a quarter turn from one at 0 or -30. Each turn is followed by it half a turn further (the
    tiles may face away), then the turn a quarter round from it and its half turn, unless that is the photo as
    it is (whose half turn `read_photo` weighs). `plumb` False: rows that lie plumb, not askew, are left as they
    are."""
    angle = row_angle(boxes, settings.min_for_askew, settings.askew_coherence)
    direction = row_direction(boxes, settings.min_for_askew, settings.askew_coherence)
    if direction is not None and (plumb or abs(angle) >= settings.askew_from):
        angle = (angle + 90 * round((direction - angle) / 90) + 90) % 180 - 90
    if abs(angle) < settings.askew_from:
        return ()
    other = angle - 90 * np.sign(angle)
    turns = (angle, other) if abs(other) >= settings.askew_from else (angle,)
    return tuple(PhotoView(float(turn), half_turn) for turn in turns for half_turn in (False, True))


def askew_angle(boxes: np.ndarray, settings: ReaderSettings = READER_DEFAULT) -> float:
    """The angle the photo is turned by to lay level the rows of these boxes, the likeliest of `level_views`
    (read in it, `vision.photo.turned_level`); 0.0 where they lie level. Whether the level photo reads better is
    the caller's to judge."""
    views = level_views(boxes, settings)
    return views[0].angle if views else 0.0


def moved(reading: PhotoReading, affine: np.ndarray) -> PhotoReading:
    """The reading of a turned photo, its proposals' boxes mapped by `affine` (2x3: the turned photo's pixels to
    the photo's; `vision.boxes.mapped`), ids kept."""
    def back(proposal: Proposal) -> Proposal:
        return replace(proposal, rows=tuple(row if row.box is None else replace(row, box=mapped(row.box, affine))
                                            for row in proposal.rows))

    return replace(reading, best=back(reading.best), runner_ups=tuple(back(p) for p in reading.runner_ups))


# A winning hand shows at most 16 + 1 tiles, 4 more for kongs and 8 flowers.
MAX_HAND_TILES = 30
UPSIDE_DOWN = Notice.of("upside-down")


def _detect(detector: Detector, image: np.ndarray, memory: TableMemory | None, first=None) -> Detections:
    """The detector's tiles, read with the table's memory when there is one, from the first pass its `look` made
    when given (a plain `Detector` takes neither; `vision.detector.TileDetector` does)."""
    remembers: Any = detector
    given = ({"memory": memory} if memory is not None else {}) | ({"first": first} if first is not None else {})
    return remembers.read(image, **given)


def _small_tiles(proposal: Proposal, settings: ReaderSettings, scale: float = 1.0) -> Notice | None:
    """The notice that the hand's tiles (every tile shown, where none is the hand's) are under `settings.small_tile`
    pixels of the photo (the boxes' times `scale`) on their short side at the median; None where they are not, or
    none is shown."""
    hand = {i for g in proposal.groups if g.role == GroupRole.HAND for i in g.members}
    boxes = np.array([row.box for row in proposal.shown if row.id in hand or not hand], np.float32).reshape(-1, 4)
    if not len(boxes):
        return None
    side = scale * float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    return Notice.of("tiles-small", size=round(side)) if side < settings.small_tile else None


def _standing(reading: PhotoReading) -> tuple[bool, float]:
    """What makes one reading of a photo better than another read another way: a legal hand, then how surely it
    holds its tiles (the sum of their boxes' scores: a faint box on nothing whose face looks sure counts for
    little), those set apart from a legal hand left out (a cloth's pattern seen turned was read as 75 tiles
    beside the hand)."""
    best = reading.best
    apart = set(best.apart) if reading.legal else set()
    return reading.legal, float(sum(row.conf for row in best.shown if row.id not in apart))


def _reads_better_turned(reading: PhotoReading, turned: PhotoReading, settings: ReaderSettings) -> bool:
    """Whether the photo's reading turned half a turn is kept over its reading as it is (`read_photo`): a legal hand
    as often, no less sure of its faces but for `settings.turned_less_sure`, its boxes' scores summing
    `settings.turned_by` more, with at most `settings.turned_more_tiles` tiles more (a hand's at most where it alone
    is a legal hand that keeps its sure boxes' codes, `_as_found`). Seen upside down, a hand far across the table
    may lose 5 to 7 of its tiles to the detector: as it is the photo then reads no legal hand, and turned the
    reading finds them (docs/decisions/across-the-table.md)."""
    (legal, held), (turned_legal, turned_held) = _standing(reading), _standing(turned)
    alone = turned_legal and not legal and _as_found(turned, settings)
    most = MAX_HAND_TILES if alone else len(reading.best.shown) + settings.turned_more_tiles
    return turned_legal >= legal and turned_held > held + settings.turned_by and len(turned.best.shown) <= most \
        and _sureness(turned) >= _sureness(reading) - settings.turned_less_sure


def _direction(reading: PhotoReading, settings: ReaderSettings) -> float | None:
    """Which way the rows of the reading's boxes run (`row_direction`), where it is sure."""
    return row_direction(reading.best.boxes, settings.min_for_askew, settings.askew_coherence)


def _as_found(reading: PhotoReading, settings: ReaderSettings) -> bool:
    """The legal reading keeps the code of every box of its hand the detector is sure of (`settings.unsure_box`).
    Turned, a real row of 15 with discards above it read a legal hand only by changing a sure discard's code; a
    hand found turned changed faint boxes at most."""
    apart = set(reading.best.apart)
    return all(row.code == row.raw_code for row in reading.best.shown
               if row.id not in apart and row.conf >= settings.unsure_box)


def _of_a_hand(reading: PhotoReading) -> bool:
    """The reading shows some tiles and no more than a hand shows: a photo of a hand, not of a set or a table."""
    return 0 < len(reading.best.shown) <= MAX_HAND_TILES


def _sureness(reading: PhotoReading) -> float:
    shown = reading.best.shown
    return float(np.mean([row.certainty for row in shown])) if shown else 0.0
