"""The predicates that detect the entries of a 台 table, one small pure function each.

A ruleset (scoring/rulesets/*.json) names a predicate per entry, with arguments, and says its
台 and what it excludes; nothing here knows 台. A predicate takes a `Reading` and returns
  - a bool or a count: the entry counts that many times (0/False: absent; 正花 returns a count),
  - or a list of qualifiers: one line per qualifier (三元牌 中, 三元牌 发; 门风 东), each a tile
    code or a tuple of codes that the display renders by name.
"""

from __future__ import annotations

from collections.abc import Callable

from .reading import Reading
from .tiles import DRAGON_TILES, FLOWER_GROUPS, FLOWERS, SEAT_FLOWERS, WIND_TILE, WIND_TILES

Result = bool | int | list
PREDICATES: dict[str, Callable[..., Result]] = {}


def predicate(fn: Callable[..., Result]) -> Callable[..., Result]:
    PREDICATES[fn.__name__] = fn
    return fn


def _won_by(r: Reading, won_by: str | None) -> bool:
    """won_by: None (either way), "self_draw" (自摸), or "discard" (放铳, 抢杠 included)."""
    if won_by is None:
        return True
    return r.situation.self_draw == (won_by == "self_draw")


@predicate
def heavenly(r: Reading) -> bool:
    """天和 / 天胡: the dealer's dealt 17 tiles already win."""
    return r.situation.heavenly


@predicate
def concealed_hand(r: Reading, won_by: str | None = None) -> bool:
    """门清 / 門清: no chi, pon or open kong (暗杠 allowed); optionally won a given way."""
    return r.view.open_melds == 0 and _won_by(r, won_by)


@predicate
def self_drawn(r: Reading) -> bool:
    """自摸: the winning tile was drawn by the winner."""
    return r.situation.self_draw


@predicate
def single_wait(r: Reading) -> bool:
    """独听 / 獨聽: the 16 tiles waited on exactly one tile, whatever the shape."""
    return len(r.view.waits) == 1


@predicate
def seat_wind_pung(r: Reading) -> list:
    """门风 / 門風: a pung or kong of one's seat wind (东家的东…)."""
    t = WIND_TILE[r.situation.seat]
    return [t] if t in r.pungs() else []


@predicate
def round_wind_pung(r: Reading) -> list:
    """圈风 / 圈風: a pung or kong of the round wind."""
    t = WIND_TILE[r.situation.round]
    return [t] if t in r.pungs() else []


@predicate
def dragon_pungs(r: Reading) -> list:
    """三元牌: each pung or kong of 中, 发, 白, one line per dragon."""
    pungs = r.pungs()
    return [t for t in DRAGON_TILES if t in pungs]


@predicate
def all_chows(r: Reading, no_honours: bool = True, no_flowers: bool = True,
              won_by: str | None = "discard", min_waits: int = 2) -> bool:
    """平和 / 平胡: five chows (chi allowed) and a pair, with the table's conditions on honours,
    flowers, how it was won and how many tiles it waited on."""
    return (
        all(g.kind == "chow" for g in r.sets)
        and not (no_honours and r.view.has_honours)
        and not (no_flowers and r.hand.flowers)
        and _won_by(r, won_by)
        and len(r.view.waits) >= min_waits
    )


@predicate
def all_melded(r: Reading, won_by: str | None = "discard") -> bool:
    """全求人 / 全求: all five sets are chi, pon or open kong; the last tile pairs the single one."""
    return all(g.is_open for g in r.sets) and _won_by(r, won_by)


def _honour_pungs(r: Reading, honours: tuple[str, ...]) -> int:
    return sum(t in honours for t in r.pungs())


@predicate
def little_three_dragons(r: Reading) -> bool:
    """小三元: two dragon pungs and a dragon pair."""
    return _honour_pungs(r, DRAGON_TILES) == 2 and r.pair in DRAGON_TILES


@predicate
def big_three_dragons(r: Reading) -> bool:
    """大三元: pungs of all three dragons."""
    return _honour_pungs(r, DRAGON_TILES) == 3


@predicate
def little_four_winds(r: Reading) -> bool:
    """小四喜: three wind pungs and a wind pair."""
    return _honour_pungs(r, WIND_TILES) == 3 and r.pair in WIND_TILES


@predicate
def big_four_winds(r: Reading) -> bool:
    """大四喜: pungs of all four winds."""
    return _honour_pungs(r, WIND_TILES) == 4


@predicate
def all_pungs(r: Reading) -> bool:
    """碰碰和 / 碰碰胡: all five sets are pungs or kongs."""
    return all(g.is_pung for g in r.sets)


@predicate
def half_flush(r: Reading) -> bool:
    """混一色: at most one suit, and honour tiles."""
    return len(r.view.suits) <= 1 and r.view.has_honours


@predicate
def all_honours(r: Reading) -> bool:
    """字一色: honour tiles only."""
    return not r.view.suits


@predicate
def full_flush(r: Reading) -> bool:
    """清一色: one suit, no honours."""
    return len(r.view.suits) == 1 and not r.view.has_honours


@predicate
def concealed_pungs(r: Reading, count: int) -> bool:
    """三暗刻 / 四暗刻 / 五暗刻: at least `count` concealed pungs (暗杠 counts; a pung the
    winning discard completed is exposed)."""
    return sum(g.is_pung and g.concealed for g in r.sets) >= count


@predicate
def seat_flowers(r: Reading) -> int:
    """正花: how many of one's own seat's flowers (东 梅春, 南 兰夏, 西 菊秋, 北 竹冬)."""
    own = SEAT_FLOWERS[r.situation.seat]
    return sum(f in own for f in r.hand.flowers)


@predicate
def flower_sets(r: Reading) -> list:
    """花杠 / 花槓: each complete group, 梅兰菊竹 or 春夏秋冬."""
    held = set(r.hand.flowers)
    return [g for g in FLOWER_GROUPS if held.issuperset(g)]


@predicate
def all_flowers(r: Reading) -> bool:
    """八仙过海 / 八仙過海: all eight flowers."""
    return set(r.hand.flowers) == set(FLOWERS)


@predicate
def last_tile(r: Reading, won_by: str | None = None) -> bool:
    """海底捞月 (self-drawn) / 河底捞鱼 (discard): won on the last tile of the wall."""
    return r.situation.last_tile and _won_by(r, won_by)


@predicate
def kong_replacement(r: Reading) -> bool:
    """杠上开花 / 槓上開花: self-drawn on the replacement tile after a kong."""
    s = r.situation
    return s.after_kong and s.self_draw and any(g.kind == "kong" for g in r.sets)


@predicate
def robbing_kong(r: Reading) -> bool:
    """抢杠 / 搶槓: won on the tile another player added to a pung (加杠)."""
    return r.situation.rob_kong and not r.situation.self_draw
