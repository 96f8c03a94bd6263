"""A whole evening as a Taiwanese table plays it, on two phones in the real browser (two Chromium contexts at
390x844, a real Streamlit server, a real ledger file): names and rules set, 東錢 set and its cap reached, the
first 將's seats given and played to its end at 北風北 (the deal passing at every hand), a 詐摸, a player
renamed, the seats drawn (抽位) for the second 將 and that one played out too, the evening closed and the next
one seated and started.

The phones play the steps that matter: the first hands of each 將, the hand that reaches the 東錢 cap, the 詐摸
and the hand after it, the rename and the hand the other phone records after it, the hand that ends the first
將, the 抽位, the close and the next evening's hands. The routine hands between them are written straight into
the server's ledger file as another phone's page writes a hand (`recorded_elsewhere`): the phones see them as
another phone's writes, and the book works their money out as it does the page's.

After every step the page plays, on both phones: no error box, no traceback and no English; the ledger's hands
as the book's; each player's money (and the pot's 東錢) as worked out here apart from the page and the ledger
(`scoring.payout` for what a hand pays, the 東錢 rule and the deal's turn written out below), players and pot
adding up to zero. Before a hand is recorded, its payments on the page as the book's. At the key steps (each stop
in the first 將, each 將's end, the close, the last hand), on one phone in turn: the history's CSV and JSON, as
downloaded, saying the same money as the page, the JSON reading back as the ledger's history, and every player's
figures.

The evening is data (`Spec`): its names, seatings, rules, 東錢, the hands' pattern, the 詐摸 and the rename.
`SPECS` holds two, the second with other seatings, another 起莊, 東錢 from each hand won to a player; CI plays
the first, `TAISHU_EVERY_EVENING=1` plays both. Screenshots: test-artifacts/jiang-*-390.png.

Last, what a player types in the table's settings stays while another phone records a hand.
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ledger import CutRule, Ledger, history_from_json, win
from scoring.hand import Hand
from scoring.payout import Deal, Result, judge, judge_false_win, seat_hand
from scoring.seats import SEATS, Seat, Wind
from tests.example_hands import HAND, TYPED
from tests.test_browser import screenshot, type_hand, unfold
from tests.test_browser_evening import PLAIN, PLAIN_TYPED, Phone, paying
from tests.test_browser_evening import evening as evening_fixture
from tests.test_browser_script import PAGE_WORDS, latin_words
from ui.table import MARK, POT
from ui.table_desk import WATCH_SECONDS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

evening = evening_fixture  # the server (a stand-in detector, a ledger file of its own) and Chromium
CODE = "0701"  # the table: digits, no word
BASE, PER_TAI = 100, 20  # the page's stakes, which a new table takes
HANDS = ((HAND, TYPED), (PLAIN, PLAIN_TYPED))  # played in turn


@dataclass(frozen=True)
class Spec:
    """One evening to play. Players are 1-4 as the table opens them (seated 東 南 西 北), named `names`."""

    names: tuple[str, str, str, str]
    ruleset: str  # one whose rules state the 詐胡 penalty (so 詐摸 is offered)
    seating: tuple[int, int, int, int]  # the first 將's, by seat: given on the page (照這樣坐)
    first_dealer: Seat  # its 起莊
    cut: tuple[str, int, int, int | None]  # 東錢: "self_draw" | "win", amount, cap, to (a player id; None: the pot)
    # Each hand passes the deal: (the winner, the discarder or None for 自摸), as steps after the dealer.
    plays: tuple[tuple[int, int | None], ...]
    # (n, steps, m): after hand n of the first 將, the seat `steps` after the dealer says 自摸 for m 台 (a 詐摸)
    false_draw: tuple[int, int, int]
    rename: tuple[int, int, str]  # after hand n of the first 將, player p is renamed: (n, p, name)
    drawn_dealer: Seat | None  # the second 將's 起莊, chosen with the seats drawn (None: drawn too)
    next_seating: tuple[int, int, int, int]  # the next evening's first 將
    next_dealer: Seat
    next_hands: int = 2


SPECS = [
    Spec(names=("阿明", "阿華", "小芳", "大雄"), ruleset="tw16-improved", seating=(3, 1, 4, 2), first_dealer=Seat.E,
         cut=("self_draw", 100, 250, None), plays=((1, None), (2, 1), (3, None), (1, 3)),
         false_draw=(5, 2, 6), rename=(9, 3, "芳姐"), drawn_dealer=None, next_seating=(2, 4, 1, 3),
         next_dealer=Seat.S),
    pytest.param(Spec(
        names=("老王", "小李", "阿珠", "志明"), ruleset="tw16-improved", seating=(4, 3, 2, 1), first_dealer=Seat.W,
        cut=("win", 50, 120, 2), plays=((3, 2), (1, None), (2, 3), (2, None)), false_draw=(2, 3, 9),
        rename=(12, 4, "明哥"), drawn_dealer=Seat.N, next_seating=(1, 3, 4, 2), next_dealer=Seat.W, next_hands=3),
        marks=pytest.mark.skipif(not os.environ.get("TAISHU_EVERY_EVENING"),
                                 reason="another evening to the same spec: TAISHU_EVERY_EVENING=1 plays it"),
        id="other-seatings"),
]


def seat_after(dealer: Seat, steps: int) -> Seat:
    return SEATS[(SEATS.index(dealer) + steps) % 4]


def after(deal: Deal, winner: Seat | None, first_dealer: Seat) -> Deal:
    """The deal after a hand, as the tables of docs/rules.md pass it: the dealer keeps it on a win or a 流局 (a
    詐摸 is one), else it passes on, and the round wind moves when it comes back to 起莊."""
    if winner is None or winner == deal.dealer:
        return Deal(deal.round, deal.dealer, deal.streak + 1)
    dealer = deal.dealer.step()
    return Deal(deal.round.step() if dealer == first_dealer else deal.round, dealer, 0)


@dataclass
class Line:
    evening: int
    jiang: int
    seating: tuple[int, ...]
    deal: Deal
    winner: Seat | None
    discarder: Seat | None
    net: tuple[int, ...]  # by seat
    cut: tuple[tuple[Seat, int], ...] = ()  # 東錢 paid by seat


@dataclass
class Book:
    """What the table's evenings should hold, worked out apart from the page and the ledger."""

    spec: Spec
    names: dict[int, str] = field(default_factory=dict)
    lines: list[Line] = field(default_factory=list)
    evening: int = 1
    jiang: int = 1
    seating: tuple[int, int, int, int] = (1, 2, 3, 4)
    first_dealer: Seat = Seat.E
    deal: Deal = Deal()

    def seat(self, steps: int) -> Seat:
        return seat_after(self.deal.dealer, steps)

    def seated(self) -> dict[Seat, str]:
        return {s: self.names[p] for s, p in zip(SEATS, self.seating, strict=True)}

    def seat_jiang(self, seating: tuple[int, int, int, int], first_dealer: Seat) -> None:
        """The next 將 seated, or the open one seated again before its first hand."""
        self.jiang += any(x.evening == self.evening and x.jiang == self.jiang for x in self.lines)
        self.seating, self.first_dealer = seating, first_dealer
        self.deal = Deal(Wind.E, first_dealer, 0)

    def won(self, hand: Hand, winner: Seat, discarder: Seat | None) -> tuple[int, ...]:
        result = Result(self.deal, winner, discarder)
        net = judge(seat_hand(hand, result, BASE, PER_TAI), result, self.spec.ruleset).payout.nets
        per, amount, cap, _ = self.spec.cut
        left = cap - sum(n for line in self.lines if line.evening == self.evening for _, n in line.cut)
        taken = min(amount, left) if per == "win" or discarder is None else 0
        self.lines.append(Line(self.evening, self.jiang, self.seating, self.deal, winner, discarder, net,
                               ((winner, taken),) if taken > 0 else ()))
        self.deal = after(self.deal, winner, self.first_dealer)
        return net

    def false_draw(self, caller: Seat, claimed: int) -> tuple[int, ...]:
        paid = judge_false_win(caller, claimed, {s: None for s in SEATS if s != caller}, self.deal, PER_TAI,
                               self.spec.ruleset)
        net = tuple(paid.net[s] for s in SEATS)
        self.lines.append(Line(self.evening, self.jiang, self.seating, self.deal, None, None, net))
        self.deal = after(self.deal, None, self.first_dealer)
        return net

    def ends_jiang(self, winner: Seat) -> bool:
        """Whether a hand `winner` wins now is the 將's last (the deal back to 起莊 after the 北風圈)."""
        return self.deal.round is Wind.N and after(self.deal, winner, self.first_dealer).round is Wind.E

    def jiang_over(self) -> bool:
        last = self.lines[-1] if self.lines else None
        return (last is not None and last.evening == self.evening and last.jiang == self.jiang
                and last.deal.round is Wind.N and self.deal.round is Wind.E)

    def money(self, evening: int | None = None, jiang: int | None = None) -> dict[int | str, int]:
        """Each player's money (and the pot's, as "pot") over the lines of `evening` (None: every evening), of its
        將 `jiang` (None: all)."""
        out: dict[int | str, int] = {}
        to = self.spec.cut[3]
        for line in self.lines:
            if (evening, jiang) != (evening and line.evening, jiang and line.jiang):
                continue
            for who, n in zip(line.seating, line.net, strict=True):
                out[who] = out.get(who, 0) + n
            for seat, n in line.cut:
                payer = line.seating[SEATS.index(seat)]
                out[payer] -= n
                key = "pot" if to is None else to
                out[key] = out.get(key, 0) + n
        return out

    def shown(self, money: dict[int | str, int]) -> dict[str, int]:
        """`money` as the page names it: by name, the pot as 東錢（公費）, where it is not zero."""
        return {POT if who == "pot" else self.names[who]: n for who, n in money.items() if who != "pot" or n}


def _name(label: str) -> str:
    """A row's player as a name alone: 東家 阿明 → 阿明 (★ and the seat dropped)."""
    label = label.removeprefix(MARK).strip()
    return label.split(" ", 1)[1] if label[:2] in {s.zh for s in SEATS} and " " in label else label


def page_money(phone: Phone) -> dict[str, int]:
    """The evening's totals on `phone`, by name (the pot as itself); {} before a hand."""
    if phone.page.get_by_text("還沒有記任何一局。", exact=True).count():
        return {}
    return {_name(r["玩家"]): int(r["合計"]) for r in phone.table("合計")}


def history_panel(phone: Phone) -> None:
    """Every player's figures, the history's downloads and 結束這一晚."""
    unfold(phone.page, "匯出、結束這一晚")


def downloaded(phone: Phone, button: str) -> str:
    history_panel(phone)
    with phone.page.expect_download() as download:
        phone.press(button)
    return Path(download.value.path()).read_text(encoding="utf-8-sig")


def csv_money(text: str, evening: int, names: dict[int, str]) -> dict[str, int]:
    """The open evening's money by name from the history's CSV: its player columns' and its pot's sums."""
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r["evening"] == str(evening)]
    out: dict[str, int] = {}
    for column in rows[0] if rows else ():
        if column.startswith("玩家"):
            who = int(column.removeprefix("玩家").split(" ")[0])
            assert column == f"玩家{who} {names[who]}".strip()
            if any(r[column] for r in rows):
                out[names[who]] = sum(int(r[column] or 0) for r in rows)
    pot = sum(int(r["pot"] or 0) for r in rows)
    return out | ({POT: pot} if pot else {})


def json_money(data: dict, evening: int | None) -> dict[str, int]:
    """Money by name from the history's JSON, as docs/ledger-json.md says to work it out: `net` by `seating`, less
    each paying seat's `cut`, plus the cut to its player `to` (null: the pot)."""
    names = {p["id"]: p["name"] for p in data["players"]}
    out: dict[str, int] = {}
    for e in data["evenings"]:
        if evening is not None and e["number"] != evening:
            continue
        for h in e["hands"]:
            for who, n in zip(h["seating"], h["net"], strict=True):
                out[names[who]] = out.get(names[who], 0) + n
            if h["cut"]:
                for seat, n in h["cut"]["paid"]:
                    payer = names[h["seating"][[s.code for s in SEATS].index(seat)]]
                    out[payer] -= n
                    to = POT if h["cut"]["to"] is None else names[h["cut"]["to"]]
                    out[to] = out.get(to, 0) + n
    return out


def shown_soon(phone: Phone, expected: dict[str, int]) -> None:
    """The evening's money on `phone` as `expected`, once the phone has seen the last write: a phone left alone
    shows another's within `ui.table_desk.WATCH_SECONDS`."""
    deadline = time.monotonic() + 4 * WATCH_SECONDS
    while (shown := page_money(phone)) != expected and time.monotonic() < deadline:
        phone.page.wait_for_timeout(500)
    assert shown == expected, phone.name


def no_english(phone: Phone) -> None:
    english = {text: sorted(latin_words(text)) for text in phone.page.evaluate(PAGE_WORDS) if latin_words(text)}
    assert not english, f"{phone.name}: {english}"


def check(server, book: Book, *phones: Phone, export: Phone | None = None) -> None:
    """A step's invariants, on every phone given (those showing the ledger as it is now); with `export`, on that
    phone also the history's downloads and every player's figures, as the ledger and the book have them."""
    ledger = Ledger(server.db)
    history = ledger.history(CODE)
    played = [(h.line.deal, h.line.winner, h.line.discarder, h.line.net, h.seating, h.jiang,
               () if h.cut is None else h.cut.paid) for e in history.evenings for h in e.hands]
    assert played == [(x.deal, x.winner, x.discarder, x.net, x.seating, x.jiang, x.cut) for x in book.lines]
    assert {p.id: p.name for p in history.players} == book.names
    tonight = book.money(book.evening)
    assert sum(tonight.values()) == 0  # the players and the pot
    expected = book.shown(tonight)
    everyone = book.shown(book.money())
    for phone in phones:
        phone.no_errors()
        no_english(phone)
        shown_soon(phone, expected)
    if export is not None:
        exported = downloaded(export, "匯出全部（JSON）")
        data = json.loads(exported)
        assert history_from_json(exported) == history  # what the page gives is the ledger's history
        assert json_money(data, book.evening) == expected and json_money(data, None) == everyone
        assert csv_money(downloaded(export, "匯出全部（CSV）"), book.evening, book.names) == expected
        if book.lines:
            figures = {_name(r["誰"]): int(r["輸贏"]) for r in export.table("放槍")}
            assert figures == {n: m for n, m in everyone.items() if n != POT}
        export.no_errors()
    assert not server.tracebacks()


def how_label(book: Book, discarder: Seat | None) -> str:
    return "自摸" if discarder is None else f"{discarder.zh} {book.seated()[discarder]} 放槍"


def play_hand(phone: Phone, book: Book, n: int) -> None:
    """Hand `n` of the 將 (from 0), by the spec's pattern: a seat after the dealer wins; then the deal line."""
    steps, off = book.spec.plays[n % len(book.spec.plays)]
    hand, typed = HANDS[n % 2]
    winner = book.seat(steps)
    discarder = None if off is None else book.seat(off)
    seq = sum(line.evening == book.evening for line in book.lines) + 1
    phone.deal_line(seq, book.deal, book.seated())  # the phone is up to date (it watches the table)
    net = book.won(hand, winner, discarder)
    type_hand(phone.page, typed)
    phone.choose("誰胡了", winner.zh)
    phone.choose("怎麼胡", how_label(book, discarder))
    assert phone.payments() == paying(net)
    phone.press("胡了，記下這一局")
    phone.see(f"第 {seq} 局記好了")


def recorded_elsewhere(server, book: Book, n: int) -> None:
    """Hand `n` of the 將 (from 0), by the spec's pattern, written straight into the server's ledger file as a
    phone's page writes it (`ui.table_record.write`): the deal the ledger gives as the next, the winner that many
    seats after its dealer, judged by the table's stakes and rules. The book works it out apart, as for the page."""
    steps, off = book.spec.plays[n % len(book.spec.plays)]
    hand = HANDS[n % 2][0]
    ledger = Ledger(server.db)
    now = ledger.state(CODE)
    deal, table = now.next_deal, now.table
    result = Result(deal, seat_after(deal.dealer, steps), None if off is None else seat_after(deal.dealer, off))
    verdict = judge(seat_hand(hand, result, table.base, table.per_tai), result, table.ruleset)
    ledger.record(CODE, win(verdict), now.next_seq, table.seating, table.first_dealer)
    book.won(hand, book.seat(steps), None if off is None else book.seat(off))


def form(phone: Phone, button: str):
    return phone.page.get_by_test_id("stForm").filter(has=phone.page.get_by_role("button", name=button, exact=True))


def pick_in(phone: Phone, where, label: str, option: str) -> None:
    """`option` picked in the drop-down labelled `label` inside `where` (a form: nothing runs until it is sent)."""
    box = where.get_by_test_id("stSelectbox").filter(has_text=label).get_by_role("combobox")
    listed = phone.page.get_by_role("option", name=option, exact=True)
    for _ in range(5):  # the list opens on a tap or an arrow key once the box has settled after the last one
        box.click()
        if not listed.is_visible():
            box.press("ArrowDown")
        try:
            listed.click(timeout=2_000)
            break
        except PlaywrightTimeout:
            phone.page.keyboard.press("Escape")
    else:
        raise AssertionError(f"{phone.name}: {option} is not offered in {label}")
    assert box.input_value() == option


def table_settings(phone: Phone) -> None:
    unfold(phone.page, "邀請同桌的手機、牌桌設定")


def set_names_and_rules(phone: Phone, book: Book) -> None:
    from ui.text import ruleset_label

    table_settings(phone)
    settings = form(phone, "儲存牌桌設定")
    for seat, name in zip(SEATS, book.spec.names, strict=True):
        settings.get_by_role("textbox", name=seat.zh, exact=True).fill(name)
    pick_in(phone, settings, "台數規則", ruleset_label(book.spec.ruleset, "traditional"))
    phone.press("儲存牌桌設定")
    book.names = dict(enumerate(book.spec.names, start=1))


def rename(phone: Phone, book: Book, who: int, name: str) -> None:
    table_settings(phone)
    seat = SEATS[book.seating.index(who)]
    form(phone, "儲存牌桌設定").get_by_role("textbox", name=seat.zh, exact=True).fill(name)
    phone.press("儲存牌桌設定")
    book.names[who] = name


def set_cut(phone: Phone, book: Book) -> None:
    per, amount, cap, to = book.spec.cut
    table_settings(phone)
    cut = form(phone, "儲存東錢設定")
    cut.get_by_text("每次自摸抽" if per == "self_draw" else "每局胡牌抽", exact=True).click()
    cut.get_by_role("spinbutton", name="每次抽多少").fill(str(amount))
    cut.get_by_role("spinbutton", name="整晚最多抽多少").fill(str(cap))
    pick_in(phone, cut, "東錢給誰", "公費" if to is None else book.names[to])
    phone.press("儲存東錢設定")


def seat_players(phone: Phone, book: Book, seating: tuple[int, int, int, int], first_dealer: Seat) -> None:
    """The seats given seat by seat and 起莊, on the seating form (folded before a 將's first hand)."""
    if phone.page.locator("[data-testid=stExpander] summary").filter(has_text="排座位（抓位）").count():
        unfold(phone.page, "排座位（抓位）")
    seats = form(phone, "照這樣坐")
    for seat, who in zip(SEATS, seating, strict=True):
        pick_in(phone, seats, seat.zh, book.names[who])
    seats.get_by_test_id("stRadio").get_by_text(first_dealer.zh, exact=True).click()
    phone.press("照這樣坐")
    book.seat_jiang(seating, first_dealer)


def draw_seats(phone: Phone, book: Book, server) -> None:
    """抽位 once the 將 is over: the seats (and 起莊, unless given) drawn by the ledger, shown the same on every
    phone; the book takes them from the page's line, checked against the ledger's."""
    seats = form(phone, "抽位（隨機排座位）")
    dealer = "抽" if book.spec.drawn_dealer is None else book.spec.drawn_dealer.zh
    seats.get_by_test_id("stRadio").get_by_text(dealer, exact=True).click()
    phone.press("抽位（隨機排座位）")
    jiang = Ledger(server.db).state(CODE).table.jiang
    assert jiang.drawn and jiang.number == book.jiang + 1
    assert book.spec.drawn_dealer in (None, jiang.first_dealer)
    book.seat_jiang(jiang.seating, jiang.first_dealer)


def seats_shown(phone: Phone, book: Book) -> None:
    """The drawn 將's seats, on the page as the ledger keeps them."""
    line = " · ".join(f"{s.zh} {n}" for s, n in book.seated().items())
    phone.see(f"第 {book.jiang} 將的座位（抽的）：{line} · {book.first_dealer.zh}起莊", exact=True)


def close_evening(phone: Phone, book: Book) -> None:
    history_panel(phone)
    phone.press(f"結束這一晚（第 {book.evening} 晚）")
    phone.see("確定結束這一晚？")
    phone.press("確定結束這一晚")
    phone.see("還沒有記任何一局。")
    book.evening, book.jiang = book.evening + 1, 1  # its first 將 is seated on the page


def turn(phones: tuple[Phone, Phone], n: int) -> Phone:
    """The phone that plays hand `n` of a 將 (from 0): four hands on each in turn."""
    return phones[n // 4 % 2]


def play_jiang(book: Book, phones: tuple[Phone, Phone], server, stops: dict[int, callable], page: set[int],
               last_on_page: bool) -> None:
    """Hands until the 將 ends: hand n (from 1) played on a phone where n is in `page` (or it ends the 將 and
    `last_on_page`), then a check; else written into the ledger as another phone would (`recorded_elsewhere`).
    `stops[n]` runs after hand n, then a check with the downloads on the phone whose turn it was not (every stop is
    reached)."""
    n = 0
    while not book.jiang_over():
        steps, _ = book.spec.plays[n % len(book.spec.plays)]
        played = n + 1 in page or (last_on_page and book.ends_jiang(book.seat(steps)))
        if played:
            play_hand(turn(phones, n), book, n)
        else:
            recorded_elsewhere(server, book, n)
        if n + 1 in stops:
            stops.pop(n + 1)()
            check(server, book, *phones, export=turn(phones, n + 4))
        elif played:
            check(server, book, *phones)
        n += 1
    assert not stops, f"the 將 ended after {n} hands, before {sorted(stops)}"


@pytest.mark.parametrize("spec", SPECS)
def test_a_whole_evening_of_two_jiang_on_two_phones(evening, spec):
    server, browser = evening
    book = Book(spec)
    a, b = (Phone(browser, server.url, name, CODE) for name in "AB")

    set_names_and_rules(a, book)
    check(server, book, a)
    set_cut(a, book)
    rules = Ledger(server.db).state(CODE).table
    assert (rules.ruleset, rules.cut.per, rules.cut.amount, rules.cut.cap, rules.cut.to) == (spec.ruleset, *spec.cut)
    b.open()  # it reads the names the other phone set
    check(server, book, a, b)
    seat_players(b, book, spec.seating, spec.first_dealer)
    a.deal_line(1, book.deal, book.seated())
    check(server, book, a, b)
    phones = (a, b)

    # The first 將: the 詐摸 and the rename on the way, 東錢 up to its cap.
    def false_draw() -> None:
        _, steps, claimed = spec.false_draw
        caller = book.seat(steps)
        seq = len(book.lines) + 1
        a.deal_line(seq, book.deal, book.seated())  # the phone is up to date
        net = book.false_draw(caller, claimed)
        a.press("詐摸")
        a.choose("誰詐摸", caller.zh)
        claim = a.page.get_by_role("spinbutton", name="他說胡幾台")
        claim.fill(str(claimed))
        claim.press("Enter")
        a.settle()
        a.press("確定記下詐摸")
        a.see(f"第 {seq} 局記好了：{caller.zh} {book.seated()[caller]} 詐摸 {claimed} 台")
        assert Ledger(server.db).hands(CODE)[-1].line.net == net
        a.deal_line(seq + 1, book.deal, book.seated())
        screenshot(a.page, f"jiang-{spec.seating[0]}-false-draw-390.png")

    def renamed() -> None:  # on one phone; the other, which records the next hand, reloads
        n, who, name = spec.rename
        records = turn(phones, n)
        renames = b if records is a else a
        renames.deal_line(len(book.lines) + 1, book.deal, book.seated())  # the hand just written elsewhere, seen
        before = book.money(book.evening)
        rename(renames, book, who, name)
        assert book.money(book.evening) == before  # the same money, by id: the page shows it under the new name
        records.open()  # it names the player anew, the money unmoved

    stops = {spec.false_draw[0]: false_draw, spec.rename[0]: renamed}
    cap_at = next(n for n in range(1, 30) if _cut_total(book, spec, n) >= spec.cut[2])
    stops.setdefault(cap_at, lambda: None)
    page = {1, 2, cap_at, spec.false_draw[0] + 1, spec.rename[0] + 1}
    play_jiang(book, phones, server, stops, page, last_on_page=True)
    assert sum(n for line in book.lines for _, n in line.cut) == spec.cut[2]  # the cap was reached

    # The 將 is over on both phones: the seats are drawn on one, the other shows the same.
    for phone in (a, b):
        phone.see("第 1 將打完了（北風圈打完）：排好下一將的座位和起莊，下一局從東風圈打起。")
    check(server, book, a, b, export=a)
    screenshot(b.page, f"jiang-{spec.seating[0]}-over-390.png")
    draw_seats(b, book, server)
    a.open()
    for phone in (a, b):
        seats_shown(phone, book)
        phone.deal_line(len(book.lines) + 1, book.deal, book.seated())
    check(server, book, a, b)

    # The second 將, played out (its end written by another phone): each 將's subtotals beside the evening's.
    play_jiang(book, phones, server, {}, {1, 2}, last_on_page=False)
    a.open()
    for phone in (a, b):
        phone.see("第 2 將打完了（北風圈打完）")
    check(server, book, a, b, export=b)
    ids: dict[str, int | str] = {n: i for i, n in book.names.items()} | {POT: "pot"}
    for row in a.table("合計"):
        for number in (1, 2):
            assert int(row[f"第 {number} 將"]) == book.money(book.evening, number).get(ids[_name(row["玩家"])], 0)
    screenshot(a.page, f"jiang-{spec.seating[0]}-two-jiang-390.png")

    # The evening closed on one phone; the next one seated and started on the other.
    close_evening(a, book)
    b.open()
    check(server, book, a, b, export=b)
    seat_players(b, book, spec.next_seating, spec.next_dealer)
    a.open()
    a.deal_line(1, book.deal, book.seated())
    for n in range(spec.next_hands):
        play_hand((a, b)[n % 2], book, n)
        check(server, book, a, b, export=a if n == spec.next_hands - 1 else None)
    screenshot(b.page, f"jiang-{spec.seating[0]}-next-evening-390.png")
    a.close()
    b.close()


def _cut_total(book: Book, spec: Spec, hands: int) -> int:
    """The 東錢 the first `hands` of the pattern take (the 詐摸 aside): where the cap is reached."""
    per, amount, _, _ = spec.cut
    wins = [off for _, off in (spec.plays[n % len(spec.plays)] for n in range(hands))]
    return amount * sum(per == "win" or off is None for off in wins)


def test_what_a_player_types_in_the_table_settings_stays_while_another_phone_records_a_hand(evening):
    """A new name and a 東錢 cap typed on one phone while another records the table's first hand: the page runs again
    (it watches the table) and keeps them, and its buttons save them. (Keyed by the table's revision, the forms were
    drawn anew with the table's values as they were, and a tap saved those: a rename lost without a word. The fold
    they are in, placed by where it stood, was drawn anew folded when the seating fold above it went at the first
    hand.)"""
    server, browser = evening
    ledger = Ledger(server.db)
    ledger.open_table(CODE)

    def other_phone_records(seq: int) -> None:  # 南家 自摸 as the ledger says the deal is
        result = Result(ledger.state(CODE).next_deal, Seat.S)
        ledger.record(CODE, win(judge(seat_hand(HAND, result, BASE, PER_TAI), result)), seq)

    a = Phone(browser, server.url, "A", CODE)
    table_settings(a)
    form(a, "儲存牌桌設定").get_by_role("textbox", name="東家", exact=True).fill("阿明")
    form(a, "儲存東錢設定").get_by_role("spinbutton", name="整晚最多抽多少").fill("300")
    other_phone_records(1)
    a.deal_line(2, ledger.state(CODE).next_deal)  # this phone has run again
    assert not a.page.get_by_text("排座位（抓位）、起莊、加入新玩家").count()  # the fold above went
    form(a, "儲存東錢設定").get_by_text("每次自摸抽", exact=True).click()
    a.press("儲存東錢設定")
    assert ledger.state(CODE).table.cut == CutRule("self_draw", 100, 300, None)
    a.press("儲存牌桌設定")  # the name typed stays through that save too
    assert ledger.state(CODE).table.names == ("阿明", "", "", "")
    a.no_errors()
    a.close()
