"""python -m datasets.audit_bench [--photos 40] [--per-kind 9] [--seeds 0 1 .. 9] [--top 36]: how high the
audit ranks label errors planted in real photos, the test the audit exists for.

For each seed it copies `--photos` photos from the test splits of the real labelled sets (the
shared folder's `data/real-labelled`, datasets/real.py), drawn with the seed, each set in
proportion to its size, into a temporary folder, audits them as labelled, then plants `--per-kind`
errors of each kind (a class swapped, a box deleted), one per photo, audits again and reports the
rank of each planted error. A player reads the top of the list, so the figure is how many planted
errors rank within the top `--top` flags (by default 2 per planted error, as the generated-scene
test asks).

The detector reads a photo the same whatever its labels say, so its readings are kept between the
audits of one run (`Remembered`): every seed's audit is the whole `audit` of a folder on disk, at the
cost of comparing labels only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from datasets.audit import Audit, Flag, audit
from datasets.real import REAL_LABELLED, REAL_SETS
from datasets.shared import MissingSharedData, require_shared
from datasets.yolo import image_labels
from vision.boxes import iou_matrix
from vision.classes import CLASSES
from vision.detector import TileDetector
from vision.labels import read_labels, yolo_lines
from vision.model_files import MODELS_DIR
from vision.photo import load_photo

PLANTED = ("swap", "drop", "shift", "spurious")  # every kind `plant` knows
REAL_KINDS = ("swap", "drop")  # the errors a real set's labeller makes (its boxes are its own convention)


def plant(kind: str, boxes: np.ndarray, codes: list[str], width: int, height: int, rng):
    """One label error in an image's labels: swap a class, drop a box, shift a box by half a tile, or add
    a box on the bare table. (boxes, codes, tile, where): the index of the tile changed in the correct
    labels (None for an added box), and where the error is: its label index, or for a drop the box.
    None when the image has no bare table for an added box."""
    boxes, codes = boxes.copy(), list(codes)
    t = int(rng.integers(len(codes)))
    if kind == "swap":
        codes[t] = str(rng.choice([c for c in CLASSES[:-1] if c != codes[t]]))
        return boxes, codes, t, t
    if kind == "drop":
        return np.delete(boxes, t, axis=0), codes[:t] + codes[t + 1:], t, boxes[t]
    size = np.median(boxes[:, 2:] - boxes[:, :2], axis=0)
    if kind == "shift":
        step = np.array([size[0], 0, size[0], 0]) if rng.random() < 0.5 else np.array([0, size[1], 0, size[1]])
        boxes[t] += (0.5 if rng.random() < 0.5 else -0.5) * step
        return boxes, codes, t, t
    for _ in range(1000):  # somewhere on the table at least a tile clear of every tile
        x, y = rng.uniform(0, width - size[0]), rng.uniform(0, height - size[1])
        box = np.array([x, y, x + size[0], y + size[1]])
        if iou_matrix(box[None] + [-size[0], -size[1], size[0], size[1]], boxes).max() == 0:
            return np.vstack([boxes, box]), codes + [str(rng.choice(CLASSES[:-1]))], None, len(codes)
    return None


def plant_errors(root: Path, seed: int, kinds=PLANTED, per_kind: int = 4) -> list[tuple]:
    """`per_kind` errors of each kind in a data set on disk, each in an image of its own:
    [(kind, image, tile, where)] as `plant` says."""
    rng = np.random.default_rng(seed)
    pairs = [(image, label) for image, label in image_labels(root) if label and label.read_text().strip()]
    chosen = rng.choice(len(pairs), len(kinds) * per_kind, replace=False).tolist()
    spare = [i for i in range(len(pairs)) if i not in chosen]  # for an image a kind cannot be planted in
    planted = []
    for n, i in enumerate(chosen):
        kind = kinds[n // per_kind]
        while True:
            image, label = pairs[i]
            h, w = load_photo(image).shape[:2]
            changed = plant(kind, *read_labels(label, w, h), w, h, rng)
            if changed:
                break
            i = spare.pop(0)
        boxes, codes, tile, where = changed
        label.write_text("".join(line + "\n" for line in yolo_lines(boxes, codes, w, h)))
        planted.append((kind, str(image.relative_to(root)), tile, where))
    return planted


def points_at(flag: Flag, kind: str, rel: str, where) -> bool:
    """Whether a flag shows a player the planted error: the dropped tile found without a label, the
    swapped label read as another code, the shifted or added box not found where it is."""
    if flag.image != rel:
        return False
    if kind == "drop":
        return flag.kind == "unlabelled" and iou_matrix(np.array(flag.box)[None], where[None])[0, 0] >= 0.5
    accepted = {"swap": {"wrong-class"}, "shift": {"shifted", "missed"}, "spurious": {"missed"}}[kind]
    return flag.kind in accepted and flag.label == where


def planted_ranks(clean_flags, result: Audit, planted) -> list[tuple[str, bool, int | None]]:
    """(kind, findable, rank) of each planted error. Findable: on a tile the model reads right in the
    correct labels (no flag on it there), or a box added to an image where it reads most tiles right.
    Rank: 1-based, of the first flag that points at the error (None: not flagged)."""
    doubted = {(f.image, label) for f in clean_flags
               for label in (f.label, *(f.others if f.kind == "missed" else ()))}
    labels = {item.rel: len(item.codes) for item in result.images}

    def seen(rel: str, tile: int | None) -> bool:
        if tile is not None:
            return (rel, tile) not in doubted
        return sum(image == rel for image, _ in doubted) < (labels[rel] - 1) / 2  # the added box is not doubted

    return [(kind, seen(rel, tile),
             next((r for r, f in enumerate(result.flags, 1) if points_at(f, kind, rel, where)), None))
            for kind, rel, tile, where in planted]


def real_test_photos(count: int, seed: int, root: Path = REAL_LABELLED) -> list[tuple[Path, Path]]:
    """`count` (image, label) pairs from the real sets' test splits, each set's share in proportion to
    its size (largest remainders), drawn with `seed`."""
    pools = [[(image, label) for image, label in image_labels(root / name)
              if label and image.parent == root / name / "images" / "test"] for name in REAL_SETS]
    sizes = np.array([len(pool) for pool in pools], np.float64)
    share = count * sizes / sizes.sum()
    counts = np.floor(share).astype(int)
    counts[np.argsort(counts - share)[: count - counts.sum()]] += 1
    rng = np.random.default_rng(seed)
    return [pool[i] for pool, n in zip(pools, counts, strict=True)
            for i in sorted(rng.choice(len(pool), min(n, len(pool)), replace=False).tolist())]


def copy_photos(pairs, out: Path) -> None:
    """The photos and their labels in ultralytics layout under out (`images/x.jpg`, `labels/x.txt`)."""
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    for image, label in pairs:
        shutil.copy(image, out / "images" / image.name)
        shutil.copy(label, out / "labels" / f"{image.stem}.txt")


class Remembered:
    """A detector that reads each photo once: `read` and `detect` answers kept by the image's bytes."""

    def __init__(self, detector: TileDetector) -> None:
        self.detector, self.card, self.classifier = detector, detector.card, detector.classifier
        self.answers: dict = {}

    def _once(self, name: str, image: np.ndarray, **kwargs):
        key = (name, hashlib.sha1(image.tobytes()).hexdigest(), image.shape, tuple(sorted(kwargs.items())))
        if key not in self.answers:
            self.answers[key] = getattr(self.detector, name)(image, **kwargs)
        return self.answers[key]

    def read(self, image: np.ndarray, conf: float | None = None):
        return self._once("read", image, conf=conf)

    def detect(self, image: np.ndarray, long_side: int | None = None, conf: float | None = None):
        return self._once("detect", image, long_side=long_side, conf=conf)


def bench(detector, photos: int = 40, per_kind: int = 9, seeds=range(10), top: int | None = None,
          kinds=REAL_KINDS, root: Path = REAL_LABELLED) -> dict:
    """Plant errors in real photos and audit, once per seed: the rank of every planted error."""
    top = top or 2 * per_kind * len(kinds)
    detector = Remembered(detector)
    runs = []
    for seed in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            clean_dir, work = Path(tmp) / "clean", Path(tmp) / "planted"
            copy_photos(real_test_photos(photos, seed, root), clean_dir)
            shutil.copytree(clean_dir, work)
            clean = audit(clean_dir, detector)
            planted = plant_errors(work, seed, kinds, per_kind)
            result = audit(work, detector)
        ranks = planted_ranks(clean.flags, result, planted)
        runs.append({"seed": seed, "clean_flags": clean.to_json()["flag_counts"], "flags": len(result.flags),
                     "planted": [{"kind": k, "image": rel, "findable": f, "rank": r}
                                 for (k, rel, *_), (_, f, r) in zip(planted, ranks, strict=True)],
                     "top": sum(r is not None and r <= top for _, _, r in ranks)})
    within, planted = sum(run["top"] for run in runs), len(kinds) * per_kind * len(runs)
    return {"photos": photos, "kinds": list(kinds), "per_kind": per_kind, "top": top, "model": clean.model,
            "runs": runs, "planted": planted, "within_top": within, "share_within_top": round(within / planted, 4)}


def text(report: dict) -> str:
    planted = len(report["kinds"]) * report["per_kind"]
    lines = [f"{report['photos']} real test photos per seed, model {report['model']}",
             f"planted per seed: {report['per_kind']} x {', '.join(report['kinds'])}; "
             f"within the top {report['top']} flags:"]
    for run in report["runs"]:
        ranks = " ".join(f"{p['kind'][0]}{p['rank'] or '-'}{'' if p['findable'] else '?'}" for p in run["planted"])
        lines.append(f"  seed {run['seed']}: {run['top']}/{planted} of {run['flags']} flags  [{ranks}]"
                     f"  correct labels: {run['clean_flags']}")
    lines.append(f"all seeds: {report['within_top']}/{report['planted']} ({report['share_within_top']:.0%}) within "
                 f"the top {report['top']} (ranks: s swap, d drop, - not flagged, ? the model doubts that tile anyway)")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m datasets.audit_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--per-kind", type=int, default=9, help="errors planted of each kind per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    parser.add_argument("--top", type=int, help="the top of the list a player reads (default 2 per planted error)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        root = require_shared("data", "real-labelled", needed_for="the audit bench")
    except MissingSharedData as exc:
        raise SystemExit(f"error: {exc}") from exc
    report = bench(TileDetector(args.models), args.photos, args.per_kind, args.seeds, args.top, root=root)
    print(json.dumps(report, indent=1) if args.json else text(report))


if __name__ == "__main__":
    main()
