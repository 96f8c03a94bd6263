"""The clock a read keeps of its stages (vision/stages.py), without a model."""

import time
from concurrent.futures import ThreadPoolExecutor

from vision.stages import DETECT, DETECTOR_NETWORK, OTHER, SEARCH, stage, timing


def test_a_stage_inside_another_is_taken_out_of_it_and_the_rest_of_the_read_is_other():
    start = time.perf_counter()
    with timing() as clock:
        with stage(DETECT):
            time.sleep(0.02)
            with stage(DETECTOR_NETWORK):
                time.sleep(0.1)
        time.sleep(0.01)
        with stage(DETECT):  # a second pass adds to the first
            time.sleep(0.01)
    took = (time.perf_counter() - start) * 1000
    ms = clock.ms
    assert list(ms) == [DETECT, DETECTOR_NETWORK, OTHER]  # in a read's order, whatever order they were timed in
    assert 30 <= ms[DETECT] < 100 <= ms[DETECTOR_NETWORK] and ms[OTHER] >= 10
    assert took - 1 <= sum(ms.values()) <= took


def test_a_stage_outside_a_read_times_nothing_and_each_thread_keeps_its_own_clock():
    with stage(SEARCH):
        pass

    def read(pause: float) -> dict[str, float]:
        with timing() as clock, stage(SEARCH):
            time.sleep(pause)
        return clock.ms

    with ThreadPoolExecutor(2) as pool:
        short, long = pool.map(read, (0.02, 0.1))
    assert list(short) == list(long) == [SEARCH, OTHER]
    assert 20 <= short[SEARCH] < 100 <= long[SEARCH]
