"""Photo → hand time with the model loaded, beside the peer detector's time on the same photos.

    python -m training.bench [PHOTO_OR_DIR ...] [--repeat 1] [--stages] [--memory FILE]
                             [--reader-settings FILE] [--detector-settings FILE]

Default photos: the real photos of tile sets in the shared folder's data/real-scenes (optional, datasets/shared.py;
sizes 640 px to 3700 px) and the committed sample scenes upscaled to a 12 MP phone size (4000x3000). Our time is
opening the photo as an upload is (`vision.photo.open_photo`: a JPEG decoded only as finely as the read needs, EXIF
orientation) + the detector passes + layout + the hand search; the peer's (`mahjong-detector`, one 640 px pass, 34
classes) is its preprocessing + detection on the whole decoded photo. Each photo's time is the least of its
`--repeat` reads (the two read it in turn); the figures are the medians over the photos. `--stages` also says where
our time goes, from the same reads: opening and decoding the photo, then each stage as the reading carries it
(`PhotoReading.stage_ms`, summed over every pass and turn of the read: the networks' runs apart from the work
around them), the whole read less all its networks' runs, and that plus one run of the detector's network on the
first pass's input (the read, were every other network run free), for each photo (with the tiles its reading shows)
and as medians; each stage's time is the least of its `--repeat` reads. `--memory FILE` reads each photo a third
time, with that table's memory (vision/memory.py, made by `python -m vision remember`), loaded afresh for each read
as the app loads it after a lesson (so each read fits its probe), and says what the memory adds to a read.
`--reader-settings FILE` and `--detector-settings FILE` read with other settings (`vision.settings`; a detector's
`{"reduced_decode": 0}`: every JPEG decoded whole).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from datasets.shared import missing_reason, shared_path
from vision.classes import CLASSES
from vision.detector import TileDetector
from vision.memory import TableMemory, load_memory
from vision.photo import open_photo
from vision.read import PhotoReading, read_photo
from vision.settings import add_settings_arguments, settings_from_arguments
from vision.stages import DECODE, NETWORKS, STAGES

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "tests" / "data" / "samples"
PHONE = (4000, 3000)


def default_photos(tmp: Path) -> list[Path]:
    reason = missing_reason("data", "real-scenes", needed_for="timing real photos")
    if reason:
        print(f"{reason}; timing the committed samples only", file=sys.stderr)
    scenes = shared_path("data", "real-scenes").glob("*")
    return sorted(p for p in scenes if p.suffix.lower() in (".jpg", ".png")) + phone_photos(tmp)


def phone_photos(tmp: Path) -> list[Path]:
    """The committed sample scenes enlarged to a phone photo's size, written as JPEGs into `tmp`."""
    photos = []
    for sample in sorted(SAMPLES.glob("*.jpg")):
        image = cv2.imread(str(sample))
        h, w = image.shape[:2]
        size = PHONE if w >= h else PHONE[::-1]
        out = tmp / f"phone-{sample.name}"
        cv2.imwrite(str(out), cv2.resize(image, size, interpolation=cv2.INTER_CUBIC), [cv2.IMWRITE_JPEG_QUALITY, 90])
        photos.append(out)
    return photos


def probe_fit(stored: bytes) -> float:
    """Seconds a memory loaded from `stored` takes to blend its first tile: fitting its probe, nearly all of it."""
    times = []
    for _ in range(5):
        memory = TableMemory.from_bytes(stored)
        dim = next(iter(memory.examples.values())).shape[1]
        probs, crop = np.full((1, len(CLASSES)), 1 / len(CLASSES), np.float32), np.ones((1, dim), np.float32)
        start = time.perf_counter()
        memory.blend(probs, crop)
        times.append(time.perf_counter() - start)
    return min(times)


def first_network(detector: TileDetector, image: np.ndarray) -> float:
    """Seconds of one run of the detector's network on the first pass's input (`image` at the card's size): the
    one network run no read of a photo can do without."""
    blob, _ = detector.network_input(image, detector.card.imgsz)
    start = time.perf_counter()
    detector.session.run(None, {detector.input_name: blob})
    return time.perf_counter() - start


def stage_times(reading: PhotoReading, opened: float) -> dict[str, float]:
    """Seconds of each stage of one whole read, as the reading carries them (`PhotoReading.stage_ms`, every pass
    and turn of the read; vision/stages.py), decoding with the `opened` seconds the photo took to open (all its
    decoding but a whole JPEG's); then the read less all its networks' runs, every pass of the detector and of the
    crop classifier: what no cheaper network can take off."""
    stages = {name: reading.stage_ms.get(name, 0.0) / 1000 for name in STAGES}
    stages[DECODE] += opened
    return {**stages, "besides the networks": sum(stages.values()) - sum(stages[name] for name in NETWORKS)}


def per_photo(photo: Path, ours: float, peer: float, stages: dict[str, float]) -> str:
    """One photo's line of `--stages`: its tiles, our read and the peer's, and our stages, in ms."""
    times = ", ".join(f"{name} {t * 1000:.0f}" for name, t in stages.items() if name != "tiles")
    return (f"{photo.name[:32]:32s} {stages['tiles']:3d} tiles  ours {ours * 1000:4.0f}  "
            f"peer {peer * 1000:4.0f}  ({times})")


def main(argv: list[str] | None = None) -> None:
    import tempfile

    from training.evaluate import peer_detect

    parser = argparse.ArgumentParser(prog="python -m training.bench", description=__doc__)
    parser.add_argument("photos", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--stages", action="store_true", help="also time each stage of our read")
    parser.add_argument("--memory", type=Path, metavar="FILE", help="also read with this table's memory")
    add_settings_arguments(parser)
    args = parser.parse_args(argv)
    reader, settings = settings_from_arguments(args)

    detector = TileDetector(settings=settings)
    memory = load_memory(args.memory, detector.classifier) if args.memory else None
    stored = memory.to_bytes() if memory is not None else b""
    with tempfile.TemporaryDirectory() as tmp:
        photos = [p for arg in args.photos for p in (sorted(arg.glob("*.[jp][pn]g")) if arg.is_dir() else [arg])]
        photos = photos or default_photos(Path(tmp))
        ours, peer, stages, remembered = [], [], [], []
        for photo in photos:
            mine, theirs, with_memory, reads = [], [], [], []
            for _ in range(args.repeat):  # in turn, so that a shared machine's load falls on both alike
                start = time.perf_counter()
                opened = open_photo(photo)
                opening = time.perf_counter() - start
                reading = read_photo(opened, detector, settings=reader)
                mine.append(time.perf_counter() - start)
                image = opened.pixels()  # the whole photo, decoded outside both times
                start = time.perf_counter()
                peer_detect(image)
                theirs.append(time.perf_counter() - start)
                if args.stages:
                    reads.append({**stage_times(reading, opening),
                                  "the first pass's network": first_network(detector, image),
                                  "tiles": len(reading.best.shown)})
                if memory is not None:
                    # a copy as the app loads it after each lesson: the read fits the memory's probe afresh
                    fresh = TableMemory.from_bytes(stored)
                    start = time.perf_counter()
                    read_photo(open_photo(photo), detector, memory=fresh, settings=reader)
                    with_memory.append(time.perf_counter() - start)
            ours.append(min(mine))  # other jobs only ever add time: a photo's time is its least
            remembered += [min(with_memory)] if with_memory else []
            peer.append(min(theirs))
            if args.stages:
                stages.append({name: min(r[name] for r in reads) for name in reads[0]})
                print(per_photo(photo, ours[-1], peer[-1], stages[-1]))
    mo, mp = statistics.median(ours) * 1000, statistics.median(peer) * 1000
    print(f"{len(photos)} photos x {args.repeat}, ours on {detector.runtime}")
    print(f"taishu photo -> hand : median {mo:7.1f} ms  (max {max(ours) * 1000:.0f} ms)")
    print(f"peer detection only  : median {mp:7.1f} ms  (max {max(peer) * 1000:.0f} ms)")
    print(f"ratio                : {mo / mp:.2f}x the peer")
    if remembered:
        mm = statistics.median(remembered) * 1000
        print(f"with the memory      : median {mm:7.1f} ms ({len(memory)} examples): {mm / mo:.2f}x without it")
        print(f"  of it, the probe's fit: {probe_fit(stored) * 1000:.1f} ms (a fresh memory's first blend, best of 5)")
    for name in [n for n in stages[0] if n != "tiles"] if stages else ():
        print(f"  {name:20s}: median {statistics.median(t[name] for t in stages) * 1000:7.1f} ms")
    if stages:  # what stays however cheap the networks, beside the peer's whole time
        besides = [t["besides the networks"] for t in stages]
        shares = [b / p for b, p in zip(besides, peer, strict=True)]
        print(f"besides the networks : {statistics.median(besides) * 1000 / mp:.2f}x the peer at the median "
              f"(per photo {min(shares):.2f}-{max(shares):.2f}x)")
        # the same with the one network run no read of a photo can do without: the detector's first pass
        floor = [b + t["the first pass's network"] for b, t in zip(besides, stages, strict=True)]
        shares = [f / p for f, p in zip(floor, peer, strict=True)]
        print(f"and one first pass   : {statistics.median(floor) * 1000 / mp:.2f}x the peer at the median "
              f"(per photo {min(shares):.2f}-{max(shares):.2f}x)")


if __name__ == "__main__":
    main()
