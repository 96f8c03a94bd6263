"""The lines of the evening that are not a hand played: a 詐胡 or a 詐摸 (a false 自摸; either where the table's
rules state the penalty, the same for both) and a penalty (罰款), each asked for beside 流局 and filled in on a form
of its own, then recorded as a line of its own.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ledger import MAX_REASON, LedgerLine, false_win, penalty
from scoring.draft import Draft
from scoring.hand import MAX_STAKE, HandError
from scoring.payout import in_seat_order, judge_false_win
from scoring.ruleset import RulesetError
from scoring.script import in_script_of
from scoring.seats import SEATS
from scoring.settle import MAX_TAI
from ui.result import signed
from ui.state import Desk, hand_state, table_state
from ui.table import clean_reason, player
from ui.text import in_script
from ui.widgets import Field, choice

ss = st.session_state  # the forms' own widget keys (`ui.state.FORM_KEYS`)
Write = Callable[[Desk, LedgerLine, int, Callable[[Draft], None]], None]  # how a line is recorded


def line_asked(script: str) -> str | None:
    """The 詐胡 or 罰款 form open below, in the top bar's words (it is not a hand: no photo is asked for)."""
    asked = table_state().asked
    if not asked or asked[0] not in ("false_win", "penalty"):
        return None
    what = _false_word() if asked[0] == "false_win" else "罰款"
    return in_script(f"第 {asked[1]} 局：{what}（在下面填）", script)


def _false_word() -> str:
    return "詐摸" if ss.get("false_win_drawn") else "詐胡"


def _ask_false_win(expect: int, drawn: bool) -> None:
    table_state().ask(("false_win", expect))
    ss["false_win_drawn"] = drawn  # the form's own choice, set as the button says


def line_buttons(expect: int, script: str) -> None:
    """詐胡 and 詐摸 (where the table's rules state their penalty) and 罰款, beside 流局."""
    rules, ask = hand_state().settlement(), table_state().ask
    if rules is not None and rules.false_win:
        st.button(in_script("詐胡", script), on_click=_ask_false_win, args=(expect, False))
        st.button(in_script("詐摸", script), on_click=_ask_false_win, args=(expect, True))
    st.button(in_script("罰款", script), on_click=ask, args=(("penalty", expect),))


def line_form(desk: Desk, expect: int, script: str, clear: Callable[[Draft], None], write: Write) -> bool:
    """The 詐胡 or penalty form for line `expect`, where one was asked for (True: drawn); `write` records its line
    (`ui.table_record.write`)."""
    asked = table_state().asked
    if asked == ("false_win", expect):
        _false_win_form(desk, expect, script, clear, write)
    elif asked == ("penalty", expect):
        _penalty_form(desk, expect, script, clear, write)
    else:
        return False
    return True


def _false_win_form(desk: Desk, expect: int, script: str, clear: Callable[[Draft], None], write: Write) -> None:
    t = in_script_of(script)

    def who(seat) -> str:
        return player(seat, desk.table, script)

    st.radio(t("詐胡還是詐摸"), (False, True), key="false_win_drawn", horizontal=True,
             format_func=lambda drawn: t("詐摸（說自摸）" if drawn else "詐胡（說胡別人打的牌）"))
    word = _false_word()
    st.markdown(t(f"**第 {expect} 局：{word}**（{word}的人賠三家：聽牌的人賠他聽的台數，沒聽的人賠{word}的台數；"
                  "莊家連莊）"))
    at, hand = table_state(), hand_state()
    choice(t(f"誰{word}"), SEATS, Field.of(at, "false_win_caller"), who)
    st.number_input(t("他說胡幾台"), min_value=0, max_value=MAX_TAI, step=1, key="false_win_claimed")
    caller, waiting = at.false_win_caller, {}
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
            payout = judge_false_win(caller, int(ss.get("false_win_claimed", 0)), waiting, hand.deal,
                                     int(hand.per_tai), hand.ruleset)
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
        line = None if payout is None else false_win(payout, hand.deal, hand.ruleset, word == "詐摸")
        st.button(t(f"確定記下{word}"), type="primary", disabled=payout is None, on_click=write,
                  args=(desk, line, expect, clear))
        st.button(t(f"不記{word}"), on_click=at.ask, args=(None,))


def _penalty_form(desk: Desk, expect: int, script: str, clear: Callable[[Draft], None], write: Write) -> None:
    t = in_script_of(script)

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
        st.button(t("確定記下罰款"), type="primary", disabled=problem is not None, on_click=write,
                  args=(desk, penalty(hand_state().deal, net, reason), expect, clear))
        st.button(t("不記罰款"), on_click=table_state().ask, args=(None,))

