"""The crop classifier's torch weights: recovered from its ONNX file, saved beside it, loaded to resume.

    python -m training.classifier_weights --crops TRAIN.npz ... [--check REAL.npz] [--onnx ONNX] [--out PT]

At first only the ONNX file was committed, and torch's export fuses each batch norm into its conv
(a conv with a bias). `from_onnx` loads those convs into `TileNet` with identity norms holding the fused
biases, then calibrates the norms on crops (`training.transplant.calibrate_norms`: weight σ, bias μ + fused
bias, running stats of each conv's output), so eval mode computes the ONNX model's logits and train mode,
whose batch statistics are near (μ, σ), starts where it left off rather than from a shifted network.
`python -m training.train_classifier --from models/tile_classifier.pt` fine-tunes from the saved weights.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from torch import nn

from training.train_classifier import ONNX_NAME, WEIGHTS_NAME, TileNet, load_crops, save_weights
from training.transplant import calibrate_norms
from vision.crop_classifier import TileClassifier
from vision.model_files import MODELS_DIR, sha256_of

CALIBRATION_CROPS = 4096  # enough for each channel's mean and std to settle
BATCH = 256


def conv_norm_pairs(net: TileNet) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    layers = list(net.features)
    return [(a, b) for a, b in zip(layers, layers[1:], strict=False)
            if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d)]


def from_onnx(path: Path, crops: torch.Tensor) -> TileNet:
    """TileNet holding the ONNX file's weights, its norms calibrated on `crops` (uint8 NHWC BGR)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    tensors = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in graph.initializer}
    convs = [node for node in graph.node if node.op_type == "Conv"]
    net = TileNet()
    pairs = conv_norm_pairs(net)
    if len(convs) != len(pairs):
        raise ValueError(f"{path}: {len(convs)} convolutions, TileNet has {len(pairs)}")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, pairs, strict=True):
            weight, bias = tensors[node.input[1]], tensors[node.input[2]]
            if weight.shape != conv.weight.shape:
                raise ValueError(f"{path}: a conv of shape {tuple(weight.shape)} where TileNet has "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(weight)
            bn.weight.fill_(1.0)
            bn.bias.copy_(bias)
        linear = net.head[3]
        linear.weight.copy_(tensors["net.head.3.weight"])
        linear.bias.copy_(tensors["net.head.3.bias"])
    batches = (crops[i:i + BATCH].permute(0, 3, 1, 2).float() / 255.0 for i in range(0, len(crops), BATCH))
    calibrate_norms(net, pairs, batches)
    return net


@torch.no_grad()
def logits_of(net: TileNet, crops: np.ndarray) -> np.ndarray:
    net.eval()
    return net(torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255.0).numpy()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.classifier_weights", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--onnx", type=Path, default=MODELS_DIR / ONNX_NAME)
    parser.add_argument("--crops", type=Path, nargs="+", required=True,
                        help="training crops (.npz) for the norms' statistics (train splits only)")
    parser.add_argument("--check", type=Path, help="crops (.npz) on which the logits must match onnxruntime's")
    parser.add_argument("--out", type=Path, default=MODELS_DIR / WEIGHTS_NAME)
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    crops, _ = load_crops(args.crops, CALIBRATION_CROPS)
    net = from_onnx(args.onnx, crops)
    if args.check:
        check = np.load(args.check)["x"]
        ours = logits_of(net, check)
        classifier = TileClassifier(args.onnx, sha256_of(args.onnx))
        theirs = classifier.session.run(["logits"], {classifier.input_name: check})[0]
        gap = float(np.abs(ours - theirs).max())
        print(f"logits on {len(check)} crops of {args.check}: largest difference from onnxruntime {gap:.2e}")
        if gap > 1e-4:
            raise SystemExit(f"the recovered weights do not compute the ONNX file's logits (gap {gap:.2e})")
    save_weights(net, args.out, sha256_of(args.onnx))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB), norms calibrated on {len(crops)} crops")


if __name__ == "__main__":
    main()
