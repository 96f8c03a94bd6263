"""`python -m scoring score` as people and programs use it, through a real subprocess."""

import json
import subprocess
import sys
from pathlib import Path

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
            "--win", "6s", "--seat", "E", "--round", "S", "--self-draw",
            "--base", "50", "--per-tai", "20", "--dealer", "S", "--streak", "1")
    assert p.returncode == 0, p.stderr
    assert "门清自摸" in p.stdout and "3 台" in p.stdout
    assert "E +390  S -170  W -110  N -110" in p.stdout


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
