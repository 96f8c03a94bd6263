"""Evenings kept: an evening is closed and the next one opened; the table's history across them, each
player's figures, and the whole history as CSV and as JSON that reads back equal."""

import csv
import io
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import (
    Conflict,
    CutRule,
    HistoryError,
    Ledger,
    LedgerError,
    draw,
    false_win,
    history_from_json,
    history_json,
    penalty,
    player_figures,
    totals,
    write_history_csv,
)
from scoring.hand import Hand
from scoring.payout import judge_false_win
from scoring.random_hands import random_winning_hand
from scoring.seats import SEATS
from tests.example_hands import HAND
from tests.test_ledger import IMPROVED, OTHER_HAND, E, N, S, W, played, shared
from tests.test_ledger_players import passing, play_jiang, record_next


@pytest.fixture
def book(tmp_path):
    led = Ledger(tmp_path / "taishu.db")
    led.open_table("friday", ruleset=IMPROVED)
    led.update_table("friday", ("阿明", "阿華", "小美", "大雄"), E, 100, 20, IMPROVED)
    return led


def called(deal, caller, self_drawn=False):
    payout = judge_false_win(caller, 5, {s: None for s in SEATS if s != caller}, deal, 20, IMPROVED)
    return false_win(payout, deal, IMPROVED, self_drawn)


def two_evenings(led: Ledger) -> None:
    """Evening 1: a 將 and a hand (a 自摸 with a photo), a 詐摸; evening 2, seated anew: a discard won by two,
    a 詐胡, a penalty."""
    play_jiang(led)
    led.start_jiang("friday", led.revision("friday"), (2, 3, 4, 1), S)
    record_next(led, lambda d: played(HAND, d, winner=N, photo="photo-big"))  # 阿明 (北家) draws its own
    record_next(led, lambda d: called(d, N, self_drawn=True))  # 阿明 again: a 詐摸
    led.close_evening("friday", led.revision("friday"))
    led.start_jiang("friday", led.revision("friday"), (4, 3, 2, 1), E)
    record_next(led, lambda d: shared(d, W, (HAND, N), (OTHER_HAND, E)))  # 阿華 deals in, 阿明 and 大雄 win
    record_next(led, lambda d: called(d, S))  # 小美 calls a 詐胡
    record_next(led, lambda d: penalty(d, (0, 0, 0, -100), "遲到"))


def test_an_evening_is_closed_and_the_next_one_starts_afresh(book):
    with pytest.raises(LedgerError, match="這一晚還沒有記任何一局"):
        book.close_evening("friday", book.revision("friday"))
    record_next(book, passing)
    book.set_cut("friday", CutRule("self_draw", 50, 50, None))
    record_next(book, lambda d: played(HAND, d, winner=d.dealer))
    with pytest.raises(Conflict, match="看過現在的帳再結束這一晚"):
        book.close_evening("friday", book.revision("friday") - 1)
    table = book.close_evening("friday", book.revision("friday"))
    evening = book.state("friday")
    assert table.evening == evening.table.evening == 2 and evening.hands == [] and evening.next_seq == 1
    assert table.jiang.number == 1 and table.seating == (1, 2, 3, 4) and table.names[0] == "阿明"
    one = record_next(book, lambda d: played(HAND, d, winner=d.dealer))
    assert one.seq == 1 and one.pot == 50  # the cap is the evening's: a new evening, a new cap
    with pytest.raises(Conflict, match="第 2 局已經被別的手機刪掉了"):
        book.undo("friday", 2, table.revision)  # a closed evening's hand is not this evening's to undo
    history = book.history("friday")
    assert [e.number for e in history.evenings] == [1, 2] and [len(e.hands) for e in history.evenings] == [2, 1]
    assert history.evenings[0].closed_at is not None and history.evenings[1].closed_at is None


def test_each_players_figures_across_the_evenings(book):
    two_evenings(book)
    history = book.history("friday")
    figures = player_figures(history)
    hands = [h for _, h in history.hands()]
    assert {p: f.net for p, f in figures.items()} == totals(hands) and sum(totals(hands).values()) == -100
    ming = figures[1]  # 阿明: 東家 in the first 將, then 北家
    assert (ming.hands, ming.self_drawn, ming.false_draws, ming.false_wins) == (21, 1, 1, 0)
    assert ming.won == sum(1 for h in hands[:16] if h.line.winner == E) + 2  # the 自摸 and one of the two
    assert ming.biggest.photo_id == "photo-big" and ming.biggest.evening == 1 and ming.biggest.seq == 17
    assert ming.biggest.tai == hands[16].line.total
    hua = figures[2]
    assert hua.dealt_in == sum(1 for h in hands[:16] if h.line.discarder == S) + 1 and hua.false_wins == 0
    assert figures[3].false_wins == 1 and figures[4].won == sum(1 for h in hands[:16] if h.line.winner == N) + 1


def test_the_whole_history_as_csv(book):
    two_evenings(book)
    history = book.history("friday")
    rows = list(csv.DictReader(io.StringIO(write_history_csv(history))))
    assert [(r["evening"], r["seq"]) for r in rows] == [("1", str(n)) for n in range(1, 19)] + [
        ("2", str(n)) for n in (1, 2, 3)]
    figures = player_figures(history)
    for p in history.players:
        assert sum(int(r[f"玩家{p.id} {p.name}"] or 0) for r in rows) == figures[p.id].net


def test_the_history_as_json_carries_the_hands_and_reads_back_equal(book):
    two_evenings(book)
    history = book.history("friday")
    text = json.dumps(history_json(history), ensure_ascii=False)
    assert history_from_json(text) == history == history_from_json(json.loads(text))
    won = history_json(history)["evenings"][0]["hands"][16]
    hand = Hand.from_json(won["hand"])  # tiles, melds, flowers, situation
    assert hand == history.evenings[0].hands[16].scored_hand() and won["photo_id"] == "photo-big"
    two = history_json(history)["evenings"][1]["hands"][0]
    assert [o["winner"] for o in two["others"]] == ["E"] and Hand.from_json(two["others"][0]["hand"])


@pytest.mark.parametrize(("change", "where"), [
    (lambda d: d["evenings"][1]["hands"][0]["net"].__setitem__(0, 1), "evenings[1]: hands[0]: net"),
    (lambda d: d["evenings"][0]["hands"][3].__setitem__("seating", [1, 2, 3, 9]), "hands[3]: seating"),
    (lambda d: d["evenings"][0]["jiangs"][1].__setitem__("first_dealer", "X"), "jiangs[1]: first_dealer"),
    (lambda d: d["evenings"][0]["hands"][0].pop("cut"), "evenings[0]: hands[0]: expected an object"),
    (lambda d: d["evenings"][0]["hands"][16]["hand"].__setitem__("concealed", "x"), None),
    (lambda d: d.__setitem__("version", 2), "expected format"),
    (lambda d: d["players"].append({"id": 1, "name": "又一個"}), "two with one id"),
])
def test_json_that_is_not_as_the_ledger_writes_it_is_refused_saying_where(book, change, where):
    two_evenings(book)
    data = history_json(book.history("friday"))
    change(data)
    if where is None:  # the stored hand is kept as it was scored, and checked when asked (Recorded.scored_hand)
        with pytest.raises(LedgerError, match="第 17 局存的牌"):
            history_from_json(data).evenings[0].hands[16].scored_hand()
        return
    with pytest.raises(HistoryError, match=where.replace("[", r"\[").replace("]", r"\]")):
        history_from_json(data)


LINES = ("win", "self", "draw", "penalty", "false_win", "false_draw", "shared")


def a_line(action: str, deal, rng: random.Random):
    """A line of kind `action` under `deal`, its seats and hand drawn by `rng`."""
    winner = rng.choice(SEATS)
    if action in ("win", "self"):
        discarder = next(s for s in SEATS if s != winner) if action == "win" else None
        return played(random_winning_hand(rng, situation=False), deal, winner, discarder,
                      photo=rng.choice([None, "p1"]))
    if action in ("false_win", "false_draw"):
        return called(deal, winner, self_drawn=action == "false_draw")
    if action == "penalty":
        return penalty(deal, (rng.randint(-500, -1), 0, 0, 0), "遲到")
    return draw(deal) if action == "draw" else shared(deal, W, (HAND, N), (OTHER_HAND, E))


ACTIONS = st.lists(st.sampled_from(["win", "self", "draw", "penalty", "false_win", "false_draw", "shared",
                                    "jiang", "close", "rename", "cut"]), min_size=1, max_size=14)


@settings(max_examples=12, deadline=None)
@given(actions=ACTIONS, seed=st.integers(0, 2**32 - 1))
def test_any_history_reads_back_equal_from_its_json(tmp_path_factory, actions, seed):
    rng = random.Random(seed)
    led = Ledger(tmp_path_factory.mktemp("history") / "taishu.db")
    led.open_table("t", ruleset=IMPROVED)
    for action in actions:
        evening = led.state("t")
        deal, seq = evening.next_deal, evening.next_seq
        if action in LINES:
            led.record("t", a_line(action, deal, rng), seq)
        elif action == "jiang" and (evening.jiang_over or not evening.hands):
            led.start_jiang("t", evening.table.revision)
        elif action == "close" and evening.hands:
            led.close_evening("t", evening.table.revision)
        elif action == "rename":
            player = rng.randint(1, 4)  # a name no other player has: the id in it
            led.rename_player("t", player, rng.choice(["", "阿明", "Ann", "小 美"]) + f"{seq}-{player}")
        elif action == "cut":
            led.set_cut("t", rng.choice([None, CutRule("win", 10, 25, rng.choice([None, 2]))]))
    history = led.history("t")
    assert history_from_json(json.dumps(history_json(history), ensure_ascii=False)) == history
    assert sum(f.net for f in player_figures(history).values()) + sum(
        h.pot for _, h in history.hands()) == sum(sum(h.line.net) for _, h in history.hands())
