"""The table this page is at (`?table=CODE`): the evening that every phone at the table shares (the file:
`ui.table.db_path()`), opened, watched and set up (the page's state at the table: `ui.state.TableState`).

`open_desk` runs first: it reads the table (again only when its revision moved: a long evening costs a rerun no
more than a short one), fills in the next deal (莊家, 連莊, 圈風) whenever the ledger changed on any phone (unless a
hand is being entered), puts the table's 底, 每台 and ruleset on the page on every run but an edit's (an old hand
is edited under the ones it was played under), and shows the table's line, its link and QR code, its settings, and
watches the table: a phone left alone runs again within WATCH_SECONDS of another phone's write (`_watch`).
What the page does at the table is in `ui/table_record.py` (recording a hand), `ui/table_history.py` (the
evening's lines, undo, edit), `ui/table_penalties.py` (詐胡, 罰款) and `ui/table_seating.py` (who sits where).
"""

from __future__ import annotations

import streamlit as st

from ledger import CUT_PER, CutRule, Ledger, LedgerError, TableInfo, table_code
from scoring.ruleset import available_rulesets, ruleset_stem
from scoring.script import in_script_of
from scoring.seats import SEATS
from ui import table_memory, table_phone, table_seating, teach_page
from ui.state import Desk, hand_state, table_state
from ui.table import NOBODY, clean_name, db_path, deal_text, player_name, qr_png, table_link
from ui.text import in_script, ruleset_label, seat_label

LINE_FORMS = ("false_win", "penalty")  # `TableState.asked`'s forms of a line that is no hand (ui/table_penalties.py)
WATCH_SECONDS = 3  # how often a page at a table asks whether another phone wrote to it (one small query)


def _read(ledger: Ledger, code: str) -> Desk:
    """The table's state, read from the file only when its revision moved since this page read it."""
    at = table_state()
    revision = ledger.revision(code)
    if at.cache is None or at.cache[0] != (str(ledger.path), code, revision):
        evening = ledger.state(code)
        at.cache = ((str(ledger.path), code, evening.table.revision), evening)
    return Desk(ledger, at.cache[1])


def _table_stakes(table: TableInfo) -> None:
    """The page's 底, 每台 and ruleset are the table's on every run but an edit's (an old hand keeps its own):
    whatever the session held meanwhile (another page shown, a phone changing them), the hand is scored and
    recorded under the table's."""
    ruleset = ruleset_stem(table.ruleset)
    hand_state().take_stakes(table.base, table.per_tai, ruleset if ruleset in available_rulesets() else None)


def on_stakes(desk: Desk) -> None:
    """③'s 底 or 每台, or the 規則, changed at a table: the table's (every phone's), not this page's alone; while a
    hand is edited, that hand's only."""
    if table_state().editing is not None:
        return
    hand = hand_state()
    try:
        desk.ledger.change_stakes(desk.code, int(hand.base), int(hand.per_tai), hand.ruleset)
    except LedgerError as exc:
        table_state().settings_error = str(exc)


def _go_to_table() -> None:
    try:
        st.query_params["table"] = table_code(st.session_state.table_code_input)  # its text box's own key
        table_state().error = None
    except LedgerError as exc:
        table_state().error = str(exc)


def _leave() -> None:
    st.query_params.pop("table", None)
    at = table_state()
    at.seen = at.editing = at.asked = None
    at.forget_lines()


def open_desk(script: str, busy: bool) -> Desk | None:
    """The table of `?table=`, or None (and a way to open one) when there is none or its file fails.
    `busy`: a hand is being entered; then a change made by another phone does not move this page
    to the next deal (the hand would be recorded under the wrong one): recording it is checked."""
    t = in_script_of(script)

    at, hand = table_state(), hand_state()
    raw = st.query_params.get("table")
    if raw is None:
        with st.expander(t("牌桌：記下整晚每一局、自動換莊、算總帳")):
            st.text_input(t("牌桌代號（同桌的手機用同一個）"), key="table_code_input", max_chars=24,
                          placeholder=t("例如 0701"))
            st.button(t("開桌"), on_click=_go_to_table)
            if at.error:
                st.error(t(at.error))
        return None
    try:
        code = table_code(raw)
        ledger = Ledger(db_path())
        if at.opened != (str(ledger.path), code):
            ledger.open_table(code, hand.base, hand.per_tai, hand.ruleset)
            at.opened = (str(ledger.path), code)
        desk = _read(ledger, code)
    except LedgerError as exc:
        at.opened = None
        st.error(t("牌桌的帳本打不開，這一手還是可以算：" + str(exc)))
        st.button(t("離開牌桌"), on_click=_leave, key="leave-broken")
        return None
    memory = table_memory.revision(desk)
    _watch(ledger, code, desk.table.revision, memory)
    if at.editing is None:
        _table_stakes(desk.table)
    seen, refresh = at.seen, at.refresh
    at.refresh = False
    if at.editing is None and seen != (code, desk.table.revision) and (
            not busy or refresh or seen is None or seen[0] != code):
        hand.take_deal(desk.deal)
        # A 詐胡 or 罰款 being filled in, or a 流局 asked for a hand that no phone has recorded yet:
        if at.asked and at.asked[1] == at.expect and (
                at.asked[0] in LINE_FORMS or at.asked[0] == "draw" and _unplayed(desk, at.asked[1])):
            at.asked = (at.asked[0], desk.next_seq)  # goes on as the next line, under the deal now (not dropped)
        at.seen, at.expect, at.deal = (code, desk.table.revision), desk.next_seq, desk.deal
        at.seating, at.first_dealer = desk.table.seating, desk.table.first_dealer
    editing = at.editing
    if editing is None:
        assert at.deal is not None  # taken above on the table's first run
        st.info(t(f"牌桌 {code} · 第 {at.expect} 局 · ") + deal_text(at.deal, desk.table, script))
    else:  # the hand being fixed, under the deal it was played under (as loaded, as the player changes it)
        st.info(t(f"牌桌 {code} · 修改第 {editing[0]} 局 · ") + deal_text(hand.deal, desk.table, script))
    # What comes and goes above the settings fold is in one container: the browser draws an element anew, folded and
    # empty, once the number of elements before it changes (the seating fold goes at a 將's first hand, on another
    # phone's write), so the fold stays where it stands, open, with what is being typed in it.
    with st.container():
        _notes(desk, memory, script)
    with st.expander(t("邀請同桌的手機、牌桌設定")):
        _invite(desk, script)
        _settings(desk, script)
        _cut_settings(desk, script)
        table_phone.picker(desk, script)
        st.button(t("教認這一桌的牌（照片常讀錯時）"), on_click=teach_page.go_to, args=(teach_page.PAGE,))
        st.button(t("離開牌桌"), on_click=_leave)
    return desk


def _notes(desk: Desk, memory: int | None, script: str) -> None:
    """What the page says under the table's line when there is something to say: another phone's write, a damaged
    hand, the deal, the seats (`ui.table_seating`), a settings error, the flowers not taught yet."""
    t = in_script_of(script)

    at = table_state()
    if desk.next_seq != at.expect and at.editing is None:
        st.caption(t(f"別的手機剛改了帳（現在記到第 {desk.next_seq - 1} 局）；記下這一手時會核對。"))
    for damaged in desk.evening.damaged:
        st.warning(t(damaged.message))
    if desk.evening.deal_note:
        st.warning(t(desk.evening.deal_note))
    table_seating.seating(desk, script)  # a 將 ended: the next one's seats and 起莊, on every phone
    if at.settings_error:
        st.error(t("牌桌設定存不進去：" + at.settings_error))
        at.settings_error = None
    if memory == 0:  # never written (a damaged memory, or a ledger that cannot say, is not nothing)
        # Taught its eight flowers first, a table's photos read better from its first hand
        # (docs/decisions/teach-flowers-first.md); a table that recorded a hand from a photo taught it already.
        st.caption(t("這副牌還沒教過：開打前把八張花牌排成一排拍一張、點名，花最常讀錯，教一次整晚都用。"))
        st.button(t("先教認這副牌的花"), on_click=teach_page.go_to, args=(teach_page.PAGE,), key="teach-first")


def _unplayed(desk: Desk, seq: int) -> bool:
    """Lines were recorded from `seq` on, every one a 罰款 (no hand played): a 流局 asked for as line `seq` is still
    for the hand being played. Once another phone has recorded that hand, the question is stale (recording it again
    would count the hand twice): `ui.table_record.confirm` says so and drops it."""
    since = [h for h in desk.hands if h.seq >= seq]  # sound lines only: a damaged one is not known to be a 罰款
    return 0 < len(since) == desk.next_seq - seq and all(h.line.reason is not None for h in since)


@st.fragment(run_every=WATCH_SECONDS)
def _watch(ledger: Ledger, code: str, revision: int, memory: int | None) -> None:
    """Runs the page again once the table's revision moves past `revision`, the one this page's run read, or its
    memory's past `memory` (`ui.table_memory.revision`): a phone that only watches shows each hand another phone
    records, and what another phone taught the table (no longer asking for a lesson given). A phone entering a hand
    keeps its deal as before (`open_desk`'s `busy`). A file that fails is left for the page's next run to say so."""
    try:
        moved = (ledger.revision(code), ledger.memory_revision(code)) != (revision, memory)
    except LedgerError:
        return
    if moved:
        st.rerun()


def _invite(desk: Desk, script: str) -> None:
    link = table_link(st.context.url, desk.code)
    if link is None:
        st.caption(in_script(f"在別的手機打開這個網頁，加上 ?table={desk.code}", script))
        return
    st.code(link, language=None)
    st.image(qr_png(link), caption=in_script("用手機相機掃這個碼", script), width=220)


def settings_version(desk: Desk) -> str:
    table = desk.table
    return desk.form_key(table.names, table.first_dealer, table.base, table.per_tai, table.ruleset)


def cut_version(desk: Desk) -> str:
    return desk.form_key(desk.table.cut, desk.table.players)


def _settings(desk: Desk, script: str) -> None:
    table, rev = desk.table, settings_version(desk)

    t = in_script_of(script)

    with st.form(f"table-settings-{rev}"):
        names = [st.text_input(seat_label(s, script), value=table.names[i], max_chars=24, key=f"name-{s.code}-{rev}",
                               placeholder=t("名字（可不填）")) for i, s in enumerate(SEATS)]
        first = st.radio(t("起莊（第一個莊家；換圈以此為準）"), range(4), index=SEATS.index(table.first_dealer),
                         format_func=lambda i: seat_label(SEATS[i], script), horizontal=True, key=f"first-{rev}")
        base = st.number_input(t("底"), min_value=0, max_value=1_000_000, step=10, value=table.base, key=f"base-{rev}")
        per_tai = st.number_input(t("每台"), min_value=0, max_value=1_000_000, step=10, value=table.per_tai,
                                  key=f"per-tai-{rev}")
        rulesets = available_rulesets()
        ruleset = st.selectbox(t("台數規則"), rulesets, key=f"rules-{rev}-{script}",  # its labels: ui/chrome.py
                               format_func=lambda r: ruleset_label(r, script),
                               index=rulesets.index(table.ruleset) if table.ruleset in rulesets else 0)
        if st.form_submit_button(t("儲存牌桌設定")):
            try:
                desk.ledger.update_table(desk.code, tuple(clean_name(n) for n in names), SEATS[first], int(base),
                                         int(per_tai), ruleset)
            except LedgerError as exc:
                st.error(t("存不進去：" + str(exc)))
            else:
                st.rerun()


CUT_WORDS = ("不抽東錢", "每次自摸抽", "每局胡牌抽")  # off, then as `ledger.CUT_PER`


def _cut_settings(desk: Desk, script: str) -> None:
    """東錢: off, or an amount from each 自摸 or each hand won, up to a cap for the evening, to a player or the pot."""
    table, rev, rule = desk.table, cut_version(desk), desk.table.cut

    t = in_script_of(script)

    takers = [NOBODY, *(p.id for p in table.players)]  # NOBODY: the pot
    with st.form(f"cut-{rev}"):
        per = st.radio(t("東錢"), range(3), index=0 if rule is None else 1 + CUT_PER.index(rule.per), horizontal=True,
                       format_func=lambda i: t(CUT_WORDS[i]), key=f"cut-per-{rev}")
        amount = st.number_input(t("每次抽多少"), min_value=1, max_value=1_000_000, step=10,
                                 value=100 if rule is None else rule.amount, key=f"cut-amount-{rev}")
        cap = st.number_input(t("整晚最多抽多少"), min_value=1, max_value=100_000_000, step=100,
                              value=1000 if rule is None else rule.cap, key=f"cut-cap-{rev}")
        to = st.selectbox(t("東錢給誰"), takers, index=takers.index(rule.to or NOBODY if rule else NOBODY),
                          format_func=lambda p: t("公費") if p == NOBODY else player_name(table, p, script),
                          key=f"cut-to-{rev}")
        if st.form_submit_button(t("儲存東錢設定")):
            try:
                desk.ledger.set_cut(desk.code, None if per == 0 else CutRule(CUT_PER[per - 1], int(amount), int(cap),
                                                                             None if to == NOBODY else to))
            except LedgerError as exc:
                st.error(t("存不進去：" + str(exc)))
            else:
                st.rerun()
