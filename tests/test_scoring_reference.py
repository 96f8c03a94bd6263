"""The plain reference scorer (scoring.reference) as an oracle: it reproduces the page's worked
examples on its own, and on random winning hands it and `score` find the same total."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import Hand, load_ruleset, score
from scoring.random_hands import random_winning_hand, winning_hands
from scoring.reference import score_hand
from tests.example_hands import EXAMPLES, plain

RULES = load_ruleset()


@pytest.mark.parametrize("case", EXAMPLES, ids=[c["id"] for c in EXAMPLES])
def test_the_reference_reproduces_the_worked_examples(case):
    total, items = score_hand(case["hand"])
    assert total == sum(items.values()) == score(Hand.from_json(case["hand"]), RULES).total
    if "expect" in case:
        assert list(items.items()) == list(case["expect"].items())  # the page's order too
    if "expect_absent" in case:
        assert not {name.split(" ")[0] for name in items} & set(case["expect_absent"]), items


any_hand = st.one_of(
    winning_hands(),
    winning_hands(meld_prob=0.05, honour_prob=0.1, chow_prob=0.7),  # concealed, many splits
    winning_hands(chow_prob=0.1, honour_prob=0.6, kong_prob=0.4),  # pungs, honours, kongs
    winning_hands(meld_prob=0.9, flower_prob=0.9),  # open hands, flowers
)


@settings(max_examples=400, deadline=None)
@given(any_hand)
def test_the_reference_and_the_scorer_agree_on_random_hands(hand):
    total, items = score_hand(hand.to_json())
    result = score(hand, RULES)
    assert total == result.total, (hand.to_json(), items, result.as_dict())


def test_they_agree_on_the_benchmark_hands():
    """The hands `python -m scoring.bench` times (seed 0), the first 500."""
    rng = random.Random(0)
    for _ in range(500):
        hand = random_winning_hand(rng, table_prob=0.0)
        assert score_hand(hand.to_json())[0] == score(hand, RULES).total, hand.to_json()


@pytest.mark.parametrize("change", [
    {"win": "7s"},  # 12345678 9m 234p 45s 99s + 7s: no 5 sets and a pair
    {"concealed": plain()["concealed"][:-1]},  # 15 tiles
    {"concealed": ["1m"] * 4 + plain()["concealed"][4:], "win": "1m"},  # a fifth 1m
])
def test_the_reference_refuses_what_does_not_win(change):
    with pytest.raises(ValueError):
        score_hand(plain(**change))
