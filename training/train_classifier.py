"""Train the tile-crop classifier (second stage after the detector), export it to ONNX and judge it.

    python -m training.crops data/gen-v1 --split train --max-crops 150000 --out data/crops/gen-v1-train.npz
    python -m training.crops data/gen-v1 --split val --out data/crops/gen-v1-val.npz
    python -m training.crops data/unseen-v1 --split val --out data/crops/unseen-v1-val.npz
    python -m training.train_classifier --minutes 14 --threads 1

Plain torch on the CPU: a small CNN (stride-2 conv-BN-ReLU stages, global average pooling, a
linear layer to the 43 classes) on 64 x 48 crops, augmented on the fly in torch (photometric
jitter, blur, down-and-up sampling, small rotations/scale/shifts, random grayscale), label
smoothing, AdamW with warm-up and a cosine decay fitted to the wall-clock budget. Writes
models/tile_classifier.onnx (uint8 NHWC BGR crops in, logits and embeddings out, any batch size) and
models/classifier.json (its hash and figures; `training/export.py` copies the name and hash into
model.json). The unseen-styles crops are only ever judged, never trained on.

`--sets FILE --contrast WEIGHT` adds what a table's memory needs (vision/memory.py compares the embeddings of
one set's tiles): each step also takes `--sets-per-step` whole sets (`training.set_views`: one physical set in
several photos; `training.flower_faces --sets`: a set's eight flowers in one design, each seen as photos show
it), and a supervised contrastive loss over each set's crops alone pulls a tile's views together and pushes the
set's other tiles away (docs/decisions/tiles-within-a-set.md).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision.classes import CLASSES
from vision.crop_classifier import CROP_H, CROP_W, EMBEDDING, EXPAND, TileClassifier
from vision.model_files import MODELS_DIR, sha256_of

REPO = Path(__file__).resolve().parents[1]
CROPS = REPO / "data" / "crops"
STAGES = ((24, 2), (32, 2), (48, 1), (64, 2), (96, 1), (128, 2), (192, 1))  # (channels, stride)
ONNX_NAME = "tile_classifier.onnx"
WEIGHTS_NAME = "tile_classifier.pt"  # the torch weights beside it, to resume from (training/classifier_weights.py)
FLOWER_IDS = [i for i, code in enumerate(CLASSES) if code.endswith("f")]


class TileNet(nn.Module):
    """Float NCHW crops in [0, 1] → 43 logits."""

    def __init__(self, stages=STAGES, classes: int = len(CLASSES)) -> None:
        super().__init__()
        layers, c_in = [], 3
        for c_out, stride in stages:
            layers += [nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True)]
            c_in = c_out
        self.features = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(c_in, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head[2:](self.pooled(x))

    def pooled(self, x: torch.Tensor) -> torch.Tensor:
        """The pooled features before the linear layer: the embedding a table's memory compares."""
        return self.head[:2](self.features(x))


class CropInput(nn.Module):
    """What the ONNX file holds: uint8 NHWC BGR crops (as `cut_crop` makes them) → logits, and each crop's
    pooled features before the linear layer (`embedding`: what a table's memory compares, vision/memory.py)."""

    def __init__(self, net: TileNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, crops: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pooled = self.net.pooled(crops.permute(0, 3, 1, 2).float() / 255.0)
        return self.net.head[2:](pooled), pooled


def augment(batch: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """uint8 NHWC crops → augmented float NCHW in [0, 1], on the batch's device. The random draws come from
    `gen` on the CPU whatever the device, so a run's augmentation does not depend on where it runs."""
    x = batch.permute(0, 3, 1, 2).float() / 255.0
    n = x.shape[0]

    def on_device(values: torch.Tensor) -> torch.Tensor:
        return values.to(x.device)

    def u(lo: float, hi: float, shape=(n,)) -> torch.Tensor:
        return lo + (hi - lo) * on_device(torch.rand(shape, generator=gen))

    # Geometry: tilted tiles inside their box, box size and place errors beyond the crops' jitter.
    angle = u(-8, 8) * math.pi / 180
    scale = u(0.9, 1.1)
    aspect = u(0.93, 1.07)
    cos, sin = torch.cos(angle), torch.sin(angle)
    theta = torch.stack([torch.stack([cos * scale * aspect, -sin * scale, u(-0.08, 0.08)], 1),
                         torch.stack([sin * scale, cos * scale / aspect, u(-0.06, 0.06)], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    # Resolution: a far tile is a few pixels per stroke; down and up again.
    low = on_device(torch.rand(n, generator=gen) < 0.3)
    if low.any():
        f = float(u(0.35, 0.8, (1,)))
        small = F.interpolate(x[low], scale_factor=f, mode="bilinear", align_corners=False, antialias=True)
        x[low] = F.interpolate(small, size=(CROP_H, CROP_W), mode="bilinear", align_corners=False)
    blur = on_device(torch.rand(n, generator=gen) < 0.2)
    if blur.any():
        k = torch.tensor([0.25, 0.5, 0.25])
        kernel = on_device((k[:, None] * k[None, :]).expand(3, 1, 3, 3).contiguous())
        x[blur] = F.conv2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), kernel, groups=3)
    # Colour: exposure, contrast, white balance, saturation, grayscale prints, sensor noise.
    gray = x.mean(1, keepdim=True)
    sat = u(0.6, 1.3)[:, None, None, None]
    x = gray + (x - gray) * sat
    x = x * u(0.85, 1.15, (n, 3))[:, :, None, None]
    mean = x.mean((1, 2, 3), keepdim=True)
    x = (x - mean) * u(0.65, 1.35)[:, None, None, None] + mean + u(-0.15, 0.15)[:, None, None, None]
    mono = on_device(torch.rand(n, generator=gen) < 0.1)
    x[mono] = x[mono].mean(1, keepdim=True).expand(-1, 3, -1, -1)
    noisy = on_device(torch.rand(n, generator=gen) < 0.3)[:, None, None, None]
    x = x + noisy * on_device(torch.randn(x.shape, generator=gen)) * u(0.0, 0.04)[:, None, None, None]
    return x.clamp(0, 1)


def load_crops(paths: Path | list[Path], limit: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The crops of one .npz, or of several together (one listed twice counts twice)."""
    parts = [np.load(p) for p in (paths if isinstance(paths, list) else [paths])]
    x = np.concatenate([d["x"] for d in parts])
    y = np.concatenate([d["y"] for d in parts])
    if limit and limit < len(y):
        keep = np.random.default_rng(0).choice(len(y), limit, replace=False)
        x, y = x[keep], y[keep]
    return torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(y.astype(np.int64))


@torch.no_grad()
def accuracy(net: TileNet, x: torch.Tensor, y: torch.Tensor, batch: int = 512) -> float:
    net.eval()
    device = next(net.parameters()).device
    right = sum(int((net(x[i:i + batch].permute(0, 3, 1, 2).float().to(device) / 255.0).argmax(1).cpu()
                     == y[i:i + batch]).sum()) for i in range(0, len(y), batch))
    net.train()
    return right / max(len(y), 1)


def within_set_contrast(z: torch.Tensor, y: torch.Tensor, group: torch.Tensor, temperature: float) -> torch.Tensor:
    """Supervised contrastive loss of unit embeddings `z` over each crop's own set (`group`) alone: a crop's
    likeness to the other views of its class in its set against its likeness to the set's other crops, averaged
    over the crops whose class the set shows more than once."""
    same_set = group[:, None] == group[None, :]
    others = same_set & ~torch.eye(len(y), dtype=torch.bool, device=z.device)
    positive = others & (y[:, None] == y[None, :])
    logits = (z @ z.T / temperature).masked_fill(~others, float("-inf"))
    log_p = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    has = positive.any(1)  # a tile its set shows once has nothing to be like
    if not has.any():
        return z.sum() * 0.0
    return -(log_p.masked_fill(~positive, 0).sum(1)[has] / positive.sum(1)[has]).mean()


class SetBatches:
    """Draws of whole sets from .npz files of `training.set_views` or `training.flower_faces --sets` (x, y, and
    group: each set's crops together)."""

    def __init__(self, paths: list[Path], per_step: int) -> None:
        parts = [np.load(p) for p in paths]
        self.x = torch.from_numpy(np.ascontiguousarray(np.concatenate([d["x"] for d in parts])))
        self.y = torch.from_numpy(np.concatenate([d["y"] for d in parts]).astype(np.int64))
        groups = [d["group"] + k * (1 << 32) for k, d in enumerate(parts)]  # sets of different files stay apart
        _, self.group = np.unique(np.concatenate(groups), return_inverse=True)
        self.starts = np.flatnonzero(np.r_[True, self.group[1:] != self.group[:-1]])
        self.ends = np.r_[self.starts[1:], len(self.group)]
        self.per_step = per_step

    def __len__(self) -> int:
        return len(self.y)

    def draw(self, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        chosen = torch.randperm(len(self.starts), generator=gen)[:self.per_step].numpy()
        idx = torch.from_numpy(np.concatenate([np.arange(self.starts[k], self.ends[k]) for k in chosen]))
        return self.x[idx], self.y[idx], torch.from_numpy(self.group[idx.numpy()])


def learning_rate(progress: float, peak: float, warmup: float = 0.03) -> float:
    """Linear warm-up, then cosine to zero, over the fraction of the time budget spent."""
    if progress < warmup:
        return peak * progress / warmup
    return 0.5 * peak * (1 + math.cos(math.pi * min(1.0, (progress - warmup) / (1 - warmup))))


def train(net: TileNet, x: torch.Tensor, y: torch.Tensor, val: tuple[torch.Tensor, torch.Tensor], minutes: float,
          batch: int, lr: float, seed: int, checkpoint: Path | None = None, every_minutes: float = 3.0,
          sets: SetBatches | None = None, contrast: float = 0.0, temperature: float = 0.1) -> dict:
    """Train for `minutes` of wall clock in all. With `checkpoint`, the whole state (weights, optimiser, random
    generator, place in the epoch, time spent) is saved there every `every_minutes`, and a run that finds it
    continues from it: the schedule runs on the time spent over all runs, so two runs of 30 minutes train as
    one of 60. With `sets`, each step also draws whole sets and adds `contrast` times `within_set_contrast` of
    their crops (not their classes: a batch of flowers alone would teach the head that most tiles are flowers)."""
    gen = torch.Generator().manual_seed(seed)
    device = next(net.parameters()).device  # crops go there as uint8 and are augmented there
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    budget = 60 * minutes
    state = {"epoch": 0, "next": 0, "order": None, "spent": 0.0, "steps": 0, "history": [], "seen": 0, "correct": 0,
             "loss_sum": 0.0, "crops": len(y), "set_crops": len(sets) if sets else 0, "contrast_sum": 0.0}
    if checkpoint and checkpoint.exists():
        saved = torch.load(checkpoint, map_location="cpu", weights_only=False)
        if saved["crops"] != len(y) or saved.get("set_crops", 0) != state["set_crops"]:
            raise SystemExit(f"{checkpoint} was trained on {saved['crops']} crops, these are {len(y)} (set crops: "
                             f"{saved.get('set_crops', 0)}, these {state['set_crops']}): the same --train and --sets "
                             "files continue it (or remove it to start again)")
        net.load_state_dict(saved.pop("net"))
        opt.load_state_dict(saved.pop("opt"))
        gen.set_state(saved.pop("gen"))
        state = saved
        print(f"resumed from {checkpoint}: {state['spent'] / 60:.1f} of {minutes} minutes spent, "
              f"epoch {state['epoch']}", flush=True)
    start = time.monotonic() - state["spent"]
    last_save = time.monotonic()
    done = False
    while not done:
        if state["order"] is None:  # a new epoch
            state.update(epoch=state["epoch"] + 1, order=torch.randperm(len(y), generator=gen), next=0, seen=0,
                         correct=0, loss_sum=0.0, contrast_sum=0.0)
        order = state["order"]
        for i in range(state["next"], len(y) - batch + 1, batch):
            progress = (time.monotonic() - start) / budget
            if progress >= 1:
                done = True
                break
            for group in opt.param_groups:
                group["lr"] = learning_rate(progress, lr)
            idx = order[i:i + batch]
            target = y[idx].to(device)
            logits = net(augment(x[idx].to(device), gen))
            loss = F.cross_entropy(logits, target, label_smoothing=0.1)
            if sets:
                set_x, set_y, set_group = sets.draw(gen)
                apart = within_set_contrast(F.normalize(net.pooled(augment(set_x.to(device), gen)), dim=1),
                                            set_y.to(device), set_group.to(device), temperature)
                loss = loss + contrast * apart
                state["contrast_sum"] += apart.item() * len(idx)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            state["steps"] += 1
            state["seen"] += len(idx)
            state["correct"] += int((logits.argmax(1) == target).sum())
            state["loss_sum"] += loss.item() * len(idx)
            state["next"] = i + batch
            if checkpoint and time.monotonic() - last_save > 60 * every_minutes:
                save_checkpoint(checkpoint, net, opt, gen, state, time.monotonic() - start)
                last_save = time.monotonic()
        seen = state["seen"]
        val_acc = accuracy(net, *val)
        if state["history"] and state["history"][-1]["epoch"] == state["epoch"]:  # an epoch a resumed run finished
            state["history"].pop()
        state["history"].append({"epoch": state["epoch"], "crops": seen,
                                 "train_loss": round(state["loss_sum"] / max(seen, 1), 4),
                                 "train_top1": round(state["correct"] / max(seen, 1), 4), "val_top1": round(val_acc, 4),
                                 **({"within_set_contrast": round(state["contrast_sum"] / max(seen, 1), 4)}
                                    if sets else {}),
                                 "minutes": round((time.monotonic() - start) / 60, 2)})
        print(json.dumps(state["history"][-1]), flush=True)
        if not done:
            state["order"] = None
    if checkpoint:
        save_checkpoint(checkpoint, net, opt, gen, state, time.monotonic() - start)
    return {"epochs": round(state["epoch"] - 1 + state["seen"] / len(y), 2), "steps": state["steps"],
            "history": state["history"], "minutes": round((time.monotonic() - start) / 60, 2)}


def save_checkpoint(path: Path, net: TileNet, opt, gen: torch.Generator, state: dict, spent: float) -> None:
    """Everything `train` needs to continue, written whole or not at all (a killed run leaves the last one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    torch.save({**state, "spent": spent, "net": net.state_dict(), "opt": opt.state_dict(), "gen": gen.get_state()},
               partial)
    partial.replace(path)


def save_weights(net: TileNet, path: Path, onnx_sha256: str) -> None:
    """The state dict in float32 with what it must be loaded into (stages) and the ONNX file it matches."""
    torch.save({"state_dict": net.state_dict(), "stages": [list(s) for s in STAGES], "onnx_sha256": onnx_sha256},
               path)


def load_weights(path: Path) -> TileNet:
    saved = torch.load(path, map_location="cpu", weights_only=True)
    if [tuple(s) for s in saved["stages"]] != list(STAGES):
        raise SystemExit(f"{path}: weights of stages {saved['stages']}, TileNet has {[list(s) for s in STAGES]}")
    net = TileNet()
    net.load_state_dict(saved["state_dict"])
    return net


def export_onnx(net: TileNet, path: Path) -> None:
    net.eval()
    dummy = torch.zeros(2, CROP_H, CROP_W, 3, dtype=torch.uint8)
    torch.onnx.export(CropInput(net), (dummy,), str(path), input_names=["crops"],
                      output_names=["logits", EMBEDDING], dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"},
                                                                       EMBEDDING: {0: "n"}},
                      opset_version=17, dynamo=False)


def judge(classifier: TileClassifier, crops: np.ndarray, labels: np.ndarray, worst: int = 12) -> dict:
    """Top-1, per-class recall and the most frequent confusions of the ONNX model on crops."""
    pred = classifier.probabilities(crops).argmax(1)
    matrix = np.zeros((len(CLASSES), len(CLASSES)), np.int64)
    np.add.at(matrix, (labels, pred), 1)
    recall = {CLASSES[c]: round(float(matrix[c, c] / matrix[c].sum()), 3) for c in range(len(CLASSES))
              if matrix[c].sum()}
    off = [(int(matrix[t, p]), CLASSES[t], CLASSES[p]) for t in range(len(CLASSES)) for p in range(len(CLASSES))
           if t != p and matrix[t, p]]
    flowers = np.isin(labels, FLOWER_IDS)
    return {"crops": len(labels), "top1": round(float((pred == labels).mean()), 4),
            "flowers_top1": round(float((pred[flowers] == labels[flowers]).mean()), 4) if flowers.any() else None,
            "recall": recall,
            "worst_recall": dict(sorted(recall.items(), key=lambda kv: kv[1])[:8]),
            "confused": [{"true": t, "read_as": p, "count": n} for n, t, p in sorted(off, reverse=True)[:worst]]}


def shown(path: Path) -> Path:
    """A path as the card records it: relative to the repository when inside it."""
    path = path.resolve()
    return path.relative_to(REPO) if path.is_relative_to(REPO) else path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.train_classifier", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", type=Path, nargs="+", default=[CROPS / "gen-v1-train.npz"],
                        help="crops to train on (several .npz train together; list one twice to weigh it double)")
    parser.add_argument("--val", type=Path, nargs="+", default=[CROPS / "gen-v1-val.npz"],
                        help="crops judged after each epoch (several .npz judge together)")
    parser.add_argument("--unseen", type=Path, nargs="*", default=[CROPS / "unseen-v1-val.npz"],
                        help="held-out designs' crops: judged after training, never trained on")
    parser.add_argument("--minutes", type=float, default=14.0, help="wall-clock budget over all resumed runs")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--limit", type=int, help="train on a random subset of this many crops (trial runs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu", help="cpu, or cuda on a GPU machine")
    parser.add_argument("--from", dest="start", type=Path,
                        help="start from these torch weights (models/tile_classifier.pt)")
    parser.add_argument("--checkpoint", type=Path,
                        help="save the training state here every few minutes; a run that finds it continues it")
    parser.add_argument("--checkpoint-minutes", type=float, default=3.0)
    parser.add_argument("--sets", type=Path, nargs="*", default=[],
                        help="whole sets (`training.set_views`, `training.flower_faces --sets`) to learn to tell a "
                             "set's tiles apart")
    parser.add_argument("--contrast", type=float, default=0.0,
                        help="with --sets: the within-set contrastive loss's weight")
    parser.add_argument("--sets-per-step", type=int, default=8, help="with --sets: whole sets drawn each step")
    parser.add_argument("--temperature", type=float, default=0.1,
                        help="with --sets: the contrastive loss's temperature")
    parser.add_argument("--out", type=Path, default=MODELS_DIR,
                        help="folder for the ONNX file, its torch weights and classifier.json")
    args = parser.parse_args(argv)
    if bool(args.sets) != (args.contrast > 0):
        parser.error("--sets and --contrast go together")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    x, y = load_crops(args.train, args.limit)
    val = load_crops(args.val)
    net = (load_weights(args.start) if args.start else TileNet()).to(args.device)
    params = sum(p.numel() for p in net.parameters())
    print(f"{len(y)} train crops, {len(val[1])} val crops, {params} parameters, {args.minutes} min on "
          f"{args.threads} thread(s)" + (f", from {args.start}" if args.start else ""), flush=True)
    sets = SetBatches(args.sets, args.sets_per_step) if args.sets else None
    run = train(net, x, y, val, args.minutes, args.batch, args.lr, args.seed, args.checkpoint,
                args.checkpoint_minutes, sets, args.contrast, args.temperature)
    net = net.cpu()

    args.out.mkdir(parents=True, exist_ok=True)
    onnx = args.out / ONNX_NAME
    export_onnx(net, onnx)
    save_weights(net, args.out / WEIGHTS_NAME, sha256_of(onnx))
    classifier = TileClassifier(onnx, sha256_of(onnx))
    report = {"val": judge(classifier, val[0].numpy(), val[1].numpy())}
    for path in args.unseen:
        if path.exists():
            unseen = np.load(path)
            report[f"unseen:{shown(path)}"] = judge(classifier, unseen["x"], unseen["y"])
    card = {
        "onnx": ONNX_NAME, "sha256": sha256_of(onnx), "weights": WEIGHTS_NAME, "classes": list(CLASSES),
        "crop": {"height": CROP_H, "width": CROP_W, "expand": EXPAND},
        "network": {"stages": [list(s) for s in STAGES], "parameters": params},
        "training": {"train": [str(shown(p)) for p in args.train], "val": [str(shown(p)) for p in args.val],
                     "crops": len(y), "device": args.device,
                     "sets": [str(shown(p)) for p in args.sets], "set_crops": len(sets) if sets else 0,
                     "contrast": args.contrast, "sets_per_step": args.sets_per_step, "temperature": args.temperature,
                     "from": str(shown(args.start)) if args.start else None,
                     "minutes": args.minutes, "threads": args.threads,
                     "batch": args.batch, "lr": args.lr, "seed": args.seed, "epochs": run["epochs"],
                     "steps": run["steps"], "history": run["history"]},
        **report,
    }
    (args.out / "classifier.json").write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
