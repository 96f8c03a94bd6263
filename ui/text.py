"""Words on the screen: written in traditional characters, shown in simplified on request.

The app's own labels are traditional; `in_script` (scoring/script.py) turns them, and anything else
mixed in such as a tile name or a scorer message, into simplified one character at a time.
"""

from __future__ import annotations

from scoring.ruleset import RulesetError, load_ruleset
from scoring.script import in_script
from scoring.seats import Seat, Wind
from scoring.tiles import tile_name

SCRIPTS = ("traditional", "simplified")
SCRIPT_LABELS = {"traditional": "繁體", "simplified": "简体"}


def tile_label(code: str | None, script: str) -> str:
    """一萬 / 一万, 紅中, 梅, 牌背 … (`scoring.tiles.tile_name`); a tile not known yet is ？."""
    return "？" if code is None else tile_name(code, script)


def seat_label(seat: Seat, script: str) -> str:
    """東家 / 东家."""
    return in_script(seat.zh, script)


def wind_label(wind: Wind, script: str) -> str:
    """東 (as 門風 or 圈風)."""
    return in_script(Wind(wind).zh, script)


def ruleset_label(name: str, script: str) -> str:
    """A ruleset offered by file stem, shown by its Chinese name (tw16-common → 台灣麻將 常見規則);
    one that does not load is shown by its stem (the page says what is wrong when it scores)."""
    try:
        return in_script(load_ruleset(name).label(script), script)
    except RulesetError:
        return name
