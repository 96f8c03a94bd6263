"""The read's settings: frozen configs, their JSON round trip, and what they refuse."""

import json
from dataclasses import FrozenInstanceError, fields

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from vision.settings import DETECTOR_DEFAULT, READER_DEFAULT, DetectorSettings, ReaderSettings

CONFIGS = pytest.mark.parametrize("defaults", [READER_DEFAULT, DETECTOR_DEFAULT], ids=["reader", "detector"])


@CONFIGS
def test_defaults_round_trip_through_json(defaults):
    text = json.dumps(defaults.to_json())
    assert type(defaults).from_json(json.loads(text)) == defaults


def test_settings_are_frozen():
    with pytest.raises(FrozenInstanceError):
        READER_DEFAULT.max_cost = 1.0
    with pytest.raises(FrozenInstanceError):
        DETECTOR_DEFAULT.max_second_passes = 0


@given(hs.sampled_from([(READER_DEFAULT, f) for f in fields(ReaderSettings)] +
                       [(DETECTOR_DEFAULT, f) for f in fields(DetectorSettings)]), hs.integers(0, 10_000))
def test_a_partial_file_keeps_the_defaults_for_the_rest(config_field, value):
    defaults, field = config_field
    changed = type(defaults).from_json({field.name: value})
    assert getattr(changed, field.name) == value
    assert {k: v for k, v in changed.to_json().items() if k != field.name} == \
        {k: v for k, v in defaults.to_json().items() if k != field.name}


@pytest.mark.parametrize(("config", "data", "says"), [
    (ReaderSettings, {"max_cots": 1.0}, "unknown reader settings: max_cots"),
    (ReaderSettings, {"max_cost": "12"}, "reader setting max_cost must be a number"),
    (ReaderSettings, {"candidates": 2.5}, "candidates must be an integer"),
    (ReaderSettings, {"max_searched": True}, "max_searched must be an integer"),
    (ReaderSettings, [1, 2], "reader settings must be a JSON object"),
    (ReaderSettings, {"max_second_passes": 0}, "unknown reader settings: max_second_passes"),  # the detector's
    (DetectorSettings, {"max_second_pass": 0}, "unknown detector settings: max_second_pass"),
    (DetectorSettings, {"faint_flower": "0.1"}, "detector setting faint_flower must be a number"),
    (DetectorSettings, {"max_second_passes": 1.5}, "max_second_passes must be an integer"),
    (DetectorSettings, {"min_for_aspect": False}, "min_for_aspect must be an integer"),
    (DetectorSettings, {"halve_from": None}, "halve_from must be a number"),
    (DetectorSettings, "max_second_passes=0", "detector settings must be a JSON object"),
])
def test_a_bad_value_is_refused_by_name(config, data, says):
    with pytest.raises(ValueError, match=says):
        config.from_json(data)


@pytest.mark.parametrize(("config", "field", "value"), [(ReaderSettings, "sure_upright", 0.5),
                                                       (DetectorSettings, "faint_flower", 0.5)])
def test_a_file_that_is_not_json_is_refused_naming_it(tmp_path, config, field, value):
    path = tmp_path / "settings.json"
    path.write_text(f"{{{field}: 1}}")
    with pytest.raises(ValueError, match="settings.json"):
        config.from_file(path)
    with pytest.raises(ValueError, match=f"cannot read {config.what} settings"):
        config.from_file(tmp_path / "absent.json")
    path.write_text(json.dumps({field: value}))
    assert getattr(config.from_file(path), field) == value
