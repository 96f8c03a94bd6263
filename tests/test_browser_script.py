"""The page's words and tap targets in the real browser (tests/test_browser.py: Debian's Chromium at
390x844, a real Streamlit server), in each script, with a table open, a hand recorded and a photo
uploaded, every expander open, the chart's and a help icon's tooltips shown:

- no text on the screen, and no aria-label, title, placeholder or alt, holds a Latin word beyond
  those a player writes too (`ALLOWED`); in 简体 no traditional character either (OpenCC judges, with Taiwan's
  forms it keeps: tests/test_app_script.py's `traditional_in`);
- every radio, checkbox, pill and button is at least 44 px tall (a fingertip);
- the script chosen is in the page's address beside `?table=` and survives a reload.

Screenshots: test-artifacts/browser-script-<script>-390.png.
"""

import os
import re
import textwrap

import pytest
from playwright.sync_api import expect

import tests.test_browser as in_browser
from scoring.ruleset import DEFAULT_RULESET
from scoring.script import in_script
from tests.example_hands import HAND, TYPED
from tests.test_app_script import traditional_in
from tests.test_browser import (
    ROOT,
    SLOW,
    TEXT_BOX,
    fake_detector_app,
    say_who_won,
    screenshot,
    serve,
    table_photo,
    upload,
)
from ui.text import SCRIPT_LABELS, SCRIPTS, ruleset_label

# its fixtures: Chromium, a phone's page in it, the app served
browser, page, app_url = in_browser.browser, in_browser.page, in_browser.app_url

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Latin words a Chinese-reading player meets on the page as they are: tile codes (1m … 8f, and the
# x drawn on a removed tile's box), file types (the history's downloads among them), a file's size unit,
# the phone's own name for its photos, the program's name, and the setting a host types to choose the
# data folder.
ALLOWED = {"m", "p", "s", "z", "f", "x", "jpg", "jpeg", "png", "webp", "heic", "heif", "csv", "json", "svg", "kb", "mb",
           "iphone", "taishu", "taishu_dataset_root"}
URL = re.compile(r"https?://\S*")
SMALLEST = 44  # px

# Every text node a player can see (not icons drawn by a font, not <noscript>, <style>, <script>),
# each selectbox's choice, and every attribute a screen reader or a hover shows.
PAGE_WORDS = """() => {
  const out = [];
  const skip = "noscript, style, script, [aria-hidden=true], [data-testid=stIconMaterial]";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement, text = n.nodeValue.trim();
    if (!text || el.closest(skip)) continue;
    const box = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (box.width > 0 && box.height > 0 && style.visibility !== "hidden") out.push(text);
  }
  // A selectbox shows its choice as the value of its input.
  for (const input of document.querySelectorAll("[data-testid=stSelectbox] input")) out.push(input.value);
  for (const el of document.querySelectorAll("*"))
    for (const name of ["aria-label", "title", "placeholder", "alt", "aria-description"])
      if (el.getAttribute(name)) out.push(el.getAttribute(name));
  return out;
}"""

# Each radio, checkbox, pill and button on the screen with its height.
TARGETS = """() => Array.from(document.querySelectorAll(
    '[data-testid=stRadio] [role=radiogroup] label, [data-testid=stCheckbox] label, button'))
  .map(el => [el, el.getBoundingClientRect()])
  .filter(([el, box]) => box.width > 0 && box.height > 0)
  .map(([el, box]) => [el.closest('[data-testid]')?.dataset.testid || el.tagName,
                       el.getAttribute('aria-label') || el.innerText.slice(0, 20), Math.round(box.height)])"""


def latin_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[A-Za-z][A-Za-z_]*", URL.sub(" ", text)) if w.lower() not in ALLOWED}


@pytest.fixture(scope="module")
def evening_url(tmp_path_factory):
    """The app with the stand-in detector (every photo shows HAND) and a ledger file of its own."""
    folder = tmp_path_factory.mktemp("script")
    yield from serve(fake_detector_app(folder, HAND), folder / "app.log",
                     env={**os.environ, "TAISHU_DB": str(folder / "taishu.db")})


def hover_until_shown(page, target, shown) -> None:
    """Rest the mouse on `target` until `shown` is on the screen. A rerun or an expander still
    opening can move the target from under a resting mouse, so the mouse leaves and comes back."""
    for _ in range(5):
        page.mouse.move(0, 0)
        target.scroll_into_view_if_needed()
        box = target.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        try:
            expect(shown).to_be_visible(timeout=3_000)
            return
        except AssertionError:
            in_browser.settle(page)
    expect(shown).to_be_visible(timeout=SLOW)


def show_everything(page) -> None:
    """Every expander open, the chart's tooltip and a help icon's tooltip on the screen. The page is let finish its
    run first: an expander tapped while the run still draws may be drawn again, and one open tapped shut."""
    in_browser.settle(page)
    for summary in page.locator("[data-testid=stExpander] summary").all():
        if not summary.evaluate("s => s.parentElement.open"):
            summary.click()
    in_browser.settle(page)
    hover_until_shown(page, page.locator("[data-testid=stVegaLiteChart] g.mark-symbol.role-mark path").last,
                      page.locator("#vg-tooltip-element"))  # the last point: not the legend's
    hover_until_shown(page,
                      page.locator("[data-testid=stTooltipIcon] [data-testid=stTooltipHoverTarget]:visible").first,
                      page.get_by_test_id("stTooltipContent"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_page_speaks_the_players_script_and_fits_a_finger(page, evening_url, script):
    def t(text: str) -> str:
        return in_script(text, script)

    other = next(s for s in SCRIPTS if s != script)
    code = f"{SCRIPTS.index(script) + 1}001"  # a table of digits: the player's own code, no word
    page.goto(f"{evening_url}?table={code}" + ("&script=simplified" if other == "simplified" else ""))
    expect(page.get_by_role("radio", name=SCRIPT_LABELS[other])).to_be_checked(timeout=SLOW)
    page.get_by_text(SCRIPT_LABELS[script], exact=True).click()  # the player's choice …
    expect(page.get_by_text(t("拍下胡牌：讀出手牌、算台數、算誰付多少。"))).to_be_visible(timeout=SLOW)
    expect(page).to_have_url(re.compile(rf"[?&]table={code}\b"))  # … written beside the table
    if script == "simplified":
        expect(page).to_have_url(re.compile(r"[?&]script=simplified\b"))
    else:
        expect(page).not_to_have_url(re.compile(r"script="))  # the default leaves the address short

    box = page.get_by_role("textbox", name=t(TEXT_BOX))
    box.fill(TYPED)
    box.press("Enter")
    say_who_won(page, script=script)
    page.get_by_role("button", name=t("胡了，記下這一局")).click()
    expect(page.get_by_text(t("第 1 局記好了"), exact=False)).to_be_visible(timeout=SLOW)
    upload(page, "胡牌.jpg", table_photo())
    expect(page.get_by_text(t("讀到 18 張牌"), exact=False)).to_be_visible(timeout=SLOW)
    show_everything(page)
    # 規則 shows the table by its name in this script: the choice made in the other one is kept
    for choice in page.get_by_test_id("stSelectbox").filter(has_text=t("台數規則")).all():
        expect(choice.locator("input")).to_have_value(ruleset_label(DEFAULT_RULESET, script))

    shown = page.evaluate(PAGE_WORDS)
    assert any(t("誰付多少") in text for text in shown) and any(t("累計") in text for text in shown)
    english = {text: sorted(latin_words(text)) for text in shown if latin_words(text)}
    assert not english, english
    if script == "simplified":  # 繁體 is the other choice, named in its own script
        left = {text: sorted(traditional_in(text)) for text in shown if traditional_in(text)
                and text != SCRIPT_LABELS["traditional"]}
        assert not left, left
    small = [target for target in page.evaluate(TARGETS) if target[2] < SMALLEST]
    assert not small, small
    screenshot(page, f"browser-script-{script}-390.png")

    page.reload()  # the script and the table are in the address, the evening in the ledger
    expect(page.get_by_role("radio", name=SCRIPT_LABELS[script])).to_be_checked(timeout=SLOW)
    expect(page.get_by_text(t("拍下胡牌：讀出手牌、算台數、算誰付多少。"))).to_be_visible(timeout=SLOW)
    expect(page.get_by_text(t(f"⑥ 整晚的帳（牌桌 {code}）"))).to_be_visible(timeout=SLOW)
    assert page.get_by_test_id("stException").count() == 0


# Streamlit's own words that come and go: the running status, an error box, a lost server.
FRAME_APP = """
import sys, time
sys.path.insert(0, {root!r})
import streamlit as st
from ui.chrome import page_script

page_script()
if st.button("慢"):
    time.sleep(5)
if st.button("錯"):
    raise RuntimeError("boom")
"""


@pytest.fixture
def frame_server(tmp_path):
    """A page of the app's chrome alone, its server stopped by calling the function given."""
    app = tmp_path / "frame.py"
    app.write_text(textwrap.dedent(FRAME_APP).format(root=str(ROOT)))
    server = serve(app, tmp_path / "frame.log")
    yield next(server), server.close


@pytest.mark.parametrize("script", SCRIPTS)
def test_streamlits_passing_words_are_the_players_too(page, frame_server, script):
    def t(text: str) -> str:
        return in_script(text, script)

    url, stop = frame_server
    page.goto(f"{url}?script={script}")
    page.get_by_role("button", name="慢").click()
    status = page.get_by_test_id("stStatusWidget")
    expect(status.get_by_role("img", name=t("計算中…"))).to_be_visible(timeout=SLOW)
    expect(status.get_by_role("button", name=t("停止"))).to_be_visible()
    assert not latin_words(status.inner_text()), status.inner_text()
    expect(status).to_be_hidden(timeout=SLOW)

    page.get_by_role("button", name="錯").click()
    error = page.get_by_test_id("stException")
    expect(error).to_contain_text(t("出了問題，這一步沒有做完"), timeout=SLOW)
    assert not latin_words(error.inner_text()), error.inner_text()

    stop()  # the server is gone: the page says so in the player's words
    expect(page.get_by_role("dialog")).to_contain_text(t("連不上伺服器"), timeout=90_000)
    shown = page.evaluate(PAGE_WORDS)
    assert not {text: sorted(latin_words(text)) for text in shown if latin_words(text)}


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_photo_too_big_to_upload_is_said_on_the_page_in_the_players_script(page, app_url, script, tmp_path):
    """Streamlit says why it refused a file only in a tooltip shown on hover and in a 1 px alert for screen
    readers that starts with the English "Error:"."""
    big = tmp_path / "胡牌.jpg"
    with big.open("wb") as fh:
        fh.truncate(51 << 20)  # sparse: over the 50 MB the server takes (.streamlit/config.toml)
    page.goto(f"{app_url}?script={script}")
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(big)
    said = page.get_by_test_id("stFileChip").get_by_role("alert")
    expect(said).to_have_text(re.compile(in_script(r"^上傳失敗：\s*檔案不能超過 50(\.0)?\s?MB。$", script)),
                              timeout=SLOW)
    box = said.bounding_box()
    assert box["width"] > 100 and box["height"] > 10, box  # on the page for everyone to read
    screenshot(page, f"browser-too-big-{script}-390.png")
