"""Put this folder on PYTHONPATH to hide the default shared folder (`shared/` beside the
repository) from a Python process and the Python processes it starts: opening or listing anything
in it raises. With TAISHU_SHARED pointed at an empty folder, code that reads the shared folder
without going through that setting (datasets/shared.py) fails instead of passing by luck
(.ci/run's standalone pass)."""

import os
import sys

# datasets.shared.DEFAULT_SHARED, not imported: this runs before the repository is on sys.path
_HIDDEN = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
_EVENTS = {"open", "os.listdir", "os.scandir"}


def _refuse(event, args):
    if event in _EVENTS and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.path.abspath(os.fsdecode(args[0]))  # no realpath: it would stat on every open
        if path == _HIDDEN or path.startswith(_HIDDEN + os.sep):
            raise PermissionError(f"{path}: the shared folder is hidden in this run (read it through TAISHU_SHARED)")


sys.addaudithook(_refuse)
