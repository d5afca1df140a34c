"""sqlx's layout: ``<version>_<description>.sql`` (or ``.up.sql`` beside ``.down.sql``).

Rules from sqlx's source (launchbadge/sqlx, sqlx-core/src/migrate/source.rs and migration.rs):
the version is the number before the first ``_`` (an i64), the description the rest with ``_``
read as spaces, the migration type from the suffix (``.up.sql``/``.down.sql`` reversible, else
simple); a file starting with ``-- no-transaction`` runs outside a transaction; the checksum in
``_sqlx_migrations`` is the SHA-384 of the file's SQL.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..scanning import DirectoryScan, FileProblem, MigrationFile
from .common import (
    DOWN_IGNORED,
    NO_TRANSACTION,
    WHOLE_FILE,
    entries,
    finish,
    numbered_file,
    read_sql,
    version_problem,
)

NAME = "sqlx"
FILENAME = re.compile(r"^(?P<version>[0-9]+)_(?P<name>.+?)(?P<kind>\.up|\.down)?\.sql$")
NO_TRANSACTION_MARKER = "-- no-transaction"


def version_of(origin_id: str) -> int | None:
    """The version of sqlx's history value, or None."""
    return int(origin_id) if origin_id.lstrip("-").isdigit() else None


def scan(directory: Path) -> DirectoryScan:
    """The sqlx migrations of ``directory`` (simple files and reversible up files)."""
    files: list[MigrationFile] = []
    problems: list[FileProblem] = []
    names = [p.name for p in entries(directory)]
    for path in entries(directory):
        match = FILENAME.match(path.name)
        if path.is_dir() or match is None or match["kind"] == ".down":
            continue
        problem = version_problem(path, match["version"])
        if problem is not None:
            problems.append(problem)
            continue
        text = read_sql(path)
        notes = []
        if match["kind"] == ".up" and f"{match['version']}_{match['name']}.down.sql" in names:
            notes.append(DOWN_IGNORED)
        notes.append(
            NO_TRANSACTION.format(marker=NO_TRANSACTION_MARKER)
            if text.startswith(NO_TRANSACTION_MARKER)
            else WHOLE_FILE.format(tool="sqlx")
        )
        files.append(numbered_file(match, path, notes))
    return finish(files, problems, [])


def new_files(version_text: str, name: str) -> dict[str, str]:
    """The file ``sqlx migrate add`` would write: relative path -> text."""
    return {f"{version_text}_{name}.sql": f"-- Add migration script here: {name}\n"}
