"""The read's work beside its networks, done once where once gives the same answer: the search's cuts off a row and
its readings of a group's codes, the layout's slots, the detector's faint flowers. What they find is as before (the
committed photos' readings were compared byte for byte: docs/decisions/read-speed.md); these hold the work down."""

import heapq
import itertools
import math
from types import SimpleNamespace

import numpy as np
import pytest

import vision.correction
import vision.layout
from vision.classes import CLASS_INDEX, CLASSES
from vision.correction import k_best
from vision.detections import FLOWER_CLASSES
from vision.detector import decode
from vision.layout import resolve_slots
from vision.search import _cut_runs


class CountedList(list):
    """A list that counts the times it is walked through."""

    walks = 0

    def __iter__(self):
        type(self).walks += 1
        return super().__iter__()


def test_the_cuts_off_a_row_sum_what_later_cuts_could_save_once_per_row():
    extra = CountedList([-0.5, 1.0, 0.2, -1.5, 0.7, 0.3, -0.1, 2.0, 0.4, -0.2, 0.9, 0.1])
    runs = list(_cut_runs(12, extra, math.inf))
    assert CountedList.walks == 1  # not once per run: a 17-tile row has hundreds
    sizes = [tuple(b - a for a, b in zip((0, *ends), ends, strict=False)) for ends, _ in runs]
    assert sorted(sizes) == sorted(s for n in (1, 2, 3) for s in itertools.product((3, 4), repeat=n))  # all ≤ 12
    for ends, cost in runs:
        assert cost == pytest.approx(sum(extra[e - 1] for e in ends))
    floor = sum(min(0.0, e) for e in extra)
    cheap = list(_cut_runs(12, extra, -2.0))  # a run dearer than that whatever the cuts after it is not made
    assert cheap and all(cost + floor <= -2.0 for _, cost in cheap) and len(cheap) < len(runs)


def test_the_cheapest_readings_of_a_group_are_found_without_heaping_any_too_dear(monkeypatch):
    rng = np.random.default_rng(3)
    options = [sorted((float(c), code) for c, code in zip(rng.uniform(0, 6, 3), "abc", strict=True))
               for _ in range(5)]
    pushed = []

    def push(heap, item):
        pushed.append(item[0])
        heapq.heappush(heap, item)

    monkeypatch.setattr(vision.correction, "heapq", SimpleNamespace(heappush=push, heappop=heapq.heappop))
    base, max_cost = sum(opt[0][0] for opt in options), 4.0
    found = list(k_best(options, None, 10_000, max_cost))
    every = sorted((sum(opt[c][0] for opt, c in zip(options, pick, strict=True)), pick)
                   for pick in itertools.product(range(3), repeat=len(options)))
    within = [(cost, tuple(opt[c][1] for opt, c in zip(options, pick, strict=True)))
              for cost, pick in every if cost - base <= max_cost + 1e-9]
    assert [codes for _, codes in found] == [codes for _, codes in within]  # cheapest first, none left out
    assert pushed and max(pushed) - base <= max_cost  # a reading too dear is never put on the heap


def test_a_group_with_no_slot_read_twice_is_settled_without_going_tile_by_tile(monkeypatch):
    x1 = np.arange(14) * 30.0
    x2, conf = x1 + 28.0, np.linspace(0.5, 0.9, 14)
    calls = []
    flatnonzero = np.flatnonzero
    monkeypatch.setattr(vision.layout.np, "flatnonzero", lambda a: calls.append(1) or flatnonzero(a))
    assert resolve_slots(list(range(14)), x1, x2, conf, pitch=30.0) == (list(range(14)), [])
    assert len(calls) <= 1
    doubled = np.insert(x1, 5, 151.0), np.insert(x2, 5, 179.0)  # a fifteenth box on the sixth tile's slot
    kept, dropped = resolve_slots(list(range(15)), *doubled, np.insert(conf, 5, 0.99), pitch=30.0)
    assert dropped == [6] and kept == [k for k in range(15) if k != 6]


class Asked(np.ndarray):
    """An array that notes how many rows each `argmax` is asked of."""

    rows: list[int] = []

    def argmax(self, *args, **kwargs):
        Asked.rows.append(len(self))
        return np.asarray(self).argmax(*args, **kwargs)


def test_the_detector_asks_the_likeliest_class_of_the_faint_boxes_only():
    anchors = 20_000
    output = np.zeros((4 + len(CLASSES), anchors), np.float32)
    output[:4] = np.tile(np.array([[100.0], [100.0], [20.0], [30.0]], np.float32), anchors)
    output[4:, ::7] = 0.01  # nothing: every box under the faint flowers' threshold
    output[:2, :3] = [[50.0, 200.0, 350.0], [50.0, 50.0, 50.0]]
    output[4 + CLASS_INDEX["1m"], 0] = 0.9  # a tile
    output[4 + CLASS_INDEX["2f"], 1] = 0.1  # a faint flower
    output[4 + CLASS_INDEX["3m"], 2] = 0.1  # a faint tile that is no flower
    Asked.rows = []
    found = decode(output.view(Asked), 0.25, 0.5, flower_conf=0.05)
    assert [CLASSES[i] for i in np.asarray(found.scores).argmax(axis=1)] == ["1m", "2f"]
    assert Asked.rows == [2]  # the two faint boxes, not the 20,000 anchors
    assert FLOWER_CLASSES[CLASS_INDEX["2f"]] and not FLOWER_CLASSES[CLASS_INDEX["3m"]]
