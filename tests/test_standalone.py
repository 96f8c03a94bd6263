"""The repository stands alone: vendored copies match the shared folder where it is present, and
what needs missing shared data says which path and which setting."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from datasets.shared import DEFAULT_SHARED, SETTING, MissingSharedData, require_shared, shared_path
from tests.shared import needs_shared

ROOT = Path(__file__).resolve().parents[1]
# Vendored file (in the repository) -> its original in the shared folder.
VENDORED = {
    "tests/data/tw16-2026.09-p0-examples.json": ("rules", "tw16-2026.09-p0-examples.json"),
}


@pytest.mark.parametrize("copy,original", [
    pytest.param(copy, original, marks=needs_shared(*original, needed_for=f"checking {copy}"))
    for copy, original in VENDORED.items()
])
def test_vendored_copy_is_identical_to_the_shared_original(copy, original):
    assert (ROOT / copy).read_bytes() == shared_path(*original).read_bytes(), \
        f"{copy} and {shared_path(*original)} differ: copy the newer one over the other"


def test_vendored_copies_are_named_in_the_data_readme():
    readme = (ROOT / "tests" / "data" / "README.md").read_text(encoding="utf-8")
    for copy, original in VENDORED.items():
        assert Path(copy).name in readme and "/".join(original) in readme


def test_the_setting_names_the_shared_folder(tmp_path, monkeypatch):
    (tmp_path / "data" / "real-scenes").mkdir(parents=True)
    monkeypatch.setenv(SETTING, str(tmp_path))
    assert require_shared("data", "real-scenes", needed_for="x") == tmp_path / "data" / "real-scenes"
    with pytest.raises(MissingSharedData) as err:
        require_shared("data", "real-labelled", needed_for="training on real photos")
    message = str(err.value)
    assert "training on real photos" in message and str(tmp_path / "data" / "real-labelled") in message
    assert SETTING in message


def test_generating_unseen_styles_without_the_shared_folder_says_what_is_missing(tmp_path):
    empty, out = tmp_path / "empty", tmp_path / "out"
    empty.mkdir()
    p = subprocess.run([sys.executable, "-m", "datasets", "generate", str(out), "--count", "2", "--styles", "unseen"],
                       cwd=ROOT, env={**os.environ, SETTING: str(empty)}, capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert p.stderr.startswith("error: the unseen style") and SETTING in p.stderr and str(empty) in p.stderr
    assert "Traceback" not in p.stderr
    assert not out.exists()  # nothing half-written


def test_the_standalone_pass_hides_the_default_shared_folder(tmp_path):
    """.ci/run's second pass puts tests/shared_hidden on PYTHONPATH: a read of ../shared that
    bypasses the setting fails there; the repository's own files still read."""
    code = ("import sys, sitecustomize; print(sitecustomize._HIDDEN); open(sys.argv[1]).close(); "
            "open(sys.argv[2])")
    p = subprocess.run([sys.executable, "-c", code, str(ROOT / "README.md"), str(DEFAULT_SHARED / "rules" / "x.json")],
                       env={**os.environ, "PYTHONPATH": str(ROOT / "tests" / "shared_hidden")},
                       capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == os.path.realpath(DEFAULT_SHARED)
    assert p.returncode != 0 and "PermissionError" in p.stderr and "hidden in this run" in p.stderr


def test_the_photo_benchmark_without_real_photos_times_the_samples_and_says_so(tmp_path, monkeypatch, capsys):
    from training.bench import SAMPLES, default_photos

    monkeypatch.setenv(SETTING, str(tmp_path / "empty"))
    photos = default_photos(tmp_path)
    assert [p.name for p in photos] == [f"phone-{s.name}" for s in sorted(SAMPLES.glob("*.jpg"))]
    assert f"{tmp_path / 'empty' / 'data' / 'real-scenes'}, which is missing" in capsys.readouterr().err


def test_the_photo_benchmark_times_each_stage_of_a_read(capsys):
    """`training.bench --stages` on one committed sample: our time, the peer's and each stage's."""
    from training.bench import SAMPLES, main
    from vision.model_files import runtime
    from vision.stages import STAGES

    photo = sorted(SAMPLES.glob("*.jpg"))[0]
    main([str(photo), "--stages"])
    out = capsys.readouterr().out
    assert f"1 photos x 1, ours on {runtime()}" in out and "x the peer" in out
    line = next(line for line in out.splitlines() if line.startswith(photo.name))
    stages = (*STAGES, "besides the networks", "the first pass's network")
    shown = ", ".join(rf"{stage} (\d+)" for stage in stages)
    times = re.search(rf" \d+ tiles  ours +(\d+)  peer +\d+  \({shown}\)$", line)
    assert times, line
    # the stages of the read, its decoding among them, add up to the read's time (each rounded to a ms)
    assert abs(sum(int(t) for t in times.groups()[1:len(STAGES) + 1]) - int(times[1])) <= len(STAGES) + 1
    for stage in stages:
        assert f"  {stage}" in out
    besides = re.search(r"^besides the networks : (\d+\.\d\d)x the peer at the median", out, re.M)
    first_pass = re.search(r"^and one first pass   : (\d+\.\d\d)x the peer at the median", out, re.M)
    assert besides and first_pass and float(first_pass[1]) > float(besides[1])


def test_the_page_benchmark_times_the_run_that_reads_a_photo_and_the_runs_after_taps(capsys):
    """`training.page_bench` on one committed sample: the page in AppTest with the real models."""
    from training.bench import SAMPLES
    from training.page_bench import main
    from vision.model_files import runtime

    photo = sorted(SAMPLES.glob("*.jpg"))[0]
    main([str(photo), "--repeat", "2"])
    out = capsys.readouterr().out
    assert re.search(rf"^{re.escape(photo.name)} +upload run +\d+ ms   tap runs \d+ \d+ ms$", out, re.M)
    assert re.search(rf"^1 photos, the networks on {re.escape(str(runtime()))}: upload run median \d+ ms, "
                     r"tap run median \d+ ms$", out, re.M)


def test_the_hider_hides_a_shared_folder_that_is_a_link_by_both_its_names(tmp_path):
    """`shared` beside the checkout a symlink: the hider compared only the resolved path, so a read
    through the link (what DEFAULT_SHARED names) passed."""
    hider = tmp_path / "checkout" / "tests" / "shared_hidden"
    hider.mkdir(parents=True)
    shutil.copyfile(ROOT / "tests" / "shared_hidden" / "sitecustomize.py", hider / "sitecustomize.py")
    (tmp_path / "elsewhere" / "rules").mkdir(parents=True)
    (tmp_path / "elsewhere" / "rules" / "x.json").write_text("{}")
    (tmp_path / "shared").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "checkout" / "README.md").write_text("mine")
    code = """import sys
for path in sys.argv[1:]:
    try:
        open(path).close()
        print("read")
    except PermissionError as exc:
        print("hidden" if "hidden in this run" in str(exc) else exc)
"""
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "shared" / "rules" / "x.json"),
                        str(tmp_path / "elsewhere" / "rules" / "x.json"), str(tmp_path / "checkout" / "README.md")],
                       env={**os.environ, "PYTHONPATH": str(hider)}, capture_output=True, text=True, timeout=60)
    assert p.stdout.split() == ["hidden", "hidden", "read"], p.stderr[-2000:]
