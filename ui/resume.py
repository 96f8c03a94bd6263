"""The hand in progress kept on the server by phone, so a reload (or a phone that lost the connection and opened the
page again) gets it back: the photo as uploaded, its readings, the tiles as fixed, who won and how, the flags and the
deal, and the table's part (the hand number and deal it was entered under, the wins set aside): the page's state
(`ui/state.py`) but the table's evening, which the ledger keeps.

A phone is named in the page's address (`?phone=`, beside `?table=` and `?script=`): a random id made on a
session's first run where the address has none, or one of another form (the address is the player's to change:
nothing else is taken from it). A reload keeps the address, so it keeps the id. The shelf is the server's memory
(`st.cache_resource`), a few phones' hands at most, the least recently kept going first: a restart empties it.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace

import streamlit as st

from ui.picture import Picture
from ui.state import AtTable, HandState, Photo, ReadState, hand_state, photo_state, table_state
from vision.photo import open_photo

PARAM = "phone"  # the address's ?phone=
_KEY = "phone"  # the session's phone id: set on its first run
_ID = re.compile(r"[0-9a-f]{16}")  # what secrets.token_hex(8) makes
PHONES = 32  # the hands kept at most, one per phone
MAX_PHOTO = 20 * 2**20  # bytes: a photo larger is not kept (the hand is, without it)
MAX_PHOTOS = 160 * 2**20  # bytes: the kept photos together


@dataclass(frozen=True)
class Hand:
    """A phone's hand as it was at the end of its page's last run."""

    table: str | None  # the ?table= it was entered at: given back only there
    hand: HandState  # a copy of the page's (each field compared by ==)
    flags: tuple[tuple[str, bool], ...] = ()  # the situation's checkboxes
    at_table: AtTable | None = None  # the table's part (None: off a table)
    taken: int | None = None  # which reading of the photo the draft came from
    photo: bytes | None = None  # the photo as uploaded (None: none, or one over MAX_PHOTO)
    photo_id: str | None = None
    read: ReadState | None = None  # what the photo's last read said (a copy)
    readings: dict = field(default_factory=dict)  # the photo's readings, by key: an entry is only ever added

    def mark(self) -> tuple:
        """What tells this hand from another one kept by the same session (cheap: no photo, no reading compared)."""
        return (self.table, self.hand, self.flags, self.at_table, self.taken, self.photo_id, self.read,
                tuple(self.readings))


class Shelf:
    """Hands by phone id, the least recently kept dropped first past `phones` hands or `photo_bytes` of photos."""

    def __init__(self, phones: int = PHONES, photo_bytes: int = MAX_PHOTOS) -> None:
        self.phones, self.photo_bytes = phones, photo_bytes
        self._hands: OrderedDict[str, Hand] = OrderedDict()
        self._lock = threading.Lock()  # one server, many sessions' runs at once

    def put(self, phone: str, hand: Hand) -> None:
        with self._lock:
            self._hands[phone] = hand
            self._hands.move_to_end(phone)
            while len(self._hands) > self.phones or self._photos() > self.photo_bytes:
                self._hands.popitem(last=False)

    def get(self, phone: str) -> Hand | None:
        with self._lock:
            return self._hands.get(phone)

    def drop(self, phone: str) -> None:
        with self._lock:
            self._hands.pop(phone, None)

    def _photos(self) -> int:
        return sum(len(h.photo) for h in self._hands.values() if h.photo is not None)


@st.cache_resource(show_spinner=False)
def shelf() -> Shelf:
    return Shelf()


def phone() -> tuple[str, bool]:
    """This page's phone id, written into the address where it is not there, and whether this is the session's first
    run (the one that may get a hand back)."""
    ss = st.session_state
    first = _KEY not in ss
    if first:
        asked = st.query_params.get(PARAM)
        ss[_KEY] = asked if asked is not None and _ID.fullmatch(asked) else secrets.token_hex(8)
    if st.query_params.get(PARAM) != ss[_KEY]:
        st.query_params[PARAM] = ss[_KEY]
    return ss[_KEY], first


def left(phone_id: str, table: str | None) -> Hand | None:
    """The hand this phone had on the page at this table (None: none kept)."""
    hand = shelf().get(phone_id)
    return hand if hand is not None and hand.table == table else None


def now(table: str | None, photo: bytes | None) -> Hand | None:
    """The hand on the page with its photo's bytes, as a reload gives it back; None where there is none to give
    back: nothing entered, or an old hand being edited (`TableState.in_hand`)."""
    hand, shown, at = hand_state(), photo_state(), table_state()
    at_table = at.in_hand()
    if at_table is None or (hand.draft.empty and shown.shown is None and not at.setting_aside()):
        return None
    kept = Hand(table, hand.snapshot(), tuple(hand.flags().items()), at_table, shown.taken)
    if shown.shown is None:
        return kept
    return replace(kept, photo=photo, photo_id=shown.shown.id, read=replace(shown.shown.read),
                   readings=dict(shown.readings))


def give_back(kept: Hand | None) -> None:
    """The hand this phone had on the page before a reload, back as it was: its photo is read again only where an
    uploaded one would be (the table learned since, or its rules changed)."""
    if kept is None:
        return
    hand, shown = hand_state(), photo_state()
    hand.restore(kept.hand)
    hand.set_flags(dict(kept.flags))
    if kept.at_table is not None:
        table_state().resume(kept.at_table)
    shown.taken = kept.taken
    if kept.photo is not None and kept.photo_id is not None and kept.read is not None:
        opened = open_photo(kept.photo)
        shown.shown = Photo(kept.photo_id, opened, Picture.of(opened), replace(kept.read))
        shown.readings, shown.resumed = dict(kept.readings), kept.photo
    hand.resumed = True  # said once, on this run


def keep(phone_id: str, hand: Hand | None) -> None:
    """The page's hand at the end of a run (None: none to keep, the one kept goes), shelved where it changed since
    this session last kept it. A photo over MAX_PHOTO is not kept, nor its readings: the hand is, without them."""
    ss = st.session_state
    mark = None if hand is None else hand.mark()
    if ss.get("phone_kept") == mark:
        return
    ss.phone_kept = mark
    if hand is None:
        shelf().drop(phone_id)
    elif hand.photo is not None and len(hand.photo) > MAX_PHOTO:
        shelf().put(phone_id, replace(hand, photo=None, photo_id=None, read=None, readings={}))
    else:
        shelf().put(phone_id, hand)
