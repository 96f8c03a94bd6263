"""Widgets whose value lives in `st.session_state[name]`, never in a label.

A Streamlit radio keeps what was chosen by its widget key and may hand back the *label* when its
labels change (the names of the seats change with the dealer, the players' names and the
script). So a choice here is a radio over the options' places, keyed by its labels and its current
value: when either changes, the next run draws a new widget started from `ss[name]`, and a
callback (a ledger fill-in, an edit loaded) only has to set `ss[name]`.
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


def _key(name: str, labels: tuple[str, ...], index: int | None) -> str:
    digest = hashlib.blake2b(repr((labels, index)).encode(), digest_size=6).hexdigest()
    return f"{name}-{digest}"


def _chosen(name: str, key: str, options: tuple, then: Callable[[object], None] | None) -> None:
    index = ss.get(key)
    ss[name] = None if index is None else options[index]
    if then is not None:
        then(ss[name])


def choice(label: str, options: Sequence, name: str, format_func: Callable[[object], str],
           help: str | None = None, then: Callable[[object], None] | None = None) -> None:
    """A row of choices for `ss[name]` (None, or a value not among `options`: nothing chosen);
    `then(value)`, where given, runs once the value is set (a callback: before the next run)."""
    options = tuple(options)
    labels = distinct([format_func(o) for o in options])
    index = options.index(ss[name]) if ss.get(name) in options else None
    key = _key(name, labels, index)
    st.radio(label, range(len(options)), index=index, key=key, horizontal=True, format_func=labels.__getitem__,
             on_change=_chosen, args=(name, key, options, then), help=help)
