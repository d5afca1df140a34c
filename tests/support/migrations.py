"""Migrations built in memory, without a directory, for the pure tests."""

from __future__ import annotations

from pathlib import Path

from safemigrate.core.model import Migration
from safemigrate.planning.safer_forms import build_steps


def migration_of(version: int, sql: str) -> Migration:
    """Migration ``NNNN_m.sql`` (``NNNN``: ``version`` zero-padded) holding ``sql``, its steps
    built as the loader builds a file's."""
    name = f"{version:04d}_m.sql"
    return Migration(version, f"{version:04d}", "m", Path(name), tuple(build_steps(name, sql)))
