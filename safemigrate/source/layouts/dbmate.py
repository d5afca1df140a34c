"""dbmate's layout: ``<version>_<name>.sql`` files with ``-- migrate:up`` / ``-- migrate:down``.

Rules from dbmate's source (amacneil/dbmate, pkg/dbmate/migration.go and db.go): a migration is
a ``.sql`` file whose name starts with digits (the version, recorded as text in
``schema_migrations``); files are applied in name order; the up block starts at a line
``-- migrate:up`` (optionally followed by options such as ``transaction:false``) and ends at
``-- migrate:down``; only comments may precede the up block. Only the up block is run here.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..scanning import DirectoryScan, FileProblem, MigrationFile
from .common import (
    DOWN_IGNORED,
    NO_TRANSACTION,
    WHOLE_FILE,
    blank_lines,
    entries,
    finish,
    read_sql,
    version_problem,
)

NAME = "dbmate"
FILENAME = re.compile(r"^(?P<version>[0-9]+)_?(?P<name>.*)\.sql$")
_UP = re.compile(r"^--\s*migrate:up(?P<options>\s*$|\s+\S.*$)")
_DOWN = re.compile(r"^--\s*migrate:down(\s*$|\s+\S.*$)")
_COMMENT_OR_BLANK = re.compile(r"^\s*(--.*)?$")


def version_of(origin_id: str) -> int | None:
    """The version of dbmate's history id (the file's leading digits), or None."""
    return int(origin_id) if origin_id.isdigit() else None


def up_part(path: Path, text: str) -> tuple[str, bool, bool] | FileProblem:
    """The up block of a dbmate file (other lines blank), whether it is marked
    ``transaction:false``, and whether it has a down block; or why dbmate refuses it."""
    nul = text.find("\0")
    if nul >= 0:
        # Refused anywhere in the file, as in a safemigrate file (the up block's parser would
        # stop there; the down block is what dbmate itself would send on a rollback).
        return FileProblem(
            str(path),
            text.count("\n", 0, nul) + 1,
            "NUL byte in the SQL: the parser would ignore everything after it",
            hint="remove it (a file saved as UTF-16 has one after every character: save it "
            "as UTF-8)",
        )
    lines = text.split("\n")
    up = next((i for i, line in enumerate(lines) if _UP.match(line)), None)
    if up is None:
        return FileProblem(
            str(path),
            None,
            "no '-- migrate:up' line: dbmate requires each migration to define an up block",
        )
    down = next((i for i, line in enumerate(lines) if _DOWN.match(line)), len(lines))
    if down < up:
        return FileProblem(str(path), down + 1, "'-- migrate:down' comes before '-- migrate:up'")
    for number, line in enumerate(lines[:up]):
        if not _COMMENT_OR_BLANK.match(line):
            return FileProblem(
                str(path),
                number + 1,
                "a statement precedes '-- migrate:up' (dbmate refuses it too)",
            )
    match = _UP.match(lines[up])
    assert match is not None
    options = dict(pair.split(":", 1) for pair in match["options"].split() if pair.count(":") == 1)
    no_transaction = options.get("transaction") == "false"
    return blank_lines(text, [(up, down)]), no_transaction, down < len(lines)


def scan(directory: Path) -> DirectoryScan:
    """The dbmate migrations of ``directory``."""
    files: list[MigrationFile] = []
    problems: list[FileProblem] = []
    for path in entries(directory):
        match = FILENAME.match(path.name)
        if path.is_dir() or match is None:
            continue  # dbmate passes over every other file too
        problem = version_problem(path, match["version"])
        if problem is not None:
            problems.append(problem)
            continue
        part = up_part(path, read_sql(path))
        if isinstance(part, FileProblem):
            problems.append(part)
            continue
        text, no_transaction, has_down = part
        notes = []
        if has_down:
            notes.append(DOWN_IGNORED)
        notes.append(
            NO_TRANSACTION.format(marker="transaction:false")
            if no_transaction
            else WHOLE_FILE.format(tool="dbmate")
        )
        files.append(
            MigrationFile(
                int(match["version"]),
                match["version"],
                match["name"] or match["version"],
                path,
                text=text,
                origin_id=match["version"],
                notes=tuple(notes),
            )
        )
    return finish(files, problems, [])


def new_files(version_text: str, name: str) -> dict[str, str]:
    """The file ``dbmate new`` would write: relative path -> text."""
    return {f"{version_text}_{name}.sql": "-- migrate:up\n\n\n-- migrate:down\n\n"}
