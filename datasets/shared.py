"""The optional shared folder: data the repository does not carry.

Everything `make test` and `make run` need is committed. What is not (tile art of unclear
licence, the large real photo sets) lives in one folder, named by the setting `TAISHU_SHARED`;
by default `shared/` beside the repository (`../shared`). Its layout:

    data/tile-art/xmahjongg-real/  held-out style for `python -m datasets generate --styles unseen`
    data/real-crops/               all 628 real crops (the held-out designs are not vendored)
    data/real-scenes/              25 real photos (`python -m training.bench`)
    data/real-labelled/            labelled real photos
    rules/                         originals of files vendored into tests/data/

A command that needs a missing part says which path and which setting (`require_shared`); a test
that needs one skips with that reason (`tests/shared.py`).
"""

from __future__ import annotations

import os
from pathlib import Path

SETTING = "TAISHU_SHARED"
DEFAULT_SHARED = Path(__file__).resolve().parents[2] / "shared"


class MissingSharedData(FileNotFoundError):
    """Optional data that is not where the setting says."""


def shared_path(*parts: str) -> Path:
    """A path inside the shared folder (read at each call, so the setting may change)."""
    return Path(os.environ.get(SETTING) or DEFAULT_SHARED).joinpath(*parts)


def missing_reason(*parts: str, needed_for: str) -> str | None:
    """Why `needed_for` cannot run (one line naming the path and the setting), or None."""
    path = shared_path(*parts)
    if path.exists():
        return None
    return (f"{needed_for} needs {path}, which is missing: optional data the repository does not carry; "
            f"set {SETTING} to the folder that holds it (default: {DEFAULT_SHARED})")


def require_shared(*parts: str, needed_for: str) -> Path:
    """The path, or `MissingSharedData` saying what needs it and how to point at it."""
    reason = missing_reason(*parts, needed_for=needed_for)
    if reason:
        raise MissingSharedData(reason)
    return shared_path(*parts)
