"""timeout-guard-off: a migration sets lock_timeout or statement_timeout to 0 or above a ceiling.

The runner refuses such a statement in a pending step too (exit 2) unless an allow comment with
a reason names this rule (see ``safemigrate.timeout_guard``), so this module is where both the
linter and the runner learn what a statement does to the two timeouts.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pglast import ast
from pglast.enums import VariableSetKind

from ...durations import format_duration, parse_duration
from ...errors import ConfigError
from ..context import StatementContext, walk
from ..findings import Hit, hit, make_rule

DOC = """
Catches: (an error) a statement that sets `lock_timeout` to 0 (no limit), above the ceiling
`max_lock_timeout` (default 10s) or back to the server's default; the same for
`statement_timeout` against `max_statement_timeout` (default 4h; a project that sets it to 0 has
no ceiling, and lifting statement_timeout to 0 is then only a warning). The statements judged:
- `SET`, `SET SESSION`, `SET LOCAL` of either setting to 0 or above its ceiling, and
  `SET ... TO DEFAULT`, `RESET lock_timeout`, `RESET statement_timeout`, `RESET ALL`;
- `set_config('lock_timeout' | 'statement_timeout', value, is_local)` with constant arguments
  (anywhere in a statement, DO blocks included); a value computed at run time is not checked;
- `ALTER ROLE ... SET`, `ALTER DATABASE ... SET`, `ALTER SYSTEM SET` of either setting to 0 or
  above its ceiling (they change the default of every later session, the applications' too).

Why it hurts: safemigrate runs every step under a lock timeout and a statement timeout so that a
step waiting for a lock cannot stall the application's queries queued behind it. A statement
that switches them off (or back to a server default that is usually 0) removes that guard for
the rest of its step, silently; a very long lock timeout does the same in slow motion.

`safemigrate up` refuses such a statement (an error finding) in a pending step before applying
anything (exit 2), whatever `lint_gate` says, unless it is allowed with a reason.

Why statement_timeout has no ceiling by default: it bounds the work a step does once it holds
its locks, and real migration sets lift it on purpose for a backfill (langfuse's
`backfill_evaluator_v2` does `SET LOCAL statement_timeout = 0`); lock_timeout is the guard that
keeps the application's queries from queueing behind a waiting step, and is always enforced.

Instead: give the step the timeouts it needs with a directive, which keeps the runner's guard:
`-- safemigrate: lock-timeout=5s` or `-- safemigrate: statement-timeout=1h` on the line before
the statement. If the setting really must change (a role's default for the application, say),
allow it with the reason:
`-- safemigrate: allow timeout-guard-off -- app role default agreed with the DBA team`.
"""

RULE = make_rule(
    "timeout-guard-off",
    "error",
    "lock_timeout (or a capped statement_timeout) set to 0, above its ceiling, or to default",
    DOC,
)

#: The settings the runner's guard consists of.
GUARDED = ("lock_timeout", "statement_timeout")


@dataclass(frozen=True)
class TimeoutChange:
    """What a statement does to one of the guarded settings."""

    #: The setting's name (for RESET ALL, both names joined with "and").
    setting: str
    #: The new value in milliseconds; None when the value goes back to a default.
    value_ms: int | None
    #: How, for people: ``SET``, ``SET LOCAL``, ``RESET``, ``set_config()``, ``ALTER ROLE ... SET``.
    how: str


def guc_ms(value: str) -> int | None:
    """A timeout value as PostgreSQL reads it (a bare number is milliseconds); None when the
    text is not a value the server would accept."""
    text = value.strip()
    try:
        number = decimal.Decimal(text)
    except decimal.InvalidOperation:
        try:
            return parse_duration(text, key="value")
        except ConfigError:
            return None
    if not number.is_finite() or number < 0:
        return None
    return int(number.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def _constant(node: Any) -> Any:
    """The A_Const value under ``node`` (through casts), or None."""
    while isinstance(node, ast.TypeCast):
        node = node.arg
    if isinstance(node, ast.A_Const) and not node.isnull:
        return node.val
    return None


def _value_ms(value: Any) -> int | None:
    if isinstance(value, ast.Integer):
        return int(value.ival or 0)
    if isinstance(value, ast.Float):
        return guc_ms(str(value.fval))
    if isinstance(value, ast.String):
        return guc_ms(str(value.sval))
    return None


def _of_set(stmt: Any, *, how: str, defaults_count: bool) -> Iterator[TimeoutChange]:
    """The changes of a VariableSetStmt (on its own, or inside ALTER ROLE/DATABASE/SYSTEM)."""
    kind = stmt.kind
    if kind == VariableSetKind.VAR_RESET_ALL:
        if defaults_count:
            yield TimeoutChange(" and ".join(GUARDED), None, "RESET ALL")
        return
    name = str(stmt.name or "").lower()
    if name not in GUARDED:
        return
    if kind in (VariableSetKind.VAR_RESET, VariableSetKind.VAR_SET_DEFAULT):
        if defaults_count:
            word = "RESET" if kind == VariableSetKind.VAR_RESET else f"{how} ... TO DEFAULT"
            yield TimeoutChange(name, None, word)
        return
    if kind != VariableSetKind.VAR_SET_VALUE or not stmt.args or len(stmt.args) != 1:
        return
    constant = _constant(stmt.args[0])
    value_ms = _value_ms(constant) if constant is not None else None
    if value_ms is not None:
        yield TimeoutChange(name, value_ms, how)


def _of_set_config(call: Any) -> TimeoutChange | None:
    """The change a ``set_config(name, value, is_local)`` call with constant arguments makes."""
    if not isinstance(call, ast.FuncCall):
        return None
    funcname, args = call.funcname or (), call.args or ()
    if not funcname or str(funcname[-1].sval).lower() != "set_config" or len(args) != 3:
        return None
    name, value = (_constant(a) for a in args[:2])
    if not isinstance(name, ast.String) or str(name.sval).lower() not in GUARDED:
        return None
    value_ms = _value_ms(value) if value is not None else None
    if value_ms is None:
        return None
    return TimeoutChange(str(name.sval).lower(), value_ms, "set_config()")


def timeout_changes(node: Any) -> list[TimeoutChange]:
    """What statement ``node`` (a pglast node) does to lock_timeout and statement_timeout."""
    if isinstance(node, ast.VariableSetStmt):
        how = "SET LOCAL" if node.is_local else "SET"
        return list(_of_set(node, how=how, defaults_count=True))
    for wrapper, how in (
        (ast.AlterRoleSetStmt, "ALTER ROLE ... SET"),
        (ast.AlterDatabaseSetStmt, "ALTER DATABASE ... SET"),
        (ast.AlterSystemStmt, "ALTER SYSTEM SET"),
    ):
        if isinstance(node, wrapper):
            # Back to the default of a role or database is the server's business, not a guard
            # of the run's: only explicit values are judged.
            return list(_of_set(node.setstmt, how=how, defaults_count=False))
    return [c for c in (_of_set_config(n) for n in walk(node)) if c is not None]


def refusal(change: TimeoutChange, max_lock_ms: int, max_statement_ms: int) -> str | None:
    """Why ``change`` switches the guard off or stretches it past its ceiling; None if fine.

    A ``max_statement_ms`` of 0 is no ceiling: any statement_timeout is fine (see
    :func:`unbounded_statement_timeout` for the warning ``check`` gives then).
    """
    if change.setting == "statement_timeout" and max_statement_ms == 0:
        return None
    if change.value_ms is None:
        return (
            f"{change.how} puts {change.setting} back to the server's default, which is "
            "usually 0 (no limit)"
        )
    if change.value_ms == 0:
        return f"{change.how} sets {change.setting} to 0: no limit at all"
    ceiling, key = (
        (max_lock_ms, "max_lock_timeout")
        if change.setting == "lock_timeout"
        else (max_statement_ms, "max_statement_timeout")
    )
    if change.value_ms > ceiling:
        return (
            f"{change.how} sets {change.setting} to {format_duration(change.value_ms)}, above "
            f"{key} ({format_duration(ceiling)})"
        )
    return None


def unbounded_statement_timeout(change: TimeoutChange) -> str | None:
    """Why ``change`` lifts statement_timeout when no ceiling is configured; None otherwise."""
    if change.setting != "statement_timeout" or (change.value_ms or 0) != 0:
        return None
    return (
        f"{change.how} lifts statement_timeout for the rest of the step (allowed: no "
        "max_statement_timeout is set)"
    )


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    for change in timeout_changes(node):
        why = refusal(change, ctx.ceilings.lock_ms, ctx.ceilings.statement_ms)
        if why is None:
            lifted = ctx.ceilings.statement_ms == 0 and unbounded_statement_timeout(change)
            if lifted:
                yield hit(
                    RULE,
                    f"{lifted}: the step may hold its locks for as long as it runs",
                    "give the step its timeout with -- safemigrate: statement-timeout=DUR; set "
                    "max_statement_timeout to have the runner refuse this",
                    severity="warning",
                )
            continue
        yield hit(
            RULE,
            f"{why}: it removes the guard safemigrate runs every step under",
            "give the step its timeout with -- safemigrate: lock-timeout=DUR (or "
            "statement-timeout=DUR); if the setting must change, allow it with the reason",
        )
