"""Which tiles of a photo are the winning hand, and which are the table around it.

A photo taken at a table shows the player's hand and more: the walls of backs, the discards, other
players' rows, stray tiles. The whole photo's layout (`vision.layout`) cuts every detection into
runs of touching tiles ("parts"); each part gets the probability that it belongs to the hand from
what a person looks at: its tiles' size beside the nearest (largest) row's, how far it lies from
that row across and along it, whether its tiles are face down, turned (discards lie every way),
alone, or flowers (never discarded: a flower face up is some player's). The weights are a small
network fitted on generated table scenes (`python -m training.train_hand_finder`,
`models/hand_finder.json`); the hand search (`vision.search`) then decides the doubtful parts by
whether they make a legal hand.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import numpy as np

from scoring.tiles import is_flower
from vision.classes import BACK
from vision.detections import Detections
from vision.layout import Layout, median, rotated_points
from vision.model_files import HAND_FINDER, ModelError, hand_finder_card
from vision.notices import Notice
from vision.settings import READER_DEFAULT, ReaderSettings

# In a part mostly of flowers, a tile or two read as something else between or beside flowers is a flower
# misread (a bamboo bird, a dragon); MELD_TILES or more in a row are a meld laid against the flowers.
MELD_TILES = 3
FEATURES = ("bias", "log_size", "abs_log_size", "rows_above", "rows_below", "far_above", "far_below",
            "gap_along", "log_tiles", "backs", "wall_of_backs", "kong_of_backs", "turned", "single",
            "in_nearest_row", "parts_below", "flowers")


@dataclass(frozen=True)
class Part:
    """A run of touching tiles of the whole photo and how likely it is to belong to the hand."""

    members: tuple[int, ...]  # the tiles' ids, in reading order
    p_hand: float
    why: str  # what sets it apart when it is left out: "wall", "far", "small", "turned", "stray"
    faces: int  # its face-up tiles besides flowers
    flowers: tuple[int, ...] = ()  # in a part mostly of flowers, its tiles read as flowers whatever their top class


def flower_tiles(parts: list[Part] | tuple[Part, ...]) -> frozenset[int]:
    """The detections read as flowers whatever their top class (`Part.flowers`)."""
    return frozenset(i for part in parts for i in part.flowers)


def flowers_of(members: tuple[int, ...], codes: list[str]) -> tuple[int, ...]:
    """The tiles of a part (in reading order) that are flowers: none unless most of its tiles are
    flower-faced; then those, and every run of fewer than MELD_TILES others among them."""
    flags = [is_flower(codes[i]) for i in members]
    if 2 * sum(flags) <= len(flags):
        return ()
    out, run = set(), []
    for i, flag in zip(members, flags, strict=True):
        if flag:
            out.add(i)
        else:
            run.append(i)
        if flag or i == members[-1]:
            out.update(run if len(run) < MELD_TILES else [])
            run = []
    return tuple(i for i in members if i in out)


def part_features(dets: Detections, layout: Layout) -> np.ndarray:
    """(parts, FEATURES) for the layout's groups of `dets` (the photo's, each tile's id its index there); the
    reference is the nearest large row of face-up tiles (the lowest one in the row frame among the parts whose tiles
    are near the largest, and the longest: a hand on its rack before discards that stand taller in the photo,
    docs/decisions/hand-among-the-table.md)."""
    groups = [list(g) for g in layout.groups]
    if not groups:
        return np.zeros((0, len(FEATURES)), np.float32)
    codes = dets.layout_codes
    w, h = dets.widths, dets.heights
    short, long_ = np.minimum(w, h), np.maximum(w, h)
    cx, cy = rotated_points(dets.centers, layout.angle).T
    size = np.array([median(short[g]) for g in groups])
    faces = np.array([sum(codes[i] != BACK for i in g) for g in groups])
    n = np.array([len(g) for g in groups])
    shown = faces >= 2
    if not shown.any():
        shown = n >= 1
    big = shown & ((size >= 0.8 * size[shown].max()) | (faces == faces[shown].max()))
    y = np.array([np.mean(cy[g]) for g in groups])
    ref = int(np.flatnonzero(big)[np.argmax(y[big])])
    s_ref, h_ref = float(size[ref]), float(median(long_[groups[ref]]))
    aspect_ref = float(median(np.log(w[groups[ref]] / np.maximum(h[groups[ref]], 1e-6))))
    x1 = np.array([min(cx[g] - w[g] / 2) for g in groups])
    x2 = np.array([max(cx[g] + w[g] / 2) for g in groups])
    near_row = big & (np.abs(y - y[ref]) < 0.6 * h_ref)
    rows = np.clip((y - y[ref]) / h_ref, -12, 12)
    out = np.zeros((len(groups), len(FEATURES)), np.float32)
    for k, g in enumerate(groups):
        gaps = np.maximum(x1[near_row] - x2[k], x1[k] - x2[near_row]).clip(0)
        backs = 1 - faces[k] / n[k]
        face_codes = {codes[i] for i in g if codes[i] != BACK}
        flowers = sum(is_flower(codes[i]) for i in g) / n[k]
        turned = float(median(np.abs(np.log(w[g] / np.maximum(h[g], 1e-6)) - aspect_ref)))
        log_size = float(np.log(size[k] / s_ref))
        out[k] = (1.0, log_size, abs(log_size), max(0.0, -rows[k]), max(0.0, rows[k]), max(0.0, -rows[k] - 3),
                  max(0.0, rows[k] - 3), min(float(gaps.min()) / s_ref, 12.0) if len(gaps) else 12.0,
                  np.log(n[k]), backs, float(backs == 1 and n[k] != 4),
                  float(n[k] == 4 and backs >= 0.5 and len(face_codes) <= 1), turned, float(n[k] == 1),
                  float(near_row[k]), float(np.sum(shown & (y > y[k] + 0.5 * h_ref)) / max(shown.sum(), 1)),
                  flowers)
    return out


@cache
def weights(path: Path = HAND_FINDER) -> dict[str, np.ndarray]:
    """The fitted network, once its file matches its recorded SHA-256 (`hand_finder_card`) and was
    fitted over FEATURES; ModelError saying which is not so."""
    card = hand_finder_card(path)
    if not isinstance(card, dict) or tuple(card.get("features", ())) != FEATURES:
        raise ModelError(Notice.of("hand-finder-features", path=str(path)))
    return {k: np.array(v, np.float64) for k, v in card["weights"].items()}


def hand_probability(features: np.ndarray, w: dict | None = None) -> np.ndarray:
    """The fitted network (training/train_hand_finder.py): one tanh layer, a logistic output."""
    w = weights() if w is None else w
    z = np.tanh(features @ w["w1"]) @ w["w2"] + w["b2"]
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def _why(f: np.ndarray) -> str:
    named = dict(zip(FEATURES, f, strict=True))
    if named["wall_of_backs"]:
        return "wall"
    if named["far_above"] or named["far_below"] or named["gap_along"] > 4:
        return "far"
    if named["log_size"] < -0.25:
        return "small"
    if named["turned"] > 0.3:
        return "turned"
    return "stray"


def joined(dets: Detections, layout: Layout, settings: ReaderSettings = READER_DEFAULT) -> Layout:
    """The layout's groups joined where a tile of one touches a tile of another side by side (tiles of
    one size, level with each other, edges within `touch` of a tile's width, not stacked: `settings`): a row the
    whole photo's layout cut into pieces (perspective, a tilted photo, a meld pushed against it) is one
    part again, so the hand is weighed as a row, not as single tiles. A flower is not joined to a tile that is
    none: the flowers laid just beyond the winning tile set apart would make it a flower (`flowers_of`). `dets`: the
    photo's, each tile's id its index there; a part's tiles stay in reading order."""
    groups = [list(g) for g in layout.groups]
    if len(groups) < 2:
        return layout
    of = np.full(len(dets), -1, np.int64)  # a box the layout dropped is in no group, and touches none
    for k, g in enumerate(groups):
        of[g] = k
    x1, y1, x2, y2 = dets.boxes.T
    w, h = x2 - x1, y2 - y1
    short = np.minimum(w, h)
    gap = np.maximum(x1[None, :] - x2[:, None], x1[:, None] - x2[None, :])
    level = np.minimum(y2[:, None], y2[None, :]) - np.maximum(y1[:, None], y1[None, :])
    ratio = short[:, None] / short[None, :]
    narrower = np.minimum(w[:, None], w[None, :])
    flower = np.array([is_flower(c) for c in dets.layout_codes])
    touch = ((gap < settings.touch * narrower) & (gap > -settings.stacked * narrower)
             & (level > settings.level * np.minimum(h[:, None], h[None, :]))
             & (ratio > settings.same_size) & (ratio < 1 / settings.same_size)
             & (flower[:, None] == flower[None, :]) & (of[:, None] >= 0) & (of[None, :] >= 0))
    parent = list(range(len(groups)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, j in zip(*np.nonzero(np.triu(touch, 1)), strict=True):
        a, b = root(int(of[i])), root(int(of[j]))
        if a != b:
            parent[b] = a
    merged: dict[int, list[int]] = {}
    for k, g in enumerate(groups):
        merged.setdefault(root(k), []).extend(g)
    rank = {i: k for k, i in enumerate(layout.order)}
    return Layout(tuple(tuple(sorted(g, key=rank.__getitem__)) for g in merged.values()), layout.rows, layout.dropped,
                  layout.angle, layout.warnings)


def flowers_cut_off(layout: Layout, codes: list[str]) -> Layout:
    """The layout's groups with flowers at either end cut off as a group of their own (the longest run at an
    end that starts with a flower, holds two or more and is flowers by `flowers_of`) where a meld's tiles or
    more remain: flowers laid touching a meld or the row are the hand's flower group all the same, and
    `flowers_of` takes a part as flowers only where most of it is."""
    groups = []
    for g in layout.groups:
        end = next((e for k in range(len(g) - MELD_TILES, 1, -1)
                    for e, at_cut in ((g[-k:], g[-k]), (g[:k], g[k - 1])) if _flower_end(e, at_cut, codes)), None)
        groups += [g] if end is None else [tuple(i for i in g if i not in end), end]
    return replace(layout, groups=tuple(groups))


def backs_beside_flowers(layout: Layout, codes: list[str]) -> Layout:
    """The layout's groups with the backs at either end of a run of flowers made groups of their own: a flower
    is laid face up, so a back touching the flower group is another tile, or the table seen beside the flowers
    (an empty square of a gridded mat, a gap), which the detector boxes as a back."""
    groups = []
    for g in layout.groups:
        lead = next((k for k in range(len(g)) if codes[g[k]] != BACK), len(g))
        trail = next((k for k in range(len(g)) if codes[g[-1 - k]] != BACK), len(g))
        core = g[lead:len(g) - trail]
        if (lead or trail) and len(core) >= 2 and flowers_of(core, codes) == core:
            groups += [piece for piece in (g[:lead], core, g[len(g) - trail:]) if piece]
        else:
            groups.append(g)
    return replace(layout, groups=tuple(groups))


def _flower_end(end: tuple[int, ...], at_cut: int, codes: list[str]) -> bool:
    """Whether `end`, cut from a group's end next to its tile `at_cut`, is flowers: that tile a flower, two
    or more flowers, and `flowers_of` all of it."""
    return is_flower(codes[at_cut]) and sum(is_flower(codes[i]) for i in end) >= 2 and flowers_of(end, codes) == end


def unsure_boxes(dets: Detections, layout: Layout, settings: ReaderSettings = READER_DEFAULT) -> frozenset[int]:
    """The face-up tiles of the layout, flowers aside, the detector scores under `unsure_box` as a tile at all:
    perhaps the table seen between the tiles (a dotted mat boxed as 8p or 9p). `dets`: the photo's, each tile's id
    its index there."""
    codes, presence = dets.layout_codes, dets.presence
    return frozenset(i for i in layout.order
                     if presence[i] < settings.unsure_box and codes[i] != BACK and not is_flower(codes[i]))


def apart_from_their_parts(layout: Layout, tiles: frozenset[int]) -> Layout:
    """The layout's groups with these tiles taken out, each a group of its own after its group."""
    if not tiles:
        return layout
    groups = [g for group in layout.groups
              for g in (tuple(i for i in group if i not in tiles), *((i,) for i in group if i in tiles)) if g]
    return Layout(tuple(groups), layout.rows, layout.dropped, layout.angle, layout.warnings)


def find_parts(dets: Detections, layout: Layout, settings: ReaderSettings = READER_DEFAULT,
               unsure: frozenset[int] = frozenset()) -> list[Part]:
    """Every part of the photo with its probability of belonging to the hand; a part of flowers alone
    (`flowers_of`, `Detections.layout_codes`) is the hand's flower group, surely (`flowers_kept`), and so
    is a run of flowers at a part's end (`flowers_cut_off`), without the backs at its ends
    (`backs_beside_flowers`). Each tile of `unsure` (`unsure_boxes`) is a part of its own, in the hand with the
    chance that it is a tile at all times its part's. `dets`: the photo's, each tile's id its index there (the
    layout's groups hold ids)."""
    codes = dets.layout_codes
    parts = backs_beside_flowers(flowers_cut_off(joined(dets, layout, settings), codes), codes)
    parts = apart_from_their_parts(parts, unsure)
    f = part_features(dets, parts)
    p = hand_probability(f) if len(f) else np.zeros(0)
    presence = dets.presence
    p = np.array([p[k] * (presence[g[0]] if g[0] in unsure else 1.0) for k, g in enumerate(parts.groups)])
    flowers = [flowers_of(tuple(g), codes) for g in parts.groups]
    faces = [sum(codes[i] != BACK and not is_flower(codes[i]) and i not in flowers[k] for i in g)
             for k, g in enumerate(parts.groups)]
    return [Part(tuple(g), settings.flowers_kept if len(flowers[k]) == len(g) else float(p[k]), _why(f[k]), faces[k],
                 flowers[k]) for k, g in enumerate(parts.groups)]
