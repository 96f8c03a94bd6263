"""Is this a legal win? Every problem raises HandError with a message that names it.

A win is 5 sets and a pair; under a ruleset with special shapes (十三么, 瀝咕瀝咕, 大车轮,
a flower win …) also a hand of such a shape that one of its shape entries recognises.
"""

from __future__ import annotations

from collections import Counter

from .decompose import _candidates, counts_of, is_complete, waits
from .hand import Hand, HandError, Meld
from .notation import format_chinese
from .reading import Reading, View, special_readings, special_shape_possible
from .ruleset import DEFAULT_RULESET, Ruleset, load_ruleset
from .tiles import COPIES, FLOWERS, PLAYING, TERMINALS_AND_HONOURS, is_honour, rank, suit, tile_name

_ORPHAN_INDEX = tuple(PLAYING.index(t) for t in TERMINALS_AND_HONOURS)

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
    first = [f for f in ("heavenly", "earthly", "human") if getattr(s, f)]
    if len(first) > 1:
        raise HandError(f"{' and '.join(first)}: 天胡, 地胡 and 人胡 exclude one another")
    if s.earthly and not s.self_draw:
        raise HandError("earthly: 地胡 is self-drawn on the first draw, so self_draw must be true")
    if s.human and s.self_draw:
        raise HandError("human: 人胡 wins off a discard, so self_draw must be false")
    opened = sum(m.is_open for m in hand.melds)
    for flag, name in (("earthly", "地胡"), ("human", "人胡"), ("heavenly_ready", "天听"),
                       ("earthly_ready", "地听")):
        if getattr(s, flag) and opened:
            raise HandError(f"{flag}: {name} needs 门清 (no chi, pon or open kong)")
    if s.heavenly_ready and s.earthly_ready:
        raise HandError("heavenly_ready and earthly_ready: 天听 and 地听 are two ways of one "
                        "declaration; give one")
    if s.after_flower and not s.self_draw:
        raise HandError("after_flower: the replacement tile after a flower is self-drawn, "
                        "so self_draw must be true")
    if s.after_flower and not hand.flowers:
        raise HandError("after_flower: a replacement after a flower needs a flower in 'flowers'")
    t = hand.table
    if t is not None:
        if s.heavenly and t.dealer != s.seat:
            raise HandError(f"heavenly: only the dealer ({t.dealer}) can win 天和, "
                            f"not seat {s.seat}")
        if s.earthly and t.dealer == s.seat:
            raise HandError(f"earthly: 地胡 is a non-dealer's win; seat {s.seat} is the dealer")
        if not s.self_draw and t.discarder is None:
            raise HandError("table.discarder: a win off a discard needs the discarder's seat")
        if s.self_draw and t.discarder is not None:
            raise HandError("table.discarder: a self-drawn win has no discarder")
        if t.discarder == s.seat:
            raise HandError(f"table.discarder: the winner ({s.seat}) cannot be the discarder")


def shape_wins(hand: Hand, rules: Ruleset, view: View | None = None) -> list[Reading]:
    """The readings of a special shape that one of the ruleset's shape entries makes a win."""
    shapes = rules.shapes
    if not shapes:
        return []
    view = view or View.of(hand)
    judges = [e for e in rules.entries if e.shape]
    return [r for r in special_readings(hand, view, shapes)
            if any(e.shape == r.shape and e.detect(r) for e in judges)]


def special_waits(hand: Hand, rules: Ruleset) -> tuple[str, ...]:
    """Tiles that complete the 16 held tiles in a special shape of the ruleset (十三么 waits on
    its missing tile, 瀝咕瀝咕 on its single)."""
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
    candidates = set(_candidates(tuple(c))) | (set(_ORPHAN_INDEX) if near_orphans else set())
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
        if shape_wins(trial, rules, View.of(trial, with_waits=False)):
            out.append(PLAYING[i])
    return tuple(out)


def _not_a_win(hand: Hand, rules: Ruleset) -> HandError:
    concealed = counts_of(hand.concealed)
    held = tuple(counts_of(hand.held_tiles()))
    w = set(PLAYING[i] for i in waits(tuple(concealed), held)) | set(special_waits(hand, rules))
    shown = f"{format_chinese(hand.concealed)} 和{tile_name(hand.win)}"
    others = [e.name for e in rules.entries if e.shape in ("pairs", "orphans")]
    shape = "5 sets and a pair" + (f" (nor {'/'.join(others)} of {rules.id})" if others else "")
    if w:
        need = "、".join(tile_name(t) for t in PLAYING if t in w)
        return HandError(f"not a win: {shown} does not form {shape} (this hand waits on {need})")
    return HandError(f"not a win: {shown} does not form {shape} (and no tile would complete it)")


def check_hand(hand: Hand, ruleset: Ruleset | str | None = None) -> None:
    """Raise HandError unless `hand` is a legal winning hand with a possible situation, under
    `ruleset` (default: the default table, which knows only 5 sets and a pair)."""
    rules = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset or DEFAULT_RULESET)
    seen = Counter(hand.all_flowers())
    for f, n in seen.items():
        if n > 1:
            raise HandError(f"flower {tile_name(f)} ({f}) appears {n} times; there is only one")
    if hand.flower_win:
        if set(hand.all_flowers()) != set(FLOWERS):
            raise HandError(f"flower win: {tile_name(hand.win)} wins only as the eighth flower; "
                            f"'flowers' must hold the other seven")
        if not shape_wins(hand, rules):
            raise HandError(f"flower win: {rules.id} has no flower win (花胡); score the tiles "
                            "of the hand with the flowers in 'flowers'")
        check_situation(hand)
        return
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
    full = counts_of(hand.concealed)
    full[PLAYING.index(hand.win)] += 1
    if not is_complete(tuple(full)) and not shape_wins(hand, rules):
        raise _not_a_win(hand, rules)
    check_situation(hand)
