"""How one call walks between our modules, counted with `sys.setprofile`: the calls from one module of ours
into another, the path the call takes through the modules it calls, and the returns to a module the walk had left.

    python -m training.module_walk PHOTO [--ruleset ID] [--json OUT]     # one read (vision.read.read_photo)
    python -m training.module_walk --hand HAND.json [--ruleset ID] [--json OUT]    # one score (scoring.score)

HAND.json: a hand in scoring's JSON form, or a generated scene's truth (its `hand`).

A module is one file of our packages (scoring, vision, datasets, ledger, ui, training); code of others
(numpy, the standard library, a dataclass's generated methods), and the clock of a read's stages (vision/stages.py),
count as the module of ours that called them.
A *call between modules* is a Python call from a function of one module into a function of another. The
*path* is the modules that the walked function's own module (vision.read, scoring.score) calls into, in turn,
a module called again straight after itself once: detections → layout → hand_finding → search … A *return to
a module the walk had left* is a place in the path where it enters a module it had entered before another.
Beside those, *calls back*: calls into a module still on the call stack below the caller (the checker calling
the readings that call the checker), each counted. The photo is read with the committed models, as
`vision read` reads it, once before the walk (loading the sessions); the figures depend only on the code and
the photo, not on the machine.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.ruleset import DEFAULT_RULESET

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scoring", "vision", "datasets", "ledger", "ui", "training")
CLOCKS = ("vision.stages",)  # the read's clock of its stages: it times the walk and is no step of it


@dataclass
class Walk:
    """What one call did between our modules."""

    calls: Counter = field(default_factory=Counter)  # (caller, callee) → calls between the two modules
    path: list[str] = field(default_factory=list)  # the modules the walked function's module called, in turn
    back: Counter = field(default_factory=Counter)  # (module, caller) → calls back into a module on the stack

    @property
    def returns(self) -> list[int]:
        """The places in `path` where the walk returns to a module it had left for another."""
        return [k for k, module in enumerate(self.path) if module in self.path[:k]]

    @property
    def entries(self) -> Counter:
        """Per module: the calls into it from another module."""
        out: Counter = Counter()
        for (_, callee), n in self.calls.items():
            out[callee] += n
        return out

    def to_json(self) -> dict:
        return {"calls_between_modules": sum(self.calls.values()), "path": self.path,
                "returns_to_a_module_left": len(self.returns),
                "entries": dict(sorted(self.entries.items())),
                "calls_back": {f"{m} <- {c}": n for (m, c), n in sorted(self.back.items())}}


def module_of(filename: str, known: dict[str, str | None]) -> str | None:
    """The module of ours a code object's file is (`scoring.validate`), None for anyone else's code."""
    if filename not in known:
        path = Path(filename)
        name = None
        if path.is_absolute() and path.suffix == ".py" and path.is_relative_to(ROOT):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[0] in PACKAGES:
                name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                name = None if name in CLOCKS else name
        known[filename] = name
    return known[filename]


def walk(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Walk]:
    """`fn(*args, **kwargs)`'s result and its walk between our modules."""
    found = Walk()
    stack: list[str | None] = []  # per Python frame now running: its module, or the module of ours under it
    top: list[str | None] = []  # the walked function's module
    known: dict[str, str | None] = {}

    def profile(frame, event: str, arg) -> None:
        if event == "call":
            caller = stack[-1] if stack else None
            module = module_of(frame.f_code.co_filename, known) or caller
            if not stack:  # the walked function
                stack.append(module)
                top.append(module)
                return
            if module != caller:
                found.calls[(caller, module)] += 1
                if module in stack:
                    found.back[(module, caller)] += 1
                if caller == top[0] and (not found.path or found.path[-1] != module):
                    found.path.append(module)
            stack.append(module)
        elif event == "return" and stack:
            stack.pop()

    sys.setprofile(profile)
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return result, found


def read_walk(photo: Path, ruleset: str) -> Walk:
    """The walk of one read of `photo` by the committed models (the detector loaded beforehand)."""
    from scoring.ruleset import load_ruleset
    from vision.detector import TileDetector
    from vision.photo import load_photo
    from vision.read import read_photo

    detector, image, rules = TileDetector(), load_photo(photo), load_ruleset(ruleset)
    read_photo(image, detector, rules)  # a first read loads the sessions and fills the caches
    return walk(read_photo, image, detector, rules)[1]


def score_walk(hand_file: Path, ruleset: str) -> Walk:
    """The walk of one score of the hand in `hand_file` (scoring's JSON form)."""
    from scoring.hand import Hand
    from scoring.ruleset import load_ruleset
    from scoring.score import score

    data = json.loads(hand_file.read_text(encoding="utf-8"))
    if isinstance(data, dict) and isinstance(data.get("hand"), dict):  # a generated scene's truth
        data = data["hand"]
    hand, rules = Hand.from_json(data), load_ruleset(ruleset)
    return walk(score, hand, rules)[1]


def report(what: str, found: Walk) -> str:
    returns = set(found.returns)
    path = " → ".join(f"[{m}]" if k in returns else m for k, m in enumerate(found.path))
    lines = [f"{what}: {sum(found.calls.values())} calls between modules; its path, {len(found.path)} modules, "
             f"returns {len(returns)} times to a module it had left (in brackets):", f"  {path}",
             "  calls into each module from another:"]
    lines += [f"    {m}: {n}" for m, n in sorted(found.entries.items(), key=lambda e: (-e[1], e[0]))]
    lines.append(f"  calls back into a module on the stack: {sum(found.back.values())}")
    lines += [f"    {m} <- {c}: {n}" for (m, c), n in sorted(found.back.items(), key=lambda e: (-e[1], e[0]))]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.module_walk",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("photo", nargs="?", type=Path, help="a photo to read once")
    parser.add_argument("--hand", type=Path, help="a hand's JSON file to score once, instead of a photo")
    parser.add_argument("--ruleset", default=DEFAULT_RULESET, help="the table (default: %(default)s)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if (args.photo is None) == (args.hand is None):
        parser.error("give a photo or --hand, one of them")
    source = args.photo or args.hand
    if not source.is_file():
        parser.error(f"no such file: {source}")
    try:
        if args.hand:
            what, found = f"scoring.score.score on {args.hand}", score_walk(args.hand, args.ruleset)
        else:
            what, found = f"vision.read.read_photo on {args.photo}", read_walk(args.photo, args.ruleset)
    except (OSError, ValueError, RuntimeError) as e:  # an unreadable photo or hand, an unknown ruleset, no models
        print(f"error: {source}: {e}", file=sys.stderr)
        return 1
    print(report(what, found))
    if args.json:
        args.json.write_text(json.dumps({"what": what, **found.to_json()}, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
