"""The page's photo: a phone's JPEG opened as `vision read` opens it (`vision.photo.open_photo`), so the page reads it
as the command line does, from half its pixels where its tiles are large, shows it shrunk from that decoding, and
teaches a table's memory the crops the reader read; and the page's bench times runs as a server makes them."""

from dataclasses import replace
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from streamlit.runtime.scriptrunner import magic
from streamlit.testing.v1 import AppTest

import ui.photo
from scoring.ruleset import DEFAULT_RULESET, load_ruleset
from tests.test_reduced_decode import enlarged
from training.page_bench import server_script_cache
from ui.picture import SHOWN_WIDTH, Picture
from vision.detector import TileDetector
from vision.photo import load_photo, open_photo
from vision.read import read_photo

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def detector():
    return TileDetector()


@pytest.fixture(scope="module")
def phone_jpeg() -> bytes:
    return enlarged((4000, 3000))


def test_the_page_reads_a_phone_photo_as_the_command_line_does_never_decoding_it_whole(detector, phone_jpeg):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.file_uploader(key="upload-0").set_value(("hand.jpg", phone_jpeg, "image/jpeg")).run()
    assert not at.exception and at.image
    photos = at.session_state["photo"]
    shown = photos.shown
    assert sorted(shown.opened.decoded) == [2]  # shown and read from half its pixels, never all 12 MP
    assert shown.picture.image.shape == (1095, SHOWN_WIDTH, 3) and shown.picture.scale == SHOWN_WIDTH / 4000
    page = photos.readings[shown.read.key]
    assert page == read_photo(open_photo(phone_jpeg), detector, load_ruleset(DEFAULT_RULESET))
    assert page.view.reduction == 2


def test_a_phone_photo_is_shown_from_its_reduced_decoding_as_from_the_whole(phone_jpeg):
    opened = open_photo(phone_jpeg)
    picture, whole = Picture.of(opened), Picture.of(load_photo(phone_jpeg))
    assert sorted(opened.decoded) == [2]
    assert picture.image.shape == whole.image.shape and picture.scale == whole.scale
    assert np.abs(picture.image.astype(int) - whole.image).mean() < 1  # libjpeg's scaling for 2x2 means
    portrait = open_photo(enlarged((3000, 4000)))  # 1500 px wide at half: still wider than shown
    assert Picture.of(portrait).image.shape[1] == SHOWN_WIDTH and sorted(portrait.decoded) == [2]
    narrow = open_photo(enlarged((2800, 2100)))  # half would be narrower than shown: decoded whole
    assert Picture.of(narrow).image.shape[1] == SHOWN_WIDTH and sorted(narrow.decoded) == [1]


def test_a_table_is_taught_a_phone_photo_as_the_reader_saw_it(detector, phone_jpeg):
    photo = open_photo(phone_jpeg)
    reading = read_photo(photo, detector)
    seen, boxes = reading.view.seen(photo, reading.best.boxes)
    assert seen is photo.pixels(2) and sorted(photo.decoded) == [2]  # the pixels the crops were cut from
    assert np.allclose(boxes, reading.best.boxes / 2, atol=1e-3)  # in those pixels
    decoded = load_photo(phone_jpeg)  # a photo decoded already was read whole, and is taught whole
    whole = read_photo(decoded, detector)
    seen, boxes = whole.view.seen(decoded, whole.best.boxes)
    assert seen is decoded and np.allclose(boxes, whole.best.boxes)


def test_the_page_bench_compiles_the_page_once_as_a_server_does():
    compiled = []

    def counted(code: str, path: str):
        compiled.append(path)
        return add_magic(code, path)

    add_magic = magic.add_magic
    with patch.object(magic, "add_magic", counted):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        with server_script_cache():
            at.run()
            at.run()
        assert len(compiled) == 1
        at.run()  # AppTest's own way: compiled afresh
        assert len(compiled) == 2


def test_the_photo_with_its_boxes_is_drawn_again_only_when_what_it_shows_changed(monkeypatch, phone_jpeg):
    drawn = []
    annotate = ui.photo.annotate
    monkeypatch.setattr(ui.photo, "annotate", lambda *args: drawn.append(args[2]) or annotate(*args))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.file_uploader(key="upload-0").set_value(("hand.jpg", phone_jpeg, "image/jpeg")).run()
    shown = at.session_state["photo"].shown
    sent = shown.sent[1]
    assert len(drawn) == 1
    at.checkbox(key="ready").check().run()  # a tap that changes nothing the photo shows
    assert not at.exception and len(drawn) == 1 and at.session_state["photo"].shown.sent[1] is sent
    proposal = at.session_state["photo"].reading().best
    fewer = replace(proposal.draft, concealed=proposal.draft.concealed[1:])  # a tile taken out: drawn again
    redrawn = ui.photo.annotated_jpeg(shown, None, proposal, fewer)
    assert redrawn != sent and len(drawn) == 2
    assert ui.photo.annotated_jpeg(shown, None, proposal, fewer) is redrawn and len(drawn) == 2
