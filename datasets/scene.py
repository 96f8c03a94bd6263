"""Render one synthetic photo: layout -> tile sprites -> camera -> shadows -> (printout) -> occluders.

Every tile is warped straight from its sprite into the image by one homography (sprite ->
table -> image; a printout adds scene -> page -> photo to its outline), so its label box is
exactly the box of its warped outline (the convex hull of the drawn sprite), cut to the frame,
or the box of what shows when a tile in front hides part of it. A tile is labelled when >= 40%
of it is visible.
"""

import cv2
import numpy as np

from datasets import occluders
from datasets import tile_bodies as tb
from datasets.backgrounds import background
from datasets.camera import apply, sample_camera, sample_size, sample_tile_px
from datasets.printout import printout
from datasets.scene_layout import TILE_D, layout
from datasets.styles import SceneSet, pick_style
from vision.classes import BACK, CLASS_INDEX

MIN_VISIBLE = 0.4
PRINTOUT = 0.05  # share of scenes that are photos of a printed photo
NEIGHBOUR_HIDES = 0.95  # a tile showing less of itself than this gets the box of what shows


def _affine(tx=0.0, ty=0.0, angle=0.0, scale=1.0):
    a = np.deg2rad(angle)
    c, s = np.cos(a) * scale, np.sin(a) * scale
    return np.array([[c, -s, tx], [s, c, ty], [0, 0, 1]])


def _sprite_to_image(p, sprite_h, top_h, cam):
    """3x3 map from sprite pixels to image pixels for a lying or standing tile."""
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
    return _affine(*q0, np.degrees(np.arctan2(d[1], d[0])), np.hypot(*d) / tb.TOP_W) @ _affine(
        -tb.TOP_W / 2, -sprite_h
    )


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


def render_scene(rng: np.random.Generator, which: str = "train", long_side: int = 640):
    """One scene: (BGR uint8 image, labels [(class index, x0, y0, x1, y1)], scene truth)."""
    width, height = sample_size(rng, long_side)
    kind, hand, groups, placed = layout(rng)
    sets = [SceneSet(pick_style(rng, which), rng)]
    if kind in ("rows", "loose") and rng.random() < 0.2:
        sets.append(SceneSet(pick_style(rng, which), rng))
    tile_px = sample_tile_px(rng, long_side)
    if placed:
        xs = np.array([p.x for p in placed])
        ys = np.array([p.y for p in placed])
        extent = (xs.min() - 0.5, ys.min() - TILE_D / 2, xs.max() + 0.5, ys.max() + TILE_D / 2)
    else:
        extent = (0, 0, 1, 1)
    cam = sample_camera(rng, width, height, tile_px, extent)
    img, surface = background(rng, height, width, cam)

    edge = cam.edge if rng.random() < 0.7 else 0.0
    tiles = []  # (placed, sprite, sprite->image map, image outline, brightness)
    for p in placed:
        tile_set = sets[int(rng.integers(len(sets)))]
        top = tile_set.top(p.code, rng)
        e = rng.uniform(0.12, 0.35) if p.upright else edge
        sprite = tb.with_thickness(top, tile_set.palette, e, p.upright, p.code == BACK)
        M = _sprite_to_image(p, sprite.shape[0], top.shape[0], cam)
        poly = apply(M, tb.hull(sprite))
        # Shrink big sprites before warping to small sizes (bilinear warps alias otherwise).
        s = _local_scale(M, (tb.TOP_W / 2, top.shape[0] / 2))
        if s < 0.7:
            f = min(1.0, s * 1.5)
            sprite = cv2.resize(sprite, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            M = M @ _affine(scale=1 / f)
        tiles.append((p, sprite, M, poly, rng.uniform(0.92, 1.05)))
    # Far to near on the table (small y is far, whatever the photo's roll), so nearer tiles and a
    # standing row cover what lies beyond them.
    tiles.sort(key=lambda t: (t[0].y, t[0].upright))

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
    polys, frame = [t[3] for t in tiles], None
    if rng.random() < PRINTOUT:
        img, to_photo = printout(rng, img, background(rng, height, width, cam)[0])
        polys = [apply(to_photo, poly) for poly in polys]
        printed = apply(to_photo, np.float32([[0, 0], [width, 0], [width, height], [0, height]]))
        photo = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
        frame = cv2.intersectConvexConvex(printed.astype(np.float32), photo)[1].reshape(-1, 2)
    if tiles and rng.random() < 0.2:
        _glare(rng, img, cam)
    occluder = _occluder(rng, img, cam) if rng.random() < 0.1 else None

    labels, rows = [], {}
    seen = visibility(polys, width, height, occluder, frame)
    for (p, *_), (frac, box) in zip(tiles, seen, strict=True):
        if frac >= MIN_VISIBLE and box[2] - box[0] >= 2 and box[3] - box[1] >= 2:
            rows[id(p)] = len(labels)
            labels.append((CLASS_INDEX[p.code], *box))
    by_group = {}
    for p in placed:
        by_group.setdefault(p.group, []).append(rows.get(id(p)))
    truth = {
        "hand": hand,
        "kind": kind,
        "groups": [
            {"kind": g.kind, "tiles": g.tiles, "label_rows": by_group.get(i, [])}
            for i, g in enumerate(groups)
        ],
        "style": [s.style.name for s in sets],
        "surface": surface,
        "width": width,
        "height": height,
        "tile_px": round(tile_px, 1),
        "tilt": round(cam.tilt, 1),
        "roll": round(cam.roll, 1),
        "upright": any(p.upright for p in placed),
        "occluder": occluder is not None,
    }
    return np.clip(img, 0, 255).astype(np.uint8), labels, truth

