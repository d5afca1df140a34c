"""The runner's refusal of pending statements that would switch its timeout guard off.

A migration statement that sets lock_timeout to 0, above ``max_lock_timeout`` or back to the
server's default (and statement_timeout the same way, against ``max_statement_timeout``: 4h
unless the project sets 0, no ceiling; see the lint rule ``timeout-guard-off`` for the exact
list) is refused before anything is applied (exit 2), unless an allow comment with a reason
names the rule: the same comment and the same judgement as ``safemigrate check``, whatever
``lint_gate`` says. Pure: no database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pglast

from .config import Settings
from .errors import MigrationFileError
from .lint.options import TimeoutCeilings, timeout_ceilings
from .lint.rules import timeout_guard_off
from .lint.walker import lint_file
from .model import Statement
from .pending import PlannedStep

#: Statement kinds (pglast node names) that may change a setting; any other statement can only
#: do so through set_config().
_SETTING_KINDS = frozenset(
    {"VariableSetStmt", "AlterRoleSetStmt", "AlterDatabaseSetStmt", "AlterSystemStmt"}
)


def _may_unguard(statement: Statement, ceilings: TimeoutCeilings) -> bool:
    """True when ``statement`` changes a guarded timeout beyond what is allowed."""
    # Cheap first: parsing every statement again would cost every run of many small steps.
    if statement.kind not in _SETTING_KINDS and "set_config" not in statement.text.lower():
        return False
    try:
        nodes = [raw.stmt for raw in pglast.parse_sql(statement.text)]
    except pglast.parser.ParseError:
        return False
    return any(
        timeout_guard_off.refusal(change, ceilings.lock_ms, ceilings.statement_ms) is not None
        for node in nodes
        for change in timeout_guard_off.timeout_changes(node)
    )


def refuse_unguarding(planned: Iterable[PlannedStep], settings: Settings) -> None:
    """Raise MigrationFileError (exit 2, file:line) for the first pending statement that
    switches the guard off without an allow comment naming timeout-guard-off with a reason."""
    ceilings = timeout_ceilings(settings)
    suspects: dict[str, tuple[PlannedStep, set[int]]] = {}
    for p in planned:
        lines = {s.line for s in p.step.statements if _may_unguard(s, ceilings)}
        if lines:
            _, known = suspects.setdefault(str(p.migration.path), (p, set()))
            known.update(lines)
    for path, (p, lines) in suspects.items():
        # The linter decides, so that allow comments mean what they mean to `check`.
        result = lint_file(
            p.migration.path,
            pg_version=settings.pg_version,
            concurrent_indexes=settings.concurrent_indexes,
            check_file_name=False,
            ceilings=ceilings,
            safe_rewrites=settings.safe_rewrites,
        )
        found = _first(
            (f.line, f.message, f.hint)
            for f in result.findings
            if f.rule == timeout_guard_off.RULE.id and f.severity == "error" and f.line in lines
        )
        if found is not None:
            line, message, hint = found
            raise MigrationFileError(
                path,
                f"refused: {message}",
                line=line,
                hint=f"{hint} (-- safemigrate: allow {timeout_guard_off.RULE.id} -- <reason>)",
            )


def _first(items: Iterable[tuple[int, str, str]]) -> tuple[int, str, str] | None:
    ordered: Sequence[tuple[int, str, str]] = sorted(items)
    return ordered[0] if ordered else None
