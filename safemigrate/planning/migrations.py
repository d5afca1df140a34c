"""A directory's migrations as the runner runs them: each file found and read by ``source``,
the safer forms of its plain statements decided under the settings (``safer_forms``). Pure, no
I/O but reading the migration files.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..core.model import ConcurrentIndexes, Migration, SafeRewrites
from ..source.files import discover
from ..source.journal_steps import plain_steps
from ..source.scanning import MigrationFile, read_sql


def load_migrations(
    directory: Path,
    *,
    concurrent_indexes: ConcurrentIndexes = "rewrite",
    safe_rewrites: SafeRewrites = "rewrite",
    layout: str = "safemigrate",
) -> list[Migration]:
    """Discover and parse every migration in ``directory``, ordered by version.

    Raises the first MigrationFileError of the first bad file.
    """
    return [
        parse_migration(f, concurrent_indexes=concurrent_indexes, safe_rewrites=safe_rewrites)
        for f in discover(directory, layout)
    ]


def parse_migration(
    file: MigrationFile,
    *,
    concurrent_indexes: ConcurrentIndexes = "rewrite",
    safe_rewrites: SafeRewrites = "rewrite",
) -> Migration:
    """Parse one migration file into steps."""
    # The parser is imported here: scanning a directory, and reading it for status
    # (``source.journal_steps``), need it not.
    from .safer_forms import build_steps

    text = read_sql(file.path) if file.text is None else file.text
    steps = build_steps(
        str(file.path),
        text,
        concurrent_indexes=concurrent_indexes,
        safe_rewrites=safe_rewrites,
    )
    return Migration(file.version, file.version_text, file.name, file.path, tuple(steps))


def journal_migration(
    file: MigrationFile,
    *,
    concurrent_indexes: ConcurrentIndexes = "rewrite",
    safe_rewrites: SafeRewrites = "rewrite",
) -> Migration:
    """``file`` read for comparing with the journal: its plain steps
    (``source.journal_steps``), or else the full parse (``parse_migration``, with its
    MigrationFileError for a file the runner refuses)."""
    text = read_sql(file.path) if file.text is None else file.text
    steps = plain_steps(text)
    if steps is None:
        return parse_migration(
            replace(file, text=text),  # read once
            concurrent_indexes=concurrent_indexes,
            safe_rewrites=safe_rewrites,
        )
    return Migration(file.version, file.version_text, file.name, file.path, steps)
