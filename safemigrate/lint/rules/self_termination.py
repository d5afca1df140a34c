"""self-termination: a migration that ends or cancels the runner's own backend.

The runner refuses such a statement in a pending step (exit 2), whatever ``lint_gate`` says
(see ``safemigrate.planning.timeout_guard``), as it refuses ``run-lock-release``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ..context import StatementContext, walk
from ..findings import Hit, hit, make_rule

DOC = """
Catches: (an error) `pg_terminate_backend(pg_backend_pid())` and
`pg_cancel_backend(pg_backend_pid())` anywhere in a statement (DO blocks and the PL/pgSQL or
LANGUAGE sql functions the file (or an earlier one) creates and calls, or fires as triggers,
included): the
migration signals the very session safemigrate applies it on. No allow comment suppresses it.
Only a direct `pg_backend_pid()` argument is recognised: a pid read from a table or from
pg_stat_activity cannot be told apart from another session's.

Why it hurts: terminating the runner's backend ends its session, so the step fails with a lost
connection and the run lock that session held is released with it; cancelling it fails the
statement with SQLSTATE 57014 (query_canceled). Either way the step cannot succeed: a
terminate fails it on every attempt until `max_attempts` is spent (exit 6), a cancel fails it
as a cancelled statement; nothing of the step is applied.

`safemigrate up` refuses such a statement in a pending step before applying anything (exit 2),
whatever `lint_gate` says.

Instead: remove the call. To stop a session that blocks the migration, target its pid (from
pg_stat_activity or pg_locks, `WHERE pid <> pg_backend_pid()`), or let safemigrate's lock
timeout and retries wait for it.

Applies to: every PostgreSQL version.
Source: PostgreSQL docs, 9.28.2 Server Signaling Functions (pg_cancel_backend: "Cancels the
current query of the session whose backend process has the specified process ID";
pg_terminate_backend: "Terminates the session whose backend process has the specified process
ID"), 9.26 System Information Functions (pg_backend_pid: "the process ID of the server process
attached to the current session").
"""

RULE = make_rule(
    "self-termination",
    "error",
    "pg_terminate_backend(pg_backend_pid()) or pg_cancel_backend(pg_backend_pid())",
    DOC,
)

#: What each signalling function does to the session it targets.
_EFFECTS = {
    "pg_terminate_backend": "ends the session safemigrate applies it on, its run lock with "
    "it: the step fails on every attempt until max_attempts is spent",
    "pg_cancel_backend": "cancels the statement safemigrate is running (SQLSTATE 57014): the "
    "step fails on every attempt",
}
_OWN_PID = "pg_backend_pid"


def _name(call: ast.FuncCall) -> str:
    """The function's own name, lower case, without its schema."""
    return str(call.funcname[-1].sval).lower() if call.funcname else ""


def _targets_itself(call: ast.FuncCall) -> bool:
    """True when the first argument is a call of pg_backend_pid() itself."""
    if not call.args:
        return False
    first = call.args[0]
    return isinstance(first, ast.FuncCall) and _name(first) == _OWN_PID


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if ctx.text and _OWN_PID not in ctx.text.lower():
        return  # cheap first: no call can target the runner's own backend
    called: dict[str, None] = {}
    for child in walk(node):
        if isinstance(child, ast.FuncCall) and _name(child) in _EFFECTS and _targets_itself(child):
            called.setdefault(_name(child))
    for name in called:
        yield hit(
            RULE,
            f"{name}(pg_backend_pid()) {_EFFECTS[name]}",
            "remove it; to stop a blocking session, target its pid, never pg_backend_pid()",
            suppressible=False,
        )
