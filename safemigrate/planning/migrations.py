"""A directory's migrations as the runner runs them: each file found and read by ``source``,
the safer forms of its plain statements decided under the settings (``safer_forms``). Pure, no
I/O but reading the migration files.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.model import ConcurrentIndexes, Migration, SafeRewrites
from ..source.files import discover
from ..source.journal_steps import plain_steps
from ..source.scanning import MigrationFile, read_sql

if TYPE_CHECKING:
    from ..source.parse import ParsedFile


@dataclass(frozen=True)
class RunnerReading:
    """What the runner read of one migration file (``Migration.reading``): the text, the
    facts ``source`` read of it and the file with its safer forms decided under the settings.
    The lint gate lints this reading rather than the file's text again (``linted``)."""

    text: str
    #: ``source.parse.read_file``'s reading: the statements and their trees, as written.
    facts: ParsedFile
    #: ``facts`` with the safer forms decided under the two settings below.
    decided: ParsedFile
    concurrent_indexes: ConcurrentIndexes
    safe_rewrites: SafeRewrites

    def linted(self) -> ParsedFile:
        """The file as the linter reads it: the safer forms decided under "rewrite" (the
        rules judge the settings' own policies themselves). That is the runner's file under
        the default settings; under others the decision is taken again on the same facts,
        nothing parsed again but a CREATE INDEX's CONCURRENTLY form, which the runner did
        not write."""
        if (self.concurrent_indexes, self.safe_rewrites) == ("rewrite", "rewrite"):
            return self.decided
        from .safer_forms import decide

        return decide(self.facts)


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
    """Parse one migration file into steps, keeping the reading (``RunnerReading``).

    Raises the file's first MigrationFileError."""
    # The parser is imported here: scanning a directory, and reading it for status
    # (``source.journal_steps``), need it not.
    from ..source.parse import read_file
    from .safer_forms import decide

    text = read_sql(file.path) if file.text is None else file.text
    facts = read_file(str(file.path), text)
    decided = decide(facts, concurrent_indexes=concurrent_indexes, safe_rewrites=safe_rewrites)
    decided.raise_first()
    reading = RunnerReading(text, facts, decided, concurrent_indexes, safe_rewrites)
    return Migration(
        file.version, file.version_text, file.name, file.path, decided.steps, reading=reading
    )


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
