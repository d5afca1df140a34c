"""What scanning a migrations directory yields in every layout, and what every scan reads with.

:class:`MigrationFile` (a file found, before its SQL is read) and :class:`DirectoryScan` (a
directory's files and problems) are built by ``files`` for safemigrate's own layout and by
each module of ``layouts`` for another tool's; both check versions against
:data:`MAX_VERSION_DIGITS` and read files with :func:`read_sql`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..core.errors import MigrationFileError

#: What kind of refusal a FileProblem is: the SQL does not parse; a statement that cannot run
#: in a transaction block is inside one (the linter has a rule for it); a COPY that reads from
#: or writes to the client (refused only in a step that is to run, see
#: pending.refuse_client_copy: an applied pg_dump file is fine); anything else.
ProblemKind = Literal["syntax", "non-transactional-in-block", "client-copy", "file"]


@dataclass(frozen=True)
class FileProblem:
    """One reason the runner refuses a migration file."""

    path: str
    line: int | None
    message: str
    hint: str | None = None
    column: int = 1
    kind: ProblemKind = "file"

    def error(self) -> MigrationFileError:
        """The MigrationFileError the runner raises for this problem."""
        return MigrationFileError(self.path, self.message, line=self.line, hint=self.hint)


#: The most digits a version may have: it is stored as a PostgreSQL bigint.
MAX_VERSION_DIGITS = 18


@dataclass(frozen=True)
class MigrationFile:
    """A migration file found in the directory, before its SQL is read."""

    version: int
    version_text: str
    name: str
    path: Path
    #: The SQL to run when it is not the whole file: another tool's up part, with every other
    #: line blanked so that line numbers stay the file's. None: read the file.
    text: str | None = None
    #: The migration's id in its tool's history table (a dbmate version, a yoyo id), or "".
    origin_id: str = ""
    #: What the layout noticed and ``plan`` shows (a down part ignored, a no-transaction marker).
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class DirectoryScan:
    """The ``.sql`` files of a migrations directory, read leniently."""

    #: The well-named files, by version then name (two may share a version: a problem).
    files: list[MigrationFile]
    #: The files whose name the runner refuses, in directory order.
    misnamed: list[Path]
    #: Every reason the runner refuses the directory, in the order it meets them.
    problems: list[FileProblem]


def read_sql(path: Path) -> str:
    """The text of a migration file; not UTF-8 is an error naming the line."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise unreadable(path, err) from None
    return decode_sql(path, data)


def unreadable(path: Path, err: OSError) -> MigrationFileError:
    """The error of a migration file that cannot be read."""
    return MigrationFileError(str(path), f"cannot read: {err.strerror}")


def decode_sql(path: Path, data: bytes) -> str:
    """The text of the migration file ``path`` whose bytes are ``data`` (see read_sql)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise MigrationFileError(
            str(path), f"not UTF-8 (byte 0x{data[err.start]:02x})", line=line
        ) from None
    return text.removeprefix("\ufeff")
