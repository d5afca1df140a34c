"""The search_path each statement runs with, as the runner's session will have it (issue 20
review F2).

The runner applies a run's steps on one session, which keeps its settings from file to file
(and replays the applied history's on every new session: session_state), so a ``SET
search_path`` or ``set_config('search_path', ..., false)`` in one file decides where the
unqualified names of every later file resolve. The linter follows it:

- ``SET search_path = a, b`` (``SET SCHEMA``) and ``set_config('search_path', 'a, b', false)``
  with constant values, outside a DO block or function: names resolve through ``a, b`` in
  order (the first schema that holds the relation, else the first schema, where CREATE puts
  it), for the rest of the file and in the later files.
- Whatever the linter cannot know: a search_path set inside a DO block or a function (it may
  be conditional), ``SET LOCAL`` or ``set_config(..., true)`` (transaction-local), a value or
  setting name that is not a constant, an empty path, a call to a function whose body may set
  it (created by the migrations, or one of the database's whose source mentions
  ``search_path`` or ``set_config``), and, against a database, ``RESET`` / ``SET ... TO
  DEFAULT`` / ``RESET ALL`` (back to the connection's default, which the gate did not read):
  unqualified names then resolve to a schema of their own (:data:`UNKNOWN_PREFIX`), which
  holds no existing relation and no size. Every rule judges such a name as an existing table
  of unknown, so large, size; never as the table a run created earlier. A table created while
  the path is unknown is new under it (CREATE puts it first in the path, where a later name
  finds it) until the path changes again.
- ``SET ROLE`` / ``RESET ROLE`` / ``SET SESSION AUTHORIZATION`` (and set_config of ``role`` or
  ``session_authorization``): the search_path's ``"$user"`` names the new role, whose schema
  may hold a table of the same name (issue 20 review F2, SET ROLE): unknown from there on (for
  ``SET LOCAL ROLE`` in a transaction block, until the block ends), whatever path was set.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from pglast import ast, enums, parse_sql
from pglast.parser import ParseError

from .catalog import DEFAULT_SCHEMA
from .context import walk
from .plpgsql import function_body_sql

if TYPE_CHECKING:
    from .context import FileState, StatementContext

#: The schema of unqualified names while the search_path is not known (a ``?`` keeps it apart
#: from any schema name a migration writes without quotes); numbered, once per change.
UNKNOWN_PREFIX = "?search_path"
_unknown = itertools.count(1)
#: Path entries that never hold a migration's relations.
_SKIPPED = frozenset({"$user", "pg_catalog", "pg_temp"})
_SET = enums.VariableSetKind
#: Settings that change the role "$user" in the search_path names (SET ROLE, SET SESSION
#: AUTHORIZATION; docs: SET ROLE, 5.9.3 The Schema Search Path).
_ROLE_SETTINGS = frozenset({"role", "session_authorization"})


def is_unknown(schema: str | None) -> bool:
    """True for the schema unqualified names resolve to while the search_path is unknown."""
    return bool(schema) and str(schema).startswith(UNKNOWN_PREFIX)


def path_of_value(value: str) -> tuple[str, ...] | None:
    """The schemas of a search_path value as set_config takes it (``app, "My Schema"``): a
    comma-separated list of identifiers, double-quoted ones as written, others folded to
    lower case (varlena.c SplitIdentifierString); None when it does not split."""
    names: list[str] = []
    rest = value.strip()
    while rest:
        if rest.startswith('"'):
            end = 1
            name = ""
            while True:
                close = rest.find('"', end)
                if close < 0:
                    return None
                name += rest[end:close]
                if rest[close + 1 : close + 2] == '"':
                    name += '"'
                    end = close + 2
                    continue
                rest = rest[close + 1 :].strip()
                break
        else:
            comma = rest.find(",")
            name = (rest if comma < 0 else rest[:comma]).strip().lower()
            rest = "" if comma < 0 else rest[comma:]
            if not name or '"' in name:
                return None
        names.append(name)
        if rest.startswith(","):
            rest = rest[1:].strip()
            if not rest:
                return None
        elif rest:
            return None
    return tuple(names)


def set_path(state: FileState, path: tuple[str, ...] | None) -> None:
    """Unqualified names resolve through ``path`` from now on (unknown when None or when it
    names no schema a relation can be in)."""
    schemas = tuple(s for s in path or () if s not in _SKIPPED)
    if not schemas:
        set_unknown(state)
        return
    state.search_path = schemas
    state.search_path_schema = schemas[0]


def set_unknown(state: FileState) -> None:
    """The search_path is not known from here on (see the module's doc)."""
    state.search_path = None
    state.search_path_schema = f"{UNKNOWN_PREFIX}{next(_unknown)}"


def _constant(node: Any) -> Any:
    """The value of a constant (a string, boolean or number; a cast of one), else None."""
    if isinstance(node, ast.TypeCast):
        return _constant(node.arg)
    if isinstance(node, ast.A_Const) and node.val is not None:
        val = node.val
        if isinstance(val, ast.String):
            return str(val.sval)
        if isinstance(val, ast.Boolean):
            return bool(val.boolval)
        if isinstance(val, ast.Integer):
            return int(val.ival or 0)
    return None


def _called_name(node: Any) -> str | None:
    funcname: Any = node.funcname if isinstance(node, ast.FuncCall) else None
    if not funcname:
        return None
    last = funcname[-1]
    return str(last.sval).lower() if isinstance(last, ast.String) else None


_FALSE = frozenset({"f", "false", "n", "no", "off", "0"})
_TRUE = frozenset({"t", "true", "y", "yes", "on", "1"})


#: What a statement does to the search_path: a known path; UNKNOWN; DEFAULT (RESET).
Change = tuple[str, ...] | str
UNKNOWN = "unknown"
DEFAULT = "default"


def _set_config(call: Any) -> tuple[Change, bool] | None:
    """What a set_config call does to the search_path and whether only for its transaction
    (``is_local`` true); None when it sets another setting."""
    args = list(call.args or ())
    if len(args) != 3:
        return UNKNOWN, False
    name, value, local = (_constant(a) for a in args)
    setting = name.strip().lower() if isinstance(name, str) else None
    if setting is not None and setting != "search_path" and setting not in _ROLE_SETTINGS:
        return None
    lowered = local.strip().lower() if isinstance(local, str) else local
    if lowered in (True, 1, *_TRUE):
        is_local = True
    elif lowered in (False, 0, *_FALSE):
        is_local = False
    else:
        return UNKNOWN, False
    if setting in _ROLE_SETTINGS:
        return UNKNOWN, is_local  # "$user" now names another role (issue 20 review F2)
    if not isinstance(name, str) or not isinstance(value, str):
        return UNKNOWN, False
    path = path_of_value(value)
    return (UNKNOWN if path is None else path), is_local


def sets_search_path(tree: Any) -> bool:
    """True when running ``tree`` may change the search_path (a SET of it or of the role, a
    set_config that may name it, RESET ALL)."""
    for node in walk(tree):
        if isinstance(node, ast.VariableSetStmt) and (
            node.name == "search_path"
            or node.name in _ROLE_SETTINGS
            or node.kind == _SET.VAR_RESET_ALL
        ):
            return True
        if _called_name(node) == "set_config" and _set_config(node) is not None:
            return True
    return False


def _body_sets_search_path(node: Any, text: str) -> bool:
    """True when the body of the routine a CREATE FUNCTION / PROCEDURE makes may set the
    search_path when called (PL/pgSQL and SQL bodies read; another language's, when its
    text mentions it)."""
    options = {str(o.defname): o.arg for o in node.options or () if isinstance(o, ast.DefElem)}
    language = str(getattr(options.get("language"), "sval", "sql")).lower()
    if node.sql_body is not None:
        return sets_search_path(node.sql_body)
    source = options.get("as")
    body = getattr(source[0], "sval", None) if isinstance(source, list | tuple) else None
    if not isinstance(body, str):
        return False
    lowered = body.lower()
    if not any(word in lowered for word in ("search_path", "set_config", "role", "authorization")):
        return False
    if language == "plpgsql":
        for query in function_body_sql(text):
            try:
                if any(sets_search_path(s.stmt) for s in parse_sql(query)):
                    return True
            except ParseError:
                return True
        return False
    if language == "sql":
        try:
            return any(sets_search_path(s.stmt) for s in parse_sql(body))
        except ParseError:
            return True
    return True


def _variable_set(node: Any) -> tuple[Change, bool] | None:
    """What a SET / RESET does to the search_path and whether only for its transaction (SET
    LOCAL); None when it is about another setting."""
    if node.name in _ROLE_SETTINGS:
        # "$user" in the path now names another role (issue 20 review F2, SET ROLE).
        return UNKNOWN, bool(node.is_local)
    if node.name != "search_path" and node.kind != _SET.VAR_RESET_ALL:
        return None
    if node.kind in (_SET.VAR_SET_DEFAULT, _SET.VAR_RESET, _SET.VAR_RESET_ALL):
        return DEFAULT, bool(node.is_local)
    if node.kind != _SET.VAR_SET_VALUE:
        return UNKNOWN, False
    values = [_constant(a) for a in node.args or ()]
    if not all(isinstance(v, str) for v in values):
        return UNKNOWN, False
    return tuple(str(v) for v in values), bool(node.is_local)


def end_of_transaction(state: FileState, tx_id: int | None) -> None:
    """Back to the search_path from before a SET LOCAL once its transaction is over (a
    statement of another transaction runs; ``tx_id`` None: the file ends)."""
    saved = state.local_search_path
    if saved is not None and saved[0] != tx_id:
        state.local_search_path = None
        state.search_path_schema, state.search_path = saved[1], saved[2]


def _apply(change: Change, is_local: bool, ctx: StatementContext) -> None:
    state = ctx.state
    if ctx.in_do:
        set_unknown(state)  # a DO block or a function may set it or not: not known
        return
    if is_local:
        if not ctx.tx.is_block:
            return  # its own step: the transaction ends with the statement
        if state.local_search_path is None:
            saved = (ctx.tx.id, state.search_path_schema, state.search_path)
            state.local_search_path = saved
    if change == DEFAULT:
        if state.catalog.live:
            set_unknown(state)  # the connection's default: not read
        else:
            state.search_path = None
            state.search_path_schema = DEFAULT_SCHEMA
    elif change == UNKNOWN or isinstance(change, str):
        set_unknown(state)
    else:
        set_path(state, change)


def follow(node: Any, ctx: StatementContext) -> None:
    """Update the state's search_path with what ``node`` does to it (after the rules)."""
    state = ctx.state
    catalog = state.catalog
    if not ctx.in_do:
        end_of_transaction(state, ctx.tx.id)
    if isinstance(node, ast.CreateFunctionStmt):
        if node.funcname and _body_sets_search_path(node, ctx.text):
            catalog.path_functions.add(str(node.funcname[-1].sval).lower())
        return
    if isinstance(node, ast.VariableSetStmt):
        found = _variable_set(node)
        if found is not None:
            _apply(*found, ctx)
        return
    text = ctx.text.lower()
    if "set_config" not in text and not catalog.path_functions:
        return
    for child in walk(node):
        called = _called_name(child)
        if called == "set_config":
            found = _set_config(child)
            if found is not None:
                _apply(*found, ctx)
        elif called is not None and called in catalog.path_functions:
            set_unknown(state)
