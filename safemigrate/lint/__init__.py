"""Static checks of migration files, without a database (``safemigrate check``).

Each file is read with the runner's own reader (safemigrate.source), so the linter knows the
statements, steps and transaction modes the runner would use, and each statement is checked by
the rules in ``safemigrate.lint.rules``. A table counts as existing (rules apply to it) unless it
is created earlier in the same migration file.

``LintReport.bad_input`` is True when some file could not be read, parsed or named as the
runner requires (finding ``invalid-migration-file``): the CLI exits 2 for that, 1 for other
error findings, 0 otherwise (``LintReport.exit_code``).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from ..errors import MigrationFileError
from ..source import scan_directory
from .catalog import Catalog
from .context import TimeoutCeilings
from .findings import Finding, LintReport, Rule, Severity
from .rules import RULES as _RULES
from .walker import FileResult, invalid_file, lint_file, lint_text, problem_finding

__all__ = [
    "RULES",
    "Finding",
    "LintReport",
    "Rule",
    "Severity",
    "TimeoutCeilings",
    "explain",
    "lint_directory",
    "lint_paths",
]

#: Every rule, by id.
RULES: Mapping[str, Rule] = _RULES

_POLICIES = ("rewrite", "require", "off")


def explain(rule_id: str) -> str:
    """The ``--explain`` text of a rule: what it catches, why it hurts, the safe alternative.

    Raises KeyError for an unknown id.
    """
    return RULES[rule_id].doc


def _check_options(pg_version: int, concurrent_indexes: str, safe_rewrites: str) -> None:
    for key, value in (
        ("concurrent_indexes", concurrent_indexes),
        ("safe_rewrites", safe_rewrites),
    ):
        if value not in _POLICIES:
            raise ValueError(f"{key} must be one of {', '.join(_POLICIES)}, got {value!r}")
    if not isinstance(pg_version, int) or pg_version < 9:
        raise ValueError(f"pg_version must be a PostgreSQL major version, got {pg_version!r}")


def _report(results: Sequence[FileResult], files: Sequence[str], extra: bool = False) -> LintReport:
    findings = [f for r in results for f in r.findings]
    bad = extra or any(r.bad_input for r in results)
    return LintReport(findings, bad, tuple(files))


def lint_paths(
    paths: Sequence[Path],
    *,
    pg_version: int = 16,
    concurrent_indexes: str = "rewrite",
    ceilings: TimeoutCeilings | None = None,
    safe_rewrites: str = "rewrite",
) -> LintReport:
    """Lint migration files; each file is its own migration context.

    A path that is a directory is linted as with lint_directory. A file whose name is not
    ``<version>_<name>.sql``, that cannot be read, is not UTF-8 or does not parse gives an
    ``invalid-migration-file`` finding and makes the report bad input.
    """
    _check_options(pg_version, concurrent_indexes, safe_rewrites)
    results: list[FileResult] = []
    files: list[str] = []
    for path in paths:
        if path.is_dir():
            sub = lint_directory(
                path,
                pg_version=pg_version,
                concurrent_indexes=concurrent_indexes,
                ceilings=ceilings,
                safe_rewrites=safe_rewrites,
            )
            results.append(FileResult(sub.findings, sub.bad_input))
            files.extend(sub.files)
            continue
        files.append(str(path))
        results.append(
            lint_file(
                path,
                pg_version=pg_version,
                concurrent_indexes=concurrent_indexes,
                ceilings=ceilings,
                safe_rewrites=safe_rewrites,
            )
        )
    return _report(results, files)


def lint_directory(
    directory: Path,
    *,
    pg_version: int = 16,
    concurrent_indexes: str = "rewrite",
    ceilings: TimeoutCeilings | None = None,
    safe_rewrites: str = "rewrite",
    layout: str = "safemigrate",
    catalog: Catalog | None = None,
    only: Collection[Path] | None = None,
) -> LintReport:
    """Lint every migration of ``directory`` and validate the directory itself (file names,
    duplicate versions), as the runner would before applying anything.

    The files are read in order, each judged against the schema the earlier ones built.
    Another tool's ``layout`` is read with its rules; only the up part of its files is linted.
    With ``catalog`` (a live database's schema) and ``only`` (the pending files), only those
    files are linted, in order, on top of the catalog: the others are already in it.
    """
    _check_options(pg_version, concurrent_indexes, safe_rewrites)
    try:
        # Every problem with the names, where discover() stops at the first.
        scan = scan_directory(directory, layout)
    except MigrationFileError as err:
        return LintReport([invalid_file(str(directory), err)], True, ())
    problems = [problem_finding(p) for p in scan.problems]
    results = [FileResult(problems, bool(problems))]
    paths = [f.path for f in scan.files] + scan.misnamed
    if only is not None:
        wanted = {p.resolve() for p in only}
        paths = [p for p in paths if p.resolve() in wanted]
    catalog = copy.deepcopy(catalog) if catalog is not None else Catalog()
    up_parts = {f.path: f.text for f in scan.files if f.text is not None}
    for path in paths:
        if path in up_parts:
            results.append(
                lint_text(
                    str(path),
                    up_parts[path],
                    pg_version=pg_version,
                    concurrent_indexes=concurrent_indexes,
                    ceilings=ceilings,
                    safe_rewrites=safe_rewrites,
                    catalog=catalog,
                )
            )
            continue
        results.append(
            lint_file(
                path,
                pg_version=pg_version,
                concurrent_indexes=concurrent_indexes,
                check_file_name=False,
                ceilings=ceilings,
                safe_rewrites=safe_rewrites,
                catalog=catalog,
            )
        )
    report = _report(results, [str(p) for p in paths])
    order = {str(p): i for i, p in enumerate(paths)}
    report.findings.sort(key=lambda f: (order.get(f.file, len(order)), f.line, f.column))
    return report
