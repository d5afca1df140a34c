"""Linting one migration file: statements, their transactions, the rules, suppression.

How a file is read:

1. pglast parses, splits and scans the text (as source.build_steps does).
2. A light pre-pass finds each statement's transaction: BEGIN ... COMMIT blocks and
   ``-- safemigrate: group-start`` / ``group-end`` groups. It is needed because
   source.build_steps raises MigrationFileError at the first statement that cannot run in a
   transaction block inside one; the linter reports that statement as a
   ``non-transactional-in-transaction`` finding instead and goes on with the file.
3. source.build_steps gets the text with those statements replaced by a harmless ``SELECT``
   of the same length, and with the ``-- safemigrate: allow`` comments blanked out (offsets,
   lines and columns unchanged). Its steps give every statement the runner's view
   (``Statement.rewritten`` for a plain CREATE INDEX it runs CONCURRENTLY); any other
   MigrationFileError it raises is an ``invalid-migration-file`` finding (bad input), and the
   rules still run, with the pre-pass's view of the transactions.
4. Each statement goes through every rule, then its effects are recorded in the file state
   (tables created, constraints validated, enum values added). A DO block's PL/pgSQL
   statements are linted the same way, in the DO block's transaction, located at the DO
   statement. CREATE FUNCTION / PROCEDURE bodies are not looked into.
5. Allow comments remove the findings they name from the statement right after them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pglast
from pglast import ast, parser

from .. import statements as sqlinfo
from ..errors import MigrationFileError
from ..model import Statement
from ..source import (
    DIRECTIVE_PREFIX,
    FILENAME_PATTERN,
    MAX_VERSION_DIGITS,
    ConcurrentIndexes,
    build_steps,
    read_sql,
)
from .allow import Allow, allow_body, blank_out, find_allows
from .context import FileState, StatementContext, Transaction
from .findings import Finding, Hit, Rule
from .plpgsql import do_block_sql, do_language
from .rules import CHECKS, SUPPRESSIBLE
from .rules.meta import (
    ALLOW_WITHOUT_REASON,
    INVALID_MIGRATION_FILE,
    UNKNOWN_RULE_IN_ALLOW,
    UNUSED_ALLOW,
)
from .state import record

_META_IDS = frozenset(
    r.id
    for r in (INVALID_MIGRATION_FILE, UNKNOWN_RULE_IN_ALLOW, UNUSED_ALLOW, ALLOW_WITHOUT_REASON)
)

#: A statement that can run anywhere, written over a statement the pre-pass takes out.
_PLACEHOLDER = "SELECT"


@dataclass(frozen=True)
class FileResult:
    """The findings of one file, and whether the file is bad input (the runner refuses it)."""

    findings: list[Finding]
    bad_input: bool


@dataclass
class _Stmt:
    node: Any
    start: int
    stop: int
    line: int
    column: int
    text: str


def line_starts(text: str) -> list[int]:
    """Offsets where the lines of ``text`` begin."""
    starts = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def _meta(path: str, rule: Rule, line: int, column: int, message: str, hint: str) -> Finding:
    return Finding(path, line, column, rule.id, rule.severity, message, hint)


def invalid_file(path: str, err: MigrationFileError) -> Finding:
    """The invalid-migration-file finding of a MigrationFileError from safemigrate.source."""
    message = err.message
    for prefix in (f"{err.path}:{err.line}: ", f"{err.path}: "):
        if message.startswith(prefix):
            message = message[len(prefix) :]
            break
    hint = err.hint or "safemigrate refuses this file before applying anything (exit 2)"
    return _meta(path, INVALID_MIGRATION_FILE, err.line or 1, 1, message, hint)


def check_name(path: Path, display: str) -> Finding | None:
    """The invalid-migration-file finding of a badly named migration file, else None."""
    match = FILENAME_PATTERN.match(path.name)
    if match is None:
        return _meta(
            display,
            INVALID_MIGRATION_FILE,
            1,
            1,
            "file name does not match <version>_<name>.sql",
            "version is digits (0001 or 20261129120000); name is letters, digits, _ . -",
        )
    if len(match["version"].lstrip("0")) > MAX_VERSION_DIGITS:
        return _meta(
            display,
            INVALID_MIGRATION_FILE,
            1,
            1,
            f"version has more than {MAX_VERSION_DIGITS} significant digits",
            "use a shorter version (it is stored as a PostgreSQL bigint)",
        )
    return None


def _group_events(text: str, tokens: Iterable[Any]) -> list[tuple[int, str]]:
    """(offset, "group-start" | "group-end") of the group directives of the file."""
    events: list[tuple[int, str]] = []
    for token in tokens:
        if token.name != "SQL_COMMENT":
            continue
        comment = text[token.start : token.end + 1]
        body = comment[2:].strip()
        if not body.startswith(DIRECTIVE_PREFIX) or allow_body(comment) is not None:
            continue
        words = body[len(DIRECTIVE_PREFIX) :].split()
        for word in ("group-start", "group-end"):
            if word in words:
                events.append((token.start, word))
    return events


def _transactions(
    stmts: list[_Stmt], groups: list[tuple[int, str]], starts: list[int]
) -> list[Transaction]:
    """The transaction each statement runs in (the pre-pass; see the module docstring)."""
    events: list[tuple[int, str | int]] = [(offset, word) for offset, word in groups]
    events += [(s.start, i) for i, s in enumerate(stmts)]
    events.sort(key=lambda e: e[0])
    result: list[Transaction | None] = [None] * len(stmts)
    open_: Transaction | None = None
    for offset, event in events:
        if event == "group-start":
            if open_ is None:
                open_ = Transaction("group", bisect_right(starts, offset))
            continue
        if event == "group-end":
            if open_ is not None and open_.kind == "group":
                open_ = None
            continue
        assert isinstance(event, int)
        stmt = stmts[event]
        kind = sqlinfo.transaction_kind(stmt.node)
        if kind == "begin" and open_ is None:
            open_ = Transaction("explicit", stmt.line)
            result[event] = open_
        elif kind in ("commit", "commit-and-chain") and open_ and open_.kind == "explicit":
            result[event] = open_
            open_ = None
        else:
            result[event] = open_ or Transaction("own", stmt.line)
    return [t if t is not None else Transaction("own", 1) for t in result]


def _run_rules(node: Any, ctx: StatementContext) -> list[Hit]:
    hits: list[Hit] = []
    for check in CHECKS:
        hits.extend(check(node, ctx))
    return hits


def _split(text: str) -> list[tuple[Any, str]]:
    """The statements of a piece of SQL with their texts; empty when it does not parse."""
    try:
        parsed = pglast.parse_sql(text)
        slices = parser.split(text, only_slices=True)
    except pglast.parser.ParseError:
        return []
    if len(parsed) != len(slices):  # pragma: no cover - both come from the same parser
        return []
    return [(raw.stmt, text[s]) for raw, s in zip(parsed, slices, strict=True)]


def _lint_do_block(stmt: _Stmt, base: StatementContext) -> list[Hit]:
    """The hits of the statements a DO block runs."""
    if do_language(stmt.node) != "plpgsql":
        return []
    tx = base.tx if base.tx.is_block else Transaction("do", stmt.line)
    hits: list[Hit] = []
    for query in do_block_sql(stmt.text):
        for node, text in _split(query):
            if isinstance(node, ast.TransactionStmt):
                continue
            ctx = StatementContext(
                path=base.path,
                pg_version=base.pg_version,
                concurrent_indexes=base.concurrent_indexes,
                state=base.state,
                tx=tx,
                statement=None,
                steps_known=base.steps_known,
                text=text,
                in_do=True,
                line=stmt.line,
            )
            hits.extend(_run_rules(node, ctx))
            record(node, ctx)
    return hits


def _steps(
    path: str, sanitized: str, count: int
) -> tuple[list[Statement | None], MigrationFileError | None]:
    """The runner's view of each statement, from source.build_steps on the sanitized text."""
    try:
        steps = build_steps(path, sanitized, concurrent_indexes="rewrite")
    except MigrationFileError as err:
        return [None] * count, err
    infos: list[Statement | None] = [s for step in steps for s in step.statements]
    if len(infos) != count:  # pragma: no cover - the same parser splits both
        return [None] * count, None
    return infos, None


def lint_text(
    path: str,
    text: str,
    *,
    pg_version: int = 16,
    concurrent_indexes: ConcurrentIndexes | str = "rewrite",
) -> FileResult:
    """Lint the SQL ``text`` of the migration file ``path`` (used in findings only)."""
    starts = line_starts(text)
    try:
        raw = pglast.parse_sql(text)
        slices = parser.split(text, only_slices=True)
        tokens = parser.scan(text)
    except pglast.parser.ParseError as err:
        message = err.args[0]
        raw_location = err.args[1] if len(err.args) > 1 else None
        # No location means the error is at the end of the input (e.g. an unclosed paren).
        offset = len(text) if raw_location is None else max(0, min(int(raw_location), len(text)))
        line = bisect_right(starts, offset)
        finding = _meta(
            path,
            INVALID_MIGRATION_FILE,
            line,
            offset - starts[line - 1] + 1,
            f"SQL does not parse: {message}",
            "fix the syntax; safemigrate refuses a file that does not parse (exit 2)",
        )
        return FileResult([finding], True)

    stmts = []
    for s, r in zip(slices, raw, strict=True):
        line = bisect_right(starts, s.start)
        stmts.append(_Stmt(r.stmt, s.start, s.stop, line, s.start - starts[line - 1] + 1, text[s]))
    allows = find_allows(text, tokens, starts)
    txs = _transactions(stmts, _group_events(text, tokens), starts)

    # Statements the runner would refuse inside their block: linted here, hidden from
    # build_steps so that it can still describe the rest of the file.
    taken_out = {
        i
        for i, (s, tx) in enumerate(zip(stmts, txs, strict=True))
        if tx.is_block and sqlinfo.is_non_transactional(s.node)
    }
    sanitized = blank_out(
        text,
        [(a.start, a.end) for a in allows] + [(stmts[i].start, stmts[i].stop) for i in taken_out],
    )
    for i in sorted(taken_out):
        start = stmts[i].start
        if stmts[i].stop - start < len(_PLACEHOLDER):  # pragma: no cover - VACUUM is the shortest
            continue
        sanitized = sanitized[:start] + _PLACEHOLDER + sanitized[start + len(_PLACEHOLDER) :]
    infos, error = _steps(path, sanitized, len(stmts))
    for i in taken_out:
        infos[i] = None

    findings: list[Finding] = []
    bad_input = False
    if error is not None:
        findings.append(invalid_file(path, error))
        bad_input = True

    state = FileState()
    hits_of: list[list[Hit]] = []
    for stmt, tx, info in zip(stmts, txs, infos, strict=True):
        ctx = StatementContext(
            path=path,
            pg_version=pg_version,
            concurrent_indexes=concurrent_indexes,
            state=state,
            tx=tx,
            statement=info,
            steps_known=error is None,
            text=stmt.text,
            line=stmt.line,
        )
        hits = _run_rules(stmt.node, ctx)
        record(stmt.node, ctx)
        if isinstance(stmt.node, ast.DoStmt):
            hits.extend(_lint_do_block(stmt, ctx))
        hits_of.append(hits)

    findings.extend(_apply_allows(path, stmts, hits_of, allows))
    findings = list(dict.fromkeys(findings))
    findings.sort(key=lambda f: (f.line, f.column))
    return FileResult(findings, bad_input)


def _apply_allows(
    path: str, stmts: list[_Stmt], hits_of: list[list[Hit]], allows: list[Allow]
) -> list[Finding]:
    """The statements' findings after suppression, plus the allow directives' own findings."""
    findings: list[Finding] = []
    statement_starts = [s.start for s in stmts]
    attached: dict[int, list[Allow]] = {}
    for allow in allows:

        def report(rule: Rule, message: str, hint: str, allow: Allow = allow) -> None:
            findings.append(_meta(path, rule, allow.line, allow.column, message, hint))

        for rule_id in allow.rule_ids:
            if rule_id not in SUPPRESSIBLE:
                what = "cannot be suppressed" if rule_id in _META_IDS else "is not a rule"
                report(
                    UNKNOWN_RULE_IN_ALLOW,
                    f"allow names {rule_id!r}, which {what}: it suppresses nothing",
                    "use the id of a statement rule (safemigrate check --explain RULE)",
                )
        if not allow.rule_ids:
            report(
                UNKNOWN_RULE_IN_ALLOW,
                "allow names no rule: it suppresses nothing",
                "write -- safemigrate: allow <rule-id> -- <reason>",
            )
        if not allow.reason:
            report(
                ALLOW_WITHOUT_REASON,
                "allow without a reason suppresses nothing",
                "say why it is safe: -- safemigrate: allow <rule-id> -- <reason>",
            )
            continue
        index = bisect_right(statement_starts, allow.start)
        inside = index > 0 and stmts[index - 1].stop > allow.start
        if not allow.own_line or inside or index == len(stmts):
            where = (
                "is not on its own line"
                if not allow.own_line
                else "is inside a statement"
                if inside
                else "is not followed by a statement"
            )
            if any(r in SUPPRESSIBLE for r in allow.rule_ids):
                report(
                    UNUSED_ALLOW,
                    f"allow {where}: it suppresses nothing",
                    "put it on its own line in the comments directly before the statement",
                )
            continue
        attached.setdefault(index, []).append(allow)

    for index, (stmt, hits) in enumerate(zip(stmts, hits_of, strict=True)):
        allowed = attached.get(index, [])
        for h in hits:
            by = [a for a in allowed if h.rule in a.rule_ids]
            for allow in by:
                allow.used.add(h.rule)
            if not by:
                findings.append(
                    Finding(path, stmt.line, stmt.column, h.rule, h.severity, h.message, h.hint)
                )
    for allowed in attached.values():
        for allow in allowed:
            for rule_id in allow.rule_ids:
                if rule_id in SUPPRESSIBLE and rule_id not in allow.used:
                    findings.append(
                        _meta(
                            path,
                            UNUSED_ALLOW,
                            allow.line,
                            allow.column,
                            f"allow {rule_id} suppresses nothing: the rule does not fire on "
                            "the next statement",
                            "remove the allow, or move it directly before the statement it "
                            "is about",
                        )
                    )
    return findings


def lint_file(
    path: Path,
    *,
    display: str | None = None,
    pg_version: int = 16,
    concurrent_indexes: ConcurrentIndexes | str = "rewrite",
    check_file_name: bool = True,
) -> FileResult:
    """Lint the migration file ``path`` (shown as ``display`` in findings).

    A badly named file is bad input (the runner refuses the directory), but its SQL is still
    linted.
    """
    shown = display if display is not None else str(path)
    misnamed = check_name(path, shown) if check_file_name else None
    before = [misnamed] if misnamed is not None else []
    try:
        text = read_sql(path)
    except MigrationFileError as err:
        return FileResult([*before, invalid_file(shown, err)], True)
    result = lint_text(shown, text, pg_version=pg_version, concurrent_indexes=concurrent_indexes)
    return FileResult([*before, *result.findings], result.bad_input or misnamed is not None)
