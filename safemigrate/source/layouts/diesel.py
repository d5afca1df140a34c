"""diesel's layout: one folder ``<version>_<name>/`` per migration, with ``up.sql`` and
``down.sql``.

Rules from diesel's source (diesel-rs/diesel, diesel_migrations/src/file_based_migrations.rs):
each folder whose name has a ``_`` is a migration; its version is the part before the first
``_`` with the dashes removed (``2026-12-01-120000`` is ``20261201120000``), recorded as text
in ``__diesel_schema_migrations``; migrations run in version order; ``metadata.toml`` with
``run_in_transaction = false`` runs it outside a transaction. The folder
``00000000000000_diesel_initial_setup`` is diesel's own (helper functions) and runs like any.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ..scanning import DirectoryScan, FileProblem, MigrationFile
from .common import DOWN_IGNORED, NO_TRANSACTION, WHOLE_FILE, entries, finish, version_problem

NAME = "diesel"
FOLDER = re.compile(r"^(?P<version>[0-9-]+)_(?P<name>.+)$")


def version_of(origin_id: str) -> int | None:
    """The version of diesel's history value, or None."""
    digits = origin_id.replace("-", "")
    return int(digits) if digits.isdigit() else None


def scan(directory: Path) -> DirectoryScan:
    """The diesel migrations of ``directory`` (their ``up.sql`` files)."""
    files: list[MigrationFile] = []
    problems: list[FileProblem] = []
    for folder in entries(directory):
        match = FOLDER.match(folder.name)
        if not folder.is_dir() or match is None:
            continue
        up = folder / "up.sql"
        digits = match["version"].replace("-", "")
        if not up.is_file():
            problems.append(FileProblem(str(folder), None, "migration folder has no up.sql"))
            continue
        problem = (
            version_problem(up, digits)
            if digits
            else FileProblem(str(folder), None, "version has no digits")
        )
        if problem is not None:
            problems.append(problem)
            continue
        notes = [DOWN_IGNORED] if (folder / "down.sql").is_file() else []
        notes.append(
            NO_TRANSACTION.format(marker="run_in_transaction = false")
            if not _in_transaction(folder / "metadata.toml")
            else WHOLE_FILE.format(tool="diesel")
        )
        files.append(
            MigrationFile(
                int(digits), digits, match["name"], up, origin_id=digits, notes=tuple(notes)
            )
        )
    return finish(files, problems, [])


def _in_transaction(metadata: Path) -> bool:
    """False when the folder's ``metadata.toml`` says ``run_in_transaction = false``."""
    if not metadata.is_file():
        return True
    # Imported here: only a diesel folder with a metadata.toml needs it, and every command
    # imports the layouts (issue 26: status's time).
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
    try:
        return bool(tomllib.loads(metadata.read_text("utf-8")).get("run_in_transaction", True))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True


def new_files(version_text: str, name: str) -> dict[str, str]:
    """The files ``diesel migration generate`` would write: relative path -> text."""
    return {f"{version_text}_{name}/up.sql": "", f"{version_text}_{name}/down.sql": ""}
