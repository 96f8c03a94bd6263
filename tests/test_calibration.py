"""The audit's calibration: a model's score mapped to the share of its claims at that score that are right."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from datasets.calibration import Calibration


def test_pools_what_goes_against_the_order_and_shrinks_toward_the_overall_share():
    # by score: right at 0.1, wrong at 0.2 and 0.3 (a violation: pooled with 0.1), right at 0.6 and 0.9
    calibrated = Calibration([0.9, 0.2, 0.1, 0.6, 0.3], [1, 0, 1, 1, 0], prior=0.0)
    assert [calibrated(s) for s in (0.05, 0.1, 0.25, 0.3, 0.5, 0.9, 0.99)] == pytest.approx(
        [1 / 3, 1 / 3, 1 / 3, 1 / 3, 1, 1, 1])
    shrunk = Calibration([0.9, 0.2, 0.1, 0.6, 0.3], [1, 0, 1, 1, 0], prior=2.0)
    assert shrunk(0.2) == pytest.approx((1 + 2 * 0.6) / 5) and shrunk(0.9) == pytest.approx((2 + 2 * 0.6) / 4)


def test_a_score_trusted_as_often_as_it_is_right():
    """An undertrained model right 90% of the time at 0.1 and 50% at 0.6 (a confident stray) is believed
    at 0.1 — nearly as much as at 0.6 at best, since trust never falls with the score."""
    rng = np.random.default_rng(0)
    low, high = rng.uniform(0.05, 0.15, 400), rng.uniform(0.55, 0.65, 400)
    right = np.r_[rng.random(400) < 0.9, rng.random(400) < 0.5]
    calibrated = Calibration(np.r_[low, high], right)
    assert calibrated(0.1) == pytest.approx(0.7, abs=0.03)  # pooled: the order forbids 0.9 then 0.5
    assert calibrated(0.6) >= calibrated(0.1)


def test_no_observations_trusts_nothing():
    assert Calibration([], [])(0.5) == 0.0


@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=60),
       st.lists(st.floats(0, 1), min_size=2, max_size=10))
def test_never_trusts_a_higher_score_less_and_stays_a_share(observations, queries):
    scores, right = zip(*observations, strict=True)
    calibrated = Calibration(scores, right)
    values = [calibrated(q) for q in sorted(queries)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a <= b + 1e-12 for a, b in zip(values, values[1:], strict=False))
