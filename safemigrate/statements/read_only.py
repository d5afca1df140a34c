"""Statements that would make the runner's transactions read-only. Pure: facts from
PostgreSQL's own parse tree (pglast), no I/O.

Every step's journal row is written in the step's own transaction (or, for an autocommit
statement, in the round trip after it), so the runner can record a step only in a read-write
transaction, and a transaction cannot go back to read-write once a query has run in it
(``transaction read-write mode must be set before any query``, check_transaction_read_only
in src/backend/commands/variable.c). A migration that makes the session's later transactions
read-only (``SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY``, ``SET
default_transaction_read_only = on``, ``set_config`` or an ``UPDATE pg_settings`` of it) or its
own transaction read-only (``SET TRANSACTION READ ONLY``, ``SET transaction_read_only``,
``BEGIN READ ONLY``) would make the journal write of that or of every later step fail with
25006. Such a statement is refused before anything runs, at its file and line (issue 21,
review 21f F3); the replay of an applied history leaves these settings out
(``session_state.READ_ONLY_SETTINGS``), so a history applied before this refusal existed never
wedges a rerun. ``... = off`` (pg_dumpall writes ``SET default_transaction_read_only = off``)
and RESET are accepted. A function or procedure body is not judged where it is created: it
runs only where it is called, possibly outside the migrations.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pglast import ast, enums
from pglast.stream import RawStream

from ..core.errors import MigrationFileError
from ..lint.context import walk
from ..lint.plpgsql import do_block_sql, parsed_queries
from . import pg_settings_writes
from .parsed import tree_of

if TYPE_CHECKING:
    from ..core.model import Migration, Step

#: The settings that make a transaction read-only: the session's default for later
#: transactions, and the current transaction's own.
SETTINGS = frozenset({"default_transaction_read_only", "transaction_read_only"})
#: The option of SET SESSION CHARACTERISTICS / SET TRANSACTION / BEGIN that READ ONLY gives.
_OPTION = "transaction_read_only"
#: The values the server's parse_bool reads as false (src/backend/utils/adt/bool.c: a unique
#: prefix of false, no, off, and 0).
_FALSE = frozenset({"f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0"})


def _may_be_on(node: Any) -> bool:
    """True unless ``node`` is a constant the server reads as false."""
    while isinstance(node, ast.TypeCast):
        node = node.arg
    if isinstance(node, ast.A_Const):
        val = node.val
        if isinstance(val, ast.Integer):
            return bool(val.ival)
        if isinstance(val, ast.Boolean):
            return bool(val.boolval)
        if isinstance(val, ast.String):
            return str(val.sval).strip().lower() not in _FALSE
    return True


def _constant_name(node: Any) -> str | None:
    name = pg_settings_writes.folded_string(node)
    return None if name is None else name.strip().lower()


def _options_read_only(options: Iterable[Any] | None) -> bool:
    return any(
        isinstance(o, ast.DefElem) and o.defname == _OPTION and _may_be_on(o.arg)
        for o in options or ()
    )


def _part(node: Any) -> str:
    return str(RawStream()(node))


def _variable_set(node: Any) -> bool:
    kind = node.kind
    if kind == enums.VariableSetKind.VAR_SET_MULTI:
        return node.name in ("SESSION CHARACTERISTICS", "TRANSACTION") and _options_read_only(
            node.args
        )
    if str(node.name or "").lower() not in SETTINGS or kind != enums.VariableSetKind.VAR_SET_VALUE:
        return False  # RESET and DEFAULT go back to the session's own default
    return any(_may_be_on(arg) for arg in node.args or ())


def _set_config(node: Any) -> bool:
    names = [str(part.sval).lower() for part in node.funcname or ()]
    if names not in (["set_config"], ["pg_catalog", "set_config"]):
        return False
    args = tuple(node.args or ())
    # A name known only when it runs is the unknown-setting case of session_state.
    return len(args) == 3 and _constant_name(args[0]) in SETTINGS and _may_be_on(args[1])


def _settings_write(node: Any) -> bool:
    for write in pg_settings_writes.writes_in(node):
        if write.names is None or not SETTINGS & set(write.names) or write.kind == "null":
            continue
        if write.kind == "unknown" or write.value.strip().lower() not in _FALSE:
            return True
    return False


def read_only_change(node: Any, text: str) -> str | None:
    """The part of the statement ``node`` (its source ``text``) that makes the session's later
    transactions, or its own, read-only, directly, through set_config or a write to
    pg_settings, or inside a DO block; None when it leaves them read-write."""
    if isinstance(node, ast.DoStmt):
        for inner, query in parsed_queries(do_block_sql(text)):
            found = read_only_change(inner, query)
            if found is not None:
                return f"{found} inside a DO block"
        return None
    if isinstance(node, ast.CreateFunctionStmt):
        return None  # its body runs where it is called (see the module's doc)
    if isinstance(node, ast.VariableSetStmt):
        return _part(node) if _variable_set(node) else None
    if isinstance(node, ast.TransactionStmt):
        begins = (
            enums.TransactionStmtKind.TRANS_STMT_BEGIN,
            enums.TransactionStmtKind.TRANS_STMT_START,
        )
        return _part(node) if node.kind in begins and _options_read_only(node.options) else None
    lowered = text.lower()
    if "set_config" in lowered:
        for sub in walk(node):
            if isinstance(sub, ast.FuncCall) and _set_config(sub):
                return _part(sub)
    if "pg_settings" in lowered and _settings_write(node):
        return " ".join(text.split())
    return None


def refusal_message(change: str) -> tuple[str, str]:
    """The one-line message and the hint of the refusal of ``change``."""
    return (
        f"refused: {change} would make the runner's transactions read-only, and safemigrate "
        "records each step in its own transaction: the journal write would fail (25006)",
        "remove the statement: a migration changes the database, and the runner keeps its "
        "sessions read-write",
    )


def refuse_read_only(steps: Sequence[tuple[Migration, Step]]) -> None:
    """Raise MigrationFileError (exit 2, file:line) for the first statement of ``steps`` (the
    pending ones, in run order) that would make the runner's transactions read-only."""
    for migration, step in steps:
        for statement in step.statements:
            if "read" not in statement.text.lower():
                continue  # cheap first: every form names READ ONLY or *_read_only
            node = tree_of(statement)
            if node is None:
                continue
            found = read_only_change(node, statement.text)
            if found is not None:
                message, hint = refusal_message(found)
                raise MigrationFileError(
                    str(migration.path), message, line=statement.line, hint=hint
                )
