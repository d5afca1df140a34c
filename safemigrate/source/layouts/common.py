"""What the layouts share: listing a directory, checking versions, blanking a file's other parts."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..scanning import MAX_VERSION_DIGITS, DirectoryScan, FileProblem, MigrationFile, read_sql

#: A note for files whose tool keeps a down part: safemigrate only ever goes forward.
DOWN_IGNORED = "its down part is ignored: safemigrate only applies migrations forward"
#: A note for files a tool would run in one transaction.
WHOLE_FILE = (
    "{tool} ran this file in one transaction; safemigrate runs each statement as its own short "
    "step (keep statements together with -- safemigrate: group-start / group-end)"
)
#: A note for files marked to run outside a transaction.
NO_TRANSACTION = (
    "marked {marker}: no statement is wrapped in a transaction with another; each runs as its "
    "own step, and those PostgreSQL refuses in a transaction block run in autocommit mode"
)


def entries(directory: Path) -> list[Path]:
    """The directory's entries in name order, hidden ones left out."""
    return sorted(p for p in directory.iterdir() if not p.name.startswith("."))


def version_problem(path: Path, digits: str) -> FileProblem | None:
    """Why the version ``digits`` of ``path`` does not fit the journal's bigint, else None."""
    if len(digits.lstrip("0")) > MAX_VERSION_DIGITS:
        return FileProblem(
            str(path),
            None,
            f"version has more than {MAX_VERSION_DIGITS} significant digits",
            hint="safemigrate stores versions as a PostgreSQL bigint",
        )
    return None


def file_problem(path: Path, message: str, hint: str | None = None) -> FileProblem:
    """A problem of the whole file ``path`` (no line of it in particular)."""
    return FileProblem(str(path), None, message, hint=hint)


def misnamed(path: Path, expected: str, hint: str | None = None) -> FileProblem:
    """The problem of a file whose name the tool's layout does not accept."""
    return file_problem(path, f"file name does not match {expected}", hint)


def numbered_file(match: re.Match[str], path: Path, notes: Iterable[str]) -> MigrationFile:
    """The file of a layout whose names read ``<version>_<name>`` and whose history records
    the version as a number (leading zeros dropped: golang-migrate's and sqlx's bigint)."""
    return MigrationFile(
        int(match["version"]),
        match["version"],
        match["name"],
        path,
        origin_id=str(int(match["version"])),
        notes=tuple(notes),
    )


def finish(
    files: Iterable[MigrationFile], problems: list[FileProblem], misnamed_paths: list[Path]
) -> DirectoryScan:
    """The scan: files by version then name, two files with one version a problem."""
    ordered = sorted(files, key=lambda f: (f.version, f.path.name))
    seen: dict[int, MigrationFile] = {}
    for file in ordered:
        if file.version in seen:
            problems.append(
                FileProblem(
                    str(file.path),
                    None,
                    f"duplicate version {file.version_text}: also used by "
                    f"{seen[file.version].path.name}",
                    hint="give every migration its own version",
                )
            )
        else:
            seen[file.version] = file
    return DirectoryScan(ordered, misnamed_paths, problems)


def blank_lines(text: str, keep: Iterable[tuple[int, int]]) -> str:
    """``text`` with every line outside the ``keep`` ranges (0-based, end exclusive) emptied.

    Line numbers stay those of the file, so that every message names the file's own line.
    """
    lines = text.split("\n")
    kept = {i for start, end in keep for i in range(start, end)}
    return "\n".join(line if i in kept else "" for i, line in enumerate(lines))


def comment_line(line: str) -> re.Match[str] | None:
    """The text of ``line`` after ``--`` when the line is only an SQL comment, else None."""
    return re.match(r"^\s*--\s*(?P<body>.*?)\s*$", line)


__all__ = [
    "DOWN_IGNORED",
    "NO_TRANSACTION",
    "WHOLE_FILE",
    "blank_lines",
    "comment_line",
    "entries",
    "finish",
    "misnamed",
    "read_sql",
    "version_problem",
]
