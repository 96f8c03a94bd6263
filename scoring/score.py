"""Score a hand: check it, read it every way, score each reading, keep the best.

    from scoring import Hand, score
    result = score(Hand.from_json({...}))
    result.as_dict()  # {"门清": 1, "平和": 2}
    result.total      # 3
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, compress, repeat
from operator import attrgetter, call

from .hand import Hand, HandError
from .reading import Decomposition, View, readings
from .ruleset import DEFAULT_RULESET, Entry, Item, Ruleset, load_ruleset
from .tiles import tile_name
from .validate import check_kong_origins, checked_counts, shape_wins, special_waits


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
    view = View.of(hand, special_waits(hand, rules) if rules.shapes else (), counted=counted)
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


def _dealer_on_every_payment(hand: Hand, rules: Ruleset) -> int:
    """The 庄家 台 that every payment of this win carries, which counts toward 起胡 (改良式:
    莊家 is one of its 1-台 items): where the dealer wins, or is the one payer (the discarder).
    Without a table the dealer is unknown: none."""
    t = hand.table
    if t is None or not (t.dealer == hand.seat_wind or (not hand.self_draw and t.discarder == t.dealer)):
        return 0
    return rules.settlement.dealer_tai
