"""Properties of the scorer on random legal winning hands (scoring.random_hands)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import Hand, HandError, Meld, available_rulesets, load_ruleset, score
from scoring.random_hands import winning_hands
from scoring.reading import HandView, readings
from scoring.settle import settle
from scoring.validate import check_hand, checked_counts

RULES = load_ruleset()
ORDER = [e.name for e in RULES.entries]
EXCLUDES = {e.name: set(e.excludes) for e in RULES.entries}

hands = winning_hands(table_prob=0.3)
concealed_heavy = winning_hands(meld_prob=0.05, honour_prob=0.1, chow_prob=0.7)
pung_heavy = winning_hands(chow_prob=0.1, honour_prob=0.6, kong_prob=0.4)
any_hand = st.one_of(hands, concealed_heavy, pung_heavy)


@settings(max_examples=300, deadline=None)
@given(any_hand)
def test_scoring_never_raises_and_total_is_the_sum(hand):
    check_hand(hand)
    result = score(hand)
    assert result.total == sum(i.tai for i in result.items) == sum(result.as_dict().values())
    assert all(i.tai > 0 for i in result.items)
    assert hand.win in result.waits


@settings(max_examples=300, deadline=None)
@given(any_hand)
def test_items_are_in_display_order_and_respect_exclusions(hand):
    result = score(hand)
    positions = [ORDER.index(i.entry) for i in result.items]
    assert positions == sorted(positions)
    present = {i.entry for i in result.items}
    for name in present:
        assert not EXCLUDES[name] & present, (name, present)


@settings(max_examples=200, deadline=None)
@given(any_hand, st.randoms(use_true_random=False))
def test_result_does_not_depend_on_tile_order(hand, rng: random.Random):
    def shuffled(tiles):
        tiles = list(tiles)
        rng.shuffle(tiles)
        return tuple(tiles)

    melds = [Meld(m.kind, shuffled(m.tiles)) for m in hand.melds]
    rng.shuffle(melds)
    other = hand.replace(concealed=shuffled(hand.concealed), melds=tuple(melds),
                         flowers=shuffled(hand.flowers))
    a, b = score(hand), score(other)
    assert list(a.as_dict().items()) == list(b.as_dict().items())
    assert a.total == b.total and a.waits == b.waits


@settings(max_examples=200, deadline=None)
@given(any_hand)
def test_json_round_trip(hand):
    assert Hand.from_json(hand.to_json()) == hand


@settings(max_examples=200, deadline=None)
@given(winning_hands(table_prob=1.0))
def test_payments_balance(hand):
    paid = settle(score(hand), hand)
    assert sum(paid.net.values()) == 0
    assert paid.net[hand.seat_wind] > 0
    assert len(paid.payments) == (3 if hand.self_draw else 1)


@settings(max_examples=300, deadline=None)
@given(any_hand, st.sampled_from(available_rulesets()))
def test_an_entry_the_scorer_skips_for_a_missing_fact_would_not_hold(hand, name):
    """The scorer runs only the entries whose needs (Entry.needs: flowers, an honour pung, a flush,
    a flag …) the hand has; run anyway on every reading, each skipped entry does not hold."""
    rules = load_ruleset(name)
    try:
        check_hand(hand, rules)
    except HandError:  # not a win at this table (起胡)
        return
    view = HandView.of(hand)
    skipped = [e for e in rules.entries if e.needs & ~view.facts]
    for reading in readings(hand, view):
        assert not [e.name for e in skipped if reading.shape in e.reads and e.test(reading)]


@settings(max_examples=200, deadline=None)
@given(any_hand)
def test_the_view_from_check_hands_counts_is_the_view_of_the_hand(hand):
    """score hands check_hand's counts on to the view: the same view and readings as counting
    afresh, and the counts are as they were after (nothing lent, changed and given back)."""
    counted = checked_counts(hand, RULES)
    before = (counted.full, counted.won, counted.splits)
    view = HandView.of(hand, counted=counted)
    afresh = HandView.of(hand)
    def seen(v):
        return (v.waits, v.counts, v.facts, v.suits,
                [(r.sets, r.pair, r.win_group, r.pung_tiles, r.concealed_pungs) for r in readings(hand, v)])

    assert seen(view) == seen(afresh)
    assert (counted.full, counted.won, counted.splits) == before
