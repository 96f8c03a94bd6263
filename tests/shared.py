"""Tests that need the optional shared folder (datasets/shared.py) skip, naming what is missing."""

import pytest

from datasets.shared import missing_reason


def needs_shared(*parts: str, needed_for: str):
    """A skip mark for a test that reads `parts` under the shared folder."""
    reason = missing_reason(*parts, needed_for=needed_for)
    return pytest.mark.skipif(reason is not None, reason=reason or "")
