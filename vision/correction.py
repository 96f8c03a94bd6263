"""Legal-hand correction: the most probable reading of the photo that is a legal winning hand.

The detector scores every class for every tile. A reading picks one class per tile; its cost is
the sum of −log p over the tiles. Readings are visited cheapest first (k-best enumeration over
per-tile candidate lists), and the first that the scorer accepts as a win is the answer. The
runner-up legal reading, when found within the budget, says how sure the choice is.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from scoring.hand import Hand, HandError, Meld, Situation
from scoring.tiles import FLOWERS, TILE_CODES
from scoring.validate import check_hand
from vision.classes import BACK, CLASS_INDEX, class_name
from vision.detections import Detections
from vision.groups import Group, meld_kind
from vision.notices import Notice

CANDIDATES = 4  # alternatives considered per tile
MAX_VISITS = 4000  # readings checked before giving up (a few hundred ms)
MAX_COST = 12.0  # a reading e^-12 less likely than the raw one is no longer "close"
FACES = tuple(c for c in TILE_CODES if c not in FLOWERS)


@dataclass(frozen=True)
class Correction:
    codes: dict[int, str]  # detection index → final code
    changed: tuple[tuple[int, str, str], ...]  # (detection index, raw code, new code)
    hand: Hand | None
    confidence: float  # P(chosen) / P(chosen or runner-up legal reading); 0 when none is legal
    groups: tuple[Group, ...]  # with kinds recomputed from the final codes
    warnings: tuple[Notice, ...]


def _allowed(group: Group, raw: str) -> tuple[str, ...]:
    if group.kind == "flowers":
        return FLOWERS
    if group.kind == "ankong" and raw == BACK:
        return (BACK,)
    return FACES


def build_hand(groups: list[Group], codes: dict[int, str], situation: Situation) -> Hand:
    """The scorer's `Hand` for a reading; raises HandError when it is not one."""
    concealed = groups[0]
    if concealed.kind != "concealed" or not concealed.members:
        raise HandError("no concealed tiles", "沒有手牌")
    tiles = [codes[i] for i in concealed.members]
    melds = []
    for g in groups[1:]:
        if g.kind == "flowers":
            continue
        shown = [codes[i] for i in g.members]
        kind = meld_kind(shown)
        if kind == "unknown":
            raise HandError(f"{' '.join(shown)} is not a set",
                            f"{''.join(class_name(c, 'traditional') for c in shown)} 不成一組")
        if kind == "ankong":
            faces = {c for c in shown if c != BACK}
            if not faces:
                raise HandError("a concealed kong shows four backs: its tile is unknown",
                                "暗槓四張都蓋著：看不出是哪張牌")
            shown = [faces.pop()] * 4
        melds.append(Meld(kind, tuple(shown)))
    flowers = tuple(codes[i] for g in groups if g.kind == "flowers" for i in g.members)
    hand = Hand(tuple(tiles[:-1]), tiles[-1], tuple(melds), flowers, situation)
    check_hand(hand)
    return hand


def count_problem(groups: list[Group]) -> Notice | None:
    """What makes these groups no winning hand whatever their tiles read (a photo of a whole set,
    a tile missed by the detector): no code change can fix a count, so correction need not search."""
    concealed = groups[0] if groups and groups[0].kind == "concealed" else None
    melds = [g for g in groups[1:] if g.kind != "flowers"]
    flowers = sum(len(g.members) for g in groups if g.kind == "flowers")
    if concealed is None:
        return Notice.of("no-concealed-tiles")
    if any(len(g.members) not in (3, 4) for g in melds):
        return Notice.of("meld-size")
    if len(concealed.members) != 17 - 3 * len(melds):
        return Notice.of("concealed-count", count=len(concealed.members), melds=len(melds),
                         expected=17 - 3 * len(melds))
    if flowers > 8:
        return Notice.of("too-many-flowers", count=flowers)
    return None


def correct(dets: Detections, groups: list[Group], situation: Situation | None = None) -> Correction:
    situation = situation or Situation()
    members = [(g, i) for g in groups for i in g.members]
    raw = dets.raw_codes
    problem = count_problem(groups)
    if problem:
        return Correction({i: raw[i] for _, i in members}, (), None, 0.0, tuple(groups),
                          (Notice.of("no-legal-hand", reason=problem),))
    options: list[list[tuple[float, str]]] = []
    for g, i in members:
        allowed = _allowed(g, raw[i])
        s = np.array([dets.scores[i, CLASS_INDEX[c]] for c in allowed], np.float64) + 1e-6
        p = s / s.sum()
        top = np.argsort(-p)[:CANDIDATES]
        options.append([(-math.log(p[k]), allowed[k]) for k in top])
    base = sum(opt[0][0] for opt in options)

    def reading(choice: tuple[int, ...]) -> dict[int, str]:
        return {i: options[k][c][1] for k, ((_, i), c) in enumerate(zip(members, choice, strict=True))}

    # k-best enumeration: a reading's children raise one choice at or after its last raised one,
    # so every reading is generated once, never before a cheaper parent.
    start = (0,) * len(members)
    heap = [(base, start, 0)]
    found: list[tuple[float, dict[int, str], Hand]] = []
    visits = 0
    while heap and visits < MAX_VISITS and len(found) < 2:
        cost, choice, last = heapq.heappop(heap)
        if cost - base > MAX_COST or (found and cost - found[0][0] > MAX_COST):
            break
        visits += 1
        codes = reading(choice)
        try:
            found.append((cost, codes, build_hand(groups, codes, situation)))
        except HandError:
            pass
        for k in range(last, len(members)):
            if choice[k] + 1 < len(options[k]):
                nxt = choice[:k] + (choice[k] + 1,) + choice[k + 1:]
                step = options[k][choice[k] + 1][0] - options[k][choice[k]][0]
                heapq.heappush(heap, (cost + step, nxt, k))

    top_codes = reading(start)
    if not found:
        try:
            build_hand(groups, top_codes, situation)
        except HandError as exc:
            problem = Notice.of_hand_error(exc)
        return Correction(top_codes, (), None, 0.0, tuple(groups), (Notice.of("no-legal-hand", reason=problem),))
    cost, codes, hand = found[0]
    confidence = 1.0 if len(found) == 1 else 1.0 / (1.0 + math.exp(cost - found[1][0]))
    changed = tuple((i, raw[i], codes[i]) for _, i in members if codes[i] != raw[i])
    regrouped = tuple(
        g if g.kind in ("concealed", "flowers") else Group(meld_kind([codes[i] for i in g.members]), g.members)
        for g in groups
    )
    return Correction(codes, changed, hand, confidence, regrouped, ())
