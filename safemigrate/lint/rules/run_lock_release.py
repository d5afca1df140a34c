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
  migration releases a lock it took itself with `pg_advisory_lock` on its own key. A key
  written as a constant in safemigrate's own namespace (the run lock's first key,
  1526651649 or 0x5AFEDB01, in the two-int form; as the high half of the bigint form) is the
  runner's, not the migration's: no allow comment suppresses it;
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


#: The run lock's first key (db.runlock.NAMESPACE_KEY: the lint layer does not import db;
#: a unit test holds the two equal). Every safemigrate lock has it, each journal its second.
RUN_LOCK_NAMESPACE = 0x5AFE_DB01


def _constant_int(node: Any) -> int | None:
    """The integer a constant argument is (a literal, a quoted one, a cast of one, a sign
    before one, a hex bit string cast to int); None for anything computed."""
    if isinstance(node, ast.TypeCast):
        return _constant_int(node.arg)
    if isinstance(node, ast.A_Expr) and node.lexpr is None and node.name:
        sign = str(node.name[-1].sval)
        value = _constant_int(node.rexpr)
        if value is None or sign not in ("+", "-"):
            return None
        return -value if sign == "-" else value
    if not isinstance(node, ast.A_Const) or node.isnull:
        return None
    val: Any = node.val
    if isinstance(val, ast.Integer):
        return int(val.ival or 0)  # pglast leaves 0 out: None
    if isinstance(val, ast.BitString) and str(val.bsval).lower().startswith("x"):
        text, base = str(val.bsval)[1:], 16
    elif isinstance(val, ast.Float):
        text, base = str(val.fval), 10
    elif isinstance(val, ast.String):
        text, base = str(val.sval).strip(), 10
    else:
        return None
    try:
        return int(text, base)
    except ValueError:
        return None


def _runner_key(args: Any) -> bool:
    """True when an unlock's arguments are a constant key in safemigrate's namespace: the
    two-int form's first key, or the bigint form's high half (PostgreSQL docs, 9.28.10
    Advisory Lock Functions; the two forms are distinct lock spaces, and the bigint one
    cannot release the run lock, but it names the runner's keys all the same)."""
    values = [_constant_int(a) for a in args or ()]
    if len(values) == 2:
        return values[0] == RUN_LOCK_NAMESPACE
    return len(values) == 1 and values[0] is not None and values[0] >> 32 == RUN_LOCK_NAMESPACE


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
    runner: dict[str, None] = {}
    for child in walk(node):
        if isinstance(child, ast.FuncCall) and child.funcname:
            name = str(child.funcname[-1].sval).lower()
            if name in _BY_KEY and _runner_key(child.args):
                runner.setdefault(name)
            elif name == _ALL or name in _BY_KEY:
                called.setdefault(name)
    for name in runner:
        yield hit(
            RULE,
            f"{name}() of a key in safemigrate's own namespace ({RUN_LOCK_NAMESPACE}, the run "
            "lock's first key): the lock is the runner's, not the migration's, and a second "
            "run could start applying while this one still runs",
            f"{_HINT}, on a key of the migration's own",
            suppressible=False,
        )
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
