"""One evening at a table in the real browser, the judge of the page as a table lives it.

Two phones (two Chromium contexts at 390x844) share `?table=evening` on a real Streamlit server
and a real ledger file. Nine hands over a full round and into the next: the dealer winning with
連莊, a 流局, the deal passing each seat, the round wind moving on, a photo hand with a concealed
kong shown as backs and two flowers, names set mid-evening, an edit of an earlier hand that
changes only its discarder, an undo, a record from a phone that is behind, and a restart of the
server. After every step: no error box on either phone, each payment to the right seat (the page's
payment rows before recording, the ledger's line after), the totals equal to the sum of the
payments, and the CSV the page exports equal to the ledger.

What a hand should pay is worked out here from who won and how (`scoring.payout`), apart from the
page; the deals are written out by hand.
"""

import csv
import io
import os
from pathlib import Path

import pytest

from ledger import Ledger, read_csv, totals
from scoring.hand import Hand, Meld, Situation
from scoring.payout import Deal, Result, judge, judge_several, seat_hand
from scoring.seats import SEATS, Seat, Wind
from tests.example_hands import HAND, TYPED
from tests.test_browser import (
    CHROMIUM_ARGS,
    PHONE,
    choose,
    drawn,
    fake_detector_app,
    free_port,
    screenshot,
    settle,
    start_streamlit,
    table_photo,
    table_rows,
    type_hand,
    upload,
)
from ui.result import signed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SLOW = 45_000  # ms: two phones on a busy 2-core machine
E, S, W, N = SEATS
BASE, PER_TAI = 100, 20

PLAIN = Hand.from_json({"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p",
                                      "6s", "7s", "8s", "5s"], "win": "5s", "seat": "E", "round": "E"})
PLAIN_TYPED = "123456789m 234p 678s 5s 和5s"
# The photo: a concealed kong laid out as four backs, two flowers apart (the reader's stand-in finds it).
KONG = HAND.replace(melds=(Meld("ankong", ("9s",) * 4),), flowers=("1f", "2f"))

# The stand-in detector finds KONG laid out with its concealed kong face down.
FACE_DOWN = """

FakeDetector.read = lambda self, image: laid_out(Hand.from_json({hand!r}), face_down=True)[0]
"""


class Server:
    """`streamlit run` of the app above on one port, which a restart keeps (the phones reload)."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.db = folder, folder / "taishu.db"
        self.script = fake_detector_app(folder, KONG, FACE_DOWN.format(hand=KONG.to_json()))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.proc = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        env = {**os.environ, "TAISHU_DB": str(self.db), "TAISHU_DATASET_ROOT": str(self.folder / "data")}
        self.proc = start_streamlit(self.script, self.port, self.folder / f"app-{self.starts}.log", env)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)

    def tracebacks(self) -> list[str]:
        return [line for log in self.folder.glob("app-*.log") for line in log.read_text().splitlines()
                if "Traceback" in line]


class Phone:
    """One phone at the table: a browser context with the page open at the table's link."""

    def __init__(self, browser, url: str, name: str, code: str = "evening") -> None:
        self.context = browser.new_context(viewport=PHONE, device_scale_factor=1, accept_downloads=True)
        self.page = self.context.new_page()
        self.page.set_default_timeout(SLOW)
        self.name, self.code, self.url = name, code, f"{url}?table={code}"
        self.open()

    def open(self) -> None:
        self.page.goto(self.url)
        self.see(f"⑥ 整晚的帳（牌桌 {self.code}）")

    def settle(self) -> None:
        settle(self.page)

    def see(self, text: str, exact: bool = False):
        from playwright.sync_api import expect

        found = self.page.get_by_text(text, exact=exact).first
        expect(found).to_be_visible(timeout=SLOW)
        return found

    def deal_line(self, seq: int, deal: Deal, names: dict | None = None) -> None:
        """The table's line: 牌桌 evening · 第 4 局 · 東風圈 · 莊家 南家 阿華 · 連莊 1."""
        dealer = deal.dealer.zh + (f" {names[deal.dealer]}" if names and names.get(deal.dealer) else "")
        streak = f" · 連莊 {deal.streak}" if deal.streak else ""
        self.see(f"牌桌 {self.code} · 第 {seq} 局 · {deal.round.zh}風圈 · 莊家 {dealer}{streak}", exact=True)
        drawn(self.page)  # the run that drew the line (another phone's hand seen) is over

    def choose(self, label: str, option: str) -> None:
        choose(self.page, label, option)

    def press(self, name: str) -> None:
        drawn(self.page)
        self.page.get_by_role("button", name=name, exact=True).click()
        self.settle()

    def pick(self, label: str, option: str) -> None:
        """Pick `option` in the selectbox labelled `label`."""
        drawn(self.page)
        self.page.get_by_test_id("stSelectbox").filter(has_text=label).click()
        self.page.get_by_role("option", name=option, exact=True).click()
        self.settle()

    def no_errors(self) -> None:
        assert self.page.get_by_test_id("stException").count() == 0, f"{self.name}: an error box"
        errors = self.page.get_by_test_id("stAlertContentError")
        assert errors.count() == 0, f"{self.name}: {errors.all_inner_texts()}"

    def payments(self) -> list[tuple[str, int]]:
        """The ④ rows, sorted: who pays (the seat) and how much."""
        self.settle()
        return sorted((row["誰付"].split()[0], int(row["金額"])) for row in table_rows(self.page, "誰付", SLOW))

    def table(self, column: str) -> list[dict[str, str]]:
        """The rows of the table that has a column `column`, each by its columns' names."""
        self.settle()
        return table_rows(self.page, column, SLOW)

    def totals(self) -> dict[Seat, int]:
        """The ⑥ totals table, by seat."""
        out = {}
        for row in self.table("合計"):
            out[next(s for s in SEATS if row["玩家"].strip().startswith(s.zh))] = int(row["合計"])
        return out

    def csv(self) -> str:
        with self.page.expect_download() as download:
            self.press("匯出整晚（CSV）")
        return Path(download.value.path()).read_text(encoding="utf-8-sig")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def evening(tmp_path):
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing in CI (.ci/run installs Debian's chromium)")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=SLOW)
    server = Server(tmp_path)
    server.start()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield server, browser
        finally:
            browser.close()
            server.stop()


class Book:
    """What the evening should hold, worked out apart from the page: each hand's expected line."""

    def __init__(self) -> None:
        self.lines: list[tuple[Deal, Seat | None, Seat | None, tuple[int, ...]]] = []

    def expect_win(self, hand: Hand, deal: Deal, winner: Seat, discarder: Seat | None = None,
                   flags: dict | None = None) -> tuple[int, ...]:
        result = Result(deal, winner, discarder)
        seated = seat_hand(hand.replace(**(flags or {})), result, BASE, PER_TAI)
        return judge(seated, result).payout.nets

    def won(self, hand: Hand, deal: Deal, winner: Seat, discarder: Seat | None = None, **flags) -> tuple[int, ...]:
        net = self.expect_win(hand, deal, winner, discarder, flags)
        self.lines.append((deal, winner, discarder, net))
        return net

    def drawn(self, deal: Deal) -> None:
        self.lines.append((deal, None, None, (0, 0, 0, 0)))

    def totals(self) -> dict[Seat, int]:
        return {s: sum(line[3][i] for line in self.lines) for i, s in enumerate(SEATS)}


def check(server: Server, book: Book, *phones: Phone, balanced: bool = True) -> None:
    """After every step: no error box, the ledger as the book says, the totals its sum, the CSV the
    ledger. `phones`: those whose page shows the ledger as it is now.
    `balanced`: the money adds up to zero (a penalty's need not)."""
    hands = Ledger(server.db).hands("evening")
    assert [(h.line.deal, h.line.winner, h.line.discarder, h.line.net) for h in hands] == book.lines
    seated = dict(zip(SEATS, Ledger(server.db).state("evening").table.seating, strict=True))  # one seating all evening
    assert totals(hands) == {seated[s]: n for s, n in book.totals().items()}
    assert sum(book.totals().values()) == 0 or not balanced
    for phone in phones:
        phone.no_errors()
        if hands:
            assert phone.totals() == book.totals(), phone.name
    if hands:
        exported = phones[0].csv()
        assert read_csv(exported) == hands  # the page's CSV is the ledger, hand for hand
        rows = list(csv.DictReader(io.StringIO(exported)))
        assert {s: sum(int(r[s.zh]) for r in rows) for s in SEATS} == phones[0].totals()
    assert not server.tracebacks()


def paying(net: tuple[int, ...]) -> list[tuple[str, int]]:
    """The ④ rows a hand's payments by seat make, sorted as `Phone.payments` gives them."""
    return sorted((s.zh, -n) for s, n in zip(SEATS, net, strict=True) if n < 0)


def play(phone: Phone, typed: str, winner: str, how: str, expect_pay: tuple[int, ...]) -> None:
    """Type a hand, say who won and how, check the payments shown, record it."""
    type_hand(phone.page, typed)
    phone.choose("誰胡了", winner)
    phone.choose("怎麼胡", how)
    assert phone.payments() == paying(expect_pay)
    phone.press("胡了，記下這一局")
    phone.see("局記好了")


def test_an_evening_at_a_table_on_two_phones(evening):
    from playwright.sync_api import expect

    server, browser = evening
    book = Book()
    a, b = Phone(browser, server.url, "A"), Phone(browser, server.url, "B")

    # 1. 東家 deals and self-draws: the dealer keeps the deal (連莊 1).
    a.deal_line(1, Deal(Wind.E, E, 0))
    play(a, TYPED, "東家", "自摸", book.won(HAND, Deal(Wind.E, E, 0), E))
    a.deal_line(2, Deal(Wind.E, E, 1))
    check(server, book, a)
    screenshot(a.page, "evening-1-recorded-390.png")

    # 2. A 流局 on phone B, which asks first: 連莊 2.
    b.open()
    b.deal_line(2, Deal(Wind.E, E, 1))
    b.press("流局（沒人胡）")
    b.see("確定第 2 局是流局")
    b.press("確定流局")
    b.see("第 2 局記好了")
    book.drawn(Deal(Wind.E, E, 1))
    check(server, book, b)

    # 3. 南家 wins off 西家 while 東家 deals with 連莊 2: the deal passes to 南家.
    a.open()
    a.deal_line(3, Deal(Wind.E, E, 2))
    play(a, PLAIN_TYPED, "南家", "西家 放槍", book.won(PLAIN, Deal(Wind.E, E, 2), S, W))
    a.deal_line(4, Deal(Wind.E, S, 0))
    check(server, book, a)

    # 4. The photo: a concealed kong shown as four backs and two flowers; 南家, dealing, self-draws.
    upload(a.page, "hand.jpg", table_photo())
    unknown = a.page.get_by_role("radio", name="？", exact=True)
    expect(unknown).to_have_count(4)  # the kong's face is the player's to name
    unknown.first.click()
    a.page.get_by_role("radio", name="九條", exact=True).last.click()
    expect(a.page.get_by_role("radio", name="？", exact=True)).to_have_count(0)
    a.see("花牌")
    a.choose("誰胡了", "南家")
    a.choose("怎麼胡", "自摸")
    net = book.won(KONG, Deal(Wind.E, S, 0), S)
    expect(a.page.get_by_test_id("stTable").filter(has_text="誰付")).to_be_visible()
    assert a.payments() == paying(net)
    screenshot(a.page, "evening-4-photo-390.png")
    a.press("胡了，記下這一局")
    a.see("第 4 局記好了")
    assert Ledger(server.db).hands("evening")[-1].line.photo_id  # the photo's id is on the hand
    a.settle()
    expect(a.page.get_by_text("讀到 ")).to_have_count(0)  # the uploader is cleared: no photo for the next hand
    a.deal_line(5, Deal(Wind.E, S, 1))
    check(server, book, a)

    # 5. 北家 wins off 南家 (dealing, 連莊 1) on phone B, typed: no photo id from hand 4 comes along.
    b.open()
    b.deal_line(5, Deal(Wind.E, S, 1))
    play(b, TYPED, "北家", "南家 放槍", book.won(HAND, Deal(Wind.E, S, 1), N, S))
    assert Ledger(server.db).hands("evening")[-1].line.photo_id is None
    check(server, book, b)

    # Names, set mid-evening on phone B: the labels change, nothing breaks, the next tap works.
    names = {E: "阿明", S: "阿華", W: "小芳", N: "大雄"}
    b.page.get_by_text("邀請同桌的手機、牌桌設定").click()
    for seat, name in names.items():
        b.page.get_by_role("textbox", name=seat.zh, exact=True).fill(name)
    b.press("儲存牌桌設定")
    b.deal_line(6, Deal(Wind.E, W, 0), names)
    b.choose("誰胡了", "北家")
    b.choose("莊家", "西家")
    b.no_errors()

    # 6. 東家 wins off 北家 while 西家 deals, on phone A (reloaded: it sees the names): to 北家's deal.
    a.open()
    a.deal_line(6, Deal(Wind.E, W, 0), names)
    play(a, PLAIN_TYPED, "東家", "北家 大雄 放槍", book.won(PLAIN, Deal(Wind.E, W, 0), E, N))
    a.deal_line(7, Deal(Wind.E, N, 0), names)
    check(server, book, a)

    # An edit begun and cancelled leaves the page at the next hand, empty (not hand 3 as hand 7, one tap from twice).
    a.pick("要修改第幾局", "3")
    a.press("修改這一局")
    a.see("修改第 3 局")
    a.press("取消修改")
    a.deal_line(7, Deal(Wind.E, N, 0), names)
    expect(a.page.get_by_role("button", name="胡了，記下這一局")).to_have_count(0)

    # An edit of hand 3 (still picked) that changes only its discarder (西家 → 北家): every field loads as recorded.
    a.press("修改這一局")
    a.see("修改第 3 局")
    a.page.get_by_text("圈風、連莊、海底、槓上、聽牌、天地胡、底與每台").click()  # folded until asked for
    for label, option in [("誰胡了", "南家 阿華"), ("怎麼胡", "西家 小芳 放槍"), ("莊家", "東家 阿明"),
                          ("圈風", "東風圈")]:
        group = a.page.get_by_test_id("stButtonGroup").filter(has=a.page.get_by_text(label, exact=True))
        expect(group.get_by_role("radio", checked=True)).to_have_accessible_name(option)
    expect(a.page.get_by_label("連莊次數")).to_have_value("2")
    a.choose("怎麼胡", "北家 大雄 放槍")
    book.lines[2] = (Deal(Wind.E, E, 2), S, N, book.expect_win(PLAIN, Deal(Wind.E, E, 2), S, N))
    a.press("更新這一局")
    a.see("第 3 局記好了")
    a.deal_line(7, Deal(Wind.E, N, 0), names)  # later hands keep their deals; the next deal is back
    check(server, book, a)

    # 7. 西家 self-draws while 北家 deals: the deal comes back to 起莊 東家, the round moves to 南.
    play(a, TYPED, "西家", "自摸", book.won(HAND, Deal(Wind.E, N, 0), W))
    a.deal_line(8, Deal(Wind.S, E, 0), names)
    check(server, book, a)

    # 8. 南家 wins off 東家 in the 南 round; phone B sees it; A undoes it (asked first) and records
    # the corrected hand 8, 東家's self-draw.
    play(a, PLAIN_TYPED, "南家", "東家 阿明 放槍", book.won(PLAIN, Deal(Wind.S, E, 0), S, E))
    b.open()
    b.see("刪掉最後一局（第 8 局）")
    a.press("刪掉最後一局（第 8 局）")
    a.see("確定刪掉第 8 局")
    a.press("確定刪掉")
    book.lines.pop()
    a.deal_line(8, Deal(Wind.S, E, 0), names)
    check(server, book, a)
    play(a, PLAIN_TYPED, "東家", "自摸", book.won(PLAIN, Deal(Wind.S, E, 0), E))
    check(server, book, a)

    # Phone B, left alone since it showed the first hand 8, shows A's corrected one by itself (the page watches the
    # table), and the deal after it. (A stale undo is refused: tests/test_app_table.py.)
    b.deal_line(9, Deal(Wind.S, E, 1), names)
    check(server, book, b)

    # 9. Phone B enters a hand while A records hand 9 first: B's record is refused with what changed,
    # its hand kept under the same winner, and recorded again as told as hand 10.
    b.open()
    b.deal_line(9, Deal(Wind.S, E, 1), names)
    type_hand(b.page, TYPED)
    b.choose("誰胡了", "西家")
    b.choose("怎麼胡", "南家 阿華 放槍")
    play(a, PLAIN_TYPED, "東家", "自摸", book.won(PLAIN, Deal(Wind.S, E, 1), E))
    b.press("胡了，記下這一局")
    b.see("別的手機剛記了第 9 局")
    b.see("胡的人還是 西家 小芳")
    net = book.won(HAND, Deal(Wind.S, E, 2), W, S)
    assert b.payments() == paying(net)
    b.press("胡了，記下這一局")
    b.see("第 10 局記好了")
    b.deal_line(11, Deal(Wind.S, S, 0), names)
    check(server, book, b)
    screenshot(b.page, "evening-10-recorded-390.png")

    # The server restarts: both phones reload, and the evening is all there.
    server.stop()
    server.start()
    a.open()
    b.open()
    a.deal_line(11, Deal(Wind.S, S, 0), names)
    b.deal_line(11, Deal(Wind.S, S, 0), names)
    check(server, book, a, b)
    screenshot(a.page, "evening-after-restart-390.png")
    a.close()
    b.close()


OTHER_TYPED = "123456p 789m 2345s 和5s 碰666z"  # wins on HAND's 5s too


def test_one_discard_won_twice_a_false_win_and_a_penalty_at_a_table_that_has_them(evening):
    """改良式 (`tw16-improved`: 「無攔胡，放槍幾家付幾家」, 詐胡 paid to the three): 北家 and 東家 both
    win 西家's discard (one hand; 東家, dealing, keeps the deal); 北家 calls a 詐胡 of 8 台 with
    東家 ready for 5 (as a 流局: 連莊 again); 南家 is fined 200 (no hand played: the deal stays)."""
    from playwright.sync_api import expect

    server, browser = evening
    Ledger(server.db).open_table("evening", ruleset="tw16-improved")
    book = Book()
    a = Phone(browser, server.url, "A")

    type_hand(a.page, TYPED)
    a.choose("誰胡了", "北家")
    a.choose("怎麼胡", "西家 放槍")
    a.press("這張牌還有別家胡（一炮多響）：先放著這一家，輸入下一家的牌")
    a.see("一炮多響")
    expect(a.page.get_by_text("北家 放槍", exact=True)).to_have_count(0)  # 北家 won this discard: it did not deal it
    type_hand(a.page, OTHER_TYPED)
    a.choose("誰胡了", "東家")
    first, second = (Result(Deal(), N, W), Result(Deal(), E, W))
    net = judge_several([(seat_hand(HAND, first, BASE, PER_TAI), first),
                         (seat_hand(Hand.from_json(_typed(OTHER_TYPED)), second, BASE, PER_TAI), second)],
                        "tw16-improved").nets
    top = a.page.locator(".st-key-summary")  # the top bar: both winners' money, as the line records it
    expect(top).to_contain_text("北家、東家 胡 西家")
    expect(top).to_contain_text(" · ".join(f"{s.zh} {signed(n)}" for s, n in zip(SEATS, net, strict=True)))
    a.press("胡了，記下這一局")
    a.see("第 1 局記好了")
    book.lines.append((Deal(), N, W, net))
    a.deal_line(2, Deal(Wind.E, E, 1))
    check(server, book, a)
    assert Ledger(server.db).hands("evening")[0].line.winners == (N, E)

    a.press("詐胡")
    a.choose("誰詐胡", "北家")
    a.page.get_by_role("spinbutton", name="他說胡幾台").fill("8")
    a.page.get_by_role("spinbutton", name="他說胡幾台").press("Enter")
    a.settle()
    a.page.get_by_text("東家 聽牌", exact=True).click()
    a.settle()
    a.page.get_by_role("spinbutton", name="聽幾台").fill("5")
    a.page.get_by_role("spinbutton", name="聽幾台").press("Enter")
    a.settle()
    expect(a.page.get_by_role("button", name="確定記下詐胡")).to_be_enabled()
    a.press("確定記下詐胡")
    a.see("第 2 局記好了：北家 詐胡 8 台")
    fine = PER_TAI  # 台 × 每台, no 底 (docs/rules.md)
    book.lines.append((Deal(Wind.E, E, 1), None, None, (5 * fine, 8 * fine, 8 * fine, -21 * fine)))
    a.deal_line(3, Deal(Wind.E, E, 2))
    check(server, book, a)

    a.press("罰款")
    expect(a.page.locator(".st-key-summary")).to_have_text("第 3 局：罰款（在下面填）")  # not 「先拍照…」
    a.page.get_by_role("spinbutton", name="南家").fill("-200")
    a.page.get_by_role("spinbutton", name="南家").press("Enter")
    a.settle()
    a.page.get_by_role("textbox", name="原因").fill("遲到")
    a.page.get_by_role("textbox", name="原因").press("Enter")
    a.settle()
    a.press("確定記下罰款")
    a.see("第 3 局記好了")
    book.lines.append((Deal(Wind.E, E, 2), None, None, (0, -200, 0, 0)))
    a.deal_line(4, Deal(Wind.E, E, 2))
    check(server, book, a, balanced=False)
    screenshot(a.page, "evening-improved-390.png")
    a.close()


def _typed(text: str) -> dict:
    """A typed hand as the scorer's JSON (its winds are set by `seat_hand`)."""
    from scoring.draft import from_text, to_hand

    return to_hand(from_text(text), Situation()).to_json()
