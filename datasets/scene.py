"""Render one synthetic photo: layout -> tile sprites -> camera -> console and clutter -> shadows ->
(printout) -> occluders. Every random draw's odds are the recipe's (datasets/recipe.py).

Every tile is warped straight from its sprite into the image by one homography (sprite ->
table -> image; a printout adds scene -> page -> photo to its outline), so its label box is
exactly the box of its warped outline (the convex hull of the drawn sprite), cut to the frame,
or the box of what shows when a tile in front hides part of it. A tile is labelled when >= 40%
of it is visible. Clutter (keyboards, phones, dice, paper ...) is never labelled and never covers
a tile; a wall's upper tiles stand one tile thickness above the lower ones, which then show only
their front edge and go unlabelled.
"""

from dataclasses import replace

import cv2
import numpy as np

from datasets import clutter, occluders
from datasets import tile_bodies as tb
from datasets.backgrounds import background
from datasets.camera import apply, sample_camera, sample_size, sample_tile_px
from datasets.printout import printout
from datasets.recipe import Recipe
from datasets.scene_layout import TILE_D, Placed, layout
from datasets.scene_truth import SceneTruth, TruthGroup
from datasets.styles import SceneSet, pick_style
from vision.classes import BACK, CLASS_INDEX

MIN_VISIBLE = 0.4
DEFAULT_RECIPE = Recipe()
NEIGHBOUR_HIDES = 0.95  # a tile showing less of itself than this gets the box of what shows


def _affine(tx=0.0, ty=0.0, angle=0.0, scale=1.0):
    a = np.deg2rad(angle)
    c, s = np.cos(a) * scale, np.sin(a) * scale
    return np.array([[c, -s, tx], [s, c, ty], [0, 0, 1]])


def _sprite_to_image(p, sprite_h, top_h, cam, squash=1.0):
    """3x3 map from sprite pixels to image pixels for a lying or standing tile; `squash` < 1
    foreshortens a standing face that leans back, seen from above."""
    if not p.upright:
        to_plane = _affine(p.x, p.y, p.angle) @ _affine(scale=1 / tb.TOP_W) @ _affine(
            -tb.TOP_W / 2, -top_h / 2
        )
        return cam.H @ to_plane
    # Standing tile: its face is seen head-on, so it is not foreshortened by the table's tilt;
    # it stands on its front edge point, scaled and turned like the table there.
    a = np.deg2rad(p.angle)
    foot = np.array([[p.x, p.y + TILE_D / 2], [p.x + np.cos(a), p.y + TILE_D / 2 + np.sin(a)]])
    q0, q1 = apply(cam.H, foot)
    d = q1 - q0
    return (_affine(*q0, np.degrees(np.arctan2(d[1], d[0])), np.hypot(*d) / tb.TOP_W) @ np.diag([1, squash, 1])
            @ _affine(-tb.TOP_W / 2, -sprite_h))


def half_turned(placed: list[Placed]) -> list[Placed]:
    """The tiles turned half a turn on the table about the middle of their extent: laid out from the other side."""
    if not placed:
        return placed
    xs, ys = [p.x for p in placed], [p.y for p in placed]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return [replace(p, x=2 * cx - p.x, y=2 * cy - p.y) for p in placed]


def _local_scale(M, pt):
    q = apply(M, np.array([pt, [pt[0] + 1, pt[1]], [pt[0], pt[1] + 1]]))
    return max(np.hypot(*(q[1] - q[0])), np.hypot(*(q[2] - q[0])))


def _blend(img, sprite, M, poly, light):
    """Alpha-composite a warped sprite (premultiplied, so edges do not go dark)."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(poly.min(0)).astype(int) - 1
    x1, y1 = np.ceil(poly.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    pre = sprite.copy()
    pre[:, :, :3] *= sprite[:, :, 3:] * (light / 255)
    warped = cv2.warpPerspective(pre, _affine(-x0, -y0) @ M, (x1 - x0, y1 - y0),
                                 flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = warped[:, :, 3:] / 255
    roi = img[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + warped[:, :, :3]


def visibility(polys: list[np.ndarray], w: int, h: int, occluder: np.ndarray | None,
               frame: np.ndarray | None = None):
    """Per tile, in draw order: (fraction visible, xyxy box of what shows).

    `frame` is the convex part of the w x h photo the scene shows in (all of it, or the printed
    picture of a printout). Tiles, cut to it, are rasterised in draw order into an id buffer, so
    what a later tile covers (a standing row in front of the melds behind it, the next row over
    a front edge) is hidden, as is what lies outside the frame or under the occluder. A box
    shrinks to the pixels that show only when neighbours hide a real part of the tile; otherwise
    it is the exact box of the outline's part in the frame."""
    if frame is None:
        frame = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    cut = []
    for poly in polys:
        inside, part = cv2.intersectConvexConvex(poly.astype(np.float32), frame.astype(np.float32))
        cut.append(part.reshape(-1, 2) if part is not None and inside > 0 else None)
    ids = np.zeros((h, w), np.int32)
    fixed = [None if c is None else np.round(c * 16).astype(np.int32) for c in cut]  # 4 bits of sub-pixel
    for k, pts in enumerate(fixed):
        if pts is not None:
            cv2.fillConvexPoly(ids, pts, k + 1, cv2.LINE_8, 4)
    own = np.bincount(ids.ravel(), minlength=len(polys) + 1)[1:]
    shown = own.copy()
    if occluder is not None:
        shown -= np.bincount(ids[occluder > 0.5], minlength=len(polys) + 1)[1:]
    out = []
    for k, (poly, part) in enumerate(zip(polys, cut, strict=True)):
        area = cv2.contourArea(poly.astype(np.float32))
        if area <= 0 or part is None or own[k] == 0:
            out.append((0.0, None))
            continue
        x0, y0 = np.clip(part.min(0), 0, [w, h])
        x1, y1 = np.clip(part.max(0), 0, [w, h])
        # Pixel counts against the tile's own raster (a raster overcounts small areas).
        bx0, by0 = (np.floor([x0, y0]).astype(int) - 1).clip(0)
        bx1, by1 = int(np.ceil(x1)) + 1, int(np.ceil(y1)) + 1
        alone = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        cv2.fillConvexPoly(alone, fixed[k] - [bx0 * 16, by0 * 16], 1, cv2.LINE_8, 4)
        raster = max(int(alone.sum()), own[k])
        if own[k] < NEIGHBOUR_HIDES * raster:
            ys, xs = np.nonzero(ids[by0:by1, bx0:bx1] == k + 1)
            x0, y0 = max(x0, bx0 + xs.min()), max(y0, by0 + ys.min())
            x1, y1 = min(x1, bx0 + xs.max() + 1.0), min(y1, by0 + ys.max() + 1.0)
        in_frame = cv2.contourArea(part.astype(np.float32))
        out.append((in_frame / area * shown[k] / raster, (float(x0), float(y0), float(x1), float(y1))))
    return out


def _in_view(cam, x, y, reach=1.0):
    """Whether table point (x, y) is in front of the camera and within a few tiles of the frame,
    and a tile there is at least 2 px wide: other tiles are not drawn (a table runs far)."""
    corners = np.array([[x - reach, y - reach, 1], [x + reach, y - reach, 1], [x + reach, y + reach, 1],
                        [x - reach, y + reach, 1]]).T
    if (cam.H @ corners)[2].min() <= 1e-3:
        return False
    s = _local_scale(cam.H, (x, y))
    (u, v), = apply(cam.H, np.array([[x, y]]))
    m = 3 * s * reach
    return s >= 2 and -m <= u <= cam.width + m and -m <= v <= cam.height + m


def _place_flat(img, sprite, cam, x, y, angle, res, occupied):
    """Draw a sprite lying on the table at (x, y) if it covers nothing in `occupied` (a tile or
    earlier clutter); marks what it covers. Returns whether it was drawn."""
    h, w = sprite.shape[:2]
    M = cam.H @ _affine(x, y, angle) @ _affine(scale=1 / res) @ _affine(-w / 2, -h / 2)
    corners = M @ np.array([[0, w, w, 0], [0, 0, h, h], [1, 1, 1, 1]], np.float64)
    if corners[2].min() <= 1e-3:
        return False
    poly = apply(M, tb.hull(sprite))
    mask = np.zeros(occupied.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(poly).astype(np.int32), 1, cv2.LINE_8)
    if not mask.any() or (mask & occupied).any():
        return False
    _blend(img, sprite, M, poly, 1.0)
    occupied |= cv2.dilate(mask, np.ones((5, 5), np.uint8))
    return True


def _draw_clutter(rng, img, cam, recipe, occupied, force):
    """The recipe's clutter, each kind with its probability (`force`: at least two kinds), put
    where the photo shows table and no tile lies. Returns the kinds drawn."""
    kinds = [k for k, p in recipe.clutter.items() if rng.random() < p]
    if force and len(kinds) < 2:
        pool = [k for k, p in recipe.clutter.items() if p > 0] or list(clutter.MAKERS)
        kinds = list(rng.choice(pool, size=min(len(pool), int(rng.integers(2, 4))), replace=False))
    to_table = np.linalg.inv(cam.H)
    rise = cam.edge / 0.7  # side shown per unit of height, as a tile's edge
    drawn = []
    for kind in kinds:
        for _ in range(6):  # a few tries for a free spot in view
            q = to_table @ [rng.uniform(0, cam.width), rng.uniform(0, cam.height), 1]
            if q[2] <= 1e-9:
                continue
            x, y = q[:2] / q[2]
            res = float(np.clip(_local_scale(cam.H, (x, y)) * 1.2, 6, 64))
            pieces = clutter.MAKERS[kind](rng, res, rise)
            spin = (lambda: rng.uniform(-180, 180)) if kind in clutter.FLAT else (lambda: rng.normal(0, 8))
            placed = [_place_flat(img, pieces[0], cam, x, y, spin(), res, occupied)]
            for piece in pieces[1:]:  # chips and dice lie near each other
                dx, dy = rng.normal(0, 1.3, 2)
                placed.append(_place_flat(img, piece, cam, x + dx, y + dy, spin(), res, occupied))
            if any(placed):
                drawn.append(str(kind))
                break
    return drawn


def _draw_console(rng, img, cam, console, occupied):
    """An automatic table's centre console, if the camera sees it."""
    x, y, side, angle = console
    if not _in_view(cam, x, y, side / 2):
        return False
    res = float(np.clip(_local_scale(cam.H, (x, y)) * 1.2, 6, 64))
    sprite = clutter.console(rng, res, cam.edge / 0.7, side)
    n = int(side * res)  # the sprite's top square; its raised side hangs below it
    M = cam.H @ _affine(x, y, angle) @ _affine(scale=1 / res) @ _affine(-n / 2, -n / 2)
    poly = apply(M, tb.hull(sprite))
    _blend(img, sprite, M, poly, 1.0)
    cv2.fillConvexPoly(occupied, np.round(poly).astype(np.int32), 1, cv2.LINE_8)
    return True


RACK_COLOURS = ((40, 75, 120), (30, 30, 32), (120, 70, 30), (50, 100, 40), (70, 120, 170))  # BGR


def _rack_faces(rng, cam, placed):
    """A rack in front of the standing row, nearer than every tile: its top and front face as
    image quads (a height z shows as the table point z x rise farther, as a wall's upper row
    does), or [] when no row stands or tiles lie in front of it."""
    standing = [p for p in placed if p.upright and p.code != BACK]
    if not standing:
        return []
    back = max(p.y for p in standing) + TILE_D / 2 + rng.uniform(0.03, 0.2)
    if any(p.y + TILE_D / 2 > back for p in placed if not p.upright):
        return []
    x0 = min(p.x for p in standing) - rng.uniform(0.3, 0.8)
    x1 = max(p.x for p in standing) + rng.uniform(0.3, 0.8)
    front, lift = back + rng.uniform(0.5, 1.0), rng.uniform(0.35, 0.8) * cam.edge / 0.7
    top = [[x0, back - lift], [x1, back - lift], [x1, front - lift], [x0, front - lift]]
    face = [[x0, front - lift], [x1, front - lift], [x1, front], [x0, front]]
    return [apply(cam.H, np.array(q, np.float64)) for q in (top, face)]


def _draw_rack(rng, img, faces):
    colour = np.float32(RACK_COLOURS[int(rng.integers(len(RACK_COLOURS)))]) * rng.uniform(0.8, 1.2)
    for quad, shade in zip(faces, (1.0, 0.72), strict=True):
        cv2.fillConvexPoly(img, np.round(quad * 16).astype(np.int32), (colour * shade).tolist(), cv2.LINE_AA, 4)


def _occluder(rng, img, cam):
    """A hand reaching in or a cup on the table; returns its coverage mask (0..1)."""
    if rng.random() < 0.5:
        return occluders.hand(rng, img, cam.tile_px)
    return occluders.cup(rng, img, cam.tile_px, float(np.cos(np.deg2rad(cam.tilt))))


def _glare(rng, img, cam):
    """A lamp's specular spot: a small, nearly white, soft highlight (albumentations has only
    broad illumination and sun flares)."""
    h, w = img.shape[:2]
    cx, cy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
    r = cam.tile_px * rng.uniform(0.3, 1.5)
    yy, xx = np.ogrid[:h, :w]
    spot = np.exp(-((xx - cx) ** 2 + ((yy - cy) / rng.uniform(0.4, 1)) ** 2) / (2 * r * r))
    img += (rng.uniform(120, 255) * spot)[:, :, None].astype(np.float32)


def render_scene(rng: np.random.Generator, which: str = "train", long_side: int = 640,
                 recipe: Recipe | None = None, tile_set: SceneSet | None = None, facing_away: bool = False):
    """One scene: (BGR uint8 image, labels [(class index, x0, y0, x1, y1)], its SceneTruth), drawn
    with `recipe` (default: DEFAULT_RECIPE), its tiles of `tile_set` when given (one physical set
    photographed all evening: training/evening.py), else of a set drawn from the `which` styles.
    `facing_away`: the tiles laid out by a player across the table from the camera (`half_turned`), their faces
    upside down in the photo and their near edges toward the camera as ever."""
    recipe = recipe or DEFAULT_RECIPE
    width, height = sample_size(rng, long_side, recipe.aspects)
    lay = layout(rng, recipe)
    kind, placed = lay.kind, half_turned(lay.placed) if facing_away else lay.placed
    sets = [tile_set or SceneSet(pick_style(rng, which), rng)]
    if tile_set is None and kind in ("rows", "loose") and rng.random() < recipe.second_set:
        sets.append(SceneSet(pick_style(rng, which), rng))
    table = kind == "table"
    tile_px = sample_tile_px(rng, long_side, recipe.table_tile_px_bands if table else recipe.tile_px_bands)
    if lay.focus:
        extent = lay.focus
    elif placed:
        xs = np.array([p.x for p in placed])
        ys = np.array([p.y for p in placed])
        extent = (xs.min() - 0.5, ys.min() - TILE_D / 2, xs.max() + 0.5, ys.max() + TILE_D / 2)
    else:
        extent = (0, 0, 1, 1)
    cam = sample_camera(rng, width, height, tile_px, extent, recipe.table_tilt_bands if table else recipe.tilt_bands)
    img, surface = background(rng, height, width, cam, recipe.surfaces)
    # Clutter draws from its own generator, so a scene's tiles come out the same with or without it.
    clutter_rng = np.random.default_rng(int(rng.integers(2**63)))

    edge = cam.edge if rng.random() < recipe.lying_edge else 0.0
    squash = rng.uniform(*recipe.standing_squash)
    tiles = []  # (placed, sprite, sprite->image map, image outline, brightness)
    stand_edge = rng.uniform(0.12, 0.35)  # how much of a standing tile's top shows
    bodies, shrunk = {}, {}  # tiles of one set, code and pose share their sprite (a table has many backs)
    for p in placed:
        tile_set = sets[int(rng.integers(len(sets)))]
        light = rng.uniform(0.92, 1.05)
        # A wall's upper tile lies one tile thickness higher: seen from the camera, it shifts
        # away by the thickness the front edge shows.
        at = replace(p, y=p.y - p.layer * edge)
        if not _in_view(cam, at.x, at.y):
            continue
        top = tile_set.top(p.code, rng)
        if facing_away:
            top = np.ascontiguousarray(top[::-1, ::-1])
        key = (id(tile_set), p.code, p.upright)
        if key not in bodies:
            sprite = tb.with_thickness(top, tile_set.palette, stand_edge if p.upright else edge, p.upright,
                                       p.code == BACK)
            bodies[key] = sprite, tb.hull(sprite)
        sprite, outline = bodies[key]
        M = _sprite_to_image(at, sprite.shape[0], top.shape[0], cam, squash)
        poly = apply(M, outline)
        # Shrink big sprites before warping to small sizes (bilinear warps alias otherwise), in
        # steps of a quarter octave so that far tiles of one code share the shrunk sprite.
        s = _local_scale(M, (tb.TOP_W / 2, top.shape[0] / 2))
        if s < 0.7:
            f = min(1.0, 2 ** (np.ceil(4 * np.log2(s * 1.5)) / 4))
            small = (*key, f)
            if small not in shrunk:
                shrunk[small] = cv2.resize(sprite, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            sprite = shrunk[small]
            M = M @ _affine(scale=1 / f)
        tiles.append((p, sprite, M, poly, light))
    # Far to near on the table (small y is far, whatever the photo's roll), so nearer tiles and a
    # standing row cover what lies beyond them, and a wall's upper row its lower one.
    tiles.sort(key=lambda t: (t[0].y, t[0].layer, t[0].upright))

    occupied = np.zeros((height, width), np.uint8)
    for _, _, _, poly, _ in tiles:
        cv2.fillConvexPoly(occupied, np.round(poly).astype(np.int32), 1, cv2.LINE_8)
    occupied = cv2.dilate(occupied, np.ones((5, 5), np.uint8))
    rack = _rack_faces(rng, cam, placed) if rng.random() < recipe.rack else []
    for quad in rack:
        cv2.fillConvexPoly(occupied, np.round(quad).astype(np.int32), 1, cv2.LINE_8)
    console = lay.console is not None and _draw_console(clutter_rng, img, cam, lay.console, occupied)
    things = _draw_clutter(clutter_rng, img, cam, recipe, occupied, force=kind == "clutter")

    # Cast shadows, from one light for the whole scene.
    if tiles:
        shadow = np.zeros((height, width), np.float32)
        off = rng.normal(0, 1, 2)
        off = off / (np.linalg.norm(off) + 1e-6) * cam.tile_px * rng.uniform(0.03, 0.18)
        for _, _, _, poly, _ in tiles:
            cv2.fillConvexPoly(shadow, np.round(poly + off).astype(np.int32), 1.0, cv2.LINE_AA)
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(0.8, cam.tile_px * rng.uniform(0.03, 0.12)))
        img *= (1 - rng.uniform(0.25, 0.55) * shadow)[:, :, None]
    for _, sprite, M, poly, light in tiles:
        _blend(img, sprite, M, poly, light)
    if rack:
        _draw_rack(rng, img, rack)
    polys, frame = [t[3] for t in tiles] + rack, None  # the rack, drawn last, hides what is behind it
    if rng.random() < recipe.printout:
        img, to_photo = printout(rng, img, background(rng, height, width, cam, recipe.surfaces)[0])
        polys = [apply(to_photo, poly) for poly in polys]
        printed = apply(to_photo, np.float32([[0, 0], [width, 0], [width, height], [0, height]]))
        photo = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
        frame = cv2.intersectConvexConvex(printed.astype(np.float32), photo)[1].reshape(-1, 2)
    if tiles and rng.random() < recipe.glare:
        _glare(rng, img, cam)
    occluder = _occluder(rng, img, cam) if rng.random() < recipe.occluder else None

    labels, rows = [], {}
    seen = visibility(polys, width, height, occluder, frame)[: len(tiles)]
    for (p, *_), (frac, box) in zip(tiles, seen, strict=True):
        if frac >= MIN_VISIBLE and box[2] - box[0] >= 2 and box[3] - box[1] >= 2:
            rows[id(p)] = len(labels)
            labels.append((CLASS_INDEX[p.code], *box))
    by_group = {}
    for p in placed:
        by_group.setdefault(p.group, []).append(rows.get(id(p)))
    groups = [TruthGroup(g.kind, tuple(g.tiles), tuple(by_group.get(i, [])), g.role, g.win_apart, g.surround)
              for i, g in enumerate(lay.groups)]
    truth = SceneTruth(
        kind=kind,
        hand=lay.hand,
        # The hand's groups (or a set's rows, loose tiles); the tiles around it at a table (walls,
        # discards, the other players' rows and melds) are its surround: not the hand.
        groups=tuple(g for g in groups if g.surround is None),
        surround=tuple(g for g in groups if g.surround is not None),
        clutter=tuple(things),
        console=bool(console),
        style=tuple(s.style.name for s in sets),
        surface=surface,
        width=width,
        height=height,
        tile_px=round(tile_px, 1),
        tilt=round(cam.tilt, 1),
        roll=round(cam.roll, 1),
        upright=any(p.upright for p in placed),
        occluder=occluder is not None,
        rack=bool(rack),
    )
    return np.clip(img, 0, 255).astype(np.uint8), labels, truth
