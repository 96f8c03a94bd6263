"""Train the tile detector from scratch (or continue from weights) on generated scenes and real photos.

    python -m training.train DATA/data.yaml [MORE/data.yaml:2 ...] --hours 1.65 [--from models/tiles.pt] [--imgsz 512]

Several data sets train together; `:N` after one repeats its images N times an epoch (the real
photos are few beside the generated scenes). `--device 0` trains on a GPU.

Then `python -m training.export RUN/weights/last.pt` to commit it. The recipe and why is in
models/README.md; change it there and here together.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from training.ultralytics_env import REPO, load_ultralytics

# Mirrored tiles do not exist (a flipped 七 or 發 is no tile); small turns and perspective do.
AUGMENT = dict(fliplr=0.0, flipud=0.0, degrees=8.0, shear=2.0, perspective=0.0003, translate=0.1,
               scale=0.4, mosaic=1.0, close_mosaic=2, mixup=0.0, hsv_h=0.02, hsv_s=0.5, hsv_v=0.4)


def mixed_data(specs: list[str], out: Path) -> Path:
    """One data.yaml training on every `data.yaml[:repeat]` of `specs`, validating on the first's val."""
    train, val = [], None
    for spec in specs:
        path, _, repeat = spec.partition(":")
        path = Path(path).resolve()
        cfg = yaml.safe_load(path.read_text())
        root = (path.parent / cfg.get("path", ".")).resolve()
        splits = cfg["train"] if isinstance(cfg["train"], list) else [cfg["train"]]
        train += [str(root / s) for s in splits] * int(repeat or 1)
        val = val or [str(root / s) for s in (cfg["val"] if isinstance(cfg["val"], list) else [cfg["val"]])]
        names = cfg["names"]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump({"train": train, "val": val, "names": names}, allow_unicode=True))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.train", description=__doc__)
    parser.add_argument("data", nargs="+", help="data.yaml of a generated or real YOLO data set, `:N` to repeat it")
    parser.add_argument("--hours", type=float, default=1.2, help="wall-clock budget; the LR schedule fits it")
    parser.add_argument("--from", dest="start", default="yolo11n.yaml",
                        help="model yaml (from scratch) or weights to continue from")
    parser.add_argument("--imgsz", type=int, default=512)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--name", default="tiles")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--workers", type=int, default=2, help="data loader processes")
    parser.add_argument("--warmup", type=float, default=None,
                        help="warm-up epochs (default: 3 from scratch, 0.5 when continuing from weights: "
                             "a trained model needs no ramp, and a CPU budget holds only a few epochs)")
    args = parser.parse_args(argv)

    load_ultralytics()
    from ultralytics import YOLO
    from ultralytics.engine.trainer import BaseTrainer

    try:
        import polars  # noqa: F401  # ultralytics reads its results.csv back with it when saving
    except ImportError:  # a training machine without it (the GPU image): the checkpoint holds no copy of the csv
        BaseTrainer.read_results_csv = lambda self: {}

    continuing = args.start.endswith(".pt")
    warmup = args.warmup if args.warmup is not None else (0.5 if continuing else 3.0)
    # pretrained=False makes train() rebuild a .pt's architecture with fresh weights; a yaml start has none
    # to keep, and True there would look for downloadable ones.
    model = YOLO(args.start)
    data = mixed_data(args.data, REPO / "runs" / "train" / f"{args.name}-data.yaml") if len(args.data) > 1 \
        or ":" in args.data[0] else Path(args.data[0]).resolve()
    model.train(
        data=str(data), time=args.hours, epochs=1000, imgsz=args.imgsz, batch=args.batch,
        device=args.device, workers=args.workers, cache="ram", plots=False, amp=False, val=False,
        project=str(REPO / "runs" / "train"), name=args.name, exist_ok=True, seed=0, deterministic=False,
        pretrained=continuing, patience=0, cos_lr=True, warmup_epochs=warmup, **AUGMENT,
    )


if __name__ == "__main__":
    main()
