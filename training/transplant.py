"""Start a detector from weights that have seen real tiles: the peer `mahjong-detector` (MIT, a YOLO11n
for 34 riichi classes trained on real photos) moved into ultralytics' `yolo11n.yaml` with our 43 classes.

    python -m training.transplant OUT.pt [--images DIR] [--count 100] [--imgsz 512]

The peer ships only its ONNX export, where each conv and its batch norm are fused into one conv with a
bias. Its initialisers load into `yolo11n.yaml` by name and shape; the head's 34 class rows go to our
codes, while the flowers and `back` (which the peer never saw) start fresh. The batch norms are not set
to identity: ultralytics trains with batch statistics, so an identity norm would shift every feature on
the first batch. Instead one pass over real photos records each conv's per-channel output mean and std
(μ, σ), and the norm becomes weight σ, bias μ + fused bias, running mean μ, running var σ² − eps: in
eval mode that is exactly the fused conv, and in train mode batch statistics near (μ, σ) change little.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from training.ultralytics_env import REPO, load_ultralytics
from vision.classes import CLASSES

PEER_CODES = {"chun": "5z", "haku": "7z", "hatsu": "6z", "nan": "2z", "pe": "4z", "sha": "3z", "tou": "1z"}


def peer_onnx() -> Path:
    import mahjong_detector

    return Path(mahjong_detector.__file__).parent / "model.onnx"


def peer_class_rows() -> dict[int, int]:
    """Our class index → the peer's class row (its 34 riichi classes)."""
    from mahjong_detector.predict import CLASS_NAMES

    return {CLASSES.index(PEER_CODES.get(name, name)): i for i, name in enumerate(CLASS_NAMES)}


def load_peer_tensors(path: Path) -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    return {t.name: numpy_helper.to_array(t) for t in graph.initializer if t.name.startswith("model.")}


def transplant(tensors: dict[str, np.ndarray]):
    """A 43-class ultralytics DetectionModel holding the peer's weights, its batch norms as identity
    (weight 1, bias = the fused bias, mean 0, var 1 − eps): in eval mode it computes what the peer does.
    Returns the model and the names of the tensors mapped."""
    import torch
    from ultralytics.nn.tasks import DetectionModel

    model = DetectionModel("yolo11n.yaml", nc=len(CLASSES), verbose=False)
    state = model.state_dict()
    rows = peer_class_rows()
    mapped = []
    with torch.no_grad():
        for name, value in tensors.items():
            value = torch.from_numpy(value.copy())
            if name.endswith(".conv.bias") and name[:-len("conv.bias")] + "bn.weight" in state:
                bn = name[:-len("conv.bias")] + "bn."
                eps = dict(model.named_modules())[bn[:-1]].eps
                state[bn + "weight"].fill_(1.0)
                state[bn + "bias"].copy_(value)
                state[bn + "running_mean"].zero_()
                state[bn + "running_var"].fill_(1.0 - eps)
            elif name not in state:
                continue
            elif state[name].shape == value.shape:
                state[name].copy_(value)
            elif state[name].shape[0] == len(CLASSES) and value.shape[0] == len(rows):  # class rows of the head
                for ours, theirs in rows.items():
                    state[name][ours] = value[theirs]
            else:
                raise ValueError(f"{name}: peer shape {tuple(value.shape)}, ours {tuple(state[name].shape)}")
            mapped.append(name)
    model.load_state_dict(state)
    return model, mapped


def calibrate(model, batches) -> None:
    """Set every batch norm from the statistics of its conv's output over `batches` (see the module doc)."""
    import torch
    from ultralytics.nn.modules.conv import Conv

    convs = [m for m in model.modules() if isinstance(m, Conv) and isinstance(m.bn, torch.nn.BatchNorm2d)]
    calibrate_norms(model, [(m.conv, m.bn) for m in convs], batches)


def calibrate_norms(model, pairs, batches) -> None:
    """Each (conv, batch norm) of `pairs`, the norm an identity holding the fused bias, becomes weight σ,
    bias μ + fused bias, running stats μ, σ² − eps, μ and σ its conv's per-channel output statistics over
    `model(batch)` for each of `batches`: the same function in eval mode, little changed in train mode.
    (Also used for the crop classifier, whose ONNX has its norms fused too: training/classifier_weights.py.)"""
    import torch

    sums: dict[int, list] = {}

    def record(module, _inputs, output):
        y = output.detach().double()
        n = y.shape[0] * y.shape[2] * y.shape[3]
        s = sums.setdefault(id(module), [0, 0.0, 0.0])
        s[0] += n
        s[1] = s[1] + y.sum(dim=(0, 2, 3))
        s[2] = s[2] + (y * y).sum(dim=(0, 2, 3))

    hooks = [conv.register_forward_hook(record) for conv, _ in pairs]
    model.eval()
    with torch.no_grad():
        for batch in batches:
            model(batch)
    for h in hooks:
        h.remove()
    with torch.no_grad():
        for conv, bn in pairs:
            n, s1, s2 = sums[id(conv)]
            mean = s1 / n
            std = (s2 / n - mean * mean).clamp_min(1e-6).sqrt()
            fused_bias = bn.bias.detach().double().clone()  # identity norm: its bias is the fused bias
            bn.weight.copy_(std)
            bn.bias.copy_(mean + fused_bias)
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(std * std - bn.eps)


def photo_batches(paths: list[Path], imgsz: int, batch: int = 8):
    """Real photos letterboxed to `imgsz` as ultralytics feeds them (RGB, 0-1)."""
    import cv2
    import torch

    from vision.detector import letterbox
    from vision.photo import load_photo

    for i in range(0, len(paths), batch):
        images = []
        for p in paths[i:i + batch]:
            padded, _ = letterbox(load_photo(p), imgsz)
            padded = cv2.copyMakeBorder(padded, 0, imgsz - padded.shape[0], 0, imgsz - padded.shape[1],
                                        cv2.BORDER_CONSTANT, value=(114, 114, 114))
            images.append(padded[:, :, ::-1].transpose(2, 0, 1) / 255.0)
        yield torch.from_numpy(np.ascontiguousarray(np.stack(images))).float()


def save(model, out: Path) -> None:
    """An ultralytics checkpoint that `YOLO(out)` loads and `training.train --from` continues from."""
    import copy
    from datetime import datetime

    import torch

    model.names = dict(enumerate(CLASSES))
    model.args = {"imgsz": 640, "task": "detect"}
    torch.save({"model": copy.deepcopy(model).half(), "train_args": {}, "date": datetime.now().isoformat(),
                "version": "transplant", "epoch": -1}, out)


def main(argv: list[str] | None = None) -> None:
    from datasets.real import REAL_LABELLED
    from datasets.shared import SETTING

    parser = argparse.ArgumentParser(prog="python -m training.transplant", description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--images", type=Path, nargs="+",
                        default=sorted(REAL_LABELLED.glob("*/images/train")),
                        help="folders of real photos for the calibration pass (train splits only)")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--imgsz", type=int, default=512)
    args = parser.parse_args(argv)

    load_ultralytics()
    photos = sorted(p for d in args.images for p in d.glob("*.jpg"))
    if not photos:
        raise SystemExit(f"no photos for calibration under {', '.join(map(str, args.images))} "
                         f"(the real photo sets: set {SETTING} to the shared folder)")
    rng = np.random.default_rng(0)
    chosen = [photos[i] for i in sorted(rng.choice(len(photos), min(args.count, len(photos)), replace=False))]
    model, mapped = transplant(load_peer_tensors(peer_onnx()))
    calibrate(model, photo_batches(chosen, args.imgsz))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save(model, args.out)
    print(f"{len(mapped)} peer tensors mapped; batch norms calibrated on {len(chosen)} photos; "
          f"wrote {args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out}")


if __name__ == "__main__":
    main()
