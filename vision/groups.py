"""What each layout group is: the concealed tiles (and the winning tile set apart), exposed melds,
flowers. Geometry made the groups (`vision.layout`); the tiles' codes and counts decide here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring.melds import GroupKind, GroupRole
from scoring.tiles import is_flower, is_honour, rank, suit
from vision.classes import BACK
from vision.layout import Layout
from vision.notices import Notice

Codes = Mapping[int, str] | Sequence[str]  # each tile's code by its id (a sequence: ids 0 to n - 1)


@dataclass(frozen=True)
class TileGroup:
    """Tiles the reading puts together: what they are (`kind`: the concealed tiles, a meld, the
    flowers, or tiles that make no set) and, apart from that, whether they are the hand's (`role`)."""

    kind: GroupKind
    members: tuple[int, ...]  # the tiles' ids (`Detections.ids`, a reading's row ids), in reading order
    role: GroupRole = GroupRole.HAND
    win: int | None = None  # the concealed group's winning tile (one of its members), named once it is read
    win_apart: bool = False  # concealed only: the layout saw its last member set apart (the winning tile)


def group_kind(codes: list[str]) -> GroupKind:
    """The kind a run of 3 or 4 shown tiles makes: a meld's, or UNKNOWN."""
    faces = [c for c in codes if c != BACK]
    # a concealed kong shows four backs (one of them named by the search: `kongs_of_backs`), or two and the two
    # faces between; three faces and a back are a meld beside the table seen through a gap (`stray_backs`)
    if len(codes) == 4 and len(faces) < 4:
        return GroupKind.ANKONG if len(faces) <= 2 and len(set(faces)) <= 1 else GroupKind.UNKNOWN
    if BACK in codes or any(is_flower(c) for c in codes):
        return GroupKind.UNKNOWN
    if len(set(codes)) == 1 and len(codes) in (3, 4):
        return GroupKind.PON if len(codes) == 3 else GroupKind.KONG
    if len(codes) == 3 and not any(is_honour(c) for c in codes) and len({suit(c) for c in codes}) == 1:
        ranks = sorted(rank(c) for c in codes)
        if ranks == [ranks[0], ranks[0] + 1, ranks[0] + 2]:
            return GroupKind.CHI
    return GroupKind.UNKNOWN


def shown_kong(codes: list[str]) -> bool:
    """Whether four tiles show a concealed kong laid with a back at each end (`group_kind` names its faces)."""
    return len(codes) == 4 and codes[0] == codes[3] == BACK


def stray_backs(layout: Layout, codes: Codes, conf: Mapping[int, float] | None = None) -> frozenset[int]:
    """The backs among a hand's tiles that no concealed kong can hold: a hand shows a back only in a kong laid
    face down (four backs, or a back at each end), so a back is kept where some four touching tiles of its
    group (all of a shorter group), flowers aside, hold it and another back. The others are the table seen
    through a gap between melds, or the strip at a photo's edge, that the detector took for a back; and where a
    group holding backs makes no sets, a back without which it does (two kongs laid face down, touching, and the
    table between them): of several such, the least sure (`conf`, the detections' confidences by id), of those as
    sure the later along the group. In a group that is no sets (the concealed row, a kong pushed against it), a back
    without which its backs lie in whole kongs, where with it they do not (`kongs_hold_backs`): the table seen
    between a kong and the row, chosen as before."""
    stray = set()
    for g in layout.groups:
        plain = [i for i in g if not is_flower(codes[i])]
        backs = [k for k, i in enumerate(plain) if codes[i] == BACK]
        span = min(4, len(plain))  # three backs alone: a kong face down with one missed
        for k in backs:
            windows = range(max(0, k - span + 1), min(k, len(plain) - span) + 1)
            if not any(sum(codes[i] == BACK for i in plain[a:a + span]) >= 2 for a in windows):
                stray.add(plain[k])
        if len(backs) >= 2 and not stray & set(plain) and sets_of(tuple(plain), codes) is None:
            # concealed kongs laid touching, the table seen between them boxed as one back more: the back without
            # which the group is sets, each kong back, face, face, back where one can be, the least sure of those
            doubt = [-float(conf[i]) if conf is not None else 0.0 for i in plain]
            left = {k: sets_of(tuple(plain[:k] + plain[k + 1:]), codes) for k in backs}
            fits = [(sum(shown_kong([codes[i] for i in g.members]) for g in sets), doubt[k], k)
                    for k, sets in left.items() if sets is not None]
            if not fits and not kongs_hold_backs([codes[i] for i in plain]):
                fits = [(0, doubt[k], k) for k in backs
                        if kongs_hold_backs([codes[i] for i in plain[:k] + plain[k + 1:]])]
            stray.update([plain[max(fits)[2]]] if fits else [])
    return frozenset(stray)


def kongs_hold_backs(codes: list[str]) -> bool:
    """Whether every back among `codes` (a run of touching tiles) lies in a concealed kong laid whole: four backs,
    or a back, two faces and a back. Either starts at a back, so the first back not yet held starts one."""
    at = 0
    while at < len(codes):
        if codes[at] != BACK:
            at += 1
            continue
        kong = codes[at:at + 4]
        face_down = kong == [BACK] * 4
        if not face_down and not (shown_kong(kong) and BACK not in kong[1:3]):
            return False
        at += 4
    return True


def sets_of(members: tuple[int, ...], codes: Codes) -> list[TileGroup] | None:
    """A group of shown tiles cut into melds (`split_melds`), or None where they are not all sets."""
    melds = split_melds(members, codes) if len(members) >= 3 else []
    return melds if melds and all(g.kind != GroupKind.UNKNOWN for g in melds) else None


def _cuts(n: int) -> list[list[int]]:
    """Every way to write n as an ordered sum of 3s and 4s."""
    if n == 0:
        return [[]]
    return [[size] + rest for size in (3, 4) if size <= n for rest in _cuts(n - size)]


def split_melds(members: tuple[int, ...], codes: Codes) -> list[TileGroup]:
    """Cut a group of touching shown tiles into melds of 3 or 4 (players push melds together).

    Among the cuts into runs of 3 and 4, the one with the most recognised sets wins; ties prefer
    runs of 3, so a misread tile cannot turn two melds into a kong and a stray.
    """
    candidates = []
    for sizes in _cuts(len(members)):
        starts = [sum(sizes[:k]) for k in range(len(sizes))]
        parts = [members[a:a + n] for a, n in zip(starts, sizes, strict=True)]
        groups = [TileGroup(group_kind([codes[i] for i in part]), part) for part in parts]
        candidates.append(((sum(g.kind != GroupKind.UNKNOWN for g in groups), -sizes.count(4)), groups))
    if not candidates:
        return [TileGroup(GroupKind.UNKNOWN, members)]
    return max(candidates, key=lambda c: c[0])[1]


def classify(layout: Layout, codes: Codes) -> tuple[list[TileGroup], list[Notice]]:
    """Kinds for the layout's groups (`codes`: each tile's by id), with warnings where the reading is ambiguous."""
    warnings: list[Notice] = []
    flowers = tuple(i for g in layout.groups for i in g if is_flower(codes[i]))
    plain = [tuple(i for i in g if not is_flower(codes[i])) for g in layout.groups]
    order = [gi for row in layout.rows for gi in row if plain[gi]]
    if not order:
        return ([TileGroup(GroupKind.FLOWERS, flowers)] if flowers else []), [Notice.of("only-flowers")]

    # The concealed tiles are the longest group; 17 − 3 per meld tiles, so ≡ 2 (mod 3) with the
    # winning tile, ≡ 1 when the winning tile lies apart.
    concealed = max(order, key=lambda gi: (len(plain[gi]) % 3 != 0, len(plain[gi]), -order.index(gi)))
    members = plain[concealed]
    win_apart = False
    if len(members) % 3 == 1:
        singles = [gi for gi in order if len(plain[gi]) == 1 and gi != concealed]
        row = next(r for r in layout.rows if concealed in r)
        after = [gi for gi in singles if gi in row and row.index(gi) == row.index(concealed) + 1]
        pick = after[0] if after else (singles[0] if len(singles) == 1 else None)
        if pick is not None:
            members, win_apart = members + plain[pick], True
            order.remove(pick)
        else:
            warnings.append(Notice.of("concealed-count-off"))
    elif len(members) % 3 == 0:
        warnings.append(Notice.of("no-concealed-group"))
    if not win_apart:
        warnings.append(Notice.of("win-not-apart"))

    groups = [TileGroup(GroupKind.CONCEALED, members, win_apart=win_apart)]
    for gi in order:
        if gi == concealed:
            continue
        if len(plain[gi]) < 3:
            groups.append(TileGroup(GroupKind.UNKNOWN, plain[gi]))
            warnings.append(Notice.of("stray-group", count=len(plain[gi])))
            continue
        groups.extend(split_melds(plain[gi], codes))
    if flowers:
        groups.append(TileGroup(GroupKind.FLOWERS, flowers))
    if any(g.kind == GroupKind.UNKNOWN for g in groups[1:]):
        warnings.append(Notice.of("shown-not-set"))
    return groups, warnings
