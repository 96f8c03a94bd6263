"""What the project's command lines set up before they run, as Unix tools behave."""

from __future__ import annotations

import io
import signal
import sys
from typing import cast


def as_a_command() -> None:
    """For a process started as a command (under `if __name__ == "__main__"`, never in a test's or the
    app's process): output to a pipe that closed (`… | head -1`) ends it quietly, by SIGPIPE's default
    action as any Unix tool, instead of a BrokenPipeError traceback; and a file name that is not UTF-8
    (kept by Python as surrogates) prints as escapes (`\\udcff`) instead of failing the print. In --json
    output such an escape is JSON's own, so the name reads back as Python gave it."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:  # None when started with it closed; print() then writes nothing
            cast(io.TextIOWrapper, stream).reconfigure(errors="backslashreplace")
