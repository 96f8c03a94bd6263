"""The app in a real browser: `streamlit run` on a free localhost port, driven by Playwright in
Debian's Chromium at a phone's viewport. Screenshots go to test-artifacts/.

Without /usr/bin/chromium these tests skip, except in CI (env CI set), where `.ci/run` installs it
and its absence is a failure. The photo test runs the app with a stand-in detector (the committed
model is not needed); `test_real_model_photo` uses the real one when models/model.json exists.
"""

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

from ledger import Ledger, win
from scoring.draft import from_hand
from scoring.hand import Hand, Situation
from scoring.payout import Deal, Result, judge, seat_hand
from scoring.script import in_script
from scoring.seats import Seat, Wind
from tests.example_hands import HAND, TYPED
from tests.fake_detections import laid_out
from ui.result import evaluate
from ui.widgets import MARKS
from vision.photo import load_photo, turned_level

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
# What the app shows for HAND once the players say 東家 self-drew: 東家 deals, 底 100, 每台 20.
DEFAULTS = (Situation(), Result(Deal(), Seat.E), 100, 20, False, "tw16-2026.09-p0")
TEXT_BOX = "或用文字輸入手牌"
SLOW = 30_000  # ms

# Runs app.py with `TileDetector` replaced by one that finds HAND laid out (tests/fake_detections.py).
FAKE_DETECTOR_APP = """
import runpy, sys
sys.path.insert(0, {root!r})
import vision.detector
from scoring.hand import Hand
from tests.fake_detections import laid_out

class FakeDetector:
    def read(self, image):
        return laid_out(Hand.from_json({hand!r}))[0]{tweak}

vision.detector.TileDetector = FakeDetector
runpy.run_path({app!r}, run_name="__main__")
"""


def total_of(hand: Hand) -> str:
    return f"{evaluate(from_hand(hand), *DEFAULTS).score.total} 台"


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing in CI (.ci/run installs Debian's chromium)")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_streamlit(script: Path, port: int, log: Path, env: dict | None = None) -> subprocess.Popen:
    """`streamlit run script` on `port` (with `env`, else ours), once the server answers."""
    cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 90
    while True:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"streamlit did not start: {log.read_text()[-2000:]}") from None
            time.sleep(0.3)


def serve(script: Path, log: Path, env: dict | None = None):
    """`streamlit run script` on a free port; yields the URL once the server answers."""
    port = free_port()
    proc = start_streamlit(script, port, log, env)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def fake_detector_app(folder: Path, hand: Hand, tweak: str = "") -> Path:
    """app.py run with `TileDetector` replaced by one that finds `hand` laid out (`tweak`: more code)."""
    script = folder / "app_with_fake_detector.py"
    script.write_text(textwrap.dedent(FAKE_DETECTOR_APP).format(
        root=str(ROOT), app=str(ROOT / "app.py"), hand=hand.to_json(), tweak=tweak))
    return script


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    yield from serve(ROOT / "app.py", tmp_path_factory.mktemp("streamlit") / "app.log")


@pytest.fixture(scope="module")
def fake_detector_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fake-detector")
    yield from serve(fake_detector_app(folder, HAND), folder / "app.log")


# A concealed kong shown as four backs, a face-down tile and a missed one (tests/test_app.py has the
# same reading): the kong's tiles stay for the player to name.
FACE_DOWN_HAND = Hand.from_json({**HAND.to_json(), "concealed": list(HAND.concealed[:-3]),
                                 "melds": [*HAND.to_json()["melds"], {"type": "ankong", "tiles": ["9s"] * 4}]})
FACE_DOWN = """

def face_down(hand):
    from tests.fake_detections import one_hot
    from vision.detections import Detections
    dets, codes = laid_out(hand, face_down=True)
    codes[0] = "back"
    return Detections(dets.boxes[[0, *range(2, len(codes))]], one_hot(codes[:1] + codes[2:]))

FakeDetector.read = lambda self, image: face_down(Hand.from_json({hand!r}))
"""


@pytest.fixture(scope="module")
def face_down_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("face-down")
    script = folder / "app_with_face_down_tiles.py"
    script.write_text(textwrap.dedent(FAKE_DETECTOR_APP).format(
        root=str(ROOT), app=str(ROOT / "app.py"), hand=FACE_DOWN_HAND.to_json(),
        tweak=FACE_DOWN.format(hand=FACE_DOWN_HAND.to_json())))
    yield from serve(script, folder / "app.log")


# The reader finds the hand among other tiles (tests/fake_detections.py `reading_at_a_table`, as in
# tests/test_app.py): 九萬, 東風 and a back set apart, 五萬 added, two runner-ups.
AT_A_TABLE = """

import vision.read
from tests.fake_detections import reading_at_a_table

vision.read.read_photo = lambda image, detector, rules=None, memory=None: reading_at_a_table(
    Hand.from_json({hand!r}), 4, ["9m", "1z", "back"], {{9: "5s"}})
"""


@pytest.fixture(scope="module")
def at_a_table_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("at-a-table")
    script = folder / "app_reading_a_table.py"
    script.write_text(textwrap.dedent(FAKE_DETECTOR_APP).format(
        root=str(ROOT), app=str(ROOT / "app.py"), hand=HAND.to_json(), tweak=AT_A_TABLE.format(hand=HAND.to_json())))
    yield from serve(script, folder / "app.log")


@pytest.fixture(scope="module")
def ledger_url(tmp_path_factory):
    """The app with its ledger file in a folder of its own: (URL, ledger path)."""
    folder = tmp_path_factory.mktemp("ledger")
    db = folder / "taishu.db"
    for url in serve(ROOT / "app.py", folder / "app.log", env={**os.environ, "TAISHU_DB": str(db)}):
        yield url, db


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=PHONE, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(30_000)
    from playwright.sync_api import expect

    expect.set_options(timeout=30_000)  # a busy 2-core machine takes more than the default 5 s to read
    yield page
    context.close()


def screenshot(page, name: str) -> None:
    """The whole page at the phone's width (Streamlit scrolls inside the page, so grow the viewport)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": PHONE["width"], "height": 8000})
    bottom, last = 0, -1
    while bottom != last:  # until the page has settled at the new size
        page.wait_for_timeout(700)
        last, bottom = bottom, page.evaluate(
            "Math.max(...Array.from(document.querySelectorAll('[data-testid=stMainBlockContainer] *'),"
            " e => e.getBoundingClientRect().bottom))")
    page.screenshot(path=str(ARTIFACTS / name), clip={"x": 0, "y": 0, "width": PHONE["width"], "height": bottom + 40})
    page.set_viewport_size(PHONE)


def settle(page) -> None:
    """Until the script's run is over and nothing on the page is stale (drawn by an older run).
    A tap reaches the server a moment after the click: that moment is waited for first."""
    page.wait_for_timeout(500)
    drawn(page)


def drawn(page) -> None:
    """Until the script's run is over and nothing on the page is stale: a run under way (another phone's line
    seen) still shows the old elements beside the new ones."""
    page.wait_for_function(
        "() => { const app = document.querySelector('[data-testid=stApp]');"
        " return app && app.getAttribute('data-test-script-state') === 'notRunning'"
        " && !document.querySelector('[data-stale=true]'); }", timeout=SLOW)


def unfold(page, label: str) -> None:
    """The expander whose label has `label` opened, where it is folded."""
    drawn(page)
    summary = page.locator("[data-testid=stExpander] summary").filter(has_text=label)
    if not summary.evaluate("s => s.parentElement.open"):
        summary.click()
        settle(page)


# One snapshot of the table whose header has a column named `column`: its header and rows, cell by cell, or null
# while a run is under way (another phone's line seen, or a fragment's rerun) or the table is not there once.
TABLE_NOW = """column => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return null;
  if (document.querySelector('[data-stale=true]')) return null;
  const tables = [...document.querySelectorAll('[data-testid=stTable]')]
    .filter(t => [...t.querySelectorAll('thead th')].some(th => th.innerText.trim() === column));
  if (tables.length !== 1) return null;
  const cells = row => [...row.cells].map(c => c.innerText.trim());
  const [table] = tables;
  return {header: cells(table.querySelector('thead tr')), rows: [...table.querySelectorAll('tbody tr')].map(cells)};
}"""


def table_rows(page, column: str, timeout: float = SLOW) -> list[dict[str, str]]:
    """The rows of the one table that has a column `column`, each by its columns' names, read at one moment when the
    page is drawn: read in pieces, a rerun between them could pair one table's header with another's rows."""
    table = page.wait_for_function(TABLE_NOW, arg=column, timeout=timeout).json_value()
    return [dict(zip(table["header"], row, strict=True)) for row in table["rows"]]


def choose(page, label: str, option: str) -> None:
    """Tap `option` in the choice labelled `label` (an option may carry a player's name), and see it chosen."""
    from playwright.sync_api import expect

    settle(page)
    group = page.get_by_test_id("stButtonGroup").filter(has=page.get_by_text(label, exact=True))
    pattern = re.compile(rf"^{re.escape(option)}$" if " " in option else rf"^{re.escape(option)}( [^ ]+)?$")
    expect(group).to_have_count(1, timeout=SLOW)  # a choice whose options changed is drawn anew: the old one goes
    group.get_by_text(pattern).click()
    settle(page)
    expect(group).to_have_count(1, timeout=SLOW)
    expect(group.get_by_role("radio", checked=True)).to_have_accessible_name(pattern, timeout=SLOW)


def say_who_won(page, winner: str = "東家", how: str = "自摸", script: str = "traditional") -> None:
    """No one has won until the players say who (the page names no winner by itself): in `script`."""
    choose(page, in_script("誰胡了", script), in_script(winner, script))
    choose(page, in_script("怎麼胡", script), in_script(how, script))


def tile_row(page, label: str):
    """The row of tiles labelled `label` (by its label: 手牌 is an option of 點牌加到 too)."""
    return page.get_by_test_id("stButtonGroup").filter(
        has=page.get_by_test_id("stWidgetLabel").get_by_text(label, exact=True))


def type_hand(page, text: str) -> None:
    box = page.get_by_role("textbox", name=TEXT_BOX)
    box.fill(text)
    box.press("Enter")


def upload(page, name: str, data: bytes, mime: str = "image/jpeg") -> None:
    """Into the page's uploader: the one there is once a run is over (a recorded hand draws a new,
    empty one in place of the old)."""
    from playwright.sync_api import expect

    drawn(page)  # a file set into the old uploader while a run draws the new one is lost
    uploader = page.get_by_test_id("stFileUploaderDropzoneInput")
    expect(uploader).to_have_count(1)
    uploader.set_input_files(files=[{"name": name, "mimeType": mime, "buffer": data}])


def table_photo() -> bytes:
    """A green table with HAND's tiles drawn where the stand-in detector will find them."""
    image = np.full((700, 1200, 3), (60, 110, 40), np.uint8)
    dets, codes = laid_out(HAND)
    for (x0, y0, x1, y1), code in zip(dets.boxes.astype(int), codes, strict=True):
        cv2.rectangle(image, (x0, y0), (x1, y1), (235, 240, 240), -1)
        cv2.putText(image, code, (x0 + 3, y1 - 14), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (30, 30, 30), 1)
    return cv2.imencode(".jpg", image)[1].tobytes()


def test_typed_hand_shows_the_total_on_a_phone(page, app_url):
    from playwright.sync_api import expect

    page.goto(app_url)
    type_hand(page, TYPED)
    expect(page.get_by_text("選出誰胡了").first).to_be_visible()  # no one is paid before the players say who won
    expect(page.get_by_text("誰付多少", exact=True)).to_have_count(0)
    say_who_won(page)
    expect(page.get_by_test_id("stMetricValue")).to_have_text(total_of(HAND))
    expect(page.get_by_text("誰付多少", exact=True)).to_be_visible()
    page.get_by_text("圈風、連莊、海底、槓上、聽牌、天地胡、底與每台").click()  # folded until asked for
    page.get_by_text("海底／河底（最後一張）").scroll_into_view_if_needed()  # fixing the situation, far down
    summary = page.locator(".st-key-summary")
    box = summary.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"], box  # the 台 and money still in view
    assert summary.inner_text().startswith(total_of(HAND))
    screenshot(page, "browser-typed-hand-390.png")

    page.get_by_text("北家 放槍").click()  # off 北家's discard: 北家 alone pays
    expect(page.get_by_test_id("stTable").nth(1).locator("tbody tr")).to_have_count(1)
    page.get_by_text("简体").click()  # the same result in simplified characters, the choices kept
    expect(page.get_by_test_id("stMetricLabel")).to_have_text("合计")
    expect(page.get_by_role("radio", name="北家 放枪")).to_be_checked()
    expect(page.get_by_role("radio", name="东家", exact=True).first).to_be_checked()
    expect(page.get_by_test_id("stTable").nth(1)).to_contain_text("北家")


def test_a_tap_on_one_of_equal_tiles_takes_that_tile(page, app_url):
    """Equal tiles differ unseen (`ui.widgets.distinct`): Streamlit maps a tapped pill back by its label, and
    with equal labels a tap on the first of three took the last."""
    from playwright.sync_api import expect

    page.goto(app_url)
    type_hand(page, "1111m 234p 567s 789s 11z 和1z")
    settle(page)
    pills = tile_row(page, "手牌").locator("button")
    expect(pills).to_have_count(15)
    assert [re.sub(f"[{MARKS}]", "", p) for p in pills.all_inner_texts()[:4]] == ["一萬"] * 4
    for k in range(4):  # as a screen reader says them
        expect(pills.nth(k)).to_have_accessible_name("一萬")
    pills.nth(2).click()
    settle(page)
    expect(pills.nth(2)).to_have_attribute("aria-checked", "true")
    assert [p.get_attribute("aria-checked") for p in pills.all()].count("true") == 1
    # the selected 一萬 and the three beside it, taken out as a kong in one tap; no chi (no 二萬, 三萬)
    for kind in ("碰", "明槓", "暗槓"):
        expect(page.get_by_role("button", name=f"拿出來當{kind}", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="拿出來當吃", exact=True)).to_have_count(0)
    screenshot(page, "tile-selected-390.png")
    page.get_by_role("button", name="拿出來當暗槓", exact=True).click()
    settle(page)
    expect(tile_row(page, "手牌").locator("button")).to_have_count(11)
    expect(page.get_by_text("副露 1（暗槓）").first).to_be_visible()


def test_a_broken_upload_gets_a_message_and_keeps_the_hand(page, app_url):
    from playwright.sync_api import expect

    page.goto(app_url)
    type_hand(page, TYPED)
    say_who_won(page)
    expect(page.get_by_test_id("stMetricValue")).to_have_text(total_of(HAND))
    upload(page, "hand.jpg", b"this is not a photo")
    expect(page.get_by_text("這個檔案不能當照片讀")).to_be_visible()
    expect(page.get_by_test_id("stMetricValue")).to_have_text(total_of(HAND))
    assert page.get_by_test_id("stException").count() == 0


def test_uploaded_photo_is_read_and_scored(page, fake_detector_url):
    from playwright.sync_api import expect

    page.goto(fake_detector_url)
    upload(page, "hand.jpg", table_photo())
    expect(page.get_by_text("讀到 18 張牌")).to_be_visible()
    say_who_won(page)
    expect(page.get_by_test_id("stMetricValue")).to_have_text(total_of(HAND))
    screenshot(page, "browser-photo-390.png")
    assert page.get_by_test_id("stException").count() == 0


def test_a_reload_gives_back_the_hand_with_its_photo(page, fake_detector_url):
    """The page reloaded in the middle of a hand (a phone reopening it after the Wi-Fi dropped): the photo, its
    reading and who won come back (ui/resume.py), by the phone's id the page wrote into its address."""
    from playwright.sync_api import expect

    page.goto(fake_detector_url)
    upload(page, "hand.jpg", table_photo())
    say_who_won(page, "南家", "西家 放槍")
    total = page.get_by_test_id("stMetricValue")
    expect(total).to_have_text(re.compile(r"\d+ 台"))
    shown = total.inner_text()
    expect(page).to_have_url(re.compile(r"[?&]phone=[0-9a-f]{16}\b"))
    page.reload()
    expect(page.get_by_text("接著剛才的這一手", exact=False)).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("讀到 18 張牌")).to_be_visible(timeout=SLOW)
    expect(total).to_have_text(shown, timeout=SLOW)
    expect(page.get_by_role("radio", name="西家 放槍")).to_be_checked()
    assert page.get_by_test_id("stException").count() == 0


@pytest.mark.skipif(not (ROOT / "models" / "model.json").exists(), reason="no committed model (models/model.json)")
def test_real_model_photo(page, app_url):
    from playwright.sync_api import expect

    sample = ROOT / "tests" / "data" / "samples" / "train-style-000009"  # committed, with its truth
    hand = Hand.from_json(json.loads(sample.with_suffix(".json").read_text())["hand"])
    page.goto(app_url)
    say_who_won(page)
    upload(page, "sample.jpg", sample.with_suffix(".jpg").read_bytes())
    expect(page.get_by_test_id("stMetricValue")).to_have_text(total_of(hand), timeout=120_000)
    screenshot(page, "browser-real-model-390.png")


def test_a_photo_taken_from_too_far_says_to_take_the_next_one_closer(page, app_url):
    """A committed sample at half its size (its tiles 12 px): the hand is read and scored, and the advice stands
    beside the photo."""
    from playwright.sync_api import expect

    sample = cv2.imread(str(ROOT / "tests" / "data" / "samples" / "train-style-000000.jpg"))
    far = cv2.imencode(".jpg", cv2.resize(sample, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))[1].tobytes()
    page.goto(app_url)
    say_who_won(page)
    upload(page, "far.jpg", far)
    expect(page.get_by_test_id("stMetricValue")).to_have_count(1, timeout=120_000)
    expect(page.get_by_text("下一張靠近一點拍")).to_be_visible()
    screenshot(page, "browser-too-far-390.png")


@pytest.mark.parametrize("angle", [35.0, -60.0])
def test_real_model_photo_taken_askew(page, app_url, angle):
    """A phone's 12 MP photo of the hand held at 35 degrees, or at -60 (its rows nearer plumb than level: read
    turned by their angle modulo 90 alone, it gave a legal hand of wrong tiles): read turned level, the same 台 as
    upright, and the boxes drawn on the photo as the player took it (see the screenshots)."""
    from playwright.sync_api import expect

    sample = ROOT / "tests" / "data" / "samples" / "train-style-000009"
    hand = Hand.from_json(json.loads(sample.with_suffix(".json").read_text())["hand"])
    phone = cv2.resize(load_photo(sample.with_suffix(".jpg")), (4032, 3024), interpolation=cv2.INTER_CUBIC)
    askew = cv2.resize(turned_level(phone, angle), (4032, 3024))
    page.goto(app_url)
    say_who_won(page)
    upload(page, "askew.jpg", cv2.imencode(".jpg", askew, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
    expect(page.get_by_test_id("stMetricValue")).to_have_text(total_of(hand), timeout=120_000)
    screenshot(page, f"browser-real-model-askew{angle:+.0f}-390.png")


def test_the_ledger_survives_a_reload_and_reaches_a_second_phone(page, browser, ledger_url):
    from playwright.sync_api import expect

    url, db = ledger_url  # several page loads and runs: waits are long enough for a busy 2-core machine
    page.goto(f"{url}?table=evening")
    expect(page.get_by_text("牌桌 evening · 第 1 局 · 東風圈 · 莊家 東家")).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("還沒有記任何一局。")).to_be_visible(timeout=SLOW)  # the bottom: the page is drawn
    type_hand(page, TYPED)
    say_who_won(page)
    expect(page.get_by_test_id("stMetricValue")).to_have_text(total_of(HAND), timeout=SLOW)
    page.get_by_role("button", name="胡了，記下這一局").click()
    expect(page.get_by_text("第 1 局記好了")).to_be_visible(timeout=SLOW)
    next_deal = page.get_by_text("牌桌 evening · 第 2 局 · 東風圈 · 莊家 東家 · 連莊 1")
    expect(next_deal).to_be_visible(timeout=SLOW)

    page.reload()  # nothing lives only in the page
    expect(next_deal).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("⑥ 整晚的帳（牌桌 evening）")).to_be_visible(timeout=SLOW)
    expect(page.get_by_test_id("stTable").filter(has_text="東家 自摸")).to_be_visible(timeout=SLOW)  # hand 1 kept
    page.get_by_text("邀請同桌的手機、牌桌設定").click()
    expect(page.get_by_text(f"{url}?table=evening")).to_be_visible(timeout=SLOW)  # the link the QR code holds
    expect(page.get_by_test_id("stImage").first).to_be_visible(timeout=SLOW)
    screenshot(page, "browser-ledger-390.png")
    assert page.get_by_test_id("stException").count() == 0

    context = browser.new_context(viewport=PHONE, device_scale_factor=1)  # another phone at the table
    try:
        other = context.new_page()
        other.goto(f"{url}?table=evening")
        expect(other.get_by_text("牌桌 evening · 第 2 局 · 東風圈 · 莊家 東家 · 連莊 1")).to_be_visible(timeout=SLOW)
        type_hand(page, TYPED)  # the first phone records hand 2; the second, left alone, shows it
        say_who_won(page, "南家")
        page.get_by_role("button", name="胡了，記下這一局").click()
        expect(page.get_by_text("第 2 局記好了")).to_be_visible(timeout=SLOW)
        expect(other.get_by_text("牌桌 evening · 第 3 局 · 東風圈 · 莊家 南家")).to_be_visible(timeout=SLOW)
        # the evening's hands (the players' figures across evenings are a table of their own below it)
        expect(other.get_by_test_id("stTable").filter(has_text="南家 自摸")).to_be_visible(timeout=SLOW)
        screenshot(other, "browser-ledger-second-phone-390.png")
    finally:
        context.close()
    assert [h.line.winner for h in Ledger(db).hands("evening")] == [Seat.E, Seat.S]

# How many lines each heading and cell of the evening's hands takes (the table with a 連莊 in it: the players'
# figures across evenings are a table of their own).
# Each cell of the last table that has the text given, with the lines it takes.
CELL_LINES = """(has) => [...[...document.querySelectorAll('[data-testid=stTable]')]
  .filter(t => t.innerText.includes(has)).pop().querySelectorAll('th p, td p')]
  .map(p => { const r = document.createRange(); r.selectNodeContents(p);
              return [p.innerText, new Set([...r.getClientRects()].map(x => Math.round(x.top))).size]; })"""


def test_the_evenings_hands_break_lines_between_words_only(page, ledger_url):
    """At 390 px with the players' names, the hands' 莊家 column stood one character a line (莊/家, 東/家/連1), and so
    did each player's figures (東/家/阿/明, 最大/一手)."""
    from playwright.sync_api import expect

    url, db = ledger_url
    book = Ledger(db)
    book.open_table("names")
    book.update_table("names", ("阿明", "阿華", "小美", "老王"), Seat.E, 100, 20, DEFAULTS[-1])
    for seq, result in enumerate([Result(Deal(), Seat.E), Result(Deal(Wind.E, Seat.E, 1), Seat.S, Seat.W)], 1):
        book.record("names", win(judge(seat_hand(HAND, result, 100, 20), result), None), seq)
    page.goto(f"{url}?table=names")
    expect(page.get_by_test_id("stTable").filter(has_text="東家 連1")).to_be_visible(timeout=SLOW)  # the hands
    cells = page.evaluate(CELL_LINES, "連1")
    assert ["莊家", 1] in cells and ["東家", 1] in cells
    broken = [(text, lines) for text, lines in cells if lines > len(text.split())]
    assert not broken, broken
    screenshot(page, "browser-ledger-hands-390.png")
    # each player's figures across the evenings: by name (a seat is tonight's), every word whole
    page.locator("[data-testid=stExpander] summary").filter(has_text="匯出、結束這一晚").click()
    expect(page.get_by_test_id("stTable").filter(has_text="放槍")).to_be_visible(timeout=SLOW)
    cells = page.evaluate(CELL_LINES, "放槍")
    assert ["阿明", 1] in cells and ["最大一手", 1] in cells
    broken = [(text, lines) for text, lines in cells if lines > max(1, len(text.split()))]  # an empty cell: 1
    assert not broken, broken
    screenshot(page, "browser-ledger-figures-390.png")


def test_face_down_tiles_are_shown_as_tiles_to_name(page, face_down_url):
    """The page used to break below ② on any `back` in a reading (no 台, no save button)."""
    from playwright.sync_api import expect

    page.goto(face_down_url)
    upload(page, "hand.jpg", table_photo())
    unknown = page.get_by_role("radio", name="？", exact=True)  # a tile in the hand is a pill
    expect(unknown).to_have_count(4)  # the four of the concealed kong: its face is the player's to name
    page.get_by_text("⑤ 存成訓練資料").click()  # folded until asked for
    expect(page.get_by_role("button", name="把這張照片加入我的資料集")).to_be_visible()
    unknown.nth(1).click()  # a tile of the concealed kong: naming one names all four
    page.get_by_role("radio", name="九條", exact=True).last.click()  # in the picker
    expect(page.get_by_role("radio", name="？", exact=True)).to_have_count(0)
    # the kong and the picker (folded away once the tile is named)
    expect(page.get_by_role("radio", name="九條", exact=True, include_hidden=True)).to_have_count(5)
    screenshot(page, "browser-face-down-390.png")
    assert page.get_by_test_id("stException").count() == 0


def test_tiles_set_apart_and_a_runner_up_are_one_tap_each(page, at_a_table_url):
    from playwright.sync_api import expect

    page.goto(at_a_table_url)
    say_who_won(page)
    upload(page, "hand.jpg", table_photo())
    expect(page.get_by_test_id("stMetricValue")).to_have_text(total_of(HAND))  # 五萬 added, the rest left apart
    nine = page.get_by_role("radio", name="九萬", exact=True, include_hidden=True)
    expect(nine).to_have_count(2)  # set apart, and in the tile picker (folded away)
    nine.first.click()  # pulled into the hand: the hand is no win now
    expect(page.get_by_text("這手牌不能算")).to_be_visible()
    expect(nine).to_have_count(1)
    page.get_by_text("照片的其他讀法（2）").click()  # folded until asked for
    page.get_by_role("button", name="2 台（-1）：梅不算").click()  # the whole draft replaced
    expect(page.get_by_test_id("stMetricValue")).to_have_text(total_of(HAND.replace(flowers=())))
    # set apart now, and in the picker (folded away)
    expect(page.get_by_role("radio", name="梅", exact=True, include_hidden=True)).to_have_count(2)
    screenshot(page, "browser-at-a-table-390.png")
    assert page.get_by_test_id("stException").count() == 0


# -- a photo hand at a table on a phone, measured: the taps from the photo to the hand recorded, the page's height
# with the photo read, how far below the photo the record button sits, and the 台 and payments in view while a tile
# is fixed. The figures are printed (-s); the screenshots are test-artifacts/phone-*.png (docs/images/ keeps some).
MAX_TAPS = 6  # a photo hand read right, from choosing the photo to the hand recorded
SCREENS = 2  # the record button within this many screen heights of the photo's top
RECORD = "胡了，記下這一局"

# The page's height: the bottom of its lowest element in the scrolled main block (Streamlit scrolls inside the page).
HEIGHT = """() => { const top = document.querySelector('[data-testid=stMainBlockContainer]')
  .getBoundingClientRect().top;
  return Math.max(...Array.from(document.querySelectorAll('[data-testid=stMainBlockContainer] *'),
                                e => e.getBoundingClientRect().bottom)) - top; }"""


@pytest.fixture(scope="module")
def table_url(tmp_path_factory):
    """The app at a table of its own, its detector a stand-in that finds HAND: (URL, ledger path)."""
    folder = tmp_path_factory.mktemp("phone")
    db = folder / "taishu.db"
    env = {**os.environ, "TAISHU_DB": str(db), "TAISHU_DATASET_ROOT": str(folder / "data")}
    for url in serve(fake_detector_app(folder, HAND), folder / "app.log", env):
        yield f"{url}?table=phone", db


class Taps:
    """The player's taps, counted: each is one tap of a finger on the page (choosing the photo is one)."""

    def __init__(self, page) -> None:
        self.page, self.count = page, 0

    def tap(self, target) -> None:
        target.click()
        self.count += 1
        settle(self.page)

    def choose_photo(self, data: bytes) -> None:
        self.page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
            files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": data}])
        self.count += 1
        settle(self.page)


def seat_option(page, label: str, option: str):
    """The option `option` of the seat choice labelled `label`."""
    group = page.get_by_test_id("stButtonGroup").filter(has=page.get_by_text(label, exact=True))
    return group.get_by_role("radio", name=option, exact=True)


def top_of(page, locator) -> float:
    """Where `locator` starts on the page, scrolling aside (Streamlit scrolls inside the page)."""
    return locator.evaluate("e => e.getBoundingClientRect().top - document"
                            ".querySelector('[data-testid=stMainBlockContainer]').getBoundingClientRect().top")


def test_a_photo_hand_read_right_is_recorded_in_few_taps_within_two_screens(page, table_url):
    from playwright.sync_api import expect

    url, db = table_url
    page.goto(url)
    expect(page.get_by_text("牌桌 phone · 第 1 局", exact=False)).to_be_visible()
    taps = Taps(page)
    taps.choose_photo(table_photo())
    expect(page.get_by_text("讀到 18 張牌")).to_be_visible()
    screenshot(page, "phone-1-photo-read-390.png")
    taps.tap(seat_option(page, "誰胡了", "東家"))
    taps.tap(seat_option(page, "怎麼胡", "自摸"))
    summary = page.locator(".st-key-summary")
    expect(summary).to_contain_text(total_of(HAND))
    photo = page.get_by_test_id("stImage").filter(has_text="讀到 18 張牌")  # the photo as read, not the uploader's
    record = page.get_by_role("button", name=RECORD, exact=True)
    height = below = last = None
    while (height, below) != last:  # until the page's layout has settled
        page.wait_for_timeout(700)
        last, height = (height, below), page.evaluate(HEIGHT)
        below = top_of(page, record) + record.bounding_box()["height"] - top_of(page, photo)
    print(f"\nphone page: {height:.0f} px tall with the photo read ({height / PHONE['height']:.1f} screens), "
          f"the record button's bottom {below:.0f} px below the photo's top")
    screenshot(page, "phone-2-who-won-390.png")

    # Fixing a tile (not a tap of the hand read right: it is put back): the picker opens for it, with the 台 and
    # the payments still in view above it.
    tile_row(page, "手牌").get_by_role("radio").first.click()
    settle(page)
    picker = page.get_by_test_id("stButtonGroup").filter(has=page.get_by_text("點一張牌換掉它：", exact=True))
    expect(picker).to_have_count(1)
    picker.get_by_role("radio").last.scroll_into_view_if_needed()
    box = summary.bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"], box
    expect(summary).to_contain_text(total_of(HAND))
    expect(summary).to_contain_text("東家 +")  # the payments: who gets what
    page.set_viewport_size(PHONE)
    page.get_by_text("已選取").evaluate("e => e.scrollIntoView({block: 'center'})")  # the tile tapped, its faces
    page.wait_for_timeout(300)
    assert summary.bounding_box()["y"] >= 0
    page.screenshot(path=str(ARTIFACTS / "phone-3-fixing-390.png"))  # the screen as the player sees it
    page.get_by_role("button", name="取消選取").click()
    settle(page)

    record.scroll_into_view_if_needed()
    taps.tap(record)
    expect(page.get_by_text("第 1 局記好了")).to_be_visible()
    next_hand = page.get_by_text("牌桌 phone · 第 2 局", exact=False)
    expect(next_hand).to_be_in_viewport()  # the page back at its top, ready for the next photo
    page.get_by_role("button", name="整晚的總帳（1 局）").click()  # the evening's totals: one tap away
    expect(page.get_by_text("東家：+540", exact=True)).to_be_visible()
    page.keyboard.press("Escape")
    screenshot(page, "phone-4-recorded-390.png")
    [recorded] = Ledger(db).hands("phone")
    assert recorded.line.winner == Seat.E and recorded.line.discarder is None
    print(f"phone page: {taps.count} taps from the photo to the hand recorded")
    assert taps.count <= MAX_TAPS
    assert below <= SCREENS * PHONE["height"], below
    assert page.get_by_test_id("stException").count() == 0

