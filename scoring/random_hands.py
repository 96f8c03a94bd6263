"""Random LEGAL winning hands: 5 sets and a pair, never more than 4 copies of a tile.

Used by the property tests, the benchmark and the synthetic-photo generator (`datasets/`).
The signature of `random_winning_hand` and the knobs below are a contract; add knobs, keep
the existing ones.
"""

from __future__ import annotations

import random

from .hand import Hand, Meld, Situation, Table
from .melds import MeldKind
from .tiles import COPIES, FLOWERS, NUMBERED, PLAYING, WINDS


def _pick_set(rng: random.Random, left: dict[str, int], chow_prob: float,
              honour_prob: float) -> tuple[str, str] | None:
    """One set drawn from what is left: ("chow", lowest tile) or ("pung", tile)."""
    for _ in range(50):
        if rng.random() < chow_prob:
            s = rng.choice("mps")
            n = rng.randint(1, 7)
            tiles = [f"{n + k}{s}" for k in range(3)]
            if all(left[t] >= 1 for t in tiles):
                for t in tiles:
                    left[t] -= 1
                return ("chow", tiles[0])
        else:
            pool = PLAYING[27:] if rng.random() < honour_prob else NUMBERED
            t = rng.choice(pool)
            if left[t] >= 3:
                left[t] -= 3
                return ("pung", t)
    return None


def random_winning_hand(
    rng: random.Random,
    *,
    meld_prob: float = 0.3,
    kong_prob: float = 0.12,
    chow_prob: float = 0.55,
    honour_prob: float = 0.3,
    flower_prob: float = 0.5,
    situation: bool = True,
    table_prob: float = 0.0,
) -> Hand:
    """A random legal winning hand (5 sets + pair, at most 4 copies of any tile).

    meld_prob   chance that each set is melded (chow → chi, pung → pon; a kong → open kong);
                an unmelded kong becomes an ankong, so some hands are open and some concealed
    kong_prob   chance that a pung is a kong (when the 4th copy is free)
    chow_prob   chance that a set is a chow rather than a pung
    honour_prob chance that a pung (and the pair) is of honour tiles
    flower_prob chance of having flowers at all; their number is then 1..8, uniform
    situation   random seat/round/self-draw/flags (else E seat, E round, off a discard)
    table_prob  chance of a settlement `table` (dealer, streak, 底 50 / 每台 20, discarder)
    """
    while True:
        left = dict.fromkeys(PLAYING, COPIES)
        sets = [s for s in [_pick_set(rng, left, chow_prob, honour_prob) for _ in range(5)] if s is not None]
        if len(sets) < 5:
            continue
        pool = PLAYING[27:] if rng.random() < honour_prob else NUMBERED
        pair_choices = [t for t in pool if left[t] >= 2] or [t for t in PLAYING if left[t] >= 2]
        pair = rng.choice(pair_choices)
        left[pair] -= 2
        break

    melds: list[Meld] = []
    concealed: list[str] = [pair, pair]
    for kind, t in sets:
        if kind == "chow":
            tiles = [f"{int(t[0]) + k}{t[1]}" for k in range(3)]
            if rng.random() < meld_prob:
                melds.append(Meld(MeldKind.CHI, tuple(tiles)))
            else:
                concealed += tiles
            continue
        melded = rng.random() < meld_prob
        if left[t] >= 1 and rng.random() < kong_prob:
            left[t] -= 1
            melds.append(Meld(MeldKind.KONG if melded else MeldKind.ANKONG, (t,) * 4))
        elif melded:
            melds.append(Meld(MeldKind.PON, (t,) * 3))
        else:
            concealed += [t] * 3
    rng.shuffle(concealed)
    win = concealed.pop(rng.randrange(len(concealed)))
    rng.shuffle(melds)

    flowers: tuple[str, ...] = ()
    if rng.random() < flower_prob:
        flowers = tuple(rng.sample(FLOWERS, rng.randint(1, 8)))

    sit = Situation()
    if situation:
        held = concealed + [t for m in melds for t in m.tiles]
        sit = _random_situation(rng, melds, robbable=win not in held)
    table = None
    if rng.random() < table_prob:
        others = [w for w in WINDS if w != sit.seat_wind]
        table = Table(
            dealer=sit.seat_wind if sit.heavenly else rng.choice(WINDS),
            base=50,
            per_tai=20,
            streak=rng.choice((0, 0, 0, 1, 2, 3)),
            # 听牌 is declared with a discard, which a 天和 never made (drawn all the same, so
            # that every other hand of a seed stays as it was)
            declared_ready=rng.random() < 0.2 and not sit.heavenly,
            discarder=None if sit.self_draw else rng.choice(others),
        )
    return Hand(tuple(concealed), win, tuple(melds), flowers, sit, table)


def _random_situation(rng: random.Random, melds: list[Meld], robbable: bool) -> Situation:
    """Flags only in combinations that can happen at a table (see validate.check_situation);
    `robbable`: the winner holds no other copy of the winning tile, so it can be a robbed
    kong's fourth."""
    self_draw = rng.random() < 0.4
    has_kong = any(m.kind.is_kong for m in melds)
    heavenly = self_draw and not melds and rng.random() < 0.05
    after_kong = self_draw and has_kong and not heavenly and rng.random() < 0.2
    rob_kong = not self_draw and rng.random() < 0.05 and robbable
    last_tile = not heavenly and not rob_kong and not after_kong and rng.random() < 0.05
    return Situation(
        seat_wind=rng.choice(WINDS),
        round=rng.choice(WINDS),
        self_draw=self_draw,
        last_tile=last_tile,
        after_kong=after_kong,
        rob_kong=rob_kong,
        heavenly=heavenly,
    )


def winning_hands(**knobs):
    """A hypothesis strategy of random legal winning hands, `random_winning_hand(**knobs)` from
    a drawn seed (hypothesis is a test dependency, imported only when this is called)."""
    from hypothesis import strategies as st

    return st.integers(0, 2**64 - 1).map(
        lambda seed: random_winning_hand(random.Random(seed), **knobs))
