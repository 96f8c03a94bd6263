"""What the other tables added around them: the situation flags, flower wins, check_hand with a
ruleset, the ruleset data checks (shapes, payments, options, exclusions), the CLI and JSON
interface naming a ruleset, and properties of every table on random legal hands."""

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings

from scoring import Hand, HandError, Meld, Situation, Table, available_rulesets, check_hand, load_ruleset, score
from scoring.cli import score_json
from scoring.random_hands import random_winning_hand, winning_hands
from scoring.ruleset import DEFAULT_RULESET, EXTRA_RULESETS, RULESET_DIR, RulesetError, parse_ruleset
from scoring.score import KongOriginNeeded, kong_origins_needed
from scoring.settle import settle
from tests.example_hands import PLAIN, house_table, plain
from tests.test_rulesets import OTHER_TABLES

ROOT = Path(__file__).resolve().parents[1]
ORPHANS = ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z", "2m", "3m", "4m"]
# The three tables of the seeds, for facts about them; OTHER_TABLES follows the files.
SEED_TABLES = ["tw16-common", "tw16-competition", "tw16-improved"]


# -- the rulesets on offer ------------------------------------------------------------------

def test_available_rulesets_lists_the_default_first_and_every_file():
    names = available_rulesets()
    assert names[0] == DEFAULT_RULESET
    assert sorted(names[1:]) == OTHER_TABLES and set(SEED_TABLES) <= set(OTHER_TABLES)
    for name in names:
        rules = load_ruleset(name)
        assert rules.name and any("\u4e00" <= c <= "\u9fff" for c in rules.name)  # a Chinese display name
        assert load_ruleset(rules.id) is rules  # by id or file stem alike


@pytest.mark.parametrize("name", OTHER_TABLES)
def test_every_ambiguity_decided_in_the_data_is_listed_in_the_rules_doc(name):
    raw = json.loads((RULESET_DIR / f"{name}.json").read_text(encoding="utf-8"))
    doc = (ROOT / "docs/rules.md").read_text(encoding="utf-8")
    assert f"## Ruleset {name}" in doc, f"docs/rules.md needs a section '## Ruleset {name}'"
    section = doc.split(f"## Ruleset {name}", 1)[1].split("\n## ", 1)[0]
    decided = [(e["name"], e["decision"]) for e in raw["entries"] if e.get("decision")]
    decided += [(d["about"], d["decision"]) for d in raw["decisions"]]
    assert decided
    for about, decision in decided:
        assert f"- **{about}**: {decision}." in section, about  # the doc says what the data does


def test_the_default_table_is_untouched_by_the_new_machinery():
    rules = load_ruleset()
    assert not rules.shapes and not rules.min_tai and not rules.available_options
    s = rules.settlement
    assert (s.dealer_tai, s.streak_tai, s.ready_tai, s.base) == (1, 2, 1, True)
    assert (s.discard_multiplier, s.self_draw_multiplier) == (1, 1)


# -- situation flags --------------------------------------------------------------------

def test_new_flags_default_to_false_and_appear_in_json_only_when_true():
    hand = Hand.from_json(plain())
    assert hand.to_json() == plain()
    flagged = plain(seat="S", human=True, heavenly_ready=True)
    assert Hand.from_json(flagged).to_json() == flagged
    assert Hand.from_json(flagged).situation.human


@pytest.mark.parametrize("changes,message", [
    (dict(earthly=True), "地胡 is self-drawn"),
    (dict(human=True, self_draw=True), "人胡 wins off a discard"),
    (dict(earthly=True, self_draw=True, heavenly=True), "exclude one another"),
    (dict(heavenly_ready=True, earthly_ready=True), "give one"),
    (dict(after_flower=True, self_draw=True), "needs a flower"),
    (dict(after_flower=True, flowers=["1f"]), "self_draw must be true"),
    (dict(human=True, concealed=PLAIN[3:], melds=[{"type": "chi", "tiles": ["1m", "2m", "3m"]}]), "人胡 needs 门清"),
    (dict(earthly=True, self_draw=True, table={"dealer": "E", "base": 50, "per_tai": 20}), "non-dealer"),
    (dict(earthly=True, self_draw=True, earthly_ready="yes"), "expected true or false"),
])
def test_impossible_flag_combinations_are_refused(changes, message):
    with pytest.raises(HandError, match=message):
        check_hand(Hand.from_json(plain(**changes)), "tw16-common")


# -- shapes and check_hand ---------------------------------------------------------------

def test_check_hand_keeps_its_one_argument_form_with_the_default_table():
    hand = Hand.from_json(plain(concealed=ORPHANS, win="1m"))
    with pytest.raises(HandError, match="does not form 5 sets and a pair"):
        check_hand(hand)
    with pytest.raises(HandError, match="does not form 5 sets and a pair"):
        check_hand(hand, "tw16-competition")
    check_hand(hand, "tw16-improved")
    check_hand(hand, load_ruleset("tw16-improved"))
    assert score(hand, "tw16-improved").as_dict() == {"门清": 1, "十三么": 16}


def test_the_refusal_under_a_table_with_special_shapes_names_them():
    hand = Hand.from_json(plain(concealed=ORPHANS[:-1] + ["5m"], win="1m"))
    with pytest.raises(HandError, match="nor 瀝咕瀝咕/十三么/大车轮 of tw16-improved"):
        check_hand(hand, "tw16-improved")


def test_a_flower_win_needs_a_table_that_has_one_and_shows_no_tiles():
    win = plain(concealed=[], win="8f", flowers=["1f", "2f", "3f", "4f", "5f", "6f", "7f"], self_draw=True)
    hand = Hand.from_json(win)
    assert hand.flower_win and hand.all_tiles() == ()
    assert Hand.from_json(hand.to_json()) == hand
    with pytest.raises(HandError, match="has no flower win"):
        check_hand(hand)
    for name in ("tw16-common", "tw16-competition"):
        assert score(hand, name).as_dict() == {"八仙过海": 8}
    # 改良式 states no 不计 for it: 本花 and 花杠 add
    assert score(hand, "tw16-improved").total == 8 + 2 + 2 + 2
    with pytest.raises(HandError, match="a flower wins only as a flower win"):
        Hand.from_json(plain(win="8f"))
    with pytest.raises(HandError, match="appears 2 times"):
        check_hand(Hand.from_json(dict(win, flowers=["1f", "2f", "3f", "4f", "5f", "6f", "8f"])), "tw16-common")


def test_min_tai_counts_the_dealer_on_a_payment_the_dealer_wins_or_pays():
    # 改良式 起胡: a pon hand with nothing in it is 0 台
    hand = Hand(tuple("5m 6m 7m 2p 3p 4p 6p 7p 8p 4s 5s 9s 9s".split()), "3s",
                (Meld("pon", ("2m", "2m", "2m")),), situation=Situation(seat_wind="S"))
    assert score(hand).total == 0  # the default table scores 屁胡 as 0 台
    with pytest.raises(HandError, match="at least 1 台"):
        score(hand, "tw16-improved")
    with pytest.raises(HandError, match="at least 1 台"):
        score(hand.replace(table=Table("E", 50, 20, discarder="W")), "tw16-improved")
    # 「1台：莊家…」: the dealer winning, or paying as the discarder, puts 1 台 on the one payment
    assert score(hand.replace(table=Table("S", 50, 20, discarder="E")), "tw16-improved").total == 0
    assert score(hand.replace(table=Table("E", 50, 20, discarder="E")), "tw16-improved").total == 0


def test_star_excludes_every_other_entry():
    rules = load_ruleset("tw16-improved")
    assert set(rules.entry("四杠胡").excludes) == {e.name for e in rules.entries} - {"四杠胡"}


def test_a_special_shape_is_a_data_change():
    # A house that also wins on seven pairs and any set (七对子): one record.
    data = copy.deepcopy(json.loads((RULESET_DIR / "tw16-competition.json").read_text(encoding="utf-8")))
    data["entries"].append({"name": "七对子", "trad": "七對子", "tai": 8, "when": "seven_pairs", "shape": "pairs",
                            "rule": "seven pairs and one set"})
    house = parse_ruleset(data)
    hand = Hand(tuple("1m 1m 2m 2m 3p 3p 4p 4p 5s 5s 6s 6s 1z 7s 8s 9s".split()), "1z")
    with pytest.raises(HandError, match="not a win"):
        score(hand, "tw16-competition")
    # 单吊 reads where the winning tile sits among 5 sets and a pair, so not a seven-pairs win
    assert score(hand, house).as_dict() == {"门清": 1, "七对子": 8}


def test_options_are_selected_by_name_and_unknown_ones_refused():
    rules = load_ruleset("tw16-common+见花见台+暗杠")
    names = [e.name for e in rules.entries]
    assert "正花" not in names and names[-2:] == ["见花见台", "暗杠"]
    assert rules.id == "tw16-common+见花见台+暗杠"
    with pytest.raises(RulesetError, match="no option '见鬼'"):
        load_ruleset("tw16-common+见鬼")
    with pytest.raises(RulesetError, match="no option"):
        load_ruleset("tw16-competition+见花见台")


# -- settlement formulas -----------------------------------------------------------------

@pytest.mark.parametrize("name,streak_tai,base,times,streak_on_all", [
    ("tw16-2026.09-p0", 2, 50, (1, 1), False),
    ("tw16-common", 2, 50, (1, 1), False),       # 连N拉N + 庄家 = 2N+1
    ("tw16-competition", 1, 50, (1, 1), True),   # 连庄 +1 each, on every payment (本场制)
    ("tw16-improved", 2, 0, (3, 2), False),      # no 底; 放枪 ×3, 自摸 ×2 each
])
def test_each_formula_on_a_discard_and_a_self_draw(name, streak_tai, base, times, streak_on_all):
    rules = load_ruleset(name)
    hand = Hand.from_json(plain(seat="S"))
    total = score(hand, rules).total
    discard = settle(total, hand, Table("S", 50, 20, streak=3, discarder="W"), rules)
    assert discard.net["W"] == -(base + (total + 1 + 3 * streak_tai) * 20 * times[0])
    drawn = hand.replace(self_draw=True)
    total = score(drawn, rules).total
    paid = settle(total, drawn, Table("E", 50, 20, streak=3), rules)
    assert paid.net["E"] == -(base + (total + 1 + 3 * streak_tai) * 20 * times[1])
    streak = 3 * streak_tai if streak_on_all else 0
    assert paid.net["N"] == paid.net["W"] == -(base + (total + streak) * 20 * times[1])
    assert sum(paid.net.values()) == 0


def test_the_new_tables_have_no_ready_item():
    hand = Hand.from_json(plain(table={"dealer": "N", "base": 50, "per_tai": 20, "declared_ready": True,
                                       "discarder": "W"}))
    assert settle(score(hand), hand).net["W"] == -(50 + 4 * 20)  # default: 听牌 +1
    for name in SEED_TABLES:
        result = score(hand, name)
        assert settle(result, hand).payments[0].extras == ()


# -- CLI and JSON interface --------------------------------------------------------------

def run(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "scoring", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_a_ruleset_file_in_the_house_folder_is_listed_and_scores(tmp_path, monkeypatch):
    """A table dropped into the folder TAISHU_RULESETS names: no code touched."""
    house_table(tmp_path)
    monkeypatch.setenv(EXTRA_RULESETS, str(tmp_path))
    assert available_rulesets()[0] == DEFAULT_RULESET and "house" in available_rulesets()
    p = run("rules", "--list")
    assert p.returncode == 0 and "house" in p.stdout and "我家的台數" in p.stdout
    p = run("score", "--json", stdin=json.dumps([plain(ruleset="house"), plain()]))
    assert [r["items"] for r in json.loads(p.stdout)] == [{"门清": 2, "平和": 2}, {"门清": 1, "平和": 2}]

    (tmp_path / "tw16-common.json").write_bytes((tmp_path / "house.json").read_bytes())
    assert load_ruleset("tw16-common").name == "我家的台數"  # the house folder's file of that name wins
    (tmp_path / "broken.json").write_text("{oops", encoding="utf-8")
    p = run("rules", "--list")
    assert p.returncode == 2 and str(tmp_path / "broken.json") in p.stderr and "not a readable JSON file" in p.stderr
    assert "Traceback" not in p.stderr


def test_json_hands_name_their_ruleset_and_an_unknown_one_is_that_hands_error():
    hands = [plain(), plain(ruleset="tw16-competition", self_draw=True), plain(ruleset="tw16/2026.09-p0"),
             plain(ruleset="tw16-nope"), plain(ruleset=3), plain(ruleset="tw16-improved", concealed=ORPHANS, win="1m")]
    p = run("score", "--json", stdin=json.dumps(hands))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out[0] == {"items": {"门清": 1, "平和": 2}, "total": 3}  # unchanged without a ruleset
    assert out[1] == {"items": {"门清": 1, "不求": 1, "自摸": 1}, "total": 3, "ruleset": "tw16-competition"}
    assert out[2] == {"items": {"门清": 1, "平和": 2}, "total": 3, "ruleset": "tw16/2026.09-p0"}
    assert set(out[3]) == {"error"}
    for name in available_rulesets():
        assert name in out[3]["error"]
    assert "expected a ruleset name" in out[4]["error"]
    assert out[5]["items"] == {"门清": 1, "十三么": 16}


def test_score_json_takes_a_default_ruleset_that_a_hand_overrides():
    items = score_json(plain(self_draw=True), "tw16-improved")["items"]
    assert items == {"门清": 1, "自摸": 1, "一条龙": 2, "不求人": 1}
    assert score_json(plain(self_draw=True, ruleset="tw16-common"), "tw16-improved")["items"] == {"门清自摸": 3}


def test_cli_ruleset_flag_flags_and_flower_win():
    p = run("score", "123m 456m 789m 234p 45s 99s", "--win", "6s", "--winner", "S", "--human",
            "--heavenly-ready", "--ruleset", "tw16-improved")
    assert p.returncode == 0, p.stderr
    # 人胡 holds only with the 天听 declaration (「必為天聽」), which it does not count beside it
    assert "改良式十六张麻将" in p.stdout and "人胡" in p.stdout and "天听" not in p.stdout
    p = run("score", "", "--win", "冬", "--flowers", "梅兰菊竹春夏秋", "--ruleset", "tw16-common",
            "--base", "50", "--per-tai", "20", "--dealer", "W", "--discarder", "W")
    assert p.returncode == 0, p.stderr
    assert "七抢一" in p.stdout and "西家 付 230" in p.stdout
    p = run("score", "123m 456m 789m 234p 45s 99s", "--win", "6s", "--ruleset", "nope")
    assert p.returncode == 2 and "tw16-common" in p.stderr
    p = run("rules", "--list")
    assert p.returncode == 0 and all(name in p.stdout for name in available_rulesets())


# -- properties on random legal hands ------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(winning_hands(table_prob=0.3))
def test_every_table_scores_random_hands_in_order_and_with_its_exclusions(hand):
    for name in OTHER_TABLES:
        rules = load_ruleset(name)
        try:
            result = score(hand, rules)
        except KongOriginNeeded as e:  # random open kongs say no origin; some tables need it
            assert e.melds and e.melds == kong_origins_needed(hand, rules)
            continue
        except HandError as e:
            assert rules.min_tai and "at least" in str(e)
            continue
        order = [e.name for e in rules.entries]
        positions = [order.index(i.entry) for i in result.items]
        assert positions == sorted(positions)
        present = {i.entry for i in result.items}
        kept = {x for e in rules.entries if e.name in present for x in e.keeps}
        for e in rules.entries:
            if e.name in present:
                assert not present & {x for x in e.excludes if " " not in x} - kept
        assert result.total == sum(i.tai for i in result.items) >= rules.min_tai or hand.table
        assert hand.win in result.waits
        if hand.table is not None:
            assert sum(settle(result, hand).net.values()) == 0


def test_random_hands_score_the_same_under_the_default_table_and_its_copy():
    # The default file read as a new ruleset gives the same items: the extended model does not
    # change how it is read.
    data = json.loads((RULESET_DIR / "tw16-2026.09-p0.json").read_text(encoding="utf-8"))
    copy_rules = parse_ruleset(data)
    rng = random.Random(3)
    for _ in range(300):
        hand = random_winning_hand(rng)
        assert score(hand, copy_rules).items == score(hand).items
