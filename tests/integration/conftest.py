"""Fixtures the integration tests share."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def rehearse_tmp() -> Iterator[Path]:
    """A fresh TMPDIR for one rehearse process, so its throwaway cluster is created there.

    Not pytest's tmp_path: as root the server runs as `postgres`, which cannot get through
    tmp_path's 0700 parents.
    """
    folder = Path(tempfile.mkdtemp(prefix="sm-rehearse-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
