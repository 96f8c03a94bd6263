"""台數 taishu: photograph a winning hand, fix what the reader got wrong, see the 台 and who pays.

Thin on purpose: widgets wired to `scoring` (rules) and `vision` (photos) through the small
helpers in `ui/`. The page's state is three objects of `ui/state.py`, kept in `st.session_state` and bound to
widgets by value (`ui/widgets.py`): the hand being fixed and what the players say of it, the photo and its
readings (by photo, ruleset and the table's memory revision, so editing never re-runs the model), and the page at
a table. Streamlit runs this file as a script: its last lines call the page's sections in order (the top bar, ①
the photo, ② the hand, ③ the situation, ④ the result, ⑤ the data set, the evening), each handed what it needs.
The hand is scored once per run, before anything is drawn, so the summary at the top and every note below speak
of the hand as it is now. A table's evening lives in the ledger file (`?table=CODE`, `ui/table_desk.py` and the
`ui/table_*.py` beside it), and so does its memory of its own tile set, which reads its photos and learns from
each hand recorded from one (`ui/table_memory.py`; taught at once on the page 教認牌組, `ui/teach_page.py`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from scoring.draft import (
    MELD_SIZE,
    Draft,
    add_meld,
    add_tile,
    from_text,
    meld_from_concealed,
    meld_index,
    meld_to_concealed,
    remove_meld,
    remove_tile,
    replace_tile,
    set_kong_origin,
    set_meld_kind,
    set_win,
    to_hand,
    to_text,
)
from scoring.hand import KONG_ORIGINS, MAX_STAKE, MAX_STREAK, Hand, HandError, Meld, Situation
from scoring.melds import KongOrigin, MeldKind
from scoring.payout import Result
from scoring.ruleset import DEFAULT_RULESET, RulesetError, available_rulesets, load_ruleset
from scoring.score import kong_origins_needed
from scoring.seats import SEATS, Seat, Wind, seat_wind
from scoring.tiles import TILE_CODES
from ui import audit_page, resume, table_desk, table_history, table_memory, table_penalties, table_record, teach_page
from ui.chrome import on_script_change, page_script
from ui.dataset import DatasetError, dataset_root, save_example
from ui.photo import (
    PHOTO_TYPES,
    annotated_jpeg,
    box_codes,
    choices,
    flagged,
    photo_id,
    spare_for,
    still_apart,
    supposed_left,
    taken,
)
from ui.picture import Picture, jpeg
from ui.result import Judged, item_rows, net_line, payment_rows, settle_hand, stake_words
from ui.state import FIRST_TURN, FLAGS, Desk, Photo, ReadState, hand_state, photo_state, table_state
from ui.table import player
from ui.text import SCRIPT_LABELS, SCRIPTS, in_script, ruleset_label, tile_label, wind_label
from ui.widgets import Field, choice, distinct, number, pick, text
from vision.classes import BACK
from vision.detections import UNSURE_BELOW
from vision.detector import TileDetector
from vision.model_files import ModelError
from vision.notices import Notice
from vision.photo import PhotoError, open_photo
from vision.read import PhotoReading, Proposal, read_photo

log = logging.getLogger("taishu")
KIND_NAMES = {kind: kind.name_in("traditional") for kind in MeldKind}  # 吃 碰 明槓 暗槓 (scoring/melds.py)
# What each origin means, beside its name (scoring.melds names it).
ORIGIN_HINTS = {KongOrigin.CALLED: "槓別人打出的牌", KongOrigin.ADDED: "碰了再補第四張"}


@st.cache_resource(show_spinner=False)
def tile_detector():
    return TileDetector()


@dataclass(frozen=True)
class Run:
    """What this run's sections say things in and where: the script and the table (None: none). Labels read it,
    not the session: Streamlit may call a format_func after the run."""

    script: str
    desk: Desk | None

    def t(self, text: str) -> str:
        return in_script(text, self.script)

    def who(self, seat, script: str | None = None) -> str:
        return player(seat, None if self.desk is None else self.desk.table, script or self.script)

    def group_label(self, draft: Draft, group: str) -> str:
        if group.startswith("meld:"):
            meld = draft.melds[meld_index(group)]
            return self.t(f"副露 {meld_index(group) + 1}（{'未定' if meld.kind is None else KIND_NAMES[meld.kind]}）")
        return self.t({"concealed": "手牌", "win": "胡的那張", "flowers": "花牌"}[group])

    def origin_label(self, origin: str) -> str:
        kong = KongOrigin(origin)
        return self.t(f"{kong.name_in('traditional')}（{ORIGIN_HINTS[kong]}）")


@dataclass(frozen=True)
class Read:
    """The photo on the page as read: its bytes (None: no photo), its reading (None: not read) and the proposal the
    player took of it (`ui.photo.taken`)."""

    data: bytes | None
    reading: PhotoReading | None = None
    proposal: Proposal | None = None


def field(name: str) -> Field:
    """The hand's `name` as its widget shows and sets it."""
    return Field.of(hand_state(), name)


def next_hand(draft: Draft) -> None:
    """A hand was recorded at the table: the page starts the next one empty, its photo and typed
    text gone, and who won and how to be said again (the deal is filled in from the ledger)."""
    hand_state().next_hand(draft)
    photo_state().next_hand()


def start_over() -> None:
    """清空手牌: another hand begins (a race lost with the one on the page is over: `table_record.start_over`)."""
    hand_state().edit(Draft())
    photo_state().resumed = None  # a photo given back after a reload goes too: it has no uploader to remove it from
    table_record.start_over()


def table_rules(name: str):
    """The table the photo is read under (a 十三么 is a hand only where the table has it); a house
    table that cannot be read falls back to the default one, which the 台 section then reports."""
    try:
        return load_ruleset(name)
    except RulesetError:
        return load_ruleset(DEFAULT_RULESET)


# -- callbacks (run before the page is drawn again) ---------------------------------------------------
def on_text() -> None:
    hand = hand_state()
    try:
        draft = from_text(hand.text)
    except HandError as exc:
        hand.text_error = exc.for_player
        return
    hand.text_error = None
    hand.edit(draft)


# The hand's widgets carry the draft's version in their keys and their callbacks: a request the browser sent
# before it drew the page's last run still carries the widgets of an older draft (ui/widgets.py), whose values
# must not change the draft on the page now.
def on_select(group: str, version: int) -> None:
    hand = hand_state()
    if version != hand.version:
        return
    index = st.session_state[f"tiles-{group}-{hand.version}"]
    hand.selected = None if index is None else (group, index)
    for other in hand.draft.groups():
        if other != group:
            st.session_state[f"tiles-{other}-{hand.version}"] = None


def on_face(version: int) -> None:
    hand = hand_state()
    code = st.session_state[f"face-{hand.version}"] if version == hand.version else None
    if code is None:
        return
    if hand.selected is not None:
        hand.edit(replace_tile(hand.draft, *hand.selected, code))
    else:
        hand.edit(add_tile(hand.draft, hand.target, code))


def on_pull(proposal: Proposal, version: int) -> None:
    """A tile the reader set apart, tapped: into the group tiles are added to, with its box."""
    hand = hand_state()
    det = st.session_state[f"apart-{hand.version}"] if version == hand.version else None
    if det is not None:
        hand.edit(add_tile(hand.draft, hand.target, proposal.row(det).code, det))


def on_take(reading: PhotoReading, alternative: int | None) -> None:
    """The draft replaced by another reading of the photo (None: the best)."""
    photo_state().taken = alternative
    hand_state().edit(taken(reading, alternative).draft)


def on_kind(m: int, proposal: Proposal | None, version: int, script: str) -> None:
    hand = hand_state()
    if version != hand.version:
        return
    kind = st.session_state[f"kind-{m}-{script}-{hand.version}"]
    hand.edit(set_meld_kind(hand.draft, m, kind, spare_for(proposal, hand.draft, m, kind)))


def on_new_meld(kind: str) -> None:
    hand = hand_state()
    hand.edit(add_meld(hand.draft, kind))
    hand.target = f"meld:{len(hand.draft.melds) - 1}"


def on_remove_meld(m: int) -> None:
    hand = hand_state()
    hand.edit(remove_meld(hand.draft, m))
    hand.target = "concealed"


def on_meld_to_concealed(m: int) -> None:
    hand = hand_state()
    hand.edit(meld_to_concealed(hand.draft, m))
    hand.target = "concealed"


def on_tile(change) -> None:
    """The tile selected: removed, made the winning tile, or let go (`change(draft, selected)`, None: let go)."""
    hand = hand_state()
    hand.edit(hand.draft if change is None or hand.selected is None else change(hand.draft, hand.selected))


# -- the photo ----------------------------------------------------------------------------------------
def read_upload(run: Run, data: bytes) -> None:
    """Read a new photo once per ruleset (a 十三么 is a hand only where the table has it) and table memory
    (`ui/table_memory.py`); the draft follows the photo when it is new, read again under another table, or
    read again with what the table has learned since (only while the player has not changed the hand)."""
    hand, photos = hand_state(), photo_state()
    pid = photo_id(data)
    shown = photos.shown
    if shown is None or shown.id != pid:
        try:
            opened = open_photo(data)
            picture = Picture.of(opened)  # decodes it, at the size the read starts from where it may
        except PhotoError as exc:
            photos.shown = None
            st.error(run.t("這個檔案不能當照片讀：") + exc.notice.text(run.script))
            return
        shown = photos.shown = Photo(pid, opened, picture)
        photos.readings = {}  # only this photo's: a phone uploading all evening keeps one photo's readings
        table_record.start_over()  # a new photo is another hand
    key = (pid, hand.ruleset, table_memory.revision(run.desk))  # read again once the table's memory moved, unless fixed
    if key == shown.read.key or (shown.read.ruleset == hand.ruleset and fixed_by_player(shown)):
        shown.read.behind = key != shown.read.key  # the table learned since the player's fixes: offer a re-read
        return
    shown.read = ReadState(ruleset=hand.ruleset, key=key, memory_problem=shown.read.memory_problem)
    if key not in photos.readings:
        try:
            with st.spinner(run.t("讀牌中…")):
                photos.readings[key] = read_at_table(run.desk, shown, key[2])
        except (ModelError, PhotoError) as exc:  # a photo's stream may break past what its first decoding read
            shown.read.problem = exc.notice
        except Exception as exc:  # noqa: BLE001 - a reader failure must leave the page and the hand usable
            log.exception("reading a photo failed")
            shown.read.problem = Notice.of("reading-failed", error=f"{type(exc).__name__}: {exc}")
    if key in photos.readings:
        photos.taken, hand.text = None, ""  # the hand is the photo's now, not the one typed before
        hand.edit(photos.readings[key].best.draft)


def read_again(shown: Photo) -> None:
    """The photo read again with what the table learned since the player fixed its hand (the fixes go)."""
    shown.read.ruleset = None


def fixed_by_player(shown: Photo) -> bool:
    """The player changed the hand the photo's reading gave: reading it again would throw the changes away."""
    reading = photo_state().reading()
    return reading is not None and hand_state().draft != taken(reading, photo_state().taken).draft


def read_at_table(desk: Desk | None, shown: Photo, memory_revision: int | None) -> PhotoReading:
    """The photo read with the table's memory of its own set, where the page is at a table that has one."""
    detector = tile_detector()
    remembered = table_memory.for_reading(desk, memory_revision, detector)
    shown.read.memory_problem = remembered.problem
    return read_photo(shown.opened, detector, table_rules(hand_state().ruleset), memory=remembered.memory)


def photo_lesson(desk: Desk, read: Read):
    """What a hand recorded from the photo teaches the table's memory (`ui.table_memory.learn_hand`, run
    once it is recorded): the reading as the player took it and the draft as shown. None: no photo read."""
    shown = photo_state().shown
    if read.reading is None or read.proposal is None or shown is None:
        return None
    return partial(table_memory.learn_hand, desk.ledger, desk.code, tile_detector, shown.id, shown.opened,
                   read.proposal, read.reading.view, hand_state().draft)


# -- what the players say happened ---------------------------------------------------------------------
def the_result() -> Result | str:
    """Who won and how under the page's deal, or what is still to be said (in traditional)."""
    hand = hand_state()
    if hand.winner is None:
        return "選出誰胡了"
    if hand.how is None:
        return "選出自摸還是誰放槍"
    return Result(hand.deal, hand.winner, hand.how if isinstance(hand.how, Seat) else None)


def the_flags() -> Situation:
    flags: dict[str, Any] = {key: value for key, value in hand_state().flags().items() if key != "ready"}
    return Situation(**flags)  # the flags but 聽牌, which the table states (`declared_ready`)


def judge_page(run: Run) -> Judged:
    """The hand as it is now, judged once per run before anything speaks of it: the draft made a hand once, its
    verdict (or what to say: a prompt or an error), and at a table the wins set aside for its discard with it."""
    state = hand_state()
    if state.draft.empty:
        return Judged(None, None, ("prompt", "先拍照、上傳照片，或輸入手牌（也可以在下面點牌）。"))
    try:
        built, problem = to_hand(state.draft, the_flags()), None
    except HandError as exc:
        built, problem = None, exc.for_player
    said = the_result()
    try:
        if isinstance(said, str):
            verdict, why_not = None, ("prompt", said)
        elif built is None:
            verdict, why_not = None, ("error", "這手牌不能算：" + str(problem))
        else:
            verdict = settle_hand(built, said, int(state.base), int(state.per_tai), state.flags()["ready"],
                                  state.ruleset)
            why_not = None
    except HandError as exc:
        verdict, why_not = None, ("error", "這手牌不能算：" + exc.for_player)
    except RulesetError as exc:
        verdict, why_not = None, ("error", "這手牌不能算：" + str(exc))
    shared, shared_problem = (None, None) if run.desk is None else table_record.judge_discard(verdict)
    return Judged(built, verdict, why_not, shared, shared_problem)


# -- the page's sections, in order --------------------------------------------------------------------
def top() -> tuple[Run, DeltaGenerator]:
    """The title, the script, the bar the verdict goes in (filled in once the hand is scored), the table."""
    hand = hand_state()
    with st.container(horizontal=True, vertical_alignment="center"):  # one line: the title and the script
        st.title(in_script("台數", st.session_state.script), width="content")
        st.radio("文字", SCRIPTS, format_func=SCRIPT_LABELS.get, key="script", horizontal=True,
                 label_visibility="collapsed", on_change=on_script_change, width="content")
    script = st.session_state.script
    summary = st.container(key="summary")  # stays in view (ui/style)
    st.caption(in_script("拍下胡牌：讀出手牌、算台數、算誰付多少。", script))
    # The table's ledger (?table=CODE, ui/table_desk.py): first, since it fills in the deal.
    run = Run(script, table_desk.open_desk(script, busy=not hand.draft.empty or table_state().setting_aside()))
    if run.desk is not None:
        table_record.recorded(script)  # a hand just recorded: said here, the page back at its top for the next one
        table_history.totals_at_top(run.desk, script)
    if hand.resumed:
        hand.resumed = False
        st.info(run.t("接著剛才的這一手（網頁重新整理或斷線前的）：不是這一手的話，按下面的「清空手牌」。"))
    return run, summary


def upload(run: Run) -> Read:
    """① the uploaders, and the photo they hold read (or the one given back after a reload)."""
    t, photos = run.t, photo_state()
    st.subheader(t("① 照片"))
    uploaded = st.file_uploader(
        t("上傳胡牌照片（手機會提供拍照）"), type=PHOTO_TYPES,
        key=f"upload-{photos.uploads}", on_change=lambda: setattr(photos, "source", "upload"),
        help=t("JPG、PNG、WebP 或 iPhone 的 HEIC。"),
    )
    with st.expander(t("用網頁相機拍照（要 https:// 的網址，或在這台電腦上）")):
        st.caption(t("手機經由無線網路連上 http://… 的網址時，瀏覽器不允許網頁相機；請用上面的上傳，手機會提供拍照。"))
        camera = st.camera_input(t("拍照"), key=f"camera-{photos.uploads}",
                                 on_change=lambda: setattr(photos, "source", "camera"))
    photo_file = (camera or uploaded) if photos.source == "camera" else (uploaded or camera)
    if photo_file is not None:
        photos.resumed = None  # the uploader's photo is the page's now
    data = photo_file.getvalue() if photo_file is not None else photos.resumed
    if data is None:
        photos.shown = None
    else:
        read_upload(run, data)
    reading = photos.reading()
    hand = hand_state()
    if hand.target not in hand.draft.groups():
        hand.target = "concealed"
    return Read(data, reading, None if reading is None else taken(reading, photos.taken))  # the proposal taken


def summary_bar(run: Run, judged: Judged) -> None:
    """The bar at the top: the hand's 台 and everyone's money, or what is still missing."""
    t, who, desk, verdict, why_not = run.t, run.who, run.desk, judged.verdict, judged.why_not
    several = None if desk is None else table_record.discard_summary(desk, judged, run.script)
    line = None if desk is None else table_penalties.line_asked(run.script)
    if several is not None:  # one discard won by several: the line 胡了 records, every winner's money
        st.markdown(several)
    elif line is not None and verdict is None:
        st.markdown(line)
    elif verdict is not None:
        r = verdict.result
        how = t("自摸") if r.self_draw else t("胡 ") + who(r.discarder)
        st.markdown(f"**{verdict.score.total} 台** · {who(r.winner)} {how}  \n"
                    + net_line(verdict.payout, run.script, who))
    else:  # a prompt as it is; an error is said in full at ④
        assert why_not is not None
        st.markdown(t(why_not[1] if why_not[0] == "prompt" else "這手牌還不能算（④ 說為什麼）"))


def photo(run: Run, read: Read, judged: Judged) -> DeltaGenerator | None:
    """① the photo as read: its boxes, what the reader noticed, the tiles it set apart; the place of the other
    readings (returned: filled in by `result`, once the situation that scores them is known)."""
    t, script, shown, hand = run.t, run.script, photo_state().shown, hand_state()
    if shown is None:
        return None
    if shown.read.problem:
        st.warning(t("無法從照片讀牌，請用文字或點牌輸入手牌。") + f"\n\n{shown.read.problem.text(script)}")
    if shown.read.memory_problem:
        st.warning(t("這一桌記住的牌組用不了，這張照片只用模型讀：" + shown.read.memory_problem))
    if shown.read.behind:
        st.button(t("這一桌剛學了牌：用它重讀這張照片（你改過的要重改）"), on_click=read_again, args=(shown,))
    reading, proposal, draft = read.reading, read.proposal, hand.draft
    if reading is None or proposal is None:
        st.image(jpeg(shown.picture.image))
        return None
    apart = still_apart(proposal, draft)
    unsure = sum(row.certainty < UNSURE_BELOW for row in proposal.shown)
    st.image(annotated_jpeg(shown, photo_state().taken, proposal, draft),
             caption=t(f"讀到 {len(proposal.shown)} 張牌" + (f"，其中 {unsure} 張沒把握" if unsure else "")
                       + "。紅框：沒把握、被修正或你改過的牌；x：你刪掉的"
                       + ("；灰框：不算在手牌裡的牌（牌牆、海底、散牌）。" if apart else "。")))
    if judged.why_not is not None and judged.why_not[0] == "error" and not reading.legal:
        st.warning(t("照片讀出的牌不是合法的胡牌，請在下面修正。"))
    small = reading.warning("tiles-small")
    if small is not None:  # the one notice that says how to take the next photo: shown, not folded away
        st.info(small.text(script))
    still_supposed = supposed_left(proposal, draft)
    if still_supposed:
        st.info(t("照片上少一張：為了湊成胡牌，手牌裡補上了 "
                  + "、".join(tile_label(code, script) for code in still_supposed) + "（不對就刪掉它）。"))
    faces = [i for i in apart if proposal.row(i).code != BACK]  # a wall of backs is not worth a tap each
    if faces:
        apart_labels = dict(zip(faces, distinct([tile_label(proposal.row(i).code, script) for i in faces]),
                                strict=True))
        st.pills(t(f"不算在手牌裡的牌：點一張加到{run.group_label(draft, hand.target)}"), faces,
                 key=f"apart-{hand.version}", on_change=on_pull, args=(proposal, hand.version),
                 format_func=apart_labels.__getitem__)
    if len(faces) < len(apart):
        st.caption(t(f"另有 {len(apart) - len(faces)} 張牌背朝上的牌不算在手牌裡。"))
    reading_choices = st.container()
    folded = [w for w in reading.warnings if w is not small]
    if folded:
        with st.expander(t(f"讀牌提示（{len(folded)}）")):
            for warning in folded:
                st.write(f"- {warning.text(script)}")
    return reading_choices


def hand(run: Run, read: Read) -> None:
    """② the hand tile by tile: each group, a tile tapped with the picker that replaces it; adding tiles and melds
    and typing the hand folded away once there is a hand (open while the page has none)."""
    t, state = run.t, hand_state()
    draft = state.draft
    st.subheader(t("② 手牌" if draft.empty else "② 手牌（點牌可換掉或刪除）"))
    marks = {}  # each box's flag by its row's id (a slot's `det`)
    if read.proposal is not None:
        marks = dict(zip((row.id for row in read.proposal.shown), flagged(read.proposal, draft), strict=True))
    if draft.empty:
        st.info(t("先拍照、上傳照片，或輸入手牌（也可以在下面點牌）。"))
    short = [g for g in draft.groups() if g != "concealed" and (g != "flowers" or draft.slots(g))]
    tile_row(run, read, "concealed", marks)
    if state.selected is not None and state.selected[0] == "concealed":
        fix_tile(run, *state.selected)  # the picker just below the row of the tile tapped
    with st.container(horizontal=True, gap="medium"):  # the short rows side by side: the winning tile, melds, flowers
        for group in short:
            with st.container(width="content"):
                tile_row(run, read, group, marks)
    if state.selected is not None and state.selected[0] != "concealed":
        fix_tile(run, *state.selected)
    with st.expander(t("加牌、加減副露、用文字輸入"), expanded=draft.empty):
        add_tiles(run, read)


def tile_row(run: Run, read: Read, group: str, marks: dict) -> None:
    """One group's tiles, a tap selecting one (⚠: a box the reader was unsure of, `marks` by box); a meld whose kind
    is not said yet asks for it here."""
    t, script, state = run.t, run.script, hand_state()
    draft, label = state.draft, run.group_label(state.draft, group)
    slots = draft.slots(group)
    m = meld_index(group) if group.startswith("meld:") else None
    if m is not None and draft.melds[m].kind is None:
        meld_kind(run, read, m)  # to be said here; a kind said is changed in the fold below
    if slots:
        tile_labels = distinct([("⚠" if s.det is not None and marks.get(s.det) else "") + tile_label(s.code, script)
                                for s in slots])
        st.pills(
            label, range(len(slots)), key=f"tiles-{group}-{state.version}", on_change=on_select,
            args=(group, state.version), format_func=tile_labels.__getitem__,
            label_visibility="collapsed" if m is not None and draft.melds[m].kind is None else "visible",
        )
    else:
        st.caption(f"{label}：" + t("（空）"))


def meld_kind(run: Run, read: Read, m: int) -> None:
    """吃, 碰, 明槓 or 暗槓 for meld `m`."""
    t, script, state = run.t, run.script, hand_state()
    kind = state.draft.melds[m].kind
    st.selectbox(run.group_label(state.draft, f"meld:{m}"), list(MELD_SIZE),
                 index=None if kind is None else list(MELD_SIZE).index(kind),
                 format_func=lambda k: t(KIND_NAMES[k]), key=f"kind-{m}-{script}-{state.version}",
                 on_change=on_kind, args=(m, read.proposal, state.version, script),
                 placeholder=t("選擇吃、碰、明槓或暗槓"))


def fix_tile(run: Run, group: str, index: int) -> None:
    """The tile tapped (its group and place): what it is, and the picker that replaces it (or remove it, make it the
    winning tile, take it out of the row with the tiles a meld of it needs)."""
    t, script, state = run.t, run.script, hand_state()
    st.markdown(t(f"**已選取**：{run.group_label(state.draft, group)}的「"
                  f"{tile_label(state.draft.slots(group)[index].code, script)}」"))
    with st.container(horizontal=True):
        st.button(t("刪除這張"), on_click=on_tile, args=(lambda d, s: remove_tile(d, *s),))
        if group == "concealed":
            st.button(t("設為胡的那張"), on_click=on_tile, args=(lambda d, s: set_win(d, s[1]),))
            for kind in MELD_SIZE:  # a meld the reader read into the row, taken out with the tiles it needs
                if meld_from_concealed(state.draft, index, kind) is not None:
                    st.button(t(f"拿出來當{KIND_NAMES[kind]}"), key=f"out-{kind}",
                              on_click=on_tile, args=(partial(_out_as, kind=kind),))
        st.button(t("取消選取"), on_click=on_tile, args=(None,))
    faces(run, t("點一張牌換掉它："))


def _out_as(draft: Draft, selected: tuple[str, int], kind: MeldKind) -> Draft:
    return meld_from_concealed(draft, selected[1], kind) or draft


def faces(run: Run, label: str) -> None:
    """The 43 faces: a tap replaces the tile selected, or adds one to the group tiles are added to."""
    state = hand_state()
    st.pills(label, TILE_CODES, key=f"face-{state.version}", on_change=on_face, args=(state.version,),
             format_func=lambda code: tile_label(code, run.script))


def add_tiles(run: Run, read: Read) -> None:
    """Tiles added to a group (while none is selected: the picker is at the tile then), melds' kinds said, melds added
    and removed, the hand emptied, the hand typed."""
    t, state = run.t, hand_state()
    draft = state.draft
    for m, meld in enumerate(draft.melds):
        if meld.kind is not None:
            meld_kind(run, read, m)
    if state.selected is None:
        choice(t("點牌加到："), draft.groups(), field("target"), partial(run.group_label, draft))
        faces(run, t("點牌加入（點上面的牌可以換掉或刪除它）："))
    with st.container(horizontal=True):
        for kind in MELD_SIZE:
            st.button(t(f"＋{KIND_NAMES[kind]}"), key=f"new-{kind}", on_click=on_new_meld, args=(kind,))
        for m, meld in enumerate(draft.melds):
            st.button(t(f"刪除副露 {m + 1}"), key=f"drop-meld-{m}-{state.version}", on_click=on_remove_meld, args=(m,))
            if meld.tiles and None not in (s.code for s in meld.tiles):  # a kong's unnamed backs are no hand tiles
                st.button(t(f"副露 {m + 1} 放回手牌"), key=f"unmeld-{m}-{state.version}", on_click=on_meld_to_concealed,
                          args=(m,))
        st.button(t("清空手牌"), on_click=start_over)
    text(t("或用文字輸入手牌"), field("text"), on_text, placeholder="123m 456p 789s 123s 11z 55z 和5z 碰777z 花1f",
         help=t("萬 m、筒 p、條 s、字 z（1-7：東南西北中發白）、花 f；也可寫中文牌名，如 一萬二萬三萬。"
                "「和」後面是胡的那張（沒寫就是最後一張）；「吃／碰／槓／暗槓」後面接副露，到空格為止。"))
    st.button(t("讀入文字"), on_click=on_text)
    if state.text_error:
        st.error(t("看不懂這手牌：" + state.text_error))
    if not draft.empty:
        st.caption(t("文字：") + to_text(draft))


def situation(run: Run, judged: Judged) -> None:
    """③ who won and how and the dealer, each one row of seats; a kong's origin where the 台 depend on it; folded
    until asked for: the round, the flags, 連莊 and the stakes."""
    t, who, state = run.t, run.who, hand_state()
    st.subheader(t("③ 牌局"))
    won = table_state().aside_winners() if run.desk is not None else ()  # of the discard being entered (一炮多響)
    choice(t("誰胡了"), [s for s in SEATS if s not in won], field("winner"), who)
    choice(t("怎麼胡"), ([] if won else ["self"]) + [s for s in SEATS if s != state.winner and s not in won],
           field("how"), lambda h: t("自摸") if h == "self" else who(h) + t(" 放槍"))
    choice(t("莊家"), SEATS, field("dealer"), who)
    ask_kong_origins(run, judged.hand)
    stakes = table_rules(state.ruleset).settlement
    with st.expander(t("圈風、連莊、海底、槓上、聽牌、天地胡、底與每台")):
        choice(t("圈風"), tuple(Wind), field("round"), lambda w: t(f"{wind_label(w, run.script)}風圈"))
        if state.winner is not None:
            wind = wind_label(seat_wind(state.winner, state.dealer), run.script)
            st.caption(t(f"門風（由胡牌的人和莊家決定）：{wind}"))
        with st.container(horizontal=True):
            for key, label in FLAGS.items():
                st.checkbox(t(label), key=key)
        st.caption(t("開局與補花（地胡、人胡、天聽、地聽、花上自摸：常見、比賽、改良式規則才算）"))
        with st.container(horizontal=True):
            for key, label in FIRST_TURN.items():
                st.checkbox(t(label), key=key)
        with st.container(horizontal=True):
            number(t("連莊次數"), field("streak"), min_value=0, max_value=MAX_STREAK, step=1, width=96)
            number(t("底"), field("base"), table_setting(run), min_value=0, max_value=MAX_STAKE, step=10, width=96,
                   disabled=not stakes.base)  # a table without 底 pays none, whatever the box says
            number(t("每台"), field("per_tai"), table_setting(run), min_value=0, max_value=MAX_STAKE, step=10,
                   width=96)  # three to a line in the fold at 390 px
        st.caption(t(stake_words(stakes)))


def table_setting(run: Run):
    """At a table its 底, 每台 and rules are the table's (every phone's): a change here is saved to the table."""
    return None if run.desk is None else partial(table_desk.on_stakes, run.desk)


def ask_kong_origins(run: Run, built: Hand | None) -> None:
    """大明槓 or 加槓, for each open kong whose origin the 台 depend on at this table (a photo shows
    both alike: `kong_origins_needed` says when it matters, and only then is it asked). Asked of
    the hand (`built`: the draft made a hand, None where a tile or a meld kind is still missing: ② says so) as if
    no origin were said yet, so the question stays to be changed once answered."""
    state = hand_state()
    draft = state.draft
    if built is None:
        return
    unsaid = built.replace(self_draw=state.how == "self", melds=tuple(Meld(m.kind, m.tiles) for m in built.melds))
    for m in kong_origins_needed(unsaid, table_rules(state.ruleset)):
        face = tile_label(draft.melds[m].tiles[0].code, run.script)
        choice(run.t(f"副露 {m + 1}（{face}的明槓）是怎麼槓的？這個規則的台數要看它"), KONG_ORIGINS, origin_asked(m),
               run.origin_label)


def origin_asked(m: int) -> Field:
    """Meld `m`'s kong origin as its question shows and sets it: the draft's, set by editing the draft."""
    def said() -> str | None:
        return hand_state().draft.melds[m].origin

    def say(origin: str) -> None:
        hand_state().edit(set_kong_origin(hand_state().draft, m, origin))

    return Field(f"kong_origin_{m}", said, say)


def result(run: Run, read: Read, judged: Judged, reading_choices: DeltaGenerator | None) -> None:
    """④ the 台 and who pays; the photo's other readings, each with its 台; at a table, recording the hand."""
    t, who, script, state, verdict = run.t, run.who, run.script, hand_state(), judged.verdict
    st.subheader(t("④ 台數"))
    if verdict is None:
        assert judged.why_not is not None
        (st.info if judged.why_not[0] == "prompt" else st.error)(t(judged.why_not[1]))
    else:
        with st.container(horizontal=True):  # the total beside its items: one block on a phone
            st.metric(t("合計"), f"{verdict.score.total} 台", width="content")
            rows = item_rows(verdict.score, script)
            if rows:
                st.table(rows, hide_index=True)
            else:
                st.caption(t("沒有任何台（屁胡）"))
        st.markdown(t("**誰付多少**"))
        st.table(payment_rows(verdict.payout, state.ruleset, script, who), hide_index=True)
        st.caption(net_line(verdict.payout, script, who))
    if reading_choices is not None and read.reading is not None and read.reading.runner_ups:
        with reading_choices, st.expander(t(f"照片的其他讀法（{len(read.reading.runner_ups)}）")):
            other_readings(run, read.reading, judged)
    if run.desk is not None:
        table_record.several_winners(run.desk, judged, script, next_hand, state.edit)  # 一炮多響, where allowed
        shown = photo_state().shown
        table_record.confirm(run.desk, judged, shown.id if shown else None, script, next_hand,
                             photo_lesson(run.desk, read))


def other_readings(run: Run, reading: PhotoReading, judged: Judged) -> None:
    """The best reading and each runner-up as one tap each, with the 台 the page would show after taking it (the
    hand on the page's as judged: not scored again)."""
    t, state, photos = run.t, hand_state(), photo_state()
    st.caption(t("點一下換成它，手牌會整個換掉。"))
    said = the_result()
    best = None
    for option in choices(reading, the_flags(), None if isinstance(said, str) else said,
                          int(state.base), int(state.per_tai), state.flags()["ready"], state.ruleset,
                          (state.draft, None if judged.verdict is None else judged.verdict.score.total)):
        tai = "" if option.tai is None else f"{option.tai} 台"  # none before the winner is said, or no win there
        if option.alternative is None:
            best = option.tai
            label = "：".join(filter(None, ("最可能的讀法", tai)))
        else:
            delta = "" if best is None or option.tai is None else f"（{option.tai - best:+d}）"
            words = "、".join(d.text("traditional") for d in option.differs)
            label = "：".join(filter(None, (tai + delta, words))) or "另一種讀法"
        st.button(("✓ " if option.alternative == photos.taken else "") + t(label),
                  key=f"take-{option.alternative}", on_click=on_take, args=(reading, option.alternative),
                  disabled=option.alternative == photos.taken, width="stretch")


def dataset(run: Run, read: Read) -> None:
    """⑤ the photo and its boxes as the player fixed them, saved as training data."""
    t, shown, draft = run.t, photo_state().shown, hand_state().draft
    if read.proposal is None or shown is None:
        return
    with st.expander(t("⑤ 存成訓練資料")):
        save_photo(run, read.proposal, shown, draft)


def save_photo(run: Run, proposal: Proposal, shown: Photo, draft: Draft) -> None:
    """The data set's name and the button that saves the photo with its boxes named as the draft has them."""
    t = run.t
    st.text_input(t("資料集名稱（空白：直接存在資料集資料夾）"), key="dataset_name", max_chars=64,
                  help=t(f"存在伺服器啟動時選的資料夾 {dataset_root()} 裡（環境變數 TAISHU_DATASET_ROOT）。"))
    if st.button(t("把這張照片加入我的資料集")):
        codes = box_codes(proposal, draft)
        try:
            saved = save_example(dataset_root(), st.session_state.dataset_name, shown.id, shown.opened.pixels(),
                                 proposal.boxes, codes)
        except DatasetError as exc:
            st.error(t("存不進去：" + str(exc)))
        except OSError as exc:
            st.error(t("存不進去：") + str(exc))
        except PhotoError as exc:
            st.error(t("存不進去：") + exc.notice.text(run.script))
        else:
            unboxed = sum(s.det is None for s in draft.all_slots())
            st.success(t(f"已存入 {saved.image}（{saved.boxes} 個框）。")
                       + (t(f"有 {unboxed} 張牌是你加的，照片上沒有它的框，沒有存進標註。") if unboxed else ""))


def evening(run: Run) -> None:
    """The rules the hand is scored under, and at a table the evening so far."""
    with st.expander(run.t("規則")):
        pick(run.t("台數規則"), available_rulesets(), field("ruleset"), lambda r: ruleset_label(r, run.script),
             table_setting(run))
    if run.desk is not None:
        table_history.render(run.desk, run.script, hand_state().edit)


# -- the page -----------------------------------------------------------------------------------------
st.set_page_config(page_title="台數 taishu", page_icon="🀄", layout="centered", initial_sidebar_state="collapsed")
script = page_script()  # ?script= in the address (ui/chrome.py); Streamlit's own words in it too
page = st.sidebar.radio(in_script("頁面", script), ("台數", teach_page.PAGE, "資料集檢查"), key="page",
                        format_func=lambda page: in_script(page, script))
if page == "資料集檢查":  # ui/audit_page.py
    audit_page.render(script)
    st.stop()
if page == teach_page.PAGE:  # the table's own set, taught from a photo (ui/teach_page.py)
    teach_page.render(script, tile_detector)
    st.stop()
st.session_state.setdefault("dataset_name", "")
# Keep it although its widget is not drawn on every run (Streamlit drops a hidden widget's value).
st.session_state.dataset_name = st.session_state.dataset_name
phone, first_run = resume.phone()  # ?phone= in the address: a reload gets this phone's hand back
if first_run:
    resume.give_back(resume.left(phone, st.query_params.get("table")))

run, summary = top()
read = upload(run)
judged = judge_page(run)  # the hand as it is now, once: every section below speaks of it
with summary:
    summary_bar(run, judged)
reading_choices = photo(run, read, judged)
hand(run, read)
situation(run, judged)
result(run, read, judged, reading_choices)
dataset(run, read)
evening(run)
resume.keep(phone, resume.now(st.query_params.get("table"), read.data))
