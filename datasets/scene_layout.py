"""Where tiles lie on the table, in table units (one tile top is 1 wide, TILE_D deep).

Layouts follow how players show a hand: the concealed row packed tight (touching, gaps of
0-3% of a tile, a little jitter), exposed melds and flowers as separate groups beside it or in
a second row (nearer the camera, or beyond a standing row, which hides part of it), the
winning tile sometimes set apart. Other scene kinds: rows of tiles (like a set laid out for a
photo), loose scattered tiles, and a hand at a table with what surrounds it there: walls of backs
two high, discards in the middle, the other players' rows and melds, an automatic table's centre
console (see `table_scene`), and the eight flowers in a row (`flower_row_scene`). How often each
draw comes up is the recipe's (datasets/recipe.py).
"""

import random
from dataclasses import dataclass

import numpy as np

from datasets.recipe import Recipe
from scoring.hand import Hand
from scoring.melds import GroupKind, GroupRole, MeldKind
from scoring.random_hands import random_winning_hand
from scoring.tiles import FLOWERS, TILE_CODES
from vision.classes import BACK

TILE_D = 1.36  # depth of a lying tile's top, in tile widths
SURROUNDS = ("wall", "discard", "other")  # where tiles at the table lie that are not the player's hand
DISCARDABLE = [c for c in TILE_CODES if c not in FLOWERS]  # flowers are never discarded


@dataclass
class Placed:
    code: str
    group: int
    x: float  # centre of the top face
    y: float
    angle: float  # degrees, in the table plane
    upright: bool = False
    layer: int = 0  # 0 on the table, 1 on top of another tile (a wall's upper row)


@dataclass
class SceneGroup:
    kind: GroupKind  # a hand's group's; UNKNOWN for tiles set apart
    tiles: list[str]
    role: GroupRole = GroupRole.HAND  # APART: a set's rows, scattered tiles, what surrounds the hand at a table
    win_apart: bool = False  # the winning tile laid apart from the concealed row (a concealed group of one)
    surround: str | None = None  # at a table, not the hand: one of SURROUNDS


@dataclass
class SceneLayout:
    kind: str  # a key of Recipe.kinds
    hand: Hand | None  # the hand shown, if any
    groups: list[SceneGroup]
    placed: list[Placed]
    console: tuple | None = None  # (x, y, side, angle) of an automatic table's centre console
    focus: tuple | None = None  # (x0, y0, x1, y1) the photo is centred on; None: every tile


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


def hand_scene(rng: np.random.Generator, recipe: Recipe, standing: float | None = None) -> SceneLayout:
    """A random legal winning hand laid out to be shown; `standing`: the chance its concealed row
    stands (default: the recipe's)."""
    hand = random_winning_hand(random.Random(int(rng.integers(2**62))))
    concealed = sorted(hand.concealed, key=_sort_key)
    if rng.random() < recipe.unsorted_hand:  # not everyone sorts their hand
        concealed = list(rng.permutation(concealed))
    groups: list[SceneGroup] = []
    placed: list[Placed] = []
    win_apart = rng.random() < recipe.win_apart
    row_codes = concealed if win_apart else _insert_sorted(concealed, hand.win, rng)
    upright = rng.random() < (recipe.standing_row if standing is None else standing)

    melds = []
    for m in hand.melds:
        tiles = list(m.tiles)
        if m.kind == MeldKind.ANKONG:  # shown face down: back,face,face,back or four backs
            tiles = [BACK, tiles[1], tiles[2], BACK] if rng.random() < 0.6 else [BACK] * 4
        melds.append(SceneGroup(GroupKind(m.kind), tiles))
    flowers = SceneGroup(GroupKind.FLOWERS, list(hand.flowers)) if hand.flowers else None

    # Main row: [melds beside] concealed [win apart].
    melds_beside = bool(melds) and rng.random() < recipe.melds_beside
    x = 0.0
    if melds_beside:
        for g in melds:
            groups.append(g)
            tiles, x = _row(g.tiles, x, 0.0, rng, len(groups) - 1)
            placed += tiles
            x += rng.uniform(0.15, 0.8)
    groups.append(SceneGroup(GroupKind.CONCEALED, row_codes))
    tiles, x = _row(row_codes, x, 0.0, rng, len(groups) - 1, upright=upright)
    placed += tiles
    if win_apart:
        groups.append(SceneGroup(GroupKind.CONCEALED, [hand.win], win_apart=True))
        tiles, x = _row([hand.win], x + rng.uniform(0.25, 1.0), 0.0, rng, len(groups) - 1,
                        upright=upright)
        placed += tiles
    # Second row for melds and flowers not yet placed.
    second = [] if melds_beside else melds
    if flowers and rng.random() < recipe.flowers_right:  # flowers off to the right of the main row
        groups.append(flowers)
        tiles, _ = _row(flowers.tiles, x + rng.uniform(0.4, 1.5), 0.0, rng, len(groups) - 1)
        placed += tiles
    elif flowers:
        second = second + [flowers]
    if upright and rng.random() < recipe.melds_behind_standing:
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
    return SceneLayout("hand", hand, groups, placed)


def _insert_sorted(tiles, win, rng):
    """The winning tile pushed into the row, at its sorted place or at the end."""
    if rng.random() < 0.5:
        return tiles + [win]
    out = sorted(tiles + [win], key=_sort_key)
    return out


def rows_scene(rng: np.random.Generator, recipe: Recipe) -> SceneLayout:
    """2-5 packed rows of random tiles (a set laid out for a photo)."""
    groups, placed = [], []
    y = 0.0
    for _ in range(int(rng.integers(2, 6))):
        n = int(rng.integers(4, 18))
        codes = [_random_code(rng) for _ in range(n)]
        groups.append(_apart(codes))
        tiles, _ = _row(codes, rng.uniform(-1, 1), y, rng, len(groups) - 1)
        placed += tiles
        y += TILE_D + rng.uniform(0.05, 0.6)
    return SceneLayout("rows", None, groups, placed)


def loose_scene(rng: np.random.Generator, recipe: Recipe) -> SceneLayout:
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
            groups.append(_apart([code]))
            angle = rng.uniform(-180, 180) if rng.random() < 0.5 else rng.normal(0, 10)
            placed.append(Placed(code, len(groups) - 1, x, y, angle))
    return SceneLayout("loose", None, groups, placed)


def flower_row_scene(rng: np.random.Generator, recipe: Recipe) -> SceneLayout:
    """The eight flowers of a set in one packed row, in any order: the photo a table takes to teach the app
    its set ("teach this set", ui/teach_page.py)."""
    codes = [str(c) for c in rng.permutation(FLOWERS)]
    tiles, _ = _row(codes, 0.0, 0.0, rng, 0)
    return SceneLayout("flower_row", None, [_apart(codes)], tiles)


def _apart(codes: list[str], surround: str | None = None) -> SceneGroup:
    """Tiles that are not the hand's: a set's row, a loose tile, or (`surround`) a wall, discards, another
    player's tiles."""
    return SceneGroup(GroupKind.UNKNOWN, codes, GroupRole.APART, surround=surround)


def _random_code(rng):
    return BACK if rng.random() < 0.05 else TILE_CODES[int(rng.integers(len(TILE_CODES)))]




def _wall(rng, recipe, x0, y0, dx, dy, angle, group):
    """A wall of backs two high: stacks from (x0, y0) one tile width apart along (dx, dy)."""
    lo, hi = recipe.wall_stacks
    n = int(rng.integers(lo, hi + 1))
    gone = set()
    if rng.random() < recipe.wall_gap:  # where the deal or the draws broke the wall
        start = int(rng.integers(n))
        gone = set(range(start, start + int(rng.integers(1, 5))))
    out = []
    for i in range(n):
        if i in gone:
            continue
        x, y = x0 + i * dx * 1.01, y0 + i * dy * 1.01
        a = angle + rng.normal(0, 1.0)
        out.append(Placed(BACK, group, x, y, a))
        if rng.random() >= recipe.missing_top:
            out.append(Placed(BACK, group, x, y, a, layer=1))
    return out


def _discards_in_rows(rng, n, cx, cy, inner, seat_angle, group):
    """A player's discards in rows of six, in front of the centre on their side, turned to them."""
    a = np.deg2rad(seat_angle)
    c, s = np.cos(a), np.sin(a)
    out = []
    for k in range(n):
        row, col = divmod(k, 6)
        # Seat frame: x along the player's row, y toward the player (the camera's seat is +y).
        lx = -3 + col * 1.02 + 0.5 + rng.normal(0, 0.04)
        ly = inner + TILE_D / 2 + row * (TILE_D + 0.06) + rng.normal(0, 0.04)
        out.append(Placed(_discard_code(rng), group, cx + c * lx - s * ly, cy + s * lx + c * ly,
                          seat_angle + rng.normal(0, 3)))
    return out


def _discard_code(rng):
    return DISCARDABLE[int(rng.integers(len(DISCARDABLE)))]


def table_scene(rng: np.random.Generator, recipe: Recipe) -> SceneLayout:
    """The player's hand at a table, seen from their chair, with what surrounds it: their wall of
    backs beyond the hand, the side and far walls, discards around the centre (an automatic
    table's console there), the opposite player's standing row (backs) and the others' melds.
    The player sits at +y; the hand is at y ~ 0 and the table's centre at -y."""
    if rng.random() < recipe.table_hand:
        lay = hand_scene(rng, recipe, standing=recipe.table_standing)
    else:
        lay = SceneLayout("table", None, [], [])
    groups, placed = lay.groups, lay.placed
    if placed:
        xs, ys = np.array([p.x for p in placed]), np.array([p.y for p in placed])
        hand_box = (xs.min() - 0.5, ys.min() - TILE_D / 2, xs.max() + 0.5, ys.max() + TILE_D / 2)
    else:
        hand_box = (0.0, 0.0, 16.0, TILE_D)
    side = rng.uniform(*recipe.table_side)
    cx = (hand_box[0] + hand_box[2]) / 2 + rng.normal(0, 1.5)
    wall_y = hand_box[1] - TILE_D / 2 - rng.uniform(0.6, 2.5)  # own wall, beyond the hand
    cy = wall_y - side / 2
    console = None
    if rng.random() < recipe.console:
        console = (cx, cy, rng.uniform(4.5, 7.0), rng.normal(0, 2))

    def add(surround, tiles):
        groups.append(_apart([p.code for p in tiles], surround))
        for p in tiles:
            p.group = len(groups) - 1
        placed.extend(tiles)

    half = side / 2
    if rng.random() < recipe.own_wall:
        add("wall", _wall(rng, recipe, cx - 9 + rng.uniform(-1.5, 1.5), wall_y, 1, 0, 0, -1))
    if rng.random() < recipe.far_wall:
        add("wall", _wall(rng, recipe, cx + 9 + rng.uniform(-1.5, 1.5), wall_y - side, -1, 0, 180, -1))
    if rng.random() < recipe.side_walls:
        for sign in (-1, 1):  # left wall runs away from the player, the right one toward them
            y0 = wall_y - 1.5 if sign < 0 else wall_y - side + 1.5
            add("wall", _wall(rng, recipe, cx + sign * half, y0, 0, sign, 90 * sign, -1))
    if rng.random() < recipe.discards:
        n = int(rng.integers(recipe.discard_count[0], recipe.discard_count[1] + 1))
        inner = (console[2] / 2 if console else 1.0) + rng.uniform(0.2, 0.8)
        if rng.random() < recipe.discards_in_rows:
            for seat, share in zip((0, -90, 180, 90), rng.dirichlet(np.ones(4) * 3), strict=True):
                tiles = _discards_in_rows(rng, min(18, int(round(n * share))), cx, cy, inner, seat, -1)
                if tiles:
                    add("discard", tiles)
        else:
            add("discard", _scattered_discards(rng, n, cx, cy, half - 2.0, inner))
    if rng.random() < recipe.opposite_row:
        tiles, _ = _row([BACK] * int(rng.integers(13, 18)), cx - 8 + rng.uniform(-1, 1),
                        wall_y - side - rng.uniform(1.6, 3.0), rng, -1, upright=True)
        add("other", tiles)
    if rng.random() < recipe.other_melds:
        for sign in (-1, 1):
            if rng.random() < 0.6:
                x = cx + sign * (half + rng.uniform(1.6, 3.0))
                y0 = cy + rng.uniform(-half / 2, half / 2)
                n = 3 if rng.random() < 0.8 else 4
                code = _discard_code(rng)
                add("other", [Placed(code, -1, x, y0 + i * 1.02 * sign, 90 * sign + rng.normal(0, 2))
                              for i in range(n)])
    # Centre the photo on the hand and some of the table beyond it, as a player takes it.
    beyond = rng.uniform(1.0, 0.7 * side)
    focus = (hand_box[0], hand_box[1] - beyond, hand_box[2], hand_box[3])
    return SceneLayout("table", lay.hand, groups, placed, console, focus)


def _scattered_discards(rng, n, cx, cy, reach, inner):
    """Discards thrown anywhere in the middle at any angle, around the console, not overlapping."""
    out = []
    for _ in range(n * 10):
        if len(out) == n:
            break
        x, y = cx + rng.uniform(-reach, reach), cy + rng.uniform(-reach, reach)
        if max(abs(x - cx), abs(y - cy)) < inner:
            continue
        if all((p.x - x) ** 2 + (p.y - y) ** 2 > 1.75**2 for p in out):
            out.append(Placed(_discard_code(rng), -1, x, y, rng.uniform(-180, 180)))
    return out


def clutter_scene(rng: np.random.Generator, recipe: Recipe) -> SceneLayout:
    """No tiles at all: only what else lies on a table (the renderer draws the clutter)."""
    return SceneLayout("clutter", None, [], [])


def negative_scene(rng: np.random.Generator, recipe: Recipe) -> SceneLayout:
    return SceneLayout("negative", None, [], [])


SCENE_KINDS = {"hand": hand_scene, "rows": rows_scene, "loose": loose_scene, "negative": negative_scene,
               "table": table_scene, "clutter": clutter_scene, "flower_row": flower_row_scene}


def layout(rng: np.random.Generator, recipe: Recipe) -> SceneLayout:
    """One scene's tiles on the table, its kind drawn with the recipe's weights."""
    names = [n for n in SCENE_KINDS if recipe.kinds.get(n, 0) > 0]
    p = np.array([recipe.kinds[n] for n in names])
    kind = names[int(rng.choice(len(names), p=p / p.sum()))]
    return SCENE_KINDS[kind](rng, recipe)
