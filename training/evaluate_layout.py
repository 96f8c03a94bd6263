"""What layout, hand finding, group kinds and correction make of perfect detections: the read path's
ceiling, whatever the detector.

    python -m training.evaluate_layout DIR [--split val] [--noise 0.045] [--seed 0] [--json OUT.json]

Every labelled box of each scene (the hand, and at a table the walls, discards and loose tiles
too) becomes a detection of its labelled code; `--noise` moves each box edge by that many tile
widths (standard deviation; the detector's own edges are off by about 4.5%, its centres by 2.5%:
`box_error` of `python -m training.evaluate` on the unseen set). Reports the share of whole hands
(every hand tile in frame and labelled, as `training.evaluate` counts them) read exactly (the same
test as `training.evaluate`'s hand exact) and the misread ones by what went wrong; then, over every
scene, `training.evaluate`'s figures of the hand the player is shown (`hand`: taps to fix it,
groups-and-kinds exact, tiles wrongly kept in it or set apart), pooled and per scene kind.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from training.evaluate import HandTally, judge_hand, reading_hand, same_hand, samples_of
from vision.boxes import match
from vision.classes import CLASS_INDEX, CLASSES
from vision.detections import Detections
from vision.read import read_detections
from vision.settings import READER_DEFAULT


def perfect_detections(boxes: np.ndarray, codes: list[str], noise: float, rng) -> Detections:
    scores = np.full((len(codes), len(CLASSES)), 0.002, np.float32)
    scores[np.arange(len(codes)), [CLASS_INDEX[c] for c in codes]] = 0.9
    tile = float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) if len(boxes) else 0.0
    return Detections((boxes + rng.normal(0.0, noise * tile, boxes.shape)).astype(np.float32), scores)


def evaluate_layout(samples: list[dict], noise: float = 0.0, seed: int = 0) -> dict:
    hands = exact = warned_missing = 0
    missed: Counter = Counter()  # how the wrong readings differ from the truth
    everything, by_scene = HandTally(), defaultdict(HandTally)
    for index, s in enumerate(samples):
        rng = np.random.default_rng([seed, index])  # a scene's noise whatever the other scenes read
        reading = read_detections(perfect_detections(s["boxes"], s["codes"], noise, rng))
        judged = judge_hand(reading, match(s["boxes"], reading.best.boxes), s["codes"], s["truth"])
        everything.add(judged)
        by_scene[s["scene"]].add(judged)
        truth = s["truth"]
        if truth is None or truth.hand is None or not truth.fully_labelled():
            continue
        hands += 1
        warned_missing += reading.warning("tile-may-be-missing") is not None
        hand = reading_hand(reading)
        if hand is not None and same_hand(hand, truth.hand):
            exact += 1
            continue
        if hand is None:  # legal, a tile left for the player to name: a kong of four backs
            missed["a tile for the player to name (a kong of four backs)" if reading.legal
                   else "no legal hand read"] += 1
        elif len(hand.melds) < len(truth.hand.melds):
            missed["shown melds read as concealed sets"] += 1
        elif hand.win != truth.hand.win:  # a photo cannot say which tile of the row won
            missed["winning tile inside the row, another taken"] += 1
        else:
            missed["other"] += 1
    return {"hands": hands, "hand_exact": round(exact / max(hands, 1), 4), "noise": noise,
            "reader_settings": READER_DEFAULT.to_json(),
            "detector_settings": None,  # label boxes: no detector read them
            "wrong": dict(missed.most_common()), "warned_missing": round(warned_missing / max(hands, 1), 4),
            "scenes": len(samples), "hand": everything.result(),
            "by_scene": {scene: {"scenes": len(t.judged), "hand": t.result()} for scene, t in sorted(by_scene.items())}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.evaluate_layout", description=__doc__)
    parser.add_argument("dir", type=Path)
    parser.add_argument("--split", default="val")
    parser.add_argument("--noise", type=float, default=0.0, help="box edge error, in tile widths (std)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    result = evaluate_layout(samples_of(args.dir, args.split, None), args.noise, args.seed)
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
