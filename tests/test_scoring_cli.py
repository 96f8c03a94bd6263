"""`python -m scoring score` as people and programs use it, through a real subprocess."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.example_hands import EXAMPLES, PLAIN, plain

ROOT = Path(__file__).resolve().parents[1]


def run(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "scoring", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_json_batch_with_one_bad_hand_among_good_ones():
    hands = [
        plain(),
        plain(concealed=PLAIN[:-1]),  # 15 tiles
        {"not": "a hand"},
        plain(self_draw=True, table={"dealer": "S", "streak": 1, "base": 50, "per_tai": 20}),
        plain(win="7s"),
        plain(melds=[{"type": "pon", "tiles": ["5z", "5z", "5z"]}], concealed=PLAIN[3:]),
    ]
    p = run("score", "--json", stdin=json.dumps(hands))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert len(out) == 6
    assert out[0] == {"items": {"门清": 1, "平和": 2}, "total": 3}
    assert set(out[1]) == {"error"} and "tile count" in out[1]["error"]
    assert "unknown key(s) not" in out[2]["error"]
    assert out[3] == {"items": {"门清自摸": 3}, "total": 3,
                      "payments": {"E": 390, "S": -170, "W": -110, "N": -110}}
    assert "not a win" in out[4]["error"]
    assert out[5] == {"items": {"三元牌 中": 1}, "total": 1}
    assert list(out[3]["items"]) == ["门清自摸"]


def test_json_examples_file_scores_every_hand():
    p = run("score", "--json", stdin=json.dumps([c["hand"] for c in EXAMPLES]))
    assert p.returncode == 0
    out = json.loads(p.stdout)
    for case, result in zip(EXAMPLES, out, strict=True):
        if "expect" in case:
            assert result["items"] == case["expect"]


def test_json_input_that_is_not_json_fails():
    p = run("score", "--json", stdin="[{oops")
    assert p.returncode != 0
    assert "not JSON" in p.stderr
    assert run("score", "--json", stdin='{"a": 1}').returncode != 0


def test_json_empty_array():
    p = run("score", "--json", stdin="[]")
    assert p.returncode == 0 and json.loads(p.stdout) == []


def test_people_cli_with_payments():
    p = run("score", "一万二万三万四万五万六万七万八万九万二筒三筒四筒四条五条九条九条",
            "--win", "6s", "--winner", "E", "--round", "S", "--self-draw",
            "--base", "50", "--per-tai", "20", "--dealer", "S", "--streak", "1")
    assert p.returncode == 0, p.stderr
    assert "门清自摸" in p.stdout and "3 台" in p.stdout
    assert "东家 胡 (门风 北)" in p.stdout  # 南家 deals: 南家 is 东, 东家 北
    assert "东家 +390  南家 -170  西家 -110  北家 -110" in p.stdout


def test_people_cli_off_a_discard_pays_by_seat():
    """西家 wins off 北家 while 北家 deals (北家 東, 東家 南, 南家 西, 西家 北): 北家 alone pays, with 庄家 1."""
    p = run("score", "123m 456m 789m 234p 678s 5s", "--win", "5s", "--winner", "W", "--discarder", "N",
            "--dealer", "N", "--base", "100", "--per-tai", "20")
    assert p.returncode == 0, p.stderr
    assert "西家 胡 (门风 北)" in p.stdout and "北家 付 " in p.stdout and "西家 +" in p.stdout
    assert "东家 0  南家 0" in p.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--base", "100"], "both --base and --per-tai"),
    (["--base", "100", "--per-tai", "20"], "--self-draw or --discarder"),
    (["--base", "100", "--per-tai", "20", "--discarder", "E"], "cannot be the discarder"),
    (["--discarder", "S"], "--discarder is for payments"),
])
def test_people_cli_says_what_a_payment_is_missing(args, message):
    p = run("score", "123m 456m 789m 234p 678s 5s", "--win", "5s", *args)
    assert p.returncode == 1 and message in p.stderr


def test_people_cli_melds_flowers_traditional():
    p = run("score", "456m 789m 234p 45s 99s 和六條", "--chi", "一萬二萬三萬",
            "--flowers", "梅蘭菊竹", "--trad")
    assert p.returncode == 0, p.stderr
    assert "花槓 梅蘭菊竹" in p.stdout and "正花" in p.stdout
    assert "吃" in p.stdout


def test_people_cli_reports_illegal_hands():
    p = run("score", "123m", "--win", "4m")
    assert p.returncode == 1
    assert "tile count" in p.stderr


def test_people_cli_reads_the_apps_notation():
    """One grammar for the app's text box and the command line (scoring.notation.parse_hand)."""
    from scoring.draft import from_text, to_hand
    from scoring.hand import Situation
    from scoring.score import score

    typed = "123456m 789p 2345s 和5s 碰777z 花1f"
    p = run("score", typed, "--self-draw", "--trad")
    assert p.returncode == 0, p.stderr
    in_app = score(to_hand(from_text(typed), Situation(self_draw=True)))
    assert f"{in_app.total:>3} 台" in p.stdout.splitlines()[-1]
    lines = [line.split() for line in p.stdout.splitlines()]
    assert ["碰", "白板白板白板"] in lines and ["花", "梅"] in lines
    same = run("score", "123456m 789p 2345s 碰777z 花1f", "--win", "5s", "--self-draw", "--trad")
    assert same.stdout == p.stdout


@pytest.mark.parametrize("hand, said", [
    ("123q", "cannot read a tile at '123q'"),
    ("123m 碰12m", "a pon needs 3 tiles, read 2"),
    ("123m 和", "和 must be followed by the winning tile"),
])
def test_people_cli_notation_errors_say_what_was_expected(hand, said):
    p = run("score", hand)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert said in p.stderr and "expected tiles as 123m 456p" in p.stderr


def test_people_cli_winning_tile_twice_must_agree():
    p = run("score", "123m 和4m", "--win", "5m")
    assert p.returncode == 1 and "the hand says 和4m but --win says 5m" in p.stderr


@pytest.mark.parametrize("stdin, said", [
    ("[" + "9" * 5000 + "]", "more than 4,300 digits"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_json_input_too_big_to_read_is_refused_in_a_line(stdin, said):
    p = run("score", "--json", stdin=stdin)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert said in p.stderr and len(p.stderr) < 200


def test_json_huge_values_are_that_hands_error_and_the_others_are_scored():
    table = {"dealer": "E", "base": 100, "per_tai": 20}
    hands = [plain(table=dict(table, per_tai=10 ** 4000)), plain(table=dict(table, streak=10 ** 10)),
             plain(table=dict(table, base=-1)), plain(concealed="x" * 1_000_000), plain(self_draw=True, table=table),
             plain(ruleset="x" * 100_000), plain(ruleset=["x" * 100_000]), plain(unknown_key="x" * 100_000)]
    p = run("score", "--json", stdin=json.dumps(hands))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out[0] == {"error": "table.per_tai: expected a whole number from 0 to 1,000,000, "
                               "got <a number of about 4001 digits>"}
    assert out[1] == {"error": "table.streak: expected a whole number from 0 to 99, got 10000000000"}
    assert "table.base: expected a whole number from 0" in out[2]["error"]
    assert all(len(out[n]["error"]) < 300 for n in (3, 5, 6, 7))  # long input is not echoed back
    assert out[4]["payments"]["E"] > 0


@pytest.mark.parametrize("text, said", [
    ('{"id": "x", "entries": [', "is not a readable JSON file"),
    ('{"hello": 1}', "is not a ruleset"),
    ("[1, 2]", "is not a ruleset"),
    ('{"id": "x", "entries": [{"name": "a"}]}', "missing 'trad'"),
])
def test_a_broken_ruleset_file_is_an_error_not_a_traceback(tmp_path, text, said):
    path = tmp_path / "house.json"
    path.write_text(text)
    for args in (("score", "123m 456m 789m 234p 45s 99s 和6s", "--ruleset", str(path)),
                 ("score", "--json", "--ruleset", str(path)), ("rules", "--ruleset", str(path))):
        p = run(*args, stdin="[]")
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        assert said in p.stderr


@pytest.mark.parametrize("name", ["a" * 300, "台" * 90], ids=["300-letters", "90-han"])
def test_an_unknown_ruleset_name_of_any_length_is_refused_with_the_known_ones(name):
    """A name too long for a file was an OSError traceback (exit 1), and with --json an internal error
    naming the install path."""
    for args in (("score", "123m 456m 789m 234p 45s 99s 和6s", "--ruleset", name),
                 ("score", "--json", "--ruleset", name), ("rules", "--ruleset", name)):
        p = run(*args, stdin="[]")
        assert p.returncode == 2 and "Traceback" not in p.stderr and p.stdout == "", p.stderr
        assert "known: tw16-2026.09-p0, tw16-common" in p.stderr and str(ROOT) not in p.stderr
    hands = [plain(ruleset=name), plain(ruleset=name + ".json"), plain(ruleset="a\0b.json")]
    p = run("score", "--json", stdin=json.dumps(hands))
    assert p.returncode == 0 and all("known: tw16" in out["error"] for out in json.loads(p.stdout)), p.stdout


def test_json_with_standard_input_closed_says_so():
    """`0<&-`: Python's sys.stdin is None, and reading it was an AttributeError traceback."""
    p = subprocess.run([sys.executable, "-m", "scoring", "score", "--json"], cwd=ROOT, capture_output=True, text=True,
                       timeout=60, preexec_fn=lambda: os.close(0))
    assert p.returncode == 2 and p.stdout == "", p.stderr
    assert p.stderr == "no input: --json reads a JSON array of hands on standard input, which is closed\n"
