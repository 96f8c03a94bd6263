"""training.module_walk: the calls one call makes between our modules, its path and its returns."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.hand import Hand, HandError
from scoring.ruleset import load_ruleset
from scoring.score import score
from tests.fake_detections import laid_out
from tests.test_layout_and_correction import HAND
from training.module_walk import walk
from vision.read import read_detections

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "samples" / "train-style-000000.json"


def test_a_score_walks_from_the_checks_to_the_entries_and_the_walk_ends_with_the_call():
    hand, rules = Hand.from_json(json.loads(SAMPLE.read_text())["hand"]), load_ruleset()
    result, found = walk(score, hand, rules)
    assert result == score(hand, rules) and sys.getprofile() is None
    assert found.path[0] == "scoring.validate" and "scoring.entries" in found.path
    assert all(a != b for a, b in zip(found.path, found.path[1:], strict=False))  # a module again at once is one
    assert found.returns == [k for k, m in enumerate(found.path) if m in found.path[:k]]
    assert sum(found.calls.values()) >= len(found.path) and found.entries["scoring.validate"] == 1
    with pytest.raises(HandError):
        walk(score, ruleset=rules, hand=hand.replace(win="1z" if hand.win != "1z" else "2z"))
    assert sys.getprofile() is None


def test_the_command_reports_a_hand_and_names_a_bad_file(tmp_path):
    out = tmp_path / "walk.json"
    run = subprocess.run([sys.executable, "-m", "training.module_walk", "--hand", str(SAMPLE), "--json", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    figures = json.loads(out.read_text())
    assert f"returns {figures['returns_to_a_module_left']} times to a module it had left" in run.stdout
    assert figures["calls_between_modules"] == sum(figures["entries"].values())
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "training.module_walk", "--hand", str(bad)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1 and run.stderr.startswith("error: ") and "Traceback" not in run.stderr


def test_one_read_walks_detections_layout_parts_search_notices_and_returns_to_none():
    """A read's path through the modules: the tiles get their ids once and the rows' facts are read off the
    detections before the layout, which, like the parts and the search, holds those ids: nothing goes back to the
    detections to put them in reading order (one return more), and the proposals are all made before the warnings
    (made one by one, each went back to the detections and then to the notices: five returns more)."""
    reading, found = walk(read_detections, laid_out(HAND)[0], load_ruleset())
    assert reading.legal and reading.runner_ups
    assert found.path == ["vision.detections", "vision.layout", "vision.hand_finding", "vision.search",
                          "vision.notices"]
    assert found.returns == []
