"""東錢: a table's cut from each 自摸 or each hand won, up to a cap for the evening, to a player or the pot.
The players and the pot add up to the payments' sum on every hand and over the evening."""

import pytest

from ledger import CutRule, Ledger, LedgerError, read_csv, totals, write_csv
from scoring.payout import Deal
from scoring.seats import Wind
from tests.example_hands import HAND
from tests.test_ledger import OTHER_HAND, E, N, S, W, played, shared
from tests.test_ledger_players import friday, passing, record_next


@pytest.fixture
def book(tmp_path):
    return friday(tmp_path, "tw16-improved")


def self_draw(deal: Deal):
    return played(HAND, deal, winner=deal.dealer.step())  # the next seat draws its own tile: the deal passes


def balanced(led: Ledger) -> None:
    """Every hand's and the evening's players and pot add up to zero; the CSV says the same."""
    evening = led.state("friday")
    for h in evening.hands:
        assert sum(h.net_by_player.values()) + h.pot == sum(h.line.net) == 0
    assert sum(totals(evening.hands).values()) + sum(h.pot for h in evening.hands) == 0
    assert read_csv(write_csv(evening.hands, evening.table.players)) == evening.hands


def test_a_cut_from_each_self_draw_goes_to_the_host_until_the_cap(book):
    host = book.add_player("friday", "老闆").players[-1].id
    book.set_cut("friday", CutRule("self_draw", 100, 250, host))
    first = record_next(book, self_draw)  # 南家 (阿華) draws its own: 100 to the host
    assert first.cut.paid == ((S, 100),) and first.net_by_player[2] == first.line.net[1] - 100
    assert first.net_by_player[host] == 100
    off = record_next(book, passing)  # a win off a discard: no 東錢 from it
    assert off.cut is None and off.net_by_player == dict(zip((1, 2, 3, 4), off.line.net, strict=True))
    record_next(book, self_draw)
    last = record_next(book, self_draw)  # 250 reached: 50 of this one
    assert last.cut.total == 50
    assert record_next(book, self_draw).cut is None  # the cap is reached: no more
    assert totals(book.hands("friday"))[host] == 250
    balanced(book)


def test_a_cut_from_each_hand_won_goes_to_the_pot_and_each_winner_of_one_discard_pays(book):
    book.set_cut("friday", CutRule("win", 30, 1000, None))
    record_next(book, passing)
    two = record_next(book, lambda d: shared(d, W, (HAND, N), (OTHER_HAND, E)))
    assert two.cut.paid == ((N, 30), (E, 30)) and two.pot == 60 and two.cut.to is None
    balanced(book)
    assert sum(h.pot for h in book.hands("friday")) == 90


def test_an_edit_takes_the_cut_the_cap_leaves_and_an_undo_gives_it_back(book):
    book.set_cut("friday", CutRule("self_draw", 100, 150, 3))  # to 小美, one of the players
    one = record_next(book, passing)
    record_next(book, self_draw)
    edited = book.edit("friday", 1, self_draw(one.line.deal), one.revision)  # it was a 自摸 after all
    assert edited.cut.total == 50  # hand 2 took 100 of the 150
    balanced(book)
    last = book.hands("friday")[-1]
    book.undo("friday", last.seq, last.revision)
    again = record_next(book, self_draw)
    assert again.cut.total == 100  # the cap counts the hands there are
    balanced(book)


def test_a_hand_before_the_rule_keeps_none_and_none_is_taken_once_it_is_off(book):
    early = record_next(book, self_draw)
    book.set_cut("friday", CutRule("self_draw", 100, 100, None))
    assert book.hands("friday")[0] == early and early.cut is None
    assert [record_next(book, self_draw).pot for _ in range(2)] == [100, 0]
    book.set_cut("friday", None)
    assert record_next(book, self_draw).cut is None


@pytest.mark.parametrize(("rule", "words"), [
    (CutRule("each", 100, 200, None), "自摸、還是從每一局胡牌"),
    (CutRule("win", 0, 200, None), "東錢每次要是 1 到"),
    (CutRule("win", 100, 50, None), "東錢上限要是 100 到"),
    (CutRule("win", "100", 200, None), "東錢每次要是"),
    (CutRule("win", 100, 200, 9), "收東錢的人要是這一桌的玩家"),
    (CutRule("win", 100, 200, True), "收東錢的人要是這一桌的玩家"),  # not player 1: the file would not read back
    ((100, 200), "東錢要說是"),
])
def test_a_cut_rule_from_the_page_is_checked(book, rule, words):
    revision = book.revision("friday")
    with pytest.raises(LedgerError, match=words):
        book.set_cut("friday", rule)
    assert book.revision("friday") == revision and book.state("friday").table.cut is None


def test_the_rule_is_kept_for_every_phone(book):
    table = book.set_cut("friday", CutRule("win", 50, 500, 1))
    assert Ledger(book.path).state("friday").table.cut == CutRule("win", 50, 500, 1) == table.cut
    assert record_next(book, lambda d: played(HAND, d, winner=d.dealer)).line.deal == Deal(Wind.E, E, 0)
