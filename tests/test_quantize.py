"""`training.quantize`: an int8 network calibrated on real training photos, written as a models folder the reader
loads beside the committed one (docs/decisions/inference-runtime.md holds why neither network is kept in int8)."""

import hashlib
import json

import numpy as np

from tests.shared import needs_shared
from training.quantize import main, training_photos
from vision.crop_classifier import cut_crops
from vision.detector import TileDetector
from vision.model_files import MODELS_DIR
from vision.photo import load_photo


@needs_shared("data", "real-labelled", needed_for="calibrating int8 on real training photos")
def test_the_classifier_in_int8_is_a_models_folder_the_reader_loads_and_reads_crops_nearly_alike(tmp_path, capsys):
    out = tmp_path / "int8"
    main([str(out), "--network", "classifier", "--photos", "8"])
    said = capsys.readouterr().out
    assert "calibrated on 8 real training photos" in said and "onnxruntime int8" in said
    card, committed = (json.loads((d / "model.json").read_text()) for d in (out, MODELS_DIR))
    int8 = out / card["classifier"]
    assert card["sha256"][card["classifier"]] == hashlib.sha256(int8.read_bytes()).hexdigest()
    assert int8.read_bytes() != (MODELS_DIR / card["classifier"]).read_bytes()
    assert (out / card["onnx"]).read_bytes() == (MODELS_DIR / card["onnx"]).read_bytes()  # the detector as it is
    assert {k: v for k, v in card.items() if k != "sha256"} == {k: v for k, v in committed.items() if k != "sha256"}
    assert all("/train/" in str(p) for p in training_photos(20))  # never a test or validation photo

    photo = load_photo(training_photos(1)[0])
    boxes = TileDetector().read(photo).boxes
    crops = cut_crops(photo, boxes, 4.0)
    f32, quantized = TileDetector().classifier, TileDetector(out).classifier
    assert len(crops) and quantized.sha256 != f32.sha256
    same = np.mean(f32.probabilities(crops).argmax(1) == quantized.probabilities(crops).argmax(1))
    assert same >= 0.9
