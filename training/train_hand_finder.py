"""Fit the hand finder's weights (`vision.hand_finding`) on generated scenes, judge them on others.

    python -m training.train_hand_finder TRAIN_DIR [TRAIN_DIR ...] --judge DIR [--draws 3]
        [--out models/hand_finder.json]

Each scene's labelled boxes become detections of their codes (as `training.evaluate_layout` makes
them), moved by box noise like the detector's (0 or 4.5% of a tile) with a few tiles dropped (a
missed detection); the whole-photo layout cuts them into parts and each part is labelled hand or
not from the scene's truth (`groups` are the hand unless "loose"; `surround` is walls, discards and
other players' tiles). A small network (`fit`). The
judge set (unseen styles, never fitted on) gives the share of parts and of whole photos sorted right.
The weights' SHA-256 goes into the model card beside them (models/model.json), as the reader checks it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import numpy as np

from training.evaluate import samples_of
from training.evaluate_layout import perfect_detections
from vision.hand_finding import FEATURES, hand_probability, joined, part_features
from vision.layout import group_rows
from vision.model_files import HAND_FINDER, sha256_of

NOISE = (0.0, 0.045)
DROP = 0.03  # share of tiles a draw leaves out
L2 = 1e-4
HIDDEN = 16


def roles(sample: dict) -> list[bool]:
    """Whether each labelled tile belongs to the hand."""
    hand = [False] * len(sample["codes"])
    truth = sample["truth"]
    if truth is None or truth.hand is None:  # a real photo, or a scene of no hand
        return hand
    for g in truth.hand_groups():
        for r in g.label_rows:
            if r is not None:
                hand[r] = True
    return hand


def part_rows(samples: list[dict], draws: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, is hand, photo index) of every part of every draw."""
    rng = np.random.default_rng(seed)
    xs, ys, photo = [], [], []
    for k, s in enumerate(samples):
        hand = np.array(roles(s))
        for d in range(draws):
            keep = rng.random(len(hand)) >= (DROP if d else 0.0)
            if keep.sum() < 1:
                continue
            dets = perfect_detections(s["boxes"][keep], [c for c, kp in zip(s["codes"], keep, strict=True) if kp],
                                      NOISE[d % len(NOISE)], rng)
            truth = hand[keep]
            parts = joined(dets, group_rows(dets))
            f = part_features(dets, parts)
            xs.append(f)
            ys += [float(np.mean(truth[list(g)]) > 0.5) for g in parts.groups]
            photo += [k * draws + d] * len(f)
    return np.concatenate(xs), np.array(ys), np.array(photo)


def fit(x: np.ndarray, y: np.ndarray, hidden: int = HIDDEN, steps: int = 1500, seed: int = 0) -> dict:
    """A one-hidden-layer network (tanh) with a logistic output, full-batch Adam on the log loss plus
    an L2 penalty: a person weighs size and place together (a tile as large as the hand's but far
    above it is a wall), which one linear score cannot."""
    rng = np.random.default_rng(seed)
    params = {"w1": rng.normal(0, 1 / np.sqrt(x.shape[1]), (x.shape[1], hidden)), "w2": np.zeros(hidden),
              "b2": np.zeros(1)}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    for t in range(1, steps + 1):
        a = np.tanh(x @ params["w1"])
        p = 1 / (1 + np.exp(-np.clip(a @ params["w2"] + params["b2"], -30, 30)))
        d = (p - y) / len(y)
        grads = {"w2": a.T @ d + L2 * params["w2"], "b2": np.array([d.sum()]),
                 "w1": x.T @ (np.outer(d, params["w2"]) * (1 - a * a)) + L2 * params["w1"]}
        for k, g in grads.items():
            m[k] = 0.9 * m[k] + 0.1 * g
            v[k] = 0.999 * v[k] + 0.001 * g * g
            params[k] -= 0.01 * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
    return {k: np.round(p, 5).tolist() for k, p in params.items()}


def judge(w: np.ndarray, x: np.ndarray, y: np.ndarray, photo: np.ndarray) -> dict:
    right = (hand_probability(x, w) > 0.5) == (y > 0.5)
    photos = np.unique(photo)
    return {"parts": int(len(y)), "parts_right": round(float(right.mean()), 4),
            "photos": int(len(photos)),
            "photos_all_right": round(float(np.mean([right[photo == p].all() for p in photos])), 4)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.train_hand_finder", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("train", type=Path, nargs="+", help="generated scene sets (training styles)")
    parser.add_argument("--judge", type=Path, required=True, help="a generated set of unseen styles")
    parser.add_argument("--draws", type=int, default=2, help="noisy copies of each training scene")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=HAND_FINDER)
    args = parser.parse_args(argv)
    train = [s for root in args.train for split in ("train", "val") for s in samples_of(root, split, None)]
    x, y, photo = part_rows(train, args.draws, args.seed)
    w = fit(x, y)
    jx, jy, jphoto = part_rows(samples_of(args.judge, "val", None), 2, args.seed + 1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    card = {"features": list(FEATURES), "weights": w, "hidden": HIDDEN,
            "fitted_on": [str(p) for p in args.train], "draws": args.draws, "noise": list(NOISE), "drop": DROP,
            "l2": L2, "commit": commit, "train": judge(w, x, y, photo), "judge": {"data": str(args.judge)}
            | judge(w, jx, jy, jphoto)}
    args.out.write_text(json.dumps(card, indent=1) + "\n")
    record_hash(args.out)
    print(json.dumps(card, indent=1))


def record_hash(weights: Path) -> None:
    """The new weights' SHA-256 into the model card beside them, which the reader checks them against."""
    card_path = weights.parent / "model.json"
    if not card_path.exists():  # weights fitted for a trial outside a model folder
        return
    card = json.loads(card_path.read_text())
    card["sha256"][weights.name] = sha256_of(weights)
    card_path.write_text(json.dumps(card, indent=1) + "\n")


if __name__ == "__main__":
    main()
