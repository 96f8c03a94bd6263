"""Random evenings at one table on two phones: the paths nobody wrote down, with the money checked after every step.

Two phones are two Streamlit AppTest sessions of app.py at `?table=`, sharing one ledger file (TAISHU_DB, as in
tests/test_app_table.py). Hypothesis (`RuleBasedStateMachine`) plays random sequences of what a table does: a hand
recorded (typed, won by any seat, self-drawn or off any other), a 流局, an edit saved or cancelled, an undo; the
ruleset switched and 底 or 每台 changed (③ and 規則 are the table's); the teach and data-set pages visited and left;
a phone reloaded (a fresh session at the address it left: it gets back the hand it had, `ui/resume.py`), both phones
recording one hand at once or a phone losing the race (with a request its browser sent before it drew the run that
moved it on), and a restart (both fresh, the hands kept for a reload gone); the rest of a 將 played (by a third
phone, straight into the ledger), seats drawn again on a phone where the 將 allows it, and 東錢 set on a phone.

After every step, each phone run again (settled), it checks:
- each phone shows the table's 底, 每台 and ruleset, and the table's next deal and hand number;
- every recorded line is the hand that was played, under the deal that follows the line before it, and pays what
  the scorer (`scoring.payout.judge`, as `python -m scoring score`) says for the rules and stakes the table had when
  it was recorded: an edit keeps them, whatever the table's are now;
- each hand's players (by its seating) and 東錢 pot add up to its payments' sum, and the evening's too: zero;
- each phone's totals by player are the sums of the lines by who sat where, the pot's 東錢 a row of its own; the two
  phones show the same totals and the same lines.

CI runs 4 examples of 10 steps (under a minute on two cores; `slow`: the standalone pass leaves it out). A longer run:
TAISHU_STATEFUL_EXAMPLES=200 .venv/bin/python -m pytest -q tests/test_app_stateful.py
"""

import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as hs
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from streamlit.testing.v1 import AppTest

from ledger import CutRule, Ledger, deal_after_line, win
from scoring.draft import from_text, to_hand
from scoring.hand import Situation
from scoring.payout import Deal, Result, judge, seat_hand
from scoring.ruleset import available_rulesets, ruleset_stem
from scoring.seats import SEATS, Wind
from tests.app_driver import box, choose, chosen, ok, press
from tests.example_hands import TYPED
from tests.test_app_money import stale
from tests.test_app_table import APP, DRAW, RECORD, SURE_DRAW, shown_deal, totals_shown
from ui import resume
from ui.state import Desk
from ui.table import DB_ENV, POT, player_label
from ui.table_desk import cut_version

pytestmark = pytest.mark.slow
EXAMPLES = int(os.environ.get("TAISHU_STATEFUL_EXAMPLES", "4"))
CODE = "evening"
HANDS = (TYPED, "123456789m 234p 678s 5s 和5s")  # each a win for any seat, under every ruleset
RULESETS = available_rulesets()
WAYS_OUT = ("先教認這副牌的花", "教認這一桌的牌（照片常讀錯時）", "資料集檢查")  # to the teach and data-set pages
seats = hs.sampled_from(SEATS)
hows = hs.sampled_from((None, *SEATS))  # None: 自摸; a seat: off its discard (another seat is taken if it won)


@dataclass(frozen=True)
class Line:
    """A line as played: the hand typed, who won and how (None: a 流局), and the table's stakes and rules then."""

    text: str | None
    winner: object
    discarder: object
    base: int
    per_tai: int
    ruleset: str


def how_label(winner, how) -> str:
    if how is None:
        return "自摸"
    if how == winner:
        how = how.step()
    return f"{how.zh} 放槍"


def discarder_of(winner, how):
    return None if how is None else (how.step() if how == winner else how)


def type_in(at: AppTest, text: str) -> None:
    if box(at, "text").value == text:  # still there from the last hand, which was cleared
        press(at, "讀入文字")
    else:
        ok(box(at, "text").set_value(text).run())


def enter(at: AppTest, text: str, winner, how) -> None:
    type_in(at, text)
    choose(at, "winner", winner.zh)
    choose(at, "how", how_label(winner, how))


def stakes_shown(at: AppTest) -> tuple[int, int, str]:
    return box(at, "base").value, box(at, "per_tai").value, box(at, "ruleset").value


def pays(line: Line, deal: Deal) -> tuple[int, ...]:
    """What the scorer says the line pays, apart from the page: the hand typed, seated by who won under `deal`."""
    if line.winner is None:
        return (0, 0, 0, 0)
    result = Result(deal, line.winner, line.discarder)
    hand = seat_hand(to_hand(from_text(line.text), Situation()), result, line.base, line.per_tai)
    return judge(hand, result, line.ruleset).payout.nets


class Evening(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        self.db = Path(self.folder.name) / "taishu.db"
        self.env = os.environ.get(DB_ENV)
        os.environ[DB_ENV] = str(self.db)
        self.ledger = Ledger(self.db)
        self.ledger.open_table(CODE)
        self.lines: dict[int, Line] = {}  # by hand number: what each recorded line was
        self.phones = [self.phone(), self.phone()]

    def teardown(self) -> None:
        if self.env is None:
            os.environ.pop(DB_ENV, None)
        else:
            os.environ[DB_ENV] = self.env
        self.folder.cleanup()

    @staticmethod
    def phone(address: dict | None = None) -> AppTest:
        """A phone's page at the table; `address`: the one a page left (its ?phone= too), opened again."""
        at = AppTest.from_file(str(APP), default_timeout=60)
        at.query_params.update(address or {"table": CODE})
        return ok(at.run())

    def table_now(self) -> tuple[int, int, str]:
        table = self.ledger.state(CODE).table
        return table.base, table.per_tai, ruleset_stem(table.ruleset)

    def played(self, text, winner, discarder) -> Line:
        return Line(text, winner, discarder, *self.table_now())

    def last_seq(self) -> int:
        return self.ledger.state(CODE).last_seq

    # -- the evening ----------------------------------------------------------------------------------------
    @rule(p=hs.integers(0, 1), text=hs.sampled_from(HANDS), winner=seats, how=hows)
    def record(self, p, text, winner, how):
        at = self.phones[p]
        enter(at, text, winner, how)
        line = self.played(text, winner, discarder_of(winner, how))
        press(at, RECORD)
        self.lines[self.last_seq()] = line

    @rule(p=hs.integers(0, 1))
    def draw(self, p):
        at = self.phones[p]
        line = self.played(None, None, None)
        press(at, DRAW)
        press(at, SURE_DRAW)
        self.lines[self.last_seq()] = line

    def won(self) -> list[int]:
        return [seq for seq, line in self.lines.items() if line.winner is not None]

    @precondition(lambda self: self.won())
    @rule(p=hs.integers(0, 1), pick=hs.integers(0, 100), how=hows, save=hs.booleans())
    def edit(self, p, pick, how, save):
        """An earlier win opened for a fix: another 怎麼胡, saved; or the edit cancelled."""
        at, seq = self.phones[p], sorted(self.won())[pick % len(self.won())]
        ok(at.selectbox(key="table_edit_pick").set_value(seq).run())
        press(at, "修改這一局")
        line = self.lines[seq]
        assert stakes_shown(at) == (line.base, line.per_tai, line.ruleset), "the edit is not under the hand's stakes"
        assert chosen(at, "winner").startswith(line.winner.zh)
        if not save:
            press(at, "取消修改")
            assert at.session_state["hand"].draft.empty and chosen(at, "winner") is None
            return
        choose(at, "how", how_label(line.winner, how))
        press(at, "更新這一局")
        self.lines[seq] = replace(line, discarder=discarder_of(line.winner, how))

    @precondition(lambda self: self.lines)
    @rule(p=hs.integers(0, 1))
    def undo(self, p):
        at, last = self.phones[p], max(self.lines)
        press(at, f"刪掉最後一局（第 {last} 局）")
        press(at, "確定刪掉")
        del self.lines[last]

    # -- the table's settings ---------------------------------------------------------------------------------
    @rule(p=hs.integers(0, 1), ruleset=hs.sampled_from(RULESETS))
    def switch_rules(self, p, ruleset):
        ok(box(self.phones[p], "ruleset").set_value(ruleset).run())
        assert self.table_now()[2] == ruleset

    @rule(p=hs.integers(0, 1), base=hs.sampled_from((0, 50, 100)), per_tai=hs.sampled_from((10, 20, 50)))
    def change_stakes(self, p, base, per_tai):
        at = self.phones[p]
        if not box(at, "base").disabled:  # a table without 底: greyed out
            ok(box(at, "base").set_value(base).run())
        ok(box(at, "per_tai").set_value(per_tai).run())
        assert self.table_now()[1] == per_tai

    # -- the other pages, reloads, races, a restart -------------------------------------------------------------
    @rule(p=hs.integers(0, 1), way=hs.sampled_from(WAYS_OUT))
    def visit(self, p, way):
        at = self.phones[p]
        if way == "資料集檢查":
            ok(at.sidebar.radio(key="page").set_value(way).run())
        elif any(b.label == way for b in at.button):
            press(at, way)
        ok(at.sidebar.radio(key="page").set_value("台數").run())

    @rule(p=hs.integers(0, 1))
    def reload(self, p):
        self.phones[p] = self.phone(dict(self.phones[p].query_params))

    @rule(p=hs.integers(0, 1), text=hs.sampled_from(HANDS), winner=seats, how=hows)
    def reload_mid_hand(self, p, text, winner, how):
        """A phone reloaded with a hand entered: the hand is given back, and recorded as it was entered."""
        enter(self.phones[p], text, winner, how)
        at = self.phones[p] = self.phone(dict(self.phones[p].query_params))
        assert at.session_state["hand"].draft == from_text(text) and chosen(at, "winner").startswith(winner.zh)
        line = self.played(text, winner, discarder_of(winner, how))
        press(at, RECORD)
        self.lines[self.last_seq()] = line

    @rule()
    def restart(self):
        resume.shelf.clear()  # the server's memory: the hands it kept for a reload go with it
        self.phones = [self.phone(dict(at.query_params)) for at in self.phones]

    @rule(first=hs.integers(0, 1), text=hs.sampled_from(HANDS), winner=seats, how=hows, other=hs.none() | seats)
    def race(self, first, text, winner, how, other):
        """Both phones enter a hand and record it, one just after the other: the same hand (`other` None) is kept
        once; another winner loses the race and keeps its hand. The second phone's browser then sends a request
        made before it drew the run that moved it on."""
        a, b = self.phones[first], self.phones[1 - first]
        enter(a, text, winner, how)
        enter(b, text, other or winner, how)
        line = self.played(text, winner, discarder_of(winner, how))
        press(a, RECORD)
        before = b._tree.get_widget_states()
        press(b, RECORD)
        self.lines[self.last_seq()] = line
        if other is None or other == winner:
            assert any(s.value.startswith(f"第 {self.last_seq()} 局記好了") for s in b.success)
        else:
            assert any("別的手機剛記了" in w.value for w in b.warning)
            press(b, "清空手牌")
        ok(b._run(stale(before)))

    # -- 將, seats, 東錢 ------------------------------------------------------------------------------------------
    @rule()
    def rest_of_the_jiang(self):
        """The open 將 played out by another phone, straight into the ledger: each hand won off the dealer by the
        seat after it (the deal passes), until the 將 is over."""
        evening = self.ledger.state(CODE)
        while not evening.jiang_over:
            deal = evening.next_deal
            line = self.played(TYPED, deal.dealer.step(), deal.dealer)
            result = Result(deal, line.winner, line.discarder)
            hand = seat_hand(to_hand(from_text(TYPED), Situation()), result, line.base, line.per_tai)
            self.ledger.record(CODE, win(judge(hand, result, line.ruleset)), evening.next_seq)
            self.lines[evening.next_seq] = line
            evening = self.ledger.state(CODE)

    def may_seat(self) -> bool:
        evening = self.ledger.state(CODE)
        return evening.jiang_over or not any(h.jiang == evening.table.jiang.number for h in evening.hands)

    @precondition(may_seat)
    @rule(p=hs.integers(0, 1))
    def draw_seats(self, p):
        """抽位 on a phone: the ledger draws the seats and 起莊; the next hand is the 東風圈's first."""
        before = self.ledger.state(CODE).table
        press(self.phones[p], "抽位（隨機排座位）")
        after = self.ledger.state(CODE).table
        jiang = after.jiang
        assert after.revision == before.revision + 1 and jiang.drawn and sorted(jiang.seating) == sorted(before.seating)
        assert self.ledger.state(CODE).next_deal == Deal(Wind.E, jiang.first_dealer, 0)

    @rule(p=hs.integers(0, 1), per=hs.integers(0, 2), cap=hs.sampled_from((100, 300, 100_000)),
          to=hs.sampled_from((None, 1, 2, 3, 4)))
    def cut(self, p, per, cap, to):
        """東錢 set in a phone's table settings: off, or 100 from each 自摸 or each hand won, to the pot or a player."""
        at, rev = self.phones[p], cut_version(Desk(self.ledger, self.ledger.state(CODE)))
        at.radio(key=f"cut-per-{rev}").set_value(per)  # a form's: sent with its button, not on each change
        at.number_input(key=f"cut-cap-{rev}").set_value(cap)
        at.selectbox(key=f"cut-to-{rev}").set_value(to)
        press(at, "儲存東錢設定")
        assert self.ledger.state(CODE).table.cut == (None if per == 0 else CutRule(("self_draw", "win")[per - 1], 100,
                                                                                    cap, to))

    # -- after every step ---------------------------------------------------------------------------------------
    @invariant()
    def the_money_is_right(self):
        evening = self.ledger.state(CODE)
        assert not evening.damaged and [h.seq for h in evening.hands] == sorted(self.lines)
        first_dealers = {j.number: j.first_dealer for j in self.ledger.history(CODE).evenings[-1].jiangs}
        deal, jiang, money, pot = Deal(), 1, {}, 0
        for hand in evening.hands:
            played, line = self.lines[hand.seq], hand.line
            if hand.jiang != jiang:  # a new 將: the 東風圈, its 起莊 dealing
                deal, jiang = Deal(Wind.E, first_dealers[hand.jiang], 0), hand.jiang
            assert line.deal == deal, f"hand {hand.seq} recorded under another deal than the one after the last"
            assert (line.winner, line.discarder) == (played.winner, played.discarder)
            assert line.ruleset is None or ruleset_stem(line.ruleset) == played.ruleset
            assert line.net == pays(played, line.deal), f"hand {hand.seq} pays other than the scorer says"
            deal = deal_after_line(line, first_dealers[hand.jiang])
            for who, paid in zip(hand.seating, line.net, strict=True):  # the line's money, to who sat there
                money[who] = money.get(who, 0) + paid
            if hand.cut is not None:  # 東錢: from the winners who paid it, to its taker or the pot
                for seat, amount in hand.cut.paid:
                    money[hand.seating[SEATS.index(seat)]] -= amount
                if hand.cut.to is None:
                    pot += hand.cut.total
                else:
                    money[hand.cut.to] = money.get(hand.cut.to, 0) + hand.cut.total
            assert sum(hand.net_by_player.values()) + hand.pot == sum(line.net) == 0
        assert sum(money.values()) + pot == 0
        table = evening.table
        sums = {player_label(table, who, "traditional"): n for who, n in money.items()} | ({POT: pot} if pot else {})
        shown = []
        for at in self.phones:
            ok(at.run())
            assert stakes_shown(at) == (table.base, table.per_tai, ruleset_stem(table.ruleset))
            assert shown_deal(at) == evening.next_deal and f"第 {evening.next_seq} 局" in at.info[0].value
            if evening.hands:
                totals = {r["玩家"]: r["合計"] for r in totals_shown(at)}
                assert totals == sums
                shown.append((totals, at.table[-1].value.to_dict("records")))
            assert not at.error, [e.value for e in at.error]
        assert not shown or shown[0] == shown[1], "the two phones show different evenings"


Evening.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=10, deadline=None,
                                     suppress_health_check=list(HealthCheck))
test_an_evening_on_two_phones = Evening.TestCase
