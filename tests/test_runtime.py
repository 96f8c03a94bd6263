"""What runs the detector and the crop classifier (`vision.model_files.runtime`): onnxruntime, or OpenVINO where
TAISHU_RUNTIME asks for it, for both networks or for each; the two read a committed photo alike."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.crop_classifier import CROP_H, CROP_W
from vision.detector import TileDetector
from vision.model_files import (
    MODELS_DIR,
    RUNTIME_VARIABLE,
    ModelError,
    OpenVinoSession,
    classifier_card,
    model_session,
    openvino_cpu_capabilities,
    runtime,
)
from vision.photo import load_photo
from vision.read import read_photo

REPO = Path(__file__).resolve().parents[1]
PHOTO = REPO / "tests" / "data" / "samples" / "train-style-000000.jpg"
OPENVINO = importlib.util.find_spec("openvino") is not None
needs_openvino = pytest.mark.skipif(not OPENVINO, reason="openvino is not installed")


def test_unset_both_networks_run_on_onnxruntime(monkeypatch):
    monkeypatch.delenv(RUNTIME_VARIABLE, raising=False)
    chosen = runtime()
    assert chosen.detector == chosen.classifier and (chosen.detector.name, chosen.detector.precision) == (
        "onnxruntime", "f32")
    assert type(TileDetector(classifier=False).session).__module__.startswith("onnxruntime")


@needs_openvino
def test_the_variable_chooses_for_each_network(monkeypatch):
    monkeypatch.setenv(RUNTIME_VARIABLE, "detector=onnxruntime,classifier=openvino-f32")
    chosen = runtime()
    assert (chosen.detector.name, chosen.classifier.name, chosen.classifier.precision) == (
        "onnxruntime", "openvino", "f32")
    detector = TileDetector()
    assert type(detector.session).__module__.startswith("onnxruntime")
    assert isinstance(detector.classifier.session, OpenVinoSession) and detector.classifier.engine == chosen.classifier
    monkeypatch.setenv(RUNTIME_VARIABLE, "classifier=openvino")  # the detector keeps the default
    assert runtime().detector.name == "onnxruntime"


@pytest.mark.parametrize("value", ["tensorrt", "detector=tensorrt", "camera=onnxruntime", "openvino,onnxruntime"])
def test_a_value_it_does_not_read_is_refused_naming_the_choices(monkeypatch, value):
    monkeypatch.setenv(RUNTIME_VARIABLE, value)
    with pytest.raises(ModelError) as refused:
        runtime()
    assert refused.value.notice.code == "runtime-unknown"
    assert value in str(refused.value) and "openvino-bf16" in str(refused.value)


def test_without_openvino_onnxruntime_serves_and_asking_for_openvino_says_it_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "openvino", None)  # as if not installed: its import fails, find_spec finds none
    monkeypatch.delenv(RUNTIME_VARIABLE, raising=False)
    assert runtime().detector.name == runtime().classifier.name == "onnxruntime"
    monkeypatch.setenv(RUNTIME_VARIABLE, "classifier=openvino-f32")
    with pytest.raises(ModelError) as refused:
        runtime()
    assert refused.value.notice.code == "runtime-missing"


@needs_openvino
def test_openvino_runs_in_f32_unless_bf16_is_asked_for_and_the_cpu_has_it(monkeypatch):
    monkeypatch.setenv(RUNTIME_VARIABLE, "openvino")
    assert runtime().detector == runtime().classifier and runtime().detector.precision == "f32"
    monkeypatch.setenv(RUNTIME_VARIABLE, "openvino-bf16")
    assert runtime().detector.precision == ("bf16" if "BF16" in openvino_cpu_capabilities() else "f32")


def test_the_command_line_says_which_runtime_serves():
    env = dict(os.environ, **{RUNTIME_VARIABLE: "onnxruntime"})
    said = subprocess.run([sys.executable, "-m", "vision", "--runtime"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert said.returncode == 0 and said.stdout.startswith("onnxruntime ") and said.stdout.strip().endswith(" f32")
    env[RUNTIME_VARIABLE] = "nothing"
    said = subprocess.run([sys.executable, "-m", "vision", "--runtime"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert said.returncode == 2 and "TAISHU_RUNTIME is nothing" in said.stderr


@needs_openvino
def test_an_openvino_run_gives_the_classifiers_logits_in_arrays_of_their_own(monkeypatch):
    onnx, sha256 = classifier_card(MODELS_DIR)
    monkeypatch.setenv(RUNTIME_VARIABLE, "onnxruntime")
    reference = model_session(onnx, sha256, "classifier", runtime().classifier)
    session = OpenVinoSession(onnx, "f32")
    name = session.get_inputs()[0].name
    assert session.get_inputs()[0].shape[1:] == [CROP_H, CROP_W, 3]
    assert [p.name for p in session.get_outputs()] == [p.name for p in reference.get_outputs()]
    crops = np.random.default_rng(0).integers(0, 256, (2, 5, CROP_H, CROP_W, 3), dtype=np.uint8)
    first = session.run(["logits"], {name: crops[0]})[0]
    kept = first.copy()
    session.run(["logits"], {name: crops[1]})  # the request's next run must not write into the first's arrays
    assert np.array_equal(first, kept)
    np.testing.assert_allclose(first, reference.run(["logits"], {name: crops[0]})[0], atol=1e-3)


@needs_openvino
def test_onnxruntime_and_openvino_read_a_committed_photo_alike(monkeypatch):
    photo = load_photo(PHOTO)
    readings = {}
    for forced in ("onnxruntime", "openvino"):
        monkeypatch.setenv(RUNTIME_VARIABLE, forced)
        detector = TileDetector()
        readings[str(detector.runtime)] = read_photo(photo, detector)
    ours, theirs = readings.values()
    assert len(readings) == 2 and ours.legal and theirs.legal
    assert [r.code for r in ours.best.shown] == [r.code for r in theirs.best.shown]
    assert np.abs(ours.best.boxes - theirs.best.boxes).max() < 2.0  # pixels of the 640 px photo


@needs_openvino
def test_detections_kept_under_one_runtime_are_not_taken_for_another(monkeypatch, tmp_path):
    from training.evaluate import DetectionCache, cache_settings

    keys = []
    for forced in ("onnxruntime", "classifier=openvino-f32"):
        monkeypatch.setenv(RUNTIME_VARIABLE, forced)
        cache = DetectionCache(tmp_path, cache_settings(TileDetector(), MODELS_DIR, 2, 1.0, None))
        keys.append(cache.path(PHOTO))
    assert keys[0] != keys[1]


def test_the_engines_are_timed_network_by_network(capsys):
    from training.compare_runtimes import main

    main(["--engines", "--repeat", "1"])
    lines = capsys.readouterr().out.splitlines()
    timed = [line for line in lines if line.startswith(("detector ", "classifier "))]
    assert [line.split()[:3] for line in timed] == [["detector", "512", "px"], ["detector", "1024", "px"],
                                                      ["classifier", "64", "crops"]]
    engines = 3 if OPENVINO else 1
    assert all(len(re.findall(r": +\d+\.\d ms", line)) == engines for line in timed)
