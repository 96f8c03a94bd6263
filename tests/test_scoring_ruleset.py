"""The 台 table is data: the default file, its checks, and a table changed by data alone."""

import copy
import json

import pytest

from scoring import Hand, Situation, load_ruleset, parse_tiles, score
from scoring.entries import PREDICATES
from scoring.ruleset import RULESET_DIR, RulesetError, available_rulesets, parse_ruleset, ruleset_stem

SPEC_ORDER = ["天和", "门清自摸", "门清", "自摸", "独听", "门风", "圈风", "三元牌", "平和", "全求人",
              "小三元", "大三元", "小四喜", "大四喜", "碰碰和", "混一色", "字一色", "清一色", "五暗刻",
              "四暗刻", "三暗刻", "正花", "花杠", "八仙过海", "海底捞月", "河底捞鱼", "杠上开花", "抢杠"]
RAW = json.loads((RULESET_DIR / "tw16-2026.09-p0.json").read_text(encoding="utf-8"))
IMPROVED = json.loads((RULESET_DIR / "tw16-improved.json").read_text(encoding="utf-8"))


def _entry(data, name):
    return next(e for e in data["entries"] if e["name"] == name)


def test_default_table_has_every_entry_of_the_spec_in_order():
    rules = load_ruleset()
    assert rules.id == "tw16/2026.09-p0"
    assert [e.name for e in rules.entries] == SPEC_ORDER
    assert load_ruleset("tw16/2026.09-p0") is rules


def test_every_predicate_is_documented_in_chinese():
    for name, fn in PREDICATES.items():
        assert fn.__doc__ and any("\u4e00" <= c <= "\u9fff" for c in fn.__doc__), name


@pytest.mark.parametrize("table,change,message", [
    (RAW, lambda d: d["entries"][0].update(when="no_such_thing"), "no predicate named"),
    (RAW, lambda d: d["entries"][0].update(excludes=["不存在"]), "excludes unknown entries"),
    (RAW, lambda d: d["entries"][0].update(colour="red"), "unknown key"),
    (RAW, lambda d: d["entries"][1].pop("tai"), "missing 'tai'"),
    (RAW, lambda d: d["entries"].append(dict(d["entries"][2])), "appears twice"),
    # the fields of the other tables: shapes, payments
    (IMPROVED, lambda d: _entry(d, "平胡").update(shape="pairs"), "cannot make a win of shape"),
    (IMPROVED, lambda d: _entry(d, "十三么").update(shape="standard"), "cannot make a win of shape"),
    (IMPROVED, lambda d: _entry(d, "天胡").update(payment={"drop": ["lunch"]}), "payment.drop"),
    (IMPROVED, lambda d: _entry(d, "天胡").update(payment={"base": False, "extra": 1}), "payment takes only"),
    (IMPROVED, lambda d: _entry(d, "风花雪月").update(excludes=["三元 白"]), "excludes unknown entries"),
    # an entry's arguments are the predicate's (checked when the table is read, not when scoring)
    (RAW, lambda d: _entry(d, "平和").update(args={"no_honour": True}), "all_chows takes the args"),
    (RAW, lambda d: _entry(d, "三暗刻").pop("args"),
     r"concealed_pungs takes the args count, no_open_pungs\? \(\? optional\), not \{\}"),
])
def test_broken_tables_are_refused(table, change, message):
    data = copy.deepcopy(table)
    change(data)
    with pytest.raises(RulesetError, match=message):
        parse_ruleset(data)


def test_unknown_ruleset_name():
    with pytest.raises(RulesetError, match="no ruleset"):
        load_ruleset("tw16-nope")


def test_a_scored_rulesets_id_names_the_ruleset_offered():
    """A score (and the ledger) records the ruleset's id, `tw16/2026.09-p0`; the page offers it by file stem."""
    for name in available_rulesets():
        assert ruleset_stem(load_ruleset(name).id) == name
    assert ruleset_stem("tw16/2026.09-p0+見花見台") == "tw16-2026.09-p0+見花見台"


def test_a_house_table_is_a_data_change():
    # A house where 门清 and 自摸 add up instead of 门清自摸, and 连庄 is +1 per hand.
    data = copy.deepcopy(RAW)
    data["entries"] = [e for e in data["entries"] if e["name"] != "门清自摸"]
    data["settlement"]["streak"]["tai_per_hand"] = 1
    house = parse_ruleset(data)
    hand = Hand(parse_tiles("123m 456m 789m 234p 45s 99s"), "6s",
                situation=Situation(self_draw=True))
    assert score(hand).as_dict() == {"门清自摸": 3}
    assert score(hand, house).as_dict() == {"门清": 1, "自摸": 1}
    assert house.settlement.streak_tai == 1
