"""The photo reading next to the player's draft: the photo drawn as the player has the hand now (what each box
is, which boxes are flagged and which tiles the reader set apart: `vision.draw`, the rule the command line draws
by too), and the runner-up readings the player may take instead."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from scoring.draft import Draft
from scoring.hand import HandError, Situation
from scoring.melds import MeldKind
from scoring.payout import Result
from scoring.ruleset import RulesetError
from ui.picture import Picture, jpeg
from ui.result import evaluate
from vision import draw
from vision.draw import box_codes as box_codes  # re-exported: app.py takes the page's from here
from vision.draw import flagged as flagged
from vision.draw import still_apart
from vision.notices import Notice

PHOTO_TYPES = ["jpg", "jpeg", "png", "webp", "heic", "heif"]  # what the uploaders take (vision/photo.py reads them)


def photo_id(data: bytes) -> str:
    """Names an uploaded photo by its bytes: the same photo is read once, and saved under one name."""
    return hashlib.sha256(data).hexdigest()[:16]


def taken(reading, alternative: int | None):
    """The proposal the player took (`vision.read.Proposal`): the best one (`alternative` None), or
    runner-up number `alternative`, over the same boxes with its own codes, groups and supposed tile,
    so that the draft, the flags and the saved labels all follow the hand the player chose."""
    return reading.best if alternative is None else reading.runner_ups[alternative]


def spare_for(proposal, draft: Draft, m: int, kind: str | None) -> int | None:
    """The id of the tile a meld turned into a kong gains: one the reader set apart that shows its
    face (the photo has it beside the meld), or None (the player adds a tile the photo does not
    show). None too when the meld does not gain a tile."""
    meld = draft.melds[m]
    if proposal is None or kind is None or MeldKind(kind).size != 4 or len(meld.tiles) != 3:
        return None
    face = meld.tiles[0].code
    return next((i for i in still_apart(proposal, draft) if proposal.row(i).code == face), None)


def supposed_left(proposal, draft: Draft) -> list[str]:
    """The tiles the reader supposed (rows without a box) that the draft still holds as supposed: what
    the "a tile was added" note is about, until the player removes or replaces them."""
    supposed = {row.id: row.code for row in proposal.supposed}
    return [supposed[s.det] for s in draft.all_slots() if s.det in supposed and s.code == supposed[s.det]]


def annotate(picture: Picture, proposal, draft: Draft) -> np.ndarray:
    """The page's picture of the photo with the proposal drawn as the player has it now (`vision.draw.annotate`,
    the one rule for the boxes flagged, at the picture's scale)."""
    return draw.annotate(picture.image, proposal, draft, picture.scale)


def annotated_jpeg(shown, taken_as: int | None, proposal, draft: Draft) -> bytes:
    """The JPEG the page sends of `shown` (`ui.state.Photo`) read as the player took it (`taken_as`: which proposal of
    its reading, `proposal`) with `draft` drawn on it (`annotate`): drawn and encoded again only when one of them
    changed, not on every tap elsewhere on the page (5 ms of a 23 ms run: docs/decisions/page-photo.md)."""
    key = (shown.read.key, taken_as, draft)
    if shown.sent is None or shown.sent[0] != key:
        shown.sent = key, jpeg(annotate(shown.picture, proposal, draft))
    return shown.sent[1]


@dataclass(frozen=True)
class Choice:
    """One way to read the photo, offered to the player as one tap."""

    alternative: int | None  # None: the reader's best reading; else the index of a runner-up
    tai: int | None  # its 台 under the page's situation and ruleset; None when it is no win there
    differs: tuple[Notice, ...]  # what a runner-up changes from the best reading


def choices(reading, flags: Situation, result: Result | None, base: int, per_tai: int, declared_ready: bool,
            ruleset: str, page: tuple[Draft, int | None] | None = None) -> list[Choice]:
    """The best reading and each runner-up, with the 台 the page would show after taking it: its draft
    scored as the page scores the hand (`ui.result.evaluate`, under the page's situation, deal and
    ruleset); None where the page cannot score it (no result said yet, or no win there). `page`: the draft on the
    page and its 台 as the page judged it, not scored again for a reading that gives that draft."""
    out = []
    for k in (None, *range(len(reading.runner_ups))):
        proposal, tai = taken(reading, k), None
        if page is not None and proposal.draft == page[0]:
            tai = page[1]
        elif result is not None:
            try:
                tai = evaluate(proposal.draft, flags, result, base, per_tai, declared_ready, ruleset).score.total
            except (HandError, RulesetError):
                pass
        out.append(Choice(k, tai, proposal.differs))
    return out
