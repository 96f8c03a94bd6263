"""The table's ledger in the app. `?table=CODE` opens the evening that every phone at the table
shares (the file: `ui.table.db_path()`); the app calls three functions:

- `open_desk` before the situation widgets: reads the table, fills in the next deal (莊家, 連莊,
  圈風) and the table's 底, 每台 and ruleset whenever the ledger changed (on any phone), and shows
  the table's line, its link and QR code, its settings;
- `confirm` under the result: records the hand as shown (or a 流局, or the hand being edited),
  as the hand number the page showed, so two phones confirming one hand record it once;
- `render` at the bottom: totals, chart, hands newest first, undo, edit, CSV.

A failing ledger file shows its message and leaves the hand on the page as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from ledger import (
    Conflict,
    Deal,
    Entry,
    Ledger,
    LedgerError,
    Recorded,
    TableInfo,
    deal_after,
    draw,
    table_code,
    win,
    write_csv,
)
from scoring.hand import ALL_FLAGS, Hand
from scoring.ruleset import available_rulesets
from scoring.tiles import WINDS
from ui.chart import evening_chart
from ui.draft import Draft, from_hand
from ui.result import Outcome
from ui.table import (
    chart_columns,
    clean_name,
    db_path,
    deal_text,
    hand_rows,
    qr_png,
    result_text,
    table_link,
    totals_rows,
)
from ui.text import SCRIPTS, in_script, ruleset_label, seat_label

ss = st.session_state


@dataclass(frozen=True)
class Desk:
    """The table this page is at, as read at the top of this run."""

    ledger: Ledger
    table: TableInfo
    hands: list[Recorded]

    @property
    def code(self) -> str:
        return self.table.code

    @property
    def deal(self) -> Deal:
        return deal_after(self.table, self.hands)

    @property
    def next_seq(self) -> int:
        return len(self.hands) + 1


def _set_choice(name: str, value: str) -> None:
    # app.choice keeps one radio per script, started from ss[name]: drop them so they start again.
    ss[name] = value
    for script in SCRIPTS:
        ss.pop(f"{name}-{script}", None)


def _fill_in(desk: Desk) -> None:
    deal, table = desk.deal, desk.table
    _set_choice("dealer", deal.dealer)
    _set_choice("round", deal.round)
    ss.streak, ss.base, ss.per_tai = deal.streak, table.base, table.per_tai
    if table.ruleset in available_rulesets():
        ss.ruleset = table.ruleset


def _go_to_table() -> None:
    try:
        st.query_params["table"] = table_code(ss.table_code_input)
        ss.table_error = None
    except LedgerError as exc:
        ss.table_error = str(exc)


def _leave() -> None:
    st.query_params.pop("table", None)
    ss.table_seen = ss.table_editing = None


def open_desk(script: str, busy: bool) -> Desk | None:
    """The table of `?table=`, or None (and a way to open one) when there is none or its file fails.
    `busy`: a hand is being entered; then a change made by another phone does not move this page
    to the next deal (the hand would be recorded under the wrong one): recording it is checked."""
    def t(text: str) -> str:
        return in_script(text, script)

    raw = st.query_params.get("table")
    if raw is None:
        with st.expander(t("牌桌：記下整晚每一局、自動換莊、算總帳")):
            st.text_input(t("牌桌代號（同桌的手機用同一個）"), key="table_code_input", max_chars=24,
                          placeholder=t("例如 0701"))
            st.button(t("開桌"), on_click=_go_to_table)
            if ss.get("table_error"):
                st.error(t(ss.table_error))
        return None
    try:
        code = table_code(raw)
        ledger = Ledger(db_path())
        ledger.open_table(code, ss.base, ss.per_tai, ss.ruleset)
        desk = Desk(ledger, *ledger.state(code))
    except LedgerError as exc:
        st.error(t("牌桌的帳本打不開，這一手還是可以算：" + str(exc)))
        st.button(t("離開牌桌"), on_click=_leave, key="leave-broken")
        return None
    seen, refresh = ss.get("table_seen"), ss.pop("table_refresh", False)
    if ss.get("table_editing") is None and seen != (code, desk.table.revision) and (
            not busy or refresh or seen is None or seen[0] != code):
        _fill_in(desk)
        ss.table_seen, ss.table_expect, ss.table_deal = (code, desk.table.revision), desk.next_seq, desk.deal
    st.info(t(f"牌桌 {code} · 第 {ss.table_expect} 局 · ") + deal_text(ss.table_deal, desk.table, script))
    if desk.next_seq != ss.table_expect and ss.get("table_editing") is None:
        st.caption(t(f"別的手機剛改了帳（現在記到第 {desk.next_seq - 1} 局）；記下這一手時會核對。"))
    with st.expander(t("邀請同桌的手機、牌桌設定")):
        _invite(desk, script)
        _settings(desk, script)
        st.button(t("離開牌桌"), on_click=_leave)
    return desk


def _invite(desk: Desk, script: str) -> None:
    link = table_link(st.context.url, desk.code)
    if link is None:
        st.caption(in_script(f"在別的手機打開這個網頁，加上 ?table={desk.code}", script))
        return
    st.code(link, language=None)
    st.image(qr_png(link), caption=in_script("用手機相機掃這個碼", script), width=220)


def _settings(desk: Desk, script: str) -> None:
    table, rev = desk.table, desk.table.revision

    def t(text: str) -> str:
        return in_script(text, script)

    with st.form(f"table-settings-{rev}"):
        names = [st.text_input(seat_label(w, script), value=table.names[i], max_chars=24, key=f"name-{w}-{rev}",
                               placeholder=t("名字（可不填）")) for i, w in enumerate(WINDS)]
        first = st.radio(t("起莊（第一個莊家；換圈以此為準）"), WINDS, index=WINDS.index(table.first_dealer),
                         format_func=lambda w: seat_label(w, script), horizontal=True, key=f"first-{rev}")
        base = st.number_input(t("底"), min_value=0, max_value=1_000_000, step=10, value=table.base, key=f"base-{rev}")
        per_tai = st.number_input(t("每台"), min_value=0, max_value=1_000_000, step=10, value=table.per_tai,
                                  key=f"per-tai-{rev}")
        rulesets = available_rulesets()
        ruleset = st.selectbox(t("台數規則"), rulesets, key=f"rules-{rev}-{script}",  # its labels: ui/chrome.py
                               format_func=lambda r: ruleset_label(r, script),
                               index=rulesets.index(table.ruleset) if table.ruleset in rulesets else 0)
        if st.form_submit_button(t("儲存牌桌設定")):
            try:
                desk.ledger.update_table(desk.code, tuple(clean_name(n) for n in names), first, int(base),
                                         int(per_tai), ruleset)
            except LedgerError as exc:
                st.error(t("存不進去：" + str(exc)))
            else:
                st.rerun()


def _write(desk: Desk, entry: Entry, expect: int, clear: Callable[[Draft], None]) -> None:
    """Record `entry` as hand `expect` (what the page showed when the button was pressed) or, while
    editing, in place of that hand. A callback: the next run shows what happened."""
    editing = ss.get("table_editing")
    try:
        done = (desk.ledger.edit(desk.code, editing, entry) if editing is not None
                else desk.ledger.record(desk.code, entry, expect))
    except Conflict as exc:
        last = exc.latest
        ss.table_conflict = str(exc) + (f"（第 {last.seq} 局：{result_text(last.entry, desk.table, 'traditional')}）"
                                        if last else "")
        ss.table_refresh = True  # show the deal as the ledger now has it; the hand stays
        return
    except LedgerError as exc:
        ss.table_failure = str(exc)
        return
    ss.table_editing = ss.table_seen = None
    ss.table_note = f"第 {done.seq} 局記好了：{result_text(done.entry, desk.table, 'traditional')}"
    clear(Draft())  # the next hand starts empty, its deal filled in from the ledger


def confirm(desk: Desk, outcome: Outcome | None, photo_id: str | None, script: str,
            clear: Callable[[Draft], None]) -> None:
    """The buttons that record this hand (or a 流局) at the table, exactly as shown on this run;
    `clear(draft)` empties the page's hand once it is recorded."""
    def t(text: str) -> str:
        return in_script(text, script)

    editing = ss.get("table_editing")
    expect = editing or ss.table_expect
    st.markdown(t(f"**修改第 {editing} 局**" if editing else f"**記到牌桌：第 {expect} 局**"))
    if ss.get("table_conflict"):
        st.warning(t(ss.pop("table_conflict") + "。這一手還在：若是同一局就不用再記；不是的話，莊家和連莊已換成"
                                                  "現在的下一局，看過後再記一次。"))
    if ss.get("table_failure"):
        st.error(t("沒有記進牌桌（這一手還在）：" + ss.pop("table_failure")))
    if ss.get("table_note"):
        st.success(t(ss.pop("table_note")))
    with st.container(horizontal=True):
        if outcome is not None:
            entry = win(outcome.hand, outcome.score, outcome.settlement, ss.dealer, photo_id)
            st.button(t("更新這一局" if editing else "胡了，記下這一局"), type="primary", on_click=_write,
                      args=(desk, entry, expect, clear))
        st.button(t("記成流局" if editing else "流局（沒人胡）"), on_click=_write,
                  args=(desk, draw(Deal(ss["round"], ss.dealer, ss.streak)), expect, clear))
        if editing:
            st.button(t("取消修改"), on_click=_cancel_edit)


def _cancel_edit() -> None:
    ss.table_editing = ss.table_seen = None


def _load(desk: Desk, seq: int, load: Callable[[Draft], None]) -> None:
    """Put hand `seq` back on the page to be fixed: its tiles, situation and deal."""
    entry = desk.hands[seq - 1].entry
    _set_choice("dealer", entry.deal.dealer)
    _set_choice("round", entry.deal.round)
    ss.streak = entry.deal.streak
    if entry.hand is None:
        load(Draft())
    else:
        hand = Hand.from_json(entry.hand)
        _set_choice("seat", hand.seat)
        _set_choice("how", "self" if hand.self_draw else entry.discarder)
        for flag in ALL_FLAGS:
            ss[flag] = getattr(hand.situation, flag)
        ss.ready, ss.base, ss.per_tai = hand.table.declared_ready, hand.table.base, hand.table.per_tai
        if entry.ruleset in available_rulesets():
            ss.ruleset = entry.ruleset
        load(from_hand(hand))
    ss.table_editing = seq


def _undo(desk: Desk, seq: int) -> None:
    try:
        desk.ledger.undo(desk.code, seq)
    except Conflict as exc:  # hands were recorded after it meanwhile
        ss.table_conflict = str(exc)
    except LedgerError as exc:
        ss.table_failure = str(exc)
    ss.table_seen = None  # the deal goes back


def render(desk: Desk, script: str, load: Callable[[Draft], None]) -> None:
    """The evening so far; `load(draft)` puts a hand's tiles on the page (for editing it)."""
    def t(text: str) -> str:
        return in_script(text, script)

    st.subheader(t(f"⑥ 整晚的帳（牌桌 {desk.code}）"))
    if not desk.hands:
        st.caption(t("還沒有記任何一局。"))
        return
    st.table(totals_rows(desk.table, desk.hands, script), hide_index=True)
    st.altair_chart(evening_chart(chart_columns(desk.table, desk.hands, script), script))  # words in the script
    st.table(hand_rows(desk.table, desk.hands, script), hide_index=True)  # st.dataframe's menus are English
    last = desk.hands[-1].seq
    with st.container(horizontal=True):
        st.button(t(f"刪掉最後一局（第 {last} 局）"), on_click=_undo, args=(desk, last))
        seq = st.selectbox(t("修改第幾局"), [h.seq for h in reversed(desk.hands)], key="table_edit_pick",
                           width=120)
        st.button(t("修改這一局"), on_click=_load, args=(desk, seq, load))
    st.download_button(t("匯出整晚（CSV）"), ("\ufeff" + write_csv(desk.hands)).encode("utf-8"),
                       file_name=f"taishu-{desk.code}.csv", mime="text/csv")
