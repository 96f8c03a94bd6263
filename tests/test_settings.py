"""The reader's settings: one frozen config, its JSON round trip, and what it refuses."""

import json
from dataclasses import FrozenInstanceError, fields

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from vision.settings import DEFAULT, ReaderSettings


def test_defaults_round_trip_through_json():
    text = json.dumps(DEFAULT.to_json())
    assert ReaderSettings.from_json(json.loads(text)) == DEFAULT


def test_settings_are_frozen():
    with pytest.raises(FrozenInstanceError):
        DEFAULT.max_cost = 1.0


@given(hs.sampled_from([f for f in fields(ReaderSettings)]), hs.integers(0, 10_000))
def test_a_partial_file_keeps_the_defaults_for_the_rest(field, value):
    changed = ReaderSettings.from_json({field.name: value})
    assert getattr(changed, field.name) == value
    assert {k: v for k, v in changed.to_json().items() if k != field.name} == \
        {k: v for k, v in DEFAULT.to_json().items() if k != field.name}


@pytest.mark.parametrize(("data", "says"), [
    ({"max_cots": 1.0}, "unknown reader settings: max_cots"),
    ({"max_cost": "12"}, "max_cost must be a number"),
    ({"candidates": 2.5}, "candidates must be an integer"),
    ({"max_searched": True}, "max_searched must be an integer"),
    ([1, 2], "must be a JSON object"),
])
def test_a_bad_value_is_refused_by_name(data, says):
    with pytest.raises(ValueError, match=says):
        ReaderSettings.from_json(data)


def test_a_file_that_is_not_json_is_refused_naming_it(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{max_cost: 1}")
    with pytest.raises(ValueError, match="settings.json"):
        ReaderSettings.from_file(path)
    with pytest.raises(ValueError, match="cannot read"):
        ReaderSettings.from_file(tmp_path / "absent.json")
    path.write_text('{"turned_by": 0.5}')
    assert ReaderSettings.from_file(path).turned_by == 0.5
