"""Judge a crop classifier's ONNX file on crops: top-1, flowers' top-1, per-class recall, confusions.

    python -m training.judge_classifier data/crops/unseen-v3-val.npz [more.npz ...] [--onnx FILE] [--json OUT]

The figures `training.train_classifier` writes into classifier.json after training, for any model file (the
committed one before a retrain, a candidate after), so before and after are judged alike.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from training.train_classifier import ONNX_NAME, judge, shown
from vision.crop_classifier import TileClassifier
from vision.model_files import MODELS_DIR, sha256_of


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.judge_classifier", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("crops", type=Path, nargs="+", help=".npz crops (training.crops, training.flower_faces)")
    parser.add_argument("--onnx", type=Path, default=MODELS_DIR / ONNX_NAME)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    for path in [args.onnx, *args.crops]:
        if not path.is_file():
            raise SystemExit(f"no such file: {path}")
    classifier = TileClassifier(args.onnx, sha256_of(args.onnx))
    report = {"onnx": str(shown(args.onnx)), "sha256": classifier.sha256, "runtime": classifier.engine.to_json()}
    for path in args.crops:
        data = np.load(path)
        report[str(shown(path))] = judge(classifier, data["x"], data["y"])
    text = json.dumps(report, indent=1, ensure_ascii=False)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
