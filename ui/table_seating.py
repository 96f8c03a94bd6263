"""Who sits where (`seating`, at the top of the table, under its line): once a 將 has ended (the deal would come
back to 起莊 in the 北風圈) every phone says so and offers the next 將's seating, picked seat by seat or drawn at
random (抓位) by the ledger, so every phone shows the same; 起莊 is asked again (or drawn) and the next hand is
the 東風圈's first. Before the first hand of a 將 the seats may be drawn again the same way; a new player joins
here too (someone sitting in, or the host who takes the 東錢).
"""

from __future__ import annotations

import streamlit as st

from ledger import LedgerError, TableInfo
from scoring.script import in_script_of
from scoring.seats import SEATS
from ui.state import Desk
from ui.table import clean_name, player, player_name
from ui.text import seat_label

DRAW_DEALER = 4  # 起莊's fifth choice: drawn with the seats


def seating(desk: Desk, script: str) -> None:
    t = in_script_of(script)

    table, evening = desk.table, desk.evening
    number = table.jiang.number
    played = any(r.jiang == number for r in evening.rows)
    if evening.jiang_over:
        st.warning(t(f"第 {number} 將打完了（北風圈打完）：排好下一將的座位和起莊，下一局從東風圈打起。"))
        _form(desk, script)
        return
    if not played and (number > 1 or table.jiang.drawn):
        st.caption(t(f"第 {number} 將的座位{'（抽的）' if table.jiang.drawn else ''}：") + seating_text(table, script)
                   + t(f" · {table.first_dealer.zh}起莊"))
    if not played:
        with st.expander(t("排座位（抓位）、起莊、加入新玩家")):
            _form(desk, script)


def seating_text(table: TableInfo, script: str) -> str:
    """東家 阿明 · 南家 阿華 · 西家 · 北家 大雄"""
    return " · ".join(player(s, table, script) for s in SEATS)


def seating_version(desk: Desk) -> str:
    """The seating form's key: what it shows (the 將, its seats and 起莊, the players). Its button still sends the
    revision this run read, so a seating given on a page that another phone has moved since is refused."""
    table = desk.table
    return desk.form_key(table.jiang, table.seating, table.first_dealer, table.players)


def _form(desk: Desk, script: str) -> None:
    t = in_script_of(script)

    table, rev = desk.table, desk.table.revision
    key = seating_version(desk)
    ids = [p.id for p in table.players]
    with st.form(f"seating-{key}"):
        east, south, west, north = (st.selectbox(seat_label(s, script), ids, index=ids.index(table.seating[i]),
                                                 format_func=lambda p: player_name(table, p, script),
                                                 key=f"seat-{s.code}-{key}") for i, s in enumerate(SEATS))
        first = st.radio(t("起莊"), range(5), index=SEATS.index(table.first_dealer), horizontal=True,
                         format_func=lambda i: t("抽") if i == DRAW_DEALER else seat_label(SEATS[i], script),
                         key=f"seat-first-{key}")
        with st.container(horizontal=True):
            given = st.form_submit_button(t("照這樣坐"), type="primary")
            drawn = st.form_submit_button(t("抽位（隨機排座位）"))
    chosen = (east, south, west, north)
    if given or drawn:
        if given and len(set(chosen)) < 4:
            st.error(t("一個人不能坐兩個位子：請每個位子選不同的人"))
            return
        try:
            desk.ledger.start_jiang(desk.code, rev, chosen if given else None,
                                    None if first == DRAW_DEALER else SEATS[first])
        except LedgerError as exc:
            st.error(t("排不了座位：" + str(exc)))
            return
        st.rerun()
    with st.form(f"join-{key}"):
        name = st.text_input(t("新玩家的名字"), max_chars=24, key=f"join-name-{key}")
        if st.form_submit_button(t("加入新玩家")):
            try:
                desk.ledger.add_player(desk.code, clean_name(name))
            except LedgerError as exc:
                st.error(t("加不進去：" + str(exc)))
                return
            st.rerun()
