"""Legal-hand correction: the readings of a hand's tiles that are legal winning hands, cheapest first.

The detector scores every class for every tile. A reading picks one class per tile; its cost is
the sum of −log p over the tiles. Readings are visited cheapest first (k-best enumeration over
per-tile candidate lists) and those the scorer accepts as a win under the table's rules
(`scoring.draft.check_win`: the reader builds no `Hand` itself) are yielded; `vision.search` weighs
them against which tiles belong to the hand.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Iterator

import numpy as np

from scoring.decompose import counts_of
from scoring.draft import Draft, MeldDraft, Slot, check_win
from scoring.hand import HandError
from scoring.legal import can_win
from scoring.melds import GroupKind, MeldKind
from scoring.ruleset import Ruleset
from scoring.tiles import FLOWERS, TILE_CODES, tile_name
from scoring.tiles import INDEX as PLAYING_INDEX
from vision.classes import BACK, CLASS_INDEX
from vision.detections import Detections
from vision.groups import TileGroup, group_kind
from vision.notices import Notice
from vision.settings import READER_DEFAULT, ReaderSettings

FACES = tuple(c for c in TILE_CODES if c not in FLOWERS)


def _allowed(group: TileGroup, at: int, raw: str, hidden: bool) -> tuple[str, ...]:
    """The codes the `at`-th tile of `group` may read as (`raw` its top class)."""
    if group.kind == GroupKind.FLOWERS:
        return FLOWERS
    if group.kind == GroupKind.ANKONG and raw == BACK and not hidden:
        return (BACK,)
    # four tiles laid as no meld may be a concealed kong whose end backs the models took for a face (a set whose
    # backs are as plain as its 白板)
    if group.kind == GroupKind.UNKNOWN and len(group.members) == 4 and at in (0, 3):
        return (*FACES, BACK)
    return FACES


def kongs_of_backs(groups: list[TileGroup], raw: list[str]) -> frozenset[int]:
    """The first tile of each concealed kong shown as four backs: the one whose face the search
    supposes (any face is as likely; the player names it), the other three stay backs."""
    return frozenset(g.members[0] for g in groups if g.kind == GroupKind.ANKONG
                     and all(raw[i] == BACK for i in g.members))


def build_draft(groups: list[TileGroup], codes: dict[int, str]) -> Draft:
    """The draft of a reading's hand groups (the concealed one first; its last member the winning
    tile), its codes as read; raises HandError when a meld is no set."""
    concealed = groups[0]
    if concealed.kind != GroupKind.CONCEALED or not concealed.members:
        raise HandError("no concealed tiles", "沒有手牌")
    tiles = [codes[i] for i in concealed.members]
    melds = []
    for g in groups[1:]:
        if g.kind == GroupKind.FLOWERS:
            continue
        shown = [codes[i] for i in g.members]
        kind = group_kind(shown).meld
        if kind is None:
            raise HandError(f"{' '.join(shown)} is not a set",
                            f"{''.join(tile_name(c, 'traditional') for c in shown)} 不成一組")
        if kind == MeldKind.ANKONG:
            shown = [next(c for c in shown if c != BACK)] * 4  # four backs are no ankong (kongs_of_backs)
        melds.append(MeldDraft(kind, tuple(Slot(c) for c in shown)))
    flowers = tuple(Slot(codes[i]) for g in groups if g.kind == GroupKind.FLOWERS for i in g.members)
    return Draft(tuple(Slot(c) for c in tiles[:-1]), Slot(tiles[-1]), tuple(melds), flowers)


def count_problem(groups: list[TileGroup]) -> Notice | None:
    """What makes these groups no winning hand whatever their tiles read (a photo of a whole set,
    a tile missed by the detector): no code change can fix a count, so correction need not search."""
    concealed = groups[0] if groups and groups[0].kind == GroupKind.CONCEALED else None
    melds = [g for g in groups[1:] if g.kind != GroupKind.FLOWERS]
    flowers = sum(len(g.members) for g in groups if g.kind == GroupKind.FLOWERS)
    if concealed is None:
        return Notice.of("no-concealed-tiles")
    if any(len(g.members) not in (3, 4) for g in melds):
        return Notice.of("meld-size")
    if len(concealed.members) != 17 - 3 * len(melds):
        return Notice.of("concealed-count", count=len(concealed.members), melds=len(melds),
                         expected=17 - 3 * len(melds))
    if flowers > 8:
        return Notice.of("too-many-flowers", count=flowers)
    return None


def legal_readings(dets: Detections, groups: list[TileGroup], rules: Ruleset,
                   settings: ReaderSettings = READER_DEFAULT, wide: frozenset[int] = frozenset()
                   ) -> Iterator[tuple[float, dict[int, str], Draft]]:
    """The legal winning hands these groups make, cheapest first: each (cost, code per member, its draft),
    the cost being Σ −log p of the codes chosen among each tile's `settings.candidates`. A detection in `wide`
    may be any of its allowed codes (a tile supposed where the photo shows none), and so may the
    first tile of a concealed kong shown as four backs.

    Whether the concealed tiles make a hand depends on them alone and whether a meld is a set on it
    alone, so each is searched apart (k-best, cheapest first, at most `settings.visits_per_variant` readings each):
    the concealed readings whose tile counts can win (a memoised count check, microseconds), and the
    readings of each meld that are sets. Their cheapest combinations are then checked whole."""
    raw = dets.raw_codes
    hidden = kongs_of_backs(groups, raw)
    wide = wide | hidden

    def options(g: TileGroup) -> list[list[tuple[float, str]]]:
        out = []
        for at, i in enumerate(g.members):
            allowed = _allowed(g, at, raw[i], i in hidden)
            s = np.array([dets.scores[i, CLASS_INDEX[c]] for c in allowed], np.float64) + 1e-6
            p = s / s.sum()
            # every flower is a candidate: a hand holds each once, so one read twice takes another
            kept = len(allowed) if i in wide or g.kind == GroupKind.FLOWERS else settings.candidates
            top = np.argsort(-p, kind="stable")[:kept]
            out.append([(-math.log(p[k]), allowed[k]) for k in top])
        return out

    n_melds = len([g for g in groups[1:] if g.kind != GroupKind.FLOWERS])
    flowers = sum(len(g.members) for g in groups if g.kind == GroupKind.FLOWERS)

    def can_win_as(counts: list[int] | None) -> bool:
        return counts is None or can_win(counts, n_melds, rules.shapes)

    parts = []  # per group: its cheapest acceptable readings, [(cost, codes)]
    for g in groups:
        accept: Callable[..., bool] | None
        if g.kind == GroupKind.FLOWERS:
            accept = None
        elif g.kind == GroupKind.CONCEALED:  # all eight flowers win whatever the tiles where the table has 花胡
            accept = None if "flowers" in rules.shapes and flowers == len(FLOWERS) else can_win_as
        else:
            accept = lambda codes: group_kind(list(codes)) != GroupKind.UNKNOWN  # noqa: E731
        # A kong of backs: any face, each as likely, so keep them all (the first ones may clash with the hand).
        keep = len(FACES) if hidden & set(g.members) else settings.per_group
        found = distinct_readings(options(g), keep) if g.kind == GroupKind.FLOWERS else \
            list(itertools.islice(k_best(options(g), accept, settings.visits_per_variant, settings.max_cost,
                                          accept is can_win_as), keep))
        if not found:
            return
        parts.append([(cost, dict(zip(g.members, codes, strict=True))) for cost, codes in found])
    combos = sorted(((sum(c for c, _ in pick), pick) for pick in itertools.product(*parts)), key=lambda c: c[0])
    for cost, pick in combos:
        if cost - combos[0][0] > settings.max_cost:
            return
        codes = {i: c for _, part in pick for i, c in part.items()}
        try:
            draft = build_draft(groups, codes)
            check_win(draft, rules)
        except HandError:
            continue
        yield cost, codes, draft


def as_distinct_flowers(dets: Detections, members: tuple[int, ...]) -> dict[int, str]:
    """The likeliest reading of these tiles as flowers with each flower once (what a flower group shows when
    the photo makes no legal hand); {} for more tiles than there are flowers."""
    scores = dets.scores[np.array(members, np.int64)][:, [CLASS_INDEX[c] for c in FLOWERS]].astype(np.float64) + 1e-6
    p = scores / scores.sum(axis=1, keepdims=True)
    options = [sorted(zip(-np.log(row), FLOWERS, strict=True)) for row in p]
    best = distinct_readings(options, 1)
    return dict(zip(members, best[0][1], strict=True)) if best else {}


def distinct_readings(options: list[list[tuple[float, str]]], keep: int) -> list[tuple[float, tuple[str, ...]]]:
    """The `keep` cheapest readings (one option per tile) whose codes are all different, cheapest first:
    a hand holds each flower once, so a flower read twice is a misread, and the readings that keep them
    all distinct at the least cost replace it. Exact: the tiles are taken in turn, keeping the best `keep`
    readings so far for each set of codes used (at most 2^8 sets for the eight flowers)."""
    states: dict[frozenset, list[tuple[float, tuple[str, ...]]]] = {frozenset(): [(0.0, ())]}
    for opts in options:
        after: dict[frozenset, list[tuple[float, tuple[str, ...]]]] = {}
        for used, readings in states.items():
            for cost, code in opts:
                if code not in used:
                    after.setdefault(used | {code}, []).extend((c + cost, r + (code,)) for c, r in readings)
        states = {used: heapq.nsmallest(keep, readings) for used, readings in after.items()}
    return heapq.nsmallest(keep, (r for readings in states.values() for r in readings))


def k_best(options: list[list[tuple[float, str]]], accept, max_visits: int, max_cost: float,
           counted: bool = False) -> Iterator[tuple[float, tuple[str, ...]]]:
    """Readings (one option per tile) cheapest first that `accept` takes (every one when None):
    a reading's children raise one choice at or after its last raised one, so each is generated
    once, never before a cheaper parent. Stops after `max_visits` or `max_cost` above the cheapest.
    `counted`: `accept` takes the reading's 34 tile counts (None with a back or a flower among
    them), kept up to date from the parent's as one choice changes, instead of the codes."""
    base = sum(opt[0][0] for opt in options)
    index = [[PLAYING_INDEX.get(code, 34) for _, code in opt] for opt in options]
    root = _counts(opt[0][1] for opt in options) if counted else None
    heap = [(base, (0,) * len(options), 0, root, -1)]
    visits = 0
    while heap and visits < max_visits:
        cost, choice, last, counts, changed = heapq.heappop(heap)
        if cost - base > max_cost:
            return
        visits += 1
        if counted and changed >= 0 and counts is not None:
            before, after = index[changed][choice[changed] - 1], index[changed][choice[changed]]
            if after >= 34:
                counts = None
            else:
                counts = list(counts)
                counts[before] -= 1
                counts[after] += 1
        elif counted and changed >= 0:
            counts = _counts(options[k][c][1] for k, c in enumerate(choice))
        if accept is None or accept(counts if counted else tuple(options[k][c][1] for k, c in enumerate(choice))):
            yield cost, tuple(options[k][c][1] for k, c in enumerate(choice))
        for k in range(last, len(options)):
            if choice[k] + 1 < len(options[k]):
                child = cost + options[k][choice[k] + 1][0] - options[k][choice[k]][0]
                if child - base > max_cost:  # it would end the search when popped, after every cheaper one
                    continue
                nxt = choice[:k] + (choice[k] + 1,) + choice[k + 1:]
                heapq.heappush(heap, (child, nxt, k, counts, k))


def _counts(codes) -> list[int] | None:
    """The 34 counts of these tiles; None where one is a back or a flower (the full check judges)."""
    codes = list(codes)
    return None if any(PLAYING_INDEX.get(c, 34) >= 34 for c in codes) else counts_of(codes)
