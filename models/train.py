"""Train the tile detector from scratch (or continue from the committed weights) on generated scenes.

    python -m models.train DATA/data.yaml --hours 1.65 [--from models/tiles.pt] [--imgsz 512]

Then `python -m models.export RUN/weights/last.pt` to commit it. The recipe and why is in
models/README.md; change it there and here together.
"""

from __future__ import annotations

import argparse
import os

from models.ultralytics_env import REPO, load_ultralytics

# Mirrored tiles do not exist (a flipped 七 or 發 is no tile); small turns and perspective do.
AUGMENT = dict(fliplr=0.0, flipud=0.0, degrees=8.0, shear=2.0, perspective=0.0003, translate=0.1,
               scale=0.4, mosaic=1.0, close_mosaic=2, mixup=0.0, hsv_h=0.02, hsv_s=0.5, hsv_v=0.4)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m models.train", description=__doc__)
    parser.add_argument("data", help="data.yaml of a generated (or real) YOLO data set")
    parser.add_argument("--hours", type=float, default=1.2, help="wall-clock budget; the LR schedule fits it")
    parser.add_argument("--from", dest="start", default="yolo11n.yaml",
                        help="model yaml (from scratch) or weights to continue from")
    parser.add_argument("--imgsz", type=int, default=512)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--name", default="tiles")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--warmup", type=float, default=None,
                        help="warm-up epochs (default: 3 from scratch, 0.5 when continuing from weights: "
                             "a trained model needs no ramp, and a CPU budget holds only a few epochs)")
    args = parser.parse_args(argv)

    load_ultralytics()
    from ultralytics import YOLO

    continuing = args.start.endswith(".pt")
    warmup = args.warmup if args.warmup is not None else (0.5 if continuing else 3.0)
    # pretrained=False makes train() rebuild a .pt's architecture with fresh weights; a yaml start has none
    # to keep, and True there would look for downloadable ones.
    model = YOLO(args.start)
    model.train(
        data=os.path.abspath(args.data), time=args.hours, epochs=1000, imgsz=args.imgsz, batch=args.batch,
        device=args.device, workers=2, cache="ram", plots=False, amp=False, val=False,
        project=str(REPO / "runs" / "train"), name=args.name, exist_ok=True, seed=0, deterministic=False,
        pretrained=continuing, patience=0, cos_lr=True, warmup_epochs=warmup, **AUGMENT,
    )


if __name__ == "__main__":
    main()
