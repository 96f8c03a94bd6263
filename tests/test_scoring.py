"""Scoring cases the page's examples do not show: competing splits, dead waits, concealed kongs,
flowers of every seat, every kind of illegal hand, notation round-trips, settlement."""

import random
import re

import pytest

from scoring import (
    Hand,
    HandError,
    Meld,
    Situation,
    Table,
    check_hand,
    format_chinese,
    format_compact,
    load_ruleset,
    parse_tile,
    parse_tiles,
    score,
)
from scoring.decompose import counts_of, splits
from scoring.reading import readings
from scoring.settle import settle
from scoring.tiles import BACK, TILE_CODES, tile_name


def H(concealed, win, *melds, flowers="", table=None, **situation):
    """A hand from compact notation: H("123m 456p 77z", "6s", ("chi", "123m"), seat_wind="S")."""
    return Hand(
        parse_tiles(concealed),
        parse_tile(win),
        tuple(Meld(kind, parse_tiles(tiles)) for kind, tiles in melds),
        parse_tiles(flowers),
        Situation(**situation),
        table,
    )


# -- several readings: the highest must win --------------------------------------------------

def test_pungs_reading_beats_chows_reading_when_self_drawn():
    # 111m 222m 333m reads as three pungs (三暗刻) or three chows; self-drawn, 平和 is out,
    # so the pungs are worth more: 门清自摸 3 + 三暗刻 2.
    hand = H("111m 222m 333m 456p 78s 55s", "9s", self_draw=True)
    assert len(list(readings(hand))) == 2
    assert score(hand).as_dict() == {"门清自摸": 3, "三暗刻": 2}


def test_tied_readings_report_the_same_one_every_time():
    # Off a discard, the chow reading gives 平和 (2) and the pung reading 三暗刻 (2): a tie at
    # 11 either way with 清一色; whichever is reported, it is the same every time and totals 11.
    hand = H("111m 222m 333m 456m 78m 55m", "9m")
    results = {tuple(score(hand).as_dict().items()) for _ in range(3)}
    assert len(results) == 1
    assert score(hand).total == 1 + 8 + 2
    assert dict(next(iter(results))) in (
        {"门清": 1, "平和": 2, "清一色": 8},
        {"门清": 1, "清一色": 8, "三暗刻": 2},
    )


def test_winning_tile_placed_in_the_chow_keeps_the_pung_concealed():
    # 1m off a discard completes either the 111m pung (then exposed) or the 123m chow:
    # read in the chow, four pungs stay concealed: 四暗刻, not 三暗刻.
    hand = H("111m 23m 444p 666s 88p 999s", "1m")
    assert score(hand).as_dict() == {"门清": 1, "四暗刻": 5}
    assert score(hand).waits == ("1m", "4m", "8p")


def test_same_hand_self_drawn_on_the_pair_tile():
    hand = H("111m 23m 444p 666s 88p 999s", "8p", self_draw=True)
    # With 888p a pung, 1m must be the pair and 123m a chow: four pungs, all concealed
    # (a self-drawn tile does not expose the pung it completes).
    assert score(hand).as_dict() == {"门清自摸": 3, "四暗刻": 5}


def test_every_split_is_listed_once():
    full = counts_of(parse_tiles("111222333m 456p 789s 55s"))
    shapes = {(pair, tuple(sorted(sets))) for pair, sets in splits(tuple(full))}
    assert len(shapes) == len(splits(tuple(full))) == 2


# -- waits -------------------------------------------------------------------------------------

def test_dead_wait_all_four_held_in_a_concealed_kong():
    # 23s waits on 1s or 4s, but all four 1s are in the 暗杠: only 4s is live → 独听.
    hand = H("23s 456m 789m 234p 99p", "4s", ("ankong", "1111s"))
    assert score(hand).waits == ("4s",)
    assert score(hand).as_dict() == {"门清": 1, "独听": 1}


def test_same_shape_without_the_dead_tile_is_a_two_sided_wait():
    hand = H("23s 456m 789m 234p 99p", "4s", ("ankong", "1111p"))
    assert score(hand).waits == ("1s", "4s")
    assert score(hand).as_dict() == {"门清": 1}


def test_dead_wait_all_four_held_between_hand_and_a_chi():
    # 111s 23s 99p waits on 1s, 4s (111s+234s) or 9p (999p, 11s pair, 123s); three 1s in hand
    # and one in the 吃 make all four, so 1s is not a wait.
    hand = H("111s 23s 456m 789m 99p", "4s", ("chi", "123s"))
    assert score(hand).waits == ("9p", "4s")
    # 屁胡: a legal win with no entry at all.
    assert score(hand).as_dict() == {} and score(hand).total == 0


def test_same_shape_with_a_live_one():
    hand = H("111s 23s 456m 789m 99p", "4s", ("chi", "123p"))
    assert score(hand).waits == ("9p", "1s", "4s")


def test_single_wait_on_a_pair_of_honours_is_independent_of_shape():
    hand = H("123m 456m 789m 234p 567s 1z", "1z")
    assert score(hand).waits == ("1z",)
    assert score(hand).as_dict() == {"门清": 1, "独听": 1}


# -- concealed kongs -----------------------------------------------------------------------------

def test_concealed_kongs_keep_the_hand_concealed_and_count_as_concealed_pungs():
    hand = H("234m 67p 88s", "8p", ("ankong", "1111m"), ("ankong", "5555p"), ("ankong", "9999s"),
             self_draw=True)
    # 67p waits 5p (all four in the 暗杠: dead) or 8p → 独听.
    assert score(hand).as_dict() == {"门清自摸": 3, "独听": 1, "三暗刻": 2}


def test_an_open_kong_opens_the_hand_and_is_not_concealed():
    hand = H("234m 67p 88s", "8p", ("kong", "1111m"), ("ankong", "5555p"), ("ankong", "9999s"),
             self_draw=True)
    assert score(hand).as_dict() == {"自摸": 1, "独听": 1}


def test_replacement_after_a_concealed_kong():
    hand = H("123m 456m 789m 56s 99s", "7s", ("ankong", "2222p"), self_draw=True,
             after_kong=True)
    assert score(hand).as_dict() == {"门清自摸": 3, "杠上开花": 1}


def test_winds_in_kongs_count_for_seat_and_round():
    hand = H("123m 456m 789m 234p 5s", "5s", ("ankong", "2222z"), seat_wind="S", round="S")
    assert score(hand).as_dict() == {"门清": 1, "独听": 1, "门风 南": 1, "圈风 南": 1}


# -- flowers of each seat ------------------------------------------------------------------------

PLAIN = "123m 456m 789m 234p 45s 99s"


@pytest.mark.parametrize("seat,own", [("E", "梅春"), ("S", "兰夏"), ("W", "菊秋"), ("N", "竹冬")])
def test_own_flowers_of_each_seat(seat, own):
    hand = H(PLAIN, "6s", flowers=own, seat_wind=seat)
    # Any flower rules out 平和.
    assert score(hand).as_dict() == {"门清": 1, "正花": 2}


@pytest.mark.parametrize("seat,other", [("E", "兰夏"), ("S", "菊秋"), ("W", "竹冬"), ("N", "梅春")])
def test_other_seats_flowers_score_nothing(seat, other):
    assert score(H(PLAIN, "6s", flowers=other, seat_wind=seat)).as_dict() == {"门清": 1}


@pytest.mark.parametrize("seat", ["E", "S", "W", "N"])
def test_both_flower_sets_without_all_eight(seat):
    hand = H(PLAIN, "6s", flowers="梅兰菊竹春夏秋", seat_wind=seat)
    # 7 flowers: 花杠 梅兰菊竹 (2) and own flowers (the seat's two, minus 冬 for N).
    own = 1 if seat == "N" else 2
    assert score(hand).as_dict() == {"门清": 1, "正花": own, "花杠 梅兰菊竹": 2}


def test_all_eight_flowers_cancel_seat_flowers_and_flower_sets():
    hand = H(PLAIN, "6s", flowers="春夏秋冬梅兰菊竹", seat_wind="W")
    assert score(hand).as_dict() == {"门清": 1, "八仙过海": 8}


def test_traditional_rendering():
    hand = H("123m 456m 789m 45s 99s", "6s", ("pon", "666z"), flowers="春夏秋冬")
    result = score(hand)
    assert result.as_dict("traditional") == {"正花": 1, "三元牌 發": 1, "花槓 春夏秋冬": 2}
    assert result.as_dict() == {"正花": 1, "三元牌 发": 1, "花杠 春夏秋冬": 2}


# -- illegal hands ---------------------------------------------------------------------------------

BASE = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "4s", "5s",
        "9s", "9s"]


def _json(**changes):
    d = {"concealed": BASE, "win": "6s", "melds": [], "flowers": [], "seat": "E", "round": "E",
         "self_draw": False}
    d.update(changes)
    return d


ILLEGAL = {
    "too few tiles": (_json(concealed=BASE[:-1]), "tile count: 15 concealed"),
    "too many tiles": (_json(concealed=BASE + ["1p"]), "tile count: 17 concealed"),
    "count with a meld": (
        _json(melds=[{"type": "chi", "tiles": ["1p", "2p", "3p"]}]), "there must be 13"),
    "five copies": (
        _json(concealed=["9s"] * 4 + BASE[:12], win="9s"), "5 copies of 九条 (9s)"),
    "five copies across melds": (
        _json(concealed=BASE[:13], melds=[{"type": "pon", "tiles": ["1m", "1m", "1m"]}],
              win="1m"), "5 copies of 一万 (1m)"),
    "flower twice": (_json(flowers=["1f", "2f", "1f"]), "flower 梅 (1f) appears 2 times"),
    "chi not a chow": (
        _json(concealed=BASE[3:], melds=[{"type": "chi", "tiles": ["1m", "2m", "4m"]}]),
        "is not a chow"),
    "chi of honours": (
        _json(concealed=BASE[3:], melds=[{"type": "chi", "tiles": ["1z", "2z", "3z"]}]),
        "is not a chow"),
    "chi across suits": (
        _json(concealed=BASE[3:], melds=[{"type": "chi", "tiles": ["1m", "2p", "3s"]}]),
        "is not a chow"),
    "pon not a set": (
        _json(concealed=BASE[3:], melds=[{"type": "pon", "tiles": ["1m", "1m", "2m"]}]),
        "not a set of 3 identical tiles"),
    "kong of three": (
        _json(concealed=BASE[3:], melds=[{"type": "kong", "tiles": ["1m", "1m", "1m"]}]),
        "a kong has 4 tiles, not 3"),
    "six melds": (
        _json(concealed=[], melds=[{"type": "pon", "tiles": [t] * 3}
                                   for t in ["1m", "2m", "3m", "4m", "5m", "6m"]]),
        "6 melds"),
    "not a win": (_json(win="7s"), "not a win"),
    "not a win, says the waits": (_json(win="7s"), "waits on 三条、六条"),
    "not ready at all": (
        _json(concealed=["1m", "4m", "7m", "1p", "4p", "7p", "1s", "4s", "7s", "1z", "2z", "3z",
                         "4z", "5z", "6z", "7z"], win="7z"), "no tile would complete it"),
    "unknown tile": (_json(win="0m"), "'0m' is not a tile code"),
    "flower in hand": (_json(concealed=BASE[:-1] + ["1f"]), "1f is a flower"),
    "flower that is not one": (_json(flowers=["1z"]), "1z is not a flower"),
    "bad wind": (_json(seat="X"), "'X' is not a wind"),
    "flag not a bool": (_json(self_draw="yes"), "self_draw: expected true or false"),
    "unknown key": (_json(selfdraw=True), "unknown key(s) selfdraw"),
    "missing key": ({"concealed": BASE, "win": "6s"}, "missing seat, round"),
    "meld type": (
        _json(concealed=BASE[3:], melds=[{"type": "gang", "tiles": ["1m"] * 4}]),
        "type 'gang' is not one of chi, pon, kong, ankong"),
    "rob a kong by self-draw": (_json(self_draw=True, rob_kong=True), "rob_kong"),
    "after kong off a discard": (_json(after_kong=True), "after_kong"),
    "heavenly off a discard": (_json(heavenly=True), "heavenly"),
    "heavenly with a meld": (
        _json(concealed=BASE[3:], melds=[{"type": "chi", "tiles": ["1m", "2m", "3m"]}],
              self_draw=True, heavenly=True), "before any chi, pon or kong"),
    "discard win without a discarder": (
        _json(table={"dealer": "E", "base": 50, "per_tai": 20}), "needs the discarder"),
    "winner discarding to himself": (
        _json(table={"dealer": "E", "base": 50, "per_tai": 20, "discarder": "E"}),
        "cannot be the discarder"),
    "table without base": (_json(table={"dealer": "E", "per_tai": 20}), "table: missing base"),
}


@pytest.mark.parametrize("name", list(ILLEGAL))
def test_illegal_hand_is_refused_with_a_message_naming_the_problem(name):
    data, message = ILLEGAL[name]
    with pytest.raises(HandError) as err:
        score(Hand.from_json(data))
    assert message in str(err.value)


def _reads(data: dict) -> bool:
    try:
        Hand.from_json(data)
    except HandError:
        return False
    return True


# What a player at the table can get wrong (the app builds well-formed hands, so not the JSON slips).
AT_THE_TABLE = [name for name, (data, _) in ILLEGAL.items() if _reads(data)]


@pytest.mark.parametrize("name", AT_THE_TABLE)
def test_what_a_player_can_get_wrong_is_said_in_chinese_too(name):
    with pytest.raises(HandError) as err:
        score(Hand.from_json(ILLEGAL[name][0]))
    zh = err.value.zh
    assert zh and err.value.for_player == zh and re.search("[一-鿿]", zh), (name, zh)
    assert not re.search("[A-Za-z]{3,}", zh), (name, zh)  # no English words (a ruleset id is not one)
    assert len(AT_THE_TABLE) >= 20


def test_the_base_of_the_illegal_cases_is_legal():
    check_hand(Hand.from_json(_json()))


# -- notation ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("script", ["simplified", "traditional"])
def test_every_tile_name_round_trips(script):
    tiles = TILE_CODES
    assert parse_tiles(format_chinese(tiles, script)) == tiles
    assert parse_tiles(" ".join(format_chinese([t], script) for t in tiles)) == tiles


@pytest.mark.parametrize("script", ["simplified", "traditional"])
def test_a_face_down_tile_has_its_name_in_both_scripts(script):
    """The reader's notices and the page name it by tile_name as every face (vision had its own table)."""
    assert tile_name(BACK, script) == "牌背"
    assert tile_name("2m", script) == {"simplified": "二万", "traditional": "二萬"}[script]


def test_compact_round_trips():
    rng = random.Random(7)
    for _ in range(200):
        tiles = tuple(rng.choice(TILE_CODES) for _ in range(rng.randint(1, 20)))
        assert parse_tiles(format_compact(tiles)) == tiles


def test_names_as_players_write_them():
    assert parse_tiles("一万二万三万四条五条九条九条") == ("1m", "2m", "3m", "4s", "5s", "9s", "9s")
    assert parse_tiles("二筒二餅二饼") == ("2p",) * 3
    assert parse_tiles("三条三條三索") == ("3s",) * 3
    assert parse_tiles("东风東風东東") == ("1z",) * 4
    assert parse_tiles("红中紅中中") == ("5z",) * 3
    assert parse_tiles("发财發財发發") == ("6z",) * 4
    assert parse_tiles("白板白") == ("7z",) * 2
    assert parse_tiles("梅兰蘭菊竹春夏秋冬") == ("1f", "2f", "2f", "3f", "4f", "5f", "6f", "7f", "8f")
    assert parse_tiles("一萬、九條，南風 北") == ("1m", "9s", "2z", "4z")
    assert parse_tiles("123m 456p 77z") == ("1m", "2m", "3m", "4p", "5p", "6p", "7z", "7z")
    assert parse_tile("和六条") == "6s"
    assert format_compact(parse_tiles("一万二万三万二筒白板白板")) == "123m 2p 77z"
    assert format_chinese(parse_tiles("147m 5z 6z 2f"), "traditional") == "一萬四萬七萬紅中發財蘭"


@pytest.mark.parametrize("text,message", [("一万X", "cannot read a tile at 'X'"),
                                          ("8z", "8z in '8z' is not a tile"),
                                          ("9f", "is not a tile")])
def test_unreadable_tiles(text, message):
    with pytest.raises(HandError, match=message):
        parse_tiles(text)


# -- settlement --------------------------------------------------------------------------------------

def test_settlement_example_of_the_spec():
    hand = H(PLAIN, "6s", self_draw=True, seat_wind="E",
             table=Table(dealer="S", streak=1, base=50, per_tai=20))
    paid = settle(10, hand)
    assert paid.net == {"E": 810, "S": -310, "W": -250, "N": -250}
    assert [(p.payer, p.tai, p.amount) for p in paid.payments] == [
        ("S", 13, 310), ("W", 10, 250), ("N", 10, 250)]


def test_discard_win_only_the_discarder_pays():
    hand = H(PLAIN, "6s", seat_wind="W", table=Table(dealer="E", base=50, per_tai=20, discarder="N"))
    result = score(hand)  # 门清 1 + 平和 2
    assert settle(result, hand).net == {"E": 0, "S": 0, "W": 110, "N": -110}


def test_dealer_discarding_pays_the_dealer_items():
    hand = H(PLAIN, "6s", seat_wind="W",
             table=Table(dealer="N", streak=2, base=50, per_tai=20, discarder="N"))
    # 3 台 + 庄家 1 + 连庄 2×2 = 8 台 → 50 + 160
    assert settle(score(hand), hand).net == {"E": 0, "S": 0, "W": 210, "N": -210}


def test_dealer_self_draw_with_declared_ready():
    hand = H(PLAIN, "6s", seat_wind="N", self_draw=True,
             table=Table(dealer="N", streak=0, base=100, per_tai=10, declared_ready=True))
    # 门清自摸 3 + 庄家 1 + 听牌 1 = 5 台 from each of three: 150 each
    assert score(hand).total == 3
    assert settle(score(hand), hand).net == {"E": -150, "S": -150, "W": -150, "N": 450}


def test_settlement_parameters_come_from_the_ruleset():
    s = load_ruleset().settlement
    assert (s.dealer_tai, s.streak_tai, s.ready_tai) == (1, 2, 1)


def test_settlement_needs_a_table():
    with pytest.raises(HandError, match="needs a table"):
        settle(3, H(PLAIN, "6s"))
