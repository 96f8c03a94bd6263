"""One physical tile set seen in several photos, as crops for the within-set loss (`training.train_classifier --sets`).

    python -m training.set_views --sets 300 --photos 4 --seed 0 --out data/crops/set-views-v1.npz

A table's memory (vision/memory.py) reads a tile by its likeness to the same set's tiles in the table's earlier
photos, so the embedding it compares must keep a set's tiles apart however each photo shows them. For each set: a
training style drawn as the generator draws it (`datasets.styles.pick_style(rng, "train")`: never the held-out
designs), one physical set of it (`SceneSet`: one body, one crop design), and `--photos` photos of winning hands in
it as the evening benchmark draws them (`training.evening.hand_photo`: flowers and melds, the phone's effects and
JPEG, each photo's long side one of SIZES); every labelled face in them is cut as the classifier cuts it, with the
crops' box jitter (`training.crops.JITTER`). Output: an .npz with `x`, `y` (as `training.crops`) and `group` (the
set), each set's crops together.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from datasets.photo import photo_effects
from datasets.styles import SceneSet, pick_style
from scoring.tiles import FLOWERS
from training.crops import JITTER
from training.evening import hand_photo
from vision.classes import CLASS_INDEX, CLASSES
from vision.crop_classifier import CROP_H, CROP_W, cut_crop

SIZES = (768, 1024, 1536)  # the photos' long side: a phone's photo scaled as the reader gets it, near and far


def set_views(sets: int, photos: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The crops of `sets` sets, each seen in `photos` photos: crops, class ids, and each crop's set."""
    rng = np.random.default_rng(seed)
    effects = photo_effects()
    xs, ys, groups = [], [], []
    for k in range(sets):
        tile_set = SceneSet(pick_style(rng, "train"), rng)
        for _ in range(photos):
            image, labels, _ = hand_photo(rng, tile_set, int(rng.choice(SIZES)), effects)
            for c, *box in labels:
                if CLASSES[c] != "back":
                    xs.append(cut_crop(image, box, jitter=rng.uniform(-JITTER, JITTER, 4)))
                    ys.append(c)
                    groups.append(k)
    x = np.stack(xs) if xs else np.zeros((0, CROP_H, CROP_W, 3), np.uint8)
    return x, np.array(ys, np.int64), np.array(groups, np.int64)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.set_views", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=int, required=True)
    parser.add_argument("--photos", type=int, default=4, help="photos of each set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help=".npz to write")
    args = parser.parse_args(argv)
    if args.sets < 1 or args.photos < 2:
        raise SystemExit("--sets must be at least 1 and --photos at least 2 (a set seen once has nothing to compare)")
    x, y, group = set_views(args.sets, args.photos, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, x=x, y=y, group=group)
    flowers = int(np.isin(y, [CLASS_INDEX[c] for c in FLOWERS]).sum())
    print(f"{len(y)} crops of {CROP_H}x{CROP_W} ({flowers} of them flowers) from {args.sets} sets seen in "
          f"{args.photos} photos each → {args.out}")


if __name__ == "__main__":
    main()
