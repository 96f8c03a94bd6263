"""The evening so far at the table (`render`, at the bottom of the page): totals, chart, the latest hands, undo,
edit, CSV. Undo and edit name the hand and the revision the page saw (`Recorded.revision`): the ledger refuses
them when another phone changed that hand since. An edit loads the hand back on the page (`load_hand`), with its
other winners set aside or its 詐胡 or penalty form filled in.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import streamlit as st

from ledger import Conflict, LedgerError, LedgerLine, Player, Recorded, write_csv
from scoring.draft import Draft, from_hand
from scoring.payout import result_of
from scoring.ruleset import available_rulesets, ruleset_stem
from scoring.script import in_script_of
from ui import table_evenings, table_phone
from ui.chart import evening_chart
from ui.result import SetAside, signed
from ui.state import FLAG_NAMES, Desk, hand_state, table_state
from ui.table import MARK, chart_columns, hand_rows, result_text, spreadsheet_file, totals_rows
from ui.text import in_script

SHOWN_HANDS = 20  # the latest hands listed on the page; the CSV has them all


def load_hand(desk: Desk, seq: int, load: Callable[[Draft], None]) -> None:
    """Put hand `seq` back on the page to be fixed: its tiles, who won and how, its deal and
    situation, its photo; the edit names the revision it was loaded at."""
    at, page = table_state(), hand_state()
    recorded = next((h for h in desk.hands if h.seq == seq), None)
    if recorded is None:
        at.failure = f"第 {seq} 局讀不出來，不能修改"
        return
    line = recorded.line
    played = None if line.ruleset is None else ruleset_stem(line.ruleset)
    if played is not None and played not in available_rulesets():
        at.failure = f"第 {seq} 局是照「{played}」規則算的，這裡沒有這個規則，不能修改"
        return
    page.take_played(line.deal, line.winner, None if line.winner is None else line.discarder or "self")
    draft = Draft()
    try:
        hands = recorded.scored_hands()
    except LedgerError as exc:
        at.failure = str(exc)
        return
    hand = hands[0] if hands else None
    if hand is not None:
        table = hand.table
        assert table is not None  # a recorded win's hand is stored seated, its table in it
        page.set_flags({flag: getattr(hand.situation, flag) for flag in FLAG_NAMES if flag != "ready"}
                       | {"ready": table.declared_ready})
        page.take_stakes(table.base, table.per_tai)
        draft = from_hand(hand)
    page.take_stakes(ruleset=played)  # re-scored under the rules it was played under, not the table's now
    at.edit_photo = line.photo_id
    at.editing = (seq, recorded.revision)
    at.asked = at.conflict = None
    _load_lines(line, hands[1:], seq)
    load(draft)


def _load_lines(line: LedgerLine, others: tuple, seq: int) -> None:
    """A hand being edited: its other winners set aside, or its 詐胡 or penalty form filled in."""
    at = table_state()
    at.forget_lines()
    dealer = line.deal.dealer
    at.aside = tuple(SetAside(h, result_of(h, dealer).winner, h.table.declared_ready) for h in others)
    record = line.false_win  # `false_win` is the ledger's maker of such a line, imported above
    if record is not None:
        at.false_win_caller = record.caller
        at.set_form({"false_win_claimed": record.claimed, "false_win_drawn": record.self_drawn})
        paid = next((p for p in record.payments if p.tai), None)
        if paid is not None:  # each payment is its 台 × 每台: the 每台 it was played at
            hand_state().take_stakes(per_tai=paid.amount // paid.tai)
        for seat, tai in record.waiting:
            at.set_form({f"false_win_ready_{seat.code}": tai is not None, f"false_win_wait_{seat.code}": tai or 0})
        at.asked = ("false_win", seq)
    elif line.reason is not None:
        at.set_form({f"penalty_{seat.code}": amount for seat, amount in line.net_by_seat.items()}
                    | {"penalty_reason": line.reason})
        at.asked = ("penalty", seq)


def _undo(desk: Desk, seq: int, revision: int) -> None:
    at = table_state()
    at.asked = None
    try:
        desk.ledger.undo(desk.code, seq, revision)
    except Conflict as exc:
        at.conflict = {"text": str(exc)}
    except LedgerError as exc:
        at.failure = str(exc)
    at.seen = None  # the deal goes back


def _undo_gone(seq: int, last: Recorded) -> str:
    """What another phone did to the evening since deleting hand `seq`, the last one then, was asked."""
    if last.seq > seq:
        later = f"第 {seq + 1} 局" if last.seq == seq + 1 else f"第 {seq + 1}～{last.seq} 局"
        return f"別的手機剛記了{later}，第 {seq} 局已經不是最後一局"
    if last.seq == seq:
        return f"第 {seq} 局剛在別的手機上改過或重記了"
    return f"第 {seq} 局已經在別的手機上刪掉了"


def totals_at_top(desk: Desk, script: str) -> None:
    """The evening's totals one tap away at the top of the page (`render` draws the whole evening at its bottom)."""
    if not desk.hands:
        return
    with st.popover(in_script(f"整晚的總帳（{len(desk.hands)} 局）", script)):
        for row in totals_rows(desk.table, list(desk.hands), script, table_phone.mine(desk.table)):
            name, total = (row[in_script(k, script)] for k in ("玩家", "合計"))  # by player, the pot too
            st.markdown(f"{name}：**{signed(int(str(total)))}**")


def render(desk: Desk, script: str, load: Callable[[Draft], None]) -> None:
    """The evening so far; `load(draft)` puts a hand's tiles on the page (for editing it)."""
    t = in_script_of(script)

    st.subheader(t(f"⑥ 整晚的帳（牌桌 {desk.code}）"))
    if not desk.hands:
        st.caption(t("還沒有記任何一局。"))
    else:
        _lines(desk, script, load)
    table_evenings.render(desk, script)  # every evening: each player's figures, the history, closing this one


def _lines(desk: Desk, script: str, load: Callable[[Draft], None]) -> None:
    t = in_script_of(script)

    hands = list(desk.hands)
    me = table_phone.mine(desk.table)
    rows = totals_rows(desk.table, hands, script, me)
    mark = next((r for r in rows if str(r[t("玩家")]).startswith(MARK)), None)
    if mark is not None:
        st.markdown(f"**{mark[t('玩家')]}：{signed(int(str(mark[t('合計')])))}**")
    st.table(rows, hide_index=True)
    with st.expander(t("整晚的累計圖")):
        st.altair_chart(evening_chart(chart_columns(desk.table, hands, script), script))  # words in the script
    shown = hands[-SHOWN_HANDS:]
    if len(shown) < len(hands):
        st.caption(t(f"最近 {len(shown)} 局（全部 {len(hands)} 局在 CSV 裡）"))
    with st.container(key="hands"):  # its words are not broken inside (ui/chrome.py's style)
        st.table(hand_rows(desk.table, shown, script, me), hide_index=True)  # st.dataframe's menus are English
    at = table_state()
    last, asked = hands[-1], at.asked
    if asked and asked[0] == "undo" and asked[1:] != (last.seq, last.revision):  # changed since it was asked
        st.warning(t(_undo_gone(asked[1], last) + "，這裡沒有刪掉任何一局：看過現在的帳再決定。"))
        at.asked = asked = None
    if asked == ("undo", last.seq, last.revision):
        said = result_text(last.line, desk.table, "traditional", last.seating)
        st.warning(t(f"確定刪掉第 {last.seq} 局（{said}）？"))
        with st.container(horizontal=True):
            st.button(t("確定刪掉"), type="primary", on_click=_undo, args=(desk, last.seq, last.revision))
            st.button(t("不要刪"), on_click=at.ask, args=(None,))
    else:
        st.button(t(f"刪掉最後一局（第 {last.seq} 局）"), on_click=at.ask, args=(("undo", last.seq, last.revision),))
    if at.edit_last != last.seq:  # a hand recorded or removed since: the picker goes to the newest
        st.session_state.table_edit_pick = at.edit_last = last.seq  # the picker's own key
    with st.container(horizontal=True):
        seq = st.selectbox(t("要修改第幾局"), [h.seq for h in reversed(hands)], key="table_edit_pick", width=120)
        st.button(t("修改這一局"), on_click=load_hand, args=(desk, seq, load))
    st.download_button(t("匯出整晚（CSV）"), partial(evening_csv, hands, desk.table.players),  # made when tapped
                       file_name=f"taishu-{desk.code}.csv", mime="text/csv", on_click="ignore")  # no rerun


def evening_csv(hands: list[Recorded], players: tuple[Player, ...]) -> bytes:
    """The evening's CSV file."""
    return spreadsheet_file(write_csv(hands, players))

