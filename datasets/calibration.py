"""What a model's score means on one data set: the share of its claims at that score that are right.

A detector's scores are not probabilities, and how far off they are depends on the model and on
the data (an undertrained model scores right tiles at 0.1; a confident one scores wrong ones at
0.6). The audit needs "how likely is the model right here" to weigh a disagreement with a label,
so it measures it on the audited set: label errors are few, so the labels are a fair judge of the
model in bulk, even where they are the thing being judged one by one.
"""

from __future__ import annotations

import numpy as np


class Calibration:
    """A non-decreasing map score → share right, fitted by isotonic regression (pool adjacent
    violators): higher scores are never trusted less, and no bin width has to be chosen.
    `prior` pseudo-observations at the overall share keep a few scores at the ends from saying
    0 or 1 on their own."""

    def __init__(self, scores, right, prior: float = 2.0) -> None:
        scores, right = np.asarray(scores, np.float64), np.asarray(right, np.float64)
        order = np.argsort(scores, kind="stable")
        self.overall = float(right.mean()) if len(right) else 0.0
        means: list[float] = []
        weights: list[float] = []
        highs: list[float] = []  # the highest score of each pooled block
        for score, value in zip(scores[order], right[order], strict=True):
            means.append(value)
            weights.append(1.0)
            highs.append(score)
            while len(means) > 1 and means[-2] >= means[-1]:  # pool a violator (and ties) with its left
                w = weights[-2] + weights[-1]
                means[-2:] = [(means[-2] * weights[-2] + means[-1] * weights[-1]) / w]
                weights[-2:] = [w]
                highs[-2:] = [highs[-1]]
        self.highs = np.array(highs)
        shrunk = (np.array(means) * np.array(weights) + prior * self.overall) / (np.array(weights) + prior)
        self.shares = np.maximum.accumulate(shrunk) if len(shrunk) else shrunk  # shrinking can undo the order

    def __call__(self, score: float) -> float:
        """The share right among scores like this one (the block it falls in; above all: the top one)."""
        if not len(self.highs):
            return self.overall
        i = min(int(np.searchsorted(self.highs, score, side="left")), len(self.highs) - 1)
        return float(self.shares[i])
