"""models.evaluate on real photo sets: taps to fix, face-up figures, scene types, several sets at once."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from datasets.real import OTHER, REAL_LABELLED, REAL_SETS, scene_type
from models.evaluate import Judged, Tally, is_real, main
from models.real_table import table
from tests.shared import needs_shared

DATA = Path(__file__).resolve().parent / "data"


def box(x: float) -> list[float]:
    return [x, 0, x + 10, 14]


def test_taps_count_a_wrong_code_a_missing_tile_and_an_extra_tile_once_each():
    true_boxes = np.array([box(0), box(20), box(40)], np.float32)
    pred_boxes = np.array([box(0), box(20.5), box(80)], np.float32)  # 3rd label missed, one extra at 80
    tally = Tally()
    tally.add(pred_boxes, ["1m", "2p", "5z"], true_boxes, ["1m", "3p", "9s"])  # 2p read for 3p: wrong code
    tally.add(true_boxes, ["1m", "3p", "9s"], true_boxes, ["1m", "3p", "9s"])  # all right
    tally.add(pred_boxes[:1], ["1m"], true_boxes[:1], ["2m"])  # one wrong code only
    assert tally.taps == [3, 0, 1]
    assert tally.exact == [False, True, False]
    result = tally.result()
    assert result["taps"] == {"mean": round(4 / 3, 3), "zero": round(1 / 3, 4), "at_most_one": round(2 / 3, 4)}
    assert result["image_exact"] == round(1 / 3, 4)
    assert (result["precision"], result["recall"]) == (round(4 / 7, 4), round(4 / 7, 4))


def test_a_back_found_where_a_real_set_labels_nothing_costs_a_tap_only_in_the_all_tiles_figure():
    true_boxes = np.array([box(0), box(20)], np.float32)
    read = {"sample": {"codes": ["1m", "2m"], "scene": "x"}, "true_boxes": true_boxes,
            "boxes": np.array([box(0), box(20), box(60)], np.float32), "raw": ["1m", "2m", "back"],
            "codes": ["1m", "2m", "back"], "peer": None}
    judged = Judged()
    judged.add(read)
    result = judged.result()
    assert result["tiles"]["taps"]["mean"] == 1
    assert result["face_up"]["taps"]["mean"] == 0
    assert result["riichi34"]["ours"]["taps"]["mean"] == 0
    assert "peer" not in result["riichi34"]


@pytest.mark.parametrize(("name", "scene"), [
    ("hand_017_jpg.rf.0a1b.jpg", "rack on green felt"),
    ("384298132_846779426763853_1021579307803981332_n_jpg.rf.9.jpg", "game table (Facebook photos)"),
    ("IMG_20231217_183954_jpg.rf.c.jpg", "tray or table layout"),
    ("IMG_2731_JPG.rf.d.jpg", "pink table close-up"),
    ("IMG_3305_jpg.rf.e.jpg", "single tiles on a mat"),
    ("IMG_3302-HEIC_jpg.rf.e.jpg", "single tiles on a mat"),
    ("IMG_6123_jpg.rf.f.jpg", "row on fabric or wood"),
    ("IMG_1755_jpg.rf.f.jpg", "row on fabric or wood"),
    ("rotated_home-mj-IMG_3201_jpg.rf.1.jpg", "rows on a home desk"),
    ("Screenshot-2024-09-23-at-3-15-02-PM_png.rf.2.jpg", "video frame"),
    ("Pasted-Graphic-3_png.rf.3.jpg", "video frame"),
    ("mahjon_image61_jpg.rf.4.jpg", "riichi table or grid"),
    ("noxHzTFzOujT86JA3BB2LjdVfRPBw8_jpg.rf.8d.jpg", OTHER),
])
def test_scene_type_of_a_real_photo_comes_from_its_file_name_family(name, scene):
    assert scene_type(name) == scene


@needs_shared("data", "real-labelled", needed_for="the real photos' scene types")
def test_every_real_test_photo_but_a_few_web_images_has_a_named_scene_type():
    names = [p.name for s in REAL_SETS for p in (REAL_LABELLED / s / "images" / "test").glob("*.jpg")]
    assert len(names) > 150
    assert sum(scene_type(n) == OTHER for n in names) <= 3


def real_format_copy(root: Path, names: list[str]) -> Path:
    """A real-format set (images and labels, no scene truth) of a few generated unseen-style scenes,
    renamed as the real photos' families are."""
    for split in ("images", "labels"):
        (root / split / "test").mkdir(parents=True)
    for i, name in enumerate(names):
        shutil.copy(DATA / "unseen-small/images/val" / f"{i:06d}.jpg", root / "images/test" / f"{name}.jpg")
        shutil.copy(DATA / "unseen-small/labels/val" / f"{i:06d}.txt", root / "labels/test" / f"{name}.txt")
    return root


def test_several_real_format_sets_are_judged_each_and_pooled_in_one_call(tmp_path):
    felt = real_format_copy(tmp_path / "felt", ["hand_001_jpg.rf.a", "hand_002_jpg.rf.b", "IMG_2731_JPG.rf.c"])
    riichi = real_format_copy(tmp_path / "riichi", ["mahjon_image1_jpg.rf.d"])
    assert is_real(felt) and not is_real(DATA / "unseen-small")
    out = tmp_path / "figures.json"
    main([str(felt), str(riichi), "--no-peer", "--json", str(out)])  # split: test, the real sets' default
    result = json.loads(out.read_text())
    assert set(result["sets"]) == {"felt", "riichi"}
    felt_figures = result["sets"]["felt"]
    assert felt_figures["split"] == "test" and felt_figures["real"] and "detector" not in felt_figures
    scenes = felt_figures["read_path"]["by_scene"]
    assert {k: v["images"] for k, v in scenes.items()} == {"rack on green felt": 2, "pink table close-up": 1}
    assert result["all"]["images"] == 4
    pooled_taps = result["all"]["tiles"]["taps"]["mean"]
    per_set = [(f["read_path"]["images"], f["read_path"]["tiles"]["taps"]["mean"]) for f in result["sets"].values()]
    assert pooled_taps == pytest.approx(sum(n * t for n, t in per_set) / 4, abs=1e-3)
    # these unseen-style scenes read at 85% tile precision and recall (models/README.md)
    assert result["all"]["tiles"]["precision"] > 0.6 and result["all"]["tiles"]["recall"] > 0.6
    assert result["all"]["rows"] == 0  # no scene truth, so no rows: image_exact stands for them
    lines = table(result).splitlines()  # the model card's table of these figures
    assert [line.split(" | ")[0] for line in lines[2:]] == [
        "| **felt** (test)", "| · pink table close-up", "| · rack on green felt", "| **riichi** (test)",
        "| · riichi table or grid", "| **all**"]
    assert lines[-1].split(" | ")[1] == "4" and lines[-1].endswith("| — |")  # no peer asked for


def test_comparing_two_model_folders_reads_the_sets_with_each(tmp_path):
    one = real_format_copy(tmp_path / "one", ["hand_001_jpg.rf.a"])
    committed = Path(__file__).resolve().parents[1] / "models"
    other = tmp_path / "other-models"  # a second model folder, as a v3 run's would be
    other.mkdir()
    for name in ("model.json", "tiles.onnx", "tile_classifier.onnx", "classifier.json"):
        shutil.copy(committed / name, other / name)
    out = tmp_path / "figures.json"
    main([str(one), "--no-peer", "--models", str(committed), "--models", str(other), "--json", str(out)])
    by_model = json.loads(out.read_text())["by_model"]
    assert list(by_model) == [str(committed), str(other)]
    first, second = (by_model[str(m)]["read_path"] for m in (committed, other))
    assert first["images"] == second["images"] == 1
    assert first["tiles"] == second["tiles"]  # same weights, same reading


def test_a_missing_model_folder_is_a_clear_error(tmp_path):
    one = real_format_copy(tmp_path / "one", ["hand_001_jpg.rf.a"])
    with pytest.raises(SystemExit, match="error: no .*card"):
        main([str(one), "--no-peer", "--models", str(tmp_path / "nowhere")])
