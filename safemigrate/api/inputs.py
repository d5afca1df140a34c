"""What every command reads first: the migrations of the settings' directory, and the sink it
reports events to.

Pure (the files and the parser, no database), so that importing the commands loads no driver.
"""

from __future__ import annotations

from ..config import Settings
from ..errors import MigrationFileError
from ..events import Event
from ..model import Migration
from ..source import MigrationFile, discover, load_migrations, parse_migration
from ..source.journal_steps import journal_migration
from ..source.layouts import refuse_foreign_layout
from ..source.layouts import resolve as resolve_layout


def ignore(_: Event) -> None:
    """An event sink that drops every event (the commands' default)."""


def read_migrations(settings: Settings) -> list[Migration]:
    """Every migration in the settings' directory, parsed (bad files raise exit-2 errors)."""
    layout = resolve_layout(settings.dir, settings.layout)
    if settings.layout == "safemigrate":
        refuse_foreign_layout(settings.dir)
    return load_migrations(
        settings.dir,
        concurrent_indexes=settings.concurrent_indexes,
        safe_rewrites=settings.safe_rewrites,
        layout=layout,
    )


def read_migrations_leniently(
    settings: Settings, *, for_journal: bool = False
) -> tuple[list[Migration], dict[int, tuple[MigrationFile, str]]]:
    """The migrations that parse, and for each file that does not (read, UTF-8, SQL, a
    directive) its problem by version. Problems of the directory itself (names, duplicate
    versions, another tool's layout) still raise: no version can be shown for them.

    ``for_journal``: read as ``status`` compares them with the journal (``journal_steps``:
    the same steps and checksums; a plain file's statements without trees or locks)."""
    read = journal_migration if for_journal else parse_migration
    layout = resolve_layout(settings.dir, settings.layout)
    if settings.layout == "safemigrate":
        refuse_foreign_layout(settings.dir)
    migrations: list[Migration] = []
    invalid: dict[int, tuple[MigrationFile, str]] = {}
    for file in discover(settings.dir, layout):
        try:
            migrations.append(
                read(
                    file,
                    concurrent_indexes=settings.concurrent_indexes,
                    safe_rewrites=settings.safe_rewrites,
                )
            )
        except MigrationFileError as err:
            invalid[file.version] = (file, err.message)
    return migrations, invalid
