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

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import MigrationFileError
from ..source import FILENAME_PATTERN, MAX_VERSION_DIGITS, discover
from .findings import Finding, LintReport, Rule, Severity
from .rules import RULES as _RULES
from .rules.meta import INVALID_MIGRATION_FILE
from .walker import FileResult, invalid_file, lint_file

__all__ = [
    "RULES",
    "Finding",
    "LintReport",
    "Rule",
    "Severity",
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


def _check_options(pg_version: int, concurrent_indexes: str) -> None:
    if concurrent_indexes not in _POLICIES:
        raise ValueError(
            f"concurrent_indexes must be one of {', '.join(_POLICIES)}, got {concurrent_indexes!r}"
        )
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
) -> LintReport:
    """Lint migration files; each file is its own migration context.

    A path that is a directory is linted as with lint_directory. A file whose name is not
    ``<version>_<name>.sql``, that cannot be read, is not UTF-8 or does not parse gives an
    ``invalid-migration-file`` finding and makes the report bad input.
    """
    _check_options(pg_version, concurrent_indexes)
    results: list[FileResult] = []
    files: list[str] = []
    for path in paths:
        if path.is_dir():
            sub = lint_directory(path, pg_version=pg_version, concurrent_indexes=concurrent_indexes)
            results.append(FileResult(sub.findings, sub.bad_input))
            files.extend(sub.files)
            continue
        files.append(str(path))
        results.append(
            lint_file(path, pg_version=pg_version, concurrent_indexes=concurrent_indexes)
        )
    return _report(results, files)


def _scan(directory: Path) -> tuple[list[Path], list[Finding]]:
    """Every ``.sql`` file of a directory that discover() refused, with all its problems.

    discover() stops at the first misnamed file or duplicate version; here every one is a
    finding, and every file is still linted (well-named ones first, by version).
    """
    named: list[tuple[int, str, Path]] = []
    misnamed: list[Path] = []
    problems: list[Finding] = []
    seen: dict[int, Path] = {}
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or path.suffix.lower() != ".sql" or path.is_dir():
            continue
        match = FILENAME_PATTERN.match(path.name)
        if match is None or len(match["version"].lstrip("0")) > MAX_VERSION_DIGITS:
            misnamed.append(path)  # lint_file reports the name
            continue
        version = int(match["version"])
        if version in seen:
            problems.append(
                Finding(
                    str(path),
                    1,
                    1,
                    INVALID_MIGRATION_FILE.id,
                    INVALID_MIGRATION_FILE.severity,
                    f"duplicate version {version}: also used by {seen[version].name}",
                    "give every migration its own version (safemigrate new NAME picks the next)",
                )
            )
        else:
            seen[version] = path
        named.append((version, path.name, path))
    return [p for _, _, p in sorted(named)] + misnamed, problems


def lint_directory(
    directory: Path,
    *,
    pg_version: int = 16,
    concurrent_indexes: str = "rewrite",
) -> LintReport:
    """Lint every migration of ``directory`` and validate the directory itself (file names,
    duplicate versions), as the runner would before applying anything."""
    _check_options(pg_version, concurrent_indexes)
    problems: list[Finding] = []
    try:
        paths = [f.path for f in discover(directory)]
    except MigrationFileError as err:
        if not directory.is_dir():
            return LintReport([invalid_file(str(directory), err)], True, ())
        paths, problems = _scan(directory)
    results = [FileResult(problems, bool(problems))]
    for path in paths:
        results.append(
            lint_file(path, pg_version=pg_version, concurrent_indexes=concurrent_indexes)
        )
    report = _report(results, [str(p) for p in paths])
    order = {str(p): i for i, p in enumerate(paths)}
    report.findings.sort(key=lambda f: (order.get(f.file, len(order)), f.line, f.column))
    return report
