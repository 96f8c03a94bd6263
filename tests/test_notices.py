"""The reader's notices: every warning and error it gives the player has a code and words in English,
traditional and simplified characters (vision/notices.py)."""

import re
from pathlib import Path

import pytest

from scoring.hand import HandError
from scoring.script import TRADITIONAL_ONLY
from tests.fake_detections import laid_out
from tests.test_layout_and_correction import HAND
from vision.notices import CATALOGUE, SCRIPTS, Notice, placeholders
from vision.photo import PhotoError, load_photo
from vision.read import read_detections

REPO = Path(__file__).resolve().parents[1]
# Names a Chinese text keeps as they are: file formats, the phone, the hash, the tool to restore with.
PROPER_NAMES = {"JPEG", "PNG", "WebP", "HEIC", "iPhone", "SHA", "git"}
# A value for every parameter the catalogue names: tiles as codes, a nested notice, a scorer message.
SAMPLE = {
    "count": 2, "melds": 1, "left": "3m", "right": "back", "before": "7m", "after": "5z", "angle": 33.3, "number": 4,
    "reason": Notice.of("too-many-flowers", count=9), "en": "not a win: 1m 2m", "zh": "沒有胡：張數不對",
    "name": "hand.jpg", "why": "No such file or directory", "width": 10000, "height": 8001, "limit": 80,
    "what": "model", "path": "models/model.json", "actual": "0123456789ab", "expected": "ba9876543210",
    "shape": "[64, 48, 3]", "error": "ValueError: boom", "tile": "5p", "tiles": ("1m", "9p"), "format": "TIFF",
    "version": "2", "made": "0123456789ab", "now": "ba9876543210", "line": 3, "size": 12,
    "variable": "TAISHU_RUNTIME", "value": "openvino-bf16", "choices": "onnxruntime, openvino",
}


def sample(code: str) -> Notice:
    words = CATALOGUE[code]
    names = set().union(*(placeholders(getattr(words, s)) for s in SCRIPTS))
    return Notice.of(code, **{name: SAMPLE[name] for name in sorted(names)})


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_code_has_its_words_in_all_three_scripts(code):
    words = CATALOGUE[code]
    assert all(getattr(words, s).strip() for s in SCRIPTS)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", code)
    for script in ("traditional", "simplified"):
        # No English left in the Chinese words, once the parameters are taken out.
        literal = re.sub(r"\{[^}]*\}", "", getattr(words, script))
        assert set(re.findall(r"[A-Za-z]{2,}", literal)) <= PROPER_NAMES, (code, script)
        # A Chinese text needs no parameter the English leaves out (the English says everything).
        assert placeholders(getattr(words, script)) <= placeholders(words.en) | {"zh"}
    assert not TRADITIONAL_ONLY & set(sample(code).text("simplified")), code


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_notice_renders_with_its_parameters_in_every_script(code):
    notice = sample(code)
    for script in SCRIPTS:
        assert "{" not in notice.text(script)
    assert notice.to_json()["code"] == code and notice.to_json()["text"] == notice.text("en") == str(notice)


def test_tiles_are_named_in_the_players_script_and_codes_in_english():
    notice = Notice.of("tile-corrected", number=4, before="back", after="2m")
    assert notice.text("en") == "tile 4 read as back, corrected to 2m to make a legal hand"
    assert notice.text("traditional") == "第 4 張讀成牌背，為了湊成合法的胡牌改成二萬"
    assert notice.text("simplified") == "第 4 张读成牌背，为了凑成合法的胡牌改成二万"
    assert notice.to_json() == {"code": "tile-corrected", "text": notice.text("en"),
                                "params": {"number": 4, "before": "back", "after": "2m"}}


def test_the_scorers_reason_is_carried_in_its_own_words():
    refusal = Notice.of("no-legal-hand", reason=Notice.of_hand_error(HandError("not a win: 1m", "沒有胡：聽的是 二萬")))
    assert refusal.text("en") == "no legal winning hand is close to what was read (not a win: 1m)"
    assert refusal.text("traditional").endswith("（沒有胡：聽的是 二萬）")
    assert refusal.text("simplified").endswith("（没有胡：听的是 二万）")


def test_a_notice_must_name_a_catalogue_code_and_its_parameters():
    with pytest.raises(ValueError, match="no notice"):
        Notice.of("tile-is-sad")
    with pytest.raises(ValueError, match="takes"):
        Notice.of("stray-group")
    with pytest.raises(ValueError, match="takes"):
        Notice.of("no-tiles", count=1)


def created_codes() -> set[str]:
    """Every code the source hands to `Notice.of` (the only way the project makes a notice)."""
    sources = [*REPO.glob("*.py"), *(REPO / "vision").glob("*.py"), *(REPO / "ui").glob("*.py")]
    calls = {m for p in sources for m in re.findall(r"Notice\.of\(\s*\"([^\"]+)\"", p.read_text())}
    return calls | {"not-a-hand"}  # Notice.of_hand_error


def test_every_notice_the_code_creates_is_in_the_catalogue_and_every_entry_is_used():
    assert created_codes() == set(CATALOGUE)


def test_a_reading_gives_its_warnings_as_notices_and_json_as_code_and_english():
    dets, _ = laid_out(HAND, win_apart=False)
    reading = read_detections(dets)
    assert reading.warnings == (Notice.of("win-not-apart"),)
    assert reading.to_json()["warnings"] == [{
        "code": "win-not-apart",
        "text": "the winning tile is not set apart: taken as the last tile of the concealed row"}]


@pytest.mark.parametrize("data, code", [
    (b"", "photo-empty"),
    (b"this is not an image at all", "photo-not-image"),
    (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64, "photo-heic"),
])
def test_photo_errors_carry_a_notice_and_keep_their_english(data, code):
    with pytest.raises(PhotoError) as error:
        load_photo(data)
    assert error.value.notice.code == code and str(error.value) == error.value.notice.text("en")
    assert str(error.value).startswith("upload ")
