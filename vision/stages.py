"""The times of a read's stages, as the reading carries them (`PhotoReading.stage_ms`, as ultralytics' results
carry `speed`): the milliseconds spent in each named stage, summed over every pass and turn of one read.

`read_photo` opens a `timing()`; the detector, the crop classifier and the layout mark their stages with
`stage(name)` wherever they are called from. Outside a `timing()` a stage times nothing, so a detector used
on its own pays no clock. A stage inside another is taken out of it: the stages do not overlap, and they and
`OTHER` (the read's time in no stage) add up to the whole read. The clock is the caller's context's
(`contextvars`), so reads in several threads at once keep their own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

# The stages of a read, each timed where its work is done.
DECODE = "decode"  # decoding the photo's pixels at the size the read asks for (`vision.photo.Photo.pixels`)
DETECT = "detect"  # the detector's passes less their network runs: resizing, decoding boxes, suppressing overlaps
DETECTOR_NETWORK = "detector network"  # the detector's network runs (`TileDetector.detect`)
CROPS = "crops"  # cutting each tile's crop for the classifier (`TileClassifier.crops`)
CLASSIFIER_NETWORK = "classifier network"  # the crop classifier's network runs (`TileClassifier.read_crops`)
CLASSIFY = "classify"  # the rest of rescoring the tiles from their crops: combining scores, a table's memory
LAYOUT = "layout"  # everything after the detector but the search: rows, the hand's parts, the reading built
SEARCH = "search"  # the search for the likeliest legal hand (`vision.search.search`), with the layouts it tries
OTHER = "other"  # the read's time in none of its stages: turning the photo, mapping boxes back
# in a read's order
STAGES = (DECODE, DETECT, DETECTOR_NETWORK, CROPS, CLASSIFIER_NETWORK, CLASSIFY, LAYOUT, SEARCH, OTHER)
NETWORKS = (DETECTOR_NETWORK, CLASSIFIER_NETWORK)


@dataclass
class StageClock:
    ms: dict[str, float] = field(default_factory=dict)  # stage → milliseconds (in `STAGES`' order once left)
    inner: list[float] = field(default_factory=list)  # per open stage, the seconds its inner stages took


_clock: ContextVar[StageClock | None] = ContextVar("stage_clock", default=None)


@contextmanager
def timing() -> Iterator[StageClock]:
    """Times the stages inside into the clock it yields; on leaving, `OTHER` holds the rest of the time."""
    clock = StageClock()
    token = _clock.set(clock)
    clock.inner.append(0.0)
    start = time.perf_counter()
    try:
        yield clock
    finally:
        rest = time.perf_counter() - start - clock.inner.pop()
        clock.ms[OTHER] = rest * 1000
        clock.ms = {name: clock.ms[name] for name in sorted(clock.ms, key=STAGES.index)}
        _clock.reset(token)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Adds the time inside, less that of the stages inside it, to stage `name` of the open `timing()`."""
    clock = _clock.get()
    if clock is None:
        yield
        return
    clock.inner.append(0.0)
    start = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - start
        clock.ms[name] = clock.ms.get(name, 0.0) + (elapsed - clock.inner.pop()) * 1000
        clock.inner[-1] += elapsed
