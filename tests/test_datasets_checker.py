"""The data-set checker: a generated set passes; each kind of broken set is caught, with the right
finding, severity and exit status."""

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from datasets.__main__ import main
from datasets.check import check
from datasets.check_report import pick_samples, text
from datasets.generate import generate
from tests.limits import files_limited_to
from vision.classes import CLASSES

GOOD_LINE = "4 0.5 0.5 0.25 0.4"  # 5m in the middle of the image
ROOT = Path(__file__).resolve().parents[1]


def _jpeg(seed: int, w: int = 80, h: int = 60) -> bytes:
    img = np.random.default_rng(seed).integers(0, 255, (h, w, 3), dtype=np.uint8)
    return cv2.imencode(".jpg", img)[1].tobytes()


def make_set(root: Path, files: dict[str, bytes | str]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    return root


def base_files() -> dict[str, bytes | str]:
    """A valid two-image set: a train and a val image, one box each."""
    return {
        "images/train/a.jpg": _jpeg(1),
        "labels/train/a.txt": GOOD_LINE + "\n",
        "images/val/b.jpg": _jpeg(2),
        "labels/val/b.txt": GOOD_LINE + "\n",
    }


def kinds(report, severity):
    return {f.kind for f in report.findings if f.severity == severity} - {"class-unseen"}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen")
    generate(out, 10, seed=11, workers=1)
    return out


def test_generated_set_passes(generated):
    report, samples = check(generated)
    assert report.errors == []
    assert kinds(report, "warning") == set()
    assert report.images == report.labels == len(samples) == 10
    assert report.splits == {"train": 9, "val": 1}
    lines = [ln for p in generated.glob("labels/*/*.txt") for ln in p.read_text().splitlines()]
    assert report.boxes == sum(report.class_boxes) == len(lines)
    for i in range(len(CLASSES)):
        assert report.class_boxes[i] == sum(int(ln.split()[0]) == i for ln in lines)


def test_valid_fixture_has_no_findings(tmp_path):
    report, _ = check(make_set(tmp_path, base_files()))
    assert kinds(report, "error") == kinds(report, "warning") == set()
    assert report.class_boxes[4] == 2 and report.class_images[4] == 2


# (edit to the valid fixture, the finding expected, its severity)
BROKEN = {
    "missing-label": ({"labels/train/a.txt": None}, "error"),
    "orphan-label": ({"labels/train/ghost.txt": GOOD_LINE}, "warning"),
    "empty-label": ({"labels/train/a.txt": ""}, "warning"),
    "unreadable-image": ({"images/train/a.jpg": b"not a jpeg at all"}, "error"),
    "truncated-image": ({"images/train/a.jpg": _jpeg(1, 400, 300)[:2000]}, "error"),
    "malformed-fields": ({"labels/train/a.txt": "4 0.5 0.5 0.25\n"}, "error"),
    "malformed-class": ({"labels/train/a.txt": "5m 0.5 0.5 0.25 0.4\n"}, "error"),
    "malformed-number": ({"labels/train/a.txt": "4 0.5 half 0.25 0.4\n"}, "error"),
    "malformed-nan": ({"labels/train/a.txt": "4 nan 0.5 0.25 0.4\n"}, "error"),
    "class-too-big": ({"labels/train/a.txt": "43 0.5 0.5 0.25 0.4\n"}, "error"),
    "class-negative": ({"labels/train/a.txt": "-1 0.5 0.5 0.25 0.4\n"}, "error"),
    "box-outside": ({"labels/train/a.txt": "4 0.95 0.5 0.25 0.4\n"}, "error"),
    "box-zero-width": ({"labels/train/a.txt": "4 0.5 0.5 0 0.4\n"}, "error"),
    "box-subpixel": ({"labels/train/a.txt": "4 0.5 0.5 0.25 0.01\n"}, "error"),  # 0.6 px tall
    "box-twice": ({"labels/train/a.txt": GOOD_LINE + "\n" + GOOD_LINE + "\n"}, "error"),
    "box-overlap": ({"labels/train/a.txt": GOOD_LINE + "\n9 0.52 0.51 0.25 0.4\n"}, "error"),
    "duplicate-across-splits": ({"images/val/b.jpg": _jpeg(1)}, "error"),
    "duplicate-in-split": ({"images/train/c.jpg": _jpeg(1), "labels/train/c.txt": GOOD_LINE}, "warning"),
    "data-yaml-order": ({"data.yaml": yaml.safe_dump({"names": list(CLASSES[1:]) + [CLASSES[0]]})}, "error"),
    "data-yaml-riichi": ({"data.yaml": yaml.safe_dump({"names": {0: "1m", 1: "2m"}})}, "error"),
}
KIND = {
    "truncated-image": "unreadable-image",
    "malformed-fields": "malformed-line",
    "malformed-class": "malformed-line",
    "malformed-number": "malformed-line",
    "malformed-nan": "malformed-line",
    "class-too-big": "class-out-of-range",
    "class-negative": "class-out-of-range",
    "box-outside": "box-outside-image",
    "box-zero-width": "degenerate-box",
    "box-subpixel": "degenerate-box",
    "box-twice": "duplicate-box",
    "box-overlap": "duplicate-box",
    "duplicate-across-splits": "duplicate-image",
    "duplicate-in-split": "duplicate-image",
    "data-yaml-order": "data-yaml",
    "data-yaml-riichi": "data-yaml",
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_each_broken_fixture_is_caught(tmp_path, case, capsys):
    edits, severity = BROKEN[case]
    files = base_files()
    for rel, content in edits.items():
        if content is None:
            files.pop(rel)
        else:
            files[rel] = content
    root = make_set(tmp_path, files)
    report, _ = check(root)
    kind = KIND.get(case, case)
    assert kinds(report, severity) == {kind}, report.findings
    assert kinds(report, "error" if severity == "warning" else "warning") == set()
    with pytest.raises(SystemExit) as exit_:
        main(["check", str(root)])
    assert exit_.value.code == (1 if severity == "error" else 0)
    assert kind in capsys.readouterr().out


def test_touching_tiles_in_a_row_are_not_duplicates(tmp_path):
    row = "".join(f"{i} {0.1 + 0.1 * i:.3f} 0.5 0.1 0.3\n" for i in range(9))  # a packed row, 1m..9m
    report, _ = check(make_set(tmp_path, {"images/train/a.jpg": _jpeg(1), "labels/train/a.txt": row}))
    assert report.errors == []
    assert report.class_boxes[:9] == [1] * 9


def test_findings_name_the_line_and_the_other_box(tmp_path):
    files = base_files() | {"labels/train/a.txt": "# a comment\n" + GOOD_LINE + "\n" + GOOD_LINE + "\n"}
    report, samples = check(make_set(tmp_path, files))
    found = {(f.kind, f.path, f.line) for f in report.errors}
    assert found == {("malformed-line", "labels/train/a.txt", 1), ("duplicate-box", "labels/train/a.txt", 3)}
    dup = next(f for f in report.errors if f.kind == "duplicate-box")
    assert "lines 2 and 3" in dup.message and "IoU 1.00" in dup.message
    a = next(s for s in samples if s.image.name == "a.jpg")
    assert a.bad == [True, True] and a.names == ["5m", "5m"]


@pytest.mark.parametrize("layout", ["roboflow", "flat"])
def test_other_layouts_pair_images_and_labels(tmp_path, layout):
    if layout == "roboflow":  # <split>/images and <split>/labels
        files = {"train/images/a.jpg": _jpeg(1), "train/labels/a.txt": GOOD_LINE,
                 "valid/images/b.jpg": _jpeg(2), "valid/labels/b.txt": GOOD_LINE}
    else:  # labels beside their images, with a class list that is not a label file
        files = {"a.jpg": _jpeg(1), "a.txt": GOOD_LINE, "b.png": cv2.imencode(".png", np.zeros((9, 9, 3)))[1].tobytes(),
                 "b.txt": "", "classes.txt": "\n".join(CLASSES)}
    report, _ = check(make_set(tmp_path, files))
    assert kinds(report, "error") == set()
    assert report.images == report.labels == 2
    assert kinds(report, "warning") == (set() if layout == "roboflow" else {"empty-label"})


def test_no_images_is_an_error(tmp_path):
    report, _ = check(tmp_path)
    assert kinds(report, "error") == {"no-images"}


def test_report_text_has_findings_and_histogram(tmp_path):
    files = base_files() | {"labels/val/b.txt": GOOD_LINE + "\n33 0.1 0.1 0.1 0.1\n"}
    report, _ = check(make_set(tmp_path, files))
    out = text(report)
    assert "OK: 0 errors" in out
    assert "classes (boxes, images):" in out
    histogram = out.split("classes (boxes, images):\n")[1].splitlines()[:-1]
    bars = {ln.split()[0]: ln for ln in histogram}
    assert set(bars) == set(CLASSES)
    assert bars["5m"].count("█") == 30 and bars["7z"].count("█") == 15 and "█" not in bars["1m"]
    assert "2 boxes" in bars["5m"] and "1 images" in bars["7z"]


def test_sheet_samples_put_flagged_images_first(tmp_path):
    files = {f"images/train/{i}.jpg": _jpeg(i) for i in range(10)}
    files |= {f"labels/train/{i}.txt": GOOD_LINE for i in range(10)}
    files["labels/train/7.txt"] = "4 0.99 0.5 0.25 0.4"
    _, samples = check(make_set(tmp_path, files))
    picked = pick_samples(samples, 4)
    assert [s.image.stem for s in picked] == ["7", "0", "4", "9"]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "datasets", "check", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_cli_json_sheet_and_exit_status(tmp_path, generated):
    sheet = tmp_path / "sheet.png"
    ok = _cli(generated, "--json", "--sheet", sheet)
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert data["ok"] and data["errors"] == 0 and data["images"] == 10 and data["sheet"] == str(sheet)
    assert [c["code"] for c in data["classes"]] == list(CLASSES)
    assert sum(c["boxes"] for c in data["classes"]) == data["boxes"] > 0
    img = cv2.imread(str(sheet))
    assert img.shape == (3 * 480, 4 * 480, 3)

    broken = make_set(tmp_path / "broken", base_files() | {"labels/val/b.txt": "43 0.5 0.5 0.2 0.2\n"})
    bad = _cli(broken, "--json")
    assert bad.returncode == 1
    data = json.loads(bad.stdout)
    assert not data["ok"] and data["errors"] == 1
    assert [(f["kind"], f["path"], f["line"]) for f in data["findings"] if f["severity"] == "error"] == [
        ("class-out-of-range", "labels/val/b.txt", 1)
    ]
    readable = _cli(broken)
    assert readable.returncode == 1 and "FAILED: 1 errors" in readable.stdout


# datasets check in a subprocess whose address space may grow by 512 MiB beyond its imports.
CHECK_IN_512_MB = """
import resource, sys
from pathlib import Path
from datasets.check import check
from datasets.check_report import text
vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (512 << 20), vm + (512 << 20)))
report, _ = check(Path(sys.argv[1]))
print(len(text(report)), *sorted({f.kind for f in report.errors}))
"""


def check_in_512_mb(root: Path) -> list[str]:
    p = subprocess.run([sys.executable, "-c", CHECK_IN_512_MB, str(root)], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, env={"PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"})
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout.split()


def test_a_label_file_with_a_huge_number_of_boxes_is_an_error_in_bounded_memory(tmp_path):
    """50,000 boxes: comparing every pair took 100 GB; now the file is refused as no tile photo."""
    rng = np.random.default_rng(0)
    lines = "".join(f"{rng.integers(42)} {x:.4f} 0.5 0.02 0.03\n" for x in rng.uniform(0.1, 0.9, 50_000))
    files = base_files() | {"labels/train/a.txt": lines}
    size, *found = check_in_512_mb(make_set(tmp_path, files))
    assert found == ["too-many-boxes"] and int(size) < 10_000
    report, _ = check(tmp_path)
    assert [f.message for f in report.errors] == [
        "50000 boxes; a tile photo has at most a few hundred (not checked for boxes labelled twice above 1000)"]


def test_boxes_on_one_tile_are_each_said_once(tmp_path):
    files = base_files() | {"labels/train/a.txt": (GOOD_LINE + "\n") * 4}
    report, _ = check(make_set(tmp_path, files))
    assert [(f.kind, f.line) for f in report.errors] == [("duplicate-box", 2), ("duplicate-box", 3),
                                                         ("duplicate-box", 4)]


def test_a_data_yaml_alias_bomb_is_refused_in_a_line(tmp_path):
    """~500 bytes of nested aliases: 1 GB and 226 MB of output before."""
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)) + "names: [*i]\n"
    size, *found = check_in_512_mb(make_set(tmp_path, base_files() | {"data.yaml": bomb}))
    assert found == ["data-yaml"] and int(size) < 10_000
    report, _ = check(tmp_path)
    assert report.errors[0].message.startswith("unreadable: aliases (*a) are not allowed in a data.yaml")


def test_findings_do_not_echo_long_input(tmp_path):
    files = base_files() | {"labels/train/a.txt": "x" * 1_000_000 + " 0.5 0.5 0.1 0.1\n",
                            "data.yaml": yaml.safe_dump({"names": ["y" * 1_000_000]})}
    report, _ = check(make_set(tmp_path, files))
    assert {f.kind for f in report.errors} == {"malformed-line", "data-yaml"}
    assert all(len(f.message) < 300 for f in report.findings)


def test_a_sheet_that_cannot_be_written_is_said_and_is_an_error(tmp_path, generated):
    """A full disk printed "contact sheet: PATH" and exit 0 with no file; a folder or a type OpenCV does
    not write in the sheet's place was an OpenCV traceback, after the whole check."""
    sheet = tmp_path / "sheet.png"
    full = subprocess.run([sys.executable, "-m", "datasets", "check", str(generated), "--sheet", str(sheet)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, preexec_fn=files_limited_to(50_000))
    assert full.returncode == 1 and "Traceback" not in full.stderr, full.stderr[-2000:]
    assert full.stderr == f"error: cannot write {sheet}: File too large\n"
    assert "OK: 0 errors" in full.stdout and "contact sheet" not in full.stdout
    assert list(tmp_path.iterdir()) == []  # no half-written sheet, no temporary file
    (tmp_path / "folder.png").mkdir()
    for target, said in (("sheet.xyz", "not an image type OpenCV writes"), ("folder.png", "it is a folder")):
        p = _cli(generated, "--sheet", tmp_path / target)
        assert p.returncode == 1 and p.stdout == "" and p.stderr.startswith("error: cannot write"), p.stderr[-2000:]
        assert said in p.stderr


def test_a_sheet_named_in_bytes_that_are_not_utf8_is_written_and_named(tmp_path, generated):
    """OpenCV's writer crashed the process (SIGSEGV) on such a name."""
    sheet = os.fsencode(tmp_path) + b"/sheet-\xff.png"
    p = subprocess.run([sys.executable, "-m", "datasets", "check", generated, "--sheet", sheet, "--json"], cwd=ROOT,
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(p.stdout)["sheet"] == os.fsdecode(sheet)  # the name reads back as Python gave it
    assert cv2.imdecode(np.frombuffer(open(sheet, "rb").read(), np.uint8), cv2.IMREAD_COLOR).shape == (1440, 1920, 3)


@pytest.mark.parametrize("iou", ["0", "-1", "nan", "5", "x"])
def test_an_iou_outside_zero_to_one_is_a_wrong_command_line(tmp_path, iou):
    p = _cli(tmp_path, "--iou", iou)
    assert p.returncode == 2 and f"argument --iou: {iou!r} is not an IoU above 0 and at most 1" in p.stderr


def _preview(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "datasets", "preview", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, **kwargs)


def test_preview_draws_a_set_and_says_what_it_could_not(tmp_path, generated):
    """`preview /nonexistent` wrote an empty sheet and exited 0, and so did a full disk, with no sheet."""
    sheet = tmp_path / "sheet.png"
    p = _preview(generated, "-n", 4, sheet)
    assert p.returncode == 0 and p.stdout == f"contact sheet of 4 images: {sheet}\n", p.stderr[-2000:]
    assert cv2.imread(str(sheet)).shape == (480, 1920, 3)
    sheet.unlink()
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder, said in ((tmp_path / "nonexistent", f"error: {tmp_path / 'nonexistent'} is not a folder"),
                         (empty, f"error: no generated images (images/<split>/*.jpg) under {empty}: nothing to draw")):
        p = _preview(folder, sheet)
        assert p.returncode == 1 and p.stderr == said + "\n" and p.stdout == ""
    full = _preview(generated, sheet, preexec_fn=files_limited_to(50_000))
    assert full.returncode == 1 and full.stderr == f"error: cannot write {sheet}: File too large\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]
    assert _preview(generated, "-n", "0", sheet).returncode == 2


def test_every_box_one_face_code_is_a_warning_drawn_in_red(tmp_path):
    """A photo whose every tile was given one code, more than a set holds of it; a wall of backs is fine."""
    def row(cls: int, n: int) -> str:
        return "".join(f"{cls} {0.1 + 0.1 * i:.2f} 0.5 0.08 0.3\n" for i in range(n))

    files = base_files() | {"images/train/c.jpg": _jpeg(3), "labels/train/c.txt": row(9, 8),
                            "images/train/d.jpg": _jpeg(4), "labels/train/d.txt": row(42, 8),
                            "images/train/e.jpg": _jpeg(5), "labels/train/e.txt": row(9, 4)}
    report, samples = check(make_set(tmp_path, files))
    assert [(f.kind, f.path, f.message) for f in report.warnings if f.kind != "class-unseen"] == [
        ("one-code", "labels/train/c.txt", "all 8 boxes are 1p, and a set holds 4: every tile given one code?")]
    assert not report.errors
    assert [s.image.name for s in samples if all(s.bad)] == ["c.jpg"]
