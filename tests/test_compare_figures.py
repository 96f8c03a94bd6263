"""`training.compare_figures`: which figures of two benchmark files moved beyond the bounds a runtime change may
move them (taps ±0.02, rates ±1 point); counts, times and settings are not judged."""

import json
import subprocess
import sys
from pathlib import Path

from training.compare_figures import compare, main

REPO = Path(__file__).resolve().parents[1]

BASE = {"runtime": {"precision": "f32"}, "ms_per_photo": 80.0, "images": 40,
        "hand": {"taps": {"mean": 1.45, "zero": 0.8129}, "taps_by_cause": {"wrong code": 0.041}, "groups_exact": 0.5},
        "hands 3 on memory": {"taps": 0.917, "flower_groups_right": 0.8056}}


def moved(**changes) -> dict:
    other = json.loads(json.dumps(BASE))
    for path, value in changes.items():
        *parents, key = path.split("__")
        node = other
        for parent in parents:
            node = node[parent]
        node[key] = value
    return other


def test_the_same_figures_pass_and_counts_times_and_settings_are_not_judged():
    summary, beyond = compare(BASE, moved(ms_per_photo=40.0, images=41, runtime={"precision": "bf16"}), 0.02, 1)
    assert beyond == [] and summary == {"judged": 6, "largest taps move": 0.0, "largest rate move (points)": 0.0}


def test_taps_and_rates_beyond_their_bounds_are_named():
    within = moved(hand__taps__mean=1.47, hand__groups_exact=0.509)
    assert compare(BASE, within, 0.02, 1)[1] == []
    _, beyond = compare(BASE, moved(hand__taps__mean=1.475,
                                    **{"hands 3 on memory__flower_groups_right": 0.8194}), 0.02, 1)
    assert beyond == ["hand / taps / mean: 1.450 -> 1.475",
                      "hands 3 on memory / flower_groups_right: 80.56% -> 81.94%"]


def test_the_command_exits_1_when_a_figure_moved_beyond_its_bound(tmp_path, capsys):
    base, other = tmp_path / "base.json", tmp_path / "other.json"
    base.write_text(json.dumps(BASE))
    other.write_text(json.dumps(moved(**{"hands 3 on memory__taps": 0.972})))
    assert main([str(base), str(base)]) == 0
    assert main([str(base), str(other)]) == 1
    assert "beyond the bound: hands 3 on memory / taps: 0.917 -> 0.972" in capsys.readouterr().out


def test_the_command_ends_quietly_when_its_reader_stops_reading(tmp_path):
    base, other = tmp_path / "base.json", tmp_path / "other.json"
    base.write_text(json.dumps({"hand": {f"taps {n}": 0.0 for n in range(5000)}}))
    other.write_text(json.dumps({"hand": {f"taps {n}": 0.1 for n in range(5000)}}))  # more lines than a pipe holds
    done = subprocess.run(f"{sys.executable} -m training.compare_figures {base} {other} | head -1", shell=True,
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith('{"judged": 5000') and done.stderr == ""
