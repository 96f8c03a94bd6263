"""How well a flower's identity can be read in each unseen design: by the classifier, and by a table's memory.

    python -m training.flower_identity [--hands 12] [--seed 5000] [--size 512] [--json OUT]

For each unseen design of the evening benchmark (`training.evening.DESIGNS`), `--hands` generated photos of
winning hands in one set of it; every labelled flower tile is cut as the reader cuts it and judged two ways:
*model*, the crop classifier's top class is its flower; *nearest example*, among the flowers of the set's
other photos the crop's likest by the classifier's embedding, steadied as `vision.memory.TableMemory` compares
flowers (`vision.memory.steadied`), is of its flower, over the flowers whose flower another photo shows. The
first is what a flower the memory has not been taught gets; the second, roughly, what the memory gives once it
has one.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from datasets.photo import photo_effects
from scoring.tiles import is_flower
from training.evening import DESIGNS, design_name, hand_photo, tile_set_of
from vision.classes import CLASSES
from vision.crop_classifier import TileClassifier
from vision.detector import TileDetector
from vision.memory import steadied, unit
from vision.settings import READER_DEFAULT


def flower_crops(style: str, anchor: float | None, hands: int, seed: int, size: int,
                 classifier: TileClassifier) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The flower tiles of `hands` photos of one set of a design: their crops, codes and photo numbers."""
    rng = np.random.default_rng(seed)
    tile_set, effects = tile_set_of(style, anchor, rng), photo_effects()
    crops, codes, photo = [], [], []
    for n in range(hands):
        image, labels, _ = hand_photo(rng, tile_set, size, effects)
        flowers = [(CLASSES[k], box) for k, *box in labels if is_flower(CLASSES[k])]
        if flowers:
            crops.append(classifier.crops(image, np.array([box for _, box in flowers], np.float32)))
            codes += [code for code, _ in flowers]
            photo += [n] * len(flowers)
    return np.concatenate(crops), codes, np.array(photo)


def judge(probs: np.ndarray, embeddings: np.ndarray, codes: list[str], photo: np.ndarray) -> dict:
    """The model's and the nearest example's share of flowers read right (`None` where nothing is judged)."""
    truth = np.array(codes)
    vectors = unit(embeddings)
    similar = np.where(photo[:, None] == photo[None, :], -np.inf, vectors @ vectors.T)  # other photos only
    shown_elsewhere = np.array([(truth[photo != photo[i]] == truth[i]).any() for i in range(len(truth))])
    nearest = truth[similar.argmax(axis=1)]
    rate = lambda right: round(float(np.mean(right)), 4) if len(right) else None  # noqa: E731
    return {"flowers": len(truth), "model": rate(np.array(CLASSES)[probs.argmax(axis=1)] == truth),
            "judged by example": int(shown_elsewhere.sum()),
            "nearest example": rate((nearest == truth)[shown_elsewhere])}


def run(hands: int, seed: int, size: int) -> dict:
    classifier = TileDetector().classifier
    out = {"hands": hands, "seed": seed, "size": size, "runtime": classifier.engine.to_json(), "designs": {}}
    for style, anchor in DESIGNS:
        crops, codes, photo = flower_crops(style, anchor, hands, seed, size, classifier)
        probs, embeddings = classifier.read_crops(crops)
        embeddings = steadied(classifier, crops, embeddings, np.ones(len(crops), bool),
                              READER_DEFAULT.flower_view_shift)
        out["designs"][design_name(style, anchor)] = judge(probs, embeddings, codes, photo)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.flower_identity", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=12, help="photos per design, all of one set")
    parser.add_argument("--seed", type=int, default=5000)
    parser.add_argument("--size", type=int, default=512, help="the photos' long side")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    result = run(args.hands, args.seed, args.size)
    for name, r in result["designs"].items():
        print(f"{name:28s} {r['flowers']:3d} flowers  model {r['model']:.0%}  "
              f"nearest example {r['nearest example'] or 0:.0%} (of {r['judged by example']})")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
