"""The other rules tables, data-driven: tests/rulesets/<ruleset id>.json holds, for every
entry of that ruleset (and of its options), a hand where it applies and one where it does not,
each with the complete expected item list in display order and the seed's sentence it rests on;
hands each table refuses (with a table where the refusal needs one, and the Chinese words the
player reads); settlements by its payment formula; and one discard won by several
players and the penalty of a false win (詐胡), paid or refused as the table says."""

import json
from pathlib import Path

import pytest

from scoring import Hand, HandError, Meld, Situation, Table, check_hand, load_ruleset, parse_tile, parse_tiles, score
from scoring.cli import score_json
from scoring.ruleset import DEFAULT_RULESET, RULESET_DIR
from scoring.settle import settle, settle_false_win, settle_several_winners

CASE_DIR = Path(__file__).with_name("rulesets")
FILES = sorted(CASE_DIR.glob("*.json"))
DATA = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in FILES}
TABLES = sorted(p.stem for p in RULESET_DIR.glob("*.json"))
# The tables beside the default one, as the files in scoring/rulesets/ say: each has its cases here
# (the default's are the worked examples, tests/test_examples.py; its file holds refusals only).
OTHER_TABLES = [t for t in TABLES if t != DEFAULT_RULESET]


def build(h: dict, table: dict | None = None) -> Hand:
    """A hand from a case's compact form: tiles as `123m 45s`, melds as [kind, tiles] or, for an
    open kong that says its origin, [kind, tiles, origin]."""
    # the cases name 门风 as the spec's JSON does ("seat"); the Situation calls it seat_wind
    sit = {("seat_wind" if k == "seat" else k): v for k, v in h.items()
           if k == "seat" or k in Situation.__dataclass_fields__}
    return Hand(
        parse_tiles(h["concealed"]),
        parse_tile(h["win"]),
        tuple(Meld(kind, parse_tiles(tiles), *origin) for kind, tiles, *origin in h.get("melds", ())),
        parse_tiles(h.get("flowers", "")),
        Situation(**sit),
        None if table is None else Table(**table),
    )


def _cases(key):
    return [(stem, c) for stem, d in DATA.items() for c in d.get(key, ())]


def _ids(items):
    return [f"{stem}:{c['id']}" for stem, c in items]


CASES = _cases("cases")
ERRORS = _cases("errors")
SETTLEMENTS = _cases("settlements")
SEVERAL = _cases("several_winners")
FALSE_WINS = _cases("false_wins")


def _rules(stem, case):
    return case.get("ruleset", DATA[stem]["ruleset"])


def test_every_other_ruleset_has_a_case_file():
    assert sorted(DATA) == TABLES, "each scoring/rulesets/<stem>.json needs tests/rulesets/<stem>.json"
    for stem in TABLES:
        assert DATA[stem]["ruleset"] == stem
    assert all("cases" in DATA[stem] for stem in OTHER_TABLES)


@pytest.mark.parametrize("stem", OTHER_TABLES)
def test_every_entry_has_a_hand_where_it_applies_and_one_where_it_does_not(stem):
    base = load_ruleset(stem)
    names = {e.name for e in base.entries}
    for option in base.available_options:
        names |= {e.name for e in load_ruleset(f"{stem}+{option}").entries}
    assert stem in DATA, f"tests/rulesets/{stem}.json is missing"
    cases = DATA[stem]["cases"]
    applies = {c["entry"] for c in cases if c["applies"]}
    absent = {c["entry"] for c in cases if not c["applies"]}
    assert names - applies == set(), "entries without a hand where they apply"
    assert names - absent == set(), "entries without a hand where they do not"
    assert (applies | absent) - names == set(), "cases for entries the table does not have"
    assert all(c["seed"] for c in cases)


@pytest.mark.parametrize("stem,case", CASES, ids=_ids(CASES))
def test_case(stem, case):
    rules = load_ruleset(_rules(stem, case))
    hand = build(case["hand"])
    result = score(hand, rules)
    items = result.as_dict()
    assert items == case["expect"]
    assert list(items) == list(case["expect"])  # display order
    assert result.total == sum(items.values())
    entries = {i.entry for i in result.items}
    assert (case["entry"] in entries) == case["applies"]
    # the same hand through the JSON interface, with the ruleset named per hand
    assert Hand.from_json(hand.to_json()) == hand
    out = score_json(dict(hand.to_json(), ruleset=_rules(stem, case)))
    assert out["items"] == case["expect"] and out["ruleset"] == rules.id


@pytest.mark.parametrize("stem,case", ERRORS, ids=_ids(ERRORS))
def test_refused(stem, case):
    rules = load_ruleset(_rules(stem, case))
    with pytest.raises(HandError, match=case["error"]) as err:
        hand = build(case["hand"], case.get("table"))
        check_hand(hand, rules)
        score(hand, rules)
    assert case.get("zh", "") in err.value.for_player  # what the table reads, where the case says


@pytest.mark.parametrize("stem,case", SETTLEMENTS, ids=_ids(SETTLEMENTS))
def test_settlement(stem, case):
    rules = load_ruleset(_rules(stem, case))
    hand = build(case["hand"], case["table"])
    result = score(hand, rules)
    assert result.total == case["total"]
    paid = settle(result, hand)
    assert paid.net == case["payments"]
    assert sum(paid.net.values()) == 0


@pytest.mark.parametrize("stem,case", SEVERAL, ids=_ids(SEVERAL))
def test_several_winners_off_one_discard(stem, case):
    rules = load_ruleset(_rules(stem, case))
    hands = [build(w["hand"], w.get("table", case["table"])) for w in case["winners"]]
    if "error" in case:
        with pytest.raises(HandError, match=case["error"]) as err:
            settle_several_winners([(score(h, rules), h) for h in hands], rules)
        assert case["zh"] in err.value.for_player
        return
    results = [score(h, rules) for h in hands]
    assert [r.total for r in results] == [w["total"] for w in case["winners"]]
    paid = settle_several_winners(list(zip(results, hands, strict=True)), rules)
    assert paid.net == case["payments"] and sum(paid.net.values()) == 0
    assert paid.winners == tuple(h.seat_wind for h in hands) and paid.discarder == case["table"]["discarder"]
    # each winner is paid by the discarder as for that win alone
    assert paid.settlements == tuple(settle(r, h) for r, h in zip(results, hands, strict=True))


@pytest.mark.parametrize("stem,case", FALSE_WINS, ids=_ids(FALSE_WINS))
def test_false_win(stem, case):
    rules = load_ruleset(_rules(stem, case))
    args = (case["caller"], case["claimed_tai"], case["waiting"], Table(**case["table"]), rules)
    if "error" in case:
        with pytest.raises(HandError, match=case["error"]) as err:
            settle_false_win(*args)
        assert case["zh"] in err.value.for_player
        return
    paid = settle_false_win(*args)
    assert paid.net == case["payments"] and sum(paid.net.values()) == 0
    for p in paid.payments:  # the ready are paid what they waited for, the others what was claimed
        ready = case["waiting"][p.payee]
        assert p.tai == (case["claimed_tai"] if ready is None else ready)
        assert p.reason == ("未聽：詐胡台數" if ready is None else "聽牌：所聽台數")
