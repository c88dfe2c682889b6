"""A folder for an embedded server's data outside pytest's temporary root: pytest takes
the group's and others' rights off that root whenever a pytest run starts on the
machine, and the server's own system user (brainbot run as root) then cannot reach a
data folder under it (initdb: Permission denied)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def data() -> Iterator[Path]:
    """An empty folder, short enough for the server's socket in a folder under it."""
    root = Path(tempfile.mkdtemp(prefix="bb-data-"))
    root.chmod(0o755)
    (root / "data").mkdir()
    yield root / "data"
    shutil.rmtree(root, ignore_errors=True)
