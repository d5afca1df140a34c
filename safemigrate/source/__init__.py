"""Reading a migration directory: file names, versions, statements, directives and steps.

``files`` finds and reads the files; ``parse`` reads one file's SQL once, leniently, for both
the runner (build_steps raises its first problem) and the linter (which reports them all);
``directives`` reads the ``-- safemigrate:`` comments. SQL is split and recognised with pglast
(PostgreSQL's own parser); the original text of every statement is kept.
"""

from __future__ import annotations

from .directives import DIRECTIVE_PREFIX, AllowComment
from .files import (
    FILENAME_PATTERN,
    MAX_VERSION_DIGITS,
    MigrationFile,
    discover,
    load_migrations,
    parse_migration,
    read_sql,
)
from .parse import (
    Block,
    ConcurrentIndexes,
    Context,
    FileProblem,
    ParsedFile,
    ParsedStatement,
    build_steps,
    parse_file,
)

__all__ = [
    "DIRECTIVE_PREFIX",
    "FILENAME_PATTERN",
    "MAX_VERSION_DIGITS",
    "AllowComment",
    "Block",
    "ConcurrentIndexes",
    "Context",
    "FileProblem",
    "MigrationFile",
    "ParsedFile",
    "ParsedStatement",
    "build_steps",
    "discover",
    "load_migrations",
    "parse_file",
    "parse_migration",
    "read_sql",
]
