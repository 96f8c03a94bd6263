"""Rulesets as data: a 台 table is a JSON file in scoring/rulesets/, read into `Ruleset`.
A folder named by the setting TAISHU_RULESETS adds a house's own tables (docs/extending.md).

Each entry record holds everything about one entry: the name the page prints (simplified),
its traditional rendering, 台 (and `tai_open`, its 台 in open form where the table has one),
the predicate that detects it (`when`, with `args`), the entries it cancels when it counts
(`excludes`: names, a qualified line such as "三元牌 白", or "*" for every other entry), the
rule in words, and where the table was ambiguous the `decision` taken (one line, with its
reason). Optional: `shape`, a hand shape other than 5 sets and a pair that this entry makes a
win of its own (十三么, 瀝咕瀝咕, 八仙过海 …); `payment`, how it changes the settlement (no
底, extras dropped, or a multiplier of its own: 改良式 四槓胡 「三家各付六台」);
`keeps`, entries it keeps counted even where another entry cancels them (五暗刻 「必计对对胡」);
and `seat`, "dealer" or "non_dealer" for a stated situation (天听, 人胡 …) that the table gives
to that seat alone (莊家專屬 / 閒家專屬): another seat stating it is refused.

The settlement record holds the 庄家 / 连庄 / 拉庄 / 听牌 台 and the payment formula: 底 or not,
and how many times its 台 a discarder and each self-draw payer pay; `streak.every_payment`
puts the 连庄 台 on every payment, not only those of the dealer (比赛规则 本场制);
`several_winners`, whether one discard may be won by several players (改良式 无拦胡), and
`false_win`, whether the table states the 詐胡 penalty that `settle_false_win` pays. `min_tai` is
the least 台 a win needs (起胡); `options` are house rules a name selects:
`tw16-common+见花见台`; `impossible` lists situation flags (and the table's `declared_ready`)
that cannot hold together at this table, with the reason in English and Traditional Chinese.
"""

from __future__ import annotations

import inspect
import json
import os
import types
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from .entries import CLAIMS, NEEDS_OF, OPEN, ORIGIN_ARGS, PREDICATES, SHAPES_OF
from .hand import ALL_FLAGS, TABLE_FLAGS, brief
from .melds import KongOrigin, MeldKind
from .reading import SHAPES, STANDARD
from .script import simplified

RULESET_DIR = Path(__file__).with_name("rulesets")
# A folder of your own ruleset files, offered beside the built-in ones; a file there named like a
# built-in table replaces it (the first folder that has a name wins).
EXTRA_RULESETS = "TAISHU_RULESETS"
DEFAULT_RULESET = "tw16-2026.09-p0"
_ENTRY_KEYS = {"name", "trad", "tai", "tai_open", "when", "args", "excludes", "rule", "decision",
               "shape", "payment", "keeps", "seat"}
_PAYMENT_KEYS = {"base", "drop", "discard_multiplier", "self_draw_multiplier"}
MULTIPLIERS = ("discard_multiplier", "self_draw_multiplier")
_EXTRAS = ("dealer", "streak", "pull", "ready")
# whose alone an entry stated by a seat is (an Entry's `seat`: 莊家專屬, 閒家專屬); the seats are scoring.seats.SEATS
DEALER_ROLES = ("dealer", "non_dealer")
KONG_SOURCES = (MeldKind.ANKONG, *KongOrigin)  # what an entry reading kongs' origins may name


class RulesetError(ValueError):
    """A ruleset file that does not describe a table the scorer can use."""


def _bound(fn, args: dict):
    """`fn` with an entry's arguments as its defaults, called with a reading alone at the cost of
    a plain call: scoring calls every entry once per reading, and a partial with keywords costs
    about ten times a plain call. `_entry` checked the arguments against `fn`."""
    params = list(inspect.signature(fn).parameters.values())[1:]
    defaults = tuple(args.get(p.name, p.default) for p in params)
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, defaults, fn.__closure__)


@dataclass(frozen=True, slots=True)
class Item:
    """One line of the result: `门风 东` 1 台 (traditional `門風 東`)."""

    entry: str  # the entry's name without qualifier: 门风
    name: str  # as printed, simplified: 门风 东
    trad: str  # traditional rendering: 門風 東
    tai: int


@dataclass(frozen=True)
class Entry:
    name: str  # as the page prints it, simplified: 门清自摸
    trad: str  # traditional rendering: 門清自摸
    tai: int
    when: str  # predicate name in scoring.entries.PREDICATES
    args: dict[str, Any] = field(default_factory=dict)
    excludes: tuple[str, ...] = ()
    rule: str = ""
    tai_open: int | None = None  # 台 when the predicate finds the open form (OPEN)
    shape: str | None = None  # a special shape this entry makes a win of its own
    payment_base: bool = True  # False: a payment for this win has no 底
    payment_drop: tuple[str, ...] = ()  # settlement extras (dealer/streak/ready) it cancels
    payment_times: tuple[tuple[str, int], ...] = ()  # (MULTIPLIERS key, value) it sets instead
    decision: str = ""
    reads: frozenset[str] = frozenset((STANDARD,))  # shapes its predicate reads
    keeps: tuple[str, ...] = ()  # entries that count with it even where another cancels them
    seat: str | None = None  # "dealer" / "non_dealer": only that seat may state this situation
    needs: int = 0  # facts of the hand its predicate needs to hold (bits of reading.NEEDS)
    reads_origin: bool = False  # its predicate reads open kongs' origins (entries.ORIGIN_ARGS)

    def detect(self, reading):
        if reading.shape not in self.reads:
            return False
        return self.test(reading)

    @cached_property
    def test(self):
        """The predicate with this entry's arguments bound (looked up once, called per reading)."""
        fn = PREDICATES[self.when]
        return _bound(fn, self.args) if self.args else fn

    @cached_property
    def line(self) -> Item:
        """Its line where it simply holds (its predicate says True), made once."""
        return Item(self.name, self.name, self.trad, self.tai)

    def tai_of(self, found) -> int:
        return self.tai_open if found == OPEN and self.tai_open is not None else self.tai


@dataclass(frozen=True)
class SettlementRules:
    dealer_tai: int = 1  # 庄家: +1 台 when the winner or the payer is the dealer
    streak_tai: int = 2  # 连庄: per consecutive dealer hand
    streak_every_payment: bool = False  # 连庄 on every payment, not only the dealer's (本场制)
    ready_tai: int = 1  # 听牌: declared ready before winning (0: the table has no such item)
    pull_tai: int = 0  # 拉庄: per consecutive dealer hand, on the dealer's payments (比赛规则 option)
    names: dict[str, tuple[str, str]] = field(default_factory=dict)  # key → (simplified, trad)
    base: bool = True  # payment = 底 + 台 × 每台 × multiplier (False: no 底)
    discard_multiplier: int = 1  # the discarder pays 台 × 每台 × this
    self_draw_multiplier: int = 1  # each of the three pays 台 × 每台 × this
    several_winners: bool = False  # one discard may be won by several players (无拦胡)
    false_win: bool = False  # the table's 詐胡 penalty (改良式 「詐胡通賠三家」, settle_false_win)
    rule: str = ""


@dataclass(frozen=True)
class Impossible:
    """Situation flags that cannot hold together at this table, and why (English, Chinese)."""

    flags: tuple[str, ...]
    why: str
    zh: str


@dataclass(frozen=True)
class Ruleset:
    id: str
    title: str
    entries: tuple[Entry, ...]
    settlement: SettlementRules
    name: str = ""  # display name in Chinese (simplified, like the entries' names)
    trad: str = ""  # the display name in traditional characters, where the file gives one
    min_tai: int = 0  # 起胡: the least 台 a win needs
    options: tuple[str, ...] = ()  # house rules selected (tw16-common+见花见台)
    available_options: tuple[str, ...] = ()
    impossible: tuple[Impossible, ...] = ()

    def entry(self, name: str) -> Entry:
        return next(e for e in self.entries if e.name == name)

    def label(self, script: str) -> str:
        """The table's name for a player reading `script`: `trad` or `name` as the file writes
        them (options appended), the id where it names neither. A `trad` that is not `name` in
        traditional characters is left out: a house table copied from another with only its
        `name` changed would otherwise be offered under the other table's name."""
        trad = self.trad if simplified(self.trad) == self.name else ""
        if script == "traditional":
            return trad or self.name or self.id
        return self.name or self.id

    # Facts of the table read at every hand: computed once (a Ruleset never changes).
    @cached_property
    def shapes(self) -> frozenset[str]:
        """The special shapes some entry makes a win (beside 5 sets and a pair)."""
        return frozenset(e.shape for e in self.entries if e.shape)

    def detectors(self, shape: str, facts: int) -> tuple[tuple[Any, ...], tuple[Entry, ...]]:
        """The tests and the entries that scoring a reading runs through, in display order:
        those that read its `shape`, less those that need a fact its hand lacks (`facts`: the
        HandView's bits of reading.NEEDS). Found once per shape and facts."""
        key = (shape, facts)
        found = self._detectors.get(key)
        if found is None:
            entries = tuple(e for e in self.entries if shape in e.reads and not e.needs & ~facts)
            found = self._detectors[key] = (tuple(e.test for e in entries), entries)
        return found

    @cached_property
    def _detectors(self) -> dict:
        return {}

    @cached_property
    def seated(self) -> tuple[Entry, ...]:
        """The entries a table gives to one seat (`seat`)."""
        return tuple(e for e in self.entries if e.seat)

    @cached_property
    def origin_readers(self) -> tuple[Entry, ...]:
        """The entries that read open kongs' origins (常见规则 杠上开花: 加杠, not 大明杠)."""
        return tuple(e for e in self.entries if e.reads_origin)


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
    params = list(inspect.signature(PREDICATES[raw["when"]]).parameters.values())[1:]
    args = raw.get("args", {})
    if not isinstance(args, dict) or set(args) - {p.name for p in params} or any(
            p.default is p.empty and p.name not in args for p in params):
        shown = ", ".join(p.name + ("" if p.default is p.empty else "?") for p in params)
        raise RulesetError(f"{where} ({raw['name']}): {raw['when']} takes the args {shown} "
                           f"(? optional), not {brief(args)}")
    shape = raw.get("shape")
    if shape is not None and (shape not in SHAPES or shape == STANDARD
                              or shape not in SHAPES_OF[raw["when"]]):
        raise RulesetError(f"{where} ({raw['name']}): {raw['when']} cannot make a win of shape "
                           f"{shape!r}")
    payment = raw.get("payment", {})
    if not isinstance(payment, dict) or set(payment) - _PAYMENT_KEYS:
        raise RulesetError(f"{where} ({raw['name']}): payment takes only {sorted(_PAYMENT_KEYS)}")
    bad = [x for x in payment.get("drop", ()) if x not in _EXTRAS]
    if bad:
        raise RulesetError(f"{where} ({raw['name']}): payment.drop {bad} not in {_EXTRAS}")
    times = tuple((k, payment[k]) for k in MULTIPLIERS if k in payment)
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for _, v in times):
        raise RulesetError(f"{where} ({raw['name']}): payment multipliers are whole numbers")
    origin_arg = ORIGIN_ARGS.get(raw["when"])
    sources = args.get(origin_arg) if origin_arg else None
    if sources is not None and (not isinstance(sources, list) or set(sources) - set(KONG_SOURCES)):
        raise RulesetError(f"{where} ({raw['name']}): {origin_arg} lists kongs by source, of "
                           f"{', '.join(KONG_SOURCES)}, not {brief(sources)}")
    seat = raw.get("seat")
    if seat is not None and (seat not in DEALER_ROLES or raw["when"] not in CLAIMS):
        raise RulesetError(f"{where} ({raw['name']}): seat must be one of {DEALER_ROLES}, on a stated "
                           f"situation ({', '.join(sorted(CLAIMS))})")
    return Entry(
        name=raw["name"],
        trad=raw["trad"],
        tai=int(raw["tai"]),
        when=raw["when"],
        args=dict(raw.get("args", {})),
        excludes=tuple(raw.get("excludes", ())),
        rule=raw.get("rule", ""),
        tai_open=raw.get("tai_open"),
        shape=shape,
        payment_base=bool(payment.get("base", True)),
        payment_drop=tuple(payment.get("drop", ())),
        payment_times=times,
        decision=raw.get("decision", ""),
        reads=SHAPES_OF[raw["when"]],
        needs=NEEDS_OF[raw["when"]],
        keeps=tuple(raw.get("keeps", ())),
        seat=seat,
        reads_origin=sources is not None,
    )


def _expand_excludes(entries: list[Entry], where: str) -> tuple[Entry, ...]:
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise RulesetError(f"{where}: an entry name appears twice")
    out = []
    for e in entries:
        if "*" in e.excludes:
            e = replace(e, excludes=tuple(n for n in names if n != e.name))
        # a qualified line ("三元牌 白") cancels that line only
        for key, listed in (("excludes", e.excludes), ("keeps", e.keeps)):
            missing = [x for x in listed if x.split(" ")[0] not in names]
            if missing:
                raise RulesetError(f"{where}: {e.name} {key} unknown entries {missing}")
        out.append(e)
    return tuple(out)


def parse_ruleset(data: dict, where: str = "ruleset", options: tuple[str, ...] = ()) -> Ruleset:
    """A Ruleset from the JSON form; `options` names house rules of its `options` record
    to apply (each may add entries, remove entries, patch entries' fields, and set records of the
    settlement: 比赛规则 拉庄)."""
    raw_entries = list(data["entries"])
    known = data.get("options", {})
    s = dict(data.get("settlement", {}))
    for opt in options:
        if opt not in known:
            raise RulesetError(f"{where}: no option {opt!r} (options: {', '.join(known) or 'none'})")
        o = known[opt]
        gone = set(o.get("remove", ()))
        raw_entries = [dict(e, **o.get("patch", {}).get(e["name"], {}))
                       for e in raw_entries if e["name"] not in gone]
        raw_entries += o.get("add", [])
        s.update(o.get("settlement", {}))
    entries = _expand_excludes(
        [_entry(e, f"{where}: entries[{i}]") for i, e in enumerate(raw_entries)], where)
    impossible = tuple(_impossible(x, f"{where}: impossible[{i}]")
                       for i, x in enumerate(data.get("impossible", ())))
    names_map = {k: (v["name"], v["trad"]) for k, v in s.items()
                 if isinstance(v, dict) and "name" in v}
    pay = s.get("payment", {})
    settlement = SettlementRules(
        dealer_tai=s.get("dealer", {}).get("tai", 1),
        streak_tai=s.get("streak", {}).get("tai_per_hand", 2),
        streak_every_payment=bool(s.get("streak", {}).get("every_payment", False)),
        ready_tai=s.get("ready", {}).get("tai", 0) if "ready" in s else 0,
        pull_tai=s.get("pull", {}).get("tai_per_hand", 0),
        names=names_map,
        base=bool(pay.get("base", True)),
        discard_multiplier=int(pay.get("discard_multiplier", 1)),
        self_draw_multiplier=int(pay.get("self_draw_multiplier", 1)),
        several_winners=bool(s.get("several_winners", False)),
        false_win=bool(s.get("false_win", False)),
        rule=s.get("rule", ""),
    )
    rid = data["id"] + "".join(f"+{o}" for o in options)
    return Ruleset(rid, data.get("title", ""), entries, settlement,
                   name=data.get("name", data.get("title", "")) + "".join(f" + {o}" for o in options),
                   trad=data["trad"] + "".join(f" + {o}" for o in options) if "trad" in data else "",
                   min_tai=int(data.get("min_tai", 0)), options=tuple(options),
                   available_options=tuple(known), impossible=impossible)


def _impossible(raw: dict, where: str) -> Impossible:
    if not isinstance(raw, dict) or set(raw) != {"flags", "why", "zh"}:
        raise RulesetError(f"{where}: expected an object with flags, why and zh")
    known = ALL_FLAGS + TABLE_FLAGS
    bad = [f for f in raw["flags"] if f not in known]
    if len(raw["flags"]) < 2 or bad:
        raise RulesetError(f"{where}: flags must be two or more of {known} (unknown: {bad})")
    return Impossible(tuple(raw["flags"]), raw["why"], raw["zh"])


def load_ruleset(name: str = DEFAULT_RULESET) -> Ruleset:
    """A ruleset by file stem (`tw16-2026.09-p0`), by id (`tw16/2026.09-p0`), or by path
    to a .json file, optionally with house rules of its `options` (`tw16-common+见花见台`);
    read once per process."""
    base, *options = name.split("+")
    if base.endswith(".json"):
        try:
            path = Path(base).resolve()
        except (OSError, ValueError):  # a NUL in the name
            raise _unknown(base) from None
        return _load(path, tuple(options))
    return _load(_ruleset_file(ruleset_stem(base)), tuple(options))


def ruleset_stem(name: str) -> str:
    """A ruleset's name as `available_rulesets` offers it: an id's `/` is its file stem's `-`
    (`tw16/2026.09-p0` → `tw16-2026.09-p0`, what a score records as `Score.ruleset`); house options kept."""
    base, *options = name.split("+")
    return "+".join((base.replace("/", "-"), *options))


@cache
def _load(path: Path, options: tuple[str, ...] = ()) -> Ruleset:
    try:
        found = path.is_file()
    except OSError:  # a name too long for a file
        found = False
    if not found:
        raise _unknown(path.stem)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise RulesetError(f"{path} is not a readable JSON file: {str(e)[:200]}") from e
    try:
        return parse_ruleset(data, path.name, options)
    except RulesetError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as e:  # a JSON file of another shape
        raise RulesetError(f"{path} is not a ruleset (needs id, entries, settlement as in "
                           f"{RULESET_DIR.name}/): {type(e).__name__}: {str(e)[:200]}") from e


def available_rulesets() -> list[str]:
    """The rulesets by file stem, the default first (each also loads by its id)."""
    stems = sorted({p.stem for folder in _ruleset_dirs() for p in folder.glob("*.json")})
    return sorted(stems, key=lambda s: s != DEFAULT_RULESET)


def _ruleset_dirs() -> list[Path]:
    """Where ruleset files are looked for, in order (the setting is read at each call)."""
    extra = os.environ.get(EXTRA_RULESETS)
    return [Path(extra), RULESET_DIR] if extra else [RULESET_DIR]


def _ruleset_file(stem: str) -> Path:
    """The file of a ruleset name, from the first folder that has it; a RulesetError naming the known
    ones where none does (a name too long for a file, or with a NUL in it, is no ruleset either)."""
    for folder in _ruleset_dirs():
        path = folder / f"{stem}.json"
        try:
            if path.is_file():
                return path
        except (OSError, ValueError):
            pass
    raise _unknown(stem)


def _unknown(name: str) -> RulesetError:
    return RulesetError(f"no ruleset {brief(name)} (known: {', '.join(available_rulesets())})")
