"""The player's script: 简体 as a mainland player writes it (scoring/script.py), every string the
app shows in it, and the choice kept in the page's address (ui/chrome.py).

The judge of "traditional" is OpenCC's traditional → simplified table, not the project's own: a
character OpenCC changes is one that simplified text does not hold. The page is rendered in
Streamlit's AppTest in the states a player meets (an empty hand, a typed hand, a bad one, a photo
read at a table, a table's evening, a ledger that cannot be opened, the data-set page), and every
string of every element is read: labels, options as formatted, help, captions, table cells, chart
specs and data, and Streamlit's own words that the page is sent (ui/chrome.py).
"""

import ast
import io
from pathlib import Path

import opencc
import pyarrow as pa
import pytest
import streamlit as st
from hypothesis import given
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

import vision.detector
import vision.model_files
import vision.read
from scoring.ruleset import available_rulesets
from scoring.script import PHRASES, TRADITIONAL_ONLY, in_script, simplified
from tests.app_driver import box, say_who_won
from tests.example_hands import HAND, TYPED
from tests.fake_detections import laid_out, reading_at_a_table
from ui import chrome
from ui.table import DB_ENV
from ui.text import SCRIPT_LABELS, ruleset_label
from vision.notices import Notice

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
T2S = opencc.OpenCC("t2s")
# Taiwan's forms that OpenCC keeps, as a mainland text writes them otherwise: the quotes 「」『』 (“” ‘’); 著 the
# particle (放著: 着; OpenCC keeps 著 for 著名, which this project never writes); 瞭解 (了解), 藉由 (借由), 祇/衹 (只).
TAIWAN_KEPT = set("「」『』著瞭藉祇衹")
# The packages whose words reach the page beside app.py: every Chinese string in them is shown, or goes into what is.
PAGE_PACKAGES = ("ui", "scoring", "ledger", "vision")


def traditional_in(text: str) -> set[str]:
    return {c for c in text if c in TAIWAN_KEPT or T2S.convert(c) != c}


# -- the conversion -------------------------------------------------------------------------------
@pytest.mark.parametrize(("taiwan", "mainland"), [
    ("這個檔案不能當照片讀", "这个文件不能当照片读"),
    ("存在伺服器啟動時選的資料夾（環境變數）", "存在服务器启动时选的文件夹（环境变量）"),
    ("上傳胡牌照片", "上传胡牌照片"),
    ("牌桌：記下整晚每一局、自動換莊、算總帳", "牌桌：记下整晚每一局、自动换庄、算总账"),
    ("牌桌的帳本打不開", "牌桌的账本打不开"),
    ("修改第幾局", "修改第几局"),
    ("匯出整晚（CSV）", "导出整晚（CSV）"),
    ("用手機相機掃這個碼", "用手机相机扫这个码"),
    ("頁面", "页面"),
    ("資料集檢查", "数据集检查"),
    ("⑤ 存成訓練資料", "⑤ 存成训练数据"),
    ("儲存牌桌設定", "保存牌桌设置"),
    ("請到 設定 › 相機 › 格式 選「最相容」再拍", "请到 设置 › 相机 › 格式 选“兼容性最佳”再拍"),
    ("一炮多響；詐胡的人賠三家；例如：相公、遲到", "一炮多响；诈胡的人赔三家；例如：相公、迟到"),
    ("付錢填負數，例如罰給場地", "付钱填负数，例如罚给场地"),
    ("照牌桌的約定；磁碟滿了；牌桌記憶是舊的模型做的", "照牌桌的约定；磁碟满了；牌桌记忆是旧的模型做的"),
])
def test_simplified_is_written_as_the_mainland_writes_it(taiwan, mainland):
    assert simplified(taiwan) == mainland
    assert in_script(taiwan, "traditional") == taiwan


def test_each_phrase_is_a_mainland_word_and_not_the_characters_simplified():
    for taiwan, mainland in PHRASES.items():
        assert simplified(taiwan) == mainland and not traditional_in(mainland), taiwan
        assert T2S.convert(taiwan) != mainland, f"{taiwan}: the character map alone gives {mainland}"


@pytest.mark.parametrize(("taiwan", "mainland"), [
    ("這張牌還有別家胡（一炮多響）：先放著這一家", "这张牌还有别家胡（一炮多响）：先放着这一家"),
    ("暗槓四張都蓋著", "暗杠四张都盖着"),
])
def test_a_particle_is_written_as_the_mainland_writes_it(taiwan, mainland):
    assert simplified(taiwan) == mainland


def page_strings() -> dict[str, list[str]]:
    """Every Chinese string literal of the page's code (an f-string's literal parts; not docstrings), by file."""
    out = {}
    for path in [APP, *(p for package in PAGE_PACKAGES for p in sorted((ROOT / package).glob("*.py")))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(node.body[0].value) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
        out[path.relative_to(ROOT).as_posix()] = [
            node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs and any("\u4e00" <= c <= "\u9fff" for c in node.value)]
    return out


def test_every_string_the_page_shows_has_nothing_traditional_in_simplified():
    """Every Chinese string of the page's code in simplified, whether or not a test reaches the state that shows it:
    OpenCC judges each character (`traditional_in`), with Taiwan's forms it keeps (「先放著这一家」 was seen so)."""
    strings = page_strings()
    table = [text for path, texts in strings.items() if path.startswith("ui/table_") for text in texts]
    assert len(table) > 100 and len(strings["vision/notices.py"]) > 30
    left = {(path, text): "".join(sorted(traditional_in(simplified(text))))
            for path, texts in strings.items() for text in texts if traditional_in(simplified(text))}
    assert not left, left


@given(hs.text(alphabet="".join(TRADITIONAL_ONLY) + "".join(PHRASES) + "台牌局 abc123", max_size=40))
def test_nothing_traditional_is_left_in_what_the_map_knows(text):
    assert not set(simplified(text)) & TRADITIONAL_ONLY


def test_every_table_has_a_chinese_name_in_both_scripts():
    for name in available_rulesets():
        for script in ("traditional", "simplified"):
            label = ruleset_label(name, script)
            assert label != name and not any(c.isascii() and c.isalpha() for c in label), (name, label)
        assert not traditional_in(ruleset_label(name, "simplified"))
    assert ruleset_label("tw16-common", "traditional") == "台灣麻將 常見規則"
    assert ruleset_label("tw16-2026.09-p0", "simplified") == "台湾十六张麻将 基础教学"
    assert ruleset_label("no-such-table", "simplified") == "no-such-table"  # the page reports it when it scores


def test_streamlits_own_words_have_no_english_and_no_traditional_in_simplified():
    for script in ("traditional", "simplified"):
        shown = [*chrome.words(script).values(), *(to for _, to in chrome.patterns(script))]
        for text in shown:
            latin = {w for w in "".join(c if c.isascii() and c.isalpha() else " " for c in text).split()}
            assert latin <= {"CSV", "PNG", "SVG"}, (script, text)
    shown = [*chrome.words("simplified").values(), *(to for _, to in chrome.patterns("simplified"))]
    left = {text: traditional_in(text) for text in shown if traditional_in(text)}
    assert not left, left
    assert chrome.words("simplified")["Upload"] == "上传" and chrome.words("traditional")["Upload"] == "上傳"


# -- every string of the page ---------------------------------------------------------------------
def arrow_texts(data: bytes) -> list[str]:
    """Column names and string cells of an Arrow table (st.table, st.dataframe, a chart's data)."""
    try:
        table = pa.ipc.open_stream(io.BytesIO(data)).read_all()
    except pa.ArrowInvalid:
        return []
    cells = [str(v) for column in table.columns if pa.types.is_string(column.type) or pa.types.is_large_string(
        column.type) for v in column.to_pylist() if v is not None]
    return [*table.column_names, *cells]


def proto_texts(message) -> list[str]:
    out = []
    for field, value in message.ListFields():
        for v in value if field.is_repeated else [value]:
            if field.type == field.TYPE_MESSAGE:
                out += proto_texts(v)
            elif field.type == field.TYPE_STRING:
                out.append(v)
            elif field.type == field.TYPE_BYTES:
                out += arrow_texts(v)
    return out


def page_texts(at) -> list[str]:
    """Every string of every element on the page, as the browser is sent it."""
    out = []

    def walk(node):
        if getattr(node, "proto", None) is not None:
            out.extend(proto_texts(node.proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return out


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def assert_simplified(at, state: str) -> None:
    # 繁體 is the other choice of script, named in its own script for the player who reads it.
    texts = [text for text in page_texts(at) if text != SCRIPT_LABELS["traditional"]]
    assert any("台" in text for text in texts), f"{state}: nothing Chinese on the page"
    left = {text: "".join(sorted(traditional_in(text))) for text in texts if traditional_in(text)}
    assert not left, f"{state}: traditional characters left: {left}"


def simplified_page(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["script"] = "simplified"
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return ok(at.run())


def press(at, label: str):
    return ok(next(b for b in at.button if b.label == in_script(label, "simplified")).click().run())


class NoModel:
    def __init__(self):
        raise vision.model_files.ModelError(
            Notice.of("model-card-missing", what="model", path="models/model.json"))


@pytest.fixture
def no_model(monkeypatch):
    monkeypatch.setattr(vision.detector, "TileDetector", NoModel)
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


def test_the_page_without_a_table_is_all_simplified(no_model, monkeypatch):
    at = simplified_page()
    assert at.radio(key="script").value == "simplified"  # from the address
    assert_simplified(at, "an empty hand, no one said to have won")
    say_who_won(at, "东家", "自摸")
    ok(box(at, "text").set_value("123q").run())
    assert_simplified(at, "text it cannot read")
    ok(box(at, "text").set_value("123m 和5s").run())
    assert_simplified(at, "a hand that is no win")
    ok(box(at, "text").set_value(TYPED).run())
    assert at.metric and at.table
    assert_simplified(at, "a typed hand")
    ok(at.file_uploader(key="upload-0").set_value(("胡牌.jpg", b"not a photo", "image/jpeg")).run())
    assert_simplified(at, "a file that is no photo")
    ok(at.file_uploader(key="upload-0").set_value(("胡牌.jpg", jpeg(), "image/jpeg")).run())
    assert_simplified(at, "a photo without a model")

    at = simplified_page()
    ok(at.sidebar.radio[0].set_value("資料集檢查").run())
    assert_simplified(at, "the data-set page")


def jpeg() -> bytes:
    import cv2
    import numpy as np

    return cv2.imencode(".jpg", np.full((700, 1200, 3), (40, 110, 60), np.uint8))[1].tobytes()


class WinNotApart:
    """HAND laid out with its winning tile at the end of the row: the reader warns so."""

    def read(self, image):
        return laid_out(HAND, win_apart=False)[0]


def test_a_photo_read_at_a_table_is_all_simplified(monkeypatch):
    monkeypatch.setattr(vision.detector, "TileDetector", WinNotApart)
    st.cache_resource.clear()
    at = say_who_won(simplified_page(), "东家", "自摸")
    ok(at.file_uploader(key="upload-0").set_value(("胡牌.jpg", jpeg(), "image/jpeg")).run())
    assert at.image and at.metric
    assert_simplified(at, "a photo read with a warning")

    # 九萬, 東風 and a back set apart, 五萬 added, two runner-ups
    reading = reading_at_a_table(HAND, 4, ["9m", "1z", "back"], {9: "5s"})
    monkeypatch.setattr(vision.read, "read_photo", lambda image, detector, rules=None, memory=None: reading)
    at = say_who_won(simplified_page(), "东家", "自摸")
    ok(at.file_uploader(key="upload-0").set_value(("牌桌.jpg", jpeg() + b"\0", "image/jpeg")).run())
    assert any("不算在手牌里的牌" in (p.label or "") for p in at.pills)
    assert_simplified(at, "a photo with tiles set apart and runner-ups")
    st.cache_resource.clear()


def test_a_tables_evening_is_all_simplified(tmp_path, monkeypatch, no_model):
    monkeypatch.setenv(DB_ENV, str(tmp_path / "taishu.db"))
    at = simplified_page({"table": "evening"})
    assert_simplified(at, "a table with no hand yet")
    say_who_won(ok(box(at, "text").set_value(TYPED).run()), "东家", "自摸")
    press(at, "胡了，記下這一局")
    press(at, "流局（沒人胡）")
    assert len(at.table) >= 2  # the totals and the hands
    assert_simplified(at, "a table with a win and a 流局")
    press(at, "修改這一局")
    assert_simplified(at, "editing a hand")

    monkeypatch.setenv(DB_ENV, str(tmp_path))  # a folder: the ledger cannot be opened
    assert_simplified(simplified_page({"table": "evening"}), "a ledger that cannot be opened")
    assert_simplified(simplified_page({"table": "不行!"}), "a table code that cannot be used")


# -- the script in the address --------------------------------------------------------------------
def test_the_script_is_kept_in_the_address_beside_the_table(tmp_path, monkeypatch, no_model):
    monkeypatch.setenv(DB_ENV, str(tmp_path / "taishu.db"))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["table"] = "evening"
    ok(at.run())
    assert at.radio(key="script").value == "traditional" and "script" not in at.query_params
    ok(at.radio(key="script").set_value("simplified").run())
    assert at.query_params["script"] == "simplified" and at.query_params["table"] == "evening"
    ok(at.radio(key="script").set_value("traditional").run())
    assert "script" not in at.query_params and at.query_params["table"] == "evening"


def test_an_unknown_script_in_the_address_is_dropped():
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["script"] = "<b>klingon</b>"
    ok(at.run())
    assert at.radio(key="script").value == "traditional" and "script" not in at.query_params
