"""Situations: what no table allows is refused under every ruleset, in English and in
Traditional Chinese; what one table gives to one seat (莊家專屬 / 閒家專屬) or rules out
(改良式 「海底最後一張一定要打出」) is that table's data; and the settlement and exclusion
mechanisms those tables needed. The seed lines behind each table's own cases are in
tests/rulesets/*.json."""

import copy
import json
import re
import subprocess
import sys

import pytest

from scoring import Hand, HandError, Meld, Table, available_rulesets, load_ruleset, parse_tiles, score
from scoring.cli import score_json
from scoring.notation import parse_hand
from scoring.ruleset import RULESET_DIR, RulesetError, parse_ruleset
from scoring.score import KongOriginNeeded, kong_origins_needed
from scoring.settle import settle, settle_several_winners
from tests.test_rulesets import build

PLAIN = {"concealed": "123m 456m 789m 234p 45s 99s", "win": "6s"}  # 门清 + 平胡, waits 3s 6s
DEALER_E = {"dealer": "E", "base": 50, "per_tai": 20}

# (situation, table, English fragment, Chinese fragment): what cannot happen at any table.
IMPOSSIBLE = {
    "抢杠 on a tile the winner holds (the robbed kong would make five)": (
        dict(PLAIN, concealed="123m 456m 789m 234p 45s 66s", rob_kong=True), None,
        "the robbed kong holds all four", "會變成 6 張"),
    "河底捞鱼 on a robbed tile (it was never discarded)": (
        dict(PLAIN, rob_kong=True, last_tile=True), None, "never discarded", "不是河底撈魚"),
    "杠上开花 with no kong in the hand": (
        dict(PLAIN, self_draw=True, after_kong=True), None, "has no kong", "沒有明槓或暗槓"),
    "天胡 by a non-dealer": (
        dict(PLAIN, seat="S", self_draw=True, heavenly=True), DEALER_E, "only the dealer", "天胡只有莊家能胡"),
    "地胡 by the dealer": (
        dict(PLAIN, self_draw=True, earthly=True), DEALER_E, "non-dealer's win", "莊家不能胡地胡"),
    "地胡 after an ankong (the win would be the replacement, not the first draw)": (
        dict(PLAIN, concealed="456m 789m 234p 45s 99s", melds=[["ankong", "1111z"]], seat="S",
             self_draw=True, earthly=True), None, "before any kong", "暗槓也不行"),
    "地胡 with a chi": (
        dict(PLAIN, concealed="456m 789m 234p 45s 99s", melds=[["chi", "123m"]], seat="S",
             self_draw=True, earthly=True), None, "地胡 needs 门清", "地胡要門清"),
    "人胡 with a pon": (
        dict(PLAIN, concealed="456m 789m 234p 45s 99s", melds=[["pon", "111z"]], seat="S", human=True),
        None, "人胡 needs 门清", "人胡要門清"),
}


@pytest.mark.parametrize("rules", available_rulesets())
@pytest.mark.parametrize("name", list(IMPOSSIBLE))
def test_what_no_table_allows_is_refused_in_both_scripts_under_every_ruleset(name, rules):
    hand_json, table, english, chinese = IMPOSSIBLE[name]
    with pytest.raises(HandError) as err:
        score(build(hand_json, table), rules)
    assert english in str(err.value)
    zh = err.value.zh
    assert zh and chinese in zh and err.value.for_player == zh
    assert not re.search("[A-Za-z]{3,}", zh), zh  # no English words for the table


def test_the_same_situations_with_the_hand_that_allows_them_are_scored():
    # a robbed tile the winner holds no copy of (345s + 66s: the 3s was the 加杠's fourth)
    robbed = build(dict(PLAIN, concealed="123m 456m 789m 234p 45s 66s", win="3s", rob_kong=True))
    assert score(robbed).as_dict() == {"门清": 1, "平和": 2, "抢杠": 1}
    # the last discard, not robbed; after a real kong
    assert "河底捞鱼" in score(build(dict(PLAIN, last_tile=True))).as_dict()
    kong = build(dict(PLAIN, concealed="123m 456m 789m 45s 99s", melds=[["ankong", "2222p"]],
                      self_draw=True, after_kong=True))
    assert "杠上开花" in score(kong).as_dict()


# -- 莊家專屬 / 閒家專屬: the common table's own words (001) ------------------------------------

def test_the_common_tables_dealer_keeps_天听_and_a_non_dealer_keeps_人胡():
    dealer = build(dict(PLAIN, heavenly_ready=True), dict(DEALER_E, discarder="S"))
    assert score(dealer, "tw16-common").as_dict() == {"平胡": 2, "天听": 8}
    other = build(dict(PLAIN, seat="S", human=True), dict(DEALER_E, discarder="W"))
    assert score(other, "tw16-common").as_dict() == {"平胡": 2, "人胡": 16}


def test_人胡_with_an_ankong_is_allowed_where_门清_allows_it():
    # 001: 人胡 「需門清才算」, 門清 「沒有吃、碰、明槓，允許暗槓」 (decision)
    hand = build(dict(PLAIN, concealed="456m 789m 234p 45s 99s", melds=[["ankong", "1111z"]],
                      seat="S", human=True))
    assert score(hand, "tw16-common").as_dict() == {"圈风刻 东": 1, "人胡": 16}


@pytest.mark.parametrize("rules", ["tw16-competition", "tw16-improved"])
def test_tables_that_name_no_seat_let_the_dealer_state_人胡_and_a_non_dealer_天听(rules):
    dealer = build(dict(PLAIN, concealed="234m 567m 234p 678p 45s 99s", human=True, heavenly_ready=True),
                   dict(DEALER_E, discarder="S"))
    assert "人胡" in score(dealer, rules).as_dict()
    other = build(dict(PLAIN, concealed="234m 567m 234p 678p 45s 99s", seat="S", heavenly_ready=True),
                  dict(DEALER_E, discarder="W"))
    assert "天听" in score(other, rules).as_dict()


def test_only_the_improved_table_rules_out_a_kong_on_the_last_tile():
    # 003 「海底最後一張一定要打出」; the other tables say nothing, and 杠上开花 + 海底捞月 add
    hand = build(dict(PLAIN, concealed="123m 456m 789m 45s 99s", melds=[["ankong", "2222p"]],
                      self_draw=True, after_kong=True, last_tile=True))
    for rules in available_rulesets():
        if rules == "tw16-improved":
            with pytest.raises(HandError, match="last_tile and after_kong") as err:
                score(hand, rules)
            assert "海底最後一張一定要打出" in err.value.zh
        else:
            items = score(hand, rules).as_dict()
            assert "杠上开花" in items and "海底捞月" in items


# -- settlement: 连庄 on every payment (002 本場制) -------------------------------------------

def test_连庄_goes_on_every_payment_only_where_the_table_says_so():
    # 002 「連莊台套用全場：胡牌時，總台數再加連莊台」; the other tables pay 连庄 with the dealer
    hand = build(dict(PLAIN, seat="S"), {"dealer": "E", "streak": 2, "base": 50, "per_tai": 20,
                                         "discarder": "W"})
    for rules in available_rulesets():
        result = score(hand, rules)
        payment = settle(result, hand).payments[0]
        streak = dict(payment.extras).get("连庄", 0)
        assert streak == (2 if rules == "tw16-competition" else 0), rules
        assert "庄家" not in dict(payment.extras)


# -- the data mechanisms --------------------------------------------------------------------

def _competition() -> dict:
    return copy.deepcopy(json.loads((RULESET_DIR / "tw16-competition.json").read_text(encoding="utf-8")))


def test_a_seat_binds_only_a_stated_situation():
    data = _competition()
    next(e for e in data["entries"] if e["name"] == "人胡")["seat"] = "non_dealer"
    assert parse_ruleset(data).entry("人胡").seat == "non_dealer"
    next(e for e in data["entries"] if e["name"] == "清一色")["seat"] = "dealer"
    with pytest.raises(RulesetError, match="on a stated situation"):
        parse_ruleset(data)


def test_impossible_flags_are_checked_when_read():
    data = _competition()
    data["impossible"] = [{"flags": ["last_tile", "after_kongs"], "why": "…", "zh": "…"}]
    with pytest.raises(RulesetError, match="unknown: \\['after_kongs'\\]"):
        parse_ruleset(data)
    data["impossible"] = [{"flags": ["last_tile", "after_kong"], "why": "house rule"}]
    with pytest.raises(RulesetError, match="flags, why and zh"):
        parse_ruleset(data)


def test_an_entry_keeps_what_another_would_cancel_only_while_it_holds():
    # 001: 字一色 cancels 对对胡 (「理應不計」) but 五暗刻 「必計對對胡」
    rules = load_ruleset("tw16-common")
    assert rules.entry("五暗刻").keeps == ("对对胡",)
    honours = dict(PLAIN, concealed="111z 222z 333z 555z 66z 77z", win="6z")
    assert "对对胡" in score(build(dict(honours, self_draw=True)), rules).as_dict()
    assert "对对胡" not in score(build(honours), rules).as_dict()  # 四暗刻 only
    data = json.loads((RULESET_DIR / "tw16-common.json").read_text(encoding="utf-8"))
    next(e for e in data["entries"] if e["name"] == "五暗刻")["keeps"] = ["对对和"]
    with pytest.raises(RulesetError, match="keeps unknown entries"):
        parse_ruleset(data)


def test_a_table_given_to_settle_apart_from_the_hand_is_checked_against_the_impossible_records():
    # 000 「听牌：先宣告听牌、之后胡牌」 takes a discard; 天和 wins on the dealt tiles before one
    hand = build(dict(PLAIN, self_draw=True, heavenly=True))
    result = score(hand)
    with pytest.raises(HandError, match="heavenly and declared_ready") as err:
        settle(result, hand, Table("E", 50, 20, declared_ready=True))
    assert "不能先宣告聽牌" in err.value.zh
    assert settle(result, hand, Table("E", 50, 20)).net["E"] == 3 * (50 + (27 + 1) * 20)


def test_a_record_may_name_the_tables_declaration_but_nothing_else_of_the_table():
    data = _competition()
    data["impossible"] = [{"flags": ["heavenly", "declared_ready"], "why": "…", "zh": "…"}]
    assert parse_ruleset(data).impossible[0].flags == ("heavenly", "declared_ready")
    data["impossible"] = [{"flags": ["heavenly", "discarder"], "why": "…", "zh": "…"}]
    with pytest.raises(RulesetError, match="unknown: \\['discarder'\\]"):
        parse_ruleset(data)


# -- kongs by origin: 大明杠 "called", 加杠 "added" -----------------------------------

AFTER_KONG = dict(PLAIN, concealed="123m 456m 45s 99s", self_draw=True, after_kong=True)


def test_an_open_kongs_origin_is_optional_in_the_json_and_read_back_as_written():
    added = Hand.from_json({"concealed": parse_tiles("123m 456m 789m 45s 99s"), "win": "6s",
                            "melds": [{"type": "kong", "tiles": ["2p"] * 4, "origin": "added"}],
                            "seat": "E", "round": "E"})
    assert added.melds[0] == Meld("kong", ("2p",) * 4, "added")
    assert Hand.from_json(added.to_json()) == added
    plain_kong = added.replace(melds=(Meld("kong", ("2p",) * 4),))
    assert "origin" not in plain_kong.to_json()["melds"][0]  # absent: not said, as before


@pytest.mark.parametrize("meld, english, chinese", [
    ({"type": "kong", "tiles": ["2p"] * 4, "origin": "robbed"}, "is not one of called, added", "大明槓"),
    ({"type": "pon", "tiles": ["2p"] * 3, "origin": "added"}, "only an open kong", "只有明槓"),
    ({"type": "ankong", "tiles": ["2p"] * 4, "origin": "called"}, "only an open kong", "只有明槓"),
])
def test_an_origin_other_than_an_open_kongs_two_is_refused_in_both_scripts(meld, english, chinese):
    with pytest.raises(HandError, match=english) as err:
        Hand.from_json({"concealed": [], "win": "6s", "melds": [meld], "seat": "E", "round": "E"})
    assert chinese in err.value.zh and "melds[0].origin" in str(err.value)
    with pytest.raises(HandError, match=english):
        Meld(meld["type"], tuple(meld["tiles"]), meld["origin"])


@pytest.mark.parametrize("mark, kind, origin", [
    ("加槓", "kong", "added"), ("加杠", "kong", "added"), ("大明槓", "kong", "called"), ("大明杠", "kong", "called"),
    ("明槓", "kong", None), ("槓", "kong", None), ("暗槓", "ankong", None),
])
def test_the_notation_spells_an_open_kongs_origin(mark, kind, origin):
    written = parse_hand(f"123m 456m 789m 45s 99s 和6s {mark}2p")
    assert written.melds == (Meld(kind, ("2p",) * 4, origin),) and written.win == "6s"


def test_the_page_asks_only_for_the_kongs_whose_origin_changes_the_tai():
    # 001 「暗槓、加槓、補花後…明槓自摸不算」: two open kongs of no origin, after a kong
    melds = [["kong", "7777m"], ["pon", "111z"], ["kong", "2222p"]]
    two = build(dict(AFTER_KONG, concealed="123m 45s 99s", melds=melds))
    assert kong_origins_needed(two, "tw16-common") == (0, 2)
    with pytest.raises(KongOriginNeeded, match=r"melds\[0\]\), .*\(melds\[2\]\)") as err:
        score(two, "tw16-common")
    assert err.value.melds == (0, 2) and "大明槓" in err.value.zh and "七萬、二筒" in err.value.zh
    assert not re.search("[A-Za-z]{3,}", err.value.zh)
    # one said to be a 加杠: 杠上开花 holds whatever the other is, so nothing is asked
    said = two.replace(melds=(Meld("kong", ("7m",) * 4), two.melds[1], Meld("kong", ("2p",) * 4, "added")))
    assert kong_origins_needed(said, "tw16-common") == ()
    assert "杠上开花" in score(said, "tw16-common").as_dict()
    # not after a kong, or at a table that counts any kong: the origin changes nothing
    assert kong_origins_needed(two.replace(after_kong=False), "tw16-common") == ()
    for rules in ("tw16-2026.09-p0", "tw16-improved"):
        assert kong_origins_needed(two, rules) == ()
        assert "杠上开花" in score(two, rules).as_dict()


def test_the_json_interface_and_the_cli_say_which_kong_to_name():
    hand = build(dict(AFTER_KONG, concealed="123m 456m 789m 45s 99s", melds=[["kong", "2222p"]]))
    out = score_json(dict(hand.to_json(), ruleset="tw16-competition"))
    assert out["error"].startswith("kong origin: under tw16-competition") and "melds[0]" in out["error"]
    added = dict(hand.to_json(), ruleset="tw16-competition")
    added["melds"] = [dict(added["melds"][0], origin="added")]
    assert score_json(added)["items"] == {"自摸": 1, "杠上开花": 1}
    p = subprocess.run([sys.executable, "-m", "scoring", "score", "123m 456m 789m 45s 99s 和6s 加槓2p",
                        "--self-draw", "--after-kong", "--ruleset", "tw16-common", "--trad"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert ["加槓", "二筒二筒二筒二筒"] in [line.split() for line in p.stdout.splitlines()]
    assert "槓上開花" in p.stdout


def test_a_table_names_the_kongs_after_which_an_entry_counts_by_their_sources():
    data = _competition()
    entry = next(e for e in data["entries"] if e["name"] == "杠上开花")
    assert entry["args"]["after"] == ["ankong", "added"]
    assert parse_ruleset(data).entry("杠上开花").reads_origin
    entry["args"]["after"] = ["ankong", "robbed"]
    with pytest.raises(RulesetError, match="lists kongs by source, of ankong, called, added"):
        parse_ruleset(data)
    del entry["args"]["after"]
    assert not parse_ruleset(data).origin_readers


def test_one_winner_settles_alike_through_either_function_at_any_table():
    hand = build(dict(PLAIN, seat="S"), dict(DEALER_E, discarder="W"))
    for rules in available_rulesets():
        result = score(hand, rules)
        shared = settle_several_winners([(result, hand)], rules)
        assert shared.settlements == (settle(result, hand),) and shared.net == settle(result, hand).net
