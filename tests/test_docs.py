"""The docs hold together: every metrics file a card, a decision or the benchmarks page cites exists and every one is
cited; the figures the cards and the benchmarks page quote are the metrics files' own; every link and every
decision a file cites resolves; and no tracked file carries a work-tracker number."""

import json
import re
import subprocess
from dataclasses import fields
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
METRICS = ROOT / "models" / "metrics"
DOCS = sorted([ROOT / "README.md", *(ROOT / "models").glob("*.md"), *(ROOT / "docs").rglob("*.md")])
CITED = re.compile(r"models/metrics/[\w.\-/]*[\w/]")
LINK = re.compile(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")
DECISION = re.compile(r"docs/decisions/[\w-]+\.md")
# What the docs must not carry: the work tracker's numbering means nothing to a reader of the product.
NUMBERED = re.compile(r"session [0-9]|issue [0-9]|#[0-9]{2}\b", re.IGNORECASE)
NUMBERED_NAME = re.compile(r"(session|issue)[-_ ]?[0-9]", re.IGNORECASE)


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def citations() -> dict[str, set[Path]]:
    """Each cited metrics path (a file or a folder), with the docs citing it."""
    cited: dict[str, set[Path]] = {}
    for doc in DOCS:
        for path in CITED.findall(text(doc)):
            cited.setdefault(path.rstrip("/"), set()).add(doc)
    return cited


def tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    return [name for name in out.decode("utf-8").split("\0") if name]


def test_every_cited_metrics_file_exists():
    missing = {path: sorted(str(d.relative_to(ROOT)) for d in docs)
               for path, docs in citations().items() if not (ROOT / path).exists()}
    assert not missing, f"cited but not in the repository: {missing}"


def test_every_metrics_file_is_cited():
    cited = set(citations())
    uncited = [str(f.relative_to(ROOT)) for f in sorted(METRICS.rglob("*")) if f.is_file()
               and not any(str(p.relative_to(ROOT)) in cited for p in (f, *f.parents) if p.is_relative_to(METRICS))]
    assert not uncited, f"in models/metrics but cited by no card, decision or benchmark: {uncited}"


def test_every_link_of_the_docs_resolves():
    broken = []
    for doc in DOCS:
        for match in LINK.finditer(text(doc)):
            target = (match.group(1) or match.group(2)).split("#")[0]
            if target and not re.match(r"[a-z]+:", target) and not (doc.parent / target).exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    assert not broken, broken


def test_every_decision_cited_in_the_tree_exists():
    missing = set()
    for name in tracked():
        path = ROOT / name
        if path.suffix in (".py", ".md", ".sh") and path.is_file():
            missing |= {d for d in DECISION.findall(text(path)) if not (ROOT / d).exists()}
    assert not missing, f"cited but not written: {sorted(missing)}"


def test_no_tracked_file_or_name_carries_a_tracker_number():
    found = []
    for name in tracked():
        if NUMBERED_NAME.search(name):
            found.append(name)
        path = ROOT / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue
        for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if NUMBERED.search(line):
                found.append(f"{name}:{n}: {line.strip()[:120]}")
    assert not found, "\n".join(found)


def test_each_knob_of_the_settings_is_one_line_and_names_decisions_that_exist():
    from vision.settings import DetectorSettings, ReaderSettings

    source = text(ROOT / "vision" / "settings.py")
    for config in (ReaderSettings, DetectorSettings):
        for field in fields(config):
            assert re.search(rf"^    {field.name}: \w+ = [^#\n]+  # \S", source, re.MULTILINE), \
                f"{config.__name__}.{field.name}: one line, with what it does"
    named = {name.strip() for group in re.findall(r"#.*\[([a-z, -]+)\]", source) for name in group.split(",")}
    assert named and all((ROOT / "docs" / "decisions" / f"{name}.md").exists() for name in named), named


# -- the figures the docs quote against the files they cite --------------------------------------------------------

def figure(path: str, *keys: str):
    value = json.loads(text(ROOT / path))
    for key in keys:
        value = value[key]
    return value


def in_text(path: str, pattern: str) -> float:
    match = re.search(pattern, text(ROOT / path))
    assert match, f"{path} holds no {pattern!r}"
    return float(match.group(1))


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def evening(name: str) -> tuple[str, ...]:
    """Hands 3 on with the memory: taps, groups and kinds exact, flower groups right, as the docs write them."""
    m = figure(f"models/metrics/{name}", "all", "hands 3 on memory")
    return f"{m['taps']:.3f}", pct(m["groups_exact"]), pct(m["flower_groups_right"])


EVENINGS = [f"evening-8x8-1536-taught-{which}.json" for which in (
    "seed0", "seed5000", "seed9000", "seed9008", "across-seed0", "across-seed5000", "sideways-seed0",
    "sideways-seed5000")] + ["evening-8x8-512-seed0.json", "evening-8x8-512-seed5000.json"]
REAL = "models/metrics/real-test.json"
SMALL = "models/metrics-small.json"
SPEED = "models/metrics/read-speed-stages.txt"
CLASSIFIER = "models/classifier.json"
UNSEEN_CROPS = "unseen:data/crops/unseen-v3-val.npz"


def quoted():
    """(doc, metrics file, the figures the doc must quote on a line citing that file, or anywhere in it)."""
    real_sets = figure(REAL, "sets")
    yield "models/README.md", REAL, "anywhere", (
        f"{figure(REAL, 'all', 'hand', 'taps', 'mean'):.3f}", pct(figure(REAL, "all", "tiles", "precision")),
        pct(figure(REAL, "all", "tiles", "recall")), pct(figure(REAL, "all", "hand", "taps", "zero")),
        *(f"{s['read_path']['hand']['taps']['mean']:.3f}" for s in real_sets.values()))
    yield "docs/benchmarks.md", REAL, "line", (
        f"{figure(REAL, 'all', 'hand', 'taps', 'mean'):.3f}", pct(figure(REAL, "all", "hand", "taps", "zero")))
    for name in EVENINGS:
        taps, exact, flowers = evening(name)
        yield "models/README.md", f"models/metrics/{name}", "line", (taps, exact, flowers)
        yield "docs/benchmarks.md", f"models/metrics/{name}", "line", (taps,)
    as_evenings = figure("models/metrics/evening-3x8-512-seed0.json", "real")
    yield "docs/benchmarks.md", "models/metrics/evening-3x8-512-seed0.json", "line", tuple(
        f"{s['taps memory']:.3f}" for s in as_evenings.values())
    small = figure(SMALL, "read_path")
    yield "models/README.md", SMALL, "anywhere", (
        pct(small["tiles"]["precision"]), pct(small["tiles"]["recall"]), f"{small['hand']['taps']['mean']:.2f}",
        f"{figure(SMALL, 'detector', 'mAP50'):.3f}")
    yield "docs/benchmarks.md", SMALL, "line", (f"{small['hand']['taps']['mean']:.2f}",)
    ratio, besides, one_pass = (f"{in_text(SPEED, pattern):.2f}x" for pattern in (
        r"ratio\s*:\s*([\d.]+)x", r"besides the networks\s*:\s*([\d.]+)x", r"and one first pass\s*:\s*([\d.]+)x"))
    for doc in ("models/README.md", "docs/benchmarks.md", "docs/decisions/read-speed.md"):
        yield doc, SPEED, "anywhere", (ratio,)
    yield "docs/decisions/read-speed.md", SPEED, "anywhere", (besides, one_pass)
    unseen = figure(CLASSIFIER, UNSEEN_CROPS)
    yield "models/CLASSIFIER.md", CLASSIFIER, "anywhere", (
        f"{100 * unseen['top1']:.2f}%", f"{100 * unseen['flowers_top1']:.2f}%",
        f"{100 * figure(CLASSIFIER, 'val', 'top1'):.2f}%")
    yield "docs/benchmarks.md", CLASSIFIER, "line", (f"{100 * unseen['top1']:.2f}%",)
    audit = re.search(r"all seeds: (\d+)/(\d+)", text(ROOT / "models/metrics/audit-planted-errors.txt"))
    yield "docs/benchmarks.md", "models/metrics/audit-planted-errors.txt", "line", (
        f"{audit.group(1)} of {audit.group(2)}",)


@pytest.mark.parametrize(("doc", "source", "where", "figures"), list(quoted()),
                         ids=lambda v: v if isinstance(v, str) else None)
def test_the_docs_quote_the_figures_of_the_files_they_cite(doc, source, where, figures):
    body = text(ROOT / doc)
    assert source in body, f"{doc} does not cite {source}"
    lines = [line for line in body.splitlines() if source in line] if where == "line" else [body]
    for value in figures:
        assert any(value in line for line in lines), f"{doc} does not quote {value} from {source}"
