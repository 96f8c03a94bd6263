"""Render one synthetic photo: layout -> tile sprites -> camera -> shadows -> occluders.

Every tile is warped straight from its sprite into the image by one homography (sprite ->
table -> image), so its label box is exactly the box of its warped outline (the convex hull
of the drawn sprite), clipped to the frame. A tile is labelled when >= 40% of it is visible.
"""

import cv2
import numpy as np

from datasets import tile_bodies as tb
from datasets.backgrounds import background
from datasets.camera import apply, sample_camera, sample_size, sample_tile_px
from datasets.scene_layout import TILE_D, layout
from datasets.styles import SceneSet, pick_style
from vision.classes import BACK, CLASS_INDEX

MIN_VISIBLE = 0.4


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


def _visible_box(poly, w, h, occluder):
    """(fraction visible, clipped xyxy box) of a convex image polygon."""
    area = cv2.contourArea(poly.astype(np.float32))
    frame = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    inter_area, inter = cv2.intersectConvexConvex(poly.astype(np.float32), frame)
    if area <= 0 or inter is None or inter_area <= 0:
        return 0.0, None
    inter = inter.reshape(-1, 2)
    frac = inter_area / area
    if occluder is not None:
        m = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(m, np.round(inter).astype(np.int32), 1)
        n = m.sum()
        if n:
            frac *= 1 - (occluder[m > 0] > 0.5).sum() / n
    x0, y0 = np.clip(inter.min(0), 0, [w, h])
    x1, y1 = np.clip(inter.max(0), 0, [w, h])
    return frac, (float(x0), float(y0), float(x1), float(y1))


def _occluder(rng, img, cam):
    """A hand-like blob or a cup in the scene; returns its coverage mask (0..1)."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    size = cam.tile_px * rng.uniform(1.5, 4)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    if rng.random() < 0.5:  # hand: palm and fingers reaching in
        colour = np.array([120, 150, 200]) + rng.normal(0, 20, 3)
        ang = rng.uniform(0, 360)
        cv2.ellipse(mask, (int(cx), int(cy)), (int(size), int(size * 0.8)), ang, 0, 360, 1, -1)
        for k in range(4):
            a = np.deg2rad(ang + (k - 1.5) * 18)
            fx, fy = cx + np.cos(a) * size * 1.6, cy + np.sin(a) * size * 1.6
            cv2.ellipse(mask, (int(fx), int(fy)), (int(size * 0.8), int(size * 0.22)),
                        np.degrees(a), 0, 360, 1, -1)
    else:  # cup seen from above: rim and darker inside
        colour = rng.uniform(60, 240, 3)
        cv2.circle(mask, (int(cx), int(cy)), int(size), 1, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.2)
    shade = 1 + 0.15 * (np.linspace(-1, 1, w)[None, :] * rng.uniform(-1, 1))
    paint = colour[None, None, :] * shade[:, :, None]
    img[:] = img * (1 - mask[:, :, None]) + paint * mask[:, :, None]
    return mask


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
    img, surface = background(rng, height, width)

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
    tiles.sort(key=lambda t: t[3][:, 1].max())

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
    if tiles and rng.random() < 0.2:
        _glare(rng, img, cam)
    occluder = _occluder(rng, img, cam) if rng.random() < 0.1 else None

    labels, rows = [], {}
    for p, _, _, poly, _ in tiles:
        frac, box = _visible_box(poly, width, height, occluder)
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

