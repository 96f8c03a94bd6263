"""`python -m vision read PHOTO...`: read photos of winning hands into the scorer's notation.
`python -m vision remember PHOTO --labels LABELS.txt --memory FILE`: teach a table's memory its set.

For people `read` prints the groups (a tile the hand supposes marked `?`, the tiles set apart as
`apart`), the hand and the warnings in English; with --json it prints one
object per photo per line (the reader's proposals, `PhotoReading.to_json`, with each one's hand and 台
under the situation given, made by `scoring.draft`; a photo that cannot be read: `{"error", "code"}`,
the code of vision/notices.py). With `--memory FILE` it reads with that table's
memory of its own tiles (vision/memory.py); FILE is only read, and a missing FILE is an empty memory.
`remember` adds the tiles of a YOLO label file of PHOTO (our 43 classes, `class cx cy w h` normalised to
the photo) to FILE, creating it if needed, and says how many it holds.

Exit status: 0 every photo read (and annotated), or the tiles remembered; 1 a photo could not be read
or its annotation not written (`read`: the other photos are still read), or the label file does not
fit the photo or FILE cannot be written (`remember`); 2 the model is missing or corrupt, or the command
line is wrong; 3 the memory FILE cannot be used (not a memory, another format version, damaged, or made
with another crop classifier: reset it); `remember` then leaves it as it was.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from scoring.draft import whole_hand
from scoring.hand import Hand, HandError, Situation
from scoring.melds import GroupRole
from scoring.notation import format_compact
from scoring.ruleset import DEFAULT_RULESET, Ruleset, RulesetError, available_rulesets, load_ruleset
from scoring.score import score
from scoring.tiles import WINDS
from vision.console import as_a_command
from vision.detector import TileDetector
from vision.draw import annotate
from vision.files import ImageWriteError, write_image
from vision.labels import LabelError, read_labels
from vision.memory import TableMemoryError, load_memory, save_memory
from vision.model_files import RUNTIME_CHOICES, RUNTIME_VARIABLE, ModelError, runtime
from vision.notices import Notice, NoticeError
from vision.photo import PhotoError, load_photo, open_photo
from vision.read import PhotoReading, read_photo

OLD_SEAT_FLAG = "--seat"  # `read`'s 门风 before its name said it takes a wind (`scoring score --winner` takes a seat)

# A label box may overhang the photo's edge by this share of its side (labelling tools round), no more.
LABEL_OVERHANG = 0.02


def tai_of(hand: Hand | None, rules: Ruleset) -> int | None:
    """The hand's 台 at this table, None where it is no win there (改良式 起胡, an open kong's origin unsaid)."""
    try:
        return None if hand is None else score(hand, rules).total
    except HandError:
        return None


def as_json(reading: PhotoReading, situation: Situation, rules: Ruleset) -> dict:
    """`PhotoReading.to_json` with the best reading's hand (scoring's JSON, null unless it is a legal
    win) and each runner-up's hand and 台, made under the command line's situation."""
    out = reading.to_json()
    best = whole_hand(reading.best.draft, situation) if reading.legal else None
    out["hand"] = None if best is None else best.to_json()
    for alt, proposal in zip(out["alternatives"], reading.runner_ups, strict=True):
        hand = whole_hand(proposal.draft, situation)
        alt["hand"], alt["tai"] = None if hand is None else hand.to_json(), tai_of(hand, rules)
    return out


def describe(path: str, reading: PhotoReading, situation: Situation) -> str:
    best = reading.best
    lines = [f"{path}: {len(best.shown)} tiles, confidence {reading.confidence:.2f}"]
    for g in best.groups:
        tiles = [best.row(i).code + ("?" if best.row(i).supposed else "") for i in g.members]
        apart = " (winning tile set apart)" if g.win_apart else ""
        kind = GroupRole.APART if g.role == GroupRole.APART else g.kind
        lines.append(f"  {kind:<9} {' '.join(tiles)}{apart}")
    h = whole_hand(best.draft, situation) if reading.legal else None
    if h:
        melds = " ".join(f"{m.kind}:{format_compact(m.tiles)}" for m in h.melds)
        lines.append(f"  hand: {format_compact(h.concealed)} win {h.win}"
                     + (f" melds {melds}" if melds else "") + (f" flowers {' '.join(h.flowers)}" if h.flowers else ""))
    else:
        lines.append("  hand: not a legal winning hand as read; fix the tiles by hand")
    lines += [f"  warning: {w}" for w in reading.warnings]
    return "\n".join(lines)


class LabelsDoNotFit(NoticeError):
    """A label file that cannot be taught from this photo (unreadable, empty, boxes outside it)."""


def photo_labels(labels: Path, width: int, height: int) -> tuple[np.ndarray, list[str]]:
    """The label file's boxes (xyxy pixels) and codes, refused unless each box lies on the photo."""
    try:
        boxes, codes = read_labels(labels, width, height)
    except (OSError, UnicodeDecodeError, LabelError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise LabelsDoNotFit(Notice.of("labels-unreadable", name=str(labels), why=why)) from None
    if not codes:
        raise LabelsDoNotFit(Notice.of("labels-empty", name=str(labels)))
    side = np.stack([boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1)
    reach = np.concatenate([side, side], axis=1) * LABEL_OVERHANG
    limits = np.array([0, 0, width, height], np.float32)
    outside = ((side <= 0).any(axis=1) | (boxes[:, :2] < limits[:2] - reach[:, :2]).any(axis=1)
               | (boxes[:, 2:] > limits[2:] + reach[:, 2:]).any(axis=1))
    if outside.any():
        raise LabelsDoNotFit(Notice.of("labels-outside-photo", name=str(labels), line=int(np.argmax(outside)) + 1,
                                       width=width, height=height))
    return np.clip(boxes, 0, limits[[2, 3, 2, 3]]), codes


def remember_tiles(args, detector: TileDetector, memory) -> int:
    """`remember`: the labelled tiles of the photo taught to the memory file."""
    try:
        image = load_photo(args.photo)
        boxes, codes = photo_labels(args.labels, image.shape[1], image.shape[0])
    except (PhotoError, LabelsDoNotFit) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    memory.teach(detector.classifier, image, boxes, codes)
    try:
        save_memory(memory, args.memory)
    except OSError as exc:
        print(f"error: cannot write {args.memory}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{args.memory}: taught {len(codes)} tiles of {args.photo}; it holds {len(memory)} examples of "
          f"{len(memory.counts())} classes")
    return 0


class ShowRuntime(argparse.Action):
    """`--runtime`: say what runs the networks, as `--version` says a version, and exit."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        try:
            said = runtime()
        except ModelError as exc:
            parser.exit(2, f"error: {exc}\n")
        print(said)
        parser.exit()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision", description=__doc__)
    parser.add_argument("--runtime", action=ShowRuntime,
                        help=f"say what runs the networks and exit (onnxruntime unless "
                             f"{RUNTIME_VARIABLE}={'|'.join(RUNTIME_CHOICES)} chooses)")
    sub = parser.add_subparsers(dest="command", required=True)
    read = sub.add_parser("read", help="read photos of winning hands",
                          epilog=f"The networks run on onnxruntime unless "
                                 f"{RUNTIME_VARIABLE}={'|'.join(RUNTIME_CHOICES)} chooses "
                                 f"(detector=CHOICE,classifier=CHOICE for each); `python -m vision --runtime` says "
                                 f"which.")
    read.add_argument("photos", nargs="+")
    read.add_argument("--json", action="store_true", help="one JSON object per photo per line")
    read.add_argument("--annotate", metavar="OUT.png", help="write the (first) photo with boxes and codes")
    read.add_argument("--seat-wind", OLD_SEAT_FLAG, dest="seat_wind", default="E", choices=WINDS,
                      help="门风, the winner's seat wind (default E)")
    read.add_argument("--round", default="E", choices=WINDS, help="圈风 (default E)")
    read.add_argument("--self-draw", action="store_true")
    read.add_argument("--ruleset", default=DEFAULT_RULESET,
                      help="the table to read under (one of: " + ", ".join(available_rulesets()) + ")")
    read.add_argument("--memory", type=Path, metavar="FILE",
                      help="read with this table's memory of its tiles (only read; missing: an empty memory)")
    remember = sub.add_parser("remember", help="teach a table's memory the tiles of a labelled photo")
    remember.add_argument("photo")
    remember.add_argument("--labels", type=Path, required=True, metavar="LABELS.txt",
                          help="YOLO labels of the photo: class cx cy w h, normalised, our 43 classes")
    remember.add_argument("--memory", type=Path, required=True, metavar="FILE", help="created if needed")
    args = parser.parse_args(argv)
    if args.command == "read" and any(a == OLD_SEAT_FLAG or a.startswith(f"{OLD_SEAT_FLAG}=")
                                      for a in (sys.argv[1:] if argv is None else argv)):
        print(f"note: {OLD_SEAT_FLAG} is now --seat-wind (门风, a wind: E S W N)", file=sys.stderr)

    try:  # an unknown table is refused before the models are loaded
        rules = load_ruleset(args.ruleset) if args.command == "read" else None
    except RulesetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        detector = TileDetector()
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    classifier = detector.classifier
    if classifier is None and args.memory:
        print("error: the model card names no crop classifier, which a table's memory needs", file=sys.stderr)
        return 2
    try:
        memory = load_memory(args.memory, classifier) if args.memory and classifier is not None else None
    except TableMemoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    if args.command == "remember" or rules is None:
        return remember_tiles(args, detector, memory)
    situation = Situation(seat_wind=args.seat_wind, round=args.round, self_draw=args.self_draw)
    failed = False
    for n, path in enumerate(args.photos):
        try:
            photo = open_photo(path)
            reading = read_photo(photo, detector, rules, memory)  # a JPEG decoded as finely as its tiles need
        except PhotoError as exc:
            failed = True
            print(json.dumps({"error": str(exc), "code": exc.notice.code}, ensure_ascii=False) if args.json
                  else f"{path}: error: {exc}",
                  flush=True)
            continue
        if args.json:
            print(json.dumps(as_json(reading, situation, rules), ensure_ascii=False), flush=True)
        else:
            print(describe(path, reading, situation), flush=True)
        if args.annotate and n == 0:
            try:
                write_image(args.annotate, annotate(photo.pixels(), reading.best))
            except ImageWriteError as exc:
                failed = True
                print(f"error: {exc}", file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    as_a_command()
    sys.exit(main())
