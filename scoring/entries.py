"""The predicates that detect the entries of a 台 table, one small pure function each.

A ruleset (scoring/rulesets/*.json) names a predicate per entry, with arguments, and says its
台 and what it excludes; nothing here knows 台. A predicate takes a `Decomposition` and returns
  - a bool or a count: the entry counts that many times (0/False: absent; 正花 returns a count),
  - or a list of qualifiers: one line per qualifier (三元牌 中, 三元牌 发; 门风 东), each a tile
    code or a tuple of codes that the display renders by name,
  - or OPEN ("open"): it holds in its open form, worth the entry's `tai_open` (三色同顺 made
    with a chi, 混带么 in a hand that is not 门清).

Each predicate also says which shapes of a win it reads (`SHAPES_OF`): most read the 5 sets
and a pair only; those about tiles, flowers or the situation also read the special shapes
(seven pairs, 十三么) that some tables allow, and the flower ones a flower win.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import cast

from .decompose import is_complete
from .melds import MeldKind
from .reading import HAND_SHAPES, NEEDS, SHAPES, STANDARD, Decomposition, Set
from .tiles import (
    DRAGON_TILES,
    FLOWER_GROUPS,
    FLOWERS,
    PLAYING,
    SEAT_FLOWERS,
    WIND_TILE,
    WIND_TILES,
    is_honour,
    is_terminal,
    rank,
    suit,
)

Result = bool | int | list | str
OPEN = "open"
PREDICATES: dict[str, Callable[..., Result]] = {}
SHAPES_OF: dict[str, frozenset[str]] = {}
NEEDS_OF: dict[str, int] = {}  # bits of reading.NEEDS
# Predicates that read only what the player states about the situation (天胡, 地胡, 人胡, 天听,
# 地听): the same in every reading, so a table may say whose seat may state it (`seat`).
CLAIMS: set[str] = set()
# Predicates that read the origin of an open kong (大明杠 / 加杠) when the named argument is
# given, and then only the situation and the melds: the scorer can ask, without scoring, whether
# an origin the player did not say changes them (score.kong_origins_needed).
ORIGIN_ARGS: dict[str, str] = {}


def predicate(fn: Callable[..., Result] | None = None, *, shapes=(STANDARD,), claim=False, needs=(),
              origin_arg: str | None = None):
    """Register a predicate under its function name; `shapes`: the shapes of a win it reads;
    `claim`: it reads only the situation the player states (see CLAIMS); `needs`: facts of the
    hand (reading.NEEDS) without which it never holds, so that it is not run on such a hand;
    `origin_arg`: the argument with which it reads kongs' origins (see ORIGIN_ARGS)."""
    def register(f: Callable[..., Result]) -> Callable[..., Result]:
        PREDICATES[f.__name__] = f
        SHAPES_OF[f.__name__] = frozenset(shapes)
        NEEDS_OF[f.__name__] = sum(1 << NEEDS.index(n) for n in needs)
        if claim:
            CLAIMS.add(f.__name__)
        if origin_arg:
            ORIGIN_ARGS[f.__name__] = origin_arg
        return f
    return register(fn) if fn is not None else register


def _won_by(r: Decomposition, won_by: str | None) -> bool:
    """won_by: None (either way), "self_draw" (自摸), or "discard" (放铳, 抢杠 included)."""
    if won_by is None:
        return True
    return r.situation.self_draw == (won_by == "self_draw")


@predicate(shapes=HAND_SHAPES, claim=True, needs=("heavenly",))
def heavenly(r: Decomposition) -> bool:
    """天和 / 天胡: the dealer's dealt 17 tiles already win."""
    return r.situation.heavenly


@predicate(shapes=HAND_SHAPES, needs=("concealed",))
def concealed_hand(r: Decomposition, won_by: str | None = None) -> bool:
    """门清 / 門清: no chi, pon or open kong (暗杠 allowed); optionally won a given way."""
    return r.view.open_melds == 0 and _won_by(r, won_by)


@predicate(shapes=HAND_SHAPES, needs=("self_draw",))
def self_drawn(r: Decomposition) -> bool:
    """自摸: the winning tile was drawn by the winner."""
    return r.situation.self_draw


@predicate(shapes=HAND_SHAPES, needs=("one_wait",))
def single_wait(r: Decomposition) -> bool:
    """独听 / 獨聽: the 16 tiles waited on exactly one tile, whatever the shape; a dealt hand
    (天胡) waited on none."""
    return len(r.view.waits) == 1 and not r.situation.heavenly


@predicate(shapes=HAND_SHAPES, needs=("honour_pung",))
def seat_wind_pung(r: Decomposition) -> list:
    """门风 / 門風: a pung or kong of one's seat wind (东家的东…)."""
    t = WIND_TILE[r.situation.seat_wind]
    return [t] if t in r.pung_tiles else []


@predicate(shapes=HAND_SHAPES, needs=("honour_pung",))
def round_wind_pung(r: Decomposition) -> list:
    """圈风 / 圈風: a pung or kong of the round wind."""
    t = WIND_TILE[r.situation.round]
    return [t] if t in r.pung_tiles else []


@predicate(shapes=HAND_SHAPES, needs=("honour_pung",))
def dragon_pungs(r: Decomposition) -> list:
    """三元牌: each pung or kong of 中, 发, 白, one line per dragon."""
    pungs = r.pung_tiles
    return [t for t in DRAGON_TILES if t in pungs] if pungs else []


@predicate
def all_chows(r: Decomposition, no_honours: bool = True, no_flowers: bool = True,
              won_by: str | None = "discard", min_waits: int = 2, two_sided: bool = False,
              no_seat_flowers: bool = False, concealed: bool = False) -> bool:
    """平和 / 平胡: five chows (chi allowed unless `concealed`: 门清) and a pair, with the
    table's conditions on honours, flowers (any, or only one's own: 无本花), how it was won,
    how many tiles it waited on, and whether the winning tile must have completed a chow on
    either side (两面, not 边张/中洞/the pair)."""
    return (
        not r.pung_tiles
        and not (concealed and r.view.open_melds)
        and not (no_honours and r.view.has_honours)
        and not (no_flowers and r.view.flowers)
        and not (no_seat_flowers and seat_flowers(r))
        and _won_by(r, won_by)
        and len(r.view.waits) >= min_waits
        and not (two_sided and _wait_shape(r) != "two_sided")
    )


def _wait_shape(r: Decomposition) -> str:
    """Where the winning tile sits in this reading: "single" (单吊: it pairs), "edge" (边张:
    the 3 of 12 or the 7 of 89), "middle" (中洞/崁张), "two_sided", or "pung" (双碰)."""
    g = r.win_group
    if g is None:
        return "single"
    if g.kind != "chow":
        return "pung"
    low, win = rank(g.tile), rank(r.hand.win)
    if win == low + 1:
        return "middle"
    if (low == 1 and win == 3) or (low == 7 and win == 7):
        return "edge"
    return "two_sided"


@predicate
def wait_shape(r: Decomposition, shape: str, single_wait: bool = True) -> bool:
    """边张 / 偏张 (shape "edge": 12 waiting on 3, 89 on 7), 中洞 / 崁张 ("middle": 24 on 3),
    单吊 / 单骑 ("single": a lone tile waiting on its pair): the winning tile sits so in this
    reading; with single_wait, the hand must also have waited on that one tile only. A dealt
    hand (天胡) waited on no tile, so no shape of a wait holds."""
    if r.situation.heavenly:
        return False
    return _wait_shape(r) == shape and (not single_wait or len(r.view.waits) == 1)


@predicate
def all_melded(r: Decomposition, won_by: str | None = "discard") -> bool:
    """全求人 / 全求: all five sets are chi, pon or open kong; the last tile pairs the single one."""
    return r.view.open_melds == len(r.sets) and _won_by(r, won_by)  # every set an open meld


_DRAGONS, _WINDS = frozenset(DRAGON_TILES), frozenset(WIND_TILES)


def _honour_pungs(r: Decomposition, honours: frozenset[str]) -> int:
    return len(honours.intersection(r.pung_tiles))  # a tile is one pung at most


@predicate(needs=("honour_pung",))
def little_three_dragons(r: Decomposition) -> bool:
    """小三元: two dragon pungs and a dragon pair."""
    return r.pair in _DRAGONS and _honour_pungs(r, _DRAGONS) == 2  # the pair first: cheap, rare


@predicate(needs=("honour_pung",))
def big_three_dragons(r: Decomposition) -> bool:
    """大三元: pungs of all three dragons."""
    return len(r.pung_tiles) >= 3 and _honour_pungs(r, _DRAGONS) == 3


@predicate(needs=("honour_pung",))
def little_four_winds(r: Decomposition) -> bool:
    """小四喜: three wind pungs and a wind pair."""
    return r.pair in _WINDS and _honour_pungs(r, _WINDS) == 3


@predicate(needs=("honour_pung",))
def big_four_winds(r: Decomposition) -> bool:
    """大四喜: pungs of all four winds."""
    return len(r.pung_tiles) >= 4 and _honour_pungs(r, _WINDS) == 4


def _all_pungs(r: Decomposition) -> bool:
    return len(r.pung_tiles) == len(r.sets)


@predicate
def all_pungs(r: Decomposition) -> bool:
    """碰碰和 / 碰碰胡: all five sets are pungs or kongs."""
    return _all_pungs(r)


@predicate(shapes=HAND_SHAPES, needs=("honours", "flush"))
def half_flush(r: Decomposition) -> bool:
    """混一色: at most one suit, and honour tiles."""
    return len(r.view.suits) <= 1 and r.view.has_honours


@predicate(shapes=HAND_SHAPES, needs=("honours", "flush"))
def all_honours(r: Decomposition) -> bool:
    """字一色: honour tiles only."""
    return not r.view.suits


@predicate(shapes=HAND_SHAPES, needs=("flush",))
def full_flush(r: Decomposition) -> bool:
    """清一色: one suit, no honours."""
    return len(r.view.suits) == 1 and not r.view.has_honours


@predicate(shapes=HAND_SHAPES)
def concealed_pungs(r: Decomposition, count: int, no_open_pungs: bool = False) -> bool:
    """三暗刻 / 四暗刻 / 五暗刻: at least `count` concealed pungs (暗杠 counts; a pung the
    winning discard completed is exposed); with no_open_pungs, and no pon or open kong among
    the melds (常见规则 四暗刻 「不可碰或明槓」)."""
    if no_open_pungs and any(g.is_open and g.kind != "chow" for g in r.sets):
        return False
    return r.concealed_pungs >= count


@predicate(shapes=SHAPES, needs=("flowers",))
def seat_flowers(r: Decomposition, outside_sets: bool = False) -> int:
    """正花 / 本花: how many of one's own seat's flowers (东 梅春, 南 兰夏, 西 菊秋, 北 竹冬);
    with outside_sets, only those not in a complete 花杠 group (花杠 不计正花)."""
    held = r.view.flowers
    if not held:
        return 0
    own = SEAT_FLOWERS[r.situation.seat_wind]
    if outside_sets:
        done = {f for g in FLOWER_GROUPS if set(held).issuperset(g) for f in g}
        held = tuple(f for f in held if f not in done)
    return sum(map(held.__contains__, own))  # a flower is held once at most


@predicate(shapes=SHAPES, needs=("four_flowers",))
def flower_sets(r: Decomposition) -> list:
    """花杠 / 花槓: each complete group, 梅兰菊竹 or 春夏秋冬."""
    if len(r.view.flowers) < len(FLOWER_GROUPS[0]):  # too few for a group
        return []
    held = set(r.view.flowers)
    return [g for g in FLOWER_GROUPS if held.issuperset(g)]


@predicate(shapes=SHAPES, needs=("four_flowers",))
def all_flowers(r: Decomposition) -> bool:
    """八仙过海 / 八仙過海: all eight flowers (a flower win by robbing the eighth is 七抢一)."""
    if r.shape == "flowers" and not r.situation.self_draw:
        return False
    return len(set(r.view.flowers)) == len(FLOWERS)


@predicate(shapes=("flowers",))
def flower_win(r: Decomposition, robbed: bool = False) -> bool:
    """花胡, a flower win: 八仙过海 (the eighth flower drawn) or, robbed, 七抢一 / 七搶一 (seven
    held and the eighth robbed from another player, who pays as a discarder)."""
    return r.situation.self_draw != robbed


@predicate(shapes=HAND_SHAPES, needs=("last_tile",))
def last_tile(r: Decomposition, won_by: str | None = None) -> bool:
    """海底捞月 (self-drawn) / 河底捞鱼 (discard): won on the last tile of the wall."""
    return r.situation.last_tile and _won_by(r, won_by)


def kong_source(m) -> str | None:
    """What a meld is as a kong: MeldKind.ANKONG's code (暗杠), an open kong's origin ("called" 大明杠,
    "added" 加杠; None where not said), or None for a chi or pon."""
    if m.kind == MeldKind.ANKONG:
        return MeldKind.ANKONG.value
    return m.origin if m.kind == MeldKind.KONG else None


@predicate(shapes=HAND_SHAPES, needs=("self_draw",), origin_arg="after")
def kong_replacement(r: Decomposition, flowers: bool = False, after: list[str] | None = None) -> bool:
    """杠上开花 / 槓上開花: self-drawn on the replacement tile after a kong; with flowers, also
    after a flower (补花); with `after`, only after a kong of those sources (kong_source:
    常见规则 「暗槓、加槓」, not 「明槓」) — the hand holding one (it does not say which kong came last)."""
    s = r.situation
    if not s.self_draw:
        return False
    if flowers and s.after_flower:
        return True
    if not s.after_kong:
        return False
    kongs = [m for m in r.hand.melds if m.kind.is_kong]  # a kong is always a meld
    return bool(kongs) if after is None else any(kong_source(m) in after for m in kongs)


@predicate(shapes=HAND_SHAPES, needs=("rob_kong",))
def robbing_kong(r: Decomposition) -> bool:
    """抢杠 / 搶槓: won on the tile another player added to a pung (加杠)."""
    return r.situation.rob_kong and not r.situation.self_draw


# -- first-turn wins and declared readiness (地胡, 人胡, 天听, 地听) -------------------------

@predicate(shapes=HAND_SHAPES, claim=True, needs=("earthly",))
def earthly(r: Decomposition) -> bool:
    """地胡: a non-dealer self-draws the win on the first draw, nobody having called a tile."""
    return r.situation.earthly and r.situation.self_draw


@predicate(shapes=HAND_SHAPES, claim=True, needs=("human",))
def human(r: Decomposition, declared_ready: bool = False) -> bool:
    """人胡: won off a discard in the first go-round, nobody having called a tile; with
    declared_ready, only after declaring 天听 (改良式: 人胡 必为天听)."""
    s = r.situation
    return s.human and not s.self_draw and (not declared_ready or s.heavenly_ready)


@predicate(shapes=HAND_SHAPES, claim=True)
def declared_ready(r: Decomposition, when: str) -> bool:
    """天听 (when "dealt": ready on the dealt hand) / 地听 (when "first": ready with the first
    discard): declared and kept to the win."""
    return r.situation.heavenly_ready if when == "dealt" else r.situation.earthly_ready


# -- sets and chows (改良式 patterns) -----------------------------------------------------

def _chows(r: Decomposition) -> list[Set]:
    return [g for g in r.sets if g.kind == "chow"]


@predicate
def pure_double_chow(r: Decomposition) -> bool:
    """一杯口 / 一盃口: two identical chows, at least one formed in the hand (not a chi, not
    completed by the winning discard)."""
    seen = Counter(g.tile for g in _chows(r))
    return any(
        n >= 2 and any(g.tile == t and g.meld is None and g.concealed for g in r.sets)
        for t, n in seen.items()
    )


@predicate
def identical_chows(r: Decomposition, count: int) -> bool:
    """一色四同顺 (四海一家): `count` identical chows (chi allowed)."""
    return any(n >= count for n in Counter(g.tile for g in _chows(r)).values())


@predicate
def mixed_triple_chow(r: Decomposition) -> Result:
    """三色同顺 / 三色同順: the same chow in 万, 筒 and 条 (789万 789筒 789条); OPEN when it
    cannot be made without a chi."""
    best: Result = False
    by_start: dict[int, dict[str, bool]] = {}
    for g in _chows(r):
        # per start rank and suit: True when one such chow is not a chi
        d = by_start.setdefault(rank(g.tile), {})
        d[suit(g.tile)] = d.get(suit(g.tile), False) or g.meld != MeldKind.CHI
    for d in by_start.values():
        if len(d) == 3:
            if all(d.values()):
                return True
            best = OPEN
    return best


@predicate(shapes=HAND_SHAPES)
def pure_straight(r: Decomposition) -> Result:
    """一条龙 / 一條龍: 1 to 9 of one suit all in the hand (不必成三顺); OPEN when a chi is
    needed for it (the chi'd tiles left out, a rank is missing)."""
    result: Result = False
    for s in r.view.suits:
        ranks = {rank(t) for t in r.view.tiles if suit(t) == s}
        if len(ranks) < 9:
            continue
        unchi = Counter(t for t in r.view.tiles if suit(t) == s)
        for m in r.hand.melds:
            if m.kind == MeldKind.CHI:
                unchi.subtract(m.tiles)
        if len({rank(t) for t, n in unchi.items() if n > 0}) == 9:
            return True
        result = OPEN
    return result


@predicate
def triple_pung(r: Decomposition) -> bool:
    """三同刻: pungs of the same number in 万, 筒 and 条."""
    numbered = [t for t in r.pung_tiles if not is_honour(t)]
    return any(len({suit(t) for t in numbered if rank(t) == n}) == 3 for n in range(1, 10))


@predicate
def consecutive_pungs(r: Decomposition, count: int) -> bool:
    """三连刻 / 四连刻 / 五连刻: `count` pungs of consecutive numbers in one suit."""
    held = {t for t in r.pung_tiles if not is_honour(t)}
    for t in held:
        if all(f"{rank(t) + k}{suit(t)}" in held for k in range(count)):
            return True
    return False


@predicate(shapes=HAND_SHAPES)
def kongs(r: Decomposition, count: int) -> bool:
    """两杠子 / 三杠子 / 四杠胡: at least `count` kongs, open or concealed."""
    return sum(g.kind == "kong" for g in r.sets) >= count


def _pair(r: Decomposition) -> str:
    """The pair of a standard reading, the shape an entry reads unless it says others (`predicate`)."""
    return cast(str, r.pair)


def _group_tiles(g: Set) -> tuple[str, ...]:
    if g.kind == "chow":
        i = PLAYING.index(g.tile)
        return PLAYING[i:i + 3]
    return (g.tile,)


@predicate
def outside_hand(r: Decomposition, honours: bool, chows_only: bool = False) -> Result:
    """混带么 (honours: some 字牌) / 全带么 (no 字牌, the pair a 1 or 9): every set and the pair
    holds a 1, a 9 or an honour, with at least one chow (all pungs is 混老头 / 清老头 / 字一色),
    or with chows_only every set a chow (改良式 全带么 「全为一九顺子」); OPEN when the hand
    is not 门清."""
    def outside(t: str) -> bool:
        return is_terminal(t) or (honours and is_honour(t))
    chows = _chows(r)
    if not chows or (chows_only and len(chows) < len(r.sets)):
        return False
    if not all(any(outside(t) for t in _group_tiles(g)) for g in r.sets) or not outside(_pair(r)):
        return False
    if r.view.has_honours != honours:
        return False
    return True if r.view.open_melds == 0 else OPEN


@predicate(shapes=HAND_SHAPES)
def all_simples(r: Decomposition) -> bool:
    """断么九 / 斷么九: no 1, no 9 and no honour anywhere in the hand."""
    return not any(is_terminal(t) or is_honour(t) for t in r.view.tiles)


@predicate
def wind_sets(r: Decomposition, pungs: int, wind_pair: bool) -> bool:
    """小三风 (2 wind pungs and a wind pair) / 大三风 (3 wind pungs, the pair not a wind): exactly
    `pungs` wind pungs, and the pair a wind or not."""
    return _honour_pungs(r, _WINDS) == pungs and (r.pair in WIND_TILES) == wind_pair


@predicate
def terminal_pungs(r: Decomposition, honours: bool) -> bool:
    """混老头 (1/9 pungs and honour pungs, both) / 清老头 (1/9 pungs only): every set a pung of
    么九 tiles and the pair one too."""
    tiles = r.view.tiles
    if not _all_pungs(r) or not all(is_terminal(t) or is_honour(t) for t in tiles):
        return False
    return r.view.has_honours == honours and any(is_terminal(t) for t in tiles)


@predicate
def pungs_of(r: Decomposition, tiles: list) -> bool:
    """孔雀东南飞 (1条 东 南) / 风花雪月 (a wind, 5筒, 白, 1筒): a pung of each listed tile; an
    inner list is "any one of these"."""
    held = set(r.pung_tiles)
    used: set[str] = set()
    for want in tiles:
        options = [want] if isinstance(want, str) else list(want)
        found = next((t for t in options if t in held and t not in used), None)
        if found is None:
            return False
        used.add(found)
    return True


@predicate
def pungs_and_pair(r: Decomposition, tiles: list[str]) -> bool:
    """桃园三结义 (中 发 白 and 3万 3筒 3条): all five sets are pungs, and the five pungs and the
    pair are exactly the listed tiles."""
    return _all_pungs(r) and sorted([*r.pung_tiles, _pair(r)]) == sorted(tiles)


@predicate
def straight_and_honours(r: Decomposition, honours: list[str]) -> bool:
    """台湾纵贯线: 123 456 789 of one suit, and the listed honours (北 中 南) as the other two
    sets and the pair (chi and pon allowed)."""
    starts = {g.tile for g in _chows(r)}
    line = any(all(f"{n}{s}" in starts for n in (1, 4, 7)) for s in "mps")
    rest = sorted([*(g.tile for g in r.sets if g.is_pung), _pair(r)])
    return line and len(_chows(r)) == 3 and rest == sorted(honours)


@predicate
def limited_tiles(r: Decomposition, tiles: list[str], free_group: bool = False, min_sum: int = 0) -> bool:
    """绿一色 (2 3 4 6 8条 and 发), 全将碰 (2 5 8 only), 百万石 (5-9万 summing to 100): every
    set and the pair use only the listed tiles, save one group (a set or the pair) when
    free_group (一搭可随意吃碰); with min_sum, the numbers on the listed tiles of the pungs,
    kongs and the pair add up to it (百万石 「刻子或对子合计」: chows do not count)."""
    allowed = set(tiles)
    groups = [(_group_tiles(g) if g.kind == "chow" else (g.tile,)) for g in r.sets] + [(r.pair,)]
    outside = sum(not all(t in allowed for t in g) for g in groups)
    if outside > (1 if free_group else 0):
        return False
    return not min_sum or _pung_and_pair_sum(r, allowed) >= min_sum


def _pung_and_pair_sum(r: Decomposition, allowed: set[str]) -> int:
    """The numbers on the tiles of the pungs, kongs (four tiles) and pair that are `allowed`."""
    sets = sum(rank(g.tile) * (4 if g.kind == "kong" else 3)
               for g in r.sets if g.is_pung and g.tile in allowed)
    return sets + (2 * rank(r.pair) if r.pair in allowed else 0)


@lru_cache(maxsize=4096)
def _waits_all_nine(counts13: tuple[int, ...]) -> bool:
    """Thirteen tiles of one suit (counts by rank) whose shape any of the nine ranks completes
    (九洞), a rank the hand holds all four of included: 变形九连宝灯 hold four of one rank."""
    for k in range(9):
        c = list(counts13) + [0] * 25
        c[k] += 1
        if not is_complete(c):
            return False
    return True


@predicate
def nine_gates(r: Decomposition, pure: bool) -> bool:
    """九连宝灯: thirteen concealed tiles of one suit that waited on all nine of it (九洞), the
    winning tile one of them, and one set besides (一搭可随意吃碰). pure (纯正): the fourteen are
    1112345678999 and one more; else (变形) any thirteen that wait on all nine."""
    w = r.hand.win
    if is_honour(w):
        return False
    s = suit(w)
    # groups are values (two alike may be one object): the win group and the free set by place
    won = r.sets.index(r.win_group) if r.win_group is not None else -1
    for k in range(len(r.sets)):
        if k == won:
            continue
        core = r.sets[:k] + r.sets[k + 1:]
        if any(g.meld is not None for g in core):
            continue
        tiles = [t for g in core for t in (_group_tiles(g) if g.kind == "chow" else (g.tile,) * 3)]
        tiles += [_pair(r)] * 2
        if any(suit(t) != s for t in tiles):
            continue
        counts = [0] * 9
        for t in tiles:
            counts[rank(t) - 1] += 1
        if pure:
            if all(c >= n for c, n in zip(counts, (3, 1, 1, 1, 1, 1, 1, 1, 3), strict=True)):
                return True
            continue
        counts[rank(w) - 1] -= 1
        if _waits_all_nine(tuple(counts)):
            return True
    return False


@predicate
def pure_cups(r: Decomposition) -> bool:
    """清杯口: one suit only, three pungs of consecutive numbers, two identical chows (一杯口)
    and the pair, 门清."""
    chows = [g.tile for g in _chows(r)]
    return (
        r.view.open_melds == 0
        and len(r.view.suits) == 1 and not r.view.has_honours
        and len(chows) == 2 and chows[0] == chows[1]
        and consecutive_pungs(r, 3)
    )


# -- special shapes ----------------------------------------------------------------------

@predicate(shapes=("orphans",))
def thirteen_orphans(r: Decomposition) -> bool:
    """十三么 (国士无双): the thirteen 么九 tiles, one of them twice, and one set."""
    return True


@predicate(shapes=("pairs",))
def seven_pairs(r: Decomposition, pairs_of: list[str] | None = None, pung: bool = False,
                concealed: bool = False) -> bool:
    """瀝咕瀝咕 (八对半: 门清, seven pairs and a pung: pung, concealed) / 大车轮 (the seven pairs
    are 2筒 to 8筒: pairs_of): seven pairs and one set."""
    if pairs_of is not None and sorted(r.pairs) != sorted(pairs_of):
        return False
    if pung and not _all_pungs(r):
        return False
    return not (concealed and r.view.open_melds)


# -- house rules of the common table (地方性规则) --------------------------------------------

@predicate(shapes=SHAPES)
def any_flowers(r: Decomposition) -> int:
    """见花见台 / 見花見台: every flower, whosever seat it is."""
    return len(r.view.flowers)


@predicate(shapes=HAND_SHAPES, needs=("honour_pung",))
def wind_pungs(r: Decomposition) -> list:
    """见风见台 / 見風見台: each pung or kong of a wind, whatever the seat and round."""
    pungs = r.pung_tiles
    return [t for t in WIND_TILES if t in pungs]


@predicate(shapes=HAND_SHAPES)
def kong_count(r: Decomposition, kind: str) -> int:
    """明杠或补杠 (kind "kong": open kongs, 加杠 included) / 暗杠 (kind "ankong"): how many."""
    return sum(g.meld == kind for g in r.sets)


@predicate(shapes=HAND_SHAPES)
def no_honours_no_flowers(r: Decomposition) -> bool:
    """无字无花 / 無字無花: no honour tile and no flower."""
    return not r.view.has_honours and not r.view.flowers
