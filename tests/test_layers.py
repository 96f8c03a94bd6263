"""Our packages import downwards only, and no module imports itself round a cycle.

The layers, lowest first: `scoring` imports nothing of ours; `vision` and `ledger` use scoring;
`datasets` may use vision and scoring; `ui` and `app.py` use all of those; `training` (how the models
are made and judged) may use everything, and nothing uses it. Read from the source with `ast`, so an
import hidden inside a function counts as much as one at the top (the detector and the crop
classifier imported each other that way)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What each package may import of ours besides itself.
ALLOWED = {
    "scoring": set(),
    "vision": {"scoring"},
    "ledger": {"scoring"},
    "datasets": {"vision", "scoring"},
    "ui": {"datasets", "vision", "ledger", "scoring"},
    "app": {"ui", "datasets", "vision", "ledger", "scoring"},
    "training": {"datasets", "vision", "ledger", "scoring", "ui"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def our_modules() -> dict[str, Path]:
    files = [ROOT / "app.py", *(p for package in ALLOWED if package != "app" for p in (ROOT / package).rglob("*.py"))]
    return {module_name(p): p for p in files}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ours that `name` imports (`from a import b` counts as a.b where a.b is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: `.` is the module's own package, each further dot one above
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        out |= {t for t in targets if package_of(t) in ALLOWED and t != name}
    return out


def graph() -> dict[str, set[str]]:
    modules = our_modules()
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


def package_of(module: str) -> str:
    return module.split(".")[0]


def upward(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} imports {b}" for a, targets in edges.items() for b in targets
                  if package_of(b) != package_of(a) and package_of(b) not in ALLOWED[package_of(a)])


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of imports between modules (the first found, as a path back to its start), or None."""
    state: dict[str, str] = {}  # "open" while on the path, "done" once all it reaches is explored
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = "done"
        path.pop()
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_our_packages_import_downwards_only():
    assert upward(graph()) == []


def test_no_module_of_ours_imports_itself_round_a_cycle():
    assert cycle(graph()) is None


def test_the_walk_sees_what_these_tests_must_catch():
    """The checks on the graph, on imports made up to break them: each must be caught."""
    edges = graph()
    assert "vision.model_files" in edges["vision.detector"] and "vision.detector" in edges["app"]
    assert upward({"vision.bench": {"training.evaluate"}}) == ["vision.bench imports training.evaluate"]
    assert upward({"scoring.hand": {"vision.classes"}, "ledger.store": {"ui.text"}}) == [
        "ledger.store imports ui.text", "scoring.hand imports vision.classes"]
    looped = {**edges, "vision.model_files": edges["vision.model_files"] | {"vision.detector"}}
    found = cycle(looped)
    assert found[0] == found[-1] and {"vision.detector", "vision.model_files"} <= set(found)
    assert all(b in looped[a] for a, b in zip(found[:-1], found[1:], strict=True))


@pytest.mark.parametrize("source, expected", [
    ("from vision.detector import TileDetector", {"vision.detector"}),
    ("import vision.detector as d", {"vision.detector"}),
    ("from vision import detector", {"vision.detector"}),
    ("def f():\n    from scoring.tiles import tile_name", {"scoring.tiles"}),
    ("from .detector import TileDetector", {"vision.detector"}),
    ("from . import detector", {"vision.detector"}),
    ("import numpy, json", set()),
])
def test_every_form_of_import_is_seen(tmp_path, source, expected):
    path = tmp_path / "read.py"
    path.write_text(source)
    assert imports_of("vision.read", path, set(our_modules())) == expected
