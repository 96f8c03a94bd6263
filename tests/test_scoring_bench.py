"""`python -m scoring.bench` at a small size: it runs, and says what it measured (no timing
assertions: the figures depend on the machine)."""

import json
import re

from scoring.bench import main


def test_the_benchmark_prints_the_reference_the_scorer_and_the_legality_check(capsys, tmp_path):
    out = tmp_path / "bench.json"
    main(["--hands", "50", "--json", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("50 random legal winning hands (seed 0), ruleset tw16/2026.09-p0")
    number = r"\d+\.\d+"
    assert re.fullmatch(rf"  reference   median {number} ms  p99 {number} ms", lines[1])
    for line, path in zip(lines[2:4], ("score", "score_json"), strict=True):
        assert re.fullmatch(rf"  {path:<11} median {number} ms  p99 {number} ms  {number}x the reference",
                            line)
    assert re.fullmatch(rf"  can_win     {number} µs per check warm, {number} µs cold "
                        r"\(100 count vectors, \d+ wins\)", lines[4])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["hands"] == 50 and report["ruleset"] == "tw16/2026.09-p0"
    assert report["score"]["vs_reference"] > 0
    assert 50 <= report["can_win"]["wins"] < 100  # every hand's own counts win; most changed ones not


def test_under_another_table_the_reference_is_left_out(capsys):
    main(["--hands", "20", "--ruleset", "tw16-improved", "--repeat", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("ruleset tw16-improved, least of 2 passes; per hand:")
    assert lines[1] == "  reference   (the default table only)"
    assert "x the reference" not in lines[2] and lines[2].startswith("  score       median")
