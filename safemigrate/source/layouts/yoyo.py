"""yoyo-migrations' layout: one ``<id>.sql`` per migration, ``-- depends:`` headers.

Rules from yoyo's source (yoyo-migrations on PyPI, yoyo/migrations.py): every ``.sql`` and ``.py``
file is a migration whose id is the file name without its extension; ``<id>.rollback.sql`` is its
down part; files are read in name order, then sorted so that each comes after those its
``-- depends: ID ...`` header names; ``-- transactional: false`` runs it outside a transaction;
headers are the comment lines before the first statement. ``_yoyo_migration`` records each
applied id with ``migration_hash`` = SHA-256 of the id.

safemigrate keeps versions as numbers: the version is the id's leading digits, with yoyo's
second number when the id has the shape ``yoyo new`` writes (``20261201_01_abcde-name``: version
2026120101). A Python migration cannot run here and is refused.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from ..scanning import DirectoryScan, FileProblem, MigrationFile
from .common import (
    DOWN_IGNORED,
    NO_TRANSACTION,
    WHOLE_FILE,
    comment_line,
    entries,
    file_problem,
    finish,
    read_sql,
    version_problem,
)

NAME = "yoyo"
_VERSION = re.compile(r"^(?P<first>[0-9]+)(?:_(?P<second>[0-9]+)(?=_))?")
_HEADER = re.compile(r"^(?P<key>transactional|depends)\s*:\s*(?P<value>.*)$")


def version_digits(origin_id: str) -> str | None:
    """The digits that make the version of yoyo id ``origin_id``, or None."""
    match = _VERSION.match(origin_id)
    if match is None:
        return None
    return match["first"] + (match["second"] or "")


def version_of(origin_id: str) -> int | None:
    """The version of yoyo id ``origin_id``, or None when it has none."""
    digits = version_digits(origin_id)
    return int(digits) if digits is not None else None


def _name_of(origin_id: str) -> str:
    """The id without its version: what the journal calls the migration."""
    match = _VERSION.match(origin_id)
    rest = origin_id[match.end() :] if match is not None else origin_id
    return rest.lstrip("._-") or origin_id


def headers(text: str) -> dict[str, str]:
    """The ``-- depends:`` and ``-- transactional:`` headers before the first statement."""
    found: dict[str, str] = {}
    for line in text.split("\n"):
        comment = comment_line(line)
        if comment is None:
            if line.strip():
                break
            continue
        header = _HEADER.match(comment["body"])
        if header is not None:
            key, value = header["key"], header["value"]
            found[key] = f"{found[key]} {value}" if key in found else value
    return found


def scan(directory: Path) -> DirectoryScan:
    """The yoyo migrations of ``directory``."""
    files: list[MigrationFile] = []
    problems: list[FileProblem] = []
    misnamed: list[Path] = []
    depends: dict[str, list[str]] = {}
    paths = [p for p in entries(directory) if p.is_file() and p.suffix in (".sql", ".py")]
    rollbacks = {p.name.removesuffix(".rollback.sql") for p in paths}
    for path in paths:
        if path.name.endswith(".rollback.sql"):
            continue
        origin_id = path.stem
        if path.suffix == ".py" or origin_id.startswith("post-apply"):
            what = "a Python migration" if path.suffix == ".py" else "a post-apply hook"
            problems.append(
                file_problem(
                    path,
                    f"{what} cannot be run by safemigrate",
                    hint="write it as SQL, or apply it with yoyo before switching",
                )
            )
            continue
        digits = version_digits(origin_id)
        if digits is None:
            problems.append(
                file_problem(
                    path,
                    "yoyo migration id does not start with digits",
                    hint="safemigrate orders migrations by a numeric version: ids like "
                    "0001.name or 20261201_01_abcde-name",
                )
            )
            misnamed.append(path)
            continue
        problem = version_problem(path, digits)
        if problem is not None:
            problems.append(problem)
            continue
        text = read_sql(path)
        found = headers(text)
        depends[origin_id] = found.get("depends", "").split()
        no_transaction = found.get("transactional", "true").strip().lower() == "false"
        notes = [DOWN_IGNORED] if origin_id in rollbacks else []
        notes.append(
            NO_TRANSACTION.format(marker="-- transactional: false")
            if no_transaction
            else WHOLE_FILE.format(tool="yoyo")
        )
        files.append(
            MigrationFile(
                int(digits),
                digits,
                _name_of(origin_id),
                path,
                origin_id=origin_id,
                notes=tuple(notes),
            )
        )
    result = finish(files, problems, misnamed)
    for index, problem in enumerate(problems):
        if problem.message.startswith("duplicate version "):
            problems[index] = replace(problem, hint=_SHARED_VERSION)
    problems += _dependency_problems(result.files, depends)
    return result


#: Two ``yoyo new`` on one day (issue 22 review F7): legal for yoyo, whose id is the whole name.
_SHARED_VERSION = (
    "yoyo ids that differ only after the date and number (two `yoyo new` on one day) share "
    "safemigrate's numeric version, which safemigrate cannot read yet; never rename a file yoyo "
    "has applied (its id changes, and it would run again): rename only files no database has "
    "applied (the number after the date), and apply the others with yoyo until then"
)


def _dependency_problems(
    files: list[MigrationFile], depends: dict[str, list[str]]
) -> list[FileProblem]:
    """A dependency yoyo cannot resolve, or one that safemigrate's order would run later."""
    position = {f.origin_id: i for i, f in enumerate(files)}
    problems = []
    for index, file in enumerate(files):
        for dependency in depends.get(file.origin_id, []):
            if dependency not in position:
                problems.append(
                    FileProblem(str(file.path), None, f"depends on unknown migration {dependency}")
                )
            elif position[dependency] > index:
                problems.append(
                    FileProblem(
                        str(file.path),
                        None,
                        f"depends on {dependency}, whose version comes later",
                        hint="safemigrate applies migrations in version order",
                    )
                )
    return problems


def new_files(version_text: str, name: str, previous: str | None) -> dict[str, str]:
    """The file for a new migration after ``previous`` (its yoyo id): relative path -> text."""
    header = f"-- depends: {previous}\n" if previous else ""
    return {f"{version_text}.{name}.sql": f"-- {name}\n{header}\n"}
