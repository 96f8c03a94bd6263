"""The legality check by tile counts (scoring.legal.can_win, backed by the per-suit tables of
scoring.decompose) against slow, plain checks: the reference scorer's recursion for 5 sets and
a pair, and a brute force over every set for the special shapes."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import HandError, check_hand, load_ruleset, parse_tiles
from scoring.decompose import counts_of, splits, waits
from scoring.legal import can_win
from scoring.random_hands import random_winning_hand
from scoring.reference import _complete
from scoring.tiles import INDEX, PLAYING, TERMINALS_AND_HONOURS

ORPHANS = [INDEX[t] for t in TERMINALS_AND_HONOURS]
SETS = [[i] * 3 for i in range(34)] + [[i, i + 1, i + 2] for i in range(27) if i % 9 <= 6]


def slow_can_win(counts, n_melds, shapes=frozenset()):
    if sum(counts) != 17 - 3 * n_melds or max(counts) > 4:
        return False
    if _complete(list(counts)):
        return True
    if n_melds > 1:
        return False
    rests = [list(counts)] if n_melds else []
    for s in SETS if not n_melds else ():
        rest = list(counts)
        for i in s:
            rest[i] -= 1
        if min(rest) >= 0:
            rests.append(rest)
    for rest in rests:
        if "pairs" in shapes and all(n % 2 == 0 for n in rest):
            return True
        if ("orphans" in shapes and all(rest[i] for i in ORPHANS)
                and sorted(rest[i] for i in ORPHANS)[-2:] == [1, 2]
                and sum(rest[i] for i in ORPHANS) == 14):
            return True
    return False


@st.composite
def count_vectors(draw):
    """Counts of a random winning hand's concealed tiles and winning tile, then a few tiles
    moved to other faces (often no longer a win), with the number of melds."""
    hand = random_winning_hand(random.Random(draw(st.integers(0, 2**32))))
    counts = counts_of(hand.concealed)
    counts[INDEX[hand.win]] += 1
    for _ in range(draw(st.integers(0, 3))):
        counts[draw(st.sampled_from([i for i, n in enumerate(counts) if n]))] -= 1
        counts[draw(st.integers(0, 33))] += 1
    return counts, len(hand.melds)


@st.composite
def special_vectors(draw):
    """Seven pairs or the thirteen 么九 tiles (one twice), with a set or a meld, sometimes
    with a tile moved."""
    if draw(st.booleans()):
        faces = draw(st.lists(st.integers(0, 33), min_size=7, max_size=7))
        counts = [0] * 34
        for i in faces:
            counts[i] += 2
    else:
        counts = [0] * 34
        for i in ORPHANS:
            counts[i] += 1
        counts[draw(st.sampled_from(ORPHANS))] += 1
    n_melds = draw(st.integers(0, 1))
    if not n_melds:
        for i in draw(st.sampled_from(SETS)):
            counts[i] += 1
    if draw(st.booleans()):
        counts[draw(st.sampled_from([i for i, n in enumerate(counts) if n]))] -= 1
        counts[draw(st.integers(0, 33))] += 1
    return counts, n_melds


SHAPES = st.sampled_from([frozenset(), frozenset({"pairs"}), frozenset({"orphans"}),
                          frozenset({"pairs", "orphans", "flowers"})])


@settings(max_examples=600, deadline=None)
@given(count_vectors())
def test_can_win_equals_the_slow_recursion(vector):
    counts, n_melds = vector
    assert can_win(counts, n_melds) == slow_can_win(counts, n_melds), counts
    assert can_win(tuple(counts), n_melds) == can_win(counts, n_melds)


@settings(max_examples=400, deadline=None)
@given(st.one_of(count_vectors(), special_vectors()), SHAPES)
def test_can_win_with_special_shapes_equals_a_brute_force(vector, shapes):
    counts, n_melds = vector
    assert can_win(counts, n_melds, shapes) == slow_can_win(counts, n_melds, shapes), (counts, shapes)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=34, max_size=34))
def test_the_fast_splits_and_waits_equal_the_slow_recursion(counts):
    """On any counts (most no hand at all): complete exactly when the recursion says so, and
    the waits are the tiles the recursion completes."""
    assert bool(splits(tuple(counts))) == (sum(counts) % 3 == 2 and _complete(list(counts)))
    assert list(waits(tuple(counts), tuple(counts))) == _slow_waits(counts)


@settings(max_examples=500, deadline=None)
@given(count_vectors(), st.data())
def test_the_waits_of_a_hand_one_tile_short_equal_the_slow_recursion(vector, data):
    """The waits of 16 tiles (or 13, 10 … beside melds) near a win, where the per-suit tables
    find a suit's completing tiles from its held tiles and pairs: every tile that completes them,
    by the recursion, and only those."""
    counts, _ = vector
    counts[data.draw(st.sampled_from([i for i, n in enumerate(counts) if n]))] -= 1
    assert list(waits(tuple(counts), tuple(counts))) == _slow_waits(counts), counts


def _slow_waits(counts: list[int]) -> list[int]:
    """The tiles that complete `counts`, by the recursion: each added in turn."""
    slow = []
    for i in range(34):
        if counts[i] < 4:
            counts[i] += 1
            if _complete(counts):
                slow.append(i)
            counts[i] -= 1
    return slow


def test_what_is_not_17_tiles_or_holds_a_fifth_copy_never_wins():
    counts = counts_of(parse_tiles("123456789m 234p 456s 99s"))
    assert can_win(counts, 0)
    assert not can_win(counts, 1)  # 17 tiles beside a meld
    assert not can_win(counts[:-1], 0)  # not 34 counts
    five = counts_of(parse_tiles("11111m 234p 456s 789s"))  # 1m five times
    assert sum(five) == 14 and not can_win(five, 1)


def test_special_shapes_by_count():
    pairs_and_pung = counts_of(parse_tiles("1122m 3344p 5566s 77z 999m"))
    orphans_and_chow = counts_of(parse_tiles("19m 19p 19s 1234567z 1z 234m"))
    for counts in (pairs_and_pung, orphans_and_chow):
        assert not can_win(counts, 0)  # the default table knows 5 sets and a pair only
    assert can_win(pairs_and_pung, 0, frozenset({"pairs"}))
    assert not can_win(pairs_and_pung, 0, frozenset({"orphans"}))
    assert can_win(orphans_and_chow, 0, load_ruleset("tw16-improved").shapes)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 33))
def test_check_hand_agrees_with_can_win(seed, face):
    """A random winning hand with one concealed tile changed: check_hand refuses it as no win
    exactly when can_win says no (the default table)."""
    hand = random_winning_hand(random.Random(seed))
    concealed = list(hand.concealed)
    concealed[0] = PLAYING[face]
    changed = hand.replace(concealed=tuple(concealed), rob_kong=False)
    counts = counts_of(changed.concealed)
    counts[INDEX[changed.win]] += 1
    if max(counts_of(changed.all_tiles())) > 4:
        return  # refused for the fifth copy first
    try:
        check_hand(changed)
        refused = False
    except HandError as e:
        refused = str(e).startswith("not a win")
    assert refused == (not can_win(counts, len(changed.melds)))
