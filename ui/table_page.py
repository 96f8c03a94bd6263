"""The table's ledger in the app. `?table=CODE` opens the evening that every phone at the table
shares (the file: `ui.table.db_path()`); the app calls three functions:

- `open_desk` first: reads the table (again only when its revision moved: a long evening costs a
  rerun no more than a short one), fills in the next deal (莊家, 連莊, 圈風) and the table's 底, 每台
  and ruleset whenever the ledger changed on any phone (unless a hand is being entered), and shows
  the table's line, its link and QR code, its settings;
- `confirm` under the result: records the hand as shown (or a 流局, or the hand being edited), as
  the hand number the page showed, so two phones confirming one hand record it once;
- `render` at the bottom: totals, chart, the latest hands, undo, edit, CSV.

Undo and edit name the hand and the revision the page saw (`Recorded.revision`): the ledger refuses
them when another phone changed that hand since. A phone that loses a race reloads the table and
keeps its hand, and says what changed. A failing ledger file shows its message and leaves the hand
on the page as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from ledger import (
    Conflict,
    Entry,
    Evening,
    Ledger,
    LedgerError,
    Recorded,
    TableInfo,
    draw,
    table_code,
    win,
    write_csv,
)
from scoring.hand import ALL_FLAGS
from scoring.payout import Deal, Verdict
from scoring.ruleset import available_rulesets
from scoring.seats import SEATS
from ui.draft import Draft, from_hand
from ui.table import (
    chart_columns,
    clean_name,
    db_path,
    deal_text,
    hand_rows,
    player,
    qr_png,
    result_text,
    table_link,
    totals_rows,
)
from ui.text import in_script, seat_label

ss = st.session_state
SHOWN_HANDS = 20  # the latest hands listed on the page; the CSV has them all


@dataclass(frozen=True)
class Desk:
    """The table this page is at, as read at the top of this run."""

    ledger: Ledger
    evening: Evening

    @property
    def code(self) -> str:
        return self.table.code

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


def _read(ledger: Ledger, code: str) -> Desk:
    """The table's state, read from the file only when its revision moved since this page read it."""
    cached = ss.get("table_cache")
    revision = ledger.revision(code)
    if cached is None or cached[0] != (str(ledger.path), code, revision):
        evening = ledger.state(code)
        cached = ss.table_cache = ((str(ledger.path), code, evening.table.revision), evening)
    return Desk(ledger, cached[1])


def _fill_in(desk: Desk) -> None:
    deal, table = desk.deal, desk.table
    ss.dealer, ss["round"], ss.streak = deal.dealer, deal.round, deal.streak
    ss.base, ss.per_tai = table.base, table.per_tai
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
    ss.table_seen = ss.table_editing = ss.table_confirm = None


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
                          placeholder="friday")
            st.button(t("開桌"), on_click=_go_to_table)
            if ss.get("table_error"):
                st.error(ss.table_error)
        return None
    try:
        code = table_code(raw)
        ledger = Ledger(db_path())
        if ss.get("table_opened") != (str(ledger.path), code):
            ledger.open_table(code, ss.base, ss.per_tai, ss.ruleset)
            ss.table_opened = (str(ledger.path), code)
        desk = _read(ledger, code)
    except LedgerError as exc:
        ss.table_opened = None
        st.error(t("牌桌的帳本打不開，這一手還是可以算：") + str(exc))
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
    for damaged in desk.evening.damaged:
        st.warning(t(damaged.message))
    if desk.evening.deal_note:
        st.warning(t(desk.evening.deal_note))
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
        names = [st.text_input(seat_label(s, script), value=table.names[i], max_chars=24, key=f"name-{s.code}-{rev}",
                               placeholder=t("名字（可不填）")) for i, s in enumerate(SEATS)]
        first = st.radio(t("起莊（第一個莊家；換圈以此為準）"), range(4), index=SEATS.index(table.first_dealer),
                         format_func=lambda i: seat_label(SEATS[i], script), horizontal=True, key=f"first-{rev}")
        base = st.number_input(t("底"), min_value=0, max_value=1_000_000, step=10, value=table.base, key=f"base-{rev}")
        per_tai = st.number_input(t("每台"), min_value=0, max_value=1_000_000, step=10, value=table.per_tai,
                                  key=f"per-tai-{rev}")
        rulesets = available_rulesets()
        ruleset = st.selectbox(t("台數規則"), rulesets, key=f"rules-{rev}",
                               index=rulesets.index(table.ruleset) if table.ruleset in rulesets else 0)
        if st.form_submit_button(t("儲存牌桌設定")):
            try:
                desk.ledger.update_table(desk.code, tuple(clean_name(n) for n in names), SEATS[first], int(base),
                                         int(per_tai), ruleset)
            except LedgerError as exc:
                st.error(t("存不進去：") + str(exc))
            else:
                st.rerun()


def _changes(before: Deal, after: Deal) -> str:
    """What a refresh changed of the page's deal: 莊家 南家→西家、連莊 1→0."""
    out = []
    if before.dealer != after.dealer:
        out.append(f"莊家 {before.dealer.zh}→{after.dealer.zh}")
    if before.streak != after.streak:
        out.append(f"連莊 {before.streak}→{after.streak}")
    if before.round != after.round:
        out.append(f"圈風 {before.round.zh}→{after.round.zh}")
    return "、".join(out)


def _write(desk: Desk, entry: Entry, expect: int, clear: Callable[[Draft], None]) -> None:
    """Record `entry` as hand `expect` (what the page showed when the button was pressed) or, while
    editing, in place of the hand being edited. A callback: the next run shows what happened."""
    editing = ss.get("table_editing")
    ss.table_confirm = None
    try:
        done = (desk.ledger.edit(desk.code, editing[0], entry, editing[1]) if editing is not None
                else desk.ledger.record(desk.code, entry, expect))
    except Conflict as exc:
        last = exc.latest
        shown = f"（第 {last.seq} 局：{result_text(last.entry, desk.table, 'traditional')}）" if last else ""
        if editing is not None:  # the hand changed under the edit: the edit is dropped, the tiles stay
            ss.table_editing = None
            ss.table_conflict = {"text": str(exc) + shown + "。你的修改沒有存；要改請重新按「修改這一局」。"}
        else:
            ss.table_conflict = {"text": str(exc) + shown, "deal": entry.deal, "winner": entry.winner,
                                 "total": entry.total, "net": entry.net}
        ss.table_refresh = True  # the page takes the deal as the ledger now has it; the hand stays
        return
    except LedgerError as exc:
        ss.table_failure = str(exc)
        return
    ss.table_editing = ss.table_seen = ss.table_conflict = None
    ss.table_note = f"第 {done.seq} 局記好了：{result_text(done.entry, desk.table, 'traditional')}"
    clear(Draft())  # the next hand starts empty, its deal filled in from the ledger


def _conflict_text(conflict: dict, verdict: Verdict | None, desk: Desk) -> str:
    """The race lost, and exactly what it changed of this hand: the deal, 門風 and the money."""
    text = conflict["text"]
    before = conflict.get("deal")
    if before is None:
        return text
    now = Deal(ss["round"], ss.dealer, ss.streak)
    changed = _changes(before, now)
    text += "。這一手還在" + (f"，改成現在的下一局：{changed}" if changed else "")
    if verdict is not None and conflict["winner"] == verdict.result.winner:
        wins = player(verdict.result.winner, desk.table, "traditional")
        text += f"；胡的人還是 {wins}，台數 {conflict['total']}→{verdict.score.total}"
        moved = [f"{player(s, desk.table, 'traditional')} {a:+d}→{b:+d}"
                 for s, a, b in zip(SEATS, conflict["net"], verdict.payout.nets, strict=True) if a != b]
        if moved:
            text += "，" + "、".join(moved)
    return text + "。若是同一局就不用再記；不是的話，看過後再記一次。"


def confirm(desk: Desk, verdict: Verdict | None, photo_id: str | None, script: str,
            clear: Callable[[Draft], None]) -> None:
    """The buttons that record this hand (or a 流局) at the table, exactly as shown on this run;
    `clear(draft)` empties the page's hand once it is recorded."""
    def t(text: str) -> str:
        return in_script(text, script)

    editing = ss.get("table_editing")
    expect = editing[0] if editing else ss.table_expect
    st.markdown(t(f"**修改第 {expect} 局**" if editing else f"**記到牌桌：第 {expect} 局**"))
    if ss.get("table_conflict"):
        st.warning(t(_conflict_text(ss.table_conflict, verdict, desk)))
    if ss.get("table_failure"):
        st.error(t("沒有記進牌桌（這一手還在）：") + ss.pop("table_failure"))
    if ss.get("table_note"):
        st.success(t(ss.pop("table_note")))
    photo = ss.get("table_edit_photo") if editing else photo_id
    if ss.get("table_confirm") == ("draw", expect):
        st.warning(t(f"確定第 {expect} 局是流局（沒人胡，莊家連莊）？"))
        with st.container(horizontal=True):
            st.button(t("確定流局"), type="primary", on_click=_write,
                      args=(desk, draw(Deal(ss["round"], ss.dealer, ss.streak)), expect, clear))
            st.button(t("不是流局"), on_click=_ask, args=(None,))
        return
    with st.container(horizontal=True):
        if verdict is not None:
            st.button(t("更新這一局" if editing else "胡了，記下這一局"), type="primary", on_click=_write,
                      args=(desk, win(verdict, photo), expect, clear))
        st.button(t("記成流局" if editing else "流局（沒人胡）"), on_click=_ask, args=(("draw", expect),))
        if editing:
            st.button(t("取消修改"), on_click=_cancel_edit)


def _ask(question: tuple | None) -> None:
    ss.table_confirm = question
    ss.table_conflict = None


def _cancel_edit() -> None:
    ss.table_editing = ss.table_seen = ss.table_confirm = None


def _load(desk: Desk, seq: int, load: Callable[[Draft], None]) -> None:
    """Put hand `seq` back on the page to be fixed: its tiles, who won and how, its deal and
    situation, its photo; the edit names the revision it was loaded at."""
    recorded = next((h for h in desk.hands if h.seq == seq), None)
    if recorded is None:
        ss.table_failure = f"第 {seq} 局讀不出來，不能修改"
        return
    entry = recorded.entry
    ss.dealer, ss["round"], ss.streak = entry.deal.dealer, entry.deal.round, entry.deal.streak
    ss.winner, ss.how = entry.winner, (None if entry.winner is None else entry.discarder or "self")
    for flag in (*ALL_FLAGS, "ready"):
        ss[flag] = False
    draft = Draft()
    try:
        hand = recorded.scored_hand()
    except LedgerError as exc:
        ss.table_failure = str(exc)
        return
    if hand is not None:
        for flag in ALL_FLAGS:
            ss[flag] = getattr(hand.situation, flag)
        ss.ready, ss.base, ss.per_tai = hand.table.declared_ready, hand.table.base, hand.table.per_tai
        draft = from_hand(hand)
    if entry.ruleset in available_rulesets():
        ss.ruleset = entry.ruleset
    ss.table_edit_photo = entry.photo_id
    ss.table_editing = (seq, recorded.revision)
    ss.table_confirm = ss.table_conflict = None
    load(draft)


def _undo(desk: Desk, seq: int, revision: int) -> None:
    ss.table_confirm = None
    try:
        desk.ledger.undo(desk.code, seq, revision)
    except Conflict as exc:
        ss.table_conflict = {"text": str(exc)}
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
    hands = list(desk.hands)
    st.table(totals_rows(desk.table, hands, script), hide_index=True)
    chart = pd.DataFrame(chart_columns(desk.table, hands, script)).set_index(t("局"))
    st.line_chart(chart, x_label=t("局"), y_label=t("累計"))
    shown = hands[-SHOWN_HANDS:]
    if len(shown) < len(hands):
        st.caption(t(f"最近 {len(shown)} 局（全部 {len(hands)} 局在 CSV 裡）"))
    st.dataframe(hand_rows(desk.table, shown, script), hide_index=True)
    last, asked = hands[-1], ss.get("table_confirm")
    if asked and asked[0] == "undo" and asked[1:] != (last.seq, last.revision):  # changed since it was asked
        st.warning(t(f"第 {asked[1]} 局在別的手機上改過或刪了，這裡沒有刪掉任何一局：看過現在的帳再決定。"))
        ss.table_confirm = asked = None
    if asked == ("undo", last.seq, last.revision):
        st.warning(t(f"確定刪掉第 {last.seq} 局（{result_text(last.entry, desk.table, 'traditional')}）？"))
        with st.container(horizontal=True):
            st.button(t("確定刪掉"), type="primary", on_click=_undo, args=(desk, last.seq, last.revision))
            st.button(t("不要刪"), on_click=_ask, args=(None,))
    else:
        st.button(t(f"刪掉最後一局（第 {last.seq} 局）"), on_click=_ask, args=(("undo", last.seq, last.revision),))
    with st.container(horizontal=True):
        seq = st.selectbox(t("要修改第幾局"), [h.seq for h in reversed(hands)], key="table_edit_pick", width=120)
        st.button(t("修改這一局"), on_click=_load, args=(desk, seq, load))
    st.download_button(t("匯出整晚（CSV）"), ("\ufeff" + write_csv(hands)).encode("utf-8"),
                       file_name=f"taishu-{desk.code}.csv", mime="text/csv")

