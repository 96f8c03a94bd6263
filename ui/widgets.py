"""Widgets whose value lives in `st.session_state[name]`, never in a label.

A Streamlit radio keeps what was chosen by its widget key and may hand back the *label* when its
labels change (the names of the seats change with the dealer, the players' names and the
script). So a choice here is a radio over the options' places, keyed by its labels and its current
value: when either changes, the next run draws a new widget started from `ss[name]`, and a
callback (a ledger fill-in, an edit loaded) only has to set `ss[name]`.

Only the radio drawn last for a name sets it; so too the number and text boxes and drop-downs here (`number`,
`text`, `pick`), keyed by their value in the same way. A phone's browser sends every widget's value with each
request, as it has them: a request it made before it drew the page's last run (a tap, the table's watch) still
carries the widgets that run replaced, and Streamlit keeps a replaced widget's callback, so their old values would
set `ss[name]` back (a ledger fill-in undone: the next hand recorded under the last hand's deal, at its 連莊).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence

import streamlit as st

ss = st.session_state


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
    return f"{name}-drawn"  # the key of the radio drawn last for ss[name]


def _chosen(name: str, key: str, options: tuple, then: Callable[[object], None] | None) -> None:
    if ss.get(_drawn(name)) != key:
        return  # a radio the page has replaced since: its value is stale
    index = ss.get(key)
    ss[name] = None if index is None else options[index]
    if then is not None:
        then(ss[name])


def _set(name: str, key: str, then: Callable[[], None] | None) -> None:
    if ss.get(_drawn(name)) != key:
        return  # a box the page has replaced since: its value is stale
    ss[name] = ss[key]
    if then is not None:
        then()


def number(label: str, name: str, then: Callable[[], None] | None = None, **kwargs) -> None:
    """A number box for `ss[name]`: `then()`, where given, runs once the player sets it (a callback); `kwargs` as
    for `st.number_input`."""
    key = ss[_drawn(name)] = _key(name, (), ss[name])
    st.number_input(label, value=ss[name], key=key, on_change=_set, args=(name, key, then), **kwargs)


def text(label: str, name: str, then: Callable[[], None] | None = None, **kwargs) -> None:
    """A text box for `ss[name]`, as `number`: the hand typed before the page was cleared is not typed again by a
    request the browser sent before it drew the cleared page; `kwargs` as for `st.text_input`."""
    key = ss[_drawn(name)] = _key(name, (), ss[name])  # a digest: a long paste is not repeated in the key
    st.text_input(label, value=ss[name], key=key, on_change=_set, args=(name, key, then), **kwargs)


def pick(label: str, options: Sequence, name: str, format_func: Callable[[object], str],
         then: Callable[[], None] | None = None) -> None:
    """A drop-down for `ss[name]` (nothing chosen where it is not among `options`), keyed by its labels too (as a
    choice: a drop-down hands back the label it showed); `then` as above."""
    options = list(options)
    index = options.index(ss[name]) if ss.get(name) in options else None
    key = ss[_drawn(name)] = _key(name, tuple(format_func(o) for o in options), index)
    st.selectbox(label, options, index=index, key=key, format_func=format_func, on_change=_set, args=(name, key, then))


def choice(label: str, options: Sequence, name: str, format_func: Callable[[object], str],
           help: str | None = None, then: Callable[[object], None] | None = None) -> None:
    """A row of choices for `ss[name]` (None, or a value not among `options`: nothing chosen);
    `then(value)`, where given, runs once the value is set (a callback: before the next run)."""
    options = tuple(options)
    labels = distinct([format_func(o) for o in options])
    index = options.index(ss[name]) if ss.get(name) in options else None
    key = ss[_drawn(name)] = _key(name, labels, index)
    st.radio(label, range(len(options)), index=index, key=key, horizontal=True, format_func=labels.__getitem__,
             on_change=_chosen, args=(name, key, options, then), help=help)
