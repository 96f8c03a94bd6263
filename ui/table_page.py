"""The table's ledger in the app. `?table=CODE` opens the evening that every phone at the table
shares (the file: `ui.table.db_path()`); the app calls three functions:

- `open_desk` first: reads the table (again only when its revision moved: a long evening costs a
  rerun no more than a short one), fills in the next deal (莊家, 連莊, 圈風) whenever the ledger changed
  on any phone (unless a hand is being entered), puts the table's 底, 每台 and ruleset on the page on
  every run but an edit's (an old hand is edited under the ones it was played under), and shows
  the table's line, its link and QR code, its settings, and watches the table: a phone left alone runs
  again within WATCH_SECONDS of another phone's write (`_watch`);
- `confirm` under the result: records the hand as shown (or a 流局, or the hand being edited), as
  the hand number the page showed, so two phones confirming one hand record it once;
- `render` at the bottom: totals, chart, the latest hands, undo, edit, CSV.

Where the table's rules allow it, `several_winners` (called before `confirm`) sets a
win aside while the next winner of the same discard is entered, or adds a winner to the last hand,
and `confirm` records them as one hand; `confirm` also offers a 詐胡 (where the rules state its
penalty) and a penalty, each recorded as a line of its own.

Undo and edit name the hand and the revision the page saw (`Recorded.revision`): the ledger refuses
them when another phone changed that hand since. A phone that loses a race reloads the table and
keeps its hand, and says what changed. A failing ledger file shows its message and leaves the hand
on the page as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from ledger import (
    MAX_REASON,
    Conflict,
    Evening,
    Ledger,
    LedgerError,
    LedgerLine,
    Recorded,
    TableInfo,
    deal_after_line,
    draw,
    false_win,
    penalty,
    shared_win,
    table_code,
    win,
    write_csv,
)
from scoring.draft import Draft, from_hand
from scoring.hand import ALL_FLAGS, MAX_STAKE, HandError
from scoring.payout import Deal, Verdict, in_seat_order, judge_false_win, result_of
from scoring.ruleset import RulesetError, SettlementRules, available_rulesets, load_ruleset, ruleset_stem
from scoring.seats import SEATS
from scoring.settle import MAX_TAI
from ui import table_memory, teach_page
from ui.chart import evening_chart
from ui.result import SetAside, evaluate_several, signed
from ui.table import (
    chart_columns,
    clean_name,
    clean_reason,
    db_path,
    deal_text,
    hand_rows,
    player,
    qr_png,
    result_text,
    table_link,
    totals_rows,
)
from ui.text import in_script, ruleset_label, seat_label
from ui.widgets import choice

ss = st.session_state
SHOWN_HANDS = 20  # the latest hands listed on the page; the CSV has them all
WATCH_SECONDS = 3  # how often a page at a table asks whether another phone wrote to it (one small query)


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
    deal = desk.deal
    ss.dealer, ss["round"], ss.streak = deal.dealer, deal.round, deal.streak


def _table_stakes(table: TableInfo) -> None:
    """The page's 底, 每台 and ruleset are the table's on every run but an edit's (an old hand keeps its own):
    whatever the session held meanwhile (another page shown, a phone changing them), the hand is scored and
    recorded under the table's."""
    ss.base, ss.per_tai = table.base, table.per_tai
    if ruleset_stem(table.ruleset) in available_rulesets():
        ss.ruleset = ruleset_stem(table.ruleset)


def on_stakes(desk: Desk) -> None:
    """③'s 底 or 每台, or the 規則, changed at a table: the table's (every phone's), not this page's alone; while a
    hand is edited, that hand's only."""
    if ss.get("table_editing") is not None:
        return
    try:
        desk.ledger.change_stakes(desk.code, int(ss.base), int(ss.per_tai), ss.ruleset)
    except LedgerError as exc:
        ss.table_settings_error = str(exc)


def _go_to_table() -> None:
    try:
        st.query_params["table"] = table_code(ss.table_code_input)
        ss.table_error = None
    except LedgerError as exc:
        ss.table_error = str(exc)


def _leave() -> None:
    st.query_params.pop("table", None)
    ss.table_seen = ss.table_editing = ss.table_confirm = None
    _forget_lines()


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
        if ss.get("table_opened") != (str(ledger.path), code):
            ledger.open_table(code, ss.base, ss.per_tai, ss.ruleset)
            ss.table_opened = (str(ledger.path), code)
        desk = _read(ledger, code)
    except LedgerError as exc:
        ss.table_opened = None
        st.error(t("牌桌的帳本打不開，這一手還是可以算：" + str(exc)))
        st.button(t("離開牌桌"), on_click=_leave, key="leave-broken")
        return None
    memory = table_memory.revision(desk)
    _watch(ledger, code, desk.table.revision, memory)
    if ss.get("table_editing") is None:
        _table_stakes(desk.table)
    seen, refresh = ss.get("table_seen"), ss.pop("table_refresh", False)
    if ss.get("table_editing") is None and seen != (code, desk.table.revision) and (
            not busy or refresh or seen is None or seen[0] != code):
        _fill_in(desk)
        ss.table_seen, ss.table_expect, ss.table_deal = (code, desk.table.revision), desk.next_seq, desk.deal
    editing = ss.get("table_editing")
    if editing is None:
        st.info(t(f"牌桌 {code} · 第 {ss.table_expect} 局 · ") + deal_text(ss.table_deal, desk.table, script))
    else:  # the hand being fixed, under the deal it was played under (as loaded, as the player changes it)
        st.info(t(f"牌桌 {code} · 修改第 {editing[0]} 局 · ")
                + deal_text(Deal(ss["round"], ss.dealer, ss.streak), desk.table, script))
    if desk.next_seq != ss.table_expect and editing is None:
        st.caption(t(f"別的手機剛改了帳（現在記到第 {desk.next_seq - 1} 局）；記下這一手時會核對。"))
    for damaged in desk.evening.damaged:
        st.warning(t(damaged.message))
    if desk.evening.deal_note:
        st.warning(t(desk.evening.deal_note))
    if ss.get("table_settings_error"):
        st.error(t("牌桌設定存不進去：" + ss.pop("table_settings_error")))
    if memory == 0:  # never written (a damaged memory, or a ledger that cannot say, is not nothing)
        # Taught its eight flowers first, a table's photos read better from its first hand
        # (docs/decisions/teach-flowers-first.md); a table that recorded a hand from a photo taught it already.
        st.caption(t("這副牌還沒教過：開打前把八張花牌排成一排拍一張、點名，花最常讀錯，教一次整晚都用。"))
        st.button(t("先教認這副牌的花"), on_click=teach_page.go_to, args=(teach_page.PAGE,), key="teach-first")
    with st.expander(t("邀請同桌的手機、牌桌設定")):
        _invite(desk, script)
        _settings(desk, script)
        st.button(t("教認這一桌的牌（照片常讀錯時）"), on_click=teach_page.go_to, args=(teach_page.PAGE,))
        st.button(t("離開牌桌"), on_click=_leave)
    return desk


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


def _write(desk: Desk, line: LedgerLine, expect: int, clear: Callable[[Draft], None],
           learn: Callable[[Recorded], str | None] | None = None) -> None:
    """Record `line` as hand `expect` (what the page showed when the button was pressed) or, while
    editing, in place of the hand being edited; then `learn(the hand recorded)`, where given, and what
    it says goes with the note. A callback: the next run shows what happened."""
    editing = ss.get("table_editing")
    ss.table_confirm = None
    try:
        done = (desk.ledger.edit(desk.code, editing[0], line, editing[1]) if editing is not None
                else desk.ledger.record(desk.code, line, expect))
    except Conflict as exc:
        last = exc.latest
        shown = f"（第 {last.seq} 局：{result_text(last.line, desk.table, 'traditional')}）" if isinstance(
            last, Recorded) else ""
        if editing is not None:  # the hand changed under the edit: the edit is dropped, the tiles stay
            ss.table_editing = None
            ss.table_conflict = {"text": str(exc) + shown + "。你的修改沒有存；要改請重新按「修改這一局」。"}
        else:
            ss.table_conflict = {"text": str(exc) + shown, "deal": line.deal, "winner": line.winner,
                                 "total": line.total, "net": line.net}
        ss.table_refresh = True  # the page takes the deal as the ledger now has it; the hand stays
        return
    except LedgerError as exc:
        ss.table_failure = str(exc)
        return
    ss.table_editing = ss.table_seen = ss.table_conflict = None
    _forget_lines()
    ss.table_note = f"第 {done.seq} 局記好了：{result_text(done.line, desk.table, 'traditional')}"
    if editing is not None:
        ss.table_deals_apart = _deals_apart(desk, done)
    learned = learn(done) if learn is not None else None
    if learned:
        ss.table_note += f"。{learned}"
    clear(Draft())  # the next hand starts empty, its deal filled in from the ledger


def _deals_apart(desk: Desk, edited: Recorded) -> str | None:
    """Where the hand after an edited one was recorded under another deal than the edit leads to: the hands after
    an edit keep the deals they were played under (`Ledger.edit`), so the player is told which to check."""
    after = next((h for h in desk.hands if h.seq == edited.seq + 1), None)
    if after is None:
        return None
    played, follows = after.line.deal, deal_after_line(edited.line, desk.table.first_dealer)
    if played == follows:
        return None
    return (f"第 {after.seq} 局記的是 {deal_text(played, desk.table, 'traditional')}，照改過的第 {edited.seq} 局該是"
            f" {deal_text(follows, desk.table, 'traditional')}。之後各局照當時打的莊家記帳，不會一起改；"
            "莊家記錯的話，請一局一局改過")


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
            clear: Callable[[Draft], None], learn: Callable[[Recorded], str | None] | None = None) -> None:
    """The buttons that record this hand (or a 流局) at the table, exactly as shown on this run;
    `clear(draft)` empties the page's hand once it is recorded; `learn(hand)` runs once a win is
    (the table's memory taught the photo's tiles: `ui.table_memory.learn_hand`)."""
    def t(text: str) -> str:
        return in_script(text, script)

    editing = ss.get("table_editing")
    expect = editing[0] if editing else ss.table_expect
    st.markdown(t(f"**修改第 {expect} 局**" if editing else f"**記到牌桌：第 {expect} 局**"))
    if ss.get("table_conflict"):
        st.warning(t(_conflict_text(ss.table_conflict, verdict, desk)))
    if ss.get("table_failure"):
        st.error(t("沒有記進牌桌（這一手還在）：" + ss.pop("table_failure")))
    if ss.get("table_note"):
        st.success(t(ss.pop("table_note")))
    if ss.get("table_deals_apart"):
        st.warning(t(ss.pop("table_deals_apart")))
    photo = ss.get("table_edit_photo") if editing else photo_id
    asked = ss.get("table_confirm")
    if asked and asked[0] == "draw" and asked[1] != expect:  # another phone recorded hands since it was asked
        st.warning(t(f"按「流局」時是第 {asked[1]} 局，別的手機已經記到第 {ss.table_expect - 1} 局：沒有記流局。"
                     f"現在要記的是第 {expect} 局，是流局的話請再按一次。"))
        ss.table_confirm = None
    if ss.get("table_confirm") == ("draw", expect):
        st.warning(t(f"確定第 {expect} 局是流局（沒人胡，莊家連莊）？"))
        with st.container(horizontal=True):
            st.button(t("確定流局"), type="primary", on_click=_write,
                      args=(desk, draw(Deal(ss["round"], ss.dealer, ss.streak)), expect, clear))
            st.button(t("不是流局"), on_click=_ask, args=(None,))
        return
    if _line_form(desk, expect, script, clear):
        return
    with st.container(horizontal=True):
        line = _win_line(verdict, photo)
        if line is not None:
            st.button(t("更新這一局" if editing else "胡了，記下這一局"), type="primary", on_click=_write,
                      args=(desk, line, expect, clear, learn))
        st.button(t("記成流局" if editing else "流局（沒人胡）"), on_click=_ask, args=(("draw", expect),))
        _line_buttons(expect, script)
        if editing:
            st.button(t("取消修改"), on_click=_cancel_edit, args=(clear,))


def _ask(question: tuple | None) -> None:
    ss.table_confirm = question
    ss.table_conflict = None


def _cancel_edit(clear: Callable[[Draft], None]) -> None:
    """The edit dropped: the hand it loaded goes too (left on the page, it was the next hand, one tap from being
    recorded twice); the page is at the next hand again, its deal and stakes the table's."""
    ss.table_editing = ss.table_seen = ss.table_confirm = None
    _forget_lines()
    clear(Draft())


def _load(desk: Desk, seq: int, load: Callable[[Draft], None]) -> None:
    """Put hand `seq` back on the page to be fixed: its tiles, who won and how, its deal and
    situation, its photo; the edit names the revision it was loaded at."""
    recorded = next((h for h in desk.hands if h.seq == seq), None)
    if recorded is None:
        ss.table_failure = f"第 {seq} 局讀不出來，不能修改"
        return
    line = recorded.line
    played = None if line.ruleset is None else ruleset_stem(line.ruleset)
    if played is not None and played not in available_rulesets():
        ss.table_failure = f"第 {seq} 局是照「{played}」規則算的，這裡沒有這個規則，不能修改"
        return
    ss.dealer, ss["round"], ss.streak = line.deal.dealer, line.deal.round, line.deal.streak
    ss.winner, ss.how = line.winner, (None if line.winner is None else line.discarder or "self")
    for flag in (*ALL_FLAGS, "ready"):
        ss[flag] = False
    draft = Draft()
    try:
        hands = recorded.scored_hands()
    except LedgerError as exc:
        ss.table_failure = str(exc)
        return
    hand = hands[0] if hands else None
    if hand is not None:
        for flag in ALL_FLAGS:
            ss[flag] = getattr(hand.situation, flag)
        table = hand.table
        assert table is not None  # a recorded win's hand is stored seated, its table in it
        ss.ready, ss.base, ss.per_tai = table.declared_ready, table.base, table.per_tai
        draft = from_hand(hand)
    if played is not None:
        ss.ruleset = played  # re-scored under the rules it was played under, not the table's now
    ss.table_edit_photo = line.photo_id
    ss.table_editing = (seq, recorded.revision)
    ss.table_confirm = ss.table_conflict = None
    _load_lines(line, hands[1:], seq)
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


def _undo_gone(seq: int, last: Recorded) -> str:
    """What another phone did to the evening since deleting hand `seq`, the last one then, was asked."""
    if last.seq > seq:
        later = f"第 {seq + 1} 局" if last.seq == seq + 1 else f"第 {seq + 1}～{last.seq} 局"
        return f"別的手機剛記了{later}，第 {seq} 局已經不是最後一局"
    if last.seq == seq:
        return f"第 {seq} 局剛在別的手機上改過或重記了"
    return f"第 {seq} 局已經在別的手機上刪掉了"


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
    st.altair_chart(evening_chart(chart_columns(desk.table, hands, script), script))  # words in the script
    shown = hands[-SHOWN_HANDS:]
    if len(shown) < len(hands):
        st.caption(t(f"最近 {len(shown)} 局（全部 {len(hands)} 局在 CSV 裡）"))
    with st.container(key="hands"):  # its words are not broken inside (ui/chrome.py's style)
        st.table(hand_rows(desk.table, shown, script), hide_index=True)  # st.dataframe's menus are English
    last, asked = hands[-1], ss.get("table_confirm")
    if asked and asked[0] == "undo" and asked[1:] != (last.seq, last.revision):  # changed since it was asked
        st.warning(t(_undo_gone(asked[1], last) + "，這裡沒有刪掉任何一局：看過現在的帳再決定。"))
        ss.table_confirm = asked = None
    if asked == ("undo", last.seq, last.revision):
        st.warning(t(f"確定刪掉第 {last.seq} 局（{result_text(last.line, desk.table, 'traditional')}）？"))
        with st.container(horizontal=True):
            st.button(t("確定刪掉"), type="primary", on_click=_undo, args=(desk, last.seq, last.revision))
            st.button(t("不要刪"), on_click=_ask, args=(None,))
    else:
        st.button(t(f"刪掉最後一局（第 {last.seq} 局）"), on_click=_ask, args=(("undo", last.seq, last.revision),))
    if ss.get("table_edit_last") != last.seq:  # a hand recorded or removed since: the picker goes to the newest
        ss.table_edit_pick = ss.table_edit_last = last.seq
    with st.container(horizontal=True):
        seq = st.selectbox(t("要修改第幾局"), [h.seq for h in reversed(hands)], key="table_edit_pick", width=120)
        st.button(t("修改這一局"), on_click=_load, args=(desk, seq, load))
    st.download_button(t("匯出整晚（CSV）"), ("\ufeff" + write_csv(hands, desk.table.players)).encode("utf-8"),
                       file_name=f"taishu-{desk.code}.csv", mime="text/csv")



# -- one discard won by several seats, 詐胡, penalties ---------------------------------------------
FORM_KEYS = ("false_win_caller", "false_win_claimed", "penalty_reason",
             *(f"{k}_{s.code}" for s in SEATS for k in ("false_win_ready", "false_win_wait", "penalty")))


def _settlement() -> SettlementRules | None:
    """The page's table rules' settlement (None where the ruleset cannot be read: the 台 section says so)."""
    try:
        return load_ruleset(ss.ruleset).settlement
    except RulesetError:
        return None


def _page_deal() -> Deal:
    return Deal(ss["round"], ss.dealer, int(ss.streak))


def setting_aside() -> bool:
    """Wins are set aside for one discard: the page is busy with a hand even while its draft is empty."""
    return bool(ss.get("table_aside"))


def _forget_lines() -> None:
    """The wins set aside and the 詐胡 and penalty forms, once their line is recorded or dropped."""
    ss.table_aside = ()
    for key in FORM_KEYS:
        ss.pop(key, None)


def _shared(verdict: Verdict | None):
    """The wins set aside and this one (None: none being entered) as one discard."""
    discarder = verdict.result.discarder if verdict is not None else (None if ss.how in (None, "self") else ss.how)
    deal = verdict.result.deal if verdict is not None else _page_deal()
    return evaluate_several(ss.get("table_aside", ()), verdict, deal, discarder, int(ss.base), int(ss.per_tai),
                            ss.ruleset)


KEPT = ("table_seen", "table_expect", "table_deal", "table_aside")  # the table's part of a hand being entered


def in_hand() -> dict | None:
    """The table's part of the hand being entered, for a reload to give back (`ui/resume.py`): the hand number and
    deal it was entered under (recording it is checked as before a reload) and the wins set aside for its discard;
    None while an old hand is edited: a reload drops the edit (the ledger keeps that hand as it was)."""
    if ss.get("table_editing") is not None:
        return None
    return {key: ss[key] for key in KEPT if key in ss}


def start_over() -> None:
    """The player starts another hand (清空手牌, a new photo): a race lost with the hand that was on the page is
    over. Its warning goes (it would compare the new hand with the lost one), and so do its winner and how (the
    new hand would be scored for them)."""
    lost = ss.get("table_conflict")
    if lost and "winner" in lost:
        ss.winner = ss.how = None
    ss.table_conflict = None


def aside_winners() -> tuple:
    """The seats that already won the discard being entered (一炮多響): none of them dealt it, nor wins it again."""
    return tuple(one.winner for one in ss.get("table_aside", ()))


def discard_summary(desk: Desk, verdict: Verdict | None, script: str) -> str | None:
    """The top bar while wins are set aside for one discard: every winner's 台 and everyone's money on the line that
    胡了 records (not the current winner's alone); None where none are set aside or there is nothing whole yet."""
    line = _win_line(verdict, None) if setting_aside() else None
    if line is None:
        return None
    return f"**{result_text(line, desk.table, script)}**  \n" + " · ".join(
        f"{player(s, desk.table, script)} {signed(n)}" for s, n in line.net_by_seat.items())


def line_asked(script: str) -> str | None:
    """The 詐胡 or 罰款 form open below, in the top bar's words (it is not a hand: no photo is asked for)."""
    asked = ss.get("table_confirm")
    if not asked or asked[0] not in ("false_win", "penalty"):
        return None
    return in_script(f"第 {asked[1]} 局：{'詐胡' if asked[0] == 'false_win' else '罰款'}（在下面填）", script)


def _win_line(verdict: Verdict | None, photo: str | None) -> LedgerLine | None:
    """What "胡了" records: this win, or with wins set aside the one discard they make (None where
    there is nothing whole to record: no win, or a hand still being entered beside the wins set aside)."""
    if not setting_aside():
        return None if verdict is None else win(verdict, photo)
    if verdict is None and not ss.draft.empty:
        return None
    try:
        return shared_win(_shared(verdict), photo)
    except (HandError, RulesetError):
        return None  # `several_winners` shows why


def _set_aside(verdict: Verdict, clear: Callable[[Draft], None]) -> None:
    """This win waits while the next winner's hand is entered: the page is cleared for it, keeping
    the discarder and what was true of the discard itself (河底, 搶槓)."""
    aside = (*ss.get("table_aside", ()), SetAside.of(verdict))
    discard = (ss.last_tile, ss.rob_kong)
    clear(Draft())
    ss.table_aside, ss.how = aside, verdict.result.discarder
    ss.last_tile, ss.rob_kong = discard


def _drop_aside(index: int) -> None:
    aside = ss.get("table_aside", ())
    ss.table_aside = aside[:index] + aside[index + 1:]


def _add_winner(desk: Desk, seq: int, load: Callable[[Draft], None]) -> None:
    """Hand `seq` opened as an edit with all its winners set aside, for one more winner of its discard."""
    _load(desk, seq, load)
    if ss.get("table_editing") is None:
        return  # it could not be read: `_load` says so
    first = next(h for h in desk.hands if h.seq == seq).scored_hand()
    assert first is not None and first.table is not None  # a win's hand, stored seated: `_load` opened it
    ss.table_aside = (SetAside(first, ss.winner, first.table.declared_ready), *ss.table_aside)
    ss.winner = None
    load(Draft())


def _load_lines(line: LedgerLine, others: tuple, seq: int) -> None:
    """A hand being edited: its other winners set aside, or its 詐胡 or penalty form filled in."""
    _forget_lines()
    dealer = line.deal.dealer
    ss.table_aside = tuple(SetAside(h, result_of(h, dealer).winner, h.table.declared_ready) for h in others)
    record = line.false_win  # `false_win` is the ledger's maker of such a line, imported above
    if record is not None:
        ss.false_win_caller, ss.false_win_claimed = record.caller, record.claimed
        paid = next((p for p in record.payments if p.tai), None)
        if paid is not None:  # each payment is its 台 × 每台: the 每台 it was played at
            ss.per_tai = paid.amount // paid.tai
        for seat, tai in record.waiting:
            ss[f"false_win_ready_{seat.code}"], ss[f"false_win_wait_{seat.code}"] = tai is not None, tai or 0
        ss.table_confirm = ("false_win", seq)
    elif line.reason is not None:
        for seat, amount in line.net_by_seat.items():
            ss[f"penalty_{seat.code}"] = amount
        ss.penalty_reason, ss.table_confirm = line.reason, ("penalty", seq)


def several_winners(desk: Desk, verdict: Verdict | None, script: str, clear: Callable[[Draft], None],
                    load: Callable[[Draft], None]) -> None:
    """One discard won by several seats (一炮多響), where the table's rules allow it: the wins set
    aside and what they come to with this one; a button to set this win aside and enter the next
    winner's hand; one to add a winner to the last hand recorded, when it was won off a discard."""
    def t(text: str) -> str:
        return in_script(text, script)

    rules, aside = _settlement(), ss.get("table_aside", ())
    if aside:
        st.markdown(t("**一炮多響**：這張牌已經有這幾家胡了（在上面輸入下一家的牌，或直接記下）"))
        for i, one in enumerate(aside):
            with st.container(horizontal=True):
                st.markdown(player(one.winner, desk.table, script))
                st.button(t("拿掉這一家"), key=f"aside-drop-{i}", on_click=_drop_aside, args=(i,))
        try:
            shared = _shared(verdict)
        except (HandError, RulesetError) as exc:
            st.error(t("一炮多響算不出來：") + (exc.for_player if isinstance(exc, HandError) else str(exc)))
        else:
            st.table([{t("誰胡"): player(v.result.winner, desk.table, script), "台": v.payout.payments[0].tai,
                       t("放槍的人付"): v.payout.payments[0].amount} for v in shared.verdicts], hide_index=True)
            st.caption(" · ".join(f"{player(s, desk.table, script)} {signed(n)}" for s, n in shared.net.items()))
    if rules is not None and rules.several_winners and verdict is not None and verdict.result.discarder is not None:
        st.button(t("這張牌還有別家胡（一炮多響）：先放著這一家，輸入下一家的牌"), on_click=_set_aside,
                  args=(verdict, clear))
    last = desk.hands[-1] if desk.hands else None
    if (last is not None and last.line.discarder is not None and not aside and ss.draft.empty
            and ss.get("table_editing") is None and _several_allowed(last.line.ruleset)):
        st.button(t(f"第 {last.seq} 局那張牌還有別家胡：加一家"), on_click=_add_winner, args=(desk, last.seq, load))


def _several_allowed(ruleset: str | None) -> bool:
    """A hand played under `ruleset` may have several winners of one discard (the rules it was played under, not
    the table's now: it is edited under them)."""
    try:
        return ruleset is not None and load_ruleset(ruleset).settlement.several_winners
    except RulesetError:
        return False


def _line_buttons(expect: int, script: str) -> None:
    """詐胡 (where the table's rules state its penalty) and 罰款, beside 流局."""
    rules = _settlement()
    if rules is not None and rules.false_win:
        st.button(in_script("詐胡", script), on_click=_ask, args=(("false_win", expect),))
    st.button(in_script("罰款", script), on_click=_ask, args=(("penalty", expect),))


def _line_form(desk: Desk, expect: int, script: str, clear: Callable[[Draft], None]) -> bool:
    """The 詐胡 or penalty form for line `expect`, where one was asked for (True: drawn)."""
    asked = ss.get("table_confirm")
    if asked == ("false_win", expect):
        _false_win_form(desk, expect, script, clear)
    elif asked == ("penalty", expect):
        _penalty_form(desk, expect, script, clear)
    else:
        return False
    return True


def _false_win_form(desk: Desk, expect: int, script: str, clear: Callable[[Draft], None]) -> None:
    def t(text: str) -> str:
        return in_script(text, script)

    def who(seat) -> str:
        return player(seat, desk.table, script)

    st.markdown(t(f"**第 {expect} 局：詐胡**（詐胡的人賠三家：聽牌的人賠他聽的台數，沒聽的人賠詐胡的台數；"
                  "莊家連莊）"))
    choice(t("誰詐胡"), SEATS, "false_win_caller", who)
    st.number_input(t("他說胡幾台"), min_value=0, max_value=MAX_TAI, step=1, key="false_win_claimed")
    caller, waiting = ss.get("false_win_caller"), {}
    for seat in SEATS:
        if seat == caller:
            continue
        with st.container(horizontal=True):
            ready = st.checkbox(t(f"{who(seat)} 聽牌"), key=f"false_win_ready_{seat.code}")
            if ready:
                st.number_input(t("聽幾台"), min_value=0, max_value=MAX_TAI, step=1, key=f"false_win_wait_{seat.code}")
        waiting[seat] = int(ss.get(f"false_win_wait_{seat.code}", 0)) if ready else None
    payout, problem = None, "選出誰詐胡"
    if caller is not None:
        try:
            payout = judge_false_win(caller, int(ss.get("false_win_claimed", 0)), waiting, _page_deal(),
                                     int(ss.per_tai), ss.ruleset)
        except HandError as exc:
            problem = exc.for_player
        except RulesetError as exc:
            problem = str(exc)
    if payout is None:
        st.info(t(problem))
    else:
        st.table([{t("誰收"): who(p.payee), "台": p.tai, t("金額"): p.amount, t("為什麼"): t(p.reason)}
                  for p in payout.payments], hide_index=True)
        st.caption(" · ".join(f"{who(s)} {signed(n)}" for s, n in payout.net.items()))
    with st.container(horizontal=True):
        st.button(t("確定記下詐胡"), type="primary", disabled=payout is None, on_click=_write,
                  args=(desk, None if payout is None else false_win(payout, _page_deal(), ss.ruleset), expect, clear))
        st.button(t("不記詐胡"), on_click=_ask, args=(None,))


def _penalty_form(desk: Desk, expect: int, script: str, clear: Callable[[Draft], None]) -> None:
    def t(text: str) -> str:
        return in_script(text, script)

    st.markdown(t(f"**第 {expect} 局：罰款**（不是一局牌，莊家不變。收錢填正數、付錢填負數；"
                  "不一定要加起來是零，例如罰給場地）"))
    with st.container(horizontal=True):
        for seat in SEATS:
            ss.setdefault(f"penalty_{seat.code}", 0)  # nothing, not the least amount the box allows
            st.number_input(player(seat, desk.table, script), min_value=-MAX_STAKE, max_value=MAX_STAKE, step=10,
                            key=f"penalty_{seat.code}", width=110)
    st.text_input(t("原因"), key="penalty_reason", max_chars=MAX_REASON, placeholder=t("例如：相公、遲到"))
    net = in_seat_order({seat: int(ss.get(f"penalty_{seat.code}", 0)) for seat in SEATS})
    reason = clean_reason(ss.get("penalty_reason") or "")
    problem = "請寫罰款的原因" if not reason else None if any(net) else "請填誰收、誰付多少"
    if problem:
        st.info(t(problem))
    else:
        st.caption(t(f"罰款：{reason}") + " · " + " · ".join(
            f"{player(s, desk.table, script)} {signed(n)}" for s, n in zip(SEATS, net, strict=True)))
    with st.container(horizontal=True):
        st.button(t("確定記下罰款"), type="primary", disabled=problem is not None, on_click=_write,
                  args=(desk, penalty(_page_deal(), net, reason), expect, clear))
        st.button(t("不記罰款"), on_click=_ask, args=(None,))
