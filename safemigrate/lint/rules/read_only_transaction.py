"""read-only-transaction: a migration that makes the runner's transactions read-only.

The judgement is ``statements.read_only``'s, the one ``up`` refuses such a statement by (exit
2, whatever ``lint_gate`` says), so that ``check`` reports in CI what ``up`` would refuse.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...statements.read_only import read_only_change, refusal_message
from ..context import StatementContext
from ..findings import Hit, hit, make_rule

DOC = """
Catches: (an error) a statement that makes the session's later transactions, or its own,
read-only: `SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY`, `SET
default_transaction_read_only = on`, `SET transaction_read_only = on`, `SET TRANSACTION READ
ONLY`, `BEGIN READ ONLY`, `set_config('default_transaction_read_only', 'on', ...)` (or of
`transaction_read_only`) and an `UPDATE pg_settings` of either, also inside a DO block (reported
at the DO statement's line). A value the server reads as false (`off`, `false`, `0`, ...),
`READ WRITE`, `RESET` and `DEFAULT` are fine: pg_dumpall writes `SET
default_transaction_read_only = off`. No allow comment suppresses it. Not judged: a function
body (it runs where it is called), SQL built at run time, and `ALTER ROLE/DATABASE ... SET
default_transaction_read_only` (a default for other sessions).

Why it hurts: safemigrate writes each step's journal row in the step's own transaction (an
autocommit statement's right after it), and a transaction cannot go back to read-write once a
query ran in it. Run, the statement makes that write, or the next step's, fail with SQLSTATE
25006 (read_only_sql_transaction) and stops the run half-way.

`safemigrate up` refuses such a statement in a pending step before applying anything (exit 2,
at its file and line), whatever `lint_gate` says; the replay of an applied history leaves these
settings out, so a history applied before the refusal existed does not wedge a rerun.

Instead: remove the statement. A migration changes the database; to make a role read-only for
reporting, use `ALTER ROLE ... SET default_transaction_read_only = on`, which applies to that
role's new sessions only.

Applies to: every PostgreSQL version.
Source: PostgreSQL docs, SET TRANSACTION ("The transaction access mode determines whether the
transaction is read/write or read-only"; "SET SESSION CHARACTERISTICS sets the default
transaction characteristics for subsequent transactions of a session"); source,
check_transaction_read_only in src/backend/commands/variable.c ("transaction read-write mode
must be set before any query").
"""

RULE = make_rule(
    "read-only-transaction",
    "error",
    "a statement that makes the runner's transactions read-only",
    DOC,
)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    # The SQL of a DO block is judged with the DO statement (as up judges it); a called
    # function's body, which the walker lints like a DO block's, is not judged (as up).
    if ctx.in_do or "read" not in ctx.text.lower():
        return  # cheap first: every form names READ ONLY or *_read_only
    found = read_only_change(node, ctx.text)
    if found is None:
        return
    message, hint = refusal_message(found)
    yield hit(RULE, message.removeprefix("refused: "), hint, suppressible=False)
