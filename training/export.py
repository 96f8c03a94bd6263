"""Make trained weights the committed model: ONNX export, hashes and the model card's metadata.

    python -m training.export runs/train/tiles/weights/last.pt --data DATA/data.yaml
    python -m training.export --classifier-only [--out MODEL_DIR]

Writes models/tiles.pt (to continue training from), models/tiles.onnx (what `vision` runs) and
models/model.json (hashes checked at load, input size, the tile size the model was trained at).
The crop classifier that `training/train_classifier.py` recorded in models/classifier.json goes into
model.json too (its file name and hash), so the read path keeps its second stage; with
`--classifier-only` only that entry of the existing model.json is (re)written, after giving a classifier
exported without one its `embedding` output (what a table's memory compares, vision/memory.py). The
hand finder's hash (models/hand_finder.json, written by `training.train_hand_finder`) is recorded as found.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import yaml
from PIL import Image

from datasets.yolo import IMAGE_SUFFIXES
from training.ultralytics_env import REPO, load_ultralytics
from vision.classes import CLASSES
from vision.crop_classifier import EMBEDDING
from vision.model_files import HAND_FINDER, MODELS_DIR, sha256_of

MAX_SIDE = 1280  # second pass cap: keeps a many-row photo under ~0.5 s on 2 cores


def training_tile_width(data_yaml: Path, imgsz: int, sample: int = 600) -> float:
    """Median tile width (short side of the label boxes) in network-input pixels, over up to `sample`
    images of each training folder (a mix lists several, `training/train.py`)."""
    cfg = yaml.safe_load(data_yaml.read_text())
    root = Path(cfg.get("path") or data_yaml.parent)
    folders = dict.fromkeys(cfg["train"] if isinstance(cfg["train"], list) else [cfg["train"]])
    images = [image for folder in folders
              for image in sorted(p for p in (root / folder).glob("*") if p.suffix.lower() in IMAGE_SUFFIXES)[:sample]]
    widths = []
    for image in images:
        label = Path(str(image).replace("/images/", "/labels/")).with_suffix(".txt")
        if not label.exists():
            continue
        w, h = Image.open(image).size
        scale = imgsz / max(w, h)
        for line in label.read_text().split("\n"):
            if line.strip():
                _, _, _, bw, bh = map(float, line.split())
                widths.append(min(bw * w, bh * h) * scale)
    if not widths:
        raise SystemExit(f"no labels found under {', '.join(str(root / f) for f in folders)}")
    return round(float(np.median(widths)), 1)


def classifier_entry(models_dir: Path = MODELS_DIR) -> tuple[str, str] | None:
    """(file, SHA-256) of the crop classifier named in models/classifier.json, checked against the file."""
    card = models_dir / "classifier.json"
    if not card.exists():
        return None
    meta = json.loads(card.read_text())
    if meta.get("classes") != list(CLASSES):
        raise SystemExit("the crop classifier's classes differ from vision.classes.CLASSES")
    actual = sha256_of(models_dir / meta["onnx"])
    if actual != meta["sha256"]:
        raise SystemExit(f"{meta['onnx']} does not match the hash in classifier.json (retrain or restore it)")
    return meta["onnx"], actual


def add_embedding_output(models_dir: Path = MODELS_DIR) -> bool:
    """Give the crop classifier of classifier.json its `embedding` output (the pooled features before the
    linear layer, which a table's memory compares: vision/memory.py) when it was exported without one,
    and record the new file's hash there. The network and its logits stay as they were. Whether it changed."""
    import onnx

    card_path = models_dir / "classifier.json"
    card = json.loads(card_path.read_text())
    path = models_dir / card["onnx"]
    model = onnx.load(str(path))
    if EMBEDDING in [o.name for o in model.graph.output]:
        return False
    pool = next(n for n in model.graph.node if n.op_type == "Flatten").output[0]  # the pooled features, flat
    linear = next(n for n in model.graph.node if n.op_type == "Gemm" and pool in n.input)
    weight = next(i for i in model.graph.initializer if i.name == linear.input[1])  # (classes, features)
    model.graph.node.append(onnx.helper.make_node("Identity", [pool], [EMBEDDING]))
    model.graph.output.append(onnx.helper.make_tensor_value_info(EMBEDDING, onnx.TensorProto.FLOAT,
                                                                 ["n", int(weight.dims[1])]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    card["sha256"] = sha256_of(path)
    card_path.write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n")
    return True


def with_classifier(meta: dict, models_dir: Path = MODELS_DIR) -> dict:
    """The model.json fields with the crop classifier's entry set (or removed when there is none)."""
    meta = {**meta, "sha256": {k: v for k, v in meta["sha256"].items() if k != meta.get("classifier")}}
    meta.pop("classifier", None)
    entry = classifier_entry(models_dir)
    if entry:
        meta["classifier"] = entry[0]
        meta["sha256"][entry[0]] = entry[1]
    return meta


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.export", description=__doc__)
    parser.add_argument("weights", type=Path, nargs="?")
    parser.add_argument("--data", type=Path, help="the data.yaml it was trained on")
    parser.add_argument("--imgsz", type=int, default=512)
    parser.add_argument("--conf", type=float, default=0.25,
                        help="tile threshold of the read path, chosen on held-out data "
                             "(docs/decisions/read-threshold.md)")
    parser.add_argument("--classifier-weight", type=float, default=1.0,
                        help="the crop classifier's share in the class scores against this detector's "
                             "(1: the classifier alone), chosen on held-out data (docs/decisions/read-threshold.md)")
    parser.add_argument("--out", type=Path, default=MODELS_DIR,
                        help="model folder to write (default models/; another folder gets a copy of the crop "
                             "classifier too, a complete model to compare with `--models` of evaluate/audit)")
    parser.add_argument("--classifier-only", action="store_true",
                        help="only set the crop classifier's entry in the existing model.json")
    args = parser.parse_args(argv)
    if args.classifier_only:
        card = args.out / "model.json"
        if not card.exists():
            raise SystemExit(f"no {card} to add the classifier to: export the detector first")
        if (args.out / "classifier.json").exists() and add_embedding_output(args.out):
            print("added the embedding output to the crop classifier (vision/memory.py compares it)")
        meta = with_classifier(json.loads(card.read_text()), args.out)
        card.write_text(json.dumps(meta, indent=1) + "\n")
        print(json.dumps({k: v for k, v in meta.items() if k != "classes"}, indent=1))
        return
    if args.weights is None or args.data is None:
        parser.error("weights and --data are needed to export a detector")

    load_ultralytics()
    from ultralytics import YOLO

    model = YOLO(str(args.weights))
    if list(model.names.values()) != list(CLASSES):
        raise SystemExit("the weights' class names differ from vision.classes.CLASSES")
    onnx = Path(model.export(format="onnx", dynamic=True, simplify=True, opset=17, imgsz=args.imgsz))
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    if out.resolve() != MODELS_DIR.resolve() and (MODELS_DIR / "classifier.json").exists():
        for name in ("classifier.json", json.loads((MODELS_DIR / "classifier.json").read_text())["onnx"]):
            shutil.copyfile(MODELS_DIR / name, out / name)
    shutil.copyfile(args.weights, out / "tiles.pt")
    shutil.copyfile(onnx, out / "tiles.onnx")
    meta = {
        "onnx": "tiles.onnx",
        "pt": "tiles.pt",
        # the hand finder's hash carried over: the reader refuses a hand finder the card does not vouch for
        "sha256": {name: sha256_of(out / name) for name in ("tiles.onnx", "tiles.pt", HAND_FINDER.name)
                   if name != HAND_FINDER.name or (out / name).exists()},
        "imgsz": args.imgsz,
        "tile_width": training_tile_width(args.data, args.imgsz),
        "max_side": MAX_SIDE,
        "conf": args.conf,
        "classifier_weight": args.classifier_weight,
        "classes": list(CLASSES),
        "trained_from": str(args.weights.relative_to(REPO) if args.weights.is_relative_to(REPO) else args.weights),
    }
    meta = with_classifier(meta, out)
    (out / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps({k: v for k, v in meta.items() if k != "classes"}, indent=1))


if __name__ == "__main__":
    main()
