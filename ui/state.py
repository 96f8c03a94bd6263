"""The page's state, in three parts, each kept in `st.session_state` under one key and reached through its accessor:

- `hand_state()`: the hand being fixed (the draft and its version, the tile selected, the group tiles are added to,
  the text box) and what the players say of it (who won and how, the deal, 底 and 每台, the ruleset); its
  situation's flags are its checkboxes' own values (`FLAG_NAMES`, written here only);
- `photo_state()`: the photo on the page and its readings, which of them the hand came from, the uploader;
- `table_state()`: the page at a table (`?table=`): the evening as last read (each run's `Desk` is made of it),
  the deal and hand number the page shows, the edit being loaded, the lines set aside or asked for, what a write
  said (a race lost, a failure, a note); its 詐胡 and 罰款 forms' values are their widgets' own (`FORM_KEYS`,
  cleared here only).

Each part is one object for the whole session, changed in place (a widget's callback holds it), and written by
its own methods or its widgets (`ui.widgets.Field`) only: the table's modules move the hand through `HandState`'s.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

import streamlit as st

from ledger import Evening, History, Ledger, Recorded, Seating, TableInfo
from scoring.draft import Draft
from scoring.payout import Deal
from scoring.ruleset import DEFAULT_RULESET, RulesetError, SettlementRules, available_rulesets, load_ruleset
from scoring.seats import SEATS, Seat, Wind
from ui.picture import Picture
from ui.result import SetAside
from vision import photo as photos
from vision.notices import Notice
from vision.read import PhotoReading

# The situation's checkboxes (their widget keys, and the names `scoring.hand.Situation` and `declared_ready` take).
FLAGS = {"last_tile": "海底／河底（最後一張）", "after_kong": "槓上（補牌胡）", "rob_kong": "搶槓", "heavenly": "天胡",
         "ready": "聽牌（胡前宣告）"}
FIRST_TURN = {"earthly": "地胡", "human": "人胡", "heavenly_ready": "天聽", "earthly_ready": "地聽",
              "after_flower": "補花後自摸"}
FLAG_NAMES = (*FLAGS, *FIRST_TURN)
# The 詐胡 and 罰款 forms' widgets (ui/table_penalties.py), emptied once their line is recorded or dropped.
FORM_KEYS = ("false_win_claimed", "false_win_drawn", "penalty_reason",
             *(f"{k}_{s.code}" for s in SEATS for k in ("false_win_ready", "false_win_wait", "penalty")))


def _default_ruleset() -> str:
    return DEFAULT_RULESET if DEFAULT_RULESET in available_rulesets() else available_rulesets()[0]


@dataclass
class HandState:
    """The hand being fixed and what the players say happened."""

    draft: Draft = field(default_factory=Draft)
    version: int = 0  # moves with every change of the draft: the tile rows' widget keys carry it
    selected: tuple[str, int] | None = None  # the tile tapped: its group and place
    target: str = "concealed"  # the group a tile tapped in the picker is added to
    text: str = ""  # the hand as typed
    text_error: str | None = field(default=None, compare=False)  # what the typed hand got wrong
    winner: Seat | None = None
    how: Seat | str | None = None  # "self" (自摸) or the seat that dealt the winning tile
    round: Wind = Wind.E
    dealer: Seat = SEATS[0]
    streak: int = 0
    base: int = 100
    per_tai: int = 20
    ruleset: str = field(default_factory=_default_ruleset)
    resumed: bool = field(default=False, compare=False)  # given back after a reload: said once, on this run

    def edit(self, draft: Draft) -> None:
        """Every change of the hand: new widget keys for the tile rows, so no stale selection remains."""
        self.draft = draft
        self.version += 1
        self.selected = None

    @property
    def deal(self) -> Deal:
        return Deal(Wind(self.round), self.dealer, int(self.streak))

    def take_deal(self, deal: Deal) -> None:
        self.dealer, self.round, self.streak = deal.dealer, deal.round, deal.streak

    def take_stakes(self, base: int | None = None, per_tai: int | None = None, ruleset: str | None = None) -> None:
        """The table's 底, 每台 or ruleset, or a recorded hand's (None: that one stays)."""
        self.base = self.base if base is None else base
        self.per_tai = self.per_tai if per_tai is None else per_tai
        self.ruleset = self.ruleset if ruleset is None else ruleset

    def take_played(self, deal: Deal, winner: Seat | None, how: Seat | str | None) -> None:
        """A hand recorded at the table, put back to be fixed: its deal, who won and how; its flags off until its
        hand says them."""
        self.take_deal(deal)
        self.say(winner, how)
        self.set_flags(dict.fromkeys(FLAG_NAMES, False))

    def say(self, winner: Seat | None, how: Seat | str | None) -> None:
        """Who won and how, as the table says it (None: to be said again)."""
        self.winner, self.how = winner, how

    def settlement(self) -> SettlementRules | None:
        """The page's table rules' settlement (None where the ruleset cannot be read: the 台 section says so)."""
        try:
            return load_ruleset(self.ruleset).settlement
        except RulesetError:
            return None

    def flags(self) -> dict[str, bool]:
        """The situation's checkboxes as they are."""
        return {name: bool(st.session_state.get(name, False)) for name in FLAG_NAMES}

    def set_flags(self, values: dict[str, bool]) -> None:
        for name, value in values.items():
            st.session_state[name] = value

    def next_hand(self, draft: Draft) -> None:
        """Another hand begins with `draft`: who won and how to be said again, the typed text and the flags gone (the
        deal stays)."""
        self.edit(draft)
        self.winner, self.how, self.text = None, None, ""
        self.set_flags(dict.fromkeys(FLAG_NAMES, False))

    def snapshot(self) -> HandState:
        """A copy that keeps this hand as it is now (its fields are values: the draft is frozen)."""
        return HandState(**{name: getattr(self, name) for name in self.__dataclass_fields__})

    def restore(self, kept: HandState) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(kept, name))


@dataclass
class ReadState:
    """What the last read of the photo on the page said (kept over a reload, beside the photo's bytes)."""

    problem: Notice | None = None  # why it could not be read
    ruleset: str | None = None  # the ruleset it was read under (None: read it again)
    key: tuple | None = None  # its reading's key in `PhotoState.readings`: (id, ruleset, table memory revision)
    memory_problem: str | None = None  # why the table's memory of its set could not be used
    behind: bool = False  # the table learned since the player fixed the hand: a re-read is offered


@dataclass
class Photo:
    """The photo on the page."""

    id: str  # `ui.photo.photo_id` of its bytes
    # as `vision.photo.open_photo` opened it: a phone's JPEG decoded at each size the page first asks for
    opened: photos.Photo = field(compare=False, repr=False)
    picture: Picture = field(compare=False, repr=False)
    read: ReadState = field(default_factory=ReadState)
    # the JPEG last sent of it with boxes drawn, and what they showed (`ui.photo.annotated_jpeg`)
    sent: tuple[tuple, bytes] | None = field(default=None, compare=False, repr=False)


@dataclass
class PhotoState:
    """The photo and its readings."""

    shown: Photo | None = None
    readings: dict[tuple, PhotoReading] = field(default_factory=dict)  # this photo's, by `ReadState.key`
    taken: int | None = None  # which reading of the photo the draft came from: None the best, else a runner-up's index
    resumed: bytes | None = None  # a photo given back after a reload (`resume_hand`): no uploader holds it
    uploads: int = 0  # the uploader's generation: a new one (empty) once a hand is recorded
    source: str = "upload"  # the uploader used last: "upload" or "camera"

    def reading(self) -> PhotoReading | None:
        """The reading of the photo on the page (None: no photo, or not read)."""
        key = None if self.shown is None else self.shown.read.key
        return None if key is None else self.readings.get(key)

    def next_hand(self) -> None:
        """A hand was recorded: its photo goes, and the uploaders are new, empty ones."""
        self.uploads += 1
        self.shown, self.resumed, self.taken = None, None, None


@dataclass(frozen=True)
class Desk:
    """The table this page is at, as read at the top of this run."""

    ledger: Ledger
    evening: Evening

    @property
    def code(self) -> str:
        return self.table.code

    def form_key(self, *shown: object) -> str:
        """A table form's key: the table and what the form shows from it. Another phone writing something else moves
        the table's revision but not this, so what the player is typing stays (a form keyed by the revision was drawn
        anew by the watch's run, and its button saved what the table had); a change to what it shows draws it anew."""
        return f"{self.code}-{zlib.crc32(repr(shown).encode()):08x}"

    @property
    def table(self) -> TableInfo:
        return self.evening.table

    @property
    def hands(self) -> list[Recorded]:
        """The sound hands (a damaged one is in `evening.damaged`)."""
        return self.evening.hands

    @property
    def deal(self) -> Deal:
        return self.evening.next_deal

    @property
    def next_seq(self) -> int:
        return self.evening.next_seq


@dataclass(frozen=True)
class AtTable:
    """The table's part of a hand being entered, as a reload gives it back (`ui/resume.py`): the hand number and deal
    it was entered under (recording it is checked as before a reload) and the wins set aside for its discard."""

    seen: tuple[str, int] | None
    expect: int | None
    deal: Deal | None
    aside: tuple[SetAside, ...]


@dataclass
class TableState:
    """The page at a table."""

    cache: tuple[tuple, Evening] | None = None  # the evening read, by (file, code, revision)
    history: tuple[tuple, History] | None = None  # every evening read, by (file, code, revision), when shown
    opened: tuple[str, str] | None = None  # (file, code) of the table opened (made where new) by this session
    error: str | None = None  # why the table code typed is no table code
    seen: tuple[str, int] | None = None  # (code, revision) whose next deal the page took
    expect: int | None = None  # the hand number the page shows (recording it is checked against it)
    deal: Deal | None = None  # the deal the page took with it
    seating: Seating | None = None  # the 將's seating the page took with it (recording it is checked against it)
    first_dealer: Seat | None = None  # and its 起莊
    refresh: bool = False  # a race lost: take the ledger's deal on the next run though a hand is being entered
    editing: tuple[int, int | None] | None = None  # (hand number, revision) of the hand being edited
    edit_photo: str | None = None  # the photo id of the hand being edited
    asked: tuple | None = None  # the question open: ("draw" | "false_win" | "penalty", seq) or ("undo", seq, revision)
    conflict: dict | None = None  # the race lost: what it said, and what the hand was then (deal, winner, money)
    failure: str | None = None  # the ledger's failure, said once
    note: str | None = None  # what was recorded, said once
    deals_apart: str | None = None  # after an edit: the hand after it was played under another deal, said once
    settings_error: str | None = None  # the stakes could not be saved, said once
    aside: tuple[SetAside, ...] = ()  # the wins set aside for one discard (一炮多響)
    false_win_caller: Seat | None = None  # the 詐胡 form's caller
    edit_last: int | None = None  # the last hand when the edit picker was set to it

    def setting_aside(self) -> bool:
        """Wins are set aside for one discard: the page is busy with a hand even while its draft is empty."""
        return bool(self.aside)

    def ask(self, question: tuple | None) -> None:
        self.asked = question
        self.conflict = None

    def forget_lines(self) -> None:
        """The wins set aside and the 詐胡 and penalty forms, once their line is recorded or dropped."""
        self.aside, self.false_win_caller = (), None
        for key in FORM_KEYS:
            st.session_state.pop(key, None)

    def set_form(self, values: dict[str, object]) -> None:
        """The 詐胡 or penalty form filled in (a line loaded for an edit)."""
        for key, value in values.items():
            st.session_state[key] = value

    def in_hand(self) -> AtTable | None:
        """The table's part of the hand being entered; None while an old hand is edited: a reload drops the edit
        (the ledger keeps that hand as it was)."""
        if self.editing is not None:
            return None
        return AtTable(self.seen, self.expect, self.deal, self.aside)

    def resume(self, kept: AtTable) -> None:
        self.seen, self.expect, self.deal, self.aside = kept.seen, kept.expect, kept.deal, kept.aside

    def aside_winners(self) -> tuple[Seat, ...]:
        """The seats that already won the discard being entered (一炮多響): none of them dealt it, nor wins it again."""
        return tuple(one.winner for one in self.aside)


T = TypeVar("T")


def _held(key: str, make: Callable[[], T]) -> T:
    """The session's one `key` object, made on its first run."""
    if key not in st.session_state:
        st.session_state[key] = make()
    return cast(T, st.session_state[key])


def hand_state() -> HandState:
    return _held("hand", HandState)


def photo_state() -> PhotoState:
    return _held("photo", PhotoState)


def table_state() -> TableState:
    return _held("table", TableState)
