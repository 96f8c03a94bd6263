"""The "teach this set" page: a table whose set the models read badly (most often its flowers)
photographs the eight flowers, or any tiles, in a row; the page shows the tiles found, numbered in
reading order and named as the models (with the table's memory) read them; the player taps a tile, then
its real face, or leaves it out; saving teaches them to the table's memory in the ledger
(`ui/table_memory.py`), which every phone at the table then reads its photos with. The page also says
what the table remembers and resets it (asked first). Its words are in the player's script.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import streamlit as st

from ledger import Ledger, LedgerError, table_code
from scoring.script import in_script_of
from scoring.tiles import tile_name
from ui import table_memory
from ui.photo import PHOTO_TYPES, photo_id
from ui.picture import Picture, jpeg
from ui.table import db_path
from ui.text import in_script
from vision.classes import CLASSES
from vision.detections import Detections
from vision.layout import group_rows, in_reading_order
from vision.model_files import ModelError
from vision.notices import Notice
from vision.photo import Photo, PhotoError, open_photo, turned_level
from vision.read import askew_angle

log = logging.getLogger("taishu")
PAGE = "教認牌組"  # its name in the sidebar (app.py)
HOME = "台數"
ss = st.session_state


@dataclass(frozen=True)
class Place:
    """The table a page teaches: its ledger and code (what `ui.table_memory` needs of a desk)."""

    ledger: Ledger
    code: str


def go_to(page: str) -> None:
    ss.page = page  # the sidebar's choice (app.py), set before it is drawn again


def render(script: str, detector_of: Callable[[], object]) -> None:
    t = in_script_of(script)

    ss.setdefault("teach_uploads", 0)
    st.title(t("教認這一桌的牌"))
    st.caption(t("這一桌的牌和模型見過的長得不一樣時（常常是花牌）：把八張花牌（或任何牌）排成一排拍下來，"
                 "點每一張、選它真正的牌，再按「記住」。之後這一桌的照片都照它讀，同桌的手機也是。"))
    st.button(t("回到台數"), on_click=go_to, args=(HOME,))
    place = _place(script)
    if place is None:
        return
    try:
        detector = detector_of()
    except ModelError as exc:
        st.error(t("沒有可用的模型：") + exc.notice.text(script))
        return
    classifier = table_memory.classifier_of(detector)
    if classifier is None:
        st.warning(Notice.of("memory-no-embedding").text(script))
        return
    try:
        found = table_memory.remembered(place.ledger, place.code, place.ledger.memory_revision(place.code), classifier)
    except LedgerError as exc:
        st.error(t("牌桌的帳本打不開：" + str(exc)))
        return
    _what_it_remembers(place, found, script)
    if ss.get("teach_note"):
        st.success(t(ss.pop("teach_note")))
    if ss.get("teach_error"):
        st.error(t("沒有記住：" + ss.pop("teach_error")))
    upload = st.file_uploader(t("上傳一排牌的照片（手機會提供拍照）"), type=PHOTO_TYPES,
                              key=f"teach-upload-{ss.teach_uploads}", help=t("JPG、PNG、WebP 或 iPhone 的 HEIC。"))
    if upload is None:
        ss.teach_photo = None
        return
    shown = _read(upload.getvalue(), detector, place, found, script)
    if shown is not None:
        _name_tiles(shown, place, classifier, script)


def _place(script: str) -> Place | None:
    """The table of `?table=`, or None (and what to do) where there is none or its file fails."""
    raw = st.query_params.get("table")
    if raw is None:
        st.info(in_script("先在「台數」頁開桌（牌桌代號）：教的牌記在那一桌，同桌的手機都用得到。", script))
        return None
    try:
        code = table_code(raw)
        place = Place(Ledger(db_path()), code)
        place.ledger.revision(code)  # the table is there (opened on the main page)
    except LedgerError as exc:  # no such table (a link to this page itself), or its file fails
        st.error(in_script("這一桌的牌記不了：" + str(exc), script))
        return None
    st.info(in_script(f"牌桌 {code}", script))
    return place


def _what_it_remembers(place: Place, found: table_memory.Remembered, script: str) -> None:
    """What the table remembers, what is wrong with it, and the reset (asked first)."""
    t = in_script_of(script)

    if found.problem:
        st.warning(t(f"這一桌記住的牌用不了（{found.problem}）：讀牌時先不用它；再教一次就從頭記起，或清除它。"))
    memory = found.memory
    if memory is not None and len(memory):
        counts = memory.counts()
        flowers = [tile_name(c, script) for c in counts if c.endswith("f")]
        st.caption(t(f"這一桌記得 {len(counts)} 種牌、{len(memory)} 個樣子")
                   + (t("；花牌：") + "、".join(flowers) if flowers else "") + t("。"))
    elif not found.problem:
        st.caption(t("這一桌還沒有記住任何牌。"))
        return
    if ss.get("teach_confirm") == ("reset", place.code, found.revision):
        st.warning(t("確定清除這一桌記住的牌？同桌的手機也都會忘掉，要重新教。"))
        with st.container(horizontal=True):
            st.button(t("確定清除"), type="primary", on_click=_reset, args=(place,))
            st.button(t("不要清除"), on_click=_ask, args=(None,))
    else:
        st.button(t("清除這一桌記住的牌"), on_click=_ask, args=(("reset", place.code, found.revision),))


def _ask(question: tuple | None) -> None:
    ss.teach_confirm = question


def _reset(place: Place) -> None:
    ss.teach_confirm = None
    try:
        place.ledger.reset_memory(place.code)
    except LedgerError as exc:
        ss.teach_error = str(exc)
    else:
        ss.teach_note = "這一桌記住的牌清除了。"


def _read(data: bytes, detector, place: Place, found: table_memory.Remembered, script: str) -> dict | None:
    """The photo's tiles in reading order with the models' names for them (read once per photo)."""
    pid = photo_id(data)
    shown = ss.get("teach_photo")
    if shown is not None and shown["id"] == pid:
        return shown
    try:
        photo = open_photo(data)
    except PhotoError as exc:
        st.error(in_script("這個檔案不能當照片讀：", script) + exc.notice.text(script))
        return None
    try:
        with st.spinner(in_script("讀牌中…", script)):
            image, dets = _read_level(photo, detector, table_memory.for_reading(place, found.revision, detector).memory)
    except Exception as exc:  # noqa: BLE001 - a reader failure must leave the page usable, as on the main page
        log.exception("reading a photo to teach failed")
        st.error(Notice.of("reading-failed", error=f"{type(exc).__name__}: {exc}").text(script))
        return None
    dets = in_reading_order(dets, group_rows(dets))
    codes = tuple(dets.raw_codes) if len(dets) else ()  # as read: what the names start from
    ss.teach_photo = shown = {"id": pid, "image": image, "picture": Picture.of(image), "boxes": dets.boxes,
                              "read": codes, "codes": codes, "version": _new_version()}
    return shown


def _new_version() -> int:
    """A number this session has not keyed a row of pills with yet. The page's run ends in st.stop(), and Streamlit
    forgets the widgets a run did not draw only after a run that was not stopped: a key used again (the next photo's
    first row, numbered from 0) came back with the tap made under it before, a face picker open for a tile nobody
    tapped."""
    ss.teach_versions = ss.get("teach_versions", 0) + 1
    return ss.teach_versions


def _read_level(photo: Photo, detector, memory) -> tuple[np.ndarray, Detections]:
    """The photo's tiles, a phone's JPEG decoded as finely as they need (`TileDetector.look`, as the reader decodes
    it); where its row lies askew, the photo turned level and its tiles, when they are surer of more (the sum of
    their confidences): a row at 30-45 degrees loses tiles read as it is (`vision.read`, `read_level`). The photo
    shown and taught from is the one read, its tiles' crops cut from the pixels the reader cuts them from."""
    reduction, first = detector.look(photo) if photo.reducible and hasattr(detector, "look") else (1, None)
    image = photo.pixels(reduction)
    dets = detector.read(image, memory=memory, **({} if first is None else {"first": first}))
    angle = askew_angle(dets.boxes)
    if angle:
        level = turned_level(image, angle)
        level_dets = detector.read(level, memory=memory)
        if level_dets.confidences.sum() > dets.confidences.sum():
            return level, level_dets
    return image, dets


def _name_tiles(shown: dict, place: Place, classifier, script: str) -> None:
    """The photo with its tiles numbered; a tap on a tile and one on a face names it; then save."""
    t = in_script_of(script)

    codes, n = shown["codes"], len(shown["codes"])
    if not n:
        st.image(jpeg(shown["picture"].image))
        st.warning(t("照片上沒有找到牌：拍近一點、光線亮一點，牌排成一排再拍一次。"))
        return
    named = [codes[i] != shown["read"][i] for i in range(n)]
    st.image(jpeg(shown["picture"].drawn(shown["boxes"], [str(i + 1) for i in range(n)], named)),
             caption=t(f"找到 {n} 張牌（紅框：你改過的）。點一張，再點它真正的牌；不是牌的就不要記它。"))
    version = shown["version"]
    picked = st.pills(t("照片上的牌（號碼同框上的號碼）"), range(n), key=f"teach-pick-{version}",
                      format_func=lambda i: f"{i + 1} " + (t("不記") if codes[i] is None
                                                           else tile_name(codes[i], script)))
    if picked is not None:
        st.pills(t(f"第 {picked + 1} 張是："), CLASSES, key=f"teach-face-{version}", on_change=_name,
                 args=(picked,), format_func=lambda c: tile_name(c, script))
        st.button(t("不記這一張（不是牌、拍壞了）"), on_click=_leave_out, args=(picked,))
    kept = [i for i in range(n) if codes[i] is not None]
    if len(kept) > 1:  # a close-up of one tile is read with slivers of its base as tiles: one tap, not one each
        st.button(t("這張照片只有一張牌：只記最大的那張"), on_click=_keep_largest)
    st.button(t(f"記住這 {len(kept)} 張牌"), type="primary", disabled=not kept, on_click=_save,
              args=(place, classifier, shown))


def _set_codes(codes: tuple[str | None, ...]) -> None:
    """The photo's tiles named `codes` (None: left out); new widget keys, so the row starts with nothing picked."""
    ss.teach_photo = {**ss.teach_photo, "codes": codes, "version": _new_version()}


def _set_code(i: int, code: str | None) -> None:
    codes = ss.teach_photo["codes"]
    _set_codes(codes[:i] + (code,) + codes[i + 1:])


def _name(i: int) -> None:
    code = ss.get(f"teach-face-{ss.teach_photo['version']}")
    if code is not None:
        _set_code(i, code)


def _leave_out(i: int) -> None:
    _set_code(i, None)


def _keep_largest() -> None:
    """The photo shows one tile: its largest box is that tile (kept, as named or else as read), every other left
    out (what a close-up adds are slivers: of the tile's base, of its neighbours at the edge)."""
    shown = ss.teach_photo
    boxes = np.asarray(shown["boxes"])
    largest = int(((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).argmax())
    _set_codes(tuple((shown["codes"][i] or shown["read"][i]) if i == largest else None for i in range(len(boxes))))


def _save(place: Place, classifier, shown: dict) -> None:
    kept = [i for i, c in enumerate(shown["codes"]) if c is not None]
    codes = [shown["codes"][i] for i in kept]
    try:
        memory = table_memory.teach(place.ledger, place.code, classifier, shown["image"],
                                    np.asarray(shown["boxes"])[kept], codes)
    except LedgerError as exc:
        ss.teach_error = str(exc)
        return
    names = "、".join(tile_name(c, "traditional") for c in codes)
    ss.teach_note = f"記住了 {len(codes)} 張牌：{names}。這一桌現在記得 {len(memory.counts())} 種牌。"
    ss.teach_photo = None
    ss.teach_uploads += 1  # a new, empty uploader for the next photo
