"""Score a hand: check it, ask an open kong's origin where the 台 depend on it, read it every way (its
standard splits and the ruleset's special shapes), score each reading, keep the best.

    from scoring import Hand, score
    result = score(Hand.from_json({...}))
    result.as_dict()  # {"门清": 1, "平和": 2}
    result.total      # 3
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, compress, product, repeat
from operator import attrgetter, call

from .hand import Hand, HandError, Meld
from .melds import KongOrigin, MeldKind
from .notation import format_chinese
from .reading import Decomposition, HandView, readings
from .ruleset import DEFAULT_RULESET, Entry, Item, Ruleset, load_ruleset
from .shapes import shape_wins, special_waits
from .tiles import tile_name
from .validate import checked_counts


@dataclass(frozen=True, slots=True)
class Score:
    items: tuple[Item, ...]  # in the table's display order
    total: int
    waits: tuple[str, ...]  # 听 of the hand before the win
    reading: Decomposition  # the reading that gave this score
    ruleset: str  # ruleset id

    def as_dict(self, script: str = "simplified") -> dict[str, int]:
        names = map(_TRAD if script == "traditional" else _NAME, self.items)
        return dict(zip(names, map(_TAI, self.items), strict=True))


_EXCLUDES, _KEEPS = attrgetter("excludes"), attrgetter("keeps")
_NAME, _TRAD, _TAI = attrgetter("name"), attrgetter("trad"), attrgetter("tai")


def _qualifier(q, script: str) -> str:
    tiles = (q,) if isinstance(q, str) else tuple(q)
    return "".join(tile_name(t, script, short=True) for t in tiles)


@lru_cache(maxsize=4096)
def _item(entry: str, trad: str, tai: int, qualifier=None) -> Item:
    """One line, named once per process (a table has a few hundred distinct lines)."""
    if qualifier is None:
        return Item(entry, entry, trad, tai)
    return Item(entry, f"{entry} {_qualifier(qualifier, 'simplified')}",
                f"{trad} {_qualifier(qualifier, 'traditional')}", tai)


def _lines(entry: Entry, found) -> list[Item]:
    if isinstance(found, list):
        return [_item(entry.name, entry.trad, entry.tai, q) for q in found]
    if isinstance(found, str):  # OPEN: the entry in its open form
        return [_item(entry.name, entry.trad, entry.tai_of(found))]
    if found:
        return [_item(entry.name, entry.trad, entry.tai * int(found))]
    return []


def score_reading(reading: Decomposition, ruleset: Ruleset) -> tuple[Item, ...]:
    """The items of one reading: every entry that holds, less those another one excludes
    (an entry's name cancels all its lines, a qualified name such as 三元牌 白 that line),
    save those an entry that holds keeps (五暗刻 「必计对对胡」 against 字一色)."""
    tests, entries = ruleset.detectors(reading.shape, reading.view.facts)
    results = list(map(call, tests, repeat(reading, len(tests))))  # the loop that runs most, in C
    held = list(compress(entries, results))
    excluded = set(chain.from_iterable(map(_EXCLUDES, held)))
    if excluded:
        excluded.difference_update(*map(_KEEPS, held))
    items: list[Item] = []
    for e, f in zip(held, filter(None, results), strict=True):
        if e.name in excluded:
            continue
        if f is True:  # most entries: one line, as the entry is named
            items.append(e.line)
        else:
            items += [i for i in _lines(e, f) if i.name not in excluded]
    return tuple(items)


def _rank(items: tuple[Item, ...]) -> tuple:
    # Highest total first; among equal totals, a fixed order of the item lists so that the same
    # hand (in any tile order) always reports the same reading.
    return (sum(map(_TAI, items)), tuple([(i.name, i.tai) for i in items]))


def score(hand: Hand, ruleset: Ruleset | str | None = None) -> Score:
    """The best score of a legal winning hand; raises HandError for anything else, and
    KongOriginNeeded (a HandError) where the 台 depend on an open kong's origin not said."""
    rules = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset or DEFAULT_RULESET)
    counted = checked_counts(hand, rules)  # check_hand, keeping what it counted
    if rules.origin_readers and hand.melds:
        check_kong_origins(hand, rules)
    view = HandView.of(hand, special_waits(hand, rules) if rules.shapes else (), counted=counted)
    found = readings(hand, view) if not rules.shapes else (*readings(hand, view), *shape_wins(hand, rules, view))
    scored = [(score_reading(r, rules), r) for r in found]
    assert scored, "check_hand passed, so the hand has a reading"
    # the first best (max keeps the first of equals); most hands have one reading
    items, reading = max(scored, key=lambda s: _rank(s[0])) if len(scored) > 1 else scored[0]
    total = sum(map(_TAI, items))
    if total < rules.min_tai and total + _dealer_on_every_payment(hand, rules) < rules.min_tai:
        raise HandError(f"not a win under {rules.id}: {total} 台, and a win needs at least "
                        f"{rules.min_tai} 台 (起胡)", f"{rules.id} 要 {rules.min_tai} 台起胡，這手只有 {total} 台")
    return Score(items, total, view.waits, reading, rules.id)


class KongOriginNeeded(HandError):
    """The 台 depend on where an open kong came from (大明杠 or 加杠) and the hand does not say;
    `melds`: the places in hand.melds of the kongs to ask about."""

    def __init__(self, message: str, zh: str, melds: tuple[int, ...]) -> None:
        super().__init__(message, zh)
        self.melds = melds


def kong_origins_needed(hand: Hand, ruleset: Ruleset | str | None = None) -> tuple[int, ...]:
    """The places in `hand.melds` of the open kongs whose origin (大明杠 "called", 加杠 "added")
    the hand does not say and its 台 under `ruleset` depend on: what a page asks before scoring,
    a photo showing both alike. Empty when there is nothing to ask. Reads the situation and the
    melds only (the entries that read origins read nothing else), so it needs no legal hand."""
    rules = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset or DEFAULT_RULESET)
    unknown = [i for i, m in enumerate(hand.melds) if m.kind is MeldKind.KONG and m.origin is None]
    if not unknown or not rules.origin_readers:
        return ()
    outcome = {}
    for chosen in product(KongOrigin, repeat=len(unknown)):
        melds = list(hand.melds)
        for i, origin in zip(unknown, chosen, strict=True):
            melds[i] = Meld(MeldKind.KONG, melds[i].tiles, origin)
        stated = Decomposition((), None, None, HandView.of(hand.replace(melds=tuple(melds)), with_waits=False))
        outcome[chosen] = tuple(e.test(stated) for e in rules.origin_readers)
    # a kong matters when saying its origin otherwise, the others' kept, changes an outcome
    return tuple(i for k, i in enumerate(unknown)
                 if any(outcome[c] != outcome[(*c[:k], o, *c[k + 1:])] for c in outcome for o in KongOrigin))


def check_kong_origins(hand: Hand, rules: Ruleset) -> None:
    """Raise KongOriginNeeded where the 台 depend on an open kong's origin the hand does not say."""
    needed = kong_origins_needed(hand, rules)
    if not needed:
        return
    shown = ", ".join(f"{format_chinese(hand.melds[i].tiles)} (melds[{i}])" for i in needed)
    zh = "、".join(tile_name(hand.melds[i].tiles[0], "traditional") for i in needed)
    raise KongOriginNeeded(
        f"kong origin: under {rules.id} the 台 depend on whether the open kong {shown} was called on "
        "a discard (大明杠, \"origin\": \"called\") or added to one's own pon (加杠, \"added\"); say which",
        f"這個規則的台數要看明槓（{zh}）是大明槓（槓別人打的牌）還是加槓（碰了再加第四張）：請說是哪一種",
        needed)


def _dealer_on_every_payment(hand: Hand, rules: Ruleset) -> int:
    """The 庄家 台 that every payment of this win carries, which counts toward 起胡 (改良式:
    莊家 is one of its 1-台 items): where the dealer wins, or is the one payer (the discarder).
    Without a table the dealer is unknown: none."""
    t = hand.table
    if t is None or not (t.dealer == hand.seat_wind or (not hand.self_draw and t.discarder == t.dealer)):
        return 0
    return rules.settlement.dealer_tai
