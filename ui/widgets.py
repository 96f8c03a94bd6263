"""Widgets whose value lives in the page's state (`ui/state.py`, reached through a `Field`), never in a label.

A Streamlit choice keeps what was chosen by its widget key and may hand back the *label* when its
labels change (the names of the seats change with the dealer, the players' names and the
script). So a choice here is a segmented control (one row of buttons, compact on a phone) over the options' places,
keyed by its labels and its current value: when either changes, the next run draws a new widget started from the
field's value, and a callback (a ledger fill-in, an edit loaded) only has to set the field.

Only the choice drawn last for a field's name sets it; so too the number and text boxes and drop-downs here (`number`,
`text`, `pick`), keyed by their value in the same way. A phone's browser sends every widget's value with each
request, as it has them: a request it made before it drew the page's last run (a tap, the table's watch) still
carries the widgets that run replaced, and Streamlit keeps a replaced widget's callback, so their old values would
set the field back (a ledger fill-in undone: the next hand recorded under the last hand's deal, at its 連莊).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

ss = st.session_state


@dataclass(frozen=True)
class Field:
    """One value of the page's state that a widget shows and sets, and the name its widget keys are made from."""

    name: str
    get: Callable[[], Any]
    set: Callable[[Any], None]

    @classmethod
    def of(cls, state: object, name: str) -> Field:
        """`state`'s attribute `name` (one of `ui/state.py`'s objects, held by the session)."""
        return cls(name, lambda: getattr(state, name), lambda value: setattr(state, name, value))


# Unseen marks, which Markdown leaves alone and Playwright drops from a label's name and text: a zero-width space
# for a binary 0, a soft hyphen for a 1 (drawn only where a line breaks at it: never at a label's end).
MARKS = "\u200b\u00ad"
_BINARY = str.maketrans("01", MARKS)


def distinct(labels: Sequence[str]) -> tuple[str, ...]:
    """The labels, the k-th repeat of one with k after it in binary in unseen MARKS: a radio or pills widget maps
    the label tapped back to its option by the label, the last of equal labels winning (Streamlit's option
    mappings), so a tap on the first of three 一萬 took the third. Binary, so a mark grows with the log of the
    repeats (k marks for the k-th grew the labels with the square of their number)."""
    seen: Counter = Counter()
    out = []
    for label in labels:
        out.append(label + (format(seen[label], "b").translate(_BINARY) if seen[label] else ""))
        seen[label] += 1
    return tuple(out)


def _key(name: str, labels: tuple[str, ...], value: object) -> str:
    digest = hashlib.blake2b(repr((labels, value)).encode(), digest_size=6).hexdigest()
    return f"{name}-{digest}"


def _drawn(name: str) -> str:
    return f"{name}-drawn"  # the key of the widget drawn last for ss[name]


def _chosen(field: Field, key: str, options: tuple, then: Callable[[Any], None] | None) -> None:
    if ss.get(_drawn(field.name)) != key:
        return  # a choice the page has replaced since: its value is stale
    index = ss.get(key)
    if index is None and field.get() in options:  # the option chosen, tapped again: it stays chosen, as on a radio
        ss[key] = options.index(field.get())
        return
    field.set(None if index is None else options[index])
    if then is not None:
        then(field.get())


def _set(field: Field, key: str, then: Callable[[], None] | None) -> None:
    if ss.get(_drawn(field.name)) != key:
        return  # a box the page has replaced since: its value is stale
    field.set(ss[key])
    if then is not None:
        then()


def number(label: str, field: Field, then: Callable[[], None] | None = None, **kwargs) -> None:
    """A number box for `field`: `then()`, where given, runs once the player sets it (a callback); `kwargs` as
    for `st.number_input`."""
    value = field.get()
    key = ss[_drawn(field.name)] = _key(field.name, (), value)
    st.number_input(label, value=value, key=key, on_change=_set, args=(field, key, then), **kwargs)


def text(label: str, field: Field, then: Callable[[], None] | None = None, **kwargs) -> None:
    """A text box for `field`, as `number`: the hand typed before the page was cleared is not typed again by a
    request the browser sent before it drew the cleared page; `kwargs` as for `st.text_input`."""
    value = field.get()
    key = ss[_drawn(field.name)] = _key(field.name, (), value)  # a digest: a long paste is not repeated in the key
    st.text_input(label, value=value, key=key, on_change=_set, args=(field, key, then), **kwargs)


def pick(label: str, options: Sequence, field: Field, format_func: Callable[[Any], str],
         then: Callable[[], None] | None = None) -> None:
    """A drop-down for `field` (nothing chosen where it is not among `options`), keyed by its labels too (as a
    choice: a drop-down hands back the label it showed); `then` as above."""
    options = list(options)
    index = options.index(field.get()) if field.get() in options else None
    key = ss[_drawn(field.name)] = _key(field.name, tuple(format_func(o) for o in options), index)
    st.selectbox(label, options, index=index, key=key, format_func=format_func, on_change=_set,
                 args=(field, key, then))


def choice(label: str, options: Sequence, field: Field, format_func: Callable[[Any], str],
           help: str | None = None, then: Callable[[Any], None] | None = None) -> None:
    """A row of choices for `field` (None, or a value not among `options`: nothing chosen);
    `then(value)`, where given, runs once the value is set (a callback: before the next run)."""
    options = tuple(options)
    labels = distinct([format_func(o) for o in options])
    index = options.index(field.get()) if field.get() in options else None
    key = ss[_drawn(field.name)] = _key(field.name, labels, index)
    st.segmented_control(label, range(len(options)), default=index, key=key, format_func=labels.__getitem__,
                         on_change=_chosen, args=(field, key, options, then), help=help)
