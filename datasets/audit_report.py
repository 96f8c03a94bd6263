"""The audit for people: pictures of an image's labels and reading, a thumbnail per flag, the
confusion matrix as a picture, a text summary and a self-contained HTML report.

Every picture is a function of (image, audit values), so the app and the tests draw the same ones.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import cast

import cv2
import numpy as np

from datasets.audit import MIN_SCORE, PHOTO, PHOTO_AT_LEAST, WRONG_PHOTO, Audit, Flag, ImageAudit
from datasets.yolo import DATASET_FORMATS
from scoring.tiles import tile_name
from vision.classes import CLASSES
from vision.draw import draw_boxes
from vision.files import write_image
from vision.photo import load_photo

THUMB = 160  # thumbnail panel height in pixels
SHOWN = 200  # flags with a thumbnail in the HTML report; --json lists them all


def code_name(code: str | None) -> str:
    """`2p 二筒`: the code and the name players write."""
    if code is None:
        return "—"
    return f"{code} {tile_name(code, 'traditional')}"


def label_picture(image: np.ndarray, item: ImageAudit) -> np.ndarray:
    """The image with its label boxes; flagged labels in red."""
    flagged = {t for f in item.flags for t in (f.label, *(f.others if f.kind in ("missed", PHOTO) else ()))}
    return draw_boxes(image, item.boxes, item.codes, [t in flagged for t in range(len(item.boxes))])


def reading_picture(image: np.ndarray, item: ImageAudit) -> np.ndarray:
    """The image with the model's reading as `code score`; detections behind a flag in red."""
    flagged = {r for f in item.flags for r in (f.detection, *(f.others if f.kind == "unlabelled" else ()))}
    reading = item.reading
    names = [f"{code} {score:.2f}" for code, score in zip(reading.raw_codes, reading.confidences, strict=True)]
    return draw_boxes(image, reading.boxes, names, [r in flagged for r in range(len(reading))])


def thumbnail(image: np.ndarray, item: ImageAudit, flag: Flag) -> np.ndarray:
    """The flagged region twice, side by side: the label (left) and the model's detection (right)."""
    x0, y0, x1, y1 = flag.box
    pad = 0.6 * max(x1 - x0, y1 - y0)
    h, w = image.shape[:2]
    cx0, cy0 = int(np.clip(x0 - pad, 0, w - 1)), int(np.clip(y0 - pad, 0, h - 1))  # a box off the image
    cx1, cy1 = int(np.clip(np.ceil(x1 + pad), cx0 + 1, w)), int(np.clip(np.ceil(y1 + pad), cy0 + 1, h))  # still shows
    crop = image[cy0:cy1, cx0:cx1]
    scale = THUMB / max(1, crop.shape[0])
    crop = cv2.resize(crop, (max(1, round(crop.shape[1] * scale)), THUMB), interpolation=cv2.INTER_CUBIC)
    offset = np.array([cx0, cy0, cx0, cy0])

    def panel(box, name: str) -> np.ndarray:
        if box is None:
            return crop.copy()
        return draw_boxes(crop, ((np.asarray(box) - offset) * scale)[None], [name], [True])

    label = None if flag.label is None else item.boxes[flag.label]
    found = None if flag.detection is None else item.reading.boxes[flag.detection]
    read = None if flag.read is None else f"{flag.read} {flag.confidence:.2f}"
    gap = np.full((THUMB, 4, 3), 255, np.uint8)
    return np.hstack([panel(label, flag.labelled or ""), gap, panel(found, read or "")])


def confusion_picture(audit: Audit) -> np.ndarray:
    """Labelled code (rows) against the code read (columns) for the codes that occur, counts in
    the cells, the diagonal (read right) in green, mistakes in red; `none`: no label / not found."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    names = [*CLASSES, "none"]
    used = np.nonzero(audit.confusion.sum(axis=0) + audit.confusion.sum(axis=1))[0]
    used = used if len(used) else np.array([len(CLASSES)])
    m = audit.confusion[np.ix_(used, used)]
    n = len(used)
    size = max(4.0, 0.32 * n + 1.5)
    fig, ax = plt.subplots(figsize=(size, size), dpi=100)
    diagonal = used[:, None] == used[None, :]
    strength = np.log1p(m) / np.log1p(max(int(m.max()), 1))
    hue = np.where(diagonal[..., None], [0.1, 0.6, 0.1], [0.85, 0.1, 0.1])
    colours = 1 - strength[..., None] * (1 - hue)  # white, deepening to green (right) or red (mistaken)
    ax.imshow(colours, interpolation="nearest")
    for i, j in zip(*np.nonzero(m), strict=True):
        ax.text(j, i, str(m[i, j]), ha="center", va="center", fontsize=7,
                color="white" if strength[i, j] > 0.6 else "black")
    labels = [names[i] for i in used]
    ax.set_xticks(range(n), labels, rotation=90, fontsize=8)
    ax.set_yticks(range(n), labels, fontsize=8)
    ax.set_xlabel("read as")
    ax.set_ylabel("labelled")
    ax.set_title(f"confusion at confidence {audit.conf:g}, IoU 0.5", fontsize=10)
    fig.tight_layout()
    canvas = cast(FigureCanvasAgg, fig.canvas)  # Agg, as chosen above
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    plt.close(fig)
    return cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGR)


def text(audit: Audit, top: int = 20) -> str:
    counts = ", ".join(f"{kind} {n}" for kind, n in audit.to_json()["flag_counts"].items())
    lines = [
        f"data set: {audit.root}",
        f"model: {audit.model}",
        f"images {len(audit.images)} (skipped {len(audit.skipped)}), labels {int(audit.labels.sum())}, "
        f"detections {int(audit.detections.sum())} at confidence >= {audit.conf:g}",
        f"mAP50 {audit.map50:.3f}  mAP50-95 {audit.map50_95:.3f}  precision {audit.precision:.3f}  "
        f"recall {audit.recall:.3f}",
        f"flags: {len(audit.flags)} ({counts}); most suspicious first:",
    ]
    for rank, f in enumerate(audit.flags[:top], 1):
        lines.append(f"  {rank:>3} {f.suspicion:.2f} {f.kind:<11} {f.image}: {f.message}")
    if len(audit.flags) > top:
        lines.append(f"  ... and {len(audit.flags) - top} more (--json or --out for all)")
    for image, why in audit.skipped:
        lines.append(f"skipped {image}: {why}")
    return "\n".join(lines)


CSS = """
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: middle; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.metrics span { display: inline-block; margin-right: 2em; font-size: 1.2em; }
dt { font-weight: bold; } dd { margin: 0 0 0.5em 1.5em; }
"""


def _num(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def write_html(audit: Audit, out: Path, shown: int = SHOWN) -> Path:
    """`out/index.html` with the figures, the confusion picture and the most suspicious flags,
    each with its thumbnail (files under `out`, so the folder opens anywhere)."""
    out = Path(out)
    (out / "thumbs").mkdir(parents=True, exist_ok=True)
    write_image(out / "confusion.png", confusion_picture(audit))
    by_rel = {item.rel: item for item in audit.images}
    ranked = list(enumerate(audit.flags[:shown], 1))
    for rel in dict.fromkeys(f.image for _, f in ranked):  # each photo loaded once
        photo = load_photo(by_rel[rel].path, DATASET_FORMATS)
        for rank, f in ranked:
            if f.image == rel:
                write_image(out / f"thumbs/{rank:04d}.jpg", thumbnail(photo, by_rel[rel], f),
                            (cv2.IMWRITE_JPEG_QUALITY, 88))
    rows = []
    for rank, f in ranked:
        where = f.image + ("" if f.label is None else f" · box {f.label + 1}")
        rows.append(
            f"<tr><td class=num>{rank}</td><td class=num>{f.suspicion:.2f}</td><td>{f.kind}</td>"
            f"<td>{html.escape(where)}</td><td>{html.escape(code_name(f.labelled))}</td>"
            f"<td>{html.escape(code_name(f.read))}</td><td class=num>{_num(f.confidence)}</td>"
            f"<td class=num>{_num(f.iou)}</td><td><img src='thumbs/{rank:04d}.jpg' alt='{html.escape(f.message)}'>"
            "</td></tr>")
    classes = "".join(
        f"<tr><td>{html.escape(code_name(r['code']))}</td><td class=num>{r['labels']}</td>"
        f"<td class=num>{r['detections']}</td><td class=num>{_num(r['precision'])}</td>"
        f"<td class=num>{_num(r['recall'])}</td><td class=num>{_num(r['ap50'])}</td>"
        f"<td class=num>{_num(r['ap50_95'])}</td></tr>" for r in audit.class_rows())
    counts, trust = audit.to_json()["flag_counts"], audit.trust
    skipped = "".join(f"<li>{html.escape(i)}: {html.escape(w)}</li>" for i, w in audit.skipped)
    more = (f"<p>{len(audit.flags) - shown} less suspicious flags not shown here "
            "(<code>--json</code> lists them all).</p>") if len(audit.flags) > shown else ""
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Audit of {html.escape(audit.root)}</title>
<style>{CSS}</style></head><body>
<h1>Audit of {html.escape(audit.root)}</h1>
<p>Model {html.escape(audit.model)}. {len(audit.images)} images ({len(audit.skipped)} skipped),
{int(audit.labels.sum())} labelled tiles, {int(audit.detections.sum())} detections at confidence ≥ {audit.conf:g}.</p>
<p class="metrics"><span>mAP50 <b>{audit.map50:.3f}</b></span><span>mAP50-95 <b>{audit.map50_95:.3f}</b></span>
<span>precision <b>{audit.precision:.3f}</b></span><span>recall <b>{audit.recall:.3f}</b></span></p>
<h2>Likely label errors</h2>
<p>{len(audit.flags)} flags: {", ".join(f"{k} {n}" for k, n in counts.items())}. Most suspicious first; each
thumbnail shows the label (left) and the model's detection (right). Suspicion = evidence × trust: evidence is
how plainly the model disagrees, trust how often the model is right in a claim like this one on this data set,
measured at the flag's own score (isotonic in the score; the overall shares are in brackets below).</p>
<dl>
<dt>mislabelled-photo (listed first)</dt><dd>the model plainly reads more than {WRONG_PHOTO:.0%} of a photo's found
labels (at least {PHOTO_AT_LEAST}) as another code: the photo was labelled wrong as a whole (every tile given one
code, say), one thing to fix, standing for its wrong-class flags; evidence = the wrong-class evidence summed over
the photo's found labels; trust = the share of found tiles whose code agrees with the label on this data set.</dd>
<dt>wrong-class (codes read right: {trust['wrong-class']:.2f})</dt><dd>the model finds the labelled tile but reads
another code; evidence = its certainty that the labelled code is not there (1 when it gives that code no score,
much less when it hesitates between the two); trust = the share of found tiles read at that score whose code
agrees with the label, lowered where it misreads the neighbouring tiles more than the set's.</dd>
<dt>missed (labels found: {trust['missed']:.2f})</dt><dd>nothing found on the label (a box on no tile, or far off
its tile); evidence = log({audit.conf:g} / s) / log({audit.conf:g} / {MIN_SCORE:g}), s the best score (at least
{MIN_SCORE:g}) of any detection covering it (IoU ≥ 0.5): 1 where the model sees nothing at all; trust = the
share of the 4 nearest labels it finds, shrunk toward the set's, lowered for a code it often misses.</dd>
<dt>unlabelled (detections on a label: {trust['unlabelled']:.2f})</dt><dd>a tile found where there is no label (a
box left out); trust = the share of detections at its confidence that lie on a label, lowered where its 4 nearest
detections lie off the labels more than the set's and for a code the model often finds off the labels.</dd>
<dt>shifted (boxes tight: {trust['shifted']:.2f})</dt><dd>label and detection of one tile overlap only partly
(IoU under 0.7); evidence = 1 at IoU 0.5 or less, down to none at 0.7; trust = the share of detections at its
confidence that lie on a label × the share of the 4 nearest found tiles boxed at IoU ≥ 0.7.</dd>
</dl>
<p>Detections are compared as each image's labeller boxes a tile (learnt from the image: the face of a standing
tile only, or the whole tile), so a consistent habit is no flag. Three or more neighbouring missed labels (a part
the model cannot see) or unlabelled tiles (a part nobody labelled) are one flag per image, standing for the rest.</p>
<table><tr><th>#</th><th>suspicion</th><th>kind</th><th>image</th><th>labelled</th><th>read as</th>
<th>confidence</th><th>IoU</th><th>label | detection</th></tr>
{"".join(rows)}</table>{more}
<h2>Confusions</h2>
<p>Rows: the labelled code; columns: the code read; <i>none</i>: a detection without a label (row) or a label
without a detection (column).</p>
<img src="confusion.png" alt="confusion matrix">
<h2>Per class</h2>
<p>Precision and recall of the reading (confidence ≥ {audit.conf:g}, IoU ≥ 0.5); AP of the detector alone
(one pass, scores down to {MIN_SCORE:g}), all-point interpolated.</p>
<table><tr><th>class</th><th>labels</th><th>detections</th><th>precision</th><th>recall</th><th>AP50</th>
<th>AP50-95</th></tr>{classes}</table>
{f"<h2>Skipped images</h2><ul>{skipped}</ul>" if skipped else ""}
</body></html>
"""
    index = out / "index.html"
    index.write_text(page)
    return index
