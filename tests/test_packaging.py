"""The package as a newcomer installs it: the wheel builds without setuptools' warnings and carries
what the code reads at run time (the rulesets, the model files, the generator's assets), and the reader
installed from it finds its model files beside it."""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scoring", "vision", "datasets", "models", "training", "ui", "ledger")


def test_the_wheel_builds_quietly_and_carries_the_rulesets_models_and_assets(tmp_path):
    """The build printed a deprecation (`license` as a table) and four "would be ignored" warnings for
    the data folders; built from a copy, so the checkout gets no build/ or egg-info."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__", "metrics"))
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                        "-w", str(tmp_path / "wheel"), str(source)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    said = p.stdout + p.stderr
    for warned in ("BuildBackendWarning", "SetuptoolsDeprecationWarning", "would be ignored", "deprecated"):
        assert warned not in said, said[-3000:]
    (wheel,) = (tmp_path / "wheel").glob("taishu-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    must = {
        *(f"scoring/rulesets/{p.name}" for p in (ROOT / "scoring" / "rulesets").glob("*.json")),
        *(f"models/{p.name}" for p in (ROOT / "models").iterdir() if p.suffix in (".onnx", ".pt", ".json", ".md")),
        *(str(p.relative_to(ROOT)) for p in (ROOT / "datasets" / "assets").rglob("*") if p.is_file()),
        "vision/files.py", "vision/model_files.py", "ledger/store.py", "ui/dataset.py", "training/evaluate.py",
    }
    assert must <= names, sorted(must - names)[:10]
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: GPL-2.0-or-later" in metadata.splitlines()
    assert not {n for n in names if n.startswith("tests/") or "__pycache__" in n}
    assert not {n for n in names if n.startswith("models/") and n.endswith(".py")}  # the weights' folder only
    installed = tmp_path / "installed"
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(installed),
                        str(wheel)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    found = subprocess.run([sys.executable, "-c", FINDS_ITS_MODELS], cwd=tmp_path, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(installed)}, timeout=300)
    assert found.returncode == 0, found.stderr[-3000:]
    assert found.stdout.split() == [str(installed / "models" / "tiles.onnx"), "True"]


# Run from outside the checkout: the detector's path says which copy's models/ it loaded (every file's hash checked).
FINDS_ITS_MODELS = """
import vision.detector
detector = vision.detector.TileDetector()
print(detector.card.onnx, detector.classifier is not None)
"""
