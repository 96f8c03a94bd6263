"""Rulesets as data: a 台 table is a JSON file in scoring/rulesets/, read into `Ruleset`.

Each entry record holds everything about one entry: the name the page prints (simplified),
its traditional rendering, 台, the predicate that detects it (`when`, with `args`), the entries
it cancels when it counts (`excludes`), and the rule in words. The settlement record holds the
庄家 / 连庄 / 听牌 台 and who pays a self-drawn win.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from .entries import PREDICATES

RULESET_DIR = Path(__file__).with_name("rulesets")
DEFAULT_RULESET = "tw16-2026.09-p0"
_ENTRY_KEYS = {"name", "trad", "tai", "when", "args", "excludes", "rule"}


class RulesetError(ValueError):
    """A ruleset file that does not describe a table the scorer can use."""


@dataclass(frozen=True)
class Entry:
    name: str  # as the page prints it, simplified: 门清自摸
    trad: str  # traditional rendering: 門清自摸
    tai: int
    when: str  # predicate name in scoring.entries.PREDICATES
    args: dict[str, Any] = field(default_factory=dict)
    excludes: tuple[str, ...] = ()
    rule: str = ""

    def detect(self, reading):
        return PREDICATES[self.when](reading, **self.args)


@dataclass(frozen=True)
class SettlementRules:
    dealer_tai: int = 1  # 庄家: +1 台 when the winner or the payer is the dealer
    streak_tai: int = 2  # 连庄: per consecutive dealer hand
    ready_tai: int = 1  # 听牌: declared ready before winning
    names: dict[str, tuple[str, str]] = field(default_factory=dict)  # key → (simplified, trad)


@dataclass(frozen=True)
class Ruleset:
    id: str
    title: str
    entries: tuple[Entry, ...]
    settlement: SettlementRules

    def entry(self, name: str) -> Entry:
        return next(e for e in self.entries if e.name == name)


def _entry(raw: dict, where: str) -> Entry:
    if not isinstance(raw, dict):
        raise RulesetError(f"{where}: expected an object")
    unknown = set(raw) - _ENTRY_KEYS
    if unknown:
        raise RulesetError(f"{where}: unknown key(s) {sorted(unknown)}")
    for key in ("name", "trad", "tai", "when"):
        if key not in raw:
            raise RulesetError(f"{where}: missing {key!r}")
    if raw["when"] not in PREDICATES:
        raise RulesetError(f"{where} ({raw['name']}): no predicate named {raw['when']!r}")
    return Entry(
        name=raw["name"],
        trad=raw["trad"],
        tai=int(raw["tai"]),
        when=raw["when"],
        args=dict(raw.get("args", {})),
        excludes=tuple(raw.get("excludes", ())),
        rule=raw.get("rule", ""),
    )


def parse_ruleset(data: dict, where: str = "ruleset") -> Ruleset:
    entries = tuple(_entry(e, f"{where}: entries[{i}]") for i, e in enumerate(data["entries"]))
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise RulesetError(f"{where}: an entry name appears twice")
    for e in entries:
        missing = [x for x in e.excludes if x not in names]
        if missing:
            raise RulesetError(f"{where}: {e.name} excludes unknown entries {missing}")
    s = data.get("settlement", {})
    names_map = {k: (v["name"], v["trad"]) for k, v in s.items()
                 if isinstance(v, dict) and "name" in v}
    settlement = SettlementRules(
        dealer_tai=s.get("dealer", {}).get("tai", 1),
        streak_tai=s.get("streak", {}).get("tai_per_hand", 2),
        ready_tai=s.get("ready", {}).get("tai", 1),
        names=names_map,
    )
    return Ruleset(data["id"], data.get("title", ""), entries, settlement)


def load_ruleset(name: str = DEFAULT_RULESET) -> Ruleset:
    """A ruleset by file stem (`tw16-2026.09-p0`), by id (`tw16/2026.09-p0`), or by path
    to a .json file; read once per process."""
    if name.endswith(".json"):
        return _load(Path(name).resolve())
    return _load(RULESET_DIR / (name.replace("/", "-") + ".json"))


@cache
def _load(path: Path) -> Ruleset:
    if not path.is_file():
        known = ", ".join(available_rulesets())
        raise RulesetError(f"no ruleset {path.stem!r} (known: {known})")
    with path.open(encoding="utf-8") as f:
        return parse_ruleset(json.load(f), path.name)


def available_rulesets() -> list[str]:
    return sorted(p.stem for p in RULESET_DIR.glob("*.json"))
