"""The peer's real-photo weights move into our 43-class YOLO11n unchanged: every peer tensor finds its
place, and the transplanted model computes the peer's boxes and class scores, before and after its batch
norms are calibrated on photos (training/transplant.py)."""

import numpy as np
import pytest

pytest.importorskip("ultralytics")
pytest.importorskip("onnx")

from training import transplant  # noqa: E402
from training.ultralytics_env import load_ultralytics  # noqa: E402
from vision.classes import CLASSES  # noqa: E402

SAMPLES = sorted((transplant.REPO / "tests" / "data" / "samples").glob("*.jpg"))


@pytest.fixture(scope="module")
def peer_and_ours():
    import onnxruntime as ort

    load_ultralytics()
    tensors = transplant.load_peer_tensors(transplant.peer_onnx())
    model, mapped = transplant.transplant(tensors)
    return ort.InferenceSession(str(transplant.peer_onnx())), model, tensors, mapped


def outputs(session, model, x):
    import torch

    rows = transplant.peer_class_rows()
    ref = session.run(None, {"images": x})[0]
    model.eval()
    with torch.no_grad():
        out = model(torch.from_numpy(x))[0].numpy()
    ours = np.concatenate([out[:, :4], out[:, [4 + o for o in sorted(rows)]]], axis=1)
    theirs = np.concatenate([ref[:, :4], ref[:, [4 + rows[o] for o in sorted(rows)]]], axis=1)
    return ours, theirs


def test_every_peer_tensor_is_mapped_and_the_34_classes_land_on_our_codes(peer_and_ours):
    _, model, tensors, mapped = peer_and_ours
    assert sorted(mapped) == sorted(tensors) and len(mapped) == 175
    rows = transplant.peer_class_rows()
    assert len(rows) == 34
    assert {CLASSES[i] for i in rows} == {c for c in CLASSES if not c.endswith("f") and c != "back"}


def test_the_transplant_computes_the_peers_outputs_before_and_after_calibration(peer_and_ours):
    session, model, _, _ = peer_and_ours
    x = np.random.default_rng(0).random((1, 3, 640, 640), dtype=np.float32)
    ours, theirs = outputs(session, model, x)
    assert np.abs(ours - theirs).max() < 5e-3  # pixels for boxes, probabilities for classes
    transplant.calibrate(model, transplant.photo_batches(SAMPLES, 320, batch=2))
    ours, theirs = outputs(session, model, x)
    assert np.abs(ours - theirs).max() < 5e-3
    bn = model.model[0].bn
    assert not np.allclose(bn.weight.detach().numpy(), 1.0)  # the norms now carry real statistics
