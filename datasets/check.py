"""Check a YOLO-format tile data set: ours, or someone's own labelled photos.

Any layout `datasets.yolo` pairs (ultralytics, Roboflow exports, labels next to their images);
`data.yaml` is optional.

Errors make the set unfit to train on: an image with no label file (ultralytics would silently
train on it as a photo without tiles), an unreadable image, a malformed line, a class id outside
the 43 classes, a box outside the image or under a pixel wide, two boxes on one tile (IoU at or
above the threshold), the same image in two splits (val leaking into train), a data.yaml whose
class names are not ours. Warnings are legal but worth a look: empty labels (negatives), label
files with no image (ignored by training), the same image twice in one split, classes never seen,
every box of an image one face code, more of them than a set holds (a labeller who gave every tile
one code; `python -m datasets audit` also finds a photo whose labels the model reads otherwise).
"""

import hashlib
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import yaml
from tqdm import tqdm

from datasets.yolo import DATASET_FORMATS, IMAGE_SUFFIXES, find_files, label_path_of, split_of
from scoring.hand import brief
from vision.boxes import pairwise_iou
from vision.classes import CLASSES
from vision.labels import parse_line, to_xyxy
from vision.photo import PhotoError, load_photo

IOU_DUPLICATE = 0.7  # tiles in a row touch but hardly overlap; above this it is one tile twice
# A photo of a whole 144-tile set is the most a tile photo shows; the duplicate check compares
# every pair of boxes (memory and time grow with the square), so a file with more is not compared.
MAX_BOXES = 1000
EDGE_TOLERANCE = 0.5  # pixels a box may stick out of the image (rounding of normalised values)
MIN_BOX_PX = 1.0
SET_HOLDS = 4  # copies of a face code in one set; face-down tiles are all `back`, rightly


@dataclass(frozen=True)
class Finding:
    severity: str  # "error" or "warning"
    kind: str
    path: str  # relative to the data set's root
    line: int | None  # 1-based line of a label file
    message: str


@dataclass
class Report:
    root: str
    iou: float
    images: int = 0
    labels: int = 0
    boxes: int = 0
    splits: dict[str, int] = field(default_factory=dict)
    class_boxes: list[int] = field(default_factory=lambda: [0] * len(CLASSES))
    class_images: list[int] = field(default_factory=lambda: [0] * len(CLASSES))
    findings: list[Finding] = field(default_factory=list)
    sheet: str | None = None

    def add(self, severity: str, kind: str, path: str, message: str, line: int | None = None) -> None:
        self.findings.append(Finding(severity, kind, path, line, message))

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    def to_json(self) -> dict:
        return {
            "root": self.root,
            "ok": not self.errors,
            "images": self.images,
            "labels": self.labels,
            "boxes": self.boxes,
            "splits": self.splits,
            "iou_threshold": self.iou,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "findings": [asdict(f) for f in self.findings],
            "classes": [
                {"id": i, "code": code, "boxes": self.class_boxes[i], "images": self.class_images[i]}
                for i, code in enumerate(CLASSES)
            ],
            "sheet": self.sheet,
        }


@dataclass
class Sample:
    """An image with its parsed boxes, for the contact sheet."""

    image: Path
    boxes: np.ndarray  # (N, 4) xyxy pixels
    names: list[str]
    bad: list[bool]  # boxes with a finding, drawn highlighted


class _NoAliases(yaml.SafeLoader):
    """A data.yaml has no use for aliases, and a few nested ones make a file of 500 bytes a
    structure whose printing takes gigabytes (a "billion laughs")."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError(f"aliases (*{self.peek_event().anchor}) are not allowed in a data.yaml")
        return super().compose_node(parent, index)


def _check_data_yaml(root: Path, report: Report) -> None:
    path = root / "data.yaml"
    if not path.is_file():
        return
    try:
        data = yaml.load(path.read_text(), _NoAliases)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        report.add("error", "data-yaml", "data.yaml", f"unreadable: {str(exc)[:300]}")
        return
    names = data.get("names") if isinstance(data, dict) else None
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names)] if list(sorted(names)) == list(range(len(names))) else None
    if not isinstance(names, list):
        report.add("error", "data-yaml", "data.yaml", "no `names` list of classes")
    elif names != list(CLASSES):
        pairs = enumerate(zip(names, CLASSES, strict=False))
        diff = next((i for i, (a, b) in pairs if a != b), min(len(names), len(CLASSES)))
        got = names[diff] if diff < len(names) else "(none)"
        want = CLASSES[diff] if diff < len(CLASSES) else "(none)"
        report.add("error", "data-yaml", "data.yaml",
                   f"names are not the {len(CLASSES)} tile classes in order ({len(names)} names; "
                   f"class {diff} is {brief(got)}, expected {want!r})")


def one_code(codes: list[str]) -> bool:
    """Every box one face code, on more boxes than a set holds of it: a labeller gave every tile one code."""
    return len(codes) > SET_HOLDS and len(set(codes)) == 1 and codes[0] != "back"


def _check_labels(report: Report, label: Path, rel: str, w: int, h: int):
    """Findings for one label file of a w x h image; (boxes, names, bad) for the contact sheet."""
    try:
        lines = label.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        report.add("error", "unreadable-label", rel, f"cannot read: {exc}")
        return None
    boxes, names, bad, line_nos, seen = [], [], [], [], set()
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        parsed = parse_line(text)
        if isinstance(parsed, str):
            report.add("error", "malformed-line", rel, f"{parsed}: {text.strip()[:60]!r}", n)
            continue
        cls, cx, cy, bw, bh = parsed
        box = to_xyxy(cx, cy, bw, bh, w, h)
        flawed = False
        if not 0 <= cls < len(CLASSES):
            report.add("error", "class-out-of-range", rel, f"class {cls} is not in 0..{len(CLASSES) - 1}", n)
            flawed = True
        else:
            report.class_boxes[cls] += 1
            seen.add(cls)
        if bw * w < MIN_BOX_PX or bh * h < MIN_BOX_PX:
            report.add("error", "degenerate-box", rel,
                       f"box is {bw * w:.2f} x {bh * h:.2f} px in a {w}x{h} image", n)
            flawed = True
        t = EDGE_TOLERANCE
        if box[0] < -t or box[1] < -t or box[2] > w + t or box[3] > h + t:
            report.add("error", "box-outside-image", rel,
                       "box {:.1f},{:.1f}-{:.1f},{:.1f} px is outside the {}x{} image".format(*box, w, h), n)
            flawed = True
        boxes.append(box)
        names.append(CLASSES[cls] if 0 <= cls < len(CLASSES) else f"#{cls}")
        bad.append(flawed)
        line_nos.append(n)
    report.boxes += len(boxes)
    for cls in seen:
        report.class_images[cls] += 1
    if not lines or not any(t.strip() for t in lines):
        report.add("warning", "empty-label", rel, "no boxes (fine for a photo without tiles)")
    if one_code(names):
        report.add("warning", "one-code", rel, f"all {len(names)} boxes are {names[0]}, and a set holds "
                   f"{SET_HOLDS}: every tile given one code?")
        bad = [True] * len(bad)
    boxes = np.array(boxes).reshape(-1, 4)
    if len(boxes) > MAX_BOXES:
        report.add("error", "too-many-boxes", rel, f"{len(boxes)} boxes; a tile photo has at most a few hundred "
                   f"(not checked for boxes labelled twice above {MAX_BOXES})")
        return boxes, names, bad
    iou = pairwise_iou(boxes)
    # Each box said once, against the first box it repeats: n boxes on one tile are n - 1 findings.
    twice = np.triu(iou >= report.iou, 1)
    for j in np.flatnonzero(twice.any(axis=0)):
        i = int(np.argmax(twice[:, j]))
        report.add("error", "duplicate-box", rel,
                   f"lines {line_nos[i]} and {line_nos[j]} ({names[i]}, {names[j]}) overlap with IoU "
                   f"{iou[i, j]:.2f}: one tile labelled twice?", line_nos[j])
        bad[i] = bad[j] = True
    return boxes, names, bad


def check(root: Path, iou: float = IOU_DUPLICATE) -> tuple[Report, list[Sample]]:
    """Check every image and label file under root; the report and the drawable samples."""
    root = Path(root)
    report = Report(str(root), iou)
    _check_data_yaml(root, report)
    images, labels = find_files(root)
    report.images, report.labels = len(images), len(labels)
    if not images:
        report.add("error", "no-images", ".", f"no images ({', '.join(sorted(IMAGE_SUFFIXES))}) under {root}")
    paired: set[Path] = set()
    hashes: dict[str, list[Path]] = defaultdict(list)
    samples = []
    for image in tqdm(images, desc="checking", unit="img", delay=2.0):
        rel = str(image.relative_to(root))
        split = split_of(root, image)
        report.splits[split] = report.splits.get(split, 0) + 1
        label = label_path_of(root, image)
        paired.add(label)
        try:
            photo = load_photo(image, DATASET_FORMATS)
        except PhotoError as exc:
            report.add("error", "unreadable-image", rel, str(exc))
            continue
        hashes[hashlib.sha256(image.read_bytes()).hexdigest()].append(image)
        if not label.is_file():
            report.add("error", "missing-label", rel,
                       f"no label file {label.relative_to(root)} (write an empty one for a photo without tiles)")
            continue
        h, w = photo.shape[:2]
        drawn = _check_labels(report, label, str(label.relative_to(root)), w, h)
        if drawn is not None:
            samples.append(Sample(image, *drawn))
    for label in labels:
        if label not in paired:
            report.add("warning", "orphan-label", str(label.relative_to(root)), "no image for this label file")
    for same in hashes.values():
        if len(same) > 1:
            rels = ", ".join(str(p.relative_to(root)) for p in same[1:])
            across = len({split_of(root, p) for p in same}) > 1
            report.add("error" if across else "warning", "duplicate-image", str(same[0].relative_to(root)),
                       f"same bytes as {rels}" + (" (in different splits: val leaks into train)" if across else ""))
    if images:
        unseen = [code for code, n in zip(CLASSES, report.class_boxes, strict=True) if n == 0]
        if unseen:
            report.add("warning", "class-unseen", ".", f"{len(unseen)} classes have no boxes: {' '.join(unseen)}")
    return report, samples
