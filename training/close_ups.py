"""How the reader finds tiles photographed close up: each close-up's tiles as the detector reads them.

    python -m training.close_ups [DIR] [--phone] [--json OUT.json] [--detector-settings FILE]

DIR (default tests/data/close-ups, made by `python -m datasets.close_ups`) holds photos (JPEG or PNG), with YOLO labels
or none. For each photo: its labelled tiles, and for each whether the detector (`TileDetector.read`, the crop classifier
after it) found it (IoU 0.5), with which code and what confidence; the boxes it found in all; how many passes of its
network it took; their network time; and what its first pass at the model's size alone finds surely (how many boxes,
the surest's score). `--phone` reads each enlarged to a 12 MP phone photo (4000x3000) as a phone
would give it; `--detector-settings` reads with other `DetectorSettings` (vision/settings.py). The summary: tiles
found, found with their codes, found at the card's confidence or more, the median confidence of those found, and the
passes in all.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import cv2
import numpy as np

from training.bench import PHONE
from vision.boxes import match
from vision.detector import TileDetector
from vision.labels import read_labels
from vision.settings import add_settings_arguments, settings_from_arguments
from vision.stages import DETECTOR_NETWORK, timing

REPO = Path(__file__).resolve().parents[1]
CLOSE_UPS = REPO / "tests" / "data" / "close-ups"


class CountingDetector(TileDetector):
    """The detector, counting its network's passes."""

    passes = 0

    def detect(self, *args, **kwargs):
        self.passes += 1
        return super().detect(*args, **kwargs)


def judge(detector: CountingDetector, photo: Path, phone: bool) -> dict:
    """One photo's labelled tiles (none where it has no labels) as the detector reads them."""
    image = cv2.imread(str(photo))
    label = photo.with_suffix(".txt")
    boxes, codes = read_labels(label, image.shape[1], image.shape[0]) if label.exists() else (np.zeros((0, 4)), [])
    if phone:
        scale = PHONE[0] / image.shape[1]
        image, boxes = cv2.resize(image, PHONE, interpolation=cv2.INTER_CUBIC), boxes * scale
    first = detector.sure(detector.detect(image, detector.card.imgsz, faint_flowers=True), None)
    detector.passes = 0
    with timing() as clock:
        dets = detector.read(image)
    found = match(boxes, dets.boxes)
    tiles = [{"code": code, "read": dets.raw_codes[found[t]] if t in found else None,
              "conf": round(float(dets.confidences[found[t]]), 3) if t in found else None}
             for t, code in enumerate(codes)]
    return {"photo": photo.name, "tiles": tiles, "boxes": len(dets), "passes": detector.passes,
            "first_pass": {"boxes": len(first),
                           "surest": round(float(first.confidences.max()), 3) if len(first) else 0.0},
            "network_ms": round(clock.ms.get(DETECTOR_NETWORK, 0.0))}


def summary(photos: list[dict], sure: float) -> dict:
    tiles = [t for p in photos for t in p["tiles"]]
    confs = [t["conf"] for t in tiles if t["conf"] is not None]
    return {"tiles": len(tiles), "found": len(confs), "right_code": sum(t["read"] == t["code"] for t in tiles),
            "sure": sum(c >= sure for c in confs), "median_conf": round(statistics.median(confs), 3) if confs else None,
            "passes": sum(p["passes"] for p in photos),
            "median_network_ms": statistics.median(p["network_ms"] for p in photos)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.close_ups", description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path, nargs="?", default=CLOSE_UPS)
    parser.add_argument("--phone", action="store_true", help="read each enlarged to 4000x3000")
    parser.add_argument("--json", type=Path, metavar="OUT")
    add_settings_arguments(parser)
    args = parser.parse_args(argv)
    detector = CountingDetector(settings=settings_from_arguments(args)[1])
    photos = [judge(detector, p, args.phone) for p in sorted(args.dir.iterdir()) if p.suffix in (".jpg", ".png")]
    for p in photos:
        read = ", ".join(f"{t['code']}→{t['read'] or '-'}" + (f" {t['conf']:.2f}" if t["conf"] is not None else "")
                         for t in p["tiles"])
        first = p["first_pass"]
        print(f"{p['photo']}: {read}; {p['boxes']} boxes, {p['passes']} passes, network {p['network_ms']} ms "
              f"(first pass alone: {first['boxes']} sure boxes, the surest {first['surest']:.2f})")
    result = {"photos": photos, "summary": summary(photos, detector.card.conf),
              "detector_settings": detector.settings.to_json()}
    print(json.dumps(result["summary"]))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
