"""The special shapes of a win (十三么, 瀝咕瀝咕 八对半, 大车轮, a flower win): the readings of one that a
ruleset's shape entry makes a win, and the tiles a hand waits on in one. The checker asks whether a hand
is such a win (`scoring.validate`); the scorer scores those readings beside the standard ones and counts
those waits among the hand's (`scoring.score`).
"""

from __future__ import annotations

from .decompose import completing_faces, counts_of
from .hand import Hand
from .reading import Decomposition, HandView, special_readings, special_shape_possible
from .ruleset import Ruleset
from .tiles import COPIES, PLAYING, TERMINALS_AND_HONOURS

_ORPHAN_INDEX = tuple(PLAYING.index(t) for t in TERMINALS_AND_HONOURS)


def shape_wins(hand: Hand, rules: Ruleset, view: HandView | None = None) -> list[Decomposition]:
    """The readings of a special shape that one of the ruleset's shape entries makes a win."""
    shapes = rules.shapes
    if not shapes:
        return []
    view = view or HandView.of(hand)
    judges = [e for e in rules.entries if e.shape]
    return [r for r in special_readings(hand, view, shapes)
            if any(e.shape == r.shape and e.detect(r) for e in judges)]


def special_waits(hand: Hand, rules: Ruleset) -> tuple[str, ...]:
    """Tiles that complete the 16 held tiles in a special shape of the ruleset (十三么 waits on
    its missing tile, 瀝咕瀝咕 on its single)."""
    if not rules.shapes:  # most tables
        return ()
    shapes = rules.shapes & {"pairs", "orphans"}
    if not shapes or hand.flower_win or len(hand.melds) > 1:
        return ()
    held = counts_of(hand.held_tiles())
    c = counts_of(hand.concealed)
    near_pairs = "pairs" in shapes and sum(n // 2 for n in c) >= 5
    near_orphans = "orphans" in shapes and sum(1 for i in _ORPHAN_INDEX if c[i]) >= 10
    if not (near_pairs or near_orphans):
        return ()
    # a tile that completes a special shape pairs a held tile, completes a set near held
    # tiles, or is a missing 么九 tile
    candidates = set(completing_faces(tuple(c))) | (set(_ORPHAN_INDEX) if near_orphans else set())
    out = []
    melded = bool(hand.melds)
    for i in sorted(candidates):
        if held[i] >= COPIES:
            continue
        c[i] += 1
        possible = special_shape_possible(c, melded, shapes)
        c[i] -= 1
        if not possible:
            continue
        trial = hand.replace(win=PLAYING[i])
        if shape_wins(trial, rules, HandView.of(trial, with_waits=False)):
            out.append(PLAYING[i])
    return tuple(out)
