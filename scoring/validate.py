"""Is this a legal win? Every problem raises HandError with a message that names it.

A win is 5 sets and a pair; under a ruleset with special shapes (十三么, 瀝咕瀝咕, 大车轮,
a flower win …) also a hand of such a shape that one of its shape entries recognises
(`scoring.shapes`). Checking only: the scorer (`scoring.score`) reads and scores the hand it passes.
"""

from __future__ import annotations

from collections import Counter

from .decompose import counts_of, splits, waits
from .hand import TABLE_FLAGS, Hand, HandError, Meld, Table
from .legal import can_win
from .melds import MeldKind
from .notation import format_chinese
from .reading import Counted, Decomposition, HandView
from .ruleset import DEALER_ROLES, DEFAULT_RULESET, Ruleset, load_ruleset
from .shapes import shape_wins, special_waits
from .tiles import COPIES, FLOWERS, INDEX, PLAYING, tile_name

HAND_SIZE = 16  # tiles held before the win, a kong counting as 3


def _named(m: Meld) -> tuple[str, str]:
    """The meld as the messages show it, English and Chinese (made only for a wrong one)."""
    return (f"{m.kind} {format_chinese(m.tiles)} ({' '.join(m.tiles)})",
            f"{m.kind.name_in('traditional')} {format_chinese(m.tiles, 'traditional')}")


# The melds (kind, tiles) found to be sets, not checked again: a few hundred at most.
_SETS_SEEN: set[tuple[str, tuple[str, ...]]] = set()


def _meld_problem(m: Meld) -> HandError | None:
    t = m.tiles
    size = m.kind.size
    if m.kind is MeldKind.CHI:
        if len(t) != size:
            shown, zh = _named(m)
            return HandError(f"{shown}: a chi has {size} tiles, not {len(t)}",
                             f"{zh}：吃要 {size} 張牌，這裡有 {len(t)} 張")
        low, mid, high = sorted(map(INDEX.__getitem__, t))
        if low >= 27 or low % 9 > 6 or (mid, high) != (low + 1, low + 2):  # 27 on: honours, flowers
            shown, zh = _named(m)
            return HandError(f"{shown} is not a chow (three consecutive tiles of one suit)",
                             f"{zh} 不是順子（同一花色連續三張）")
        return None
    if len(t) != size:
        shown, zh = _named(m)
        return HandError(f"{shown}: a {m.kind} has {size} tiles, not {len(t)}",
                         f"{zh}：{m.kind.name_in('traditional')}要 {size} 張牌，這裡有 {len(t)} 張")
    if len(set(t)) != 1:
        shown, zh = _named(m)
        return HandError(f"{shown} is not a set of {size} identical tiles", f"{zh} 不是 {size} 張一樣的牌")
    return None


def check_situation(hand: Hand) -> None:
    """Situations no table allows: flags that cannot hold together, or not with these tiles."""
    s = hand.situation
    if hand.table is None and not (s.rob_kong or s.after_kong or s.heavenly or s.earthly or s.human
                                   or s.heavenly_ready or s.earthly_ready or s.after_flower):
        return  # most hands: each test below needs one of these flags, or the table
    if s.rob_kong and s.self_draw:
        raise HandError("rob_kong: robbing a kong wins on another player's tile, "
                        "so self_draw must be false", "搶槓是胡別人加槓的牌，不能是自摸")
    if s.rob_kong and s.last_tile:
        raise HandError("rob_kong and last_tile: a tile robbed from a kong was never discarded, "
                        "so it is 抢杠 and not 河底捞鱼 (the last discard); give one",
                        "搶槓的牌是別人加槓的牌，沒有打出來，不是河底撈魚：只能選一個")
    if s.rob_kong:
        check_robbed_tile(hand)
    if s.after_kong and not s.self_draw:
        raise HandError("after_kong: the replacement tile after a kong is self-drawn, "
                        "so self_draw must be true", "槓上開花是槓後補牌自摸，要選自摸")
    if s.after_kong and not any(m.kind.is_kong for m in hand.melds):
        raise HandError("after_kong: 杠上开花 wins on the replacement tile after a kong, and the "
                        "hand has no kong (an open kong or an ankong meld)",
                        "槓上開花要先開槓：這手牌沒有明槓或暗槓")
    if s.heavenly and not s.self_draw:
        raise HandError("heavenly: 天和 wins on the dealer's own dealt tiles, "
                        "so self_draw must be true", "天胡是莊家起手就胡，要選自摸")
    if s.heavenly and hand.melds:
        raise HandError("heavenly: 天和 is won on the dealt tiles, before any chi, pon or kong",
                        "天胡是起手就胡，不會有吃、碰、槓")
    first = [f for f in ("heavenly", "earthly", "human") if getattr(s, f)]
    if len(first) > 1:
        raise HandError(f"{' and '.join(first)}: 天胡, 地胡 and 人胡 exclude one another",
                        "天胡、地胡、人胡只能選一個")
    if s.earthly and not s.self_draw:
        raise HandError("earthly: 地胡 is self-drawn on the first draw, so self_draw must be true",
                        "地胡是閒家第一次摸牌就自摸，要選自摸")
    if s.human and s.self_draw:
        raise HandError("human: 人胡 wins off a discard, so self_draw must be false", "人胡是胡別人打的牌，不能是自摸")
    if any(m.is_open for m in hand.melds):
        for flag, name, zh in (("earthly", "地胡", "地胡"), ("human", "人胡", "人胡"),
                               ("heavenly_ready", "天听", "天聽"), ("earthly_ready", "地听", "地聽")):
            if getattr(s, flag):
                raise HandError(f"{flag}: {name} needs 门清 (no chi, pon or open kong)",
                                f"{zh}要門清（沒有吃、碰、明槓）")
    if s.earthly and hand.melds:  # an ankong: the open melds were refused just above
        raise HandError("earthly: 地胡 wins on the first draw, before any kong could be declared "
                        "(after an ankong the win would be on its replacement tile)",
                        "地胡是第一次摸牌就胡，之前不能開槓（暗槓也不行）")
    if s.heavenly_ready and s.earthly_ready:
        raise HandError("heavenly_ready and earthly_ready: 天听 and 地听 are two ways of one "
                        "declaration; give one", "天聽和地聽只能選一個")
    if s.after_flower and not s.self_draw:
        raise HandError("after_flower: the replacement tile after a flower is self-drawn, "
                        "so self_draw must be true", "補花後胡是補花摸到的牌，要選自摸")
    if s.after_flower and not hand.flowers:
        raise HandError("after_flower: a replacement after a flower needs a flower in 'flowers'",
                        "補花後胡要有花牌")
    t = hand.table
    if t is not None:
        if s.heavenly and t.dealer != s.seat_wind:
            raise HandError(f"heavenly: only the dealer ({t.dealer}) can win 天和, "
                            f"not seat {s.seat_wind}", "天胡只有莊家能胡：莊家不是你的座位")
        if s.earthly and t.dealer == s.seat_wind:
            raise HandError(f"earthly: 地胡 is a non-dealer's win; seat {s.seat_wind} is the dealer",
                            "地胡是閒家的胡，莊家不能胡地胡")
        if s.self_draw and t.discarder is not None:
            raise HandError("table.discarder: a self-drawn win has no discarder", "自摸沒有放槍的人")
        if not s.self_draw:
            check_discarder(s.seat_wind, t)


def check_robbed_tile(hand: Hand) -> None:
    """A robbed kong holds all four copies of its tile (three in the pung, the fourth robbed):
    the winner can hold no other copy."""
    held = hand.held_tiles().count(hand.win)
    if held:
        name, zh = tile_name(hand.win), tile_name(hand.win, "traditional")
        raise HandError(f"rob_kong: the robbed kong holds all four {name} ({hand.win}), so the "
                        f"winner cannot also hold {held} (that would make {COPIES + held})",
                        f"搶槓：被搶的槓已經是四張{zh}，你手上不能再有{zh}（會變成 {COPIES + held} 張）")


def check_ruleset_situation(hand: Hand, rules: Ruleset) -> None:
    """What this table rules out: flags that cannot hold together at it (`impossible`), and a
    situation stated by a seat the table does not give it to (`seat`: 莊家專屬 / 閒家專屬;
    the seats are known when the table is given, two entries of opposite seats never hold)."""
    check_impossible(hand, rules, hand.table)
    s = hand.situation
    stated = {}
    if rules.seated:
        stated_only = Decomposition((), None, None, HandView.of(hand, with_waits=False))
        stated = {e.seat: e for e in rules.seated if e.detect(stated_only)}
    if len(stated) == len(DEALER_ROLES):
        d, n = stated["dealer"], stated["non_dealer"]
        raise HandError(f"{d.name} and {n.name} under {rules.id}: {d.name} is the dealer's alone "
                        f"and {n.name} a non-dealer's, so one player cannot have both",
                        f"這個規則裡{d.trad}是莊家專屬、{n.trad}是閒家專屬，不能同時有")
    t = hand.table
    if t is None:
        return
    for e in stated.values():
        if e.seat == "dealer" and t.dealer != s.seat_wind:
            raise HandError(f"{e.name} is the dealer's alone under {rules.id}; seat {s.seat_wind} is "
                            f"not the dealer ({t.dealer})", f"這個規則裡{e.trad}是莊家專屬，閒家不能算{e.trad}")
        if e.seat == "non_dealer" and t.dealer == s.seat_wind:
            raise HandError(f"{e.name} is a non-dealer's alone under {rules.id}; seat {s.seat_wind} is "
                            "the dealer", f"這個規則裡{e.trad}是閒家專屬，莊家不能算{e.trad}")


def check_impossible(hand: Hand, rules: Ruleset, table: Table | None) -> None:
    """The table's `impossible` records: flags of the situation, and of `table` where a record
    names one (TABLE_FLAGS: 听牌 declared), that cannot all hold at this table."""
    s = hand.situation
    for x in rules.impossible:
        if all(getattr(table, f, False) if f in TABLE_FLAGS else getattr(s, f) for f in x.flags):
            raise HandError(f"{' and '.join(x.flags)} under {rules.id}: {x.why}", x.zh)


def check_discarder(winner: str, table: Table) -> str:
    """A win off a discard needs a discarder who is not the winner (also checked when settling
    with a table given apart from the hand): the discarder, when it is one."""
    if table.discarder is None:
        raise HandError("table.discarder: a win off a discard needs the discarder's seat",
                        "胡別人的牌：請選放槍的人")
    if table.discarder == winner:
        raise HandError(f"table.discarder: the winner ({winner}) cannot be the discarder",
                        "放槍的人不能是胡牌的人")
    return table.discarder


def _not_a_win(hand: Hand, rules: Ruleset) -> HandError:
    concealed = counts_of(hand.concealed)
    held = tuple(counts_of(hand.held_tiles()))
    w = set(PLAYING[i] for i in waits(tuple(concealed), held)) | set(special_waits(hand, rules))
    shown = f"{format_chinese(hand.concealed)} 和{tile_name(hand.win)}"
    others = [e.name for e in rules.entries if e.shape in ("pairs", "orphans")]
    shape = "5 sets and a pair" + (f" (nor {'/'.join(others)} of {rules.id})" if others else "")
    zh_shown = f"{format_chinese(hand.concealed, 'traditional')} 胡{tile_name(hand.win, 'traditional')}"
    zh_shape = "五組加一對" + (f"（也不是{rules.id}的{'、'.join(others)}）" if others else "")
    if w:
        need = "、".join(tile_name(t) for t in PLAYING if t in w)
        zh_need = "、".join(tile_name(t, "traditional") for t in PLAYING if t in w)
        return HandError(f"not a win: {shown} does not form {shape} (this hand waits on {need})",
                         f"沒有胡：{zh_shown} 湊不成{zh_shape}（這手牌聽的是 {zh_need}）")
    return HandError(f"not a win: {shown} does not form {shape} (and no tile would complete it)",
                     f"沒有胡：{zh_shown} 湊不成{zh_shape}（也沒有聽任何牌）")


def check_hand(hand: Hand, ruleset: Ruleset | str | None = None) -> None:
    """Raise HandError unless `hand` is a legal winning hand with a possible situation, under
    `ruleset` (default: the default table, which knows only 5 sets and a pair)."""
    checked_counts(hand, ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset or DEFAULT_RULESET))


def checked_counts(hand: Hand, rules: Ruleset) -> Counted | None:
    """check_hand, giving the scorer what it counted (see HandView.of); None for a flower win."""
    flowers = hand.all_flowers()
    if flowers and len(set(flowers)) < len(flowers):
        f, n = next((f, n) for f, n in Counter(flowers).items() if n > 1)
        raise HandError(f"flower {tile_name(f)} ({f}) appears {n} times; there is only one",
                        f"花牌{tile_name(f, 'traditional')}出現 {n} 次，只有一張")
    if hand.flower_win:
        if set(hand.all_flowers()) != set(FLOWERS):
            raise HandError(f"flower win: {tile_name(hand.win)} wins only as the eighth flower; "
                            f"'flowers' must hold the other seven", "花胡要湊齊八張花：另外七張要在花牌裡")
        if not shape_wins(hand, rules):
            raise HandError(f"flower win: {rules.id} has no flower win (花胡); score the tiles "
                            "of the hand with the flowers in 'flowers'",
                            f"{rules.id} 沒有花胡：請用手牌算，花放在花牌裡")
        check_situation(hand)
        check_ruleset_situation(hand, rules)
        return None
    if len(hand.melds) > 5:
        raise HandError(f"{len(hand.melds)} melds; a winning hand has 5 sets in all",
                        f"{len(hand.melds)} 組副露太多：胡牌一共只有 5 組")
    for m in hand.melds:
        if (m.kind, m.tiles) not in _SETS_SEEN:
            problem = _meld_problem(m)
            if problem:
                raise problem
            _SETS_SEEN.add((m.kind, m.tiles))
    expected = HAND_SIZE - 3 * len(hand.melds)
    if len(hand.concealed) != expected:
        raise HandError(
            f"tile count: {len(hand.concealed)} concealed tiles besides the winning tile; with "
            f"{len(hand.melds)} meld(s) there must be {expected} (16 − 3 per meld)",
            f"張數不對：胡的那張以外手牌有 {len(hand.concealed)} 張，{len(hand.melds)} 組副露時要有 {expected} 張"
            "（16 減每組副露 3 張）")
    full = counts_of(hand.concealed)
    full[INDEX[hand.win]] += 1
    counts = list(full)  # every tile of the won hand
    for m in hand.melds:
        for t in m.tiles:
            counts[INDEX[t]] += 1
    if max(counts) > COPIES:
        t = min(t for t in PLAYING if counts[INDEX[t]] > COPIES)  # the first by code, as ever
        n = counts[INDEX[t]]
        raise HandError(f"{n} copies of {tile_name(t)} ({t}) across hand and melds; "
                        f"there are only {COPIES}",
                        f"{tile_name(t, 'traditional')}有 {n} 張，一副牌只有 {COPIES} 張")
    # 5 sets and a pair from the per-suit tables; else the count test of the special shapes,
    # and then one of the table's entries must make that shape a win
    found = splits(full)
    if not found and not (can_win(full, len(hand.melds), rules.shapes) and shape_wins(hand, rules)):
        raise _not_a_win(hand, rules)
    check_situation(hand)
    check_ruleset_situation(hand, rules)
    return Counted(tuple(full), tuple(counts), found)
