"""A photo into a hand: detections → the whole photo's layout → which parts are the hand
(`vision.hand_finding`) → one search for the likeliest legal hand (`vision.search`: membership, codes,
groupings, a missed tile) → `Reading`: the hand, the tiles set apart, and up to 3 runner-up hands."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from scoring.hand import Hand, HandError, Situation
from scoring.ruleset import Ruleset, load_ruleset
from scoring.score import score
from vision.correction import as_distinct_flowers, count_problem
from vision.detections import Detections, Detector
from vision.groups import Group
from vision.hand_finding import find_parts, flower_tiles
from vision.layout import group_rows, in_reading_order
from vision.notices import Notice
from vision.search import Candidate, lay_out, likely_hand, search


@dataclass(frozen=True)
class Alternative:
    """A runner-up legal hand the photo may show: one tap for the player to take it instead."""

    codes: tuple[str, ...]  # per detection of the reading, as this alternative reads them
    groups: tuple[Group, ...]  # members index the reading's detections; kind "loose" for tiles set apart
    hand: Hand
    tai: int  # its 台 total under the situation and ruleset the photo was read with
    differs: tuple[Notice, ...]  # what it changes from the best reading
    added: tuple[str, ...] = ()  # a tile the photo does not show that this hand supposes (a missed one)


@dataclass(frozen=True)
class Reading:
    # Every kept tile in reading order, each with its facts (`code`, `group`, `why`: vision/detections.py).
    detections: Detections
    groups: tuple[Group, ...]  # members index `detections`; kind "loose" for tiles set apart from the hand
    hand: Hand | None
    confidence: float
    warnings: tuple[Notice, ...]  # what the player should know of this reading (vision/notices.py)
    alternatives: tuple[Alternative, ...] = ()  # up to 3 runner-up hands, best first
    added: tuple[str, ...] = ()  # tiles the hand supposes that the photo does not show (a missed tile)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self.detections.codes)

    @property
    def raw_codes(self) -> tuple[str, ...]:
        return tuple(self.detections.raw_codes)

    @property
    def changed(self) -> tuple[int, ...]:
        """Detections whose code the search changed from the detector's top class."""
        return tuple(i for i, (a, b) in enumerate(zip(self.codes, self.raw_codes, strict=True)) if a != b)

    def group_of(self) -> list[int]:
        """The group index of each detection."""
        return self.detections.groups

    def to_json(self) -> dict:
        """The `vision read --json` contract (one object per photo): each detection's code, raw code,
        confidence, box, group (and `why` when set); the groups' kinds and tiles; the hand (scoring's
        JSON) or null; the tiles `added`; the confidence; the warnings, each `{"code", "text"}` (the
        English words of vision/notices.py; `params` too when it has any, tiles as codes); the
        runner-up hands."""
        d = self.detections
        conf, group, why = d.confidences, d.groups, d.whys
        return {
            "detections": [
                {"code": self.codes[i], "raw_code": self.raw_codes[i], "conf": round(float(conf[i]), 3),
                 "box": [round(float(v), 1) for v in d.boxes[i]], "group": group[i],
                 **({"why": why[i]} if why[i] else {})}
                for i in range(len(d))
            ],
            "groups": [{"kind": g.kind, "tiles": [self.codes[i] for i in g.members],
                        **({"win_apart": g.win_apart} if g.kind == "concealed" else {})}
                       for g in self.groups],
            "hand": self.hand.to_json() if self.hand else None,
            "added": list(self.added),
            "confidence": round(self.confidence, 3),
            "warnings": [w.to_json() for w in self.warnings],
            "alternatives": [{"hand": a.hand.to_json(), "tai": a.tai, "differs": [d.to_json() for d in a.differs],
                              "added": list(a.added)} for a in self.alternatives],
        }


def with_groups(dets: Detections, groups, codes) -> Detections:
    """`dets` with each tile's final code and group index set."""
    group = [-1] * len(dets)
    for gi, g in enumerate(groups):
        for i in g.members:
            group[i] = gi
    return dets.with_facts(code=list(codes), group=group)


def read_detections(dets: Detections, situation: Situation | None = None, rules: Ruleset | None = None) -> Reading:
    """Everything after the detector: pure geometry and rules, testable without a model. The hand is
    found among everything the photo shows (`vision.hand_finding`) and read as the most probable
    legal winning hand under `rules` (default: the default table) by one search (`vision.search`)."""
    situation, rules = situation or Situation(), rules or load_ruleset()
    dets, layout = in_reading_order(dets, group_rows(dets))
    if not len(dets):
        return Reading(dets.with_facts(code=[], group=[], why=[]), (), None, 0.0, (Notice.of("no-tiles"),))
    raw = dets.raw_codes
    parts = find_parts(dets, layout)
    found = search(dets, parts, situation, rules)
    why = [""] * len(dets)
    if not found:  # no legal hand: the likeliest hand tiles as read, for the player to fix
        ms = likely_hand(parts)
        hl = lay_out(dets, ms.members, flower_tiles(parts)) if ms.members else None
        hand = [Group(g.kind, tuple(hl.order[i] for i in g.members), g.win_apart) for g in hl.groups] if hl else []
        groups = tuple(hand) + tuple(Group("loose", part.members) for part in ms.loose)
        problem = ((count_problem(hl.groups) if hl else Notice.of("no-hand-like-tiles"))
                   or Notice.of("no-close-codes"))
        for part in ms.loose:
            for i in part.members:
                why[i] = part.why
        warnings = (hl.warnings if hl else []) + [Notice.of("no-legal-hand", reason=problem)]
        # the flowers shown each once even so (a flower read twice is a misread)
        flowers = {i: c for g in hand if g.kind == "flowers" for i, c in as_distinct_flowers(dets, g.members).items()}
        codes = [flowers.get(i, c) for i, c in enumerate(raw)]
        why = [("each flower once" if i in flowers and codes[i] != raw[i] else w) for i, w in enumerate(why)]
        return Reading(with_groups(dets, groups, codes).with_facts(why=why), groups, None, 0.0, tuple(warnings))
    best = found[0]
    codes = [best.codes.get(i, raw[i]) for i in range(len(dets))]
    hand_members = tuple(i for g in best.groups if g.kind != "loose" for i in g.members)
    warnings = lay_out(dets, hand_members, flower_tiles(parts)).warnings
    for g in best.groups:
        if g.kind == "loose":
            part = next((p for p in parts if set(p.members) & set(g.members)), None)
            for i in g.members:
                why[i] = part.why if part else "doubled"
    for i, (before, after) in enumerate(zip(raw, codes, strict=True)):
        if before != after:
            why[i] = "legal hand"
            warnings.append(Notice.of("tile-corrected", number=i + 1, before=before, after=after))
    set_apart = sum(len(g.members) for g in best.groups if g.kind == "loose")
    if set_apart:
        warnings.append(Notice.of("tiles-set-apart", count=set_apart))
    if best.added:
        warnings.append(Notice.of("tile-supposed", tile=best.added[0]))
    warnings += [Notice.of("kong-supposed", tile=face) for face in best.kongs]
    confidence = 1.0 if len(found) == 1 else 1.0 / (1.0 + math.exp(best.cost - found[1].cost))
    alternatives = tuple(_alternative(c, best, raw, rules) for c in found[1:])
    return Reading(with_groups(dets, best.groups, codes).with_facts(why=why), best.groups, best.hand, confidence,
                   tuple(warnings), tuple(a for a in alternatives if a is not None), best.added)


def _alternative(c: Candidate, best: Candidate, raw: list[str], rules: Ruleset) -> Alternative | None:
    """A runner-up as the app offers it: its 台 and what it changes from the best reading."""
    try:
        tai = score(c.hand, rules).total
    except HandError:  # legal in shape but no win at this table (改良式 起胡)
        return None
    codes = tuple(c.codes.get(i, raw[i]) for i in range(len(raw)))
    differs = []
    kept = {i for g in c.groups if g.kind != "loose" for i in g.members}
    best_kept = {i for g in best.groups if g.kind != "loose" for i in g.members}
    for i in sorted(kept & best_kept):
        if codes[i] != best.codes.get(i, raw[i]):
            differs.append(Notice.of("alt-tile", number=i + 1, before=best.codes.get(i, raw[i]), after=codes[i]))
    if kept - best_kept:
        differs.append(Notice.of("alt-in-hand", tiles=tuple(codes[i] for i in sorted(kept - best_kept))))
    if best_kept - kept:
        apart = tuple(best.codes.get(i, raw[i]) for i in sorted(best_kept - kept))
        differs.append(Notice.of("alt-set-apart", tiles=apart))
    if c.added != best.added:
        differs.append(Notice.of("alt-supposes", tile=c.added[0]) if c.added else Notice.of("alt-no-supposed"))
    if c.hand.win != best.hand.win:
        differs.append(Notice.of("alt-wins-on", tile=c.hand.win))
    if sorted(m.kind for m in c.hand.melds) != sorted(m.kind for m in best.hand.melds):
        differs.append(Notice.of("alt-melds", count=len(c.hand.melds)))
    return Alternative(codes, c.groups, c.hand, tai, tuple(differs), c.added)


def read_photo(image: np.ndarray, detector: Detector, situation: Situation | None = None,
               rules: Ruleset | None = None, memory=None) -> Reading:
    """Read a BGR photo with a detector (`vision.detector.TileDetector`), with a table's `memory` of its own
    tiles when given (`vision.memory.TableMemory`, used by the crop classifier); a reading less sure of its tiles' faces
    than SURE_UPRIGHT (mean certainty) is compared with the photo read turned half a turn, and the
    turned reading is kept when it is clearly surer (by TURNED_BY), boxes mapped back to `image`'s pixels.

    A photo taken from across the table shows the tiles upside down; read as it is, it gave a legal
    but wrong hand. On the 5 committed sample photos turned half a turn, read as they were: mean
    certainty 0.37-0.79 with v2 (upright 0.57-0.97), 0.62-0.94 with v3 (upright 0.58-0.98); read
    both ways up, each reads exactly as its upright photo (tests/test_detector.py). A sure reading
    (8 of the 12 committed photos upright) skips the second read, which doubles the time,
    and so does a photo of more tiles than a hand shows (a whole set laid out, a table from above), and
    a photo of none (the detector finds tiles whichever way up they lie: a 12 MP photo of nothing read
    twice took twice its 4 s to say so)."""
    upright = read_detections(_detect(detector, image, memory), situation, rules)
    if not len(upright.detections) or _sureness(upright) >= SURE_UPRIGHT \
            or len(upright.detections) > MAX_HAND_TILES:
        return upright
    turned = read_detections(_detect(detector, cv2.rotate(image, cv2.ROTATE_180), memory), situation, rules)
    if _sureness(turned) <= _sureness(upright) + TURNED_BY:
        return upright
    h, w = image.shape[:2]
    x1, y1, x2, y2 = turned.detections.boxes.T
    back = np.stack([w - x2, h - y2, w - x1, h - y1], axis=1).astype(np.float32)
    return replace(turned, detections=Detections(back, turned.detections.scores, turned.detections.data),
                   warnings=(UPSIDE_DOWN, *turned.warnings))


# The committed photos turned half a turn that v3 reads at 0.9 or more (6 of 12) read the same hand
# as upright, or no hand either way; upright, 8 of them read at 0.93-0.98.
SURE_UPRIGHT = 0.9
# The turned reading replaces the upright one only when it is this much surer: a hard upright photo
# (the committed sample shot at a 53° tilt: 0.58) can read a little surer turned (0.62) and wrong.
TURNED_BY = 0.05
# A winning hand shows at most 16 + 1 tiles, 4 more for kongs and 8 flowers.
MAX_HAND_TILES = 30
UPSIDE_DOWN = Notice.of("upside-down")


def _detect(detector: Detector, image: np.ndarray, memory) -> Detections:
    """The detector's tiles, read with the table's memory when there is one (a plain `Detector` takes none)."""
    return detector.read(image) if memory is None else detector.read(image, memory=memory)


def _sureness(reading: Reading) -> float:
    return float(reading.detections.certainty.mean()) if len(reading.detections) else 0.0
