"""The 56 worked examples of the rules page, loaded as they are (tests/data, vendored)."""

import pytest

from scoring import Hand, score
from tests.example_hands import EXAMPLES as CASES


def test_all_56_examples_are_there():
    assert len(CASES) == 56
    assert sum("expect" in c for c in CASES) == 28
    assert sum("expect_absent" in c for c in CASES) == 28


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_example(case):
    hand = Hand.from_json(case["hand"])
    assert hand.to_json() == case["hand"]  # the JSON form round-trips exactly
    result = score(hand)
    items = result.as_dict()
    assert result.total == sum(items.values())
    if "expect" in case:
        assert items == case["expect"]
        assert list(items) == list(case["expect"])  # the page's display order
    if "expect_absent" in case:
        entries = {name.split(" ")[0] for name in items}
        assert not entries & set(case["expect_absent"]), items
