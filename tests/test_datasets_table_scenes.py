"""Table scenes (`--recipe table`): what surrounds a hand at a real table is labelled as tiles but
set apart from the hand in the scene truth; clutter is drawn and never labelled; the recipe is
written into the data set and remakes it."""

import json
from dataclasses import replace

import numpy as np
import pytest

from datasets import scene
from datasets.__main__ import main
from datasets.generate import generate, make_sample
from datasets.recipe import RECIPES, TABLE, Recipe, load_recipe
from datasets.scene_layout import SURROUNDS, Placed, SceneGroup, SceneLayout
from datasets.scene_truth import SceneTruth
from scoring.melds import GroupKind, GroupRole
from vision.classes import BACK, CLASSES

ONLY_TABLES = replace(TABLE, kinds={"table": 1.0})
NO_CLUTTER = {k: 0.0 for k in TABLE.clutter}
ALL_CLUTTER = {k: 1.0 for k in TABLE.clutter}


def _rows_by_kind(truth):
    out = {}
    for g in truth.groups + truth.surround:
        out.setdefault(g.word, []).extend(r for r in g.label_rows if r is not None)
    return out


def test_table_scenes_label_walls_as_backs_and_discards_apart_from_the_hand():
    kinds_seen = set()
    for index in range(8):
        _, labels, truth = scene.render_scene(np.random.default_rng([21, index]), recipe=ONLY_TABLES)
        assert truth.kind == "table"
        assert all(g.surround is None and g.role == GroupRole.HAND for g in truth.groups)
        assert all(g.surround in SURROUNDS and g.role == GroupRole.APART for g in truth.surround)
        rows = _rows_by_kind(truth)
        every = [r for rs in rows.values() for r in rs]
        assert sorted(every) == list(range(len(labels)))  # each box is one tile of one group
        for g in truth.surround:
            for code, row in zip(g.tiles, g.label_rows, strict=True):
                assert row is None or CLASSES[labels[row][0]] == code
            if g.surround == "wall":
                assert set(g.tiles) == {BACK}
            if g.surround == "discard":
                assert BACK not in g.tiles and not any(c.endswith("f") for c in g.tiles)
        kinds_seen |= {k for k, rs in rows.items() if rs}
    assert {"wall", "discard", "concealed"} <= kinds_seen, kinds_seen


def _layout_of(monkeypatch, placed, concealed=False):
    """A table scene of these tiles alone: a wall's, or the hand's concealed row."""
    codes = [p.code for p in placed]
    groups = [SceneGroup(GroupKind.CONCEALED, codes) if concealed else
              SceneGroup(GroupKind.UNKNOWN, codes, GroupRole.APART, surround="wall")]
    monkeypatch.setattr(scene, "layout", lambda rng, recipe: SceneLayout("table", None, groups, placed))


@pytest.mark.parametrize("seed", range(4))
def test_a_walls_lower_tile_shows_only_its_edge_and_is_not_labelled(monkeypatch, seed):
    lower, upper = Placed(BACK, 0, 0, 0, 0), Placed(BACK, 0, 0, 0, 0, layer=1)
    beside = Placed(BACK, 0, 3, 0, 0)  # a one-high stack further along is seen whole
    _layout_of(monkeypatch, [lower, upper, beside])
    recipe = replace(TABLE, glare=0.0, occluder=0.0, printout=0.0, lying_edge=1.0, clutter=NO_CLUTTER)
    _, labels, truth = scene.render_scene(np.random.default_rng([3, seed]), recipe=recipe)
    rows = truth.surround[0].label_rows
    assert rows[0] is None and rows[1] is not None and rows[2] is not None
    assert [CLASSES[c] for c, *_ in labels] == [BACK, BACK]


def test_clutter_never_gets_a_box_nor_hides_or_moves_one():
    """The same scenes with every kind of clutter and with none: the same boxes, other pixels."""
    for index in range(6):
        bare, bare_labels, _ = scene.render_scene(np.random.default_rng([8, index]),
                                                  recipe=replace(TABLE, clutter=NO_CLUTTER))
        busy, busy_labels, truth = scene.render_scene(np.random.default_rng([8, index]),
                                                      recipe=replace(TABLE, clutter=ALL_CLUTTER))
        assert busy_labels == bare_labels
        assert truth.clutter and not np.array_equal(bare, busy)


def test_a_table_of_clutter_alone_has_no_boxes():
    recipe = replace(TABLE, kinds={"clutter": 1.0}, glare=0.0)
    for index in range(6):
        image, labels, truth = scene.render_scene(np.random.default_rng([5, index]), recipe=recipe)
        assert labels == [] and truth.groups == () and truth.surround == ()
        assert len(truth.clutter) >= 2 and image.std() > 5


def test_same_seed_same_table_scene():
    assert make_sample(2, 11, recipe=TABLE) == make_sample(2, 11, recipe=TABLE)
    assert make_sample(2, 11, recipe=TABLE)[0] != make_sample(2, 11)[0]


def test_recipe_is_written_and_remakes_the_data_set(tmp_path):
    main(["generate", str(tmp_path / "a"), "--count", "3", "--seed", "4", "--recipe", "table", "--workers", "1"])
    made = json.loads((tmp_path / "a" / "recipe.json").read_text())
    assert made["recipe"]["name"] == "table" and made["count"] == 3 and made["seed"] == 4
    assert made["generator_commit"] is None or len(made["generator_commit"].split("+")[0]) == 40
    assert load_recipe(str(tmp_path / "a" / "recipe.json")) == TABLE
    main(["generate", str(tmp_path / "b"), "--count", "3", "--seed", "4", "--workers", "1",
          "--recipe", str(tmp_path / "a" / "recipe.json")])
    for image in sorted((tmp_path / "a").glob("images/*/*.jpg")):
        again = tmp_path / "b" / image.relative_to(tmp_path / "a")
        assert again.read_bytes() == image.read_bytes()


def test_every_named_recipe_round_trips_through_json():
    for recipe in RECIPES.values():
        assert Recipe.from_json(json.loads(json.dumps(recipe.to_json()))) == recipe


def test_a_bad_recipe_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="neither one of default, table"):
        main(["generate", str(tmp_path), "--count", "1", "--recipe", "tabel"])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"walls": 0.5}))
    with pytest.raises(SystemExit, match="unknown recipe settings: walls"):
        main(["generate", str(tmp_path / "out"), "--count", "1", "--recipe", str(bad)])


def test_generated_table_set_partitions_its_label_rows(tmp_path):
    generate(tmp_path, 6, seed=3, workers=1, recipe=ONLY_TABLES)
    for truth_file in sorted(tmp_path.glob("scenes/*/*.json")):
        truth = SceneTruth.read(truth_file)
        label = tmp_path / "labels" / truth_file.parent.name / f"{truth_file.stem}.txt"
        n = len(label.read_text().splitlines())
        every = [r for rs in _rows_by_kind(truth).values() for r in rs]
        assert sorted(every) == list(range(n))


@pytest.mark.parametrize("seed", range(3))
def test_a_rack_hides_the_feet_of_the_standing_row_and_gets_no_box(monkeypatch, seed):
    row = [Placed(code, 0, x + 0.5, 0, 0, upright=True) for x, code in enumerate(["1m", "2m", "3m", "4m", "5m"])]
    _layout_of(monkeypatch, row, concealed=True)
    quiet = replace(TABLE, glare=0.0, occluder=0.0, printout=0.0, clutter=NO_CLUTTER)
    _, bare, truth = scene.render_scene(np.random.default_rng([7, seed]), recipe=replace(quiet, rack=0.0))
    _, racked, racked_truth = scene.render_scene(np.random.default_rng([7, seed]), recipe=replace(quiet, rack=1.0))
    assert racked_truth.rack and not truth.rack
    assert [c for c, *_ in racked] == [c for c, *_ in bare]  # every tile still shows enough: no box lost or added
    shorter = [(b[4] - b[2]) - (r[4] - r[2]) for b, r in zip(bare, racked, strict=True)]
    assert min(shorter) >= -0.5 and max(shorter) > 1  # boxes end where the rack starts
