"""Is this a legal win? Every problem raises HandError with a message that names it."""

from __future__ import annotations

from collections import Counter

from .decompose import counts_of, is_complete, waits
from .hand import Hand, HandError, Meld
from .notation import format_chinese
from .tiles import COPIES, PLAYING, is_honour, rank, suit, tile_name

HAND_SIZE = 16  # tiles held before the win, a kong counting as 3


def _meld_problem(m: Meld) -> str | None:
    t = m.tiles
    shown = f"{m.kind} {format_chinese(t)} ({' '.join(t)})"
    if m.kind == "chi":
        if len(t) != 3:
            return f"{shown}: a chi has 3 tiles, not {len(t)}"
        s = sorted(t, key=lambda x: (suit(x), rank(x)))
        if any(is_honour(x) for x in s) or len({suit(x) for x in s}) != 1 or [
            rank(x) - rank(s[0]) for x in s
        ] != [0, 1, 2]:
            return f"{shown} is not a chow (three consecutive tiles of one suit)"
        return None
    size = 3 if m.kind == "pon" else 4
    if len(t) != size:
        return f"{shown}: a {m.kind} has {size} tiles, not {len(t)}"
    if len(set(t)) != 1:
        return f"{shown} is not a set of {size} identical tiles"
    return None


def check_situation(hand: Hand) -> None:
    """Flags that cannot happen together at a table."""
    s = hand.situation
    if s.rob_kong and s.self_draw:
        raise HandError("rob_kong: robbing a kong wins on another player's tile, "
                        "so self_draw must be false")
    if s.after_kong and not s.self_draw:
        raise HandError("after_kong: the replacement tile after a kong is self-drawn, "
                        "so self_draw must be true")
    if s.heavenly and not s.self_draw:
        raise HandError("heavenly: 天和 wins on the dealer's own dealt tiles, "
                        "so self_draw must be true")
    if s.heavenly and hand.melds:
        raise HandError("heavenly: 天和 is won on the dealt tiles, before any chi, pon or kong")
    t = hand.table
    if t is not None:
        if s.heavenly and t.dealer != s.seat:
            raise HandError(f"heavenly: only the dealer ({t.dealer}) can win 天和, "
                            f"not seat {s.seat}")
        if not s.self_draw and t.discarder is None:
            raise HandError("table.discarder: a win off a discard needs the discarder's seat")
        if s.self_draw and t.discarder is not None:
            raise HandError("table.discarder: a self-drawn win has no discarder")
        if t.discarder == s.seat:
            raise HandError(f"table.discarder: the winner ({s.seat}) cannot be the discarder")


def check_hand(hand: Hand) -> None:
    """Raise HandError unless `hand` is a legal winning hand with a possible situation."""
    seen = Counter(hand.flowers)
    for f, n in seen.items():
        if n > 1:
            raise HandError(f"flower {tile_name(f)} ({f}) appears {n} times; there is only one")
    if len(hand.melds) > 5:
        raise HandError(f"{len(hand.melds)} melds; a winning hand has 5 sets in all")
    for m in hand.melds:
        problem = _meld_problem(m)
        if problem:
            raise HandError(problem)
    expected = HAND_SIZE - 3 * len(hand.melds)
    if len(hand.concealed) != expected:
        raise HandError(
            f"tile count: {len(hand.concealed)} concealed tiles besides the winning tile; with "
            f"{len(hand.melds)} meld(s) there must be {expected} (16 − 3 per meld)"
        )
    counts = Counter(hand.all_tiles())
    for t, n in sorted(counts.items()):
        if n > COPIES:
            raise HandError(f"{n} copies of {tile_name(t)} ({t}) across hand and melds; "
                            f"there are only {COPIES}")
    concealed = counts_of(hand.concealed)
    full = list(concealed)
    full[PLAYING.index(hand.win)] += 1
    if not is_complete(tuple(full)):
        held = tuple(counts_of(hand.held_tiles()))
        w = waits(tuple(concealed), held)
        shown = f"{format_chinese(hand.concealed)} 和{tile_name(hand.win)}"
        if w:
            need = "、".join(tile_name(PLAYING[i]) for i in w)
            raise HandError(f"not a win: {shown} does not form 5 sets and a pair "
                            f"(this hand waits on {need})")
        raise HandError(f"not a win: {shown} does not form 5 sets and a pair "
                        "(and no tile would complete it)")
    check_situation(hand)
