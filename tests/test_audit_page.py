"""The app's data-set audit page in AppTest, on a stand-in detector that reads every image the same
way: 1m and a 3p where the labels say 1m and 2m."""

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import vision.detector
from datasets.audit import KINDS, PHOTO, Flag
from tests.app_driver import box
from tests.test_audit import dets

APP = Path(__file__).resolve().parents[1] / "app.py"
TILES = [[20, 20, 60, 80], [60, 20, 100, 80]]


class FakeDetector:
    card = SimpleNamespace(onnx=Path("fake.onnx"), sha256="0" * 64, imgsz=512, tile_width=30.0, max_side=1280)
    classifier = None

    def __init__(self, models_dir):
        pass

    def read(self, image, conf=0.25):
        return dets((TILES[0], {"1m": 0.9}), (TILES[1], {"3p": 0.85, "2m": 0.02}))

    def detect(self, image, long_side=None, conf=0.25):
        return self.read(image)


@pytest.fixture
def data_set(tmp_path):
    for name, lines in {"a": ["0 0.2 0.5 0.2 0.6", "1 0.4 0.5 0.2 0.6"], "b": ["0 0.2 0.5 0.2 0.6"]}.items():
        (tmp_path / "images" / "train").mkdir(parents=True, exist_ok=True)
        (tmp_path / "labels" / "train").mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(tmp_path / "images" / "train" / f"{name}.jpg"), np.full((100, 200, 3), 90, np.uint8))
        (tmp_path / "labels" / "train" / f"{name}.txt").write_text("\n".join(lines) + "\n")
    return tmp_path


def audit_page_alone():
    from ui.audit_page import render

    render()


@pytest.fixture
def page(monkeypatch):
    monkeypatch.setattr(vision.detector, "TileDetector", FakeDetector)
    st.cache_resource.clear()
    yield ok(AppTest.from_function(audit_page_alone, default_timeout=60).run())
    st.cache_resource.clear()


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_audit_a_folder_and_filter_by_problem_and_class(page, data_set):
    assert page.text_input(key="audit_dir").value == "my-dataset"  # where the app saves (ui/dataset.py)
    ok(page.text_input(key="audit_dir").set_value(str(data_set)).run())
    at = ok(page.button(key="audit_run").click().run())
    assert [(m.label, m.value) for m in at.metric] == [("mAP50", "0.500"), ("mAP50-95", "0.500"),
                                                      ("精確率", "0.500"), ("召回率", "0.667")]
    # most suspicious first: b's unlabelled 3p (at 0.85 one of two detections is on a label: (1 + 2 x 3/4) / 4,
    # x 0.9 for b's strays, x 0.9 for 3p's) before a's 2m read as 3p (certainty 0.84 that it is not 2m at 0.02,
    # x the share of codes read right at 0.85: none of one, (0 + 2 x 2/3) / 3)
    assert at.selectbox(key="audit_image").options == ["images/train/b.jpg（1 個可疑）",
                                                       "images/train/a.jpg（1 個可疑）"]

    ok(at.selectbox(key="audit_kind").set_value("wrong-class").run())
    assert at.dataframe[-1].value.to_dict("records") == [
        {"可疑度": 0.38, "問題": "讀成別的牌", "圖": "images/train/a.jpg",
         "說明": "標成 2m 二萬，讀成 3p 三筒（0.85）"}]
    assert at.selectbox(key="audit_image").options == ["images/train/a.jpg（1 個可疑）"]
    assert [i.captions[0] for i in at.image[-3:-1]] == ["標註（紅：可疑）", "模型讀到的（信心 ≥ 0.05）"]
    assert "讀成別的牌" in at.image[-1].captions[0]  # the flag's thumbnail under the two pictures

    ok(at.selectbox(key="audit_kind").set_value("全部").run())
    ok(at.selectbox(key="audit_code").set_value("2m").run())
    assert at.selectbox(key="audit_image").options == ["images/train/a.jpg（1 個可疑）"]
    ok(at.selectbox(key="audit_kind").set_value("unlabelled").run())
    assert at.selectbox(key="audit_code").value == "2m" and not at.dataframe[1:]  # 3p on b has no 2m


def test_a_missing_folder_is_an_error_not_a_crash(page, tmp_path):
    ok(page.text_input(key="audit_dir").set_value(str(tmp_path / "nowhere")).run())
    at = ok(page.button(key="audit_run").click().run())
    assert "找不到資料夾" in at.error[0].value and not at.metric


def test_the_app_sidebar_opens_the_audit_page_and_back(monkeypatch):
    monkeypatch.setattr(vision.detector, "TileDetector", FakeDetector)
    at = ok(AppTest.from_file(str(APP), default_timeout=60).run())
    assert [t.value for t in at.title] == ["台數"]
    ok(box(at, "base").set_value(250).run())
    ok(at.sidebar.radio(key="page").set_value("資料集檢查").run())
    assert [t.value for t in at.title] == ["資料集檢查"] and at.button(key="audit_run")
    ok(at.sidebar.radio(key="page").set_value("台數").run())
    assert [t.value for t in at.title] == ["台數"] and box(at, "base").value == 250  # kept


ROW = [[20 + 30 * i, 20, 50 + 30 * i, 80] for i in range(5)]


class RowDetector(FakeDetector):
    """Reads a row of five tiles, 1m to 5m, each plainly."""

    def read(self, image, conf=0.25):
        return dets(*((box, {f"{i + 1}m": 0.9}) for i, box in enumerate(ROW)))


def test_a_photo_labelled_all_one_code_is_listed_first_as_one_problem(monkeypatch, tmp_path):
    for split in ("images", "labels"):
        (tmp_path / split / "train").mkdir(parents=True)
    for name in ("row", "tidy"):
        cv2.imwrite(str(tmp_path / "images" / "train" / f"{name}.jpg"), np.full((100, 200, 3), 90, np.uint8))
    lines = [f"{{}} {(x0 + x1) / 400} 0.5 {(x1 - x0) / 200} 0.6" for x0, _, x1, _ in ROW]
    (tmp_path / "labels" / "train" / "tidy.txt").write_text("\n".join(line.format(i) for i, line in enumerate(lines)))
    (tmp_path / "labels" / "train" / "row.txt").write_text("\n".join(line.format(9) for line in lines))  # all 1p
    monkeypatch.setattr(vision.detector, "TileDetector", RowDetector)
    st.cache_resource.clear()
    at = ok(AppTest.from_function(audit_page_alone, default_timeout=60).run())
    ok(at.text_input(key="audit_dir").set_value(str(tmp_path)).run())
    at = ok(at.button(key="audit_run").click().run())
    st.cache_resource.clear()
    assert "整張標錯 1" in at.caption[1].value
    assert at.selectbox(key="audit_image").options[0] == "images/train/row.jpg（1 個可疑）"
    first = at.dataframe[-1].value.to_dict("records")[0]
    assert (first["問題"], first["圖"]) == ("整張標錯", "images/train/row.jpg")
    assert first["說明"] == "找到的 5 個標註中有 5 個讀成別的牌（全標成 1p 一筒，讀到 5 種）：整張圖標錯了？"


@pytest.mark.parametrize("script", ["traditional", "simplified"])
def test_every_flag_is_said_in_the_players_script_with_no_english(script):
    from ui.audit_page import flag_words
    from ui.text import in_script

    def flag(kind, **more):
        return Flag(kind, 0.9, "a.jpg", 0, 0, "2m", "3p", 0.85, 0.4, (0, 0, 1, 1), **more)

    flags = [flag(k) for k in KINDS] + [flag("missed", others=(1,)), flag("unlabelled", others=(1,)),
                                        flag(PHOTO, others=(1, 2), found=5, labelled_codes=1, read_codes=4)]
    for f in flags:
        words = in_script(flag_words(f), script)
        latin = {w for w in "".join(c if c.isascii() and c.isalpha() else " " for c in words).split()}
        assert latin <= {"m", "p"}, (f.kind, words)  # the tile codes 2m and 3p only
