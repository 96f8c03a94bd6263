"""教認牌組 in the real browser (tests/test_browser.py: Debian's Chromium at 390x844, a real Streamlit
server with the committed models and a ledger file of its own), in 简体: reached from the table's
settings, a photo of a committed sample uploaded, a tile named with two taps, the tiles kept; every
pill and button at least 44 px tall and no word of the page in English or traditional characters
(tests/test_browser_script.py's checks). Screenshot: test-artifacts/browser-teach-390.png.
"""

import re

import pytest
from playwright.sync_api import expect

import tests.test_browser as in_browser
from ledger import Ledger
from tests.example_hands import HAND
from tests.fake_detections import laid_out
from tests.test_app_script import traditional_in
from tests.test_browser import ROOT, SLOW, drawn, screenshot, settle, unfold, upload
from tests.test_browser_script import PAGE_WORDS, SMALLEST, TARGETS, latin_words
from vision.detector import TileDetector
from vision.memory import TableMemory
from vision.photo import load_photo

# its fixtures: Chromium, a phone's page in it, and the app (the committed models) with a ledger file of its own
browser, page, ledger_url = in_browser.browser, in_browser.page, in_browser.ledger_url

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not (ROOT / "models" / "model.json").exists(), reason="no committed model")]
FLOWERED = ROOT / "tests" / "data" / "samples" / "unseen-style-000005.jpg"




def to_teach_page(page) -> None:
    """From a table's page just opened to the teach page: the settings unfolded, then 教认这一桌的牌. Each tap waits for
    the run before it to be over: a tap on an element a run is about to replace is lost."""
    unfold(page, "邀请同桌的手机")
    button = page.get_by_role("button", name="教认这一桌的牌（照片常读错时）")
    expect(button).to_be_visible(timeout=SLOW)
    drawn(page)
    button.click()
    expect(page.get_by_role("heading", name="教认这一桌的牌")).to_be_visible(timeout=SLOW)


def test_a_set_is_taught_with_taps_that_fit_a_finger(page, ledger_url):
    url, db = ledger_url
    page.goto(f"{url}?table=0701&script=simplified")
    to_teach_page(page)
    expect(page.get_by_text("这一桌还没有记住任何牌。")).to_be_visible()
    settle(page)
    upload(page, "花牌.jpg", FLOWERED.read_bytes())  # a table and a photo of the player's naming
    expect(page.get_by_text("找到 21 张牌", exact=False)).to_be_visible(timeout=SLOW)
    page.get_by_role("radio", name=re.compile(r"^1 ")).click()  # a pill
    expect(page.get_by_text("第 1 张是：")).to_be_visible(timeout=SLOW)
    settle(page)

    shown = page.evaluate(PAGE_WORDS)
    english = {text: sorted(latin_words(text)) for text in shown if latin_words(text)}
    assert not english, english
    left = {text: sorted(traditional_in(text)) for text in shown if traditional_in(text) and text != "繁體"}
    assert not left, left
    small = [target for target in page.evaluate(TARGETS) if target[2] < SMALLEST]
    assert not small, small
    screenshot(page, "browser-teach-390.png")

    page.get_by_role("radio", name="梅", exact=True).click()
    expect(page.get_by_role("radio", name="1 梅", exact=True)).to_be_visible(timeout=SLOW)
    settle(page)
    page.get_by_role("button", name="记住这 21 张牌").click()
    expect(page.get_by_text("记住了 21 张牌：梅、", exact=False)).to_be_visible(timeout=SLOW)
    assert "1f" in TableMemory.from_bytes(Ledger(db).memory("0701").data).counts()
    assert page.get_by_test_id("stException").count() == 0


def test_a_row_photographed_askew_is_shown_level_to_name(page, ledger_url):
    """The committed photo of a row at 37 degrees (tests/data/askew/): the page shows it turned level, its tiles
    boxed and numbered along the row (see the screenshot). Screenshot: test-artifacts/browser-teach-askew-390.png."""
    url, _ = ledger_url
    page.goto(f"{url}?table=0702&script=simplified")
    to_teach_page(page)
    settle(page)
    upload(page, "一排.jpg", (ROOT / "tests" / "data" / "askew" / "row-at-37-degrees.jpg").read_bytes())
    expect(page.get_by_text(re.compile(r"找到 2[01] 张牌"))).to_be_visible(timeout=SLOW)
    settle(page)
    screenshot(page, "browser-teach-askew-390.png")
    assert page.get_by_test_id("stException").count() == 0


def test_a_lesson_given_on_another_phone_is_seen_without_a_tap(page, ledger_url):
    """A phone left alone asked for the lesson (这副牌还没教过) minutes after another phone gave it, until the next hand
    was recorded: it watches the table's memory as it watches its hands (`ui.table_desk._watch`, every 3 s)."""
    url, db = ledger_url
    page.goto(f"{url}?table=0703&script=simplified")
    ask = page.get_by_text("这副牌还没教过", exact=False)
    expect(ask).to_be_visible(timeout=SLOW)
    settle(page)
    classifier = TileDetector().classifier  # what the other phone teaches: one flower of a committed sample
    memory = TableMemory.for_classifier(classifier)
    memory.teach(classifier, load_photo(FLOWERED.read_bytes()), laid_out(HAND)[0].boxes[:1], ["1f"])
    Ledger(db).change_memory("0703", lambda _: memory.to_bytes())
    expect(ask).to_have_count(0, timeout=SLOW)
    expect(page.get_by_role("button", name="先教认这副牌的花")).to_have_count(0)
    assert page.get_by_test_id("stException").count() == 0
