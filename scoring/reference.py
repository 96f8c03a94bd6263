"""A plain reference scorer of the default table (tw16/2026.09-p0) only, written apart from the
scorer: the yardstick of `python -m scoring.bench` and an oracle for the tests.

It reads the spec (shared/rules/tw16-2026.09-p0.md) the direct way: the hand's 34 counts, every
split found by recursion over them, every place of the winning tile in a split, and each 台 entry
a plain function of one reading, its exclusions written out as code. It shares nothing with the
scorer but the hand's JSON form, so that the two agreeing means something; it knows no other
ruleset and checks only what it needs to score (tile count, copies, that the tiles win).

    from scoring.reference import score_hand
    total, items = score_hand({"concealed": [...], "win": "6s", "seat": "E", "round": "E", ...})
"""

from __future__ import annotations

from dataclasses import dataclass

_SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27}
_WIND = {"E": 27, "S": 28, "W": 29, "N": 30}  # 东 南 西 北 as tile indexes
_DRAGONS = (31, 32, 33)  # 中 发 白
_SHORT = {27: "东", 28: "南", 29: "西", 30: "北", 31: "中", 32: "发", 33: "白"}
_OWN_FLOWERS = {"E": ("1f", "5f"), "S": ("2f", "6f"), "W": ("3f", "7f"), "N": ("4f", "8f")}
_FLOWER_GROUPS = ((("1f", "2f", "3f", "4f"), "梅兰菊竹"), (("5f", "6f", "7f", "8f"), "春夏秋冬"))


def _index(tile: str) -> int:
    if len(tile) != 2 or tile[1] not in _SUIT_BASE or not "1" <= tile[0] <= ("7" if tile[1] == "z" else "9"):
        raise ValueError(f"not a playing tile: {tile!r}")
    return _SUIT_BASE[tile[1]] + int(tile[0]) - 1


def _is_honour(i: int) -> bool:
    return i >= 27


def _is_terminal_or_honour(i: int) -> bool:
    return i >= 27 or i % 9 in (0, 8)


# -- splits -------------------------------------------------------------------------------

def _sets(counts: list[int], start: int):
    """Every way the counts split into chows and pungs: lists of ("chow"|"pung", index)."""
    i = start
    while i < 34 and counts[i] == 0:
        i += 1
    if i == 34:
        yield []
        return
    if counts[i] >= 3:
        counts[i] -= 3
        for rest in _sets(counts, i):
            yield [("pung", i), *rest]
        counts[i] += 3
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        for rest in _sets(counts, i):
            yield [("chow", i), *rest]
        for k in (i, i + 1, i + 2):
            counts[k] += 1


def _splits(counts: list[int]):
    """Every (pair, sets) of a complete hand's counts."""
    if sum(counts) % 3 != 2:
        return
    for i in range(34):
        if counts[i] >= 2:
            counts[i] -= 2
            for sets in _sets(counts, 0):
                yield i, sets
            counts[i] += 2


def _all_sets(counts: list[int], i: int) -> bool:
    """Whether the counts split into chows and pungs (the first split found is enough)."""
    while i < 34 and counts[i] == 0:
        i += 1
    if i == 34:
        return True
    if counts[i] >= 3:
        counts[i] -= 3
        found = _all_sets(counts, i)
        counts[i] += 3
        if found:
            return True
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        found = _all_sets(counts, i)
        for k in (i, i + 1, i + 2):
            counts[k] += 1
        return found
    return False


def _complete(counts: list[int]) -> bool:
    """Whether the counts are 5 sets and a pair (or fewer sets, beside melds)."""
    if sum(counts) % 3 != 2:
        return False
    for i in range(34):
        if counts[i] >= 2:
            counts[i] -= 2
            found = _all_sets(counts, 0)
            counts[i] += 2
            if found:
                return True
    return False


def _waits(concealed: list[int], held: list[int]) -> list[int]:
    """Tiles that complete the 16 held tiles, except those the player holds all four of."""
    out = []
    for i in range(34):
        if held[i] >= 4:
            continue
        concealed[i] += 1
        if _complete(concealed):
            out.append(i)
        concealed[i] -= 1
    return out


# -- one reading ----------------------------------------------------------------------------

@dataclass
class _Set:
    kind: str  # "chow" | "pung" | "kong"
    tile: int  # a pung's tile, a chow's lowest
    open: bool  # chi, pon or open kong
    concealed: bool  # 暗: formed in hand (not completed by a discard) or a 暗杠


@dataclass
class _Reading:
    sets: list[_Set]
    pair: int
    tiles: list[int]  # every tile of the won hand
    flowers: list[str]
    waits: list[int]
    hand: dict

    def flag(self, name: str) -> bool:
        return bool(self.hand.get(name, False))

    def pung_tiles(self) -> list[int]:
        return [s.tile for s in self.sets if s.kind != "chow"]


def _concealed_hand(r: _Reading) -> bool:
    return not any(s.open for s in r.sets)


def _wind_pungs(r: _Reading) -> int:
    return sum(t in _WIND.values() for t in r.pung_tiles())


def _dragon_pungs(r: _Reading) -> int:
    return sum(t in _DRAGONS for t in r.pung_tiles())


def _little_four_winds(r: _Reading) -> bool:
    return _wind_pungs(r) == 3 and r.pair in _WIND.values()


def _big_four_winds(r: _Reading) -> bool:
    return _wind_pungs(r) == 4


def _little_three_dragons(r: _Reading) -> bool:
    return _dragon_pungs(r) == 2 and r.pair in _DRAGONS


def _big_three_dragons(r: _Reading) -> bool:
    return _dragon_pungs(r) == 3


def _all_melded(r: _Reading) -> bool:
    return all(s.open for s in r.sets) and not r.flag("self_draw")


def _all_chows(r: _Reading) -> bool:
    return (all(s.kind == "chow" for s in r.sets) and not any(_is_honour(t) for t in r.tiles)
            and not r.flowers and not r.flag("self_draw") and len(r.waits) >= 2)


def _suits(r: _Reading) -> set[int]:
    return {t // 9 for t in r.tiles if not _is_honour(t)}


def _concealed_pungs(r: _Reading) -> int:
    return sum(s.kind != "chow" and s.concealed for s in r.sets)


def _items(r: _Reading) -> list[tuple[str, int]]:
    """The 台 of one reading in the table's display order, the exclusions applied."""
    out: list[tuple[str, int]] = []
    self_draw = r.flag("self_draw")
    heavenly = r.flag("heavenly")
    if heavenly:
        out.append(("天和", 24))
    if _concealed_hand(r):
        out.append(("门清自摸", 3) if self_draw else ("门清", 1))
    elif self_draw:
        out.append(("自摸", 1))
    if len(r.waits) == 1 and not heavenly and not _all_melded(r):
        out.append(("独听", 1))
    four_winds = _little_four_winds(r) or _big_four_winds(r)
    pungs = r.pung_tiles()
    seat, round_ = _WIND[r.hand["seat"]], _WIND[r.hand["round"]]
    if seat in pungs and not four_winds:
        out.append((f"门风 {_SHORT[seat]}", 1))
    if round_ in pungs and not four_winds:
        out.append((f"圈风 {_SHORT[round_]}", 1))
    if not (_little_three_dragons(r) or _big_three_dragons(r)):
        out += [(f"三元牌 {_SHORT[d]}", 1) for d in _DRAGONS if d in pungs]
    if _all_chows(r):
        out.append(("平和", 2))
    if _all_melded(r):
        out.append(("全求人", 2))
    if _little_three_dragons(r):
        out.append(("小三元", 4))
    if _big_three_dragons(r):
        out.append(("大三元", 8))
    if _little_four_winds(r):
        out.append(("小四喜", 8))
    if _big_four_winds(r):
        out.append(("大四喜", 16))
    if all(s.kind != "chow" for s in r.sets):
        out.append(("碰碰和", 4))
    suits = _suits(r)
    honours = any(_is_honour(t) for t in r.tiles)
    if not suits:
        out.append(("字一色", 16))
    elif len(suits) == 1 and honours:
        out.append(("混一色", 4))
    if len(suits) == 1 and not honours:
        out.append(("清一色", 8))
    hidden = _concealed_pungs(r)
    if hidden >= 3:
        out.append({5: ("五暗刻", 8), 4: ("四暗刻", 5)}.get(hidden, ("三暗刻", 2)))
    if len(set(r.flowers)) < 8:
        own = sum(f in _OWN_FLOWERS[r.hand["seat"]] for f in r.flowers)
        if own:
            out.append(("正花", own))
        out += [(f"花杠 {name}", 2) for group, name in _FLOWER_GROUPS if set(group) <= set(r.flowers)]
    else:
        out.append(("八仙过海", 8))
    if r.flag("last_tile"):
        out.append(("海底捞月", 1) if self_draw else ("河底捞鱼", 1))
    if r.flag("after_kong") and self_draw and any(s.kind == "kong" for s in r.sets):
        out.append(("杠上开花", 1))
    if r.flag("rob_kong") and not self_draw:
        out.append(("抢杠", 1))
    return _fix_order(out)


_ORDER = ("天和 门清自摸 门清 自摸 独听 门风 圈风 三元牌 平和 全求人 小三元 大三元 小四喜 大四喜 碰碰和 "
          "混一色 字一色 清一色 五暗刻 四暗刻 三暗刻 正花 花杠 八仙过海 海底捞月 河底捞鱼 杠上开花 抢杠").split()


def _fix_order(items: list[tuple[str, int]]) -> list[tuple[str, int]]:
    # 字一色 is listed after 混一色 in the table; the code above decides them together.
    return sorted(items, key=lambda item: _ORDER.index(item[0].split(" ")[0]))


# -- the hand -------------------------------------------------------------------------------

def _meld_set(meld: dict) -> _Set:
    kind, tiles = meld["type"], [_index(t) for t in meld["tiles"]]
    if kind == "chi":
        return _Set("chow", min(tiles), True, False)
    if kind == "pon":
        return _Set("pung", tiles[0], True, False)
    return _Set("kong", tiles[0], kind == "kong", kind == "ankong")


def score_hand(hand: dict) -> tuple[int, dict[str, int]]:
    """The best total and its items of a winning hand in the spec's JSON form; ValueError for a
    hand that does not win under the default table."""
    concealed = [0] * 34
    for t in hand["concealed"]:
        concealed[_index(t)] += 1
    melds = [_meld_set(m) for m in hand.get("melds", [])]
    meld_tiles = [_index(t) for m in hand.get("melds", []) for t in m["tiles"]]
    if sum(concealed) != 16 - 3 * len(melds):
        raise ValueError(f"{sum(concealed)} concealed tiles with {len(melds)} melds")
    held = list(concealed)
    for t in meld_tiles:
        held[t] += 1
    w = _index(hand["win"])
    if max(held) > 4 or held[w] >= 4:
        raise ValueError("more than 4 copies of a tile")
    waits = _waits(concealed, held)
    if w not in waits:
        raise ValueError("not a win: the tiles do not form 5 sets and a pair")
    tiles = [i for i in range(34) for _ in range(held[i])] + [w]
    flowers = list(hand.get("flowers", []))
    discard = not hand.get("self_draw", False)
    full = list(concealed)
    full[w] += 1
    best: list[tuple[str, int]] | None = None
    for pair, shapes in _splits(full):
        places: list[str | int] = ["pair"] if pair == w else []
        places += [k for k, (kind, i) in enumerate(shapes)
                   if (kind == "pung" and i == w) or (kind == "chow" and i <= w <= i + 2)]
        for place in places:
            # a pung the winning discard completed is exposed (明刻)
            sets = [_Set(kind, i, False, not (discard and place == k))
                    for k, (kind, i) in enumerate(shapes)]
            items = _items(_Reading(sets + melds, pair, tiles, flowers, waits, hand))
            if best is None or sum(t for _, t in items) > sum(t for _, t in best):
                best = items
    assert best is not None
    return sum(t for _, t in best), dict(best)
