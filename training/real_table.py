"""The real-photo table of a model card from `python -m training.evaluate` figures (Markdown).

    python -m training.real_table FIGURES.json [--no-scenes]

One row per set and per scene type within it, and the pooled row: tile precision / recall, image
exact, taps to fix (mean, then the share of photos with 0 and with at most 1 tap), the same with
`back` left out, taps to fix the hand the player is shown (on a real set, which has no hand truth,
every tile shown after correction, set apart or not), and ours beside the peer on the 34 riichi
classes. Figures of several models (`--models` twice) give one table per model.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HEADER = ("| set / scene | photos | precision / recall | image exact | taps: mean (0, ≤1) "
          "| taps, backs left out | hand taps | riichi 34, ours: P / R, taps | riichi 34, peer: P / R, taps |\n"
          "|---|---|---|---|---|---|---|---|---|")


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def taps(t: dict) -> str:
    return f"{t['taps']['mean']:.2f} ({pct(t['taps']['zero'])}, {pct(t['taps']['at_most_one'])})"


def row(name: str, r: dict) -> str:
    t, ours, peer = r["tiles"], r["riichi34"]["ours"], r["riichi34"].get("peer")
    riichi = lambda x: f"{pct(x['precision'])} / {pct(x['recall'])}, {x['taps']['mean']:.2f}"  # noqa: E731
    cells = [name, str(r["images"]), f"{pct(t['precision'])} / {pct(t['recall'])}", pct(t["image_exact"]),
             taps(t), taps(r["face_up"]), taps(r["hand"]) if "hand" in r else "—",  # older figures have none
             riichi(ours), riichi(peer) if peer else "—"]
    return "| " + " | ".join(cells) + " |"


def table(figures: dict, scenes: bool = True) -> str:
    """One model's figures (one set, or several with `sets` and `all`) as a Markdown table."""
    sets = figures.get("sets") or {Path(figures["data"]).name: figures}
    lines = [HEADER]
    for name, s in sets.items():
        lines.append(row(f"**{name}** ({s['split']})", s["read_path"]))
        if scenes:
            lines += [row(f"· {scene}", r) for scene, r in s["read_path"]["by_scene"].items()]
    if "all" in figures:
        lines.append(row("**all**", figures["all"]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.real_table", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("figures", type=Path, help="the --json output of python -m training.evaluate")
    parser.add_argument("--no-scenes", action="store_true", help="one row per set only")
    args = parser.parse_args(argv)
    figures = json.loads(args.figures.read_text())
    by_model = figures.get("by_model") or {figures["models"]: figures}
    for models, f in by_model.items():
        if len(by_model) > 1:
            print(f"\n`{models}`:\n")
        print(table(f, not args.no_scenes))


if __name__ == "__main__":
    main()
