"""This phone is mine: a phone may say which player it belongs to (`?player=` in its address, so a reload keeps it;
`?phone=` is the phone itself: `ui/resume.py`); that player's balance and the hands that pay them are marked on it.
Nothing is locked: any phone records.
"""

from __future__ import annotations

import streamlit as st

from ledger import TableInfo
from ui.state import Desk
from ui.table import NOBODY, player_name
from ui.text import in_script

PARAM = "player"  # the address's ?player=: the player id this phone belongs to


def mine(table: TableInfo) -> int | None:
    """The player this phone belongs to, from its address; None for none, or for anything that is not one of the
    table's players (the address is untrusted)."""
    raw = st.query_params.get(PARAM)
    if raw is None or not raw.isdigit() or len(raw) > 3:
        return None
    who = int(raw)
    return who if any(p.id == who for p in table.players) else None


def _keep(key: str) -> None:
    who = st.session_state[key]
    if who == NOBODY:
        st.query_params.pop(PARAM, None)
    else:
        st.query_params[PARAM] = str(who)


def picker(desk: Desk, script: str) -> None:
    table = desk.table
    options = [NOBODY, *(p.id for p in table.players)]
    key = f"phone-{table.revision}"
    st.selectbox(in_script("這支手機是誰的（標出他的輸贏）", script), options,
                 index=options.index(mine(table) or NOBODY), key=key, on_change=_keep, args=(key,),
                 format_func=lambda p: in_script("不指定", script) if p == NOBODY else player_name(table, p, script))
