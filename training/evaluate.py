"""Judge the committed detector on generated or real data sets, beside the peer detector.

    python -m training.evaluate DIR [DIR ...] [--split S] [--limit N] [--json OUT.json] [--map/--no-map]
                              [--no-peer] [--models DIR [--models DIR2]] [--no-classifier] [--cache DIR]
                              [--reader-settings FILE] [--detector-settings FILE] [--phone]

A DIR is a generated set (`python -m datasets generate`: it keeps each scene's truth under
`scenes/`) or a real one (ultralytics layout, labels only: the shared folder's
data/real-labelled). The split defaults to `test` for a real set and `val` for a generated one.
Reports, on each DIR's images:
- mAP50 / mAP50-95 and per-class recall (ultralytics val of models/tiles.pt, one pass at imgsz);
  on by default for generated sets only (slow on CPU), `--map` / `--no-map` to choose;
- what a player gets from the ONNX read path (`read_photo`: two passes + layout + correction, the photo
  turned level or half a turn where it reads so): tile precision
  and recall at IoU 0.5; per photo, the *taps to fix* (a wrong code, a missing tile and an extra
  tile are one tap each: mean, share of photos with 0 and with at most 1) and *image exact* (every
  labelled tile found with its code; real sets have no rows, so this stands for row exact); the
  whole-row exact rate (every tile of the concealed row found once with the right code) and the
  hand exact rate after correction where the scene truth says what they are; the median time per
  photo; and how far off the found boxes are (`box_error`, in label widths: the noise layout must
  bear). `face_up` repeats the figures with `back` left out on both sides: real sets leave
  face-down tiles unlabelled, so a back found there is not an extra tile (a concealed kong shown
  as backs is then not judged at all). `after_correction` judges the codes shown to the player.
  With the crop classifier when model.json names one (`--no-classifier`: the detector's own
  classes, to see what the second stage adds; `--classifier-weight`: its blend with the detector);
- the hand the player is shown (`hand`; `judge_hand` says how each figure is counted): taps to fix
  it (a wrong code, a missing hand tile, one set apart as loose included, and an extra tile, a wall,
  discard or loose tile kept in the hand included, are one tap each; a tile the reading supposes
  fills a missing one of its code; on a generated scene, choosing the winning tile where the reading's is of another
  code and naming a concealed kong laid as four backs are one tap each too, and the melds cost the taps that fix
  them, `meld_taps`); groups-and-kinds exact over whole
  hands (the reading's groups but those set apart, as (kind, codes), equal the scene's, its winning tile among the
  concealed ones, which a photo cannot single out); *台 exact* over the same hands (`tai_exact`: the reading scored as
  the page scores it, in the scene's situation, totals the scene's 台); tiles not of the hand kept in it
  (`loose_kept`) and hand tiles set apart (`hand_set_apart`), each of the labelled tiles that could be. A real set
  has no hand truth: its taps are then those of every tile shown after correction, set apart or not
  (`taps_by_cause`: how many of them are boxes set apart on no labelled tile, which the page greys); its groups
  and 台 exact (`whole_hands`, `scored_hands`) count only the photos whose labels say the hand: 17 tiles in one
  row that make a win, judged as that hand all concealed, won on the reading's winning tile (`labels_say_hand`,
  `real_tai_exact`; none in the real val and test splits today);
  `labelled_one_code` says apart how many of those taps, and of their wrong codes, are on photos whose
  every label is one code (`datasets check`'s one-code warning: a mislabelled photo, still judged);
- the peer `mahjong-detector` (YOLO11n, 34 riichi classes) on the same images: precision/recall
  and taps on those 34 classes for both models, and its median time per photo;
- all of it again per scene type (`by_scene`: a generated scene's kind; a real photo's file-name
  family, datasets/real.py). Several DIRs give each set's figures under `sets` and the pooled ones
  under `all`; several `--models` folders (v2 and a new run, say) give each under `by_model`, the
  peer read once.

`--cache DIR` keeps each photo's detections (`DetectionCache`) and reuses them on the next run with
the same photo, model files, detector settings and read options: the read path after the detector is then
judged in seconds (the photo turned level or half a turn, where `read_photo` reads it so, is read live:
`CachedPhoto`). A run that took any photo's detections from the cache gives no time per photo (`timing`
says why).

`--reader-settings FILE` (JSON: some of `vision.settings.ReaderSettings`' fields, the rest at their defaults)
reads with other settings after the detector, `--detector-settings FILE` (of `DetectorSettings`' fields) with
other passes, faint flowers and crops in the detector; every figures JSON names the settings it was read with
(`reader_settings`, `detector_settings`). The detection cache depends on the detector's, not the reader's.

`--phone` reads each photo as a phone would send it: enlarged so its long side is `PHONE_SIDE` (a 12 MP photo's),
written as a JPEG (quality 90, as `training.bench`'s phone photos) and opened as an upload is
(`vision.photo.open_photo`, decoded only as finely as the read needs: `TileDetector.look`); the time per photo
then includes that decoding.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import cv2
import numpy as np
import yaml

from datasets.check import one_code
from datasets.real import scene_type
from datasets.scene_truth import SceneTruth, SceneTruthError
from datasets.yolo import label_path_of
from scoring.draft import whole_hand
from scoring.hand import Hand, HandError, Situation
from scoring.melds import GroupKind, GroupRole, MeldKind
from scoring.score import score
from scoring.tiles import BACK, FLOWERS
from scoring.validate import HAND_SIZE
from vision.boxes import match
from vision.classes import CLASSES
from vision.detections import Detections
from vision.detector import TileDetector
from vision.labels import read_labels
from vision.model_files import MODELS_DIR, ModelError, sha256_of
from vision.photo import Photo, load_photo, open_photo
from vision.read import PhotoReading, read_photo
from vision.settings import (
    DETECTOR_DEFAULT,
    READER_DEFAULT,
    DetectorSettings,
    ReaderSettings,
    add_settings_arguments,
    settings_from_arguments,
)

PEER_NAMES = {"chun": "5z", "haku": "7z", "hatsu": "6z", "nan": "2z", "pe": "4z", "sha": "3z", "tou": "1z"}
RIICHI = {c for c in CLASSES if c not in FLOWERS and c != "back"}  # the peer's 34 classes


def is_real(root: Path) -> bool:
    """A real photo set (labels only) rather than a generated one (which keeps each scene's truth)."""
    return not (root / "scenes").is_dir()


def load_samples(root: Path, split: str, limit: int | None) -> list[dict]:
    """The photos of a set's split: image, label boxes and codes, the scene's truth (a SceneTruth,
    None for a real photo), and its scene type."""
    samples = []
    for image in sorted((root / "images" / split).glob("*.jpg"))[:limit]:
        scene = root / "scenes" / split / f"{image.stem}.json"
        truth = SceneTruth.read(scene) if scene.exists() else None
        h, w = (truth.height, truth.width) if truth else (None, None)
        if not (h and w):
            h, w = load_photo(image).shape[:2]
        boxes, codes = read_labels(label_path_of(root, image), w, h)
        samples.append({"image": image, "boxes": boxes, "codes": codes, "truth": truth,
                        "scene": truth.kind if truth else scene_type(image.name)})
    return samples


def samples_of(root: Path, split: str, limit: int | None) -> list[dict]:
    """`load_samples` for a command: a damaged or foreign scene file ends it with a message naming
    the file, not a traceback."""
    try:
        return load_samples(root, split, limit)
    except SceneTruthError as exc:
        raise SystemExit(f"error: {exc}") from exc


def summarise_taps(taps: list[int]) -> dict:
    return {"mean": round(statistics.fmean(taps), 3) if taps else None,
            "zero": round(sum(t == 0 for t in taps) / max(len(taps), 1), 4),
            "at_most_one": round(sum(t <= 1 for t in taps) / max(len(taps), 1), 4)}


class Tally:
    """Tile precision and recall (right box and right code) over a run, and how many of the found
    tiles (right box, any code) got the right code: the classes alone, apart from box finding.
    Per photo: the taps a player needs to fix the reading (a wrong code, a missing tile and an
    extra tile are one tap each) and whether every labelled tile was found with its code."""

    def __init__(self) -> None:
        self.tp = self.pred = self.true = self.found = 0
        self.offsets: list[np.ndarray] = []  # found boxes' x1 y1 x2 y2 minus the label's, in label widths
        self.taps: list[int] = []
        self.exact: list[bool] = []

    def add(self, pred_boxes, pred_codes, true_boxes, true_codes) -> dict[int, int]:
        pairs = match(true_boxes, pred_boxes)  # true index → predicted index, whatever the codes
        right = sum(pred_codes[p] == true_codes[t] for t, p in pairs.items())
        self.tp += right
        self.pred += len(pred_codes)
        self.true += len(true_codes)
        self.found += len(pairs)
        self.offsets += [(pred_boxes[p] - true_boxes[t]) / (true_boxes[t, 2] - true_boxes[t, 0])
                         for t, p in pairs.items()]
        wrong, missing, extra = len(pairs) - right, len(true_codes) - len(pairs), len(pred_codes) - len(pairs)
        self.taps.append(wrong + missing + extra)
        self.exact.append(right == len(true_codes))
        return pairs

    def result(self) -> dict:
        out = {"precision": round(self.tp / max(self.pred, 1), 4), "recall": round(self.tp / max(self.true, 1), 4),
               "code_right_of_found": round(self.tp / max(self.found, 1), 4),
               "image_exact": round(sum(self.exact) / max(len(self.exact), 1), 4),
               "taps": summarise_taps(self.taps)}
        if self.offsets:  # how far off the boxes are (layout's noise: training/evaluate_layout.py)
            off = np.array(self.offsets)
            out["box_error"] = {"edge_std": round(float(off.std(axis=0).mean()), 4),
                                "centre_x_std": round(float(((off[:, 0] + off[:, 2]) / 2).std()), 4)}
        return out


def only(boxes: np.ndarray, codes, keep) -> tuple[np.ndarray, list[str]]:
    """The boxes and codes whose code passes `keep`."""
    idx = [i for i, c in enumerate(codes) if keep(c)]
    return boxes[idx], [codes[i] for i in idx]


def face_up(code: str) -> bool:
    return code != "back"


def group_multiset(groups: list[tuple[GroupKind, list[str]]]) -> Counter:
    """A hand's groups as a multiset of (kind, sorted codes), its concealed pieces (the winning tile laid
    apart among them) merged into one."""
    concealed = tuple(sorted(c for kind, codes in groups if kind == GroupKind.CONCEALED for c in codes))
    shown = Counter((kind, tuple(sorted(codes))) for kind, codes in groups if kind != GroupKind.CONCEALED)
    return shown + Counter([(GroupKind.CONCEALED, concealed)] if concealed else [])


def truth_groups(truth: SceneTruth) -> Counter:
    return group_multiset([(g.kind, list(g.tiles)) for g in truth.hand_groups()])


def reading_groups(reading: PhotoReading) -> Counter:
    """The groups of the hand shown: every group but those set apart (a supposed tile in its group)."""
    best = reading.best
    return group_multiset([(g.kind, [best.row(i).code for i in g.members])
                           for g in best.groups if g.role == GroupRole.HAND])


def in_hand(reading: PhotoReading) -> list[bool]:
    """Per detection (the best proposal's shown rows): in a group of the hand's (not set apart, not doubled)."""
    best = reading.best
    return [best.group_of(row.id) >= 0 and best.groups[best.group_of(row.id)].role == GroupRole.HAND
            for row in best.shown]


def reading_hand(reading: PhotoReading) -> Hand | None:
    """The hand the reading proposes, in the plain situation; None when it is no legal hand (or a tile
    is left for the player to name: a concealed kong shown as four backs)."""
    return whole_hand(reading.best.draft, Situation()) if reading.legal else None


def tai_of(hand: Hand) -> int | None:
    """The hand's 台 as the page totals them at the default table; None where it is no win there."""
    try:
        return score(hand).total
    except HandError:
        return None


def tai_exact(reading: PhotoReading, truth: Hand) -> bool | None:
    """Whether the reading's hand, scored as the page scores it under the truth's situation (how it was won, the
    winds), totals the truth's 台: what the table is told from the photo alone, before any tap. None where the truth
    is no win at the default table."""
    right = tai_of(truth)
    if right is None:
        return None
    read = whole_hand(reading.best.draft, truth.situation)
    return read is not None and tai_of(read) == right


# What first differs where a reading's 台 is not its hand's (`tai_miss`), in this order: no whole hand to score (a
# tile missing, a meld's kind unsaid); the winning tile (the reader takes the row's last tile where none lies
# apart, and a hand may sort it into its row); the flowers; the tiles; else the groups (a 刻子 read as a pon).
TAI_MISSES = ("no whole hand", "winning tile", "flowers", "tiles", "groups")


def tai_miss(reading: PhotoReading, truth: Hand) -> str:
    """Why the reading's hand scores other 台 than the truth's (`TAI_MISSES`), where `tai_exact` is False."""
    read = whole_hand(reading.best.draft, truth.situation)
    if read is None:
        return "no whole hand"
    if read.win != truth.win:
        return "winning tile"
    if sorted(read.all_flowers()) != sorted(truth.all_flowers()):
        return "flowers"
    if sorted(read.all_tiles()) != sorted(truth.all_tiles()):
        return "tiles"
    return "groups"


def labelled_hand(label_codes: list[str], win: str) -> Hand | None:
    """The hand a real photo's labels say, `win` its winning tile: its labelled tiles as one concealed hand (the 16
    held and `win`, the flowers labelled as its flowers) in the plain situation the page starts from, where they are a
    win at the default table; None where they are not (tiles that are not one 17-tile concealed hand: a riichi hand,
    a rack with a wall, a hand with a kong, whose 16 face tiles show it), or `win` is none of them. A back is left
    out: the real sets leave face-down tiles unlabelled, and no concealed row shows one (a back is a wall's or a
    concealed kong's, whose hand shows 16 faces, not 17)."""
    flowers = tuple(c for c in label_codes if c in FLOWERS)
    tiles = [c for c in label_codes if c != "back" and c not in FLOWERS]
    if len(tiles) != HAND_SIZE + 1 or win not in tiles:
        return None
    tiles.remove(win)
    try:
        hand = Hand(tuple(tiles), win, (), flowers)
    except HandError:  # a flower labelled twice
        return None
    return hand if tai_of(hand) is not None else None


def labels_make_hand(label_codes: list[str]) -> bool:
    """Whether a real photo's labelled tiles are a hand (`labelled_hand`): 17 that make a win, whichever came last."""
    return any(labelled_hand(label_codes, win) is not None for win in set(label_codes))


def one_row(boxes: np.ndarray) -> bool:
    """Whether the boxes stand in one row, straight or at an angle: each centre within half a tile (the boxes' median
    short side) of the straight line through them all. A pon laid behind the row, or a tile below it, is not."""
    if len(boxes) < 3:
        return True
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    spread = centres - centres.mean(axis=0)
    normal = np.linalg.svd(spread, full_matrices=False)[2][-1]  # across the line of least squares
    tile = float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    return bool(np.abs(spread @ normal).max() <= tile / 2)


def labels_say_hand(label_codes: list[str], label_boxes: np.ndarray) -> bool:
    """Whether a real photo's labels alone say its hand: its tiles are a hand (`labels_make_hand`) and stand in one
    row (`one_row`, flowers left out: they are laid apart), as a concealed hand's do. The labels have no groups: a
    hand whose tiles make a concealed win with a meld on another row says none (a video frame of the real test split
    has its 南 pon behind the rack). A meld laid in the row's own line beyond a gap is still taken as concealed (the
    chi of tests/data/unseen-small's scene 000000): a rule on gaps would also drop the concealed rows whose 刻子
    stand a little apart, the photos this figure is most for."""
    row = [i for i, c in enumerate(label_codes) if c not in FLOWERS and c != "back"]
    return labels_make_hand(label_codes) and one_row(label_boxes[row])


def real_tai_exact(reading: PhotoReading, label_codes: list[str]) -> bool | None:
    """`tai_exact` on a real photo whose labels are a hand (`labels_say_hand`; None where its tiles are none). Its truth
    is that hand all concealed, won on the tile the reading made the winning one where the labels hold its code (else
    the reading is not exact: it won on a tile the photo does not show), in the plain situation (off a discard, east
    seat and round, no flag: the page's checkboxes as they start), in which `check_win` and the reader take a photo's
    hand before anyone says how it was won. The labels say neither which tile came last nor how, and no photo does,
    so the truth borrows both from the reading: the figure judges what a photo can get right, the tiles and the
    groups (a 刻子 read as a pon loses 門清 and an 暗刻), and not which tile won, its wait's 台 or the situation's;
    nor a meld laid in the row's line (`labels_say_hand`)."""
    if not labels_make_hand(label_codes):
        return None
    win = reading.best.draft.win
    truth = labelled_hand(label_codes, win.code) if win is not None and win.code else None
    return truth is not None and tai_exact(reading, truth)


def added_taps(added: list[str], missing: list[str], hidden: list[str]) -> int:
    """Taps for the tiles a reading supposes (`added`) and the labelled hand tiles it does not show
    (`missing`): a supposed tile fills a missing one of its code, or stands for a hand tile the photo
    hides (`hidden`, unlabelled) of its code, at no tap; any other supposed tile is one tap (changing
    its code fills a missing tile, else deleting it), and so is each missing tile left over."""
    added_left, missing_left = Counter(added), Counter(missing)
    filled = added_left & missing_left
    added_left, missing_left = added_left - filled - Counter(hidden), missing_left - filled
    return max(added_left.total(), missing_left.total())


@dataclass(frozen=True)
class HandJudgement:
    """What the player must fix in the hand a reading shows (`judge_hand`)."""

    taps: int
    truth: bool  # the scene says which tiles are the hand (a generated scene); else every tile was judged
    loose_kept: int = 0  # labelled tiles that are not the hand's, read into it
    non_hand: int = 0  # labelled tiles that are not the hand's
    set_apart: int = 0  # labelled hand tiles read as loose
    hand_tiles: int = 0  # labelled hand tiles
    # the hand's groups and kinds, and its 台 (`tai_exact`, `real_tai_exact`); None unless every hand tile is labelled
    # (a generated scene) or the labels are a hand (a real photo: `labels_say_hand`)
    groups_exact: bool | None = None
    tai_exact: bool | None = None
    causes: dict[str, int] = field(default_factory=dict)  # the taps by what they fix (TAP_CAUSES), summing to taps
    greyed: int = 0  # boxes on no labelled tile set apart, which the page greys: no tap (a real photo only)
    tai_miss: str | None = None  # where the 台 is not exact on a generated scene: why (`tai_miss`)


# What each tap of `judge_hand` fixes: a hand tile shown with a wrong code; a labelled tile that is not the
# hand's kept in it (a wall, a discard, a loose tile); a box on no labelled tile kept in it; a hand tile
# missing (not found, or set apart) that no supposed tile fills, or a supposed tile that fills none; the winning
# tile chosen (設為胡的那張) where the reading's is of another code once its codes are fixed; the face of a concealed
# kong laid as four backs, which the page asks for (one pick names all four). A box on no labelled tile that the
# reading set apart costs none: the page greys it and leaves it out of the hand, and on a real photo it is most often
# a wall or a discard the set leaves unlabelled (`HandJudgement.greyed` counts them). The winning tile and the kong
# are judged on generated scenes only: a real photo's labels say neither which tile won nor a face-down tile. Last,
# the melds (`meld_taps`): a meld of the wrong kind, a meld that is none (放回手牌), a meld read into the row.
TAP_CAUSES = ("wrong code", "other tile kept", "box on nothing", "missing or supposed", "winning tile", "kong to name",
              "melds")
# A hand tile that is a meld's moved out of the concealed row: its face tapped into the meld, then selected in the row
# and deleted there.
MOVE_TAPS = 3
TAKE_OUT_TAPS = 2  # a meld read whole into the concealed row: a tile of it selected, then 拿出來當碰 (or 吃, 槓)


def win_taps(reading: PhotoReading, labelled: dict[int, str], truth: Hand, unfilled: Counter) -> int:
    """One tap where the reading's winning tile, once its code is fixed, is not of the truth's winning code: the player
    taps a tile of it and 設為胡的那張. `labelled`: the labelled hand tile's code under each detection of the hand (by
    row id). No tap where a hand tile of the winning code is missing and no supposed tile fills it (`unfilled`):
    the tap that adds it adds it as 胡的那張 (`scoring.draft.add_tile`). A hand won on a flower is left out (the page
    writes no flower as the winning tile)."""
    if truth.flower_win or unfilled[truth.win]:
        return 0
    win = reading.best.draft.win
    if win is None:
        return 1
    code = labelled.get(win.det, win.code) if win.det is not None else win.code
    return int(code != truth.win)


def kongs_to_name(reading: PhotoReading, labelled: dict[int, str]) -> int:
    """A tap for each concealed kong the reading shows as four backs on four labelled backs of the hand: the page
    asks its face (`vision.read.Proposal.draft`), and one pick names all four (`scoring.draft.replace_tile`)."""
    return sum(m.kind is MeldKind.ANKONG and all(s.code is None and s.det is not None and labelled.get(s.det) == BACK
                                                  for s in m.tiles)
               for m in reading.best.draft.melds)


def meld_taps(reading: PhotoReading, melds: list[tuple[GroupKind, list[int]]], hand: set[int]) -> int:
    """The taps that make the reading's melds the hand's `melds` (each its kind and its tiles' row ids in the
    reading, those found; `hand`: the row ids of every hand tile found). A meld read holding two or more of one's
    tiles (all, where it has fewer) is that meld: a tap where its kind differs (the meld's kind), and each hand tile
    it lacks or holds besides moved in or out (`MOVE_TAPS`; a tile that is not the hand's costs its own tap). A meld
    of the hand read into the concealed row (its tiles found there, any missing added to it) is taken out in two taps
    (a tile of it, then 拿出來當碰 …: `scoring.draft.meld_from_concealed`); one read otherwise as no meld is made
    (＋碰 …, a tap) and each of its tiles found moved in. Any other meld read that holds a hand tile is no meld of the
    hand: a tap puts it back in the row (放回手牌, `scoring.draft.meld_to_concealed`). Tiles missing, supposed or not
    the hand's cost their taps apart (`added_taps`, `judge_hand`)."""
    best = reading.best
    read = {k: g for k, g in enumerate(best.groups) if g.role == GroupRole.HAND and g.kind.meld is not None}
    taps, matched = 0, set()
    for kind, ids in melds:
        held = Counter(k for k in map(best.group_of, ids) if k in read and k not in matched).most_common(1)
        if held and held[0][1] >= min(2, len(ids)):
            (k, count), = held
            matched.add(k)
            besides = [i for i in read[k].members if i not in ids and i in hand]
            taps += (read[k].kind != kind) + MOVE_TAPS * (len(ids) - count + len(besides))
        elif ids and all(best.groups[best.group_of(i)].kind == GroupKind.CONCEALED for i in ids):
            taps += TAKE_OUT_TAPS
        else:
            taps += 1 + MOVE_TAPS * len(ids)
    return taps + sum(bool(hand.intersection(read[k].members)) for k in read.keys() - matched)


def judge_hand(reading: PhotoReading, pairs: dict[int, int], label_codes: list[str],
               truth: SceneTruth | None, label_boxes: np.ndarray | None = None) -> HandJudgement:
    """The reading's hand (its detections outside the groups set apart, and its supposed tiles) against the scene's
    labelled hand tiles, `pairs` matching labels to the reading's detections by box. One tap each: a tile shown with
    a wrong code, a hand tile missing (set apart as loose or not found), an extra tile (a wall, discard or loose
    tile read into the hand, or no tile at all); supposed tiles: `added_taps`; the winning tile (`win_taps`) and a
    four-back kong's face (`kongs_to_name`). A scene without a hand (clutter, loose tiles) costs a tap per tile
    kept. A real photo has no scene truth (`truth` None): every labelled tile is then judged against every
    detection, loose or not (a box set apart on no labelled tile is greyed on the page: no tap, counted apart), and
    where its labels (`label_boxes`, `label_codes`) say its hand (`labels_say_hand`) its groups and 台 are judged
    against that hand all concealed (`real_tai_exact`)."""
    if truth is not None:
        hand_groups = truth.hand_groups()
        hand = {r for g in hand_groups for r in g.label_rows if r is not None}
        hidden = [c for g in hand_groups for c, r in zip(g.tiles, g.label_rows, strict=True) if r is None]
        kept = in_hand(reading)
    else:
        hand, hidden, kept = set(range(len(label_codes))), [], [True] * len(reading.best.shown)
    codes, by_detection = [row.code for row in reading.best.shown], {p: t for t, p in pairs.items()}
    wrong = set_apart = extra = loose_kept = 0
    missing = []
    for t in sorted(hand):
        p = pairs.get(t)
        if p is not None and kept[p]:
            wrong += codes[p] != label_codes[t]
        else:
            missing.append(label_codes[t])
            set_apart += p is not None
    for p in range(len(kept)):
        if kept[p] and by_detection.get(p) not in hand:
            extra += 1
            loose_kept += p in by_detection
    apart = set(reading.best.apart) if truth is None else set()
    extra_apart = sum(row.id in apart and k not in by_detection for k, row in enumerate(reading.best.shown))
    supposed = [row.code for row in reading.best.supposed]
    said = truth is None and label_boxes is not None and labels_say_hand(label_codes, label_boxes)
    shown = reading.best.shown
    labelled = {shown[p].id: label_codes[t] for t, p in pairs.items() if t in hand and kept[p]}
    if truth is not None and truth.hand is not None:
        unfilled = Counter(missing) - Counter(supposed)
        melds = [(g.kind, [shown[pairs[r]].id for r in g.label_rows if r in pairs and kept[pairs[r]]])
                 for g in hand_groups if g.kind.meld is not None]
        named = (win_taps(reading, labelled, truth.hand, unfilled), kongs_to_name(reading, labelled),
                 meld_taps(reading, melds, set(labelled)))
    else:
        named = (0, 0, meld_taps(reading, [], set(labelled)) if said else 0)  # a hand its labels say is all concealed
    causes = dict(zip(TAP_CAUSES, (wrong, loose_kept, extra - loose_kept - extra_apart,
                                   added_taps(supposed, missing, hidden), *named), strict=True))
    taps = sum(causes.values())
    if truth is None:
        if not said:
            return HandJudgement(taps, truth=False, causes=causes, greyed=extra_apart)
        flowers = [c for c in label_codes if c in FLOWERS]
        concealed = [(GroupKind.CONCEALED, [c for c in label_codes if c != "back" and c not in FLOWERS])]
        labelled = group_multiset(concealed + ([(GroupKind.FLOWERS, flowers)] if flowers else []))
        return HandJudgement(taps, truth=False, groups_exact=reading_groups(reading) == labelled,
                             tai_exact=real_tai_exact(reading, label_codes), causes=causes, greyed=extra_apart)
    whole = truth.hand is not None and not hidden
    exact = tai_exact(reading, truth.hand) if whole else None
    return HandJudgement(taps, True, loose_kept, len(label_codes) - len(hand), set_apart, len(hand),
                         reading_groups(reading) == truth_groups(truth) if whole else None, exact, causes,
                         tai_miss=tai_miss(reading, truth.hand) if exact is False else None)


def rate(count: int, of: int) -> float | None:
    return round(count / of, 4) if of else None


def share(count: int, of: int) -> dict:
    return {"tiles": count, "of": of, "rate": rate(count, of)}


class HandTally:
    """`judge_hand` over a run: taps to fix the hand, groups-and-kinds exact over whole hands, tiles
    wrongly kept in the hand or wrongly set apart (generated scenes only: real sets do not say which tiles are the
    hand). Groups and 台 exact count a real photo whose labels are a hand (`labels_say_hand`) too."""

    def __init__(self) -> None:
        self.judged: list[HandJudgement] = []

    def add(self, judged: HandJudgement) -> None:
        self.judged.append(judged)

    def result(self) -> dict:
        truth = [j for j in self.judged if j.truth]
        whole = [j.groups_exact for j in self.judged if j.groups_exact is not None]
        scored = [j.tai_exact for j in self.judged if j.tai_exact is not None]
        total = lambda key: sum(getattr(j, key) for j in truth)  # noqa: E731
        return {"taps": summarise_taps([j.taps for j in self.judged]),
                "taps_by_cause": {c: round(statistics.fmean(j.causes[c] for j in self.judged), 3) if self.judged
                                  else None for c in TAP_CAUSES},
                "greyed_on_nothing": round(statistics.fmean(j.greyed for j in self.judged), 3) if self.judged else None,
                "judged_on": {"hand truth": len(truth), "every tile (no hand truth)": len(self.judged) - len(truth)},
                "groups_exact": rate(sum(whole), len(whole)), "whole_hands": len(whole),
                "tai_exact": rate(sum(scored), len(scored)), "scored_hands": len(scored),
                "loose_kept": share(total("loose_kept"), total("non_hand")),
                "hand_set_apart": share(total("set_apart"), total("hand_tiles"))}


class Judged:
    """The tallies of a group of photos. `tiles`: our read codes against every label; `face_up`: the
    same with `back` left out on both sides (real sets never label face-down tiles, so a back found
    there is no error); `after_correction`: the codes the player is shown, after legal-hand
    correction; `riichi34`: ours and the peer's on the peer's 34 classes only; `hand`: the hand the
    player is shown (`HandTally`)."""

    def __init__(self) -> None:
        self.images = 0
        self.tiles, self.face_up, self.corrected, self.ours34, self.peer34 = (Tally() for _ in range(5))
        self.hand = HandTally()
        self.one_code: list[HandJudgement] = []  # the hands judged on photos whose every label is one code

    def add(self, read: dict) -> dict[int, int]:
        s, reading = read["sample"], read["reading"]
        shown = reading.best.shown
        boxes, raw = reading.best.boxes, [row.raw_code for row in shown]
        truth = (read["true_boxes"], s["codes"])
        self.images += 1
        pairs = self.tiles.add(boxes, raw, *truth)
        self.face_up.add(*only(boxes, raw, face_up), *only(*truth, face_up))
        self.corrected.add(boxes, [row.code for row in shown], *truth)
        self.ours34.add(*only(boxes, raw, RIICHI.__contains__), *only(*truth, RIICHI.__contains__))
        if read["peer"] is not None:
            self.peer34.add(*read["peer"], *only(*truth, RIICHI.__contains__))
        judged = judge_hand(reading, pairs, s["codes"], s["truth"], read["true_boxes"])
        self.hand.add(judged)
        if one_code(s["codes"]):
            self.one_code.append(judged)
        return pairs

    def result(self) -> dict:
        out = {"images": self.images, "tiles": self.tiles.result(), "face_up": self.face_up.result(),
               "after_correction": self.corrected.result(), "riichi34": {"ours": self.ours34.result()},
               "hand": self.hand.result(),
               "labelled_one_code": {"photos": len(self.one_code), "taps": sum(j.taps for j in self.one_code),
                                     "wrong_code_taps": sum(j.causes["wrong code"] for j in self.one_code)}}
        if self.peer34.taps:
            out["riichi34"]["peer"] = self.peer34.result()
        return out


def same_hand(a: Hand, b: Hand) -> bool:
    """The same tiles, winning tile, flowers and melds, in any order."""
    melds = lambda h: sorted((m.kind, tuple(sorted(m.tiles))) for m in h.melds)  # noqa: E731
    return (Counter(a.concealed) == Counter(b.concealed) and a.win == b.win
            and sorted(a.flowers) == sorted(b.flowers) and melds(a) == melds(b))


def peer_detect(image_bgr: np.ndarray):
    from mahjong_detector.predict import CLASS_NAMES, predict
    from mahjong_detector.preprocess import preprocess_image
    from PIL import Image

    img, padding = preprocess_image(Image.fromarray(image_bgr[:, :, ::-1]))
    found = predict(img, padding)
    boxes = np.array([[d.x1, d.y1, d.x2, d.y2] for d in found], np.float32).reshape(-1, 4)
    names = [CLASS_NAMES[d.class_id] for d in found]
    return boxes, [PEER_NAMES.get(n, n) for n in names]


class DetectionCache:
    """Each photo's `Detections` from the detector (boxes and class scores) as .npz files under `root`,
    keyed by the photo (its path and SHA-256), the model files' SHA-256 and the detector's settings, so a
    rerun judges what comes after the detector (layout, hand finding, correction) in seconds."""

    def __init__(self, root: Path, settings: dict) -> None:
        self.root, self.settings = root, settings
        root.mkdir(parents=True, exist_ok=True)

    def path(self, image: Path) -> Path:
        key = {"image": str(image.resolve()), "image_sha256": sha256_of(image)} | self.settings
        return self.root / f"{hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()}.npz"

    def get(self, image: Path, detect) -> tuple[Detections, bool]:
        """The photo's detections and whether they came from the cache (else `detect()` read them, now kept)."""
        path = self.path(image)
        if path.exists():
            with np.load(path) as stored:
                return Detections(stored["boxes"], stored["scores"]), True
        dets = detect()
        writing = path.with_name(f"{path.stem}.{os.getpid()}.partial.npz")  # never a half-written entry
        np.savez(writing, boxes=dets.boxes, scores=dets.scores)
        os.replace(writing, path)
        return dets, False


def cache_settings(detector: TileDetector, models_dir: Path, passes: int, upscale: float,
                   conf: float | None) -> dict:
    """What the detector's output depends on besides the photo: the model files and card, the runtime that runs
    them, the read options, the detector's settings."""
    files = ["model.json", detector.card.onnx.name] + ([detector.card.classifier.name] if detector.classifier else [])
    return {"sha256": {name: sha256_of(models_dir / name) for name in files}, "runtime": detector.runtime.to_json(),
            "passes": passes, "upscale": upscale,
            "conf": conf, "classifier_weight": detector.classifier.weight if detector.classifier else None,
            "detector_settings": detector.settings.to_json()}


def detect_tiles(detector: TileDetector, image: np.ndarray, passes: int, conf: float | None) -> Detections:
    if passes == 2:
        return detector.read(image, conf)
    dets = detector.detect(image, conf=conf)
    return detector.classifier.rescore(image, dets) if detector.classifier else dets


@dataclass(frozen=True, eq=False)
class CachedPhoto:
    """A `Detector` for `read_photo` whose read of the photo itself is `found` (from the cache); the photo turned
    level or half a turn is read live, as `read`."""

    photo: np.ndarray
    found: Detections
    read_live: Callable[[np.ndarray], Detections]

    def read(self, image: np.ndarray) -> Detections:
        return self.found if image is self.photo else self.read_live(image)


# A phone photo's long side (`--phone`): a 12 MP photo is 4000 x 3000.
PHONE_SIDE = 4000


def phone_photo(image: Path, folder: Path) -> tuple[Photo, float]:
    """The photo enlarged so its long side is `PHONE_SIDE`, written as a JPEG (quality 90) into `folder` and opened
    as an upload is; and the factor from the photo's pixels to those of the pixels the read will first see."""
    photo = load_photo(image)
    factor = PHONE_SIDE / max(photo.shape[:2])
    out = folder / f"{image.stem}.jpg"
    cv2.imwrite(str(out), cv2.resize(photo, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC),
                [cv2.IMWRITE_JPEG_QUALITY, 90])
    return open_photo(out), factor


def read_samples(samples: list[dict], detector: TileDetector, peer: dict | None, passes: int = 2,
                 upscale: float = 1.0, conf: float | None = None, cache: DetectionCache | None = None,
                 reader: ReaderSettings = READER_DEFAULT, phone: Path | None = None) -> list[dict]:
    """Each photo read by our read path (and the peer, unless `peer` is None): the slow part, judged
    by `judge`. `peer` caches the peer's reads by image, so comparing models reads with it once.
    `passes` 1 reads at the first-pass size only (no tile-size normalisation); `upscale` > 1
    enlarges every photo first, as a phone photo's tiles are larger in pixels than the scenes'.
    With `cache`, the detector's output is kept and reused (a photo read from it is not timed); `reader`:
    the settings of the read after the detector. `phone`: a folder to write each photo into as a phone's JPEG
    (`phone_photo`), read as the detector's `look` decodes it (the boxes in the pixels it chose)."""
    reads = []
    for s in samples:
        if phone:
            photo, upscale = phone_photo(s["image"], phone)
            start = time.perf_counter()
            reduction, first = detector.look(photo, conf)
            image = photo.pixels(reduction)
            upscale *= image.shape[1] / photo.width
            detect = partial(detector.read, image, conf, first=first)
        else:
            image = load_photo(s["image"])
            if upscale != 1.0:
                image = cv2.resize(image, None, fx=upscale, fy=upscale, interpolation=cv2.INTER_CUBIC)
            start = time.perf_counter()
            detect = partial(detect_tiles, detector, image, passes, conf)
        dets, cached = cache.get(s["image"], detect) if cache else (detect(), False)
        photo = CachedPhoto(image, dets, lambda turned: detect_tiles(detector, turned, passes, conf))
        read = {"sample": s, "true_boxes": s["boxes"] * upscale, "reading": read_photo(image, photo, settings=reader),
                "seconds": time.perf_counter() - start, "cached": cached, "peer": None}
        if peer is not None:
            if s["image"] not in peer:
                start = time.perf_counter()
                found = peer_detect(image)
                peer[s["image"]] = found, time.perf_counter() - start
            read["peer"], read["peer_seconds"] = peer[s["image"]]
        reads.append(read)
    return reads


def judge(reads: list[dict]) -> dict:
    """Figures over the photos read, then the same per scene type (the scene's `kind` for generated
    sets, the file-name family for real photos: datasets/real.py)."""
    everything, by_scene = Judged(), defaultdict(Judged)
    rows_exact = rows = hands_exact = hands = 0
    for read in reads:
        s, reading = read["sample"], read["reading"]
        raw = [row.raw_code for row in reading.best.shown]
        pairs = everything.add(read)
        by_scene[s["scene"]].add(read)
        truth = s["truth"]
        for group in truth.groups if truth else ():
            if group.kind != GroupKind.CONCEALED or group.win_apart or None in group.label_rows or not group.label_rows:
                continue
            rows += 1
            hit = [pairs.get(r) for r in group.label_rows]
            rows_exact += all(p is not None and raw[p] == s["codes"][r]
                              for r, p in zip(group.label_rows, hit, strict=True))
        if truth and truth.hand is not None and truth.fully_labelled():
            hands += 1
            hand = reading_hand(reading)
            hands_exact += hand is not None and same_hand(hand, truth.hand)
    median_ms = lambda key: round(1000 * statistics.median(r[key] for r in reads), 1)  # noqa: E731
    cached = sum(r.get("cached", False) for r in reads)
    out = everything.result() | {
        "row_exact": round(rows_exact / max(rows, 1), 4), "rows": rows,
        "hand_exact": round(hands_exact / max(hands, 1), 4), "hands": hands,
        "ms_per_photo": median_ms("seconds") if reads and not cached else None,
    }
    if cached:  # the detector's time is most of a read: a cached run says nothing of speed
        out["timing"] = f"not measured: {cached} of {len(reads)} photos' detections came from the cache (--cache)"
    if reads and reads[0]["peer"] is not None:
        out["peer_ms_per_photo"] = median_ms("peer_seconds")
    out["by_scene"] = {scene: j.result() for scene, j in sorted(by_scene.items())}
    return out


def evaluate_map(root: Path, split: str, imgsz: int, models_dir: Path = MODELS_DIR) -> dict:
    from training.ultralytics_env import load_ultralytics

    load_ultralytics()
    from ultralytics import YOLO

    cfg = yaml.safe_load((root / "data.yaml").read_text())
    cfg.update(path=str(root.resolve()), train=f"images/{split}", val=f"images/{split}")
    with tempfile.TemporaryDirectory() as tmp:  # plots on: ultralytics fills its confusion matrix only then
        data = Path(tmp) / "data.yaml"
        data.write_text(yaml.safe_dump(cfg, allow_unicode=True))
        metrics = YOLO(str(models_dir / "tiles.pt")).val(data=str(data), split="val", imgsz=imgsz, batch=8,
                                                          device="cpu", plots=True, verbose=False,
                                                          project=tmp, name="val")
    box = metrics.box
    recall = {CLASSES[c]: round(float(box.r[i]), 3) for i, c in enumerate(box.ap_class_index)}
    matrix = metrics.confusion_matrix.matrix  # rows: predicted, columns: true (last = background)
    confused = sorted(((int(matrix[p, t]), CLASSES[t], CLASSES[p]) for t in range(len(CLASSES))
                       for p in range(len(CLASSES)) if p != t and matrix[p, t] > 0), reverse=True)[:15]
    return {"mAP50": round(float(box.map50), 4), "mAP50-95": round(float(box.map), 4),
            "per_class_recall": recall,
            "confused": [{"true": t, "read_as": p, "count": n} for n, t, p in confused]}


def evaluate_model(sets: dict[str, tuple[Path, str, list[dict]]], models_dir: Path, args,
                   peer: dict | None, reader: ReaderSettings = READER_DEFAULT,
                   detector_settings: DetectorSettings = DETECTOR_DEFAULT) -> dict:
    """One model on every set: one set gives one set's figures; several give them per set and pooled."""
    detector = TileDetector(models_dir, classifier=not args.no_classifier, settings=detector_settings)
    if detector.classifier and args.classifier_weight is not None:
        detector.classifier.weight = args.classifier_weight
    settings = {"models": str(models_dir), "runtime": detector.runtime.to_json(), "passes": args.passes,
                "upscale": args.upscale, "phone": PHONE_SIDE if args.phone else None,
                "conf": detector.card.conf if args.conf is None else args.conf,
                "classifier": detector.card.classifier.name if detector.classifier else None,
                "classifier_weight": detector.classifier.weight if detector.classifier else None,
                "reader_settings": reader.to_json(), "detector_settings": detector.settings.to_json()}
    cache = DetectionCache(args.cache, cache_settings(detector, models_dir, args.passes, args.upscale, args.conf)) \
        if args.cache else None
    results, pooled = {}, []
    for name, (root, split, samples) in sets.items():
        with tempfile.TemporaryDirectory(prefix="phone-") as phone:
            reads = read_samples(samples, detector, peer, args.passes, args.upscale, args.conf, cache, reader,
                                 Path(phone) if args.phone else None)
        pooled += reads
        results[name] = {"data": str(root), "split": split, "real": is_real(root), "read_path": judge(reads)}
        if args.map if args.map is not None else not is_real(root):  # slow on CPU: off for real sets
            results[name]["detector"] = evaluate_map(root, split, detector.card.imgsz, models_dir)
    if len(results) == 1:
        return settings | results.popitem()[1]
    return settings | {"sets": results, "all": judge(pooled)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", type=Path, nargs="+", help="one or more data sets, generated or real")
    parser.add_argument("--split", help="default: test for a real set, val for a generated one")
    parser.add_argument("--limit", type=int, help="the first N images of each set")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--map", action=argparse.BooleanOptionalAction,
                        help="the ultralytics (torch) mAP pass; default: on for generated sets, off for real")
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--passes", type=int, choices=(1, 2), default=2, help="1: no tile-size normalisation")
    parser.add_argument("--upscale", type=float, default=1.0, help="enlarge each photo first (phone-size tiles)")
    parser.add_argument("--conf", type=float, help="tile threshold (default: the model card's)")
    parser.add_argument("--models", type=Path, action="append",
                        help="folder holding model.json (default: models/); repeat it to compare models")
    parser.add_argument("--no-classifier", action="store_true", help="read without the crop classifier")
    parser.add_argument("--classifier-weight", type=float,
                        help="1: the classifier's scores only, 0: the detector's only, between: a blend")
    parser.add_argument("--cache", type=Path,
                        help="keep each photo's detections here and reuse them (then no time per photo is measured)")
    parser.add_argument("--phone", action="store_true",
                        help=f"read each photo enlarged to a {PHONE_SIDE} px phone JPEG, decoded as an upload is")
    add_settings_arguments(parser)
    args = parser.parse_args(argv)
    if args.phone and (args.cache or args.passes != 2 or args.upscale != 1.0):
        parser.error("--phone reads each photo whole, as an upload: not with --cache, --passes 1 or --upscale")
    reader, detector_settings = settings_from_arguments(args)

    sets = {}
    for root in args.dir:
        split = args.split or ("test" if is_real(root) else "val")
        samples = samples_of(root, split, args.limit)
        if not samples:
            raise SystemExit(f"error: no images under {root / 'images' / split}")
        name = root.name if root.name not in sets else str(root)
        sets[name] = root, split, samples
    peer = None if args.no_peer else {}
    models = args.models or [MODELS_DIR]
    try:
        results = [evaluate_model(sets, m, args, peer, reader, detector_settings) for m in models]
    except ModelError as exc:
        raise SystemExit(f"error: {exc}") from exc
    result = results[0] if len(results) == 1 else {"by_model": {str(m): r for m, r in zip(models, results,
                                                                                          strict=True)}}
    text = json.dumps(result, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
