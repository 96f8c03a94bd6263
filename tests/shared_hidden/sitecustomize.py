"""Put this folder on PYTHONPATH to hide the default shared folder (`shared/` beside the
repository) from a Python process and the Python processes it starts: opening or listing anything
in it raises. With TAISHU_SHARED pointed at an empty folder, code that reads the shared folder
without going through that setting (datasets/shared.py) fails instead of passing by luck
(.ci/run's standalone pass)."""

import os
import sys

# datasets.shared.DEFAULT_SHARED, not imported: this runs before the repository is on sys.path
_BESIDE = [os.path.join(os.path.dirname(path), "..", "..", "..", "shared")
           for path in (os.path.abspath(__file__), os.path.realpath(__file__))]
_HIDDEN = os.path.realpath(_BESIDE[0])
# Every name it goes by: beside the checkout as reached and as resolved (DEFAULT_SHARED's), and where
# that leads when `shared` is a link. A path is matched as given (no realpath: it would stat on every
# open), so a read through the link is caught by the link's own name.
_NAMES = tuple({os.path.normpath(path) for path in _BESIDE} | {_HIDDEN})
_EVENTS = {"open", "os.listdir", "os.scandir"}


def _refuse(event, args):
    if event in _EVENTS and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.path.abspath(os.fsdecode(args[0]))
        if any(path == name or path.startswith(name + os.sep) for name in _NAMES):
            raise PermissionError(f"{path}: the shared folder is hidden in this run (read it through TAISHU_SHARED)")


sys.addaudithook(_refuse)
