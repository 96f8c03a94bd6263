"""The evening benchmark (training/evening.py) at a small size: one evening of one unseen design, its hands
read one by one with the table's memory, each taught after it is read."""

import re
from dataclasses import replace

import cv2
import numpy as np
import pytest

from datasets.photo import photo_effects
from datasets.scene import render_scene
from training.evaluate import TAP_CAUSES
from training.evening import (
    FIRST_HANDS,
    FLOWER_OUTCOMES,
    FLOWER_ROW,
    PHOTOGRAPHERS,
    evening,
    flower_outcomes,
    hand_photo,
    held_sideways,
    run,
    teach_flowers,
    tile_set_of,
)
from vision.boxes import match
from vision.classes import CLASSES
from vision.detections import Detections
from vision.detector import TileDetector
from vision.memory import TableMemory
from vision.read import read_detections
from vision.settings import READER_DEFAULT

from .fake_detections import TILE_W, laid_out, one_hot
from .shared import needs_shared
from .test_flowers import FLOWER_HAND, flower_rows, with_scores

DESIGN = ("real-crops-held-out", 170.0)  # the cream set of the held-out real crops
pytestmark = needs_shared("data", "real-crops", needed_for="the evening benchmark's unseen designs")


@pytest.fixture(scope="module")
def detector():
    return TileDetector()


def test_an_evening_is_one_set_of_whole_hands_with_flowers_and_melds():
    rng = np.random.default_rng(3)
    tile_set, effects = tile_set_of(*DESIGN, rng), photo_effects()
    for _ in range(2):
        image, labels, truth = hand_photo(rng, tile_set, 320, effects)
        assert truth.style == ("real-crops-held-out",) and image.shape[2] == 3
        assert truth.hand.flowers and truth.hand.melds
        assert all(None not in g.label_rows for g in truth.hand_groups())  # every hand tile in view


def test_the_evening_benchmark_at_a_small_size(detector):
    """Three hands: two read before the memory knows much, one after; with and without the memory, the
    same photos. The first is read with an empty memory: exactly as without one."""
    result = run(evenings=1, hands=3, seed=5, size=384, real=[], designs=(DESIGN,), detector=detector)
    assert result["reader_settings"] == READER_DEFAULT.to_json()
    assert result["detector_settings"] == detector.settings.to_json()
    figures = result["all"]
    assert set(figures) == {"hands 1-2 memory", "hands 1-2 alone", "hands 3 on memory", "hands 3 on alone"}
    for key, f in figures.items():
        assert f["hands"] == (FIRST_HANDS if key.startswith("hands 1-2") else 1)
        assert f["flower_hands"] == f["whole_hands"] == f["hands"]  # whole hands, all with flowers
        assert f["taps"] >= 0 and 0 <= f["groups_exact"] <= 1 and 0 <= f["flower_groups_right"] <= 1
        assert 0 <= f["tai_exact"] <= 1 and 0 < f["scored_hands"] <= f["whole_hands"]  # generated hands are wins
        assert sum(f["tai_misses"].values()) == round(f["scored_hands"] * (1 - f["tai_exact"]))  # each miss, once
        assert f["told_hands"] <= f["scored_hands"]
        assert (f["taps_told"] is None) == (f["told_hands"] == 0)  # taps over the same told hands
        assert f["taps"] == pytest.approx(sum(f["taps_by_cause"].values()), abs=0.002 * len(TAP_CAUSES))
        assert 0.5 <= f["hand_tiles_read_right"] <= 1
        tiles = f["flowers_by_outcome"]
        assert tiles["of"] == sum(tiles[o] for o in FLOWER_OUTCOMES) >= f["flower_hands"]
    first = evening(detector, *DESIGN, hands=1, seed=5, size=384, effects=photo_effects())
    assert first["hands 1-2 memory"] == first["hands 1-2 alone"]


def test_each_flower_of_the_hand_is_judged_right_another_flower_or_not_found_and_a_tile_beside_them_extra():
    """The hand's flowers 1f 3f 6f: 3f read surely as 8f, 6f not found, and beside them a box read as 2f."""
    dets, codes = laid_out(FLOWER_HAND)
    one, three, six = flower_rows(codes)
    found = [i for i in range(len(dets)) if i != six]
    beside = dets.boxes[three] + np.float32([2 * (TILE_W + 1), 0, 2 * (TILE_W + 1), 0])
    photo = Detections(np.concatenate([dets.boxes[found], beside[None]]),
                       np.concatenate([dets.scores[found], one_hot(["2f"])]))
    reading = read_detections(with_scores(photo, {found.index(three): {"8f": 0.9}}))
    assert reading.legal
    outcomes = flower_outcomes(reading, match(dets.boxes, reading.best.boxes), codes, [one, three, six])
    assert outcomes == {"right": 1, "another flower": 1, "no flower": 0, "set apart": 0, "not found": 1, "extra": 1}


def test_the_teach_step_photographs_the_sets_eight_flowers_and_teaches_those_found(detector):
    rng = np.random.default_rng(4)
    tile_set = tile_set_of(*DESIGN, rng)
    _, labels, truth = render_scene(np.random.default_rng(9), "unseen", 512, FLOWER_ROW, tile_set)
    assert sorted(CLASSES[c] for c, *_ in labels) == [f"{n}f" for n in range(1, 9)] and truth.hand is None
    memory = TableMemory.for_classifier(detector.classifier)
    taught = teach_flowers(memory, detector, np.random.default_rng(9), tile_set, 512, photo_effects())
    assert taught >= 6 and len(memory) == taught and set(memory.counts()) <= {f"{n}f" for n in range(1, 9)}


def test_a_taught_evening_reads_the_same_hands_with_the_flowers_taught_first(detector):
    """`--taught`: the photos are the evening's without it (the flower row is drawn after them); the first hand
    is read with a memory that is no longer empty."""
    plain = evening(detector, *DESIGN, hands=1, seed=5, size=384, effects=photo_effects(), show_detail=False)
    taught = evening(detector, *DESIGN, hands=1, seed=5, size=384, effects=photo_effects(), taught=True)
    assert taught["hands 1-2 alone"] == plain["hands 1-2 alone"]
    assert run(evenings=1, hands=1, seed=5, size=384, real=[], designs=(DESIGN,), detector=detector,
               taught=True)["taught"] is True


def test_the_player_across_the_table_photographs_the_owners_hand_turned_half_a_turn():
    """`--photographer across`: the hand its owner would have photographed, the same tiles in the same groups, laid
    out turned half a turn (the first tile of the row now lies at its right end), and the evening goes on as it
    would after the owner's photo."""
    hands = {}
    for photographer in PHOTOGRAPHERS:
        rng = np.random.default_rng(3)
        tile_set, effects = tile_set_of(*DESIGN, rng), photo_effects()
        hands[photographer] = hand_photo(rng, tile_set, 384, effects, photographer), hand_photo(rng, tile_set, 384,
                                                                                                  effects)
    (owner, after), (across, after_across) = hands["owner"], hands["across"]
    assert across[2].hand == owner[2].hand and np.array_equal(after[0], after_across[0])
    for mine, theirs in zip(owner[2].hand_groups(), across[2].hand_groups(), strict=True):
        assert mine.tiles == theirs.tiles and [owner[1][r][0] for r in mine.label_rows] == \
            [across[1][r][0] for r in theirs.label_rows]
    row = next(g for g in owner[2].hand_groups() if g.kind == "concealed").label_rows
    centre = lambda labels, r: (labels[r][1] + labels[r][3]) / 2  # noqa: E731
    assert centre(owner[1], row[0]) < centre(owner[1], row[-1])
    assert centre(across[1], row[0]) > centre(across[1], row[-1])


def test_the_player_across_the_table_frames_every_tile_of_the_hand():
    """Framed from the other side, a tile of the owner's hand can fall outside the photo (one of these three):
    that hand is drawn again, as one the owner's photo cuts is. The evening judges whole hands only."""
    rng = np.random.default_rng(2)
    tile_set, effects = tile_set_of(*DESIGN, rng), photo_effects()
    for _ in range(3):
        truth = hand_photo(rng, tile_set, 384, effects, "across")[2]
        assert truth.hand.flowers and truth.hand.melds
        assert all(None not in g.label_rows for g in truth.hand_groups())


@pytest.mark.parametrize(("clockwise", "turn", "quarter"), [(True, cv2.ROTATE_90_CLOCKWISE, 90),
                                                       (False, cv2.ROTATE_90_COUNTERCLOCKWISE, -90)])
def test_a_photo_taken_with_the_phone_held_sideways_is_the_photo_turned_a_quarter_turn(clockwise, turn, quarter):
    """`--sideways`: each label box frames the same pixels turned, and the camera's roll is turned with them."""
    rng = np.random.default_rng(3)
    image, labels, truth = hand_photo(rng, tile_set_of(*DESIGN, rng), 384, photo_effects())
    whole = [(c, *np.round(box)) for c, *box in labels]
    turned, turned_labels, turned_truth = held_sideways(image, whole, truth, clockwise)
    assert np.array_equal(turned, cv2.rotate(image, turn)) and turned_truth.hand == truth.hand
    assert abs((turned_truth.roll - truth.roll - quarter) % 360) < 1e-6
    for (c, x1, y1, x2, y2), (d, u1, v1, u2, v2) in zip(whole, turned_labels, strict=True):
        tile = image[int(y1):int(y2), int(x1):int(x2)]
        assert c == d and np.array_equal(turned[int(v1):int(v2), int(u1):int(u2)], cv2.rotate(tile, turn))


def test_a_hand_photographed_from_across_the_table_is_read_turned_half_a_turn(detector, capsys):
    """The reader turns the photo back, and `--detail` says so; the JSON says who photographed the hands."""
    result = run(evenings=1, hands=1, seed=5, size=384, real=[], designs=(DESIGN,), detector=detector,
                 photographer="across", show_detail=True)
    assert result["photographer"] == "across"
    read = result["all"]["hands 1-2 memory"]
    assert read["hands"] == 1 and read["hand_tiles_read_right"] >= 0.8
    assert re.search(r"hand 1: \d+ taps, camera turned -?\d+°, read turned -?\d+° and half a turn",
                     capsys.readouterr().err)


def test_the_detail_says_each_hands_taps_and_where_its_groups_differ(detector, capsys):
    """`--detail`: a line per hand read with the memory; a hand not read exactly shows both its groups."""
    result = run(evenings=1, hands=3, seed=5, size=384, real=[], designs=(DESIGN,), detector=detector,
                 show_detail=True)
    lines = capsys.readouterr().err.splitlines()
    hands = [line for line in lines if not line.startswith("  ")]
    assert [h.split(": ")[0] for h in hands] == [f"real-crops-held-out@170 seed 5 hand {n}" for n in (1, 2, 3)]
    assert all(re.search(r": \d+ taps, camera turned -?\d+°", h) for h in hands)
    exact = sum(h.endswith("groups exact") for h in hands)
    assert len(lines) == len(hands) + 2 * (3 - exact)
    memory = [result["all"][f"hands {phase} memory"] for phase in ("1-2", "3 on")]
    assert exact == round(sum(f["groups_exact"] * f["whole_hands"] for f in memory))


def test_the_evening_reads_with_the_settings_it_is_given(detector, tmp_path):
    """`--reader-settings`: the memory weighs its examples as the given settings say (here not at all), and the
    JSON names them; a settings file with an unknown field is refused before any photo is read."""
    from training.evening import main

    no_memory = replace(READER_DEFAULT, strength=0.0, relative=0.0, probe=0.0)
    result = run(evenings=1, hands=3, seed=5, size=384, real=[], designs=(DESIGN,), detector=detector,
                 reader=no_memory)
    assert result["reader_settings"] == no_memory.to_json()
    for phase in ("1-2", "3 on"):
        assert result["all"][f"hands {phase} memory"] == result["all"][f"hands {phase} alone"]
    (tmp_path / "bad.json").write_text('{"strenght": 30}')
    with pytest.raises(SystemExit, match="unknown reader settings: strenght"):
        main(["--evenings", "1", "--hands", "1", "--reader-settings", str(tmp_path / "bad.json")])


def test_flower_identity_judges_the_model_and_the_nearest_example_of_another_photo():
    from training.flower_identity import judge
    from vision.classes import CLASS_INDEX

    codes = ["1f", "2f", "1f", "3f"]
    photo = np.array([0, 0, 1, 1])
    probs = np.zeros((4, 43))
    for i, code in enumerate(["1f", "4f", "1f", "3f"]):  # the second read wrong
        probs[i, CLASS_INDEX[code]] = 1.0
    # the two 1f alike across photos; the 2f likest the 3f of the other photo, its own photo's 1f ignored
    embeddings = np.array([[1, 0, 0], [0, 1, 0.1], [1, 0.05, 0], [0, 1, 0]], np.float32)
    result = judge(probs, embeddings, codes, photo)
    assert result == {"flowers": 4, "model": 0.75, "judged by example": 2, "nearest example": 1.0}


def test_flower_identity_cuts_every_flower_of_a_sets_photos(detector):
    from training.flower_identity import flower_crops

    crops, codes, photo = flower_crops(*DESIGN, hands=2, seed=3, size=320, classifier=detector.classifier)
    assert len(crops) == len(codes) == len(photo) > 0 and set(photo) <= {0, 1}
    assert all(code.endswith("f") for code in codes) and crops.shape[1:] == (64, 48, 3)
