"""Write a YOLO data set of synthetic scenes (ultralytics layout) plus per-image scene truth.

Image i is rendered from its own generator seeded by (seed, i), so the bytes do not depend on
the number of workers or their order. Split: every image whose index crosses a multiple of
1/val_fraction goes to val (exactly round(count * val_fraction) of them, spread evenly).
OUT/recipe.json records the recipe (datasets/recipe.py), the generator's commit and the
arguments, so the set can be named and made again.
"""

import json
import multiprocessing as mp
from dataclasses import replace
from functools import partial
from pathlib import Path

import cv2
import numpy as np
import yaml
from tqdm import tqdm

from datasets.photo import apply_photo, photo_effects
from datasets.recipe import Recipe, generator_commit
from datasets.scene import DEFAULT_RECIPE, render_scene
from vision.classes import CLASSES

_EFFECTS = None


def split_of(index: int, val_fraction: float) -> str:
    return "val" if int((index + 1) * val_fraction) > int(index * val_fraction) else "train"


def make_sample(index: int, seed: int, styles: str = "train", long_side: int = 640,
                recipe: Recipe = DEFAULT_RECIPE):
    """(JPEG bytes, label text, SceneTruth) of image `index`."""
    global _EFFECTS
    if _EFFECTS is None:
        _EFFECTS = photo_effects()
    rng = np.random.default_rng([seed, index])
    image, labels, truth = render_scene(rng, styles, long_side, recipe)
    image = apply_photo(_EFFECTS, image, int(rng.integers(2**31)))
    quality = int(rng.integers(70, 96))
    jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()
    h, w = image.shape[:2]
    lines = [
        f"{c} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"
        for c, x0, y0, x1, y1 in labels
    ]
    return jpeg, "".join(line + "\n" for line in lines), truth


def _write(index, out, seed, styles, val_fraction, long_side, recipe):
    split = split_of(index, val_fraction)
    stem = f"{index:06d}"
    jpeg, label_text, truth = make_sample(index, seed, styles, long_side, recipe)
    (out / "images" / split / f"{stem}.jpg").write_bytes(jpeg)
    (out / "labels" / split / f"{stem}.txt").write_text(label_text)
    replace(truth, image=f"images/{split}/{stem}.jpg", seed=seed, index=index).write(
        out / "scenes" / split / f"{stem}.json")
    return index


def generate(out: Path, count: int, seed: int, styles: str = "train", val_fraction: float = 0.1,
             workers: int = 2, long_side: int = 640, recipe: Recipe = DEFAULT_RECIPE) -> None:
    if styles == "unseen":  # fail before writing anything if the shared folder is missing
        from datasets.styles import UNSEEN_WEIGHTS, load_style

        for name in UNSEEN_WEIGHTS:
            load_style(name)
    out = Path(out)
    for kind in ("images", "labels", "scenes"):
        for split in ("train", "val"):
            (out / kind / split).mkdir(parents=True, exist_ok=True)
    data = {
        "path": str(out.resolve()),
        "train": "images/train",
        "val": "images/val",
        "names": dict(enumerate(CLASSES)),
    }
    (out / "data.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    made = {"recipe": recipe.to_json(), "generator_commit": generator_commit(), "count": count, "seed": seed,
            "styles": styles, "val_fraction": val_fraction, "size": long_side}
    (out / "recipe.json").write_text(json.dumps(made, ensure_ascii=False, indent=1) + "\n")
    job = partial(_write, out=out, seed=seed, styles=styles, val_fraction=val_fraction,
                  long_side=long_side, recipe=recipe)
    if workers <= 1:
        for i in tqdm(range(count), desc="scenes", unit="img"):
            job(i)
        return
    with mp.get_context("fork").Pool(workers) as pool:
        for _ in tqdm(pool.imap_unordered(job, range(count), chunksize=8), total=count,
                      desc="scenes", unit="img"):
            pass
