"""Hands shared by the tests (the scoring tests' in the JSON form of the examples file); a house table."""

import json
from pathlib import Path

from scoring.hand import Hand
from scoring.ruleset import RULESET_DIR

# The 56 worked examples of the default table, vendored (provenance: tests/data/README.md).
EXAMPLES_FILE = Path(__file__).with_name("data") / "tw16-2026.09-p0-examples.json"
EXAMPLES = json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))["cases"]

# The rules page's first worked example (门清 + 平和 off a discard of 6s): concealed tiles before the win.
PLAIN = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "4s", "5s", "9s", "9s"]


def plain(**changes) -> dict:
    """The PLAIN hand as JSON, with some keys changed or added."""
    d = {"concealed": PLAIN, "win": "6s", "melds": [], "flowers": [], "seat": "E", "round": "E",
         "self_draw": False}
    d.update(changes)
    return d


def house_table(folder: Path) -> Path:
    """A house's own table written to `folder/house.json`: the default table with 门清 at 2 台."""
    data = json.loads((RULESET_DIR / "tw16-2026.09-p0.json").read_text(encoding="utf-8"))
    data.update(id="house", name="我家的台數")
    for entry in data["entries"]:
        if entry["name"] == "门清":
            entry["tai"] = 2
    path = folder / "house.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


# The hand the app's and the ledger's tests type, photograph and record: 自摸 by 東家 in the 東 round.
HAND = Hand.from_json({
    "concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "2s", "3s", "4s", "5s"], "win": "5s",
    "melds": [{"type": "pon", "tiles": ["7z", "7z", "7z"]}], "flowers": ["1f"],
    "seat": "E", "round": "E", "self_draw": True,
})
TYPED = "123456m 789p 2345s 和5s 碰777z 花1f"  # HAND as a player types it
