"""Layout: boxes → rows → groups → one tile per slot, in reading order.

Players lay a winning hand out in rows of touching tiles: the concealed tiles, exposed melds as
separate groups (beside the row or in a second row), flowers apart, sometimes the winning tile set
a little apart at the end. Geometry alone decides rows, groups and slots here; what each group
*is* (concealed, chi, pon, …) is decided from its tiles in `vision.groups`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.tiles import is_flower
from vision.boxes import mean_direction, nearest_steps
from vision.detections import Detections
from vision.notices import Notice
from vision.settings import READER_DEFAULT, ReaderSettings

# The layout's tunings (group_gap, row_tolerance, spacing_jump, stacked_iou, room_for_a_tile) are
# ReaderSettings fields (vision/settings.py). Within a run of touching tiles, a step between centres
# `spacing_jump` longer than the steps around it is a gap between two groups: a meld pushed up beside the
# concealed row, closer than `group_gap` (the row itself is packed). Centres, not box edges: a box of a
# tilted tile's whole body overlaps its neighbours' by a varying amount
# (docs/decisions/layout-gaps.md). Gaps and steps are measured in the row's own scale, which perspective changes
# along it (docs/decisions/melds-need-evidence.md).
# Between two groups of a row, only runs longer than any meld (a kong) can be one run with a tile missing.
LONGEST_MELD = 4


@dataclass(frozen=True)
class Layout:
    """Groups of the tiles' ids (`Detections.ids`) in reading order (rows top to bottom, tiles along the row)."""

    groups: tuple[tuple[int, ...], ...]
    rows: tuple[tuple[int, ...], ...]  # indices into `groups`, one tuple per row
    dropped: tuple[int, ...]  # the ids of the detections that lost their slot to a better box
    angle: float  # row direction in degrees (0 = left to right)
    warnings: tuple[Notice, ...] = ()

    @property
    def order(self) -> tuple[int, ...]:
        """The ids of the slotted tiles in reading order."""
        return tuple(i for g in self.groups for i in g)


def median(values: np.ndarray) -> np.floating:
    """`np.median` of a non-empty 1-D float array, the same value in the same dtype: the layout and the hand
    finder take one per group (~1,200 over the bench's 30 photos), and on a group's few boxes np.median's
    generic axis and NaN handling cost ~50x this sort."""
    ordered = np.sort(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def tile_size(dets: Detections) -> tuple[float, float]:
    """Median (short side, long side) of the boxes: a tile's width and height whatever its turn."""
    short = np.minimum(dets.widths, dets.heights)
    long_ = np.maximum(dets.widths, dets.heights)
    return float(median(short)), float(median(long_))


def frame_angle(boxes: np.ndarray, tile_w: float, stacked_iou: float) -> float:
    """The direction of the rows (degrees, modulo 180) that the layout lays them along: each tile's step to its
    nearest neighbour within two tile widths, a tile stacked on another (`stacked_iou`) no neighbour."""
    steps = nearest_steps(boxes, stacked_iou, within=2.0 * tile_w)
    return mean_direction(steps, 2)[0] if len(steps) else 0.0


def rotated_points(points: np.ndarray, degrees: float) -> np.ndarray:
    """(N, 2) points turned by -`degrees` about the origin: a row found at `degrees` runs along x."""
    t = np.radians(-degrees)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return points @ rot.T


def resolve_slots(order: list[int], x1: np.ndarray, x2: np.ndarray, conf: np.ndarray,
                  pitch: float) -> tuple[list[int], list[int]]:
    """Keep one box per slot along a group: (kept, dropped).

    A box that straddles two neighbours (it covers a good part of each) is a misread of the
    seam between two tiles, and two boxes on one slot are one tile read twice: the slots the
    row's spacing implies decide, the more confident box keeps a contested slot.
    """
    a, b = x1[order], x2[order]
    # overlap[i, j]: the share of the narrower box of i and j that the two cover together
    shared = np.clip(np.minimum(b[:, None], b[None, :]) - np.maximum(a[:, None], a[None, :]), 0.0, None)
    overlap = shared / np.minimum((b - a)[:, None], (b - a)[None, :])
    np.fill_diagonal(overlap, 0.0)
    straddles = ((overlap > 0.25).sum(axis=1) >= 2) & (b - a > 1.3 * pitch)
    dropped = set() if straddles.all() else set(np.flatnonzero(straddles).tolist())  # all: a heap, not a row
    c = conf[order]
    doubled = overlap > 0.5
    if not doubled.any():  # no slot read twice, as in most groups: nothing to settle tile by tile
        return [k for n, k in enumerate(order) if n not in dropped], [k for n, k in enumerate(order) if n in dropped]
    for i in sorted(range(len(order)), key=lambda k: -c[k]):
        if i not in dropped:
            dropped.update(np.flatnonzero(doubled[i] & (c <= c[i])).tolist())
    return [k for n, k in enumerate(order) if n not in dropped], [k for n, k in enumerate(order) if n in dropped]


def tiles_that_fit(gap: float, pitch: float, room_for_a_tile: float) -> int:
    """How many tiles a gap between two neighbours' facing edges could hide: one from `room_for_a_tile` pitches."""
    return int(gap / pitch + 1 - room_for_a_tile)


def holes(parts: list[list[int]], pitches: list[float], x1: np.ndarray, x2: np.ndarray,
          codes: list[str], room_for_a_tile: float) -> list[tuple[int, int, int]]:
    """Where a row (its groups in order) has room for a tile the detector missed: (tile before, tile
    after, tiles that fit: a gap `room_for_a_tile` pitches wide holds one), measured gap by gap between
    neighbours, in the pitch of the group before (a group's small gaps summed make a phantom tile:
    docs/decisions/layout-gaps.md).

    Between two groups a hole is a missing tile only where both are longer than a meld and neither
    is flowers: a meld, the winning tile or the flowers are set apart from the row by about a tile."""
    found = []
    for k, (part, pitch) in enumerate(zip(parts, pitches, strict=True)):
        neighbours = list(zip(part[:-1], part[1:], strict=True))
        if k + 1 < len(parts) and min(len(part), len(parts[k + 1])) > LONGEST_MELD:
            neighbours.append((part[-1], parts[k + 1][0]))
        for a, b in neighbours:
            room = tiles_that_fit(x1[b] - x2[a], pitch, room_for_a_tile)
            if room > 0 and not (is_flower(codes[a]) or is_flower(codes[b])):
                found.append((a, b, room))
    return found


def straight_line(values: np.ndarray) -> np.ndarray:
    """The straight line through a row's values in order (the steps between its tiles' centres), at each: as a row
    shot at an angle has them grow steadily towards the camera. Theil-Sen (the median slope of every two), so the few
    odd ones (a jump between groups) do not pull it; fewer than 3 values: their median. Never below the least value,
    nor 0."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n < 3:
        return np.full(n, max(float(median(values)), 1e-6) if n else 1e-6)
    at = np.arange(n, dtype=float)
    first, second = np.triu_indices(n, 1)
    slope = float(median((values[second] - values[first]) / (at[second] - at[first])))
    return np.maximum(float(median(values - slope * at)) + slope * at, max(float(values.min()), 1e-6))


def split_at_spacing(order: list[int], cx: np.ndarray, spacing_jump: float) -> list[list[int]]:
    """Cut a run of tiles (sorted along the row) where one step between centres is `spacing_jump`
    longer than the median of the (up to 3 a side) steps around it: the local pitch, which
    perspective changes along a row."""
    steps = np.diff(cx[order]).tolist()
    cuts = []
    for i, step in enumerate(steps):
        around = sorted(steps[max(0, i - 3):i] + steps[i + 1:i + 4])
        if len(around) < 2:
            continue
        mid = len(around) // 2
        median = around[mid] if len(around) % 2 else (around[mid - 1] + around[mid]) / 2
        if step > (1 + spacing_jump) * median:
            cuts.append(i + 1)
    return [order[a:b] for a, b in zip([0, *cuts], [*cuts, len(order)], strict=True)]


def group_rows(dets: Detections, settings: ReaderSettings = READER_DEFAULT) -> Layout:
    """Rows and groups of touching tiles, robust to a tilted photo and uneven spacing: each tile by its id
    (`Detections.ids`), whatever its place in `dets`."""
    n = len(dets)
    if n == 0:
        return Layout((), (), (), 0.0)
    tile_w, tile_h = tile_size(dets)
    angle = frame_angle(dets.boxes, tile_w, settings.stacked_iou)
    # In the row frame rows run along x. A turned tile's axis-aligned box is wider than the tile:
    # for a w×h tile turned by t the box is (w·cos + h·sin) × (w·sin + h·cos); solve for w.
    cx, cy = rotated_points(dets.centers, angle).T
    c, s = abs(np.cos(np.radians(angle))), abs(np.sin(np.radians(angle)))
    if c * c - s * s > 0.3:
        width = (dets.widths * c - dets.heights * s) / (c * c - s * s)
        width = np.clip(width, 0.5 * tile_w, None)
    else:  # near 45° the box says little about the tile: take the typical tile
        width = np.full(n, tile_w)
    x1, x2 = cx - width / 2, cx + width / 2

    # Rows: sort by the row-frame y and cut where consecutive centres jump by `row_tolerance` of a tile height.
    by_y = np.argsort(cy, kind="stable")
    ys = cy.tolist()
    rows: list[list[int]] = [[int(by_y[0])]]
    total = ys[rows[0][0]]  # the sum of the current row's centres: its mean without re-adding them
    for i in by_y[1:].tolist():
        if ys[i] - total / len(rows[-1]) > settings.row_tolerance * tile_h:
            rows.append([])
            total = 0.0
        rows[-1].append(i)
        total += ys[i]

    conf, codes, ids = dets.confidences, dets.layout_codes, dets.ids.tolist()
    warnings: list[Notice] = []
    groups: list[tuple[int, ...]] = []
    row_groups: list[tuple[int, ...]] = []
    dropped: list[int] = []
    for row in rows:
        row.sort(key=lambda i: (x1[i] + x2[i]) / 2)
        # Groups: cut the row where the gap between facing edges exceeds `group_gap` tile widths, of the photo's
        # typical tile or of the two tiles that face each other where they are wider: a row shot at an angle has
        # its near tiles, and the gaps between them, larger.
        parts: list[list[int]] = [[row[0]]]
        for i in row[1:]:
            last = max(parts[-1], key=lambda j: x2[j])
            if x1[i] - x2[last] > settings.group_gap * max(tile_w, (width[i] + width[last]) / 2):
                parts.append([])
            parts[-1].append(i)
        first = len(groups)
        slotted, pitches = [], []
        for part in parts:
            pitch = min(float(median(x2[part] - x1[part])) if len(part) > 2 else tile_w, 1.2 * tile_w)
            kept, lost = resolve_slots(part, x1, x2, conf, pitch)
            dropped.extend(lost)
            slotted.append(kept)
            pitches.append(pitch)
            groups.extend(tuple(ids[i] for i in piece) for piece in split_at_spacing(kept, cx, settings.spacing_jump))
        for a, b, room in holes(slotted, pitches, x1, x2, codes, settings.room_for_a_tile):
            warnings.append(Notice.of("tile-may-be-missing", count=room, left=codes[a], right=codes[b]))
        row_groups.append(tuple(range(first, len(groups))))
    if abs(angle) > 30:
        warnings.append(Notice.of("rows-turned", angle=round(angle, 1)))
    return Layout(tuple(groups), tuple(row_groups), tuple(ids[i] for i in dropped), angle, tuple(warnings))


def without(layout: Layout, left_out: frozenset[int]) -> Layout:
    """The layout with these detections taken out of their groups (a group left empty goes, and its row with it
    if that was its only group); they are not `dropped` either, which the layout keeps for boxes it doubled."""
    if not left_out:
        return layout
    kept = [tuple(i for i in g if i not in left_out) for g in layout.groups]
    renumber = {gi: n for n, gi in enumerate(gi for gi, g in enumerate(kept) if g)}
    rows = tuple(r for r in (tuple(renumber[gi] for gi in row if gi in renumber) for row in layout.rows) if r)
    return Layout(tuple(g for g in kept if g), rows, layout.dropped, layout.angle, layout.warnings)


def in_reading_order(dets: Detections, layout: Layout) -> Detections:
    """The detections the layout of `dets` slotted, in reading order (each keeps its id)."""
    at = {i: k for k, i in enumerate(dets.ids.tolist())}
    return dets[np.array([at[i] for i in layout.order], dtype=np.int64)]
