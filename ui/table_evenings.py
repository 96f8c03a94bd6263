"""The table's evenings (`render`, under the evening's lines): closing the evening (asked first: the next one opens,
its seats and 起莊 asked again), each player's figures across every evening (`ledger.player_figures`), and the
whole history as CSV and as JSON (`docs/ledger-json.md`). The history is read again only when the table's
revision moved, and its files are made only when their button is tapped (a run costs no more on a table of many
evenings). A player's biggest hand shows its photo, small, where it was saved to the data set (`ui.dataset`).
"""

from __future__ import annotations

import json
from functools import lru_cache, partial
from pathlib import Path

import cv2
import streamlit as st

from ledger import (
    Conflict,
    History,
    LedgerError,
    PlayerFigures,
    TableInfo,
    history_json,
    player_figures,
    write_history_csv,
)
from scoring.script import in_script_of
from ui.dataset import dataset_root, saved_photo
from ui.picture import jpeg
from ui.state import Desk, table_state
from ui.table import player_name, spreadsheet_file
from ui.text import in_script
from vision.photo import resized


def _history(desk: Desk) -> History:
    at = table_state()
    key = (str(desk.ledger.path), desk.code, desk.table.revision)
    if at.history is None or at.history[0] != key:
        at.history = (key, desk.ledger.history(desk.code))
    return at.history[1]


def figure_rows(table: TableInfo, figures: dict[int, PlayerFigures], script: str) -> list[dict[str, object]]:
    """One row per player who sat in any hand, by name (a seat is tonight's): net, hands, won, 自摸, 放槍, 詐胡, 詐摸,
    the biggest hand."""
    t = in_script_of(script)

    rows = []
    for who, f in figures.items():
        if not f.hands and not f.net:
            continue
        big = f.biggest
        rows.append({t("誰"): player_name(table, who, script), t("輸贏"): f.net, t("局數"): f.hands,
                     t("胡"): f.won, t("自摸"): f.self_drawn, t("放槍"): f.dealt_in, t("詐胡"): f.false_wins,
                     t("詐摸"): f.false_draws,
                     t("最大一手"): "" if big is None else t(f"{big.tai} 台（第 {big.evening} 晚第 {big.seq} 局）")})
    return rows


def history_csv(history: History) -> bytes:
    """The history's CSV file."""
    return spreadsheet_file(write_history_csv(history))


def history_file(history: History) -> bytes:
    """The history's JSON file (docs/ledger-json.md)."""
    return json.dumps(history_json(history), ensure_ascii=False, indent=1).encode("utf-8")


def render(desk: Desk, script: str) -> None:
    t = in_script_of(script)

    try:
        history = _history(desk)
    except LedgerError as exc:
        st.error(t("之前幾晚的帳讀不出來：" + str(exc)))
        return
    with st.expander(t(f"每位玩家（全部 {len(history.evenings)} 晚）、匯出、結束這一晚")):
        figures = player_figures(history)
        rows = figure_rows(desk.table, figures, script)
        if rows:
            with st.container(key="figures"):  # its words are not broken inside (ui/chrome.py's style)
                st.table(rows, hide_index=True)
        _biggest_photos(desk.table, figures, script)
        if history.damaged:
            st.caption(t(f"有 {history.damaged} 局讀不出來，沒有算進去。"))
        stem = f"taishu-{desk.code}-history"
        with st.container(horizontal=True):  # each file made when its button is tapped, not on every run
            st.download_button(t("匯出全部（CSV）"), partial(history_csv, history), file_name=f"{stem}.csv",
                               mime="text/csv", on_click="ignore")  # no rerun
            st.download_button(t("匯出全部（JSON）"), partial(history_file, history), file_name=f"{stem}.json",
                               mime="application/json", on_click="ignore")
        if desk.hands:
            _close(desk, script)


THUMB_WIDTH = 160  # px on the page: a biggest hand's photo, small


def _biggest_photos(table: TableInfo, figures: dict[int, PlayerFigures], script: str) -> None:
    """Each player's biggest hand, small, where its photo was saved to the data set (⑤), named beneath."""
    root = dataset_root()
    with st.container(horizontal=True):
        for who, f in figures.items():
            big = f.biggest
            path = None if big is None or big.photo_id is None else saved_photo(root, big.photo_id)
            small = None if path is None else _thumbnail(path)
            if big is not None and small is not None:
                st.image(small, width=THUMB_WIDTH, caption=player_name(table, who, script) + in_script(
                    f" 最大一手 {big.tai} 台（第 {big.evening} 晚第 {big.seq} 局）", script))


def _thumbnail(path: Path) -> bytes | None:
    """The photo at `path` as a small JPEG (made once for each version of the file); None where it does not read."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return _small(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=16)
def _small(path: str, _mtime_ns: int, _size: int) -> bytes | None:
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        return None
    width = 2 * THUMB_WIDTH  # sharp on a phone's screen
    if image.shape[1] > width:
        image = resized(image, (width, max(1, round(image.shape[0] * width / image.shape[1]))))
    return jpeg(image)


def _close(desk: Desk, script: str) -> None:
    """結束這一晚, asked first; refused when another phone changed the evening since this page read it."""
    t = in_script_of(script)

    at, rev = table_state(), desk.table.revision
    if at.asked and at.asked[0] == "close" and at.asked[1] != rev:
        st.warning(t("別的手機剛改了帳，這一晚沒有結束：看過現在的帳再決定。"))
        at.asked = None
    if at.asked != ("close", rev):
        st.button(t(f"結束這一晚（第 {desk.table.evening} 晚）"), on_click=at.ask, args=(("close", rev),))
        return
    st.warning(t("確定結束這一晚？帳會留著；下一晚從零算起，座位和起莊再排一次。"))
    with st.container(horizontal=True):
        sure = st.button(t("確定結束這一晚"), type="primary")
        st.button(t("還沒打完"), on_click=at.ask, args=(None,))
    if sure:
        at.asked = None
        try:
            desk.ledger.close_evening(desk.code, rev)
        except Conflict as exc:
            st.warning(t(str(exc)))
            return
        except LedgerError as exc:
            st.error(t("結束不了：" + str(exc)))
            return
        st.rerun()
