"""One search for the most probable legal hand a photo shows.

What varies: which parts of the photo belong to the hand (`vision.hand_finding` gives each a
probability), each tile's code (the detector's scores), the groups' kinds (`vision.groups`), and
one tile the photo may have missed where the concealed tiles are one short. A candidate's cost
is −log of its probability: the parts kept and left out, the codes chosen, and `missing_cost` for
a supposed tile (`vision.settings`). Only legal winning hands of the chosen table count, so a stray tile beside the
row, a discard or a wall is left out because the hand is legal without it. The cheapest candidate
is the reading; the next distinct hands are its runners-up. The search asks the scorer whether
tiles make a win (`scoring.draft.check_win`, in the plain situation: a reading does not depend on
how the hand was won) and holds no `Hand`; each membership is laid out once (`Layouts`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import cast

import numpy as np

from scoring.draft import Draft, Slot
from scoring.melds import GroupKind, GroupRole, MeldKind
from scoring.ruleset import Ruleset
from scoring.tiles import is_flower
from vision.classes import CLASS_INDEX, CLASSES
from vision.correction import FACES, count_problem, kongs_of_backs, legal_readings
from vision.detections import Detections
from vision.groups import Codes, TileGroup, classify, group_kind, shown_kong, stray_backs
from vision.hand_finding import MELD_TILES, Part, flower_tiles
from vision.layout import Layout, group_rows, straight_line, tiles_that_fit, without
from vision.notices import Notice
from vision.settings import READER_DEFAULT, ReaderSettings
from vision.stages import SEARCH, stage

HAND_TILES = (16, 22)  # tiles besides flowers: 17 + one per kong (up to 5), one fewer when one was missed
# No winning hand shows two parts of this many face-up tiles (flowers aside): with m melds shown it keeps
# 17 - 3m tiles, 9 or more only for m ≤ 2, whose melds hold 8 at most (as kongs). A photo with two such
# parts and no legal hand shows a set laid out in rows, not a hand.
ROW_OF_ITS_OWN = 9


@dataclass(frozen=True)
class Candidate:
    cost: float
    # Over the whole photo's tiles, by id (a supposed tile, in the concealed group or a meld, takes the id just past
    # the photo's): the hand's groups, then the parts left out (role APART).
    groups: tuple[TileGroup, ...]
    codes: dict[int, str]  # id → code, for the hand's tiles (the supposed one's too)
    draft: Draft  # the hand's tiles as this candidate reads them (no ids: what makes it one hand)
    added: tuple[str, ...]  # a tile the hand supposes that no detection shows
    kongs: tuple[str, ...]  # the faces supposed for concealed kongs shown as four backs
    members: tuple[int, ...]  # the membership it was read from (its layout: `Layouts`)
    backs_apart: bool = False  # read from that layout with its stray backs set apart (`Layouts.of`)

    @cached_property
    def key(self) -> tuple:
        """The hand, a supposed kong's face left out: hands differing only there are one reading (asked
        of every candidate found so far as each membership is weighed: kept once made)."""
        d = self.draft
        win = cast(Slot, d.win)  # a legal hand's draft names its winning tile
        melds = sorted((MeldKind.ANKONG, ("?",)) if m.kind == MeldKind.ANKONG and m.tiles[0].code in self.kongs
                       else (m.kind, tuple(s.code for s in m.tiles)) for m in d.melds)
        return (tuple(sorted(s.code for s in d.concealed)), win.code, tuple(melds),
                tuple(sorted(s.code for s in d.flowers)))


@dataclass(frozen=True)
class Membership:
    cost: float
    parts: tuple[Part, ...]  # every part of the photo
    inside: tuple[bool, ...]  # which of them are the hand's
    tiles: int  # the hand's tiles besides flowers
    order: tuple[int, ...] = field(compare=False, repr=False)  # the photo's tiles in reading order (`Layout.order`)

    @cached_property
    def members(self) -> tuple[int, ...]:
        """The ids of the tiles in the hand, in the photo's reading order."""
        kept = {i for part, keep in zip(self.parts, self.inside, strict=True) if keep for i in part.members}
        return tuple(i for i in self.order if i in kept)

    @property
    def apart(self) -> tuple[Part, ...]:
        """The parts set apart from the hand."""
        return tuple(part for part, keep in zip(self.parts, self.inside, strict=True) if not keep)


def memberships(parts: list[Part], flower: np.ndarray, order: tuple[int, ...], max_flip: float,
                max_flip_in: float) -> Iterator[Membership]:
    """Which parts form the hand, cheapest first: each part is in when more likely in than out, and
    every set of parts changed from that costs the log-odds given up (enumerated by rising cost:
    a set's children add one later part, so each set comes once and never before a cheaper one). No part is
    changed whose log-odds are `max_flip` or more, nor one that shows faces taken in from `max_flip_in`: discards
    across the table, taken in, made a legal hand of a hand short of tiles (docs/decisions/hand-among-the-table.md).
    Face-down tiles are weighed by the faces the hand supposes for them (a concealed kong, a tile laid face down).
    `flower`: whether each tile (by id) is a flower (a membership's tile count leaves them out); `order`: the photo's
    tiles in reading order."""
    p = np.clip([part.p_hand for part in parts], 1e-6, 1 - 1e-6)
    base = p >= 0.5
    flip = np.abs(np.log(p / (1 - p)))
    cost0 = float(np.sum(np.where(base, -np.log(p), -np.log(1 - p))))
    tiles = [len(part.members) - int(flower[list(part.members)].sum()) for part in parts]
    tiles0 = sum(t for t, keep in zip(tiles, base, strict=True) if keep)
    limit = np.where(base | [part.faces == 0 for part in parts], max_flip, min(max_flip, max_flip_in))
    doubtful = [int(k) for k in np.argsort(flip) if flip[k] < limit[k]]
    heap: list[tuple[float, int, tuple[int, ...]]] = [(cost0, -1, ())]
    shared = tuple(parts)
    while heap:
        cost, last, flips = heapq.heappop(heap)
        inside = base.tolist()
        count = tiles0
        for k in flips:
            inside[k] = not inside[k]
            count += tiles[k] if inside[k] else -tiles[k]
        yield Membership(cost, shared, tuple(inside), count, order)
        for j in range(last + 1, len(doubtful)):
            heapq.heappush(heap, (cost + float(flip[doubtful[j]]), j, flips + (doubtful[j],)))


def a_set_laid_out(parts: list[Part]) -> bool:
    """Whether the photo shows two rows no hand can hold together (ROW_OF_ITS_OWN): rows of a set laid out. Not where
    one of them lies near the hand's row and could be a hand, the others far from it: a hand before the heap of
    discards across the table (docs/decisions/hand-among-the-table.md)."""
    rows = [part for part in parts if part.faces >= ROW_OF_ITS_OWN]
    near = [part for part in rows if part.why != "far"]
    return len(rows) >= 2 and not (len(near) == 1 and near[0].faces <= HAND_TILES[1])


def likely_hand(parts: list[Part], order: tuple[int, ...], settings: ReaderSettings = READER_DEFAULT) -> Membership:
    """The parts shown as the hand when no legal hand was found: those more likely in it than not, for
    the player to fix (the others stay offered beside it); where none is, the likeliest long row when it
    is not unlikely (`likeliest_shown_from`, `likeliest_shown_tiles`); none when the photo shows
    two rows no hand can hold together (ROW_OF_ITS_OWN: rows of a set laid out). What else was tried and its figures:
    docs/decisions/hand-without-a-legal-reading.md. `order`: the photo's tiles in reading order."""
    inside = tuple(part.p_hand >= settings.shown_without_hand for part in parts)
    long_parts = [k for k, part in enumerate(parts) if len(part.members) >= settings.likeliest_shown_tiles]
    likeliest = max(long_parts, key=lambda k: parts[k].p_hand, default=None)
    if not any(inside) and likeliest is not None and parts[likeliest].p_hand >= settings.likeliest_shown_from:
        inside = tuple(k == likeliest for k in range(len(parts)))
    if a_set_laid_out(parts):
        inside = (False,) * len(parts)
    return Membership(0.0, tuple(parts), inside, sum(len(p.members) for p, k in zip(parts, inside, strict=True) if k),
                      order)


def _with_missing(dets: Detections, group: TileGroup) -> Detections:
    """`dets` and one more tile of any face after the group (a tile the detector missed), whose id is its index: the
    one just past the photo's."""
    scores = np.zeros((1, len(CLASSES)), np.float32)
    scores[0, [CLASS_INDEX[c] for c in FACES]] = 0.5
    box = dets.boxes[list(group.members)[-1]][None] if group.members else np.zeros((1, 4), np.float32)
    return Detections.concat([Detections(dets.boxes, dets.scores), Detections(box.astype(np.float32), scores)])


@dataclass(frozen=True)
class HandLayout:
    """The hand's tiles laid out alone, by id: their groups (`vision.groups.classify`), the warnings, and the
    layout's groups of touching tiles (`runs`, in reading order)."""

    groups: list[TileGroup]
    warnings: list[Notice]
    runs: tuple[tuple[int, ...], ...]

    @property
    def order(self) -> list[int]:
        """The hand's tiles in its own reading order."""
        return [i for run in self.runs for i in run]


class Layouts:
    """The hand layouts of one photo, each membership laid out once: the search lays out up to
    `settings.max_laid_out` memberships, and the reading's warnings and the hand shown without a legal one are
    a membership's layout again (`group_rows` is the costliest step after the detector). `dets`: the photo's, each
    tile's id its index there; `order`: its tiles in reading order (`Layout.order`)."""

    def __init__(self, dets: Detections, order: tuple[int, ...], flowers: frozenset[int],
                 settings: ReaderSettings = READER_DEFAULT) -> None:
        self.dets, self.order, self.flowers, self.settings = dets, order, flowers, settings
        self._made: dict[tuple[int, ...], tuple[HandLayout, HandLayout | None]] = {}

    def of(self, members: tuple[int, ...], backs_apart: bool = False) -> HandLayout | None:
        """The membership's layout; with `backs_apart`, the same with its stray backs set apart (None when it
        has none)."""
        if members not in self._made:
            self._made[members] = lay_out(self.dets, members, self.flowers, self.settings)
        return self._made[members][backs_apart]


def lay_out(dets: Detections, members: tuple[int, ...], flowers: frozenset[int] = frozenset(),
            settings: ReaderSettings = READER_DEFAULT) -> tuple[HandLayout, HandLayout | None]:
    """The layout and group kinds of the hand's tiles (`members`, ids in the photo's reading order) alone, as if the
    photo showed nothing else, and the same with the backs no concealed kong can hold left out (None where there are
    none); the tiles in `flowers` (runs of flowers: `hand_finding.flower_tiles`) are flowers whatever their top
    class. `dets`: the photo's, each tile's id its index there (a subset carries the ids: `Detections.ids`)."""
    mine = dets[np.array(members, np.int64)]
    raw = dict(zip(members, mine.raw_codes, strict=True))
    read_as = {m: f if m in flowers else c for m, c, f in zip(members, mine.layout_codes, mine.likeliest_flowers,
                                                              strict=True)}
    whole = group_rows(mine, settings)
    for i in flowers_inside_sets(whole, read_as, raw):
        read_as[i] = raw[i]
    stray = stray_backs(whole, read_as, dict(zip(members, mine.confidences.tolist(), strict=True)))
    return (_hand_layout(read_as, whole), _hand_layout(read_as, without(whole, stray)) if stray else None)


def flowers_inside_sets(layout: Layout, read_as: Codes, raw: Codes) -> list[int]:
    """The tiles laid out as flowers only because their flower classes together outweigh their top class, which
    is no flower, that lie between two tiles of their group that are no flowers: a player lays the flowers apart
    or at a row's end, never inside a meld or the concealed row, so such a tile is its top class."""
    out = []
    for g in layout.groups:
        for a, k, b in zip(g, g[1:], g[2:], strict=False):
            if is_flower(read_as[k]) and not is_flower(raw[k]) and not is_flower(read_as[a]) \
                    and not is_flower(read_as[b]):
                out.append(k)
    return out


def _hand_layout(read_as: Codes, layout: Layout) -> HandLayout:
    groups, warnings = classify(layout, read_as)
    return HandLayout(groups, list(layout.warnings) + warnings, layout.groups)


def merged_into_row(groups: list[TileGroup], runs: tuple[tuple[int, ...], ...]) -> list[TileGroup] | None:
    """The groups with every one that is no meld joined to the concealed tiles (a row cut in two by a
    gap or by perspective), and with it the melds it touches (in one of the layout's `runs`): a meld pushed
    against concealed tiles is cut off the row's ends by `row_cuts`, at what the steps say. None when all
    are sets already."""
    stray = [g for g in groups[1:] if g.kind == GroupKind.UNKNOWN]
    if not stray or not groups or groups[0].kind != GroupKind.CONCEALED:
        return None
    run_of = {i: k for k, run in enumerate(runs) for i in run}
    touched = {run_of[g.members[0]] for g in stray}
    joined = [g for g in groups[1:] if g.kind != GroupKind.FLOWERS and run_of[g.members[0]] in touched]
    row = groups[0]
    win = row.members[-1:] if row.win_apart else ()
    held = set(row.members) - set(win) | {i for g in joined for i in g.members}
    members = tuple(i for run in runs for i in run if i in held) + win
    # A single tile after all the others is the winning tile set apart.
    apart = row.win_apart or any(g.members == (members[-1],) for g in joined)
    return [TileGroup(GroupKind.CONCEALED, members, win_apart=apart)] + [g for g in groups[1:] if g not in joined]


def row_cuts(dets: Detections, groups: list[TileGroup],
             settings: ReaderSettings = READER_DEFAULT) -> list[tuple[float, list[TileGroup]]]:
    """The groupings with melds pushed against either end of the concealed row (closer than the layout
    cuts) shown apart, each with its cost: at each step between the row's tile centres, cutting or not
    costs by how much longer the step is than the row's steps there (`straight_line` through them, as perspective
    makes them grow along the row; `cut_step` times: as likely either way). The cheapest grouping costs 0; the uncut
    one is always tried, others dearer than `max_cut_cost` not. `dets`: the photo's, each tile's id its index there."""
    row = list(groups[0].members) if groups and groups[0].kind == GroupKind.CONCEALED else []
    core = row[:-1] if groups and groups[0].win_apart else row
    if len(core) < 5:
        return [(0.0, groups)]
    steps = centre_steps(dets, core)
    # A step with room for a tile is a hole (a missed tile) as much as a cut: no more evidence than `hole`.
    z = (np.minimum(steps / straight_line(steps), settings.hole) - settings.cut_step) / settings.cut_scale
    extra = (np.logaddexp(0, -z) - np.logaddexp(0, z)).tolist()  # −log P(cut) + log P(no cut), per step
    n = len(core)
    raw = dets.raw_codes
    # a concealed kong shown with a back at each end, pushed against either end of the row, is cut off however
    # close: the concealed tiles show no backs
    for kong, cut in ((core[:4], 3), (core[-4:], n - 5)):  # the cut after the first four, before the last four
        if shown_kong([raw[i] for i in kong]):
            extra[cut] = min(extra[cut], 0.0)
    cuts: list[tuple[float, list[TileGroup]]] = []
    for at_start in (True, False):
        position = (lambda e: e - 1) if at_start else (lambda e: n - 1 - e)  # noqa: E731
        for ends, cost in _cut_runs(n - 2, [extra[position(e)] for e in range(1, n)], settings.max_cut_cost):
            bounds = [0, *ends] if at_start else [n - e for e in (0, *ends)]
            pieces = [tuple(core[min(a, b):max(a, b)]) for a, b in zip(bounds, bounds[1:], strict=False)]
            rest = core[ends[-1]:] if at_start else core[:n - ends[-1]]
            concealed = TileGroup(GroupKind.CONCEALED, tuple(rest) + tuple(row[n:]), win_apart=groups[0].win_apart)
            kinds = [GroupKind.ANKONG if shown_kong([raw[i] for i in p]) else GroupKind.UNKNOWN for p in pieces]
            cuts.append((cost, [concealed, *(TileGroup(k, p) for k, p in zip(kinds, pieces, strict=True)),
                                *groups[1:]]))
    least = min([0.0, *(c for c, _ in cuts)])
    return [(-least, groups)] + sorted(((c - least, g) for c, g in cuts if c - least <= settings.max_cut_cost),
                                       key=lambda v: v[0])


def centre_steps(dets: Detections, members) -> np.ndarray:
    """The distances between neighbouring tiles' centres along `members` (ids, in reading order; each tile's id its
    index in `dets`)."""
    return np.hypot(*np.diff(dets.centers[list(members)], axis=0).T)


def _cut_runs(room: int, extra: list[float], limit: float, depth: int = 3):
    """(ends, cost) of every run of up to `depth` melds of 3 or 4 tiles from one end of a row with `room`
    tiles to spare: `extra[e - 1]` is what cutting after e tiles costs over not cutting. Runs that
    cost more than `limit` whatever follows are not made."""
    floor = sum(min(0.0, e) for e in extra)  # the most the cuts after a run could take off it
    return _runs_from(room, extra, limit, floor, depth, 0, 0.0)


def _runs_from(room: int, extra: list[float], limit: float, floor: float, depth: int, at: int, cost: float):
    """`_cut_runs` from `at` tiles on, the run so far costing `cost` (`floor` summed once: the runs of a 17-tile
    row number in the hundreds)."""
    for size in (3, 4) if depth else ():
        end = at + size
        if end > room:
            continue
        total = cost + extra[end - 1]
        if total + floor > limit:
            continue
        yield (end,), total
        for ends, rest in _runs_from(room, extra, limit, floor, depth - 1, end, total):
            yield (end, *ends), rest


def with_missing_tile(dets: Detections, groups: list[TileGroup]
                      ) -> tuple[Detections, list[TileGroup], tuple[int, ...]]:
    """When the concealed tiles are one short of a hand, one more of any face in their row (a tile
    the detector missed, or hidden: `_with_missing`); otherwise the groups as they are."""
    melds = [g for g in groups[1:] if g.kind != GroupKind.FLOWERS]
    if not groups or groups[0].kind != GroupKind.CONCEALED or len(groups[0].members) != 16 - 3 * len(melds):
        return dets, groups, ()
    dets = _with_missing(dets, groups[0])
    added = (len(dets) - 1,)
    # the supposed tile goes in the row before its last tile, which stays the winning tile: set apart, or taken as the
    # last the photo shows ("win-not-apart"), never a tile the photo does not show
    row = groups[0].members
    row = row[:-1] + added + row[-1:]
    return dets, [TileGroup(GroupKind.CONCEALED, row, win_apart=groups[0].win_apart), *groups[1:]], added


def with_missing_meld_tile(dets: Detections, groups: list[TileGroup], settings: ReaderSettings = READER_DEFAULT
                           ) -> tuple[Detections, list[TileGroup], tuple[int, ...]] | None:
    """A meld apart from the concealed row with the tile the detector missed supposed (any face): a group of two
    tiles and the tile after them, or two lone tiles with room for one tile between them (`tiles_that_fit`, the
    concealed row's step the pitch) and the tile between. Only where that is the one such
    group, or the two lone tiles are the only ones; otherwise None."""
    if not groups or groups[0].kind != GroupKind.CONCEALED or len(groups[0].members) < 2:
        return None
    apart = [k for k, g in enumerate(groups) if k and g.kind == GroupKind.UNKNOWN]
    pairs = [k for k in apart if len(groups[k].members) == 2]
    lone = [k for k in apart if len(groups[k].members) == 1]
    out = list(groups)
    if len(pairs) == 1:
        pair = groups[pairs[0]].members
        dets = _with_missing(dets, groups[pairs[0]])
        out[pairs[0]] = TileGroup(GroupKind.UNKNOWN, pair + (len(dets) - 1,))
    elif len(lone) == 2 and not pairs:
        (a,), (b,) = groups[lone[0]].members, groups[lone[1]].members
        step = max(float(np.median(centre_steps(dets, groups[0].members))), 1e-6)
        if tiles_that_fit(float(centre_steps(dets, (a, b))[0]) - step, step, settings.room_for_a_tile) != 1:
            return None
        dets = _with_missing(dets, groups[lone[0]])
        out[lone[0]] = TileGroup(GroupKind.UNKNOWN, (a, len(dets) - 1, b))
        del out[lone[1]]
    else:
        return None
    return dets, out, (len(dets) - 1,)


def joined_across_a_hole(dets: Detections, groups: list[TileGroup], layout: HandLayout,
                         settings: ReaderSettings = READER_DEFAULT
                         ) -> tuple[Detections, list[TileGroup], tuple[int, ...]] | None:
    """The concealed row joined to the run of tiles beside its end across a hole, with the tile the detector missed
    in the hole supposed (any face): a row holed by a missed tile is laid out in two, and a piece of a meld's length
    reads as a meld ([a hole beside a meld](../docs/decisions/hole-beside-a-meld.md)). A hole: the run's end and
    the row's, next to each other in the hand's reading order (`layout`'s runs), in one row (`row_tolerance`), two
    steps apart give or take `hole_beside_meld` of a step (the steps either side of the hole, as perspective
    grows them), the row's side of it more tiles than a meld (a stray joined to the row is none). The run holds chis,
    pons and tiles that make no set only. None where no such run lies at either end of the row (before its winning
    tile where that is set apart)."""
    if not groups or groups[0].kind != GroupKind.CONCEALED or len(groups[0].members) < 3:
        return None
    row = groups[0]
    core = row.members[:-1] if row.win_apart else row.members
    order = layout.order
    at = {i: k for k, i in enumerate(order)}
    run_of = {i: run for run in layout.runs for i in run}
    group_of = {i: g for g in groups[1:] for i in g.members}
    ends = [(order[at[core[0]] - 1], core[0])] if at[core[0]] else []
    if not row.win_apart and at[core[-1]] + 1 < len(order):
        ends.append((core[-1], order[at[core[-1]] + 1]))
    centres, heights = dets.centers, dets.heights
    for a, b in ends:
        before = b == core[0]
        beside = run_of[a] if before else run_of[b]
        if any(i not in group_of for i in beside):  # the row's own run, or tiles the grouping left out
            continue
        joined = {group_of[i] for i in beside}
        if any(g.kind not in (GroupKind.CHI, GroupKind.PON, GroupKind.UNKNOWN) for g in joined):
            continue
        if len(set(run_of[b] if before else run_of[a]) & set(core)) <= MELD_TILES:
            continue  # the row's side of the hole a stray joined to it, not the row
        # the step either side of the hole, as perspective grows the steps along the row
        inside = core[:2] if before else core[-2:]
        outside = (beside[-2:] if before else beside[:2]) if len(beside) > 1 else inside
        step = float(np.mean([centre_steps(dets, inside)[0], centre_steps(dets, outside)[0]]))
        apart = float(centre_steps(dets, (a, b))[0])
        level = abs(float(centres[a, 1] - centres[b, 1])) < settings.row_tolerance * float(min(heights[a], heights[b]))
        if not level or abs(apart / step - 2.0) > settings.hole_beside_meld:
            continue
        shown = _with_missing(dets, row)
        added = (len(shown) - 1,)
        members = beside + added + row.members if before else core + added + beside
        return shown, [TileGroup(GroupKind.CONCEALED, members, win_apart=row.win_apart),
                       *(g for g in groups[1:] if g not in joined)], added
    return None


def hand_readings(dets: Detections, ms: Membership, rules: Ruleset, layouts: Layouts,
                  settings: ReaderSettings = READER_DEFAULT) -> list[Candidate] | None:
    """The legal hands one membership makes, each as a candidate over the whole photo's tiles (`dets`: each tile's
    id its index there); None when its tile counts make no hand whatever the codes and groupings (no search was
    needed). Groupings tried: the layout's, the strays joined to the concealed row, and melds cut off its ends."""
    out, counted = [], False
    for backs_apart in (False, True):
        hl = layouts.of(ms.members, backs_apart)
        if hl is None:
            continue
        apart = [TileGroup(GroupKind.UNKNOWN, part.members, GroupRole.APART) for part in ms.apart]
        rank = {i: k for k, i in enumerate(hl.order)}  # the hand's own reading order
        dropped = [i for i in ms.members if i not in rank]  # boxes the layout found doubled, stray backs
        if dropped:
            apart.append(TileGroup(GroupKind.UNKNOWN, tuple(dropped), GroupRole.APART))
        merged = merged_into_row(list(hl.groups), hl.runs)
        groupings = [v for g in (list(hl.groups), merged) if g is not None for v in row_cuts(dets, g, settings)]
        variants = [(cost, v) for cost, g in groupings for v in
                    (with_missing_tile(dets, g), with_missing_meld_tile(dets, g, settings)) if v is not None]
        variants += [(cost - settings.filled_hole, v) for cost, g in groupings
                     if (v := joined_across_a_hole(dets, g, hl, settings)) is not None]
        for shape_cost, (shown, groups, added) in variants:
            if count_problem(groups):
                continue
            counted = True
            extra = shape_cost + (settings.missing_cost if added else 0.0) + \
                (settings.stray_back_cost if backs_apart else 0.0)
            hidden = sorted(kongs_of_backs(groups, shown.raw_codes), key=rank.__getitem__)
            for cost, codes, draft in itertools.islice(
                    legal_readings(shown, groups, rules, settings, frozenset(added)), settings.readings_per_variant):
                hand = tuple(_photo_group(g, codes, added) for g in groups) + tuple(apart)
                out.append(Candidate(ms.cost + cost + extra, hand, {i: c for i, c in codes.items() if i not in hidden},
                                     draft, tuple(codes[i] for i in added), tuple(codes[i] for i in hidden),
                                     ms.members, backs_apart))
    return out if counted else None


# the kinds a reading's codes do not change (a concealed kong shows backs)
_KEPT_KINDS = (GroupKind.CONCEALED, GroupKind.FLOWERS, GroupKind.ANKONG)


def _photo_group(g: TileGroup, codes: dict[int, str], added: tuple[int, ...] = ()) -> TileGroup:
    """A hand group as the reading gives it, a meld's kind from the codes the reading chose; a chi holding a
    supposed tile has its tiles in sequence, the supposed one in its place."""
    kind = g.kind if g.kind in _KEPT_KINDS else group_kind([codes[i] for i in g.members])
    members = g.members
    if kind == MeldKind.CHI and set(members) & set(added):
        members = tuple(sorted(members, key=lambda i: codes[i]))
    return photo_group(TileGroup(kind, members, win_apart=g.win_apart))


def photo_group(g: TileGroup) -> TileGroup:
    """A hand group as the reading gives it, the winning tile named: the concealed row's last tile,
    which is the one set apart when one is (a photo cannot tell which tile of a row won, and the
    player says so with one tap)."""
    return replace(g, win=g.members[-1]) if g.kind == GroupKind.CONCEALED and g.members else g


@stage(SEARCH)
def search(dets: Detections, parts: list[Part], rules: Ruleset, layouts: Layouts,
           settings: ReaderSettings = READER_DEFAULT, runners: int = 3) -> list[Candidate]:
    """The cheapest legal hand and up to `runners` next distinct hands, cheapest first (`layouts`:
    the photo's, `Layouts(dets, flower_tiles(parts))`, kept for the reading's warnings)."""
    found: list[Candidate] = []
    searched = laid_out = 0
    runs = flower_tiles(parts)
    flower = np.array([is_flower(c) or i in runs for i, c in enumerate(dets.layout_codes)], bool)
    for ms in itertools.islice(memberships(parts, flower, layouts.order, settings.max_flip, settings.max_flip_in),
                               settings.max_memberships):
        # A membership's hands cost at least its own cost: once that is above the last of the hands
        # kept, no later membership can change the answer.
        kept = sorted({c.key: c.cost for c in sorted(found, key=lambda c: -c.cost)}.values())[:runners + 1]
        if (found and ms.cost - kept[0] > settings.max_cost) or (len(kept) > runners and ms.cost >= kept[-1]) \
                or searched >= settings.max_searched or laid_out >= settings.max_laid_out:
            break
        # 17 tiles and one more per kong (5 at most), one fewer with a missed tile: else no layout can help
        if not HAND_TILES[0] <= ms.tiles <= HAND_TILES[1]:
            continue
        readings = hand_readings(dets, ms, rules, layouts, settings)
        laid_out += 1
        searched += readings is not None
        found += readings or []
    distinct: dict[tuple, Candidate] = {}
    for c in sorted(found, key=lambda c: c.cost):  # a hand reached two ways keeps its cheaper way
        distinct.setdefault(c.key, c)
    return list(distinct.values())[:runners + 1]
