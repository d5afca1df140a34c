"""self-termination: a migration that ends or cancels the runner's own backend.

The runner refuses such a statement in a pending step (exit 2), whatever ``lint_gate`` says
(see ``safemigrate.planning.timeout_guard``), as it refuses ``run-lock-release``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast
from pglast.enums import SubLinkType

from ..context import StatementContext, walk
from ..findings import Hit, hit, make_rule

DOC = """
Catches: (an error) `pg_terminate_backend(pg_backend_pid())` and
`pg_cancel_backend(pg_backend_pid())` anywhere in a statement (DO blocks and the PL/pgSQL or
LANGUAGE sql functions the file (or an earlier one; with a database, the database too) creates
and calls, or fires as triggers,
included): the
migration signals the very session safemigrate applies it on. No allow comment suppresses it.
The argument is followed through casts, a scalar subquery (`(SELECT pg_backend_pid())`) and the
columns of a WITH query or a subquery in FROM that hold it (`WITH me AS (SELECT pg_backend_pid()
p) SELECT pg_terminate_backend(p) FROM me`). A pid read from a table or from pg_stat_activity,
or from a PL/pgSQL variable, is not recognised: it cannot be told apart from another session's.

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


#: A column of a WITH query or FROM subquery: (its relation's name or alias, column name).
Column = tuple[str, str]


def _own_pid(expr: Any, columns: set[Column]) -> bool:
    """True when ``expr`` is the runner's own pid: ``pg_backend_pid()``, through casts, a scalar
    subquery whose one output is it, or a column (of ``columns``) that holds it."""
    while isinstance(expr, ast.TypeCast):
        expr = expr.arg
    if isinstance(expr, ast.FuncCall):
        return _name(expr) == _OWN_PID and not expr.args
    if isinstance(expr, ast.SubLink):
        select = expr.subselect
        targets = (select.targetList or ()) if isinstance(select, ast.SelectStmt) else ()
        return (
            expr.subLinkType == SubLinkType.EXPR_SUBLINK
            and len(targets) == 1
            and _own_pid(targets[0].val, columns)
        )
    if isinstance(expr, ast.ColumnRef):
        names = [str(f.sval) for f in expr.fields or () if isinstance(f, ast.String)]
        if not names or len(names) != len(expr.fields or ()):
            return False  # a * or an indirection
        if len(names) == 1:
            return any(column == names[0] for _, column in columns)
        return (names[-2], names[-1]) in columns
    return False


def _output_name(target: Any) -> str | None:
    """The column name PostgreSQL gives a select-list entry (parse_target.c FigureColname, for
    the forms _own_pid follows)."""
    if target.name:
        return str(target.name)
    expr = target.val
    while isinstance(expr, ast.TypeCast):
        expr = expr.arg
    if isinstance(expr, ast.FuncCall):
        return _name(expr)
    if isinstance(expr, ast.ColumnRef) and expr.fields and isinstance(expr.fields[-1], ast.String):
        return str(expr.fields[-1].sval)
    if isinstance(expr, ast.SubLink) and isinstance(expr.subselect, ast.SelectStmt):
        inner = expr.subselect.targetList or ()
        return _output_name(inner[0]) if len(inner) == 1 else None
    return None


def _pid_columns(node: Any) -> set[Column]:
    """The columns of the WITH queries and FROM subqueries in ``node`` that hold the runner's own
    pid, under their names and the aliases they are read by (one query may read another's)."""
    sources: list[tuple[str, Any, tuple[Any, ...]]] = []
    aliases: dict[str, set[str]] = {}
    for child in walk(node):
        if isinstance(child, ast.CommonTableExpr) and isinstance(child.ctequery, ast.SelectStmt):
            sources.append((str(child.ctename), child.ctequery, child.aliascolnames or ()))
        elif isinstance(child, ast.RangeSubselect) and isinstance(child.subquery, ast.SelectStmt):
            alias = child.alias
            name = str(alias.aliasname) if alias is not None else ""
            sources.append((name, child.subquery, (alias.colnames or ()) if alias else ()))
        elif isinstance(child, ast.RangeVar) and child.alias is not None:
            aliases.setdefault(str(child.relname), set()).add(str(child.alias.aliasname))
    columns: set[Column] = set()
    grown = True
    while grown:  # until no query's column is found to read another's
        grown = False
        for name, select, colnames in sources:
            for index, target in enumerate(select.targetList or ()):
                if not isinstance(target, ast.ResTarget) or not _own_pid(target.val, columns):
                    continue
                column = str(colnames[index].sval) if index < len(colnames) else None
                column = column or _output_name(target)
                if column is None:
                    continue
                for relation in (name, *aliases.get(name, ())):
                    if (relation, column) not in columns:
                        columns.add((relation, column))
                        grown = True
    return columns


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if ctx.text and _OWN_PID not in ctx.text.lower():
        return  # cheap first: no call can target the runner's own backend
    columns = _pid_columns(node)
    called: dict[str, bool] = {}
    for child in walk(node):
        if isinstance(child, ast.FuncCall) and _name(child) in _EFFECTS and child.args:
            first = child.args[0]
            if _own_pid(first, columns):
                direct = isinstance(first, ast.FuncCall)
                called[_name(child)] = called.get(_name(child), True) and direct
    for name, direct in called.items():
        written = f"{name}(pg_backend_pid())" if direct else f"{name}() of pg_backend_pid()"
        yield hit(
            RULE,
            f"{written} {_EFFECTS[name]}",
            "remove it; to stop a blocking session, target its pid, never pg_backend_pid()",
            suppressible=False,
        )
