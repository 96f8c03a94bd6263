"""The crop classifier's torch weights (training/classifier_weights.py, training/train_classifier.py): recovered
from the ONNX file they compute the same logits as onnxruntime on real crops, the committed weights are
those of the committed ONNX file, and a training run killed and started again continues where it was."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

pytest.importorskip("onnx")

from datasets.yolo import label_path_of  # noqa: E402
from training import train_classifier as tc  # noqa: E402
from training.classifier_weights import from_onnx, logits_of  # noqa: E402
from vision.classes import CLASSES  # noqa: E402
from vision.crop_classifier import TileClassifier, cut_crops  # noqa: E402
from vision.labels import read_labels  # noqa: E402
from vision.model_files import MODELS_DIR  # noqa: E402
from vision.photo import load_photo  # noqa: E402
from vision.settings import DETECTOR_DEFAULT  # noqa: E402

REAL = tc.REPO / "tests" / "data" / "real"
LOGIT_TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def real_crops() -> np.ndarray:
    """The label boxes of the committed real photos that have labels (the wall photos have none)."""
    crops = []
    for image_path in sorted((REAL / "images").glob("*.jpg")):
        label = label_path_of(REAL, image_path)
        if label.exists():
            image = load_photo(image_path)
            boxes, _ = read_labels(label, image.shape[1], image.shape[0])
            crops.append(cut_crops(image, np.asarray(boxes, np.float32), DETECTOR_DEFAULT.halve_from))
    x = np.concatenate(crops)
    assert len(x) > 50
    return x


@pytest.fixture(scope="module")
def committed() -> TileClassifier:
    return TileClassifier.from_card(MODELS_DIR)


def onnx_logits(classifier: TileClassifier, crops: np.ndarray) -> np.ndarray:
    return classifier.session.run(["logits"], {classifier.input_name: crops})[0]


def test_weights_recovered_from_the_onnx_file_compute_its_logits(real_crops, committed):
    net = from_onnx(MODELS_DIR / tc.ONNX_NAME, torch.from_numpy(real_crops))
    assert np.abs(logits_of(net, real_crops) - onnx_logits(committed, real_crops)).max() < LOGIT_TOLERANCE
    norm = net.features[1]
    assert not np.allclose(norm.weight.detach().numpy(), 1.0)  # calibrated, not identity norms


def test_the_committed_weights_are_the_committed_classifiers(real_crops, committed):
    saved = torch.load(MODELS_DIR / tc.WEIGHTS_NAME, map_location="cpu", weights_only=True)
    assert saved["onnx_sha256"] == committed.sha256
    net = tc.load_weights(MODELS_DIR / tc.WEIGHTS_NAME)
    assert np.abs(logits_of(net, real_crops) - onnx_logits(committed, real_crops)).max() < LOGIT_TOLERANCE


def test_a_second_run_continues_the_first_from_its_checkpoint(tmp_path, real_crops):
    torch.set_num_threads(1)
    x = torch.from_numpy(real_crops[:64])
    y = torch.arange(64) % 43
    val = (x[:16], y[:16])
    checkpoint = tmp_path / "state.pt"
    first = tc.train(tc.TileNet(), x, y, val, minutes=0.03, batch=16, lr=1e-3, seed=0, checkpoint=checkpoint)
    saved = torch.load(checkpoint, map_location="cpu", weights_only=False)
    assert first["steps"] > 0 and saved["steps"] == first["steps"] and saved["spent"] >= 0.03 * 60
    net = tc.TileNet()
    second = tc.train(net, x, y, val, minutes=0.06, batch=16, lr=1e-3, seed=0, checkpoint=checkpoint)
    assert second["steps"] > first["steps"]  # counted on from the first run, not from zero
    assert second["minutes"] >= 0.06 and second["minutes"] < 0.06 + 0.5
    epochs = [h["epoch"] for h in second["history"]]
    assert epochs == sorted(set(epochs)) and epochs[:len(first["history"]) - 1] == \
        [h["epoch"] for h in first["history"]][:-1]
    resumed = torch.load(checkpoint, map_location="cpu", weights_only=False)
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), resumed["net"].values(), strict=True))


def test_a_checkpoint_of_other_crops_is_refused(tmp_path, real_crops):
    x = torch.from_numpy(real_crops[:32])
    y = torch.arange(32) % 43
    checkpoint = tmp_path / "state.pt"
    tc.train(tc.TileNet(), x, y, (x, y), minutes=0.01, batch=16, lr=1e-3, seed=0, checkpoint=checkpoint)
    with pytest.raises(SystemExit, match="32 crops, these are 48"):
        tc.train(tc.TileNet(), torch.from_numpy(real_crops[:48]), torch.arange(48) % 43, (x, y), minutes=0.01,
                 batch=16, lr=1e-3, seed=0, checkpoint=checkpoint)


def test_the_within_set_loss_pulls_a_flowers_views_together_against_its_own_sets_flowers():
    """A set's two views of each flower alike → low loss; the views swapped between flowers → high. Another set's
    crops are not compared: one identical to an anchor, alone of its class in its set, changes nothing."""
    views = torch.nn.functional.normalize(torch.eye(8).repeat_interleave(2, 0) + 0.05 * torch.randn(16, 8), dim=1)
    y, group = torch.arange(8).repeat_interleave(2), torch.zeros(16, dtype=torch.long)
    alike = tc.within_set_contrast(views, y, group, 0.1)
    swapped = tc.within_set_contrast(views, y.roll(1), group, 0.1)
    assert alike < 0.1 < 1.0 < swapped
    other_set = torch.cat([views, views[:1]]), torch.cat([y, torch.tensor([3])]), torch.cat([group, torch.tensor([1])])
    assert torch.isclose(tc.within_set_contrast(*other_set, 0.1), alike)
    assert tc.within_set_contrast(views[::2], y[::2], group[::2], 0.1) == 0  # each flower seen once: nothing to pull


def test_training_with_sets_draws_whole_sets_and_a_checkpoint_counts_them(tmp_path, real_crops):
    from training.flower_faces import flower_set_crops
    sets = tmp_path / "sets.npz"
    sx, sy, sg = flower_set_crops(4, seed=0, views=2)
    np.savez(sets, x=sx, y=sy, group=sg)
    batches = tc.SetBatches([sets], per_step=2)
    drawn_x, drawn_y, drawn_group = batches.draw(torch.Generator().manual_seed(0))
    assert len(drawn_y) == 32 and sorted(np.bincount(drawn_group.numpy(), minlength=4)) == [0, 0, 16, 16]
    x, y = torch.from_numpy(real_crops[:32]), torch.arange(32) % 43
    checkpoint = tmp_path / "state.pt"
    run = tc.train(tc.TileNet(), x, y, (x, y), minutes=0.02, batch=16, lr=1e-3, seed=0, checkpoint=checkpoint,
                   sets=batches, contrast=1.0)
    assert run["steps"] > 0 and "within_set_contrast" in run["history"][-1]
    with pytest.raises(SystemExit, match=r"set crops: 64, these 0"):
        tc.train(tc.TileNet(), x, y, (x, y), minutes=0.01, batch=16, lr=1e-3, seed=0, checkpoint=checkpoint)


def test_the_card_names_the_weights(committed):
    card = json.loads((MODELS_DIR / "classifier.json").read_text())
    assert card["sha256"] == committed.sha256
    assert (MODELS_DIR / card.get("weights", tc.WEIGHTS_NAME)).is_file()


def test_the_judge_reads_crops_and_reports_flowers_apart(tmp_path, real_crops, committed):
    labels = committed.probabilities(real_crops[:40]).argmax(1)  # its own readings: every crop right
    labels[:5] = CLASSES.index("1f")
    crops = tmp_path / "c.npz"
    np.savez(crops, x=real_crops[:40], y=labels)
    out = tmp_path / "judged.json"
    done = subprocess.run([sys.executable, "-m", "training.judge_classifier", str(crops), "--json", str(out)],
                          cwd=tc.REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())[str(crops)]
    right = committed.probabilities(real_crops[:40]).argmax(1) == labels
    flowers = np.isin(labels, tc.FLOWER_IDS)
    assert figures["crops"] == 40 and figures["top1"] == pytest.approx(right.mean(), abs=1e-4)
    assert figures["flowers_top1"] == pytest.approx(right[flowers].mean(), abs=1e-4)
    assert right[5:].all() and figures["top1"] < 1  # the relabelled five count against it, the rest for


def test_the_judge_names_a_missing_file(tmp_path):
    done = subprocess.run([sys.executable, "-m", "training.judge_classifier", str(tmp_path / "none.npz")],
                          cwd=tc.REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "no such file" in done.stderr and "Traceback" not in done.stderr
