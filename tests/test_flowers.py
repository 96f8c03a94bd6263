"""Flowers found and kept (docs/decisions/flowers-kept.md): a run of flower-faced tiles apart from the hand is its
flower group however unsure each flower's identity, and a hand holds each flower once, so one read twice is resolved."""

import itertools
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.hand import Hand, Meld, Situation
from scoring.melds import GroupRole
from scoring.tiles import FLOWERS
from training.evaluate import reading_hand
from vision.classes import CLASS_INDEX, CLASSES
from vision.correction import distinct_readings
from vision.detections import Detections
from vision.detector import TileDetector, in_flower_run
from vision.hand_finding import backs_beside_flowers, find_parts, flower_tiles, flowers_cut_off, flowers_of
from vision.layout import Layout
from vision.read import read_detections, read_photo

from .fake_detections import TILE_W, around_the_hand, laid_out, one_hot
from .test_layout_and_correction import same_hand

FLOWERS_DATA = Path(__file__).resolve().parent / "data" / "flowers"
FLOWER_HAND = Hand(("1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "5z", "2m"), "2m",
                   (Meld("pon", ("3z", "3z", "3z")),), ("1f", "3f", "6f"), Situation(seat_wind="E", round="S"))


def with_scores(dets: Detections, rows: dict[int, dict[str, float]], rest: float = 0.01) -> Detections:
    """`dets` with the tiles in `rows` scored as given (every other class at `rest`)."""
    scores = dets.scores.copy()
    for i, row in rows.items():
        scores[i] = rest
        for code, value in row.items():
            scores[i, CLASS_INDEX[code]] = value
    return Detections(dets.boxes, scores)


def flower_rows(codes: list[str]) -> list[int]:
    return [i for i, c in enumerate(codes) if c in FLOWERS]


def flower_group(reading) -> list[str]:
    return sorted(reading.best.row(i).code for g in reading.best.groups if g.kind == "flowers" for i in g.members)


def test_a_row_of_unsure_flowers_apart_from_the_hand_is_its_flower_group():
    """As on the real photo of the issue: three flowers laid apart, each at 0.2-0.33, one read surest as
    an honour and two as the same wrong flower. They were set apart as strays; now they are the flowers."""
    dets, codes = laid_out(FLOWER_HAND)
    one, three, six = flower_rows(codes)
    photo = with_scores(around_the_hand(dets, wall=True, discards=6, seed=1), {
        one: {"2f": 0.3, "1f": 0.25, "6z": 0.1},
        three: {"6z": 0.3, "3f": 0.22, "7f": 0.15, "8f": 0.1},  # no flower is its top class
        six: {"2f": 0.33, "6f": 0.27, "5f": 0.1},
    })
    reading = read_detections(photo)
    assert reading_hand(reading) is not None, reading.warnings
    assert len(reading_hand(reading).flowers) == 3 and len(set(reading_hand(reading).flowers)) == 3
    assert flower_group(reading) == sorted(reading_hand(reading).flowers)
    loose = {i for g in reading.best.groups if g.role == GroupRole.APART for i in g.members}
    flowers = [one, three, six]  # a row's id is its detection's index
    assert len(loose) == len(photo) - len(dets) and not loose & set(flowers)
    assert reading.best.row(flowers[1]).code in FLOWERS and reading.best.row(flowers[1]).why == "legal hand"


def test_a_run_of_flowers_keeps_a_flower_read_as_no_flower():
    """Four flowers laid apart, one read surely as a bamboo bird: the run is the flowers, that one too."""
    hand = FLOWER_HAND.replace(flowers=("2f", "3f", "6f", "8f"))
    dets, codes = laid_out(hand)
    two, three, six, eight = flower_rows(codes)
    photo = with_scores(dets, {two: {"1s": 0.9, "2f": 0.05}, three: {"3f": 0.5, "7f": 0.2},
                               six: {"6f": 0.4, "8f": 0.3}, eight: {"8f": 0.6, "6f": 0.2}})
    reading = read_detections(photo)
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), hand), reading.warnings
    assert reading.best.row(two).code == "2f"


def test_with_no_legal_hand_the_flowers_shown_still_hold_each_flower_once():
    dets, codes = laid_out(FLOWER_HAND)
    one, three, six = flower_rows(codes)
    photo = with_scores(dets, {one: {"1f": 0.6}, three: {"1f": 0.5, "3f": 0.4}, six: {"6f": 0.7}})
    photo = photo[[i for i in range(len(photo)) if i not in (2, 5)]]  # two tiles missed: no legal hand
    reading = read_detections(photo)
    assert reading_hand(reading) is None
    assert flower_group(reading) == ["1f", "3f", "6f"]
    assert "each flower once" in [row.why for row in reading.best.rows]


def test_a_flower_read_twice_takes_its_next_likeliest_flower():
    dets, codes = laid_out(FLOWER_HAND)
    one, three, six = flower_rows(codes)
    photo = with_scores(dets, {one: {"1f": 0.6, "4f": 0.1}, three: {"3f": 0.7, "1f": 0.1},
                               six: {"1f": 0.5, "6f": 0.35, "2f": 0.05}})  # 6f read as 1f, a second 1f
    reading = read_detections(photo)
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), FLOWER_HAND), reading.warnings
    assert reading.best.row(six).raw_code == "1f" and reading.best.row(six).code == "6f"


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 4).flatmap(lambda n: st.lists(
    st.lists(st.floats(0.0, 10.0), min_size=len(FLOWERS), max_size=len(FLOWERS)), min_size=n, max_size=n)))
def test_the_distinct_readings_are_the_cheapest_readings_that_repeat_no_flower(costs):
    """Against every reading of the tiles, tried one by one: the same costs, cheapest first, none
    holding a flower twice."""
    options = [sorted(zip(row, FLOWERS, strict=True)) for row in costs]
    everything = sorted(sum(row[FLOWERS.index(c)] for row, c in zip(costs, pick, strict=True))
                        for pick in itertools.product(FLOWERS, repeat=len(costs)) if len(set(pick)) == len(pick))
    readings = distinct_readings(options, 3)
    assert all(len(set(r)) == len(r) == len(costs) for _, r in readings)
    assert [c for c, _ in readings] == pytest.approx(everything[:3])
    for cost, reading in readings:
        assert cost == pytest.approx(sum(row[FLOWERS.index(c)] for row, c in zip(costs, reading, strict=True)))


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_flowers_read_any_way_keep_every_flower_once(data):
    """Whatever flower scores the tiles laid apart carry (however unsure, however repeated), the hand
    read holds every one of them as a flower, each flower once."""
    count = data.draw(st.integers(1, 8), label="flowers")
    hand = FLOWER_HAND.replace(flowers=tuple(FLOWERS[:count]))
    dets, codes = laid_out(hand)
    draw_row = st.lists(st.floats(0.0, 1.0), min_size=len(FLOWERS), max_size=len(FLOWERS))
    rows = {i: dict(zip(FLOWERS, data.draw(draw_row, label=f"tile {i}"), strict=True)) for i in flower_rows(codes)}
    for row in rows.values():  # flower-faced: the flowers together outweigh every other class
        row[max(row, key=row.get)] += 0.2
    reading = read_detections(with_scores(dets, rows, rest=0.001))
    assert reading_hand(reading) is not None, reading.warnings
    assert len(reading_hand(reading).flowers) == count == len(set(reading_hand(reading).flowers))
    assert [reading.best.row(i).code in FLOWERS for i in rows] == [True] * count


def test_a_tile_is_laid_out_as_a_flower_when_the_flowers_together_outweigh_its_top_class():
    boxes = np.array([[0, 0, 30, 40], [40, 0, 70, 40]], np.float32)
    scores = np.full((2, len(CLASSES)), 0.001, np.float32)
    scores[0, [CLASS_INDEX[c] for c in ("2f", "5f", "7f")]] = 0.15  # 0.45 of flowers beside a 6z at 0.3
    scores[0, CLASS_INDEX["6z"]] = 0.3
    scores[1, CLASS_INDEX["6z"]], scores[1, CLASS_INDEX["2f"]] = 0.5, 0.3  # a 6z that looks a little like 2f
    dets = Detections(boxes, scores)
    assert dets.raw_codes == ["6z", "6z"]
    assert dets.layout_codes == ["2f", "6z"]


def test_in_a_part_mostly_of_flowers_a_tile_or_two_between_them_are_flowers_but_a_meld_is_not():
    def of(codes):
        return flowers_of(tuple(range(len(codes))), codes)

    assert of(["1f", "1s", "2f", "3f"]) == (0, 1, 2, 3)
    assert of(["7z", "1f", "2f", "3f", "6z"]) == (0, 1, 2, 3, 4)
    assert of(["3z", "3z", "3z", "1f", "2f", "5f", "6f"]) == (3, 4, 5, 6)
    assert of(["1f", "2f", "4s", "5s", "6s", "7f", "8f", "3f"]) == (0, 1, 5, 6, 7)
    assert of(["1f", "1s", "2s"]) == () == of(["1f", "2f", "1s", "2s"])  # half or fewer: no run of flowers


def test_flowers_laid_touching_a_meld_are_cut_off_as_the_flower_group():
    """As on an evening's photo: the flowers pushed against a concealed kong shown as backs, the last flower
    read surely as a bamboo. The seven tiles were one part, mostly no flowers, set apart whole with the kong
    (no legal hand); now the flowers at its end are the flower group and the kong the hand's meld."""
    hand = FLOWER_HAND.replace(melds=(Meld("ankong", ("3z",) * 4),))
    dets, codes = laid_out(hand)
    flowers = flower_rows(codes)
    boxes = dets.boxes.copy()
    boxes[flowers, 0::2] -= 2 * TILE_W  # laid out two tiles' widths from the kong: now touching it
    photo = with_scores(Detections(boxes, dets.scores), {flowers[-1]: {"1s": 0.6, "6f": 0.3}})
    assert photo.layout_codes[flowers[-1]] == "1s"
    reading = read_detections(photo)
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), hand), reading.warnings


def test_only_a_run_of_two_flowers_or_more_at_a_group_end_is_cut_off_and_a_meld_stays():
    def cut(codes):
        return flowers_cut_off(Layout((tuple(range(len(codes))),), ((0,),), (), 0.0), codes).groups

    assert cut(["back", "7s", "7s", "back", "2f", "6f", "1s"]) == ((0, 1, 2, 3), (4, 5, 6))
    assert cut(["1f", "5f", "3z", "3z", "3z"]) == ((2, 3, 4), (0, 1))
    assert cut(["3z", "3z", "3z", "1s", "5f"]) == ((0, 1, 2, 3, 4),)  # one flower: no flower group
    assert cut(["3z", "3z", "5f", "6f"]) == ((0, 1, 2, 3),)  # a meld's tiles would not remain
    assert cut(["1f", "2f", "3f", "4f"]) == ((0, 1, 2, 3),)  # flowers all: `flowers_of` takes it whole


def test_backs_at_either_end_of_a_run_of_flowers_are_parts_of_their_own():
    def parts(codes):
        layout = Layout((tuple(range(len(codes))),), ((0,),), (), 0.0)
        return backs_beside_flowers(flowers_cut_off(layout, codes), codes).groups

    assert parts(["back", "7f", "5f", "3f", "back"]) == ((0,), (1, 2, 3), (4,))
    assert parts(["2f", "6f", "back", "back"]) == ((0, 1), (2, 3))
    assert parts(["back", "7s", "7s", "back", "2f", "6f", "1s"]) == ((0, 1, 2, 3), (4, 5, 6))  # a kong stays whole
    assert parts(["1s", "2s", "3s", "back"]) == ((0, 1, 2, 3),)  # no flowers: as laid out
    assert parts(["back", "1f"]) == ((0, 1),)  # one flower is no run
    assert parts(["back"] * 4) == ((0, 1, 2, 3),)


def test_an_empty_square_of_the_mat_beside_the_flowers_is_no_flower():
    """As on a generated evening's gridded mat: the squares at both ends of the flowers laid apart were boxed as
    backs (0.3 and 0.5) and taken into the flower group as two more flowers. A flower lies face up: they are set
    apart, and the hand keeps its three flowers."""
    dets, codes = laid_out(FLOWER_HAND)
    flowers = flower_rows(codes)
    row = dets.boxes[flowers]
    step = row[1, 0] - row[0, 0]
    squares = np.stack([row[0] - [step, 0, step, 0], row[-1] + [step, 0, step, 0]]).astype(np.float32)
    empty = np.full((2, len(CLASSES)), 0.01, np.float32)
    empty[0, CLASS_INDEX["back"]], empty[1, CLASS_INDEX["back"]] = 0.3, 0.5
    photo = Detections(np.concatenate([dets.boxes, squares]), np.concatenate([dets.scores, empty]))
    reading = read_detections(photo)
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), FLOWER_HAND), reading.warnings
    assert set(reading.best.apart) == {len(dets), len(dets) + 1}


def test_a_faint_box_inside_a_run_of_flowers_is_kept_but_not_at_its_end_nor_over_a_seam():
    """Tiles 40 px wide, 2 px apart: flowers, then faint boxes the classifier doubts, in one row."""
    def row(n, y=100.0):
        return np.array([[100 + 42 * k, y, 140 + 42 * k, y + 55] for k in range(n)], np.float32)

    flower = np.array([True, True, False, True, False])
    faint = ~flower
    assert in_flower_run(row(5), flower, faint, 0.3).tolist() == [False, False, True, False, False]
    # one flower beside it is no run (a faint box between a flower and a faint box at the end)
    assert not in_flower_run(row(3), np.array([True, False, False]), np.array([False, True, True]), 0.3).any()
    # a box over the seam between two flowers covers half of each: it is the seam, not a tile
    seam = np.concatenate([row(2), [[121, 100, 161, 155]]]).astype(np.float32)
    assert not in_flower_run(seam, np.array([True, True, False]), np.array([False, False, True]), 0.3).any()
    # flowers a row below and above are not beside it
    stacked = np.concatenate([row(1, 0.0), row(1, 100.0), row(1, 200.0)])
    assert not in_flower_run(stacked, np.array([True, False, True]), np.array([False, True, False]), 0.3).any()


def test_a_flower_the_classifier_doubts_inside_the_run_of_eight_is_kept():
    """A generated evening's photo in a held-out design (`training.evening`, real-crops-held-out@406, seed 2001,
    hand 8, 1536 px): the eight flowers laid touching in a row above the hand. The detector boxed 梅 at 0.2 and the
    classifier read it as 3p, so it was left out (the reading held six of the eight flowers). Inside the run it
    is kept, and the whole hand reads right."""
    reading = read_photo(cv2.imread(str(FLOWERS_DATA / "eight-flowers-one-doubted.jpg")), TileDetector())
    groups = {g.kind: [reading.best.row(i).code for i in g.members] for g in reading.best.groups}
    assert groups["flowers"] == ["4f", "7f", "1f", "3f", "6f", "2f", "8f", "5f"]  # as laid, left to right
    assert sorted(groups["concealed"]) == sorted("3z 3z 3z 4m 4p 4p 5m 5m 6m 6m 7m 7p 8p 9p".split())
    assert groups["pon"] == ["2z", "2z", "2z"]


def test_a_tile_laid_out_as_a_flower_inside_a_meld_is_its_top_class():
    """As on a generated evening's photo (`@406` seed 2002 hand 4, 1536 px): a chi's middle tile read as itself
    at 0.35, the flowers together above it, so it was laid out as a flower: the chi was read with that tile
    supposed and the hand held a flower more than it shows. A player never lays a flower inside a meld."""
    hand = FLOWER_HAND.replace(melds=(Meld("chi", ("1s", "2s", "3s")),))
    dets, codes = laid_out(hand)
    middle = codes.index("2s")
    photo = with_scores(dets, {middle: {"2s": 0.3, "2f": 0.2, "4f": 0.15}})
    assert photo.layout_codes[middle] == "2f"
    reading = read_detections(photo)
    assert reading_hand(reading) is not None and same_hand(reading_hand(reading), hand), reading.warnings
    assert not reading.best.supposed and reading.best.row(middle).code == "2s"


def test_a_tile_the_layout_set_apart_from_the_flowers_is_no_flower_though_its_box_touches_them():
    """As on a generated evening's photo (`xmahjongg-real` seed 2 hand 7, 1536 px): the winning tile 3p set apart
    after the row, the flowers laid beyond it. The layout cut them apart (a step between centres longer than the
    flowers' own), but their boxes nearly touched, so the two were joined into one part, the part was mostly
    flowers, and the 3p (read at 0.86) was taken as a flower: the hand supposed its winning tile and held a fifth
    flower. Flowers and other tiles are joined into one part only within a layout group."""
    codes = ["1m", "2m", "3m", "3p", "1f", "3f", "6f"]
    x = [0, 31, 62, 110, 142, 173, 204]  # the row; the 3p a tile's width apart; the flowers 2 px after it
    boxes = np.array([[500 + a, 500, 530 + a, 540] for a in x], np.float32)
    dets = Detections(boxes, one_hot(codes))
    layout = Layout(((0, 1, 2), (3,), (4, 5, 6)), ((0, 1, 2),), (), 0.0)
    parts = find_parts(dets, layout)
    assert sorted(p.members for p in parts) == [(0, 1, 2), (3,), (4, 5, 6)]
    assert flower_tiles(parts) == {4, 5, 6}
