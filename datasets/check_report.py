"""The checker's outputs for people: the text report with a class histogram, and a contact sheet
of sample images whose boxes with findings are drawn in red."""

from collections import defaultdict
from pathlib import Path

from datasets.check import Report, Sample
from datasets.preview import cell, sheet
from datasets.yolo import DATASET_FORMATS
from vision.classes import CLASSES
from vision.files import write_image
from vision.photo import load_photo

BAR = 30
EXAMPLES = 5  # findings shown per kind; --json lists them all


def histogram(report: Report) -> list[str]:
    """One text bar per class: boxes (bar and count) and images containing it."""
    top = max(report.class_boxes) or 1
    lines = []
    for code, boxes, images in zip(CLASSES, report.class_boxes, report.class_images, strict=True):
        bar = "█" * round(BAR * boxes / top)
        lines.append(f"  {code:<5}{bar:<{BAR}} {boxes:>6} boxes {images:>5} images")
    return lines


def _findings(title: str, findings) -> list[str]:
    by_kind = defaultdict(list)
    for f in findings:
        by_kind[f.kind].append(f)
    lines = [f"{title}: {len(findings)}"]
    for kind, items in by_kind.items():
        lines.append(f"  {kind} ({len(items)})")
        for f in items[:EXAMPLES]:
            where = f.path + (f":{f.line}" if f.line else "")
            lines.append(f"    {where}: {f.message}" if f.path != "." else f"    {f.message}")
        if len(items) > EXAMPLES:
            lines.append(f"    ... and {len(items) - EXAMPLES} more")
    return lines


def text(report: Report) -> str:
    splits = ", ".join(f"{k} {v}" for k, v in sorted(report.splits.items()))
    lines = [
        f"data set: {report.root}",
        f"images {report.images} ({splits or 'none'}), label files {report.labels}, boxes {report.boxes}",
        *_findings("errors", report.errors),
        *_findings("warnings", report.warnings),
        "classes (boxes, images):",
        *histogram(report),
    ]
    if report.sheet:
        lines.append(f"contact sheet: {report.sheet}")
    verdict = "FAILED" if report.errors else "OK"
    lines.append(f"{verdict}: {len(report.errors)} errors, {len(report.warnings)} warnings")
    return "\n".join(lines)


def pick_samples(samples: list[Sample], n: int) -> list[Sample]:
    """Up to half the sheet from images with flagged boxes, the rest spread evenly over the set."""
    flagged = [s for s in samples if any(s.bad)][: n // 2]
    rest = [s for s in samples if not any(s.bad)]
    k = min(n - len(flagged), len(rest))
    spread = [rest[round(i * (len(rest) - 1) / max(1, k - 1))] for i in range(k)] if k else []
    return flagged + spread


def write_sheet(report: Report, samples: list[Sample], out: Path, n: int = 16) -> None:
    """The contact sheet written to `out` (ImageWriteError, and `report.sheet` left unset, when it cannot be)."""
    cells = []
    for s in pick_samples(samples, n):
        caption = str(s.image.relative_to(report.root))[-50:]
        cells.append(cell(load_photo(s.image, DATASET_FORMATS), s.boxes, s.names, caption, s.bad))
    write_image(out, sheet(cells))
    report.sheet = str(out)
