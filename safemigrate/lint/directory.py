"""Linting a directory of migrations, or files, in order (``lint_directory``, ``lint_paths``).

Each file is read with the runner's own reader (safemigrate.source) and judged against the
schema the earlier files built (a Catalog passed along the directory).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from ..core.errors import MigrationFileError
from ..core.model import DEFAULT_PG_VERSION
from ..source import MigrationFile, ParsedFile, read_sql, scan_directory
from .catalog import Catalog
from .findings import LintReport
from .memo import FileMemo, chain_keys
from .options import TimeoutCeilings, check_options
from .walker import FileResult, invalid_file, lint_file, lint_text, problem_finding

#: The rule of a file the runner refuses: bad input, reported whatever lint_gate_after says.
INVALID_MIGRATION_FILE = "invalid-migration-file"


def _report(results: Sequence[FileResult], files: Sequence[str], extra: bool = False) -> LintReport:
    findings = [f for r in results for f in r.findings]
    bad = extra or any(r.bad_input for r in results)
    return LintReport(findings, bad, tuple(files))


def lint_paths(
    paths: Sequence[Path],
    *,
    pg_version: int = DEFAULT_PG_VERSION,
    concurrent_indexes: str = "rewrite",
    ceilings: TimeoutCeilings | None = None,
    safe_rewrites: str = "rewrite",
) -> LintReport:
    """Lint migration files; each file is its own migration context.

    A path that is a directory is linted as with lint_directory. A file whose name is not
    ``<version>_<name>.sql``, that cannot be read, is not UTF-8 or does not parse gives an
    ``invalid-migration-file`` finding and makes the report bad input.
    """
    check_options(pg_version, concurrent_indexes, safe_rewrites)
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
    pg_version: int = DEFAULT_PG_VERSION,
    concurrent_indexes: str = "rewrite",
    ceilings: TimeoutCeilings | None = None,
    safe_rewrites: str = "rewrite",
    layout: str = "safemigrate",
    catalog: Catalog | None = None,
    only: Collection[Path] | None = None,
    memo: FileMemo | None = None,
    judged_after: int | None = None,
    read: Mapping[tuple[str, str], ParsedFile] | None = None,
) -> LintReport:
    """Lint every migration of ``directory`` and validate the directory itself (file names,
    duplicate versions), as the runner would before applying anything.

    The files are read in order, each judged against the schema the earlier ones built.
    Another tool's ``layout`` is read with its rules; only the up part of its files is linted.
    With ``catalog`` (a live database's schema) and ``only`` (the pending files), only those
    files are linted, in order, on top of the catalog: the others are already in it.

    With ``memo`` (check's cache; not with ``catalog`` or ``only``), the leading files whose
    chain key an earlier run judged are not parsed again: their findings are reused, and the
    files after them are judged on the schema that run saved. ``memo`` records this run's.

    ``judged_after`` (``lint_gate_after``): the rule findings of migrations up to that version
    are left out, as the lint gate leaves them out (history from before adoption); they still
    build the schema the later files are judged on, and a file the runner refuses is still
    reported.

    ``read``: files the caller already read, by (path, text) (the lint gate's, from the
    runner's reading): a file whose text is still that one is linted without parsing it again.
    """
    check_options(pg_version, concurrent_indexes, safe_rewrites)
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
    # The SQL of each well-named file: another tool's up part, or the whole file. A native
    # file is read here, not by lint_file, because the memo's keys are its text; one that
    # cannot be read is left to lint_file, which reports why.
    listed = set(paths)
    up_parts = {
        f.path: text for f in scan.files if f.path in listed and (text := _sql_of(f)) is not None
    }
    # A badly named file is linted after the others: only a directory of well-named files
    # (the usual case) is memoised, so the saved schema is the one after its last file.
    use_memo = (
        memo is not None and catalog is None and only is None and all(p in up_parts for p in paths)
    )
    catalog = copy.deepcopy(catalog) if catalog is not None else Catalog()
    start = 0
    keys: list[str] = []
    if memo is not None and use_memo:
        keys = chain_keys(memo.seed, [(str(p), up_parts[p]) for p in paths])
        start, catalog = _reuse(memo, keys, catalog, results)
    for path in paths[start:]:
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
                    parsed=read.get((str(path), up_parts[path])) if read else None,
                )
            )
            if memo is not None and use_memo:
                memo.record(keys[len(memo.chain)], results[-1].findings, results[-1].bad_input)
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
    if memo is not None and use_memo and start < len(keys):
        memo.snapshot(keys[-1], catalog.to_json())
    report = _report(results, [str(p) for p in paths])
    if judged_after is not None:
        exempt = {str(f.path) for f in scan.files if f.version <= judged_after}
        report.findings[:] = [
            f for f in report.findings if f.file not in exempt or f.rule == INVALID_MIGRATION_FILE
        ]
    order = {str(p): i for i, p in enumerate(paths)}
    report.findings.sort(key=lambda f: (order.get(f.file, len(order)), f.line, f.column))
    return report


def _sql_of(file: MigrationFile) -> str | None:
    """The SQL ``file`` runs, or None when it cannot be read."""
    if file.text is not None:
        return file.text
    try:
        return read_sql(file.path)
    except MigrationFileError:
        return None


def _reuse(
    memo: FileMemo, keys: Sequence[str], catalog: Catalog, results: list[FileResult]
) -> tuple[int, Catalog]:
    """How many leading files an earlier run already judged (their results appended to
    ``results`` and recorded in ``memo``), and the schema to judge the next one on."""
    if not keys:
        return 0, catalog  # an empty directory: nothing to reuse, and no last file
    known = 0
    while known < len(keys) and keys[known] in memo.known:
        known += 1
    if known < len(keys):
        # The files after the known ones need the schema the known ones built: only the
        # schema saved after the last of them will do.
        if known == 0 or memo.catalog_key != keys[known - 1] or memo.catalog is None:
            return 0, catalog
        try:
            catalog = Catalog.from_json(memo.catalog)
        except (ValueError, TypeError, KeyError):
            return 0, catalog
    elif memo.catalog_key != keys[-1]:
        memo.catalog_key, memo.catalog = None, None  # no schema saved after the last file
    for key in keys[:known]:
        findings, bad_input = memo.known[key]
        results.append(FileResult(findings, bad_input))
        memo.record(key, findings, bad_input)
    return known, catalog
