"""What a player waits for on the page: the run of app.py that reads a new photo, and a run after a tap.

    python -m training.page_bench [PHOTO ...] [--repeat 5]

Each photo (default: the committed sample scenes enlarged to a phone's 12 MP, as `training.bench` makes
them) is uploaded into a fresh page in Streamlit's AppTest (the script run in-process, with the real
models) and the run that reads it and draws the page is timed; then `--repeat` taps on the 聽牌 box,
each a whole run of the page with the photo on it. Printed: the medians over the photos of the upload
run (its read alone is `training.bench`) and of the tap runs. The browser adds the upload's transfer and
drawing the page to these. The script is compiled once, as a server compiles it (`server_script_cache`).
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest.mock import patch

from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest, local_script_runner

from training.bench import phone_photos
from vision.model_files import runtime

# each AppTest warns that its runs are bare (not under `streamlit run`), which is what is timed here
logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").disabled = True

APP = Path(__file__).resolve().parents[1] / "app.py"


@contextmanager
def server_script_cache() -> Iterator[ScriptCache]:
    """AppTest's runs within share one script cache, as a server's runs share its runtime's: the server compiles
    app.py once (again only when the file changes), where AppTest compiles it afresh for each run, 50-130 ms
    that no player waits for."""
    cache = ScriptCache()
    with patch.object(local_script_runner, "ScriptCache", return_value=cache):
        yield cache


def timed(at: AppTest) -> float:
    start = time.perf_counter()
    at.run()
    if at.exception:
        raise RuntimeError(f"the page failed: {[e.value for e in at.exception]}")
    return time.perf_counter() - start


def page_times(photo: Path, taps: int) -> tuple[float, list[float]]:
    """Seconds of the run that reads `photo` on a fresh page, and of each of `taps` runs after a tap."""
    at = AppTest.from_file(str(APP), default_timeout=300)
    timed(at)
    at.file_uploader(key="upload-0").set_value((photo.name, photo.read_bytes(), "image/jpeg"))
    upload = timed(at)
    if not at.image:
        raise RuntimeError(f"{photo.name}: the page shows no photo")
    ready = at.checkbox(key="ready")
    tap_times = []
    for k in range(taps):
        (ready.check() if k % 2 == 0 else ready.uncheck())
        tap_times.append(timed(at))
    return upload, tap_times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("photos", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=5, help="taps timed on each photo's page")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, server_script_cache():
        photos = args.photos or phone_photos(Path(tmp))
        uploads, taps = [], []
        for photo in photos:
            upload, tap_times = page_times(photo, args.repeat)
            uploads.append(upload)
            taps.append(statistics.median(tap_times))
            each = " ".join(f"{t * 1000:.0f}" for t in tap_times)
            print(f"{photo.name:32s} upload run {upload * 1000:6.0f} ms   tap runs {each} ms")
    print(f"{len(photos)} photos, the networks on {runtime()}: upload run median "
          f"{statistics.median(uploads) * 1000:.0f} ms, tap run median {statistics.median(taps) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
