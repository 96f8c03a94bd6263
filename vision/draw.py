"""Boxes and tile codes drawn on a photo (cv2 only: the codes are ASCII), and the one rule for which boxes of a
reading are flagged: the page and `vision read --annotate` draw a proposal with `annotate`."""

from __future__ import annotations

import cv2
import numpy as np

from scoring.draft import Draft
from vision.classes import BACK
from vision.detections import UNSURE_BELOW
from vision.read import Proposal

NORMAL, HIGHLIGHT, DIMMED = (0, 200, 0), (0, 0, 255), (150, 150, 150)  # BGR
REMOVED = "x"  # drawn on a box whose tile the player removed from the hand


def draw_boxes(
    image: np.ndarray,
    boxes: np.ndarray,
    labels: list[str],
    highlight: list[bool] | None = None,
    dimmed: list[bool] | None = None,
) -> np.ndarray:
    """A copy of a BGR image with xyxy pixel boxes and their labels; highlighted boxes in red,
    dimmed ones (tiles that are not part of the hand) in grey."""
    out = image.copy()
    scale = max(0.3, min(out.shape[:2]) / 1600)
    thick = max(1, round(min(out.shape[:2]) / 500))
    for i, (box, label) in enumerate(zip(np.asarray(boxes).reshape(-1, 4), labels, strict=True)):
        colour = (HIGHLIGHT if highlight is not None and highlight[i]
                  else DIMMED if dimmed is not None and dimmed[i] else NORMAL)
        x0, y0, x1, y1 = (int(round(v)) for v in box)
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, thick)
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        ty = y0 - 2 if y0 - th - base >= 0 else y1 + th + 2
        cv2.rectangle(out, (x0, ty - th - 1), (x0 + tw + 1, ty + base - 1), colour, -1)
        cv2.putText(out, label, (x0 + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (255, 255, 255), 1, cv2.LINE_AA)
    return out


def still_apart(proposal: Proposal, draft: Draft) -> list[int]:
    """The ids of the tiles set apart that the draft does not hold (the player may pull one in), in
    reading order."""
    held = {s.det for s in draft.all_slots() if s.det is not None}
    return [i for i in proposal.apart if i not in held]


def box_codes(proposal: Proposal, draft: Draft) -> list[str | None]:
    """The class of each box (the proposal's shown rows, in order) as the player has it now: the code
    of the draft tile holding it (a face-down tile stays `back`), the reader's code for a tile set apart
    and left apart (it is still a tile in the photo), or None when the player removed that tile."""
    at = {row.id: k for k, row in enumerate(proposal.shown)}
    codes: list[str | None] = [None] * len(at)
    for i in still_apart(proposal, draft):
        codes[at[i]] = proposal.row(i).code
    for slot in draft.all_slots():
        if slot.det in at:
            codes[at[slot.det]] = BACK if proposal.row(slot.det).code == BACK else slot.code
    return codes


def flagged(proposal: Proposal, draft: Draft) -> list[bool]:
    """Boxes to highlight: the reader was unsure, correction changed the tile, or the player did (a
    tile pulled into the hand from those set apart is the player's change). A tile left apart is
    dimmed instead, never flagged: it is not part of the hand."""
    now = box_codes(proposal, draft)
    changed, apart, left_apart = set(proposal.changed), set(proposal.apart), set(still_apart(proposal, draft))
    return [row.id not in left_apart and (row.certainty < UNSURE_BELOW or row.id in changed or now[k] != row.code
                                          or row.id in apart) for k, row in enumerate(proposal.shown)]


def annotate(image: np.ndarray, proposal: Proposal, draft: Draft | None = None, scale: float = 1.0) -> np.ndarray:
    """A copy of the BGR photo (or the photo shrunk by `scale`) with each box of the proposal and its code as the
    draft has it (`box_codes`; the proposal's own draft where none is given, as read): the flagged boxes (`flagged`)
    in the highlight colour, the tiles left apart from the hand greyed."""
    draft = proposal.draft if draft is None else draft
    labels = [REMOVED if c is None else c for c in box_codes(proposal, draft)]
    left_apart = set(still_apart(proposal, draft))
    return draw_boxes(image, proposal.boxes * scale, labels, flagged(proposal, draft),
                      [row.id in left_apart for row in proposal.shown])
