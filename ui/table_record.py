"""Recording the hand at the table (`confirm`, under the result; `recorded` says what was, at the top): the hand
as shown (or a 流局, or the hand being edited), as the hand number the page showed, so two phones confirming one
hand record it once. A phone that loses a race reloads the table and keeps its hand, and says what changed. A
failing ledger file shows its message and leaves the hand on the page as it was.

Where the table's rules allow it, `several_winners` (called before `confirm`) sets a win aside while the next
winner of the same discard is entered, or adds a winner to the last hand, and `confirm` records them as one hand."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ledger import Conflict, LedgerError, LedgerLine, Recorded, deal_after_line, draw, shared_win, win
from scoring.draft import Draft
from scoring.hand import HandError
from scoring.payout import Deal, SharedVerdict, Verdict
from scoring.ruleset import RulesetError, load_ruleset
from scoring.script import in_script_of
from scoring.seats import SEATS, Seat
from ui.chrome import to_top
from ui.result import Judged, SetAside, evaluate_several, signed
from ui.state import Desk, hand_state, table_state
from ui.table import deal_text, player, result_text
from ui.table_history import load_hand
from ui.table_penalties import line_buttons, line_form
from ui.text import in_script


def write(desk: Desk, line: LedgerLine, expect: int, clear: Callable[[Draft], None],
           learn: Callable[[Recorded], str | None] | None = None) -> None:
    """Record `line` as hand `expect` (what the page showed when the button was pressed) or, while
    editing, in place of the hand being edited; then `learn(the hand recorded)`, where given, and what
    it says goes with the note. A callback: the next run shows what happened."""
    at = table_state()
    editing = at.editing
    at.asked = None
    try:
        done = (desk.ledger.edit(desk.code, editing[0], line, editing[1]) if editing is not None
                else desk.ledger.record(desk.code, line, expect, at.seating, at.first_dealer))
    except Conflict as exc:
        last = exc.latest
        shown = "" if not isinstance(last, Recorded) else (
            f"（第 {last.seq} 局：{result_text(last.line, desk.table, 'traditional', last.seating)}）")
        if editing is not None:  # the hand changed under the edit: the edit is dropped, the tiles stay
            at.editing = None
            at.conflict = {"text": str(exc) + shown + "。你的修改沒有存；要改請重新按「修改這一局」。"}
        else:
            at.conflict = {"text": str(exc) + shown, "deal": line.deal, "winner": line.winner,
                                 "total": line.total, "net": line.net}
        at.refresh = True  # the page takes the deal as the ledger now has it; the hand stays
        return
    except LedgerError as exc:
        at.failure = str(exc)
        return
    at.editing = at.seen = at.conflict = None
    at.forget_lines()
    at.note = f"第 {done.seq} 局記好了：{result_text(done.line, desk.table, 'traditional', done.seating)}"
    if editing is not None:
        at.deals_apart = _deals_apart(desk, done)
    learned = learn(done) if learn is not None else None
    if learned:
        at.note += f"。{learned}"
    clear(Draft())  # the next hand starts empty, its deal filled in from the ledger


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
    now = hand_state().deal
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


def recorded(script: str) -> None:
    """What the last write recorded, said once at the top of the page, where the page goes back to for the next
    hand (`ui.chrome.to_top`)."""
    at = table_state()
    if at.note:
        st.success(in_script(at.note, script))
        to_top()
        at.note = None


def confirm(desk: Desk, judged: Judged, photo_id: str | None, script: str,
            clear: Callable[[Draft], None], learn: Callable[[Recorded], str | None] | None = None) -> None:
    """The buttons that record this hand (or a 流局) at the table, exactly as shown on this run;
    `clear(draft)` empties the page's hand once it is recorded; `learn(hand)` runs once a win is
    (the table's memory taught the photo's tiles: `ui.table_memory.learn_hand`)."""
    t = in_script_of(script)

    at, hand = table_state(), hand_state()
    editing = at.editing
    expect = editing[0] if editing else at.expect
    assert expect is not None  # the desk took the table's next hand number before the page is drawn
    st.markdown(t(f"**修改第 {expect} 局**" if editing else f"**記到牌桌：第 {expect} 局**"))
    if at.conflict:
        st.warning(t(_conflict_text(at.conflict, judged.verdict, desk)))
    if at.failure:
        st.error(t("沒有記進牌桌（這一手還在）：" + at.failure))
        at.failure = None
    if at.deals_apart:
        st.warning(t(at.deals_apart))
        at.deals_apart = None
    photo = at.edit_photo if editing else photo_id
    asked = at.asked
    if asked and asked[0] == "draw" and asked[1] != expect:  # another phone recorded hands since it was asked
        st.warning(t(f"按「流局」時是第 {asked[1]} 局，別的手機已經記到第 {expect - 1} 局：沒有記流局。"
                     f"現在要記的是第 {expect} 局，是流局的話請再按一次。"))
        at.asked = None
    if at.asked == ("draw", expect):
        st.warning(t(f"確定第 {expect} 局是流局（沒人胡，莊家連莊）？"))
        with st.container(horizontal=True):
            st.button(t("確定流局"), type="primary", on_click=write,
                      args=(desk, draw(hand.deal), expect, clear))
            st.button(t("不是流局"), on_click=at.ask, args=(None,))
        return
    if line_form(desk, expect, script, clear, write):
        return
    with st.container(horizontal=True):
        line = _win_line(judged, photo)
        if line is not None:
            st.button(t("更新這一局" if editing else "胡了，記下這一局"), type="primary", on_click=write,
                      args=(desk, line, expect, clear, learn))
        st.button(t("記成流局" if editing else "流局（沒人胡）"), on_click=at.ask, args=(("draw", expect),))
        line_buttons(expect, script)
        if editing:
            st.button(t("取消修改"), on_click=_cancel_edit, args=(clear,))


def _cancel_edit(clear: Callable[[Draft], None]) -> None:
    """The edit dropped: the hand it loaded goes too (left on the page, it was the next hand, one tap from being
    recorded twice); the page is at the next hand again, its deal and stakes the table's."""
    at = table_state()
    at.editing = at.seen = at.asked = None
    at.forget_lines()
    clear(Draft())


def judge_discard(verdict: Verdict | None) -> tuple[SharedVerdict | None, str | None]:
    """The wins set aside and this one (None: none being entered) as one discard, judged once per run (with
    `verdict`, into the page's `ui.result.Judged`), or why they cannot be one (for the player); (None, None) where no
    wins are set aside."""
    if not table_state().setting_aside():
        return None, None
    try:
        return _shared(verdict), None
    except HandError as exc:
        return None, exc.for_player
    except RulesetError as exc:
        return None, str(exc)


def _shared(verdict: Verdict | None) -> SharedVerdict:
    hand = hand_state()
    discarder = verdict.result.discarder if verdict is not None else (
        hand.how if isinstance(hand.how, Seat) else None)
    deal = verdict.result.deal if verdict is not None else hand.deal
    return evaluate_several(table_state().aside, verdict, deal, discarder, int(hand.base), int(hand.per_tai),
                            hand.ruleset)


def discard_summary(desk: Desk, judged: Judged, script: str) -> str | None:
    """The top bar while wins are set aside for one discard: every winner's 台 and everyone's money on the line that
    胡了 records (not the current winner's alone); None where none are set aside or there is nothing whole yet."""
    line = _win_line(judged, None) if table_state().setting_aside() else None
    if line is None:
        return None
    return f"**{result_text(line, desk.table, script)}**  \n" + " · ".join(
        f"{player(s, desk.table, script)} {signed(n)}" for s, n in line.net_by_seat.items())


def _win_line(judged: Judged, photo: str | None) -> LedgerLine | None:
    """What "胡了" records: this win, or with wins set aside the one discard they make (None where
    there is nothing whole to record: no win, or a hand still being entered beside the wins set aside)."""
    if not table_state().setting_aside():
        return None if judged.verdict is None else win(judged.verdict, photo)
    if judged.verdict is None and not hand_state().draft.empty:
        return None
    return None if judged.shared is None else shared_win(judged.shared, photo)  # None: `several_winners` says why


def _set_aside(verdict: Verdict, clear: Callable[[Draft], None]) -> None:
    """This win waits while the next winner's hand is entered: the page is cleared for it, keeping
    the discarder and what was true of the discard itself (河底, 搶槓)."""
    at, hand = table_state(), hand_state()
    aside = (*at.aside, SetAside.of(verdict))
    discard = {flag: hand.flags()[flag] for flag in ("last_tile", "rob_kong")}
    clear(Draft())
    at.aside = aside
    hand.say(None, verdict.result.discarder)
    hand.set_flags(discard)


def _drop_aside(index: int) -> None:
    at = table_state()
    at.aside = at.aside[:index] + at.aside[index + 1:]


def _add_winner(desk: Desk, seq: int, load: Callable[[Draft], None]) -> None:
    """Hand `seq` opened as an edit with all its winners set aside, for one more winner of its discard."""
    load_hand(desk, seq, load)
    at, hand = table_state(), hand_state()
    if at.editing is None:
        return  # it could not be read: `load_hand` says so
    first = next(h for h in desk.hands if h.seq == seq).scored_hand()
    assert first is not None and first.table is not None  # a win's hand, stored seated: `load_hand` opened it
    assert hand.winner is not None  # a win's: `load_hand` said who won it
    at.aside = (SetAside(first, hand.winner, first.table.declared_ready), *at.aside)
    hand.say(None, hand.how)
    load(Draft())


def several_winners(desk: Desk, judged: Judged, script: str, clear: Callable[[Draft], None],
                    load: Callable[[Draft], None]) -> None:
    """One discard won by several seats (一炮多響), where the table's rules allow it: the wins set
    aside and what they come to with this one; a button to set this win aside and enter the next
    winner's hand; one to add a winner to the last hand recorded, when it was won off a discard."""
    t = in_script_of(script)

    at, hand, verdict, shared = table_state(), hand_state(), judged.verdict, judged.shared
    rules, aside = hand.settlement(), at.aside
    if aside:
        st.markdown(t("**一炮多響**：這張牌已經有這幾家胡了（在上面輸入下一家的牌，或直接記下）"))
        for i, one in enumerate(aside):
            with st.container(horizontal=True):
                st.markdown(player(one.winner, desk.table, script))
                st.button(t("拿掉這一家"), key=f"aside-drop-{i}", on_click=_drop_aside, args=(i,))
        if shared is None:
            st.error(t("一炮多響算不出來：") + (judged.shared_problem or ""))
        else:
            st.table([{t("誰胡"): player(v.result.winner, desk.table, script), "台": v.payout.payments[0].tai,
                       t("放槍的人付"): v.payout.payments[0].amount} for v in shared.verdicts], hide_index=True)
            st.caption(" · ".join(f"{player(s, desk.table, script)} {signed(n)}" for s, n in shared.net.items()))
    if rules is not None and rules.several_winners and verdict is not None and verdict.result.discarder is not None:
        st.button(t("這張牌還有別家胡（一炮多響）：先放著這一家，輸入下一家的牌"), on_click=_set_aside,
                  args=(verdict, clear))
    last = desk.hands[-1] if desk.hands else None
    if (last is not None and last.line.discarder is not None and not aside and hand.draft.empty
            and at.editing is None and _several_allowed(last.line.ruleset)):
        st.button(t(f"第 {last.seq} 局那張牌還有別家胡：加一家"), on_click=_add_winner, args=(desk, last.seq, load))


def _several_allowed(ruleset: str | None) -> bool:
    """A hand played under `ruleset` may have several winners of one discard (the rules it was played under, not
    the table's now: it is edited under them)."""
    try:
        return ruleset is not None and load_ruleset(ruleset).settlement.several_winners
    except RulesetError:
        return False


def start_over() -> None:
    """The player starts another hand (清空手牌, a new photo): a race lost with the hand that was on the page is
    over. Its warning goes (it would compare the new hand with the lost one), and so do its winner and how (the
    new hand would be scored for them)."""
    at = table_state()
    if at.conflict and "winner" in at.conflict:
        hand_state().say(None, None)
    at.conflict = None
