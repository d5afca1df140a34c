"""Reading a migration directory: file names, versions, statements, directives and steps.

``files`` finds and reads the files (scan_directory leniently, discover raising the first
problem), ``layouts`` reads other tools' directories, and both return the types of
``scanning``; ``parse`` reads one file's SQL once, leniently, for both the runner (which
raises its first problem) and the linter (which reports them all); ``directives`` reads the
``-- safemigrate:`` comments. SQL is split and recognised with pglast (PostgreSQL's own
parser); the original text of every statement is kept. Facts only: the runner's policy on
them (``planning.safer_forms``) and the loading of a directory as the runner runs it
(``planning.migrations``) are planning's.

``parse``'s names are imported on first use: it loads the parser, which scanning a directory
does not need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.lazy_names import LazyNames
from ..core.model import ConcurrentIndexes, SafeRewrites
from .directives import DIRECTIVE_PREFIX, AllowComment
from .files import FILENAME_PATTERN, discover, name_problem, scan_directory
from .scanning import MAX_VERSION_DIGITS, DirectoryScan, FileProblem, MigrationFile, read_sql

if TYPE_CHECKING:
    from .parse import Block as Block
    from .parse import ParsedFile as ParsedFile
    from .parse import ParsedStatement as ParsedStatement
    from .parse import TransactionContext as TransactionContext
    from .parse import read_file as read_file
    from .parse import split_sql as split_sql

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
    "discover",
    "name_problem",
    "read_file",
    "read_sql",
    "scan_directory",
    "split_sql",
]

#: The names of ``parse``, imported on first use (PEP 562).
_PARSE_NAMES = frozenset(
    {
        "Block",
        "TransactionContext",
        "ParsedFile",
        "ParsedStatement",
        "read_file",
        "split_sql",
    }
)
_load = LazyNames(__name__, globals(), {name: ("parse", name) for name in _PARSE_NAMES})


def __getattr__(name: str) -> Any:
    """Import ``parse`` on first use of one of its names."""
    return _load(name)
