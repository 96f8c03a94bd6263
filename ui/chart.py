"""The evening's running totals as a chart whose every word is the player's: axis titles, legend,
tooltips and the chart's description in the chosen script. Vega's own generated descriptions of
each mark and axis ("X-axis titled … for a linear scale …") are English, so they are turned off;
the chart's description says what it shows instead."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ui.text import in_script

PLAYER, TOTAL = "玩家", "累計"


def evening_chart(columns: dict[str, list[int]], script: str) -> alt.Chart:
    """`columns` as `ui.table.chart_columns` gives them: the hand numbers first, then each player's
    running total (the player's name as the key)."""
    hand, *players = columns
    player, total = in_script(PLAYER, script), in_script(TOTAL, script)
    rows = pd.DataFrame([{hand: seq, player: who, total: money}
                         for who in players for seq, money in zip(columns[hand], columns[who], strict=True)])
    return (
        alt.Chart(rows, description=in_script("每一局之後各家的累計輸贏", script))
        .mark_line(point=True)
        .encode(
            x=alt.X(f"{hand}:Q", title=hand, axis=alt.Axis(tickMinStep=1, format="d")),
            y=alt.Y(f"{total}:Q", title=total),
            # two seats a line: four players with their names overran a phone's width, and the last was cut off
            color=alt.Color(f"{player}:N", title=None, sort=players, legend=alt.Legend(orient="bottom", columns=2)),
            tooltip=[alt.Tooltip(f"{player}:N"), alt.Tooltip(f"{hand}:Q"), alt.Tooltip(f"{total}:Q", format=",d")],
        )
        .configure(aria=False)
    )
