"""Where tiles lie on the table, in table units (one tile top is 1 wide, TILE_D deep).

Layouts follow how players show a hand: the concealed row packed tight (touching, gaps of
0-3% of a tile, a little jitter), exposed melds and flowers as separate groups beside it or in
a second row (nearer the camera, or beyond a standing row, which hides part of it), the
winning tile sometimes set apart. Other scene kinds: rows of tiles (like a set laid out for a
photo) and loose scattered tiles.
"""

import random
from dataclasses import dataclass

import numpy as np

from scoring.random_hands import random_winning_hand
from scoring.tiles import TILE_CODES
from vision.classes import BACK

TILE_D = 1.36  # depth of a lying tile's top, in tile widths


@dataclass
class Placed:
    code: str
    group: int
    x: float  # centre of the top face
    y: float
    angle: float  # degrees, in the table plane
    upright: bool = False


@dataclass
class Group:
    kind: str  # concealed | chi | pon | kong | ankong | flowers | win | loose
    tiles: list[str]


def _row(codes, x0, y0, rng, group, packed=True, upright=False):
    """Tiles side by side from x0; packed rows touch with 0-3% gaps."""
    out, x = [], x0
    tilt = rng.normal(0, 1.0)
    for code in codes:
        jitter_y = rng.normal(0, 0.015)
        out.append(Placed(code, group, x + 0.5, y0 + jitter_y + (x - x0) * np.tan(np.deg2rad(tilt)),
                          tilt + rng.normal(0, 0.8), upright))
        x += 1 + (rng.uniform(0, 0.03) if packed else rng.uniform(0.05, 0.4))
    return out, x


def _sort_key(code):
    return TILE_CODES.index(code) if code in TILE_CODES else len(TILE_CODES)


def hand_scene(rng: np.random.Generator):
    """A random legal winning hand laid out to be shown. Returns (hand JSON, groups, tiles)."""
    hand = random_winning_hand(random.Random(int(rng.integers(2**62))))
    concealed = sorted(hand.concealed, key=_sort_key)
    if rng.random() < 0.25:  # not everyone sorts their hand
        concealed = list(rng.permutation(concealed))
    groups: list[Group] = []
    placed: list[Placed] = []
    win_apart = rng.random() < 0.5
    row_codes = concealed if win_apart else _insert_sorted(concealed, hand.win, rng)
    upright = rng.random() < 0.15

    melds = []
    for m in hand.melds:
        tiles = list(m.tiles)
        if m.kind == "ankong":  # shown face down: back,face,face,back or four backs
            tiles = [BACK, tiles[1], tiles[2], BACK] if rng.random() < 0.6 else [BACK] * 4
        melds.append(Group(m.kind, tiles))
    flowers = Group("flowers", list(hand.flowers)) if hand.flowers else None

    # Main row: [melds beside] concealed [win apart].
    melds_beside = bool(melds) and rng.random() < 0.4
    x = 0.0
    if melds_beside:
        for g in melds:
            groups.append(g)
            tiles, x = _row(g.tiles, x, 0.0, rng, len(groups) - 1)
            placed += tiles
            x += rng.uniform(0.15, 0.8)
    groups.append(Group("concealed", row_codes))
    tiles, x = _row(row_codes, x, 0.0, rng, len(groups) - 1, upright=upright)
    placed += tiles
    if win_apart:
        groups.append(Group("win", [hand.win]))
        tiles, x = _row([hand.win], x + rng.uniform(0.25, 1.0), 0.0, rng, len(groups) - 1,
                        upright=upright)
        placed += tiles
    # Second row for melds and flowers not yet placed.
    second = [] if melds_beside else melds
    if flowers and rng.random() < 0.3:  # flowers off to the right of the main row
        groups.append(flowers)
        tiles, _ = _row(flowers.tiles, x + rng.uniform(0.4, 1.5), 0.0, rng, len(groups) - 1)
        placed += tiles
    elif flowers:
        second = second + [flowers]
    if upright and rng.random() < 0.5:
        # Melds laid out beyond a standing row, as seen from the player's seat: the standing
        # tiles hide their near part, some of them mostly.
        y = -rng.uniform(1.0, 2.2)
    else:
        y = TILE_D * (1.3 if upright else 1.0) + rng.uniform(0.15, 0.9)
    x = rng.uniform(-0.5, 3.0)
    for g in second:
        groups.append(g)
        tiles, x = _row(g.tiles, x, y, rng, len(groups) - 1)
        placed += tiles
        x += rng.uniform(0.2, 1.0)
    return hand.to_json(), groups, placed


def _insert_sorted(tiles, win, rng):
    """The winning tile pushed into the row, at its sorted place or at the end."""
    if rng.random() < 0.5:
        return tiles + [win]
    out = sorted(tiles + [win], key=_sort_key)
    return out


def rows_scene(rng: np.random.Generator):
    """2-5 packed rows of random tiles (a set laid out for a photo)."""
    groups, placed = [], []
    y = 0.0
    for _ in range(int(rng.integers(2, 6))):
        n = int(rng.integers(4, 18))
        codes = [_random_code(rng) for _ in range(n)]
        groups.append(Group("loose", codes))
        tiles, _ = _row(codes, rng.uniform(-1, 1), y, rng, len(groups) - 1)
        placed += tiles
        y += TILE_D + rng.uniform(0.05, 0.6)
    return None, groups, placed


def loose_scene(rng: np.random.Generator):
    """Single tiles scattered at any angle (each its own group), not overlapping."""
    n = int(rng.integers(2, 16))
    spread = np.sqrt(n) * 2.2
    groups, placed = [], []
    for _ in range(n * 10):
        if len(placed) == n:
            break
        x, y = rng.uniform(0, spread, 2)
        if all((p.x - x) ** 2 + (p.y - y) ** 2 > 1.8**2 for p in placed):
            code = _random_code(rng)
            groups.append(Group("loose", [code]))
            angle = rng.uniform(-180, 180) if rng.random() < 0.5 else rng.normal(0, 10)
            placed.append(Placed(code, len(groups) - 1, x, y, angle))
    return None, groups, placed


def _random_code(rng):
    return BACK if rng.random() < 0.05 else TILE_CODES[int(rng.integers(len(TILE_CODES)))]


SCENE_KINDS = {"hand": (hand_scene, 0.72), "rows": (rows_scene, 0.12), "loose": (loose_scene, 0.13),
               "negative": (lambda rng: (None, [], []), 0.03)}


def layout(rng: np.random.Generator):
    """(scene kind, hand JSON or None, groups, placed tiles)."""
    names = list(SCENE_KINDS)
    p = np.array([SCENE_KINDS[n][1] for n in names])
    kind = names[int(rng.choice(len(names), p=p / p.sum()))]
    return (kind, *SCENE_KINDS[kind][0](rng))
