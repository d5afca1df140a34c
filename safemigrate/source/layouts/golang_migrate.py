"""golang-migrate's layout: ``<version>_<name>.up.sql`` beside ``<version>_<name>.down.sql``.

Rules from golang-migrate's source (golang-migrate/migrate, source/parse.go): a file name is
``^([0-9]+)_(.*)\\.(down|up)\\.(.*)$``, the version an unsigned 64-bit number, applied in version
order; its postgres driver sends a file as one multi-statement query. ``schema_migrations`` holds
one row: the last version applied and whether that migration failed half-way (``dirty``).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..scanning import DirectoryScan, FileProblem, MigrationFile
from .common import DOWN_IGNORED, WHOLE_FILE, entries, finish, numbered_file, version_problem

NAME = "golang-migrate"
FILENAME = re.compile(r"^(?P<version>[0-9]+)_(?P<name>.*)\.(?P<direction>down|up)\.(?P<ext>.*)$")


def version_of(origin_id: str) -> int | None:
    """The version of golang-migrate's history value, or None."""
    return int(origin_id) if origin_id.isdigit() else None


def scan(directory: Path) -> DirectoryScan:
    """The golang-migrate migrations of ``directory`` (their up files)."""
    files: list[MigrationFile] = []
    problems: list[FileProblem] = []
    names = [p.name for p in entries(directory)]
    for path in entries(directory):
        match = FILENAME.match(path.name)
        if path.is_dir() or match is None or match["direction"] != "up":
            continue
        if match["ext"] != "sql":
            problems.append(FileProblem(str(path), None, "not an SQL migration"))
            continue
        problem = version_problem(path, match["version"])
        if problem is not None:
            problems.append(problem)
            continue
        down = f"{match['version']}_{match['name']}.down.{match['ext']}"
        notes = ([DOWN_IGNORED] if down in names else []) + [
            WHOLE_FILE.format(tool="golang-migrate")
        ]
        files.append(numbered_file(match, path, notes))
    return finish(files, problems, [])


def new_files(version_text: str, name: str) -> dict[str, str]:
    """The files ``migrate create`` would write: relative path -> text."""
    return {f"{version_text}_{name}.up.sql": "", f"{version_text}_{name}.down.sql": ""}
