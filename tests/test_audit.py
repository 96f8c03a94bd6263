"""The data-set audit: the flags on hand-made detections, then label errors planted in a generated
set, which the audit on the committed model must rank at the top; the CLI and its HTML report."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.audit import NEIGHBOURS, PRIOR, ImageAudit, audit, compare, find_flags, summarise
from datasets.audit_bench import PLANTED, bench, plant, plant_errors, planted_ranks
from datasets.audit_bench import text as bench_text
from datasets.audit_report import label_picture, reading_picture, thumbnail, write_html
from datasets.generate import generate
from tests.shared import needs_shared
from vision.classes import CLASS_INDEX, CLASSES
from vision.detections import Detections
from vision.detector import TileDetector
from vision.model_files import MODELS_DIR
from vision.photo import load_photo

ROOT = Path(__file__).resolve().parents[1]
MODELS = MODELS_DIR
needs_model = pytest.mark.skipif(not (MODELS / "model.json").exists(),
                                 reason="no committed model (models/model.json) to audit with")
PLANTED_PER_KIND = 4
TOP_K_PER_PLANTED = 2  # every planted error must be among the top 2 x (number planted) flags


def dets(*rows) -> Detections:
    """Detections from (box, {code: score}) rows."""
    scores = np.zeros((len(rows), len(CLASSES)), np.float32)
    for i, (_, by_code) in enumerate(rows):
        for code, score in by_code.items():
            scores[i, CLASS_INDEX[code]] = score
    return Detections(np.array([box for box, _ in rows], np.float32).reshape(-1, 4), scores)


LABELS = np.array([[0, 0, 10, 14], [10, 0, 20, 14], [20, 0, 30, 14], [60, 0, 70, 14], [30, 0, 40, 14]], float)
CODES = ["1m", "2m", "3m", "4m", "5m"]
FOUND = dets(
    ([0, 0, 10, 14], {"1m": 0.9}),  # agrees
    ([10, 0, 20, 14], {"2p": 0.8, "2m": 0.05}),  # 2m read as 2p
    ([25, 0, 35, 14], {"3m": 0.9, "4m": 0.1}),  # 3m's tile is half a tile off its label
    ([60, 0, 70, 14], {"4m": 0.1}),  # too weak to count as read: 4m unseen
    ([80, 0, 90, 14], {"7z": 0.7}),  # a tile with no label
    ([32, 0, 42, 14], {"5m": 0.95}),  # 5m found a little off (IoU 0.67)
)


def read(found: Detections, conf: float = 0.25) -> Detections:
    """The reading at `conf` out of all that was found."""
    return found[np.nonzero(found.confidences >= conf)[0]]


def test_each_kind_of_flag_and_its_suspicion():
    labels, codes, found = LABELS, CODES, FOUND
    flags = find_flags("a.jpg", labels, codes, read(found), found, conf=0.25)
    got = sorted((f.kind, f.label, f.detection, round(f.evidence, 3)) for f in flags)
    assert got == sorted([
        ("wrong-class", 1, 1, round(np.log(0.8 / 0.05) / np.log(0.8 / 0.01), 3)),  # sure it is not 2m
        ("shifted", 2, 2, 1.0),  # IoU 1/3: well off
        ("missed", 3, None, round(np.log(0.25 / 0.1) / np.log(0.25 / 0.01), 3)),  # doubted, not absent
        ("unlabelled", None, 3, 1.0),  # detections counted in the reading, which leaves out the weak 4m
        ("shifted", 4, 4, round((0.7 - 2 / 3) / 0.2, 3)),  # IoU 2/3: only a little off
    ])
    wrong = next(f for f in flags if f.kind == "wrong-class")
    assert (wrong.labelled, wrong.read, wrong.message) == ("2m", "2p", "labelled 2m, read as 2p (0.80)")
    assert find_flags("b.jpg", labels[:1], codes[:1], found[[0]], found[[0]], conf=0.25) == []
    assert [f.kind for f in find_flags("c.jpg", np.zeros((0, 4)), [], found[[4]], found, 0.25)] == ["unlabelled"]


def test_pictures_and_html_report_of_hand_made_audit(tmp_path):
    path = tmp_path / "a.jpg"
    cv2.imwrite(str(path), np.full((40, 100, 3), 120, np.uint8))
    item = ImageAudit(path, "a.jpg", LABELS, CODES, read(FOUND), FOUND,
                      find_flags("a.jpg", LABELS, CODES, read(FOUND), FOUND, 0.25))
    result = summarise(str(tmp_path), "hand-made", 0.25, [item], [("b.jpg", "no label file")])
    # found 3 of 5 labels (1m, 2m, 5m), 2 read as labelled, 2 boxed tightly; 3 of 5 detections on a label
    assert result.trust == pytest.approx({"wrong-class": 2 / 3, "missed": 3 / 5, "unlabelled": 3 / 5,
                                          "shifted": 2 / 3})
    # Trust at each flag's score, isotonic with 2 pseudo-counts at the overall share (datasets.calibration).
    # Codes read (by score): 2p 0.8 wrong | 1m 0.9, 5m 0.95 right → 0.8: (0 + 2·2/3) / 3.
    # Detections on a label (by score): 7z 0.7 no | 2p 0.8, 1m 0.9 yes, 3m 0.9 no (pooled) | 5m 0.95 yes
    # → 0.7: (0 + 2·3/5) / 3, 0.9: (2 + 2·3/5) / 5, 0.95: (1 + 2·3/5) / 3.
    # The one 7z found is off the labels: its code's share (0 + 5·3/5) / (1 + 5) against the set's 3/5.
    # Neighbours (the 4 nearest, shares shrunk toward the set's with 5 pseudo-counts): 3m's found ones
    # 2m, 5m, 1m have 2 of 3 boxes tight (2 + 5·2/3) / 8 = 2/3; 5m's, 2m and 1m, both (2 + 5·2/3) / 7.
    # 4m's 5m, 3m, 2m, 1m: 3 of 4 found (3 + 5·3/5) / 9, and no 4m is found: (0 + 5·3/5) / 6 against 3/5.
    # 2m's neighbours found are read right and the 7z's are on labels: no less trust for those.
    assert [(f.kind, f.label, round(f.trust, 4)) for f in result.flags] == [
        ("shifted", 2, round(3.2 / 5 * 2 / 3, 4)), ("unlabelled", None, round(1.2 / 3 * (3 / 6) / (3 / 5), 4)),
        ("wrong-class", 1, round(4 / 9, 4)), ("missed", 3, round(6 / 9 * (3 / 6) / (3 / 5), 4)),
        ("shifted", 4, round(2.2 / 3 * (2 + 5 * 2 / 3) / 7, 4))]
    assert all(f.suspicion == f.evidence * f.trust for f in result.flags)
    image = load_photo(path)
    assert label_picture(image, item).shape == reading_picture(image, item).shape == image.shape
    assert not np.array_equal(label_picture(image, item), reading_picture(image, item))
    for flag in result.flags:
        assert thumbnail(image, item, flag).shape[0] == 160
    off = type(result.flags[0])(**{**result.flags[0].__dict__, "box": (150.0, 50.0, 160.0, 64.0)})
    assert thumbnail(image, item, off).shape[0] == 160  # a box off the image still gets a thumbnail
    index = write_html(result, tmp_path / "report")
    page = index.read_text()
    assert page.count("<img src='thumbs/") == 5 and "b.jpg: no label file" in page
    assert "labelled 2m, read as 2p (0.80)" in page and "2m 二萬" in page
    assert cv2.imread(str(tmp_path / "report" / "confusion.png")) is not None


def test_a_miss_among_tiles_found_outranks_misses_where_nothing_is_found():
    row = np.array([[30 * i, 0, 30 * (i + 1), 40] for i in range(10)], float)
    codes = ["1m"] * 10
    seen = dets(*[(box, {"1m": 0.9}) for box in row[:9]])  # all but the last tile
    items = [ImageAudit(Path(rel), rel, row, codes, found, found, find_flags(rel, row, codes, found, found, 0.25))
             for rel, found in (("blind.jpg", Detections.empty()), ("sharp.jpg", seen))]
    result = summarise("two", "hand-made", 0.25, items, [])
    # The row missed whole is one flag standing for its 10 labels.
    assert [(f.image, f.evidence, len(f.others)) for f in result.flags] == [("sharp.jpg", 1.0, 0),
                                                                           ("blind.jpg", 1.0, 9)]
    recall = 9 / 20  # its NEIGHBOURS nearest labels: all found in the sharp photo, none in the blind one
    assert result.flags[0].suspicion == pytest.approx((NEIGHBOURS + PRIOR * recall) / (NEIGHBOURS + PRIOR))
    assert result.flags[1].suspicion == pytest.approx(PRIOR * recall / (NEIGHBOURS + PRIOR))
    assert result.flags[1].message.startswith("10 neighbouring labels with nothing found on them")


def assert_planted_at_the_top(ranks, flags: int, context: str) -> None:
    """Every findable planted error among the top TOP_K_PER_PLANTED x (number planted) flags, and at
    least 3 in 4 planted errors findable (else the model is too weak for this to say anything)."""
    limit = TOP_K_PER_PLANTED * len(ranks)
    summary = f"{context}: (kind, findable, rank) {ranks} of {flags} flags, top-{limit} required"
    assert all(rank is not None and rank <= limit for _, findable, rank in ranks if findable), summary
    assert sum(findable for _, findable, _ in ranks) >= 0.75 * len(ranks), summary


def laid_out(rng, width: int = 640, height: int = 480) -> tuple[np.ndarray, list[str]]:
    """Labels of 2-3 rows of 8-16 touching 30x40 tiles, as hands lie on a table."""
    boxes, codes = [], []
    for row in range(int(rng.integers(2, 4))):
        n = int(rng.integers(8, 17))
        x, y = rng.uniform(10, width - 10 - 30 * n), 20 + 140 * row + rng.uniform(0, 60)
        boxes += [[x + 30 * i, y, x + 30 * (i + 1), y + 40] for i in range(n)]
        codes += [str(c) for c in rng.choice(CLASSES[:-1], n)]
    return np.array(boxes), codes


def simulated_reading(boxes: np.ndarray, codes: list[str], rng) -> Detections:
    """What a fair detector reads from correctly labelled tiles: boxes a little off; 8% of tiles only
    doubted (scores 0.03-0.2); 5% read as a neighbouring face that it prefers to the right one; and
    now and then a confident detection of nothing."""
    rows = []
    for box, code in zip(boxes, codes, strict=True):
        size = np.array([box[2] - box[0], box[3] - box[1]] * 2)
        jittered = box + rng.uniform(-0.06, 0.06, 4) * size
        other = CLASSES[(CLASS_INDEX[code] + 1) % 42]
        r = rng.random()
        if r < 0.08:
            rows.append((jittered, {code: rng.uniform(0.03, 0.2)}))
        elif r < 0.13:
            rows.append((jittered, {other: rng.uniform(0.4, 0.8), code: rng.uniform(0.1, 0.4)}))
        else:
            rows.append((jittered, {code: rng.uniform(0.5, 0.95), other: rng.uniform(0, 0.15)}))
    for _ in range(rng.poisson(0.3)):
        x, y = rng.uniform(0, 600), rng.uniform(0, 440)
        rows.append(([x, y, x + 30, y + 40], {str(rng.choice(CLASSES)): rng.uniform(0.25, 0.5)}))
    return dets(*rows)


def face_only(boxes: np.ndarray) -> np.ndarray:
    """The boxes a labeller draws round the face of a standing tile: its top 60%, 80% of its width."""
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    return np.stack([boxes[:, 0] + 0.1 * w, boxes[:, 1], boxes[:, 2] - 0.1 * w, boxes[:, 1] + 0.6 * h], axis=1)


@pytest.mark.parametrize("real_habits", [False, True], ids=["as-generated", "face-only-half-labelled"])
def test_planted_label_errors_rank_at_the_top_on_a_simulated_detector(real_habits):
    """The ranking itself, whatever model is committed: a fair detector's own mistakes (doubted tiles,
    confusions, stray detections) must not bury the planted label errors. With real sets' habits too:
    every label boxes the face only (IoU about 0.5 with the model's box of the tile body: a set's
    convention, not a shifted box each), and the last row of the photos without planted errors is
    left unlabelled (a part nobody labelled, not a dozen errors)."""
    rng = np.random.default_rng(3)
    clean, planted_set, planted = [], [], []
    for i in range(30):
        rel = f"{i:02d}.jpg"
        boxes, codes = laid_out(rng)
        found = simulated_reading(boxes, codes, rng)
        if real_habits:
            boxes = face_only(boxes)
            if i >= len(PLANTED) * PLANTED_PER_KIND:
                last = boxes[:, 1] >= boxes[:, 1].max() - 1
                boxes, codes = boxes[~last], [c for c, gone in zip(codes, last, strict=True) if not gone]
        clean.append(ImageAudit(Path(rel), rel, boxes, codes, read(found), found))
        if i < len(PLANTED) * PLANTED_PER_KIND:
            kind = PLANTED[i // PLANTED_PER_KIND]
            boxes, codes, tile, where = plant(kind, boxes, codes, 640, 480, rng)
            planted.append((kind, rel, tile, where))
        planted_set.append(ImageAudit(Path(rel), rel, boxes, codes, read(found), found))
    compare(clean, 0.25)
    compare(planted_set, 0.25)
    clean_flags = summarise("clean", "simulated", 0.25, clean, []).flags
    result = summarise("simulated", "simulated", 0.25, planted_set, [])
    assert_planted_at_the_top(planted_ranks(clean_flags, result, planted), len(result.flags), "simulated detector")
    if real_habits:  # the face-only boxes are no flags, each unlabelled row is one
        assert not any(f.kind == "shifted" for f in clean_flags)
        heaps = [f.image for f in clean_flags if f.kind == "unlabelled" and f.others]
        assert sorted(heaps) == [f"{i:02d}.jpg" for i in range(16, 30)]


@pytest.fixture(scope="module")
def planted_set(tmp_path_factory):
    """A generated set audited as generated (correct labels), then with errors planted."""
    root = tmp_path_factory.mktemp("planted")
    generate(root, 30, seed=9091, workers=1, long_side=512)
    return root, plant_errors(root, seed=7)


@pytest.fixture(scope="module")
def planted_audit(planted_set, tmp_path_factory):
    root, planted = planted_set
    clean = tmp_path_factory.mktemp("clean")
    generate(clean, 30, seed=9091, workers=1, long_side=512)
    detector = TileDetector(MODELS)
    return audit(clean, detector), audit(root, detector), planted


@pytest.mark.slow
@needs_model
def test_planted_label_errors_rank_at_the_top(planted_audit):
    clean, result, planted = planted_audit
    context = f"committed model, mAP50 {clean.map50:.3f} on the correct labels"
    assert_planted_at_the_top(planted_ranks(clean.flags, result, planted), len(result.flags), context)


@pytest.mark.slow
@needs_model
def test_report_json_and_html(planted_audit, tmp_path):
    _, result, _ = planted_audit
    data = result.to_json()
    assert data["images"] == 30 and data["labels"] == sum(len(r.codes) for r in result.images)
    assert data["flags"][0]["suspicion"] >= data["flags"][-1]["suspicion"]
    assert len(data["confusion"]["rows_labelled_columns_read"]) == len(CLASSES) + 1
    index = write_html(result, tmp_path / "report", shown=10)
    page = index.read_text()
    assert page.count("<img src='thumbs/") == 10 and "confusion.png" in page
    thumb = cv2.imread(str(tmp_path / "report" / "thumbs" / "0001.jpg"))
    assert thumb is not None and thumb.shape[0] == 160
    assert cv2.imread(str(tmp_path / "report" / "confusion.png")) is not None


@pytest.mark.slow
@needs_model
def test_cli_prints_json_writes_the_report_and_shows_progress(tmp_path):
    data = tmp_path / "set"
    shutil.copytree(ROOT / "tests" / "data" / "unseen-small", data)
    (data / "labels" / "val" / "000003.txt").unlink()  # an image without labels is skipped, and said so
    out = subprocess.run([sys.executable, "-m", "datasets", "audit", str(data), "--json", "--out", str(tmp_path / "r"),
                          "--models", str(MODELS)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["images"] == 39 and report["skipped"] == [{"image": "images/val/000003.jpg",
                                                              "why": "no label file"}]
    assert 0 < report["mAP50-95"] <= report["mAP50"] <= 1
    assert "auditing" in out.stderr and "39/40" not in out.stdout
    assert (tmp_path / "r" / "index.html").is_file() and report["report"] == str(tmp_path / "r" / "index.html")


REAL_SEED, REAL_WITHIN_TOP = 1, 15  # measured: 16 of 18 (14 before the audit learnt box conventions)


@pytest.mark.slow
@needs_model
@needs_shared("data", "real-labelled", needed_for="planting errors in real photos")
def test_planted_label_errors_in_real_photos_rank_at_the_top():
    """Real sets box a standing tile's face only, label only the rack in table scenes, and meet a model
    trained on generated scenes: a swapped class or a deleted box planted in 40 of their test photos
    must still rank in the top 36 flags, at the rate `python -m datasets.audit_bench` measured."""
    report = bench(TileDetector(MODELS), photos=40, per_kind=9, seeds=(REAL_SEED,))
    assert report["top"] == 36 and report["runs"][0]["top"] >= REAL_WITHIN_TOP, bench_text(report)


def test_cli_without_a_model_says_so(tmp_path):
    out = subprocess.run([sys.executable, "-m", "datasets", "audit", str(ROOT / "tests" / "data" / "unseen-small"),
                          "--models", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "no model card" in out.stderr


def audit_cli(*args):
    return subprocess.run([sys.executable, "-m", "datasets", "audit", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("conf", ["-1", "5", "nan", "0", "high"])
def test_cli_refuses_a_confidence_outside_0_to_1(conf):
    out = audit_cli(ROOT / "tests" / "data" / "unseen-small", "--conf", conf)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "is not a confidence between 0 and 1 (e.g. 0.25)" in out.stderr


def test_cli_says_at_once_that_the_report_cannot_be_written(tmp_path):
    taken = tmp_path / "report.html"
    taken.write_text("mine")
    out = audit_cli(ROOT / "tests" / "data" / "unseen-small", "--out", taken)
    assert out.returncode == 1 and "Traceback" not in out.stderr and "auditing" not in out.stderr  # before the work
    assert f"error: cannot write the report to {taken}: File exists" in out.stderr
    assert taken.read_text() == "mine"


@needs_model
def test_cli_says_which_labels_are_broken_when_none_can_be_audited(tmp_path):
    data = tmp_path / "set"
    for split in ("train", "val"):
        (data / "images" / split).mkdir(parents=True)
        (data / "labels" / split).mkdir(parents=True)
    for n, image in enumerate(sorted((ROOT / "tests" / "data" / "unseen-small" / "images" / "val").glob("*.jpg"))[:2]):
        shutil.copy(image, data / "images" / "val" / image.name)
        (data / "labels" / "val" / image.with_suffix(".txt").name).write_text(["5 0.5\n", "99 0.5 0.5 0.1 0.1\n"][n])
    out = audit_cli(data, "--models", MODELS)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert f"error: none of the 2 images under {data} could be audited:" in out.stderr
    assert "1: 2 fields, expected 5 (class cx cy w h)" in out.stderr and "1: class 99 is not in 0..42" in out.stderr


def one_code_set(root: Path, photos: int = 6, relabelled: int = 2) -> str:
    """Real train photos of tile rows (10 or more labels each) copied under root, one of them (the
    `relabelled`th) with every tile labelled 1p as a labeller clicking one class throughout would; its
    image path."""
    from datasets.real import REAL_LABELLED

    real = REAL_LABELLED / "chinese-mahjong-detection"
    labels = [p for p in sorted((real / "labels" / "train").glob("*.txt")) if len(p.read_text().split("\n")) > 10]
    for split in ("images", "labels"):
        (root / split / "train").mkdir(parents=True)
    for i, label in enumerate(labels[:photos]):
        shutil.copy(real / "images" / "train" / f"{label.stem}.jpg", root / "images" / "train")
        lines = label.read_text().split("\n")
        if i == relabelled:
            lines = [f"{CLASS_INDEX['1p']} {line.split(maxsplit=1)[1]}" for line in lines if line.strip()]
        (root / "labels" / "train" / label.name).write_text("\n".join(lines) + "\n")
    return f"images/train/{labels[relabelled].stem}.jpg"


@needs_model
@needs_shared("data", "real-labelled", "chinese-mahjong-detection", needed_for="real photos to relabel")
def test_a_photo_labelled_all_one_code_is_one_flag_at_the_top(tmp_path):
    """A real set's val split has photos whose every tile is labelled 1p: as a hundred wrong-class flags
    they sank below the single boxes of other photos (its neighbours disagree too, so each is doubted);
    the audit says it once, first, standing for its tiles read otherwise."""
    relabelled = one_code_set(tmp_path)
    result = audit(tmp_path, TileDetector(MODELS))
    first, *rest = result.flags
    assert (first.kind, first.image) == ("mislabelled-photo", relabelled), [(f.kind, f.image) for f in result.flags[:5]]
    assert len(first.others) + 1 > first.found / 2 and first.labelled_codes == 1 and first.read_codes > 3
    assert "every label 1p" in first.message
    assert not [f for f in rest if f.kind in ("mislabelled-photo", "wrong-class") and f.image == relabelled]
    page = write_html(result, tmp_path / "report").read_text()
    top_row = page.split("<tr><td class=num>1</td>")[1].split("</tr>")[0]
    assert "<td>mislabelled-photo</td>" in top_row and relabelled in top_row
