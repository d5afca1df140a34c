"""Where the migration corpora are, and writing a small migration directory."""

from __future__ import annotations

import textwrap
from pathlib import Path

from bench.harness.processes import REPO

EXAMPLE = REPO / "migrations_example"
SHARED = REPO.parent / "shared"
LANGFUSE = SHARED / "corpora" / "langfuse" / "migrations"
#: Another project's history is run to exercise the runner, not to be judged: langfuse's
#: backfill lifts statement_timeout to 0 on purpose, which the timeout guard refuses by default
#: (max_statement_timeout 4h); a project adopting such a set sets the same.
FOREIGN_HISTORY_ENV = {"SAFEMIGRATE_MAX_STATEMENT_TIMEOUT": "0"}


def write_migrations(directory: Path, files: dict[str, str]) -> Path:
    """Write ``{filename: sql}`` into ``directory`` (dedented) and return the directory."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, sql in files.items():
        (directory / name).write_text(textwrap.dedent(sql).lstrip(), encoding="utf-8")
    return directory
