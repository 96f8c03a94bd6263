"""`python -m vision read PHOTO...`: read photos of winning hands into the scorer's notation.

For people it prints the groups, the hand and the warnings in English; with --json it prints one
object per photo per line (the contract in vision/read.py; a photo that cannot be read:
`{"error", "code"}`, the code of vision/notices.py). Exit status: 0 every photo read (and annotated); 1 a photo
could not be read or its annotation not written (the other photos are still read); 2 the model
is missing or corrupt, or the command line is wrong.
"""

from __future__ import annotations

import argparse
import json
import sys

from scoring.hand import Situation
from scoring.notation import format_compact
from scoring.ruleset import DEFAULT_RULESET, RulesetError, available_rulesets, load_ruleset
from scoring.tiles import WINDS
from vision.console import as_a_command
from vision.detections import UNSURE_BELOW
from vision.detector import ModelError, TileDetector
from vision.draw import draw_boxes
from vision.files import ImageWriteError, write_image
from vision.photo import PhotoError, load_photo
from vision.read import Reading, read_photo


def describe(path: str, reading: Reading) -> str:
    lines = [f"{path}: {len(reading.detections)} tiles, confidence {reading.confidence:.2f}"]
    for g in reading.groups:
        tiles = [reading.codes[i] for i in g.members]
        apart = " (winning tile set apart)" if g.win_apart else ""
        lines.append(f"  {g.kind:<9} {' '.join(tiles)}{apart}")
    if reading.hand:
        h = reading.hand
        melds = " ".join(f"{m.kind}:{format_compact(m.tiles)}" for m in h.melds)
        lines.append(f"  hand: {format_compact(h.concealed)} win {h.win}"
                     + (f" melds {melds}" if melds else "") + (f" flowers {' '.join(h.flowers)}" if h.flowers else ""))
    else:
        lines.append("  hand: not a legal winning hand as read; fix the tiles by hand")
    lines += [f"  warning: {w}" for w in reading.warnings]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    read = sub.add_parser("read", help="read photos of winning hands")
    read.add_argument("photos", nargs="+")
    read.add_argument("--json", action="store_true", help="one JSON object per photo per line")
    read.add_argument("--annotate", metavar="OUT.png", help="write the (first) photo with boxes and codes")
    read.add_argument("--seat", default="E", choices=WINDS, help="门风 (default E)")
    read.add_argument("--round", default="E", choices=WINDS, help="圈风 (default E)")
    read.add_argument("--self-draw", action="store_true")
    read.add_argument("--ruleset", default=DEFAULT_RULESET,
                      help="the table to read under (one of: " + ", ".join(available_rulesets()) + ")")
    args = parser.parse_args(argv)

    try:
        detector = TileDetector()
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        rules = load_ruleset(args.ruleset)
    except RulesetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    situation = Situation(seat_wind=args.seat, round=args.round, self_draw=args.self_draw)
    failed = False
    for n, path in enumerate(args.photos):
        try:
            image = load_photo(path)
        except PhotoError as exc:
            failed = True
            print(json.dumps({"error": str(exc), "code": exc.notice.code}, ensure_ascii=False) if args.json
                  else f"{path}: error: {exc}",
                  flush=True)
            continue
        reading = read_photo(image, detector, situation, rules)
        if args.json:
            print(json.dumps(reading.to_json(), ensure_ascii=False), flush=True)
        else:
            print(describe(path, reading), flush=True)
        if args.annotate and n == 0:
            highlight = [i in reading.changed or c < UNSURE_BELOW for i, c in enumerate(reading.detections.certainty)]
            loose = [g.kind == "loose" for g in (reading.groups[k] for k in reading.detections.groups)]
            try:
                write_image(args.annotate, draw_boxes(image, reading.detections.boxes, list(reading.codes),
                                                      highlight, loose))
            except ImageWriteError as exc:
                failed = True
                print(f"error: {exc}", file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    as_a_command()
    sys.exit(main())
