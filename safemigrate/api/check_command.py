"""The ``check`` command: lint a migrations directory (or files), remembering results.

Its own module, apart from :mod:`safemigrate.api` (which re-exports it), so that a check
answered from the cache imports neither the runner nor the parser: the CLI's ``check`` loads
only this, the settings and the lint findings before it knows whether it must parse anything.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..core.errors import BadInputError
from ..infra.lint_cache import ResultCache, code_fingerprint, default_directory, fingerprint
from ..lint.findings import Finding, LintReport
from ..lint.memo import FileMemo
from ..lint.options import timeout_ceilings
from ..settings.config import Settings


def check(settings: Settings, files: Sequence[Path] = ()) -> LintReport:
    """Lint ``files``, or every migration of the settings' directory (and the directory itself:
    names, duplicate versions, parse errors), for what hurts production. No database needed.

    Findings are the result, not errors: ``report.exit_code()`` is what ``safemigrate check``
    exits with (2 when some input was bad, 1 with an error finding, else 0). Results are kept
    in the ``check_cache`` directory: an unchanged directory is answered from it, and a
    directory that gained files has only those judged (see :mod:`safemigrate.infra.lint_cache`).
    """
    if files:
        return _check_files(settings, [Path(f) for f in files])
    subjects = [settings.dir]
    cache = _cache_of(settings)
    if cache is None:
        return _lint(settings, files)

    code = code_fingerprint()
    # Everything besides the files that changes a verdict.
    settings_key = repr(
        (
            settings.pg_version,
            settings.concurrent_indexes,
            settings.safe_rewrites,
            timeout_ceilings(settings),
            settings.layout,
            settings.lint_gate_after,
            bool(files),
        )
    )
    seed = ResultCache.name_of(code, settings_key)
    # Findings name files as they were given, so the spelling is part of the name too.
    name = ResultCache.name_of("\0".join(f"{s}\0{s.absolute()}" for s in subjects), settings_key)
    now_ns = time.time_ns()
    before = fingerprint(subjects)
    cached = cache.load(name, code, seed)
    if before is not None and cached.fingerprint == before.digest and cached.report is not None:
        return cached.report
    report = _lint(settings, files, None if files else cached.memo)
    # The whole report is kept only under a status that cannot hide a change: not when the
    # files changed while they were read, nor when one changed too recently to trust (the
    # per-file level, keyed on the texts read, is kept either way).
    after = fingerprint(subjects)
    keep = before is not None and before == after and not before.racy(now_ns)
    cache.save(name, code, before.digest if keep and before else None, report, cached.memo)
    return report


#: The rule of a file the runner refuses (lint/rules/meta.py): bad input, never exempt.
INVALID_MIGRATION_FILE = "invalid-migration-file"


def _check_files(settings: Settings, files: Sequence[Path]) -> LintReport:
    """``check FILE...`` (what the pre-commit hook runs): each file judged as ``check`` judges
    its directory, with the layout (the config's, for that directory) and the history of the
    earlier files, and only the given files' findings kept. A file the layout leaves out (a
    down part, a rollback file) has none: the runner never runs it."""
    by_directory: dict[Path, list[Path]] = {}
    for path in files:
        by_directory.setdefault(path.absolute().parent, []).append(path)
    findings = []
    bad_input = False
    for directory, members in by_directory.items():
        # Each path resolved once: resolving walks every component with a system call, and
        # a directory's findings times its given files made that most of a check's time.
        given = _given_by_resolved(members)
        wanted = set(given) | {str(directory.resolve())}
        resolved = _Resolver()
        names = {p.name for p in members}
        report = check(replace(settings, dir=directory))
        for finding in report.findings:
            file = resolved(finding.file)
            named = file in wanted
            # A problem of the directory itself about a given file (a duplicate version).
            about = finding.rule == INVALID_MIGRATION_FILE and any(
                name in finding.message for name in names
            )
            if named or about:
                findings.append(_as_given(finding, given.get(file)))
                bad_input = bad_input or finding.rule == INVALID_MIGRATION_FILE
        for path in members:
            if not path.is_file():
                findings.append(_missing(path))
                bad_input = True
    return LintReport(findings, bad_input, tuple(str(p) for p in files))


def _given_by_resolved(members: Sequence[Path]) -> dict[str, Path]:
    """The given ``members`` by their resolved path (the first spelling of a file given twice)."""
    given: dict[str, Path] = {}
    for path in members:
        given.setdefault(str(path.resolve()), path)
    return given


class _Resolver:
    """Resolved paths of the names findings give, each name resolved once."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        found = self._seen.get(name)
        if found is None:
            found = self._seen[name] = str(Path(name).resolve())
        return found


def _as_given(finding: Finding, given: Path | None) -> Finding:
    """``finding`` naming its file as it was ``given`` on the command line (None: as it is)."""
    return finding if given is None else replace(finding, file=str(given))


def _missing(path: Path) -> Finding:
    """The invalid-migration-file finding of a file that cannot be read."""
    from ..core.errors import MigrationFileError
    from ..lint.walker import invalid_file

    return invalid_file(str(path), MigrationFileError(str(path), "cannot read: no such file"))


def _cache_of(settings: Settings) -> ResultCache | None:
    """The cache the settings name, or None when it is off (or there is no home)."""
    if settings.check_cache == "off":
        return None
    directory = default_directory() if settings.check_cache == "auto" else settings.check_cache
    return None if directory is None else ResultCache(directory)


def _lint(settings: Settings, files: Sequence[Path], memo: FileMemo | None = None) -> LintReport:
    """Lint for real (the parser and rules are imported here), with the per-file ``memo``."""
    from ..lint.directory import lint_directory, lint_paths
    from ..source.layouts import resolve as resolve_layout

    pg_version = settings.pg_version
    ceilings = timeout_ceilings(settings)
    if files:
        return lint_paths(
            list(files),
            pg_version=pg_version,
            concurrent_indexes=settings.concurrent_indexes,
            ceilings=ceilings,
            safe_rewrites=settings.safe_rewrites,
        )
    from ..lint.walker import invalid_file
    from ..source.layouts import refuse_foreign_layout

    if settings.layout == "safemigrate" and settings.dir.is_dir():
        # As up refuses it: a dbmate file read whole would have its down part judged and run.
        try:
            refuse_foreign_layout(settings.dir)
        except BadInputError as err:
            from ..core.errors import MigrationFileError

            refused = MigrationFileError(str(settings.dir), err.message, hint=err.hint)
            return LintReport([invalid_file(str(settings.dir), refused)], True, ())
    return lint_directory(
        settings.dir,
        pg_version=pg_version,
        concurrent_indexes=settings.concurrent_indexes,
        ceilings=ceilings,
        safe_rewrites=settings.safe_rewrites,
        layout=resolve_layout(settings.dir, settings.layout),
        memo=memo,
        judged_after=settings.lint_gate_after,
    )


def explain(rule_id: str) -> str:
    """What lint rule ``rule_id`` catches, why it hurts, and the safe alternative."""
    from ..lint import explain as lint_explain
    from ..lint.rules import RULES

    try:
        return lint_explain(rule_id)
    except KeyError:
        raise BadInputError(
            f"--explain: unknown rule {rule_id!r}; rules: {', '.join(sorted(RULES))}"
        ) from None
