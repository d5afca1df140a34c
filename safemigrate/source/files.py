"""safemigrate's own layout on disk: file names, versions, scanning a directory (another tool's
layout is read by ``layouts``; ``planning.migrations`` loads the files as the runner runs them)."""

from __future__ import annotations

import re
from pathlib import Path

from ..core.errors import MigrationFileError
from .layouts import scan as scan_layout
from .scanning import MAX_VERSION_DIGITS, DirectoryScan, FileProblem, MigrationFile

# File names are not SQL; a pattern is the right tool for them (SQL itself only goes to pglast).
FILENAME_PATTERN = re.compile(r"^(?P<version>[0-9]+)_(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)\.sql$")


def name_problem(path: Path) -> FileProblem | None:
    """Why the runner refuses the name of the migration file ``path``, else None."""
    match = FILENAME_PATTERN.match(path.name)
    if match is None:
        return FileProblem(
            str(path),
            None,
            "file name does not match <version>_<name>.sql",
            hint="version is digits (0001 or 20261129120000); name is letters, digits, _ . -",
        )
    if len(match["version"].lstrip("0")) > MAX_VERSION_DIGITS:
        return FileProblem(
            str(path),
            None,
            f"version has more than {MAX_VERSION_DIGITS} significant digits",
            hint="use a shorter version (it is stored as a PostgreSQL bigint)",
        )
    return None


def scan_directory(directory: Path, layout: str = "safemigrate") -> DirectoryScan:
    """Every migration file of ``directory``, and every problem with their names.

    Files not ending in ``.sql`` and hidden files are ignored; a ``.sql`` file whose name does not
    match ``<version>_<name>.sql`` and two files with the same version are problems. A missing
    directory raises MigrationFileError. Another ``layout`` (flyway, dbmate, ...; see
    :mod:`safemigrate.source.layouts`) reads the directory with that tool's rules.
    """
    if not directory.is_dir():
        raise MigrationFileError(str(directory), "migrations directory does not exist")
    if layout != "safemigrate":
        return scan_layout(directory, layout)
    files: list[MigrationFile] = []
    misnamed: list[Path] = []
    problems: list[FileProblem] = []
    seen: dict[int, Path] = {}
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or path.suffix.lower() != ".sql" or path.is_dir():
            continue
        problem = name_problem(path)
        if problem is not None:
            problems.append(problem)
            misnamed.append(path)
            continue
        match = FILENAME_PATTERN.match(path.name)
        assert match is not None  # name_problem accepted the name
        version = int(match["version"])
        if version in seen:
            problems.append(
                FileProblem(
                    str(path),
                    None,
                    f"duplicate version {match['version']}: also used by {seen[version].name}",
                    hint="give every migration its own version (safemigrate new NAME picks the "
                    "next)",
                )
            )
        else:
            seen[version] = path
        files.append(MigrationFile(version, match["version"], match["name"], path))
    files.sort(key=lambda f: (f.version, f.path.name))
    if not files and not problems:
        nested = _nested_sql(directory)
        if nested is not None:
            problems.append(
                FileProblem(
                    str(directory),
                    None,
                    "holds no migration file of its own, but its folders hold .sql files "
                    f"({nested.relative_to(directory)}, ...) in a layout no setting reads: read "
                    "as safemigrate's own, it would have no migrations, and every one would look "
                    "applied",
                    hint="point --dir (or dir in the config) at the folder of the migration "
                    "files, or set layout to the tool whose directory this is (see Coming from "
                    "another tool)",
                )
            )
    return DirectoryScan(files, misnamed, problems)


def _nested_sql(directory: Path) -> Path | None:
    """A ``.sql`` file one folder down in ``directory`` (the first by name), if any: the
    mark of another tool's layout (review 21h D1: Prisma's folders were read as an empty
    directory)."""
    for folder in sorted(directory.iterdir()):
        if folder.name.startswith(".") or not folder.is_dir():
            continue
        found = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".sql" and p.is_file())
        if found:
            return found[0]
    return None


def discover(directory: Path, layout: str = "safemigrate") -> list[MigrationFile]:
    """The migration files of ``directory``, ordered by version.

    Raises the first problem of scan_directory (a misnamed ``.sql`` file, a duplicate version)
    as a MigrationFileError.
    """
    scan = scan_directory(directory, layout)
    if scan.problems:
        raise scan.problems[0].error()
    return scan.files
