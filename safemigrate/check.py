"""The ``check`` command: lint a migrations directory (or files), remembering results.

Its own module, apart from :mod:`safemigrate.api` (which re-exports it), so that a check
answered from the cache imports neither the runner nor the parser: the CLI's ``check`` loads
only this, the settings and the lint findings before it knows whether it must parse anything.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from .config import Settings
from .errors import BadInputError
from .lint.cache import (
    FileMemo,
    ResultCache,
    code_fingerprint,
    default_directory,
    fingerprint,
)
from .lint.findings import LintReport
from .lint.options import timeout_ceilings


def check(settings: Settings, files: Sequence[Path] = ()) -> LintReport:
    """Lint ``files``, or every migration of the settings' directory (and the directory itself:
    names, duplicate versions, parse errors), for what hurts production. No database needed.

    Findings are the result, not errors: ``report.exit_code()`` is what ``safemigrate check``
    exits with (2 when some input was bad, 1 with an error finding, else 0). Results are kept
    in the ``check_cache`` directory: an unchanged directory is answered from it, and a
    directory that gained files has only those judged (see :mod:`safemigrate.lint.cache`).
    """
    subjects = [Path(f) for f in files] if files else [settings.dir]
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


def _cache_of(settings: Settings) -> ResultCache | None:
    """The cache the settings name, or None when it is off (or there is no home)."""
    if settings.check_cache == "off":
        return None
    directory = default_directory() if settings.check_cache == "auto" else settings.check_cache
    return None if directory is None else ResultCache(directory)


def _lint(settings: Settings, files: Sequence[Path], memo: FileMemo | None = None) -> LintReport:
    """Lint for real (the parser and rules are imported here), with the per-file ``memo``."""
    from .lint.directory import lint_directory, lint_paths
    from .source.layouts import resolve as resolve_layout

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
    return lint_directory(
        settings.dir,
        pg_version=pg_version,
        concurrent_indexes=settings.concurrent_indexes,
        ceilings=ceilings,
        safe_rewrites=settings.safe_rewrites,
        layout=resolve_layout(settings.dir, settings.layout),
        memo=memo,
    )


def explain(rule_id: str) -> str:
    """What lint rule ``rule_id`` catches, why it hurts, and the safe alternative."""
    from .lint import explain as lint_explain
    from .lint.rules import RULES

    try:
        return lint_explain(rule_id)
    except KeyError:
        raise BadInputError(
            f"--explain: unknown rule {rule_id!r}; rules: {', '.join(sorted(RULES))}"
        ) from None
