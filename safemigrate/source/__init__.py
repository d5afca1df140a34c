"""Reading a migration directory: file names, versions, statements, directives and steps.

``files`` finds and reads the files (scan_directory leniently, discover raising the first
problem), ``layouts`` reads other tools' directories, and both return the types of
``scanning``; ``parse`` reads one file's SQL once, leniently, for both the runner (build_steps
raises its first problem) and the linter (which reports them all); ``directives`` reads the
``-- safemigrate:`` comments. SQL is split and recognised with pglast (PostgreSQL's own
parser); the original text of every statement is kept.
"""

from __future__ import annotations

from ..core.model import ConcurrentIndexes, SafeRewrites
from .directives import DIRECTIVE_PREFIX, AllowComment
from .files import (
    FILENAME_PATTERN,
    discover,
    load_migrations,
    name_problem,
    parse_migration,
    scan_directory,
)
from .parse import (
    Block,
    FileProblem,
    ParsedFile,
    ParsedStatement,
    TransactionContext,
    build_steps,
    parse_file,
    split_sql,
)
from .scanning import MAX_VERSION_DIGITS, DirectoryScan, MigrationFile, read_sql

__all__ = [
    "DIRECTIVE_PREFIX",
    "FILENAME_PATTERN",
    "MAX_VERSION_DIGITS",
    "AllowComment",
    "Block",
    "ConcurrentIndexes",
    "DirectoryScan",
    "FileProblem",
    "MigrationFile",
    "ParsedFile",
    "ParsedStatement",
    "SafeRewrites",
    "TransactionContext",
    "build_steps",
    "discover",
    "load_migrations",
    "name_problem",
    "parse_file",
    "parse_migration",
    "read_sql",
    "scan_directory",
    "split_sql",
]
