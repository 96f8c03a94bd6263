"""datasets.scene_truth: the scene truth the generator writes and the evaluators read, one value
with the generator's JSON form unchanged; a damaged file is an error naming it, not a traceback."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.generate import generate, make_sample
from datasets.scene_truth import SceneTruth, SceneTruthError
from scoring.hand import Hand
from scoring.melds import GroupKind

DATA = Path(__file__).resolve().parent / "data"
COMMITTED = sorted([*DATA.glob("*/scenes/*/*.json"), *(DATA / "samples").glob("*.json")])


def test_the_committed_scene_files_read_and_write_back_as_they_are():
    """Files of today's form come back byte for byte; older ones (before table scenes: no surround,
    clutter, console or rack) keep every key they have, and read the others as empty."""
    assert len(COMMITTED) >= 20
    exact = 0
    for path in COMMITTED:
        text = path.read_text(encoding="utf-8")
        truth = SceneTruth.read(path)
        written = truth.to_json()
        exact += json.dumps(written, ensure_ascii=False) == text
        on_disk = json.loads(text)
        assert {k: written[k] for k in on_disk} == on_disk, path
        if "surround" not in on_disk:
            assert (truth.surround, truth.clutter, truth.console, truth.rack) == ((), (), False, False)
        assert truth.hand is None or isinstance(truth.hand, Hand)
    assert exact >= 20  # tests/data/unseen-table-small is of today's form


def test_a_generated_set_writes_the_value_the_generator_drew(tmp_path):
    generate(tmp_path, 5, seed=4, workers=1, long_side=256)
    for path in sorted(tmp_path.glob("scenes/*/*.json")):
        index = int(path.stem)
        drawn = make_sample(index, 4, long_side=256)[2]
        read = SceneTruth.read(path)
        assert (read.image, read.seed, read.index) == (f"images/{path.parent.name}/{path.stem}.jpg", 4, index)
        assert read.to_json() == {"image": read.image, "seed": 4, "index": index, **drawn.to_json()}
        assert path.read_text(encoding="utf-8") == json.dumps(read.to_json(), ensure_ascii=False)
        rows = (tmp_path / "labels" / path.parent.name / f"{path.stem}.txt").read_text().splitlines()
        assert sorted(r for g in read.groups + read.surround for r in g.label_rows if r is not None) == \
            list(range(len(rows)))


def test_the_hand_groups_are_the_groups_but_the_loose_ones():
    truth = SceneTruth.read(next(p for p in COMMITTED if json.loads(p.read_text())["kind"] == "table"))
    assert truth.hand_groups() == tuple(g for g in truth.groups if g.word != "loose")
    assert {g.word for g in truth.hand_groups()} <= {"concealed", "win", "chi", "pon", "kong", "ankong", "flowers"}
    assert {g.kind for g in truth.hand_groups()} <= set(GroupKind) - {GroupKind.UNKNOWN}
    shown = Counter(t for g in truth.hand_groups() for t in g.tiles if t != "back")  # a 暗槓 lies face down
    assert not shown - Counter(truth.hand.all_tiles() + truth.hand.flowers)


GOOD = json.loads(next(p for p in COMMITTED if "surround" in p.read_text()).read_text())


@pytest.mark.parametrize("change, message", [
    (lambda d: [], "scene: expected an object"),
    (lambda d: {k: v for k, v in d.items() if k != "groups"}, "scene: missing groups"),
    (lambda d: {**d, "width": "wide"}, "scene.width: expected int, got 'wide'"),
    (lambda d: {**d, "upright": 1}, "scene.upright: expected bool"),
    (lambda d: {**d, "hand": {"concealed": ["1x"]}}, "scene.hand: hand: missing"),
    (lambda d: {**d, "groups": [{"kind": "pon", "tiles": ["1m"] * 3, "label_rows": [0, 1]}]},
     r"scene.groups\[0\]: 3 tiles but 2 label_rows"),
    (lambda d: {**d, "groups": [{"kind": "pon", "tiles": ["1m"] * 3, "label_rows": [0, 1, True]}]},
     r"scene.groups\[0\].label_rows\[2\]: expected int"),
    (lambda d: {**d, "surround": "walls"}, "scene.surround: expected a list"),
    (lambda d: {**d, "groups": [{"kind": "pung", "tiles": ["1m"] * 3, "label_rows": [0, 1, 2]}]},
     r"scene.groups\[0\].kind: no group's kind: 'pung'"),
])
def test_a_damaged_scene_says_what_is_wrong(change, message):
    with pytest.raises(SceneTruthError, match=message):
        SceneTruth.from_json(change(GOOD))


def test_the_evaluator_names_a_damaged_scene_file_and_exits(tmp_path):
    (tmp_path / "images" / "val").mkdir(parents=True)
    (tmp_path / "scenes" / "val").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "val" / "000000.jpg"), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "scenes" / "val" / "000000.json").write_text('{"kind": "hand", "groups": [', encoding="utf-8")
    for module in ("training.evaluate", "training.evaluate_layout"):
        run = subprocess.run([sys.executable, "-m", module, str(tmp_path)], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parents[1])
        assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
        assert run.stderr.startswith("error: ") and "000000.json: not a readable JSON file" in run.stderr
