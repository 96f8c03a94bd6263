"""Things between the camera and the tiles: a player's hand reaching in from the edge of the
photo, or a cup on the table. Sized from the tile width (a hand is ~3 tiles wide), shaded as
rounded solids, with a soft shadow on the table; each returns its coverage mask (0..1)."""

import cv2
import numpy as np

SKIN = ((170, 190, 235), (140, 165, 215), (115, 140, 195), (85, 110, 160), (60, 80, 120))  # BGR


def _local_to_image(origin, angle):
    c, s = np.cos(angle), np.sin(angle)
    return lambda pts: (np.asarray(pts, np.float64) @ np.array([[c, s], [-s, c]]) + origin)


def _shade(mask, radius):
    """Rounded-solid shading: darker toward the outline, over `radius` pixels inside it."""
    dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    return 0.7 + 0.3 * np.sqrt(np.clip(dist / max(radius, 1.0), 0, 1))


def _composite(rng, img, mask, paint, unit):
    """Cast a soft shadow of `mask` on the scene, then paint the object over it."""
    off = rng.normal(0, 1, 2)
    off = off / (np.linalg.norm(off) + 1e-6) * unit * rng.uniform(0.2, 0.7)
    shift = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
    shadow = cv2.warpAffine(mask, shift, mask.shape[::-1])
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, unit * rng.uniform(0.2, 0.5)))
    img *= (1 - rng.uniform(0.3, 0.55) * shadow)[:, :, None]
    img[:] = img * (1 - mask[:, :, None]) + paint * mask[:, :, None]


def hand(rng, img, unit):
    """A hand (palm, four fingers, thumb, forearm, often a sleeve) reaching in from a frame edge."""
    h, w = img.shape[:2]
    side = int(rng.integers(4))
    edge_point = [(rng.uniform(0, w), 0), (w, rng.uniform(0, h)), (rng.uniform(0, w), h), (0, rng.uniform(0, h))][side]
    inward = np.deg2rad(90 + 90 * side + rng.normal(0, 20))  # 0 = +x in the image
    wrist = np.array(edge_point) + np.array([np.cos(inward), np.sin(inward)]) * unit * rng.uniform(0.5, 3)
    to_img = _local_to_image(wrist, inward)  # local x: wrist -> fingertips, y: across the hand
    mask = np.zeros((h, w), np.uint8)
    flip = 1 if rng.random() < 0.5 else -1  # left or right hand: the thumb's side
    curl = rng.uniform(0.45, 1.0)  # fingers straight or curled toward the palm
    arm = [(-14, -1.1), (0, -1.2), (0, 1.2), (-14, 1.1)]
    cv2.fillConvexPoly(mask, np.round(to_img(np.array(arm) * unit)).astype(np.int32), 255, cv2.LINE_AA)
    cv2.ellipse(mask, tuple(np.round(to_img([[1.4 * unit, 0]])[0]).astype(int)), (int(1.6 * unit), int(1.4 * unit)),
                np.degrees(inward), 0, 360, 255, -1, cv2.LINE_AA)
    fingers = [(-1.0, 1.8), (-0.35, 2.3), (0.3, 2.2), (0.95, 1.7)]
    for y, length in fingers:
        a = np.deg2rad(y * 8 + rng.normal(0, 4))
        start = np.array([2.4, y * flip])
        tip = start + length * curl * np.array([np.cos(a), np.sin(a) * flip])
        p0, p1 = np.round(to_img(np.array([start, tip]) * unit)).astype(int)
        cv2.line(mask, tuple(p0), tuple(p1), 255, max(2, int(0.55 * unit)), cv2.LINE_AA)
    thumb = np.array([[1.0, 1.1 * flip], [1.0 + 1.1 * curl, (1.1 + 1.2 * curl) * flip]])
    p0, p1 = np.round(to_img(thumb * unit)).astype(int)
    cv2.line(mask, tuple(p0), tuple(p1), 255, max(2, int(0.65 * unit)), cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 0.7)
    skin = np.float32(SKIN[int(rng.integers(len(SKIN)))]) + rng.normal(0, 6, 3).astype(np.float32)
    paint = skin * _shade(mask, 0.35 * unit)[:, :, None]
    if rng.random() < 0.6:  # a sleeve from some way up the forearm
        start = -rng.uniform(0.3, 3)
        sleeve = np.zeros((h, w), np.uint8)
        cuff = [(-15, -1.5), (start, -1.5), (start, 1.5), (-15, 1.5)]
        cv2.fillConvexPoly(sleeve, np.round(to_img(np.array(cuff) * unit)).astype(np.int32), 255, cv2.LINE_AA)
        sleeve = sleeve.astype(np.float32)[:, :, None] / 255
        cloth = np.float32(rng.uniform(20, 230, 3)) * _shade(sleeve[:, :, 0], 0.6 * unit)[:, :, None]
        paint = paint * (1 - sleeve) + cloth * sleeve
        mask = np.maximum(mask, sleeve[:, :, 0])
    paint = paint + rng.normal(0, 3, (h, w, 1)).astype(np.float32)
    _composite(rng, img, mask, paint, unit)
    return mask


def cup(rng, img, unit, squash):
    """A cup seen from above at the camera's tilt (`squash` = cos tilt): rim, inside, handle."""
    h, w = img.shape[:2]
    c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    r = unit * rng.uniform(1.2, 1.8)
    angle = rng.uniform(0, 180)
    axes = (int(r), int(r * squash))
    mask = np.zeros((h, w), np.uint8)
    cv2.ellipse(mask, c, axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
    if rng.random() < 0.7:
        a = np.deg2rad(rng.uniform(0, 360))
        hc = (int(c[0] + np.cos(a) * r * 1.1), int(c[1] + np.sin(a) * r * 1.1 * squash))
        cv2.ellipse(mask, hc, (int(r * 0.35), int(r * 0.35 * squash)), angle, 0, 360, 255, max(2, int(r * 0.15)),
                    cv2.LINE_AA)
    mask = mask.astype(np.float32) / 255
    body = np.float32(rng.uniform(60, 245, 3))
    paint = body * _shade(mask, 0.4 * r)[:, :, None]
    inside = np.zeros((h, w), np.uint8)
    cv2.ellipse(inside, c, (int(r * 0.85), int(r * 0.85 * squash)), angle, 0, 360, 255, -1, cv2.LINE_AA)
    inside = cv2.GaussianBlur(inside.astype(np.float32) / 255, (0, 0), 0.8)[:, :, None]
    drink = np.float32([(30, 70, 120), (20, 35, 60), (200, 210, 215), (60, 120, 150)][int(rng.integers(4))])
    paint = paint * (1 - inside) + drink * inside
    _composite(rng, img, mask, paint, unit)
    return mask
