"""What every command reads first: the migrations of the settings' directory, and the sink it
reports events to.

Pure (the files and the parser, no database), so that importing the commands loads no driver.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import MigrationFileError
from ..core.model import Migration
from ..planning.migrations import journal_migration, load_migrations
from ..settings.config import Settings
from ..source import MigrationFile, discover
from ..source.layouts import head_text, refuse_foreign_layout
from ..source.layouts import resolve as resolve_layout
from ..source.scanning import decode_sql, unreadable

if TYPE_CHECKING:
    from ..core.events import Event


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
    settings: Settings,
) -> tuple[list[Migration], dict[int, tuple[MigrationFile, str]]]:
    """The migrations that parse, and for each file that does not (read, UTF-8, SQL, a
    directive) its problem by version. Problems of the directory itself (names, duplicate
    versions, another tool's layout) still raise: no version can be shown for them.

    Read as ``status`` compares them with the journal (``journal_steps``: the steps and
    checksums of the full parse; a plain file's statements without trees or locks), each
    file read once."""
    layout = resolve_layout(settings.dir, settings.layout)
    files = _ReadOnce()
    if settings.layout == "safemigrate":
        refuse_foreign_layout(settings.dir, files.head)
    migrations: list[Migration] = []
    invalid: dict[int, tuple[MigrationFile, str]] = {}
    for file in discover(settings.dir, layout):
        try:
            if file.text is None:
                file = replace(file, text=files.text(file.path))
            migrations.append(
                journal_migration(
                    file,
                    concurrent_indexes=settings.concurrent_indexes,
                    safe_rewrites=settings.safe_rewrites,
                )
            )
        except MigrationFileError as err:
            invalid[file.version] = (file, err.message)
    return migrations, invalid


class _ReadOnce:
    """The bytes of the directory's files, each read once for the layout's detection (its
    first kilobytes) and the migration's text."""

    def __init__(self) -> None:
        self._read: dict[Path, bytes | OSError] = {}

    def _bytes(self, path: Path) -> bytes | OSError:
        if path not in self._read:
            try:
                self._read[path] = path.read_bytes()
            except OSError as err:
                self._read[path] = err
        return self._read[path]

    def head(self, path: Path) -> str:
        """What ``layouts.detect`` reads of ``path``."""
        data = self._bytes(path)
        return "" if isinstance(data, OSError) else head_text(data)

    def text(self, path: Path) -> str:
        """The text of the migration file ``path``, as ``read_sql`` reads it."""
        data = self._bytes(path)
        self._read.pop(path, None)  # read once: the text is kept by the migration
        if isinstance(data, OSError):
            raise unreadable(path, data)
        return decode_sql(path, data)
