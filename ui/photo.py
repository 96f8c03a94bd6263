"""The photo reading next to the player's draft: what each box is now, which boxes to flag, which
tiles the reader set apart from the hand, and the runner-up readings the player may take instead."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np

from scoring.hand import HandError, Situation
from scoring.payout import Result
from scoring.ruleset import RulesetError
from ui.draft import MELD_SIZE, Draft, from_reading
from ui.result import evaluate
from vision.classes import BACK
from vision.detections import UNSURE_BELOW
from vision.draw import draw_boxes
from vision.notices import Notice
from vision.read import with_groups

REMOVED = "x"  # drawn on a box whose tile the player removed from the hand
PHOTO_TYPES = ["jpg", "jpeg", "png", "webp", "heic", "heif"]  # what the uploaders take (vision/photo.py reads them)


def photo_id(data: bytes) -> str:
    """Names an uploaded photo by its bytes: the same photo is read once, and saved under one name."""
    return hashlib.sha256(data).hexdigest()[:16]


def taken(reading, alternative: int | None):
    """The reading as the player took it: the best one (`alternative` None), or runner-up number
    `alternative` laid over the same boxes (its codes, groups, hand and added tiles), so that the
    draft, the flags and the saved labels all follow the hand the player chose."""
    if alternative is None:
        return reading
    alt = reading.alternatives[alternative]
    return replace(reading, detections=with_groups(reading.detections, alt.groups, alt.codes), groups=alt.groups,
                   hand=alt.hand, added=alt.added)


def set_apart(reading) -> set[int]:
    """The detections the reader set apart from the hand (walls, discards, strays: kind "loose")."""
    return {i for g in reading.groups if g.kind == "loose" for i in g.members}


def _held(draft: Draft) -> set[int]:
    return {s.det for s in draft.all_slots() if s.det is not None}


def loose(reading, draft: Draft) -> list[int]:
    """Tiles set apart that the draft does not hold (the player may pull one in), in reading order."""
    return sorted(set_apart(reading) - _held(draft))


def spare_for(reading, draft: Draft, m: int, kind: str | None) -> int | None:
    """The box of the tile a meld turned into a kong gains: one the reader set apart that shows its
    face (the photo has it beside the meld), or None (the player adds a tile the photo does not
    show). None too when the meld does not gain a tile."""
    meld = draft.melds[m]
    if reading is None or kind is None or MELD_SIZE[kind] != 4 or len(meld.tiles) != 3:
        return None
    face = meld.tiles[0].code
    return next((i for i in loose(reading, draft) if reading.codes[i] == face), None)


def supposed_left(reading, draft: Draft) -> list[str]:
    """The tiles the reader supposed (`reading.added`) that the draft still holds as tiles without a
    box: what the "a tile was added" note is about, until the player removes or replaces them."""
    unboxed = [s.code for s in draft.all_slots() if s.det is None]
    left = []
    for code in reading.added:
        if code in unboxed:
            unboxed.remove(code)
            left.append(code)
    return left


def box_codes(reading, draft: Draft) -> list[str | None]:
    """The class of each detection as the player has it now: the code of the draft tile holding
    it (a face-down tile stays `back`), the reader's code for a tile set apart and left apart (it is
    still a tile in the photo), or None when the player removed that tile."""
    codes: list[str | None] = [None] * len(reading.detections)
    for i in loose(reading, draft):
        codes[i] = reading.codes[i]
    for slot in draft.all_slots():
        if slot.det is not None and slot.det < len(codes):
            codes[slot.det] = BACK if reading.codes[slot.det] == BACK else slot.code
    return codes


def flagged(reading, draft: Draft) -> list[bool]:
    """Boxes to highlight: the reader was unsure, correction changed the tile, or the player did (a
    tile pulled into the hand from those set apart is the player's change). A tile left apart is
    dimmed instead, never flagged: it is not part of the hand."""
    now = box_codes(reading, draft)
    sure = reading.detections.certainty
    changed = set(reading.changed)
    apart, left_apart = set_apart(reading), set(loose(reading, draft))
    return [i not in left_apart and (bool(sure[i] < UNSURE_BELOW) or i in changed or now[i] != reading.codes[i]
                                     or i in apart) for i in range(len(now))]


def annotate(image: np.ndarray, reading, draft: Draft) -> np.ndarray:
    """The photo (BGR) with each box and its current code; flagged boxes in the highlight colour,
    tiles set apart from the hand greyed."""
    labels = [REMOVED if c is None else c for c in box_codes(reading, draft)]
    left_apart = set(loose(reading, draft))
    return draw_boxes(image, reading.detections.boxes, labels, flagged(reading, draft),
                      dimmed=[i in left_apart for i in range(len(labels))])


@dataclass(frozen=True)
class Choice:
    """One way to read the photo, offered to the player as one tap."""

    alternative: int | None  # None: the reader's best reading; else the index of a runner-up
    tai: int | None  # its 台 under the page's situation and ruleset; None when it is no win there
    differs: tuple[Notice, ...]  # what a runner-up changes from the best reading


def choices(reading, flags: Situation, result: Result | None, base: int, per_tai: int, declared_ready: bool,
            ruleset: str) -> list[Choice]:
    """The best reading and each runner-up, with the 台 the page would show after taking it, scored
    as the page scores the hand (`ui.result.evaluate`); None where the page cannot score it (no
    result said yet, or no win there)."""
    out = []
    for k in (None, *range(len(reading.alternatives))):
        tai = None
        if result is not None:
            try:
                tai = evaluate(from_reading(taken(reading, k)), flags, result, base, per_tai, declared_ready,
                               ruleset).score.total
            except (HandError, RulesetError):
                pass
        out.append(Choice(k, tai, () if k is None else reading.alternatives[k].differs))
    return out
