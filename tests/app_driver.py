"""Driving the app in Streamlit's AppTest as a player taps: by the words on the screen.

The app's choices (`ui/widgets.py`) are segmented controls keyed by their labels and value, so a test finds
one by its name (`winner`, `how`, `dealer`, `round`, `target`) and taps an option by its label.
"""

import re

from streamlit.testing.v1 import AppTest


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def press(at: AppTest, label: str) -> AppTest:
    return ok(next(b for b in at.button if b.label == label).click().run())


def radio_of(at: AppTest, name: str):
    """The choice `name` as drawn on this run (exactly one)."""
    [radio] = [r for r in at.segmented_control if r.key and re.fullmatch(rf"{re.escape(name)}-[0-9a-f]{{12}}", r.key)]
    return radio


def _matches(option: str, label: str) -> bool:
    return option == label or option.startswith(label + " ")  # 南家 matches 南家 阿華


def choose(at: AppTest, name: str, label: str) -> AppTest:
    """Tap the option of choice `name` whose label is `label` (or `label` and a player's name)."""
    radio = radio_of(at, name)
    matching = [i for i, option in enumerate(radio.options) if _matches(option, label)]
    assert len(matching) == 1, (label, radio.options)
    if radio.value != matching[0]:
        ok(radio.set_value(matching[0]).run())
    return at


def chosen(at: AppTest, name: str) -> str | None:
    """The label of the option chosen in `name`, None when none is."""
    radio = radio_of(at, name)
    return None if radio.value is None else radio.options[radio.value]


def say_who_won(at: AppTest, winner: str = "東家", how: str = "自摸") -> AppTest:
    """What the players say after the hand: who won (no one is chosen until they say) and how."""
    choose(at, "winner", winner)
    return choose(at, "how", how)


def box(at: AppTest, name: str):
    """The box or drop-down for `name` (`text`, `streak`, `base`, `per_tai`, `ruleset`) as drawn on this run: keyed
    by its value (`ui.widgets.number`, `text`, `pick`), exactly one."""
    [found] = [w for w in (*at.text_input, *at.number_input, *at.selectbox)
               if w.key and re.fullmatch(rf"{re.escape(name)}-[0-9a-f]{{12}}", w.key)]
    return found
