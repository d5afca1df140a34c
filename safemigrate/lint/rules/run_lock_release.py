"""run-lock-release: a migration that releases advisory locks, the runner's run lock included.

The runner refuses such a statement in a pending step (exit 2), whatever ``lint_gate`` says
(see ``safemigrate.planning.timeout_guard``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, walk
from ..findings import Hit, hit, make_rule

DOC = """
Catches: (an error) a statement that releases session-level advisory locks:
- `pg_advisory_unlock_all()` anywhere in a statement (DO blocks and the PL/pgSQL or LANGUAGE
  sql functions the file (or an earlier one; with a database, the database too) creates and
  calls, fires as triggers, or binds
  to an operator, an aggregate, a cast, an event trigger, a type's I/O or support function
  or an operator class's or family's FUNCTION item, reported at that CREATE,
  included): it releases
  every session advisory lock, the run lock safemigrate holds for the whole run among them.
  No allow comment suppresses it;
- `pg_advisory_unlock(...)` and `pg_advisory_unlock_shared(...)` of any key: the key may be
  the run lock's (computed keys cannot be told apart); allowed with a reason when the
  migration releases a lock it took itself with `pg_advisory_lock` on its own key;
- `DISCARD ALL`: it releases every advisory lock, resets every session setting (the runner's
  timeouts too) and drops the session's prepared statements and temporary tables. No allow
  comment suppresses it. It cannot run in a transaction block either (SQLSTATE 25001).

Why it hurts: safemigrate holds a session-level advisory lock (the run lock) from the start of
a run to its end, so that two runs never apply migrations to one database at once. A migration
that releases it lets a second `up` start while the first is still applying: both resume the
same steps, and a constraint recipe or a batched change can be cleaned up or applied twice.

`safemigrate up` refuses such a statement in a pending step before applying anything (exit 2),
whatever `lint_gate` says; `pg_advisory_unlock(...)` passes only with
`-- safemigrate: allow run-lock-release -- <reason>`. The runner also checks before every step
that it still holds the run lock.

Instead: release only the locks the migration takes, with the transaction-level
`pg_advisory_xact_lock(key)`, which is released at the end of its step without an unlock.
Leave session state alone: safemigrate resets what it set itself.

Applies to: every PostgreSQL version.
Source: PostgreSQL docs, 9.28.10 Advisory Lock Functions (pg_advisory_unlock_all: "Releases
all session-level advisory locks held by the current session"), DISCARD ("DISCARD ALL ...
cannot be executed inside a transaction block"; it runs, among others, SELECT
pg_advisory_unlock_all() and RESET ALL).
"""

RULE = make_rule(
    "run-lock-release",
    "error",
    "pg_advisory_unlock_all(), pg_advisory_unlock(...) or DISCARD ALL: the run lock released",
    DOC,
)

#: Functions that release session-level advisory locks by key (not the _xact_ ones, which
#: release nothing: transaction-level locks go at commit).
_BY_KEY = frozenset({"pg_advisory_unlock", "pg_advisory_unlock_shared"})
_ALL = "pg_advisory_unlock_all"
_HINT = (
    "take the migration's own lock with pg_advisory_xact_lock(key), released at the end of "
    "its step without an unlock"
)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if isinstance(node, ast.DiscardStmt) and node.target == enums.DiscardMode.DISCARD_ALL:
        yield hit(
            RULE,
            "DISCARD ALL releases every advisory lock (the run lock safemigrate holds for the "
            "whole run among them) and resets the session's settings, the runner's timeouts "
            "included",
            "remove it: safemigrate resets what it set itself; DISCARD PLANS, SEQUENCES or "
            "TEMP release no lock",
            suppressible=False,
        )
        return
    if ctx.text and "advisory_unlock" not in ctx.text.lower():
        return  # cheap first: no call of an unlock function can be in the text
    called: dict[str, None] = {}
    for child in walk(node):
        if isinstance(child, ast.FuncCall) and child.funcname:
            name = str(child.funcname[-1].sval).lower()
            if name == _ALL or name in _BY_KEY:
                called.setdefault(name)
    for name in called:
        if name == _ALL:
            yield hit(
                RULE,
                f"{name}() releases every session advisory lock, the run lock safemigrate "
                "holds for the whole run among them: a second run could start applying "
                "while this one still runs",
                _HINT,
                suppressible=False,
            )
        else:
            yield hit(
                RULE,
                f"{name}() releases a session advisory lock, and its key may be the run "
                "lock's: a second run could start applying while this one still runs",
                f"{_HINT}; if the key is the migration's own, allow it with the reason",
            )
