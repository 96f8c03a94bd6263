"""The table's memory of its own tile set in the app: read with the table's photos, taught by
every hand recorded from a photo and by the "teach this set" page (`ui/teach_page.py`).

The memory is the ledger's (`Ledger.memory`, schema v5), so every phone at the table and a restarted app
share it. A page reads it only when its revision moved (`remembered`, kept in the session like the
evening), and a photo's reading is kept by the memory's revision too: the same photo brought again after
the table learned is read again, and so is the photo on the page while its hand is as read (app.py;
once the player changed it, only when asked, so another phone teaching cannot undo the fixes).
Teaching embeds the crops first and then changes the stored memory under the ledger's write lock
(`Ledger.change_memory`): two phones teaching at once both land.
A stored memory that cannot be used (damaged, another format, made with models since replaced) is
reported in the player's words and read as an empty one; teaching starts it afresh.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import cast

import numpy as np
import streamlit as st

from ledger import Ledger, LedgerError, Recorded
from scoring.draft import Draft
from vision.crop_classifier import TileClassifier
from vision.draw import box_codes
from vision.memory import TableMemory, TableMemoryError, embed
from vision.photo import Photo
from vision.read import PhotoView

log = logging.getLogger("taishu")
ss = st.session_state
WHAT = "這一桌記住的牌"  # the memory, named in a refusal's message


@dataclass(frozen=True)
class Remembered:
    """The table's memory as this page read it."""

    revision: int | None  # the ledger's memory revision it was read at (None: off a table)
    memory: TableMemory | None  # None: nothing taught, or nothing this page's models can use
    problem: str | None = None  # why the stored memory is not used (damaged, other models), traditional


def classifier_of(detector) -> TileClassifier | None:
    """The crop classifier a memory is made with, None where the models give no embeddings to remember."""
    classifier = getattr(detector, "classifier", None)
    return classifier if classifier is not None and classifier.embeds else None


def usable(data: bytes | None, classifier: TileClassifier) -> TableMemory:
    """The stored bytes as a memory for `classifier`; a TableMemoryError where they are not one it can use."""
    if data is None:
        return TableMemory.for_classifier(classifier)
    memory = TableMemory.from_bytes(data, WHAT)
    memory.check(classifier)
    return memory


def remembered(ledger: Ledger, code: str, revision: int, classifier: TileClassifier) -> Remembered:
    """The table's memory at `revision` (`Ledger.memory_revision`), read from the file only when it moved
    since this page read it."""
    key = (str(ledger.path), code, revision, classifier.sha256)
    cached = ss.get("table_memory")
    if cached is None or cached[0] != key:
        stored = ledger.memory(code)
        try:
            found = Remembered(stored.revision, usable(stored.data, classifier))
        except TableMemoryError as exc:
            found = Remembered(stored.revision, None, exc.notice.text("traditional"))
        cached = ss.table_memory = ((str(ledger.path), code, stored.revision, classifier.sha256), found)
    return cached[1]


def revision(desk) -> int | None:
    """The memory revision of the page's table (`ui.table_desk.Desk`; None off a table, or where the ledger
    cannot say: the photo is then read by the models alone): part of a photo reading's key."""
    if desk is None:
        return None
    try:
        return desk.ledger.memory_revision(desk.code)
    except LedgerError:
        return None


def for_reading(desk, revision: int | None, detector) -> Remembered:
    """What a photo at this table is read with: its memory, None where there is none, it is empty, or the
    models cannot use one (the photo is then read by the models alone; `problem` says why, where it is
    the stored memory's fault)."""
    classifier = classifier_of(detector)
    if revision is None or classifier is None:
        return Remembered(revision, None)
    try:
        found = remembered(desk.ledger, desk.code, revision, classifier)
    except LedgerError as exc:
        return Remembered(revision, None, str(exc))
    return found if found.memory is None or len(found.memory) else Remembered(found.revision, None)


def teach(ledger: Ledger, code: str, classifier: TileClassifier, image: np.ndarray, boxes: np.ndarray,
          codes: list[str]) -> TableMemory:
    """The table's memory taught these tiles (boxes xyxy in `image`'s pixels, each its code), written back
    to the ledger; returns the memory as stored. A memory that cannot be used is started afresh."""
    embeddings = embed(classifier, image, boxes, codes)  # before the write lock: the ledger is not held meanwhile
    taught = []

    def change(data: bytes | None) -> bytes:
        try:
            memory = usable(data, classifier)
        except TableMemoryError:
            memory = TableMemory.for_classifier(classifier)
        memory.add(embeddings, list(codes))
        taught.append(memory)
        return memory.to_bytes()

    ledger.change_memory(code, change)
    return taught[-1]


def confirmed_tiles(proposal, draft: Draft) -> tuple[np.ndarray, list[str]]:
    """The tiles of a recorded hand that the photo shows (`proposal`: the `vision.read.Proposal` the player
    took), in reading order: each of the draft's tiles that has its box, with its final code (a face-down
    tile as `back`). Tiles typed in or supposed have no box, and the tiles set apart were never confirmed:
    none of them teaches anything."""
    codes = box_codes(proposal, draft)
    held = {s.det for s in draft.all_slots() if s.det is not None}
    kept = [k for k, row in enumerate(proposal.shown) if row.id in held]
    # each held box's code is its draft tile's, and a recorded hand's tiles are all named (it was scored)
    return proposal.boxes[kept], cast(list[str], [codes[k] for k in kept])


def learn_hand(ledger: Ledger, code: str, detector_of, photo_id: str, photo: Photo, reading, view: PhotoView,
               draft: Draft, done: Recorded) -> str | None:
    """After hand `done` is recorded: the table's memory taught the tiles of this photo's reading as the
    player fixed them, each as the reader saw it (`view`: the photo decoded as finely, turned level or half a turn,
    as it was read: `vision.read.PhotoView.seen`).
    Returns what to tell the player (traditional), None where there is nothing to say (a hand recorded without
    this photo, models that cannot remember)."""
    if done.line.photo_id != photo_id or done.line.winner is None:
        return None
    boxes, codes = confirmed_tiles(reading, draft)
    try:
        classifier = classifier_of(detector_of())
        if classifier is None or not codes:
            return None
        memory = teach(ledger, code, classifier, *view.seen(photo, boxes), codes)
    except LedgerError as exc:
        return f"這一桌的牌組沒有學到這一局：{exc}"
    except Exception as exc:  # noqa: BLE001 - the hand is recorded: a failure to learn must not undo the page
        log.exception("teaching the table's memory failed")
        return f"這一桌的牌組沒有學到這一局（{type(exc).__name__}）"
    return f"這一桌的牌組學了照片上的 {len(codes)} 張牌（現在記得 {len(memory.counts())} 種）"
