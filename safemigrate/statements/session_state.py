"""The session state migrations leave for their later statements, and what a new session must
do to be in the same state. Pure: facts from PostgreSQL's own parse tree (pglast), no I/O.

Statements may change the session they run on for every statement after them: its settings
(``SET``, ``SET ... TO DEFAULT``, ``RESET``, ``RESET ALL``, ``SET ROLE``, ``SET SESSION
AUTHORIZATION``, ``SET TIME ZONE``, ``SET SCHEMA``, ``SET NAMES``, ``SET SESSION
CHARACTERISTICS``, ``LOAD``, ``set_config(name, value, false)``, ``DISCARD ALL``), and what lives
as long as the session (temporary tables, views and sequences, prepared statements, ``LISTEN``,
cursors ``WITH HOLD``, session advisory locks). ``EXECUTE`` of a prepared statement makes what
its query makes; a use of an operator, aggregate or cast the migrations create is a call of the
functions it binds.

What a new session gets (see :class:`SessionState`): the settings that every step ``up``
applied changed, in journal order, as if the whole history had run in one session (as psql
runs a fresh build); so a reconnection and a rerun after a crash set up exactly the state the
interrupted step started with, by construction. Settings are folded, never interpreted: a
change superseded by a later one of the same setting (or a later ``RESET ALL``) is dropped, the
rest is replayed in its order, and role changes stay where they were, so every replayed
statement runs in the same role as it first did. lock_timeout and statement_timeout are the
runner's own and never replayed. What lives in the session cannot be replayed: a new session
that lacks some of it refuses to run a step that could depend on it (:meth:`SessionState.
refusal`). What is lost is read from the journal's whole applied history (:func:`history_state`),
whichever migration made it, so every rerun refuses the same until a step ends it or the
operator accepts it (``accept_lost_session_state``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import pglast
from pglast import ast, enums
from pglast.stream import RawStream

from ..core.errors import BadInputError
from ..core.model import (
    ADVISORY,
    CURSOR,
    DEFAULTS,
    KINDS,
    LISTENING,
    PREPARED,
    TEMPORARY,
    UNKNOWN,
    Ended,
    Kept,
    Migration,
    Savepoint,
    SessionChange,
    Setting,
    Statement,
    Step,
)
from ..lint.context import walk
from ..lint.event_triggers import LiveEventTrigger, fires
from ..lint.plpgsql import (
    do_block_sql,
    do_block_static_sql,
    function_body_sql,
    function_body_static_sql,
    parsed_queries,
)
from . import bound_functions, pg_settings_writes, read_only, temp_schema
from .parsed import tree_of

#: What the runner sets itself on every step: never replayed (a replayed 0 would switch the
#: guard off; each step sets its own values anyway).
RUNNER_SETTINGS = frozenset({"lock_timeout", "statement_timeout"})

#: Read-write is the runner's too: its journal rows need it (statements.read_only refuses a
#: pending statement that makes its transactions read-only). Not replayed, so an applied one
#: (made before that refusal existed) never makes every rerun fail (issue 21 review21f F3).
READ_ONLY_SETTINGS = read_only.SETTINGS
#: What a new session never replays.
NOT_REPLAYED = RUNNER_SETTINGS | READ_ONLY_SETTINGS

#: The targets of role changes: kept in place, so that each other change replays in the role
#: it first ran in. SET SESSION AUTHORIZATION also resets the role (PostgreSQL docs, SET
#: SESSION AUTHORIZATION: "The SET SESSION AUTHORIZATION ... also resets ... SET ROLE").
ROLE = "role"
AUTHORIZATION = "session_authorization"
#: The target of RESET ALL (which leaves role and session_authorization alone: their GUCs are
#: GUC_NO_RESET_ALL in src/backend/utils/misc/guc_tables.c).
ALL = "*"

#: pg_cursor_options' CURSOR_OPT_HOLD (src/include/nodes/parsenodes.h).
_CURSOR_OPT_HOLD = 0x0020


# -- what one statement changes -----------------------------------------------------------


def _deparse(node: Any) -> str:
    return str(RawStream()(node))


def _string(node: Any) -> str | None:
    """The text of a string constant (a cast of one to text included), else None."""
    if isinstance(node, ast.TypeCast) and node.typeName is not None:
        names = [n.sval for n in node.typeName.names or ()]
        if names[-1:] in (["text"], ["varchar"]):
            return _string(node.arg)
        return None
    if isinstance(node, ast.A_Const) and isinstance(node.val, ast.String):
        return str(node.val.sval)
    return None


_TRUE = frozenset({"t", "true", "y", "yes", "on", "1"})
_FALSE = frozenset({"f", "false", "n", "no", "off", "0"})


def _boolean(node: Any) -> bool | None:
    """The value of a boolean constant (``false``, ``'f'``, ``'off'``...), else None."""
    if isinstance(node, ast.TypeCast):
        return _boolean(node.arg)
    if isinstance(node, ast.A_Const):
        if isinstance(node.val, ast.Boolean):
            return bool(node.val.boolval)
        if isinstance(node.val, ast.String):
            text = str(node.val.sval).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
        if isinstance(node.val, ast.Integer):
            return bool(node.val.ival)
    return None


def _function_name(node: Any) -> str | None:
    """The name of a function call to a built-in (unqualified or pg_catalog.), else None."""
    if not isinstance(node, ast.FuncCall) or not node.funcname:
        return None
    parts = [p.sval for p in node.funcname]
    if len(parts) == 2 and parts[0] != "pg_catalog":
        return None
    return str(parts[-1]).lower()


def _variable_set(node: Any, text: str) -> tuple[SessionChange, ...]:
    kind = node.kind
    if node.is_local or kind == enums.VariableSetKind.VAR_SET_CURRENT:
        return ()
    if kind == enums.VariableSetKind.VAR_RESET_ALL:
        return (Setting(ALL, text.strip()),)
    if kind == enums.VariableSetKind.VAR_SET_MULTI:
        if node.name != "SESSION CHARACTERISTICS":
            return ()  # SET TRANSACTION: this transaction only
        # The session's defaults for later transactions, one setting each.
        return tuple(
            _setting(
                f"default_{option.defname}",
                ast.VariableSetStmt(
                    kind=enums.VariableSetKind.VAR_SET_VALUE,
                    name=f"default_{option.defname}",
                    args=(option.arg,),
                    is_local=False,
                ),
            )
            for option in node.args or ()
            if f"default_{option.defname}" not in NOT_REPLAYED
        )
    name = str(node.name).lower()
    if name in NOT_REPLAYED:
        return ()
    resets = kind in (enums.VariableSetKind.VAR_RESET, enums.VariableSetKind.VAR_SET_DEFAULT)
    if name == "role" and [_string(a) for a in node.args or ()] == ["none"]:
        resets = True
    # Replayed as the author wrote it: the very statement that ran.
    return (_setting(name, text.strip(), resets=resets),)


def _setting(name: str, replay: Any, *, resets: bool = False) -> Setting:
    """The Setting of ``name``, replayed by ``replay`` (SQL text, or a node to deparse)."""
    target = {"role": ROLE, "session_authorization": AUTHORIZATION}.get(name, name)
    return Setting(target, replay if isinstance(replay, str) else _deparse(replay), resets)


def _is_simple_select(node: Any) -> bool:
    """A SELECT that evaluates its target list exactly once: no FROM, WHERE, GROUP BY,
    HAVING, LIMIT, set operation, WITH or VALUES."""
    return (
        isinstance(node, ast.SelectStmt)
        and node.op == enums.SetOperation.SETOP_NONE
        and not (
            node.fromClause
            or node.whereClause
            or node.groupClause
            or node.havingClause
            or node.limitCount
            or node.limitOffset
            or node.withClause
            or node.valuesLists
            or node.intoClause
        )
    )


def _set_config(call: Any, once: bool) -> SessionChange | None:
    """What ``set_config(name, value, is_local)`` changes in the session: a setting to replay
    when its arguments are constants and it runs exactly once (``once``); nothing when it is
    local; else an unknown setting."""
    args = tuple(call.args or ())
    name = _string(args[0]) if len(args) == 3 else None
    value = _string(args[1]) if len(args) == 3 else None
    local = _boolean(args[2]) if len(args) == 3 else None
    if local is True:
        return None
    lowered = name.lower() if name is not None else None
    if lowered in NOT_REPLAYED:
        return None
    if once and name is not None and lowered is not None and value is not None and local is False:
        return _setting(lowered, _set_config_call(name, value))
    why = "non-constant arguments" if once else "a call that may run any number of times"
    return Kept(UNKNOWN, lowered, f"set_config({name or '?'}, ...) with {why}")


def _set_config_call(name: str, value: str) -> Any:
    """``SELECT pg_catalog.set_config(name, value, false)``, as a tree to deparse."""
    return ast.SelectStmt(
        targetList=(
            ast.ResTarget(
                val=ast.FuncCall(
                    funcname=(ast.String(sval="pg_catalog"), ast.String(sval="set_config")),
                    args=(
                        ast.A_Const(val=ast.String(sval=name)),
                        ast.A_Const(val=ast.String(sval=value)),
                        ast.A_Const(val=ast.Boolean(boolval=False)),
                    ),
                )
            ),
        )
    )


def _calls(node: Any) -> tuple[SessionChange, ...]:
    """What the function calls of ``node`` change: set_config, session advisory locks."""
    once: set[int] = set()
    if _is_simple_select(node):
        for target in node.targetList or ():
            value = target.val
            while isinstance(value, ast.TypeCast):
                value = value.arg
            if isinstance(value, ast.FuncCall):
                once.add(id(value))
    found: list[SessionChange] = []
    for sub in walk(node):
        name = _function_name(sub)
        if name is None:
            continue
        if name == "set_config":
            change = _set_config(sub, id(sub) in once)
            if change is not None:
                found.append(change)
        elif name in (
            "pg_advisory_lock",
            "pg_advisory_lock_shared",
            "pg_try_advisory_lock",
            "pg_try_advisory_lock_shared",
        ):
            args = ", ".join(_deparse(a) for a in sub.args or ())
            found.append(Kept(ADVISORY, args, f"session advisory lock {name}({args})"))
        elif name == "pg_advisory_unlock_all":
            found.append(Ended(ADVISORY, None))
        elif name in ("pg_advisory_unlock", "pg_advisory_unlock_shared"):
            found.append(Ended(ADVISORY, ", ".join(_deparse(a) for a in sub.args or ())))
    return tuple(found)


def _made_temporary(node: Any) -> tuple[SessionChange, ...]:
    """A temporary object its CREATE says is temporary (TEMP, or a pg_temp schema) that
    outlives its transaction; one made so through the search_path is SessionState's to see
    (it knows the path in force)."""
    found = temp_schema.made_temporary(node, path_in_temp=False)
    return () if found is None else (_temporary_kept(found),)


def _temporary_kept(found: temp_schema.Created) -> Kept:
    return Kept(TEMPORARY, found.name, f"temporary {found.what} {found.name}")


_RELATION_TYPES = (
    enums.ObjectType.OBJECT_TABLE,
    enums.ObjectType.OBJECT_VIEW,
    enums.ObjectType.OBJECT_SEQUENCE,
)
_TYPE_TYPES = (enums.ObjectType.OBJECT_TYPE, enums.ObjectType.OBJECT_DOMAIN)
#: Routines: an unqualified name never finds one in pg_temp (PostgreSQL docs, 5.9.3: "the
#: temporary schema is never searched for functions or operators"), so only a pg_temp one
#: names a temporary one.
_ROUTINE_TYPES = (
    enums.ObjectType.OBJECT_FUNCTION,
    enums.ObjectType.OBJECT_PROCEDURE,
    enums.ObjectType.OBJECT_ROUTINE,
    enums.ObjectType.OBJECT_AGGREGATE,
)


def _dropped(node: Any) -> tuple[SessionChange, ...]:
    """The temporary objects a DROP may end: relations and types named unqualified or in a
    temporary schema, routines in a temporary schema."""
    ends: list[SessionChange] = []
    for obj in node.objects or ():
        if node.removeType in _RELATION_TYPES:
            parts = [str(p.sval) for p in obj]
        elif node.removeType in _TYPE_TYPES and isinstance(obj, ast.TypeName):
            parts = [str(p.sval) for p in obj.names or ()]
        elif node.removeType in _ROUTINE_TYPES and isinstance(obj, ast.ObjectWithArgs):
            parts = [str(p.sval) for p in obj.objname or ()]
            if len(parts) == 1:
                continue
        else:
            continue
        if parts and (len(parts) == 1 or temp_schema.is_temp_schema(parts[-2])):
            ends.append(Ended(TEMPORARY, parts[-1]))
    return tuple(ends)


_TRANSACTION = enums.TransactionStmtKind
_SAVEPOINTS = {
    _TRANSACTION.TRANS_STMT_SAVEPOINT: "savepoint",
    _TRANSACTION.TRANS_STMT_RELEASE: "release",
    _TRANSACTION.TRANS_STMT_ROLLBACK_TO: "rollback to",
}


def changes_of(node: Any, text: str) -> tuple[SessionChange, ...]:
    """What the top-level statement ``node`` (written ``text``) changes in its session."""
    if isinstance(node, ast.VariableSetStmt):
        return _variable_set(node, text)
    if isinstance(node, ast.TransactionStmt):
        action = _SAVEPOINTS.get(node.kind) if node.kind is not None else None
        return (Savepoint(action, str(node.savepoint_name)),) if action else ()
    if isinstance(node, ast.DiscardStmt):
        if node.target == enums.DiscardMode.DISCARD_ALL:
            # DISCARD ALL is SET SESSION AUTHORIZATION DEFAULT, RESET ALL, and the end of
            # everything kept (PostgreSQL docs, DISCARD).
            return (
                Setting(AUTHORIZATION, "SET SESSION AUTHORIZATION DEFAULT", resets=True),
                Setting(ALL, "RESET ALL"),
                *(Ended(kind, None) for kind in KINDS),
            )
        if node.target == enums.DiscardMode.DISCARD_TEMP:
            return (Ended(TEMPORARY, None),)
        return ()
    if isinstance(node, ast.LoadStmt):
        return (Setting(f"load {node.filename}", text.strip()),)
    if isinstance(node, ast.PrepareStmt):
        return (Kept(PREPARED, str(node.name), f"prepared statement {node.name}"),)
    if isinstance(node, ast.DeallocateStmt):
        return (Ended(PREPARED, None if node.isall or not node.name else str(node.name)),)
    if isinstance(node, ast.ListenStmt):
        return (Kept(LISTENING, str(node.conditionname), f"LISTEN {node.conditionname}"),)
    if isinstance(node, ast.UnlistenStmt):
        return (Ended(LISTENING, node.conditionname or None),)
    if isinstance(node, ast.DeclareCursorStmt) and (node.options or 0) & _CURSOR_OPT_HOLD:
        return (Kept(CURSOR, str(node.portalname), f"cursor {node.portalname} WITH HOLD"),)
    if isinstance(node, ast.ClosePortalStmt):
        return (Ended(CURSOR, node.portalname or None),)
    if isinstance(node, ast.DropStmt):
        return _dropped(node)
    if isinstance(node, ast.DoStmt):
        return _do_block(text)
    if isinstance(node, ast.AlterRoleSetStmt):
        role: Any = node.role
        named = role.rolename if role is not None and role.rolename else None
        who = None if role is None else str(named) if named is not None else ""
        return _new_defaults(node.setstmt, text, (who, node.database or None))
    if isinstance(node, ast.AlterDatabaseSetStmt):
        return _new_defaults(node.setstmt, text, (None, str(node.dbname)))
    changes = _made_temporary(node)
    lowered = text.lower()
    if "set_config" in lowered or "advisory" in lowered:
        changes += _calls(node)
    if "pg_settings" in lowered:
        changes += _settings_writes(node)
    return changes


def _new_defaults(
    setstmt: Any, text: str, applies_to: tuple[str | None, str | None]
) -> tuple[SessionChange, ...]:
    """ALTER ROLE / DATABASE ... SET or RESET: nothing changes in the session that runs it,
    but every new session starts with the new default (issue 21 review21c F2). So a new
    session of the run differs from the one the history ran in: state no replay can give back
    (the value the old session had is not known after the fact), refused when lost by a new
    session it reaches: ``applies_to`` (role, database), see SessionState.identity."""
    name = str(setstmt.name).lower() if setstmt is not None and setstmt.name else None
    if name in RUNNER_SETTINGS:
        return ()  # the runner sets its own on every step
    what = " ".join(text.split())
    if len(what) > 80:
        what = what[:77] + "..."
    what = f"{what} (a new session starts with the new default)"
    return (Kept(DEFAULTS, name, what, applies_to=applies_to),)


def _settings_writes(node: Any) -> tuple[SessionChange, ...]:
    """What ``UPDATE pg_settings`` changes: its update rule calls ``set_config(name,
    setting, false)`` for each row (issue 21 review21c F3). Replayed when the statement is
    the UPDATE itself and its name and value are constants (NULL resets); else unknown."""
    found: list[SessionChange] = []
    for write in pg_settings_writes.writes_in(node):
        top = pg_settings_writes.of_update(node) == write
        if write.names is None or write.kind == "unknown" or not top:
            for name in write.names or (None,):
                if name not in RUNNER_SETTINGS:
                    what = f"UPDATE pg_settings of {name or 'a setting the parse cannot name'}"
                    found.append(Kept(UNKNOWN, name, f"{what} with a value known only then"))
            continue
        for name in write.names:
            if name in NOT_REPLAYED:
                continue
            if write.kind == "null":
                found.append(_reset(name))
            else:
                found.append(_setting(name, _set_config_call(name, write.value)))
    return tuple(found)


def _do_block(text: str) -> tuple[SessionChange, ...]:
    """A DO block's session changes: whether its statements run, and how often, is up to its
    code, so each change it may make is unknown state (nothing is replayed from it), and what
    it ends is ended."""
    found: list[SessionChange] = []
    for node, query in parsed_queries(do_block_sql(text)):
        for change in changes_of(node, query):
            if isinstance(change, Setting):
                found.append(Kept(UNKNOWN, change.target, f"{change.sql} inside a DO block"))
            elif isinstance(change, Kept | Ended):
                found.append(change)
    return tuple(found)


# -- what a statement could depend on -------------------------------------------------------


@dataclass(frozen=True)
class Needs:
    """What a statement could need of the session: names it uses, and whether it runs code
    the parse tree does not show."""

    #: (kind, name) of the kept things it names.
    names: frozenset[tuple[str, str]]
    #: The functions and procedures it calls (lower case, without schema).
    calls: frozenset[str]
    #: True for DO blocks and CALL: code that may use anything.
    opaque: bool


_SESSION_VIEWS = {
    "pg_prepared_statements": PREPARED,
    "pg_cursors": CURSOR,
}


@functools.lru_cache(maxsize=1024)
def needs_of(text: str) -> Needs:
    """What the SQL ``text`` (a function body's statement, a DO block's) could need of the
    session; for a migration's statement see statement_needs."""
    try:
        parsed = pglast.parse_sql(text)
    except pglast.parser.ParseError:
        return Needs(frozenset(), frozenset(), True)
    return _needs([raw.stmt for raw in parsed], text)


@functools.lru_cache(maxsize=1024)
def statement_needs(statement: Statement) -> Needs:
    """What ``statement`` could need of the session, from the tree its parse built (only
    asked when a new session lacks something)."""
    node = tree_of(statement)
    if node is None:
        return needs_of(statement.text)
    return _needs([node], statement.text)


def _needs(trees: Sequence[Any], text: str) -> Needs:
    """needs_of the statements ``trees`` of ``text``."""
    names: set[tuple[str, str]] = set()
    calls: set[str] = set()
    opaque = False
    for tree in trees:
        for node in walk(tree):
            if isinstance(node, ast.DoStmt):
                # A block whose every statement is known needs what they need (issue 21
                # review21b F1: a lost temporary table must not refuse every later DO block).
                body = do_block_static_sql(text, tree) if len(trees) == 1 else None
                if body is None:
                    opaque = True
                for query in body or ():
                    inner = needs_of(query)
                    names |= inner.names
                    calls |= inner.calls
                    opaque = opaque or inner.opaque
            elif isinstance(node, ast.CallStmt):
                opaque = True
            elif isinstance(node, ast.RangeVar):
                if node.schemaname is None or temp_schema.is_temp_schema(node.schemaname):
                    names.add((TEMPORARY, str(node.relname)))
                if node.relname in _SESSION_VIEWS:
                    opaque = True
            elif isinstance(node, ast.CommentStmt | ast.SecLabelStmt | ast.AlterObjectDependsStmt):
                # COMMENT ON TABLE tt / COLUMN tt.c / CONSTRAINT c ON tt name the relation in
                # a list, not a RangeVar: found in pg_temp first all the same (issue 21
                # review21i E4: the comment landed on the user's public.tt).
                names.update((TEMPORARY, n) for n in _listed_relation(node))
            elif isinstance(node, ast.ExecuteStmt | ast.DeallocateStmt) and node.name:
                names.add((PREPARED, str(node.name)))
            elif isinstance(node, ast.FetchStmt | ast.ClosePortalStmt) and node.portalname:
                names.add((CURSOR, str(node.portalname)))
            elif isinstance(node, ast.CurrentOfExpr) and node.cursor_name:
                names.add((CURSOR, str(node.cursor_name)))
            elif isinstance(node, ast.UnlistenStmt) and node.conditionname:
                names.add((LISTENING, str(node.conditionname)))
            elif isinstance(node, ast.DropStmt):
                names.update(
                    (TEMPORARY, str(end.name)) for end in _dropped(node) if isinstance(end, Ended)
                )
            elif isinstance(node, ast.TypeName) and node.names:
                # A type is found in pg_temp first, as a relation is (a temporary type).
                parts = [str(getattr(p, "sval", "")) for p in node.names]
                if len(parts) == 1 or temp_schema.is_temp_schema(parts[-2]):
                    names.add((TEMPORARY, parts[-1]))
            elif isinstance(node, ast.TypeCast):
                # A relation named in a string cast to regclass is a use of it, found in
                # pg_temp first (issue 21 review21h D8).
                names.update((TEMPORARY, n) for n in temp_schema.relations_named(node))
                # A name the run computes may be a temporary relation's (issue 21 review21i E5).
                opaque = opaque or temp_schema.names_relation_at_run_time(node)
                # A cast the migrations create runs its function (issue 21 review21g S1).
                use = bound_functions.cast_use(node.typeName)
                if use is not None:
                    calls.add(use)
            elif isinstance(node, ast.A_Expr) and node.name:
                # An operator runs its function: one the migrations create may change the
                # session as a call of it does (issue 21 review21g S1).
                last = node.name[-1]
                if isinstance(last, ast.String):
                    calls.add(str(last.sval))
            elif isinstance(node, ast.FuncCall) and node.funcname:
                name = str(node.funcname[-1].sval).lower()
                calls.add(name)
                # nextval('s'), pg_relation_size('t'): a use of that relation by name
                # (issue 21 review21h D8).
                names.update((TEMPORARY, n) for n in temp_schema.relations_named(node))
                opaque = opaque or temp_schema.names_relation_at_run_time(node)
                if len(node.funcname) == 2 and temp_schema.is_temp_schema(node.funcname[0].sval):
                    # Only a pg_temp-qualified call runs a temporary function.
                    names.add((TEMPORARY, str(node.funcname[-1].sval)))
                if name == "pg_listening_channels":
                    opaque = True
    return Needs(frozenset(names), frozenset(calls), opaque)


#: Object kinds whose name list is the relation's own name.
_RELATION_KINDS = frozenset(
    {
        enums.ObjectType.OBJECT_TABLE,
        enums.ObjectType.OBJECT_VIEW,
        enums.ObjectType.OBJECT_MATVIEW,
        enums.ObjectType.OBJECT_SEQUENCE,
        enums.ObjectType.OBJECT_FOREIGN_TABLE,
        enums.ObjectType.OBJECT_INDEX,
    }
)
#: Object kinds whose name list is the relation's name and then the object's on it.
_ON_RELATION_KINDS = frozenset(
    {
        enums.ObjectType.OBJECT_COLUMN,
        enums.ObjectType.OBJECT_TABCONSTRAINT,
        enums.ObjectType.OBJECT_TRIGGER,
        enums.ObjectType.OBJECT_POLICY,
        enums.ObjectType.OBJECT_RULE,
    }
)


def _listed_relation(node: Any) -> tuple[str, ...]:
    """The relation a COMMENT, SECURITY LABEL or DEPENDS ON EXTENSION names in its object
    list, when unqualified or in pg_temp (so found in pg_temp first); () otherwise."""
    listed = node.object
    if not isinstance(listed, tuple) or not all(isinstance(p, ast.String) for p in listed):
        return ()
    parts = [str(p.sval) for p in listed]
    if node.objtype in _ON_RELATION_KINDS:
        parts = parts[:-1]
    elif node.objtype not in _RELATION_KINDS:
        return ()
    if not parts or (len(parts) > 1 and not temp_schema.is_temp_schema(parts[-2])):
        return ()
    return (parts[-1],)


def _names(needs: Needs, kept: Kept) -> bool:
    if kept.kind == LISTENING:
        return (kept.kind, kept.name) in needs.names or "pg_listening_channels" in needs.calls
    return (kept.kind, kept.name) in needs.names


def could_depend(needs: Needs, kept: Kept, functions: Mapping[str, Needs] | frozenset[str]) -> bool:
    """True when a statement with ``needs`` could depend on ``kept``: it names it, runs code
    the parse tree does not show (a DO block with SQL built at run time, CALL, a function
    the migrations create in ``functions`` whose body could: see function_needs; a bare set
    of names counts every one), or ``kept`` has no name to look for (a session advisory lock:
    mutual exclusion with the application; a setting changed out of sight)."""
    if kept.kind in (ADVISORY, UNKNOWN, DEFAULTS) or kept.name is None:
        return True
    if needs.opaque:
        return True
    for name in needs.calls:
        if name in functions:
            body = functions.get(name) if isinstance(functions, Mapping) else None
            if body is None or body.opaque or _names(body, kept):
                return True
    return _names(needs, kept)


@dataclass(frozen=True)
class _Body:
    """What one created function's body does (its overloads and replacements merged)."""

    #: What it could need of the session (Needs.calls: the functions it calls).
    needs: Needs
    #: True when it changes the session by itself (see _body_changes).
    changes: bool
    #: The functions it calls, as _body_changes reads them.
    calls: frozenset[str]

    def merged(self, other: _Body) -> _Body:
        """Both bodies: overloads, or CREATE OR REPLACE, where either may run."""
        return _Body(
            _merged(self.needs, other.needs),
            self.changes or other.changes,
            self.calls | other.calls,
        )


def _merged(one: Needs, other: Needs) -> Needs:
    return Needs(one.names | other.names, one.calls | other.calls, one.opaque or other.opaque)


def _definitions(statements: Iterable[Statement]) -> Iterable[tuple[str, Statement, Any]]:
    """(lower-case name, statement, parse tree) of each CREATE FUNCTION / PROCEDURE, from the
    tree the file's parse built (nothing parses the text again)."""
    for statement in statements:
        if statement.kind != "CreateFunctionStmt":
            continue
        node = tree_of(statement)
        if isinstance(node, ast.CreateFunctionStmt):
            funcname: Any = node.funcname
            yield str(funcname[-1].sval).lower(), statement, node


def _bindings(statements: Iterable[Statement]) -> Iterable[tuple[str, frozenset[str]]]:
    """(the name a use is written with, the functions it runs) of each CREATE OPERATOR,
    CREATE AGGREGATE and CREATE CAST, and of each routine's RENAME TO (the new name runs the
    old one's body): a use of one calls the functions it binds
    (statements.bound_functions, the timeout guard's reading), so it is read as a call of
    them (issue 21 review21g S1)."""
    for statement in statements:
        if statement.kind == "RenameStmt":
            renamed = _renamed_routine(tree_of(statement))
            if renamed is not None:
                yield renamed
            continue
        if statement.kind not in ("DefineStmt", "CreateCastStmt"):
            continue
        node = tree_of(statement)
        name = bound_functions.used_as(node)
        if name is not None:
            _, functions = bound_functions.bound_functions(node)
            yield name, frozenset(f.lower() for f in functions)


#: The object kinds of ALTER FUNCTION / PROCEDURE / ROUTINE ... RENAME TO.
_ROUTINE_KINDS = frozenset(
    {
        enums.ObjectType.OBJECT_FUNCTION,
        enums.ObjectType.OBJECT_PROCEDURE,
        enums.ObjectType.OBJECT_ROUTINE,
    }
)


def _renamed_routine(node: Any) -> tuple[str, frozenset[str]] | None:
    """(new name, {old name}) of a routine's RENAME TO: a call by the new name runs the old
    name's body (review 21i E8's neighbour: a renamed session-changing function)."""
    if not isinstance(node, ast.RenameStmt) or node.renameType not in _ROUTINE_KINDS:
        return None
    routine = node.object
    if not isinstance(routine, ast.ObjectWithArgs) or not routine.objname or not node.newname:
        return None
    return str(node.newname).lower(), frozenset({str(routine.objname[-1].sval).lower()})


def _own_needs(text: str, node: Any) -> Needs:
    queries = function_body_static_sql(text, node)
    if queries is None:
        return Needs(frozenset(), frozenset(), True)
    parts = [needs_of(q) for q in queries]
    return Needs(
        frozenset().union(*(p.names for p in parts)),
        frozenset().union(*(p.calls for p in parts)),
        any(p.opaque for p in parts),
    )


@dataclass(frozen=True)
class FunctionFacts:
    """What the functions and procedures the migrations create do when called, read in one
    walk of their statements: ``needs`` and ``changers`` below, through the functions each
    calls too."""

    #: name -> what its body could need of the session (see function_needs).
    needs: Mapping[str, Needs]
    #: The names of those whose bodies change the session (see session_changing_functions).
    changers: frozenset[str]


def function_facts(statements: Iterable[Statement]) -> FunctionFacts:
    """function_needs and session_changing_functions of ``statements`` in one walk; asked
    again for the same function definitions (a run asks for both), the walk is not repeated."""
    return _function_facts(tuple(s for s in statements if s.kind in _DEFINING))


#: The kinds of the statements that define what a call runs: functions, procedures, the
#: operators, aggregates and casts that bind them, and the renames of routines.
_DEFINING = frozenset({"CreateFunctionStmt", "DefineStmt", "CreateCastStmt", "RenameStmt"})


@functools.lru_cache(maxsize=16)
def _function_facts(statements: tuple[Statement, ...]) -> FunctionFacts:
    own: dict[str, _Body] = {}
    for name, statement, node in _definitions(statements):
        changes, calls = _body_changes(statement.text, node)
        found = _Body(_own_needs(statement.text, node), changes, calls)
        before = own.get(name)
        own[name] = found if before is None else before.merged(found)
    for name, bound in _bindings(statements):
        # No body of its own: what its functions do, through the same fixpoint as a call.
        found = _Body(Needs(frozenset(), bound, False), False, bound)
        before = own.get(name)
        own[name] = found if before is None else before.merged(found)
    needs = {name: body.needs for name, body in own.items()}
    grew = True
    while grew:
        grew = False
        for name, known in list(needs.items()):
            merged = known
            for callee in known.calls & needs.keys():
                merged = _merged(merged, needs[callee])
            if merged != known:
                needs[name] = merged
                grew = True
    changers = {name for name, body in own.items() if body.changes}
    grew = True
    while grew:
        grew = False
        for name, body in own.items():
            if name not in changers and body.calls & changers:
                changers.add(name)
                grew = True
    return FunctionFacts(MappingProxyType(needs), frozenset(changers))


def function_needs(statements: Iterable[Statement]) -> dict[str, Needs]:
    """What the body of each function and procedure ``statements`` create could need of the
    session when called (lower-case names without schema), through the functions it calls
    too: opaque when its body is not all known (dynamic SQL, another language, CALL...)."""
    return dict(function_facts(statements).needs)


def created_functions(statements: Iterable[Statement]) -> frozenset[str]:
    """The names (lower case, without schema) of the functions and procedures ``statements``
    create: their bodies may use anything the session has."""
    return frozenset(name for name, _, _ in _definitions(statements))


def calls_in(statement: Statement) -> frozenset[str]:
    """The functions ``statement`` calls (lower case, without schema), those of a DO block's
    body included."""
    calls = set(statement_needs(statement).calls)
    if statement.kind == "DoStmt":
        for query in do_block_sql(statement.text):
            calls |= needs_of(query).calls
    return frozenset(calls)


def _body_changes(text: str, node: Any) -> tuple[bool, frozenset[str]]:
    """Whether the body of the CREATE FUNCTION/PROCEDURE ``text`` (parsed: ``node``) changes
    the session by itself (a SET, set_config(..., false), a temporary table, ... in the
    statements it runs, as changes_of reads them; for a body no parse shows, the word
    set_config in it), and the functions it calls."""
    queries = function_body_sql(text)
    if not queries:
        for option in node.options or ():
            if isinstance(option, ast.DefElem) and option.defname == "as" and option.arg:
                arg: Any = option.arg
                queries = [str(getattr(arg[0], "sval", "")).strip()]
        if not queries or not queries[0]:
            return ("set_config" in text.lower(), frozenset())
    changes = False
    calls: set[str] = set()
    for query in queries:
        try:
            parsed = pglast.parse_sql(query)
        except pglast.parser.ParseError:
            changes = changes or "set_config" in query.lower()
            continue
        for raw in parsed:
            begin = raw.stmt_location or 0
            body = query[begin : begin + (raw.stmt_len or len(query))]
            found = changes_of(raw.stmt, body or query)
            if any(isinstance(c, Setting | Kept) for c in found):
                changes = True
        calls |= needs_of(query).calls
    if not changes and "set_config" in text.lower():
        # SQL built at run time may hold the call no parse shows.
        changes = function_body_static_sql(text, node) is None
    return (changes, frozenset(calls))


def routine_changes(create_text: str) -> tuple[bool, frozenset[str]]:
    """What _body_changes says of the CREATE FUNCTION / PROCEDURE ``create_text`` (the
    database's own, as pg_get_functiondef writes it): whether its body changes the session by
    itself, and the functions it calls. A text that does not parse as one changes the session
    when it names set_config."""
    try:
        node = pglast.parse_sql(create_text)[0].stmt
    except (pglast.parser.ParseError, IndexError):
        node = None
    if not isinstance(node, ast.CreateFunctionStmt):
        return ("set_config" in create_text.lower(), frozenset())
    return _body_changes(create_text, node)


def session_changing_functions(statements: Iterable[Statement]) -> frozenset[str]:
    """The names (lower case, without schema) of the functions and procedures ``statements``
    create whose bodies change the session when called (a SET, set_config(..., false), a
    temporary table that outlives the call, ...), directly or through another such function.
    A call of one is a session change nothing can replay (issue 21 review21b F2)."""
    return function_facts(statements).changers


# -- the state of a session, step after step ---------------------------------------------


@dataclass
class SessionState:
    """The session state of a run's lineage of sessions, step after step.

    ``settings`` is what a new session replays (:attr:`replay`); ``kept`` what the session in
    use has made and would lose; ``lost`` what an earlier session of the lineage had and this
    one lacks, which makes :meth:`refusal` refuse a step that could depend on it.
    """

    settings: list[Setting] = field(default_factory=list)
    kept: dict[tuple[str, str | None], Kept] = field(default_factory=dict)
    lost: dict[tuple[str, str | None], Kept] = field(default_factory=dict)
    #: The steps folded in so far, as (version, step index), in order.
    steps: list[tuple[int, int]] = field(default_factory=list)
    #: The functions the migrations create whose bodies change the session (see
    #: session_changing_functions): a call of one is a change no new session can replay.
    changers: frozenset[str] = frozenset()
    #: Those of ``changers`` the database has and the migrations do not create (issue 21
    #: review21i E6), for messages.
    database_changers: frozenset[str] = frozenset()
    #: accept_lost_session_state: what steps of migrations up to this version kept is not
    #: refused when lost (the operator accepted that later steps run without it).
    accepted_through: int | None = None
    #: The tables (lower-case name, no schema) on which an applied CREATE TRIGGER made one
    #: of ``changers`` fire: a write to one of them calls it as surely as a SELECT f() does.
    triggers: dict[str, set[str]] = field(default_factory=dict)
    #: The (login role, database) of the run's sessions: a changed default of new sessions
    #: of another role or database does not reach them. None: unknown, every one does.
    identity: tuple[str, str] | None = None
    #: The enabled event triggers applied steps created whose functions are among
    #: ``changers``, by name: every DDL they fire on calls one.
    event_triggers: dict[str, LiveEventTrigger] = field(default_factory=dict)
    #: Those of them an ``ALTER EVENT TRIGGER ... DISABLE`` switched off: an ``ENABLE`` (plain,
    #: ALWAYS or REPLICA) switches them on again (issue 21 review 21i E12).
    disabled_event_triggers: dict[str, LiveEventTrigger] = field(default_factory=dict)
    #: The schemas applied steps created (CREATE SCHEMA, not dropped since): known to exist,
    #: so a search_path naming one before pg_temp creates there (review 21i E14).
    schemas: set[str] = field(default_factory=set)
    #: The session's prepared statements by name: what running one changes (as changes_of
    #: reads its query) and the functions and operators it calls.
    prepared: dict[str, tuple[tuple[SessionChange, ...], frozenset[str]]] = field(
        default_factory=dict
    )

    @property
    def replay(self) -> tuple[str, ...]:
        """The statements that put a new session in this state's settings, in order."""
        return tuple(s.sql for s in self.settings)

    @property
    def search_path(self) -> tuple[str, ...]:
        """The statements that give another session (the monitor) this state's search_path:
        its changes, a RESET ALL standing for RESET search_path."""
        return tuple(
            s.sql if s.target == "search_path" else "RESET search_path"
            for s in self.settings
            if s.target in ("search_path", ALL)
        )

    def apply(self, key: tuple[int, int], step: Step, where: str = "") -> None:
        """Fold in the session changes of the applied ``step`` (``key``: version, index),
        made in ``where`` (``file``, for messages)."""
        savepoints: list[tuple[str, list[Setting], dict[Any, Kept], dict[Any, Kept]]] = []
        # The search_path a SET LOCAL (or set_config(..., true)) gave the step's transaction.
        local: tuple[str, ...] | str | None = None
        for statement in step.statements:
            if statement.kind in temp_schema.CREATING_KINDS:
                for found in self._made_through_path(statement, local):
                    self._keep(_temporary_kept(found), key, where, statement)
            if statement.kind == "RenameStmt":
                self._rename_temporary(statement)
            if statement.kind in ("CreateSchemaStmt", "DropStmt"):
                self._schemas(tree_of(statement))
            lowered = statement.text.lower()
            if local is not None or _may_set_path(lowered):
                local = _local_path(tree_of(statement), lowered, local)
            for change in statement.session_changes:
                if isinstance(change, Savepoint):
                    self._savepoint(change, savepoints)
                elif isinstance(change, Setting):
                    spot = f"{where}:{statement.line}" if where else ""
                    self._set(replace(change, where=spot, version=key[0]))
                elif isinstance(change, Kept):
                    self._keep(change, key, where, statement)
                else:
                    self._end(change)
            if self.changers and any(name.lstrip(":") in lowered for name in self.changers):
                for name in sorted(calls_in(statement) & self.changers):
                    # Its body changes the session in a way no parse of the call can replay.
                    changer = _changer_kept(name, name in self.database_changers)
                    self._keep(changer, key, where, statement)
            if _may_prepare(lowered, bool(self.prepared)):
                self._prepared_statements(tree_of(statement), key, where, statement)
            for name in self._triggered(statement):
                what = (
                    f"{name}(), a trigger function the migrations create that changes the "
                    "session, fired by a write to its table"
                )
                self._keep(Kept(UNKNOWN, f"{name}()", what), key, where, statement)
            for name in self._fired_event_triggers(statement):
                what = (
                    f"{name}(), an event trigger function the migrations create that changes "
                    "the session, fired by this DDL"
                )
                self._keep(Kept(UNKNOWN, f"{name}()", what), key, where, statement)
        self.steps.append(key)
        self._compact()

    def _prepared_statements(
        self, tree: Any, key: tuple[int, int], where: str, statement: Statement
    ) -> None:
        """What a prepared statement changes when run (issue 21 review21g S1): noted at its
        PREPARE, made at each EXECUTE. A top-level EXECUTE runs it once, so its constant
        set_config is replayed as such; one inside another statement (EXPLAIN, CREATE TABLE
        AS) may run it or not: unknown, as such a set_config written there is."""
        if isinstance(tree, ast.PrepareStmt) and tree.name and tree.query is not None:
            text = _deparse(tree.query)
            calls = _needs([tree.query], text).calls
            self.prepared[str(tree.name)] = (changes_of(tree.query, text), calls)
            return
        if isinstance(tree, ast.DeallocateStmt):
            if tree.isall or not tree.name:
                self.prepared.clear()
            else:
                self.prepared.pop(str(tree.name), None)
            return
        if isinstance(tree, ast.DiscardStmt) and tree.target == enums.DiscardMode.DISCARD_ALL:
            self.prepared.clear()
            return
        spot = f"{where}:{statement.line}" if where else ""
        for node in walk(tree) if tree is not None else ():
            if not isinstance(node, ast.ExecuteStmt) or node.name not in self.prepared:
                continue
            changes, calls = self.prepared[str(node.name)]
            for change in changes:
                if isinstance(change, Setting) and node is tree:
                    self._set(replace(change, where=spot, version=key[0]))
                elif isinstance(change, Setting):
                    what = f"{change.sql} through EXECUTE {node.name}, which may run or not"
                    self._keep(Kept(UNKNOWN, change.target, what), key, where, statement)
                elif isinstance(change, Kept):
                    self._keep(change, key, where, statement)
                elif isinstance(change, Ended):
                    self._end(change)
            for name in sorted(calls & self.changers):
                changer = _changer_kept(name, name in self.database_changers)
                self._keep(changer, key, where, statement)

    def _made_through_path(
        self, statement: Statement, local: tuple[str, ...] | str | None
    ) -> list[temp_schema.Created]:
        """The temporary objects ``statement`` makes without saying TEMP (issue 21 review21f
        F4): unqualified while the search_path in force (``local``, the transaction's, else
        the session's) puts pg_temp first, or a view of a temporary relation. A path not
        known counts as one that does: a table made under it may be temporary."""
        path = local if local is not None else self._session_path()
        in_temp = path == temp_schema.UNKNOWN or temp_schema.creates_in_temp(path, self.schemas)
        temporary = frozenset(str(n) for kind, n in self.kept if kind == TEMPORARY and n)
        if not in_temp and not temporary:
            return []
        tree = tree_of(statement)
        nodes: list[Any] = [] if tree is None else [tree]
        if isinstance(tree, ast.DoStmt) and in_temp:
            nodes = [node for node, _ in parsed_queries(do_block_sql(statement.text))]
        made = (temp_schema.made_temporary(node, in_temp, temporary) for node in nodes)
        return [found for found in made if found is not None]

    def _session_path(self) -> tuple[str, ...] | str | None:
        """The session's search_path from its folded settings (None: the default one;
        UNKNOWN: set out of the parse's sight)."""
        if (UNKNOWN, "search_path") in self.kept:
            return temp_schema.UNKNOWN
        for setting in reversed(self.settings):
            if setting.target == "search_path":
                return temp_schema.replayed_path(setting.sql)
        return None

    def _triggered(self, statement: Statement) -> list[str]:
        """The session-changing trigger functions ``statement`` fires (issue 21):
        those of the triggers on the tables it writes. A CREATE TRIGGER of one of ``changers``
        is noted for the statements after it."""
        if not self.changers or (not self.triggers and statement.kind != "CreateTrigStmt"):
            return []
        tree = tree_of(statement)
        nodes: list[Any] = [] if tree is None else [tree]
        fired: set[str] = set()
        for node in nodes:
            if isinstance(node, ast.CreateTrigStmt):
                trigger: Any = node
                function = str(trigger.funcname[-1].sval).lower()
                if function in self.changers:
                    table = str(trigger.relation.relname).lower()
                    self.triggers.setdefault(table, set()).add(function)
                continue
            for table in written_tables(node):
                fired |= self.triggers.get(table, set())
        return sorted(fired)

    def _fired_event_triggers(self, statement: Statement) -> list[str]:
        """The session-changing functions of the event triggers ``statement`` fires (issue 21
        review21g S1: the guard reads an event trigger's function as a call at each DDL, as
        lint.event_triggers' firing matrix says; so does the session state). A CREATE EVENT
        TRIGGER of one of ``changers`` is noted for the statements after it; a DROP or ALTER
        ... DISABLE of it ends that, and an ALTER ... ENABLE of a disabled one starts it again
        (review 21i E12). ENABLE REPLICA counts as enabled: whether it fires depends on
        session_replication_role, which a function may change, so it may."""
        kind = statement.kind
        known = self.event_triggers or self.disabled_event_triggers
        if not self.changers or (not known and kind != "CreateEventTrigStmt"):
            return []
        tree = tree_of(statement)
        if isinstance(tree, ast.CreateEventTrigStmt) and tree.funcname:
            function = str(tree.funcname[-1].sval).lower()
            if function in self.changers:
                clauses: Any = tree.whenclause or ()
                tags = tuple(
                    str(getattr(tag, "sval", "")).upper()
                    for clause in clauses
                    if isinstance(clause, ast.DefElem) and clause.defname == "tag"
                    for tag in clause.arg or ()
                )
                name = str(tree.trigname)
                self.event_triggers[name] = LiveEventTrigger(
                    name, str(tree.eventname), tags, function
                )
            return []
        if isinstance(tree, ast.AlterEventTrigStmt):
            name = str(tree.trigname)
            # tgenabled: 'D' disabled, 'O' (ENABLE), 'A' (ALWAYS), 'R' (REPLICA): pg_event_trigger.
            source, target = (
                (self.event_triggers, self.disabled_event_triggers)
                if tree.tgenabled == "D"
                else (self.disabled_event_triggers, self.event_triggers)
            )
            if name in source:
                target[name] = source.pop(name)
            return []
        if (
            isinstance(tree, ast.DropStmt)
            and tree.removeType == enums.ObjectType.OBJECT_EVENT_TRIGGER
        ):
            for obj in tree.objects or ():
                self.event_triggers.pop(str(getattr(obj, "sval", "")), None)
                self.disabled_event_triggers.pop(str(getattr(obj, "sval", "")), None)
            return []
        if tree is None:
            return []
        return sorted({t.function for t in self.event_triggers.values() if fires(t, tree)})

    def _schemas(self, tree: Any) -> None:
        """Note a schema a CREATE SCHEMA makes, forget one a DROP SCHEMA drops."""
        if isinstance(tree, ast.CreateSchemaStmt) and tree.schemaname:
            self.schemas.add(str(tree.schemaname))
        elif isinstance(tree, ast.DropStmt) and tree.removeType == enums.ObjectType.OBJECT_SCHEMA:
            for obj in tree.objects or ():
                self.schemas.discard(str(getattr(obj, "sval", "")))

    def _rename_temporary(self, statement: Statement) -> None:
        """A temporary object the session keeps, renamed (issue 21 review 21i E13): it is
        kept by its new name, and its old name no longer names it."""
        found = temp_schema.renamed(tree_of(statement))
        earlier = None if found is None else self.kept.pop((TEMPORARY, found[0]), None)
        if found is None or earlier is None:
            return
        old, new = found
        what = f"{earlier.what.removesuffix(f' {old}')} {new} (renamed from {old})"
        self.kept[(TEMPORARY, new)] = replace(earlier, name=new, what=what)

    def _keep(self, change: Kept, key: tuple[int, int], where: str, statement: Statement) -> None:
        spot = f"{where}:{statement.line}" if where else ""
        earlier = self.kept.get((change.kind, change.name))
        if earlier is not None and self.reaches(earlier) and not self.reaches(change):
            return  # another role's default does not undo the change of the run's own
        self.kept[(change.kind, change.name)] = replace(change, where=spot, version=key[0])

    def _savepoint(self, change: Savepoint, stack: list[Any]) -> None:
        if change.action == "savepoint":
            stack.append((change.name, list(self.settings), dict(self.kept), dict(self.lost)))
            return
        for i in range(len(stack) - 1, -1, -1):
            if stack[i][0] == change.name:
                if change.action == "rollback to":
                    # The savepoint stays; what came after it is undone.
                    _, settings, kept, lost = stack[i]
                    self.settings, self.kept, self.lost = list(settings), dict(kept), dict(lost)
                    del stack[i + 1 :]
                else:
                    del stack[i:]
                return

    def _set(self, change: Setting) -> None:
        # A setting changed out of sight is known again once a replayable change sets it
        # (RESET ALL: every one but the role's, which RESET ALL leaves alone). A default
        # changed for new sessions (ALTER ROLE / DATABASE) only by a value: a reset goes back
        # to the old session's default, which a new session does not start with.
        for store in (self.kept, self.lost):
            for k, unknown in list(store.items()):
                name = unknown.name
                if unknown.kind not in (UNKNOWN, DEFAULTS) or name is None or name.endswith("()"):
                    continue
                if unknown.kind == DEFAULTS and (change.resets or change.target == ALL):
                    continue
                if name == change.target or (
                    change.target == ALL and name not in ("role", AUTHORIZATION)
                ):
                    del store[k]
        if change.target == ALL:
            kept: list[Setting] = []
            for setting in self.settings:
                if setting.target in (ROLE, AUTHORIZATION):
                    kept.append(setting)
                elif _custom(setting.target):
                    # A custom setting (``app.x``) once set stays defined in the session,
                    # empty, after RESET ALL; on a new session RESET defines it so.
                    kept.append(replace(_reset(setting.target), where=change.where))
            # RESET ALL itself is not replayed: a new session starts there (issue 21
            # review21c F5: a replay of what changes nothing must not be able to fail).
            self.settings = kept
            return
        if change.target == ROLE and change.resets:
            # RESET ROLE ends the role changes since the session authorization last changed:
            # what was set under them keeps its value (PostgreSQL docs, SET ROLE), and is
            # replayed as the runner (the role may be gone since: review21c F5).
            settings = self.settings
            auth = max((i for i, s in enumerate(settings) if s.target == AUTHORIZATION), default=-1)
            self.settings = [s for i, s in enumerate(settings) if i <= auth or s.target != ROLE]
            return
        if change.target == AUTHORIZATION and change.resets:
            self.settings = [s for s in self.settings if s.target not in (ROLE, AUTHORIZATION)]
            return
        if change.target not in (ROLE, AUTHORIZATION):
            self.settings = [s for s in self.settings if s.target != change.target]
            if change.resets and not _custom(change.target):
                return  # back to the default a new session starts with: nothing to replay
        self.settings.append(change)

    def _compact(self) -> None:
        """Drop role changes nothing replays under: a role change right before another that
        supersedes it (SET ROLE before SET ROLE; anything before SET SESSION AUTHORIZATION,
        which resets the role), and role resets at the start (a new session has them)."""
        kept: list[Setting] = []
        for setting in self.settings:
            if kept and kept[-1].target in (ROLE, AUTHORIZATION):
                last = kept[-1]
                if setting.target == AUTHORIZATION or (
                    setting.target == ROLE and last.target == ROLE
                ):
                    kept.pop()
            kept.append(setting)
        while kept and kept[0].target in (ROLE, AUTHORIZATION) and kept[0].resets:
            kept.pop(0)
        self.settings = kept

    def _end(self, change: Ended) -> None:
        for store in (self.kept, self.lost):
            for key in [k for k in store if k[0] == change.kind]:
                if change.name is None or key[1] == change.name:
                    del store[key]

    def new_session(self) -> None:
        """The lineage goes on on a new session: what the old one kept is lost."""
        self.lost.update(self.kept)
        self.kept = {}
        self.prepared = {}

    def refusal(self, step: Step, functions: Mapping[str, Needs] | frozenset[str]) -> Kept | None:
        """The lost thing ``step`` could depend on (see could_depend), if any: the step must
        not run on this session."""
        lost = [k for k in self.lost.values() if not self.accepted(k) and self.reaches(k)]
        if not lost:
            return None
        for statement in step.statements:
            needs = statement_needs(statement)
            for kept in lost:
                if could_depend(needs, kept, functions):
                    return kept
        return None

    def reaches(self, kept: Kept) -> bool:
        """True when the run's new sessions lack ``kept``: always, but for a changed default
        of another role's or database's sessions (role settings apply to the login role, by
        name: ALTER ROLE docs; CURRENT_USER, which a SET ROLE may have made another role,
        counts as the runner's)."""
        if kept.applies_to is None or self.identity is None:
            return True
        role, database = kept.applies_to
        user, dbname = self.identity
        return role in (None, "", user) and database in (None, dbname)

    def accepted(self, kept: Kept | Setting) -> bool:
        """True when the operator accepted ``kept`` as lost (accept_lost_session_state): a
        thing kept, or a setting a new session could not replay."""
        through = self.accepted_through
        return through is not None and kept.version is not None and kept.version <= through


def _may_set_path(lowered: str) -> bool:
    """A cheap test of a statement's lower-case text before its tree is read: may it set the
    search_path (SET search_path, SET SCHEMA, set_config)?"""
    return "search_path" in lowered or "schema" in lowered or "set_config" in lowered


def _may_prepare(lowered: str, prepared: bool) -> bool:
    """A cheap test of a statement's lower-case text before its tree is read: may it prepare,
    run or end a prepared statement (DISCARD only when one is ``prepared``)?"""
    if "prepare" in lowered or "execute" in lowered or "deallocate" in lowered:
        return True
    return prepared and "discard" in lowered


def _changer_kept(name: str, in_database: bool = False) -> Kept:
    """The unknown session state a call of ``name`` (see session_changing_functions) leaves:
    a function's, an aggregate's, or an operator's (named by its symbol); ``in_database``:
    one the database has that the migrations do not create (statements.database_routines)."""
    if in_database:
        what = f"{name}(), a function the database has (not made by the migrations) that "
        return Kept(UNKNOWN, f"{name}()", what + "changes the session")
    if name.startswith(bound_functions.CAST_PREFIX):
        cast = name[len(bound_functions.CAST_PREFIX) :]
        what = f"cast to {cast}, whose function the migrations create changes the session"
    elif name[:1].isalpha() or name[:1] == "_":
        what = f"{name}(), a function the migrations create that changes the session"
    else:
        what = f"operator {name}, whose function the migrations create changes the session"
    return Kept(UNKNOWN, f"{name}()", what)


def _local_path(
    tree: Any, lowered: str, local: tuple[str, ...] | str | None
) -> tuple[str, ...] | str | None:
    """The transaction's own search_path after ``tree`` (its text ``lowered``) ran, from
    ``local`` before it: a
    ``SET LOCAL search_path`` or ``set_config('search_path', v, true)`` sets it; a session-
    level one ends it (its value is in force for the rest of the transaction too)."""
    if isinstance(tree, ast.VariableSetStmt):
        if tree.kind == enums.VariableSetKind.VAR_RESET_ALL:
            return None
        found = temp_schema.set_path(tree)
        if found is None:
            return local
        return found if tree.is_local else None
    if tree is None or "set_config" not in lowered:
        return local
    for node in walk(tree):
        found = temp_schema.set_config_path(node)
        if found is None:
            continue
        args = list(node.args or ())
        is_local = _boolean(args[2]) if len(args) == 3 else None
        local = found if is_local is True else None if is_local is False else temp_schema.UNKNOWN
    return local


#: The statements that write rows of the table they name (and so fire its triggers).
_WRITES = (ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt, ast.MergeStmt)


def written_tables(node: Any) -> set[str]:
    """The tables (lower-case name, no schema) whose rows ``node`` writes, in a CTE or a
    function-less DO block's static SQL alike: INSERT, UPDATE, DELETE, MERGE, COPY ... FROM,
    TRUNCATE."""
    found: set[str] = set()
    for child in walk(node):
        writes = isinstance(child, _WRITES) or (isinstance(child, ast.CopyStmt) and child.is_from)
        if writes and child.relation is not None:
            found.add(str(child.relation.relname).lower())
        elif isinstance(child, ast.TruncateStmt):
            found |= {str(r.relname).lower() for r in child.relations or ()}
    if isinstance(node, ast.DoStmt):
        for inner, _ in parsed_queries(do_block_sql(_deparse(node))):
            found |= written_tables(inner)
    return found


def _custom(target: str) -> bool:
    """True for a custom setting (``prefix.name``): a placeholder the session defines."""
    return "." in target and not target.startswith("load ")


def _reset(target: str) -> Setting:
    node = ast.VariableSetStmt(kind=enums.VariableSetKind.VAR_RESET, name=target, is_local=False)
    return Setting(target, _deparse(node), resets=True)


def history_state(
    history: Sequence[tuple[tuple[int, int], Step, str]],
    *,
    changers: frozenset[str] = frozenset(),
    accepted_through: int | None = None,
    identity: tuple[str, str] | None = None,
    database_changers: frozenset[str] = frozenset(),
) -> SessionState:
    """The state a new run's first session starts from: the settings of every applied step of
    ``history`` ((version, index), step, file) in journal order, as one session would have
    them; and, lost, everything session-lived those steps left that no later applied step
    ended (a temporary table, a setting changed out of sight, ...), whichever migration made
    it: the journal says it was made, and no new session has it. So a refusal a lost session
    caused is made again by every rerun, until the operator accepts it (``accepted_through``)
    or a step ends it."""
    state = SessionState(
        changers=changers,
        accepted_through=accepted_through,
        identity=identity,
        database_changers=database_changers,
    )
    for key, step, where in history:
        state.apply(key, step, where)
    state.new_session()
    return state


def first_refusal(
    state: SessionState,
    pending: Sequence[tuple[tuple[int, int], Step, str]],
    functions: Mapping[str, Needs] | frozenset[str],
) -> tuple[int, Kept] | None:
    """What up would meet on a new run's first session ``state`` (history_state): the index
    in ``pending`` of the first step it would refuse for lost session state, and what that
    step could depend on; None when it refuses none. The steps before it are folded in as up
    folds them, so a step that ends the lost state (a DROP TABLE, a plain SET) clears it."""
    for index, (key, step, where) in enumerate(pending):
        if state.lost:
            lost = state.refusal(step, functions)
            if lost is not None:
                return index, lost
        state.apply(key, step, where)
    return None


def describe(kept: Kept) -> str:
    """``temporary table tmp (made at 0002_x.sql:3)``, for messages."""
    return f"{kept.what} (made at {kept.where})" if kept.where else kept.what


def accepted_version_problem(version: int, migrations: Iterable[Migration]) -> str | None:
    """Why ``version`` (accept_lost_session_state) accepts nothing: no migration of the
    directory has it, or that migration makes no session state a new session could lack (no
    setting, nothing session-lived); None when it names one that does (issue 21 review21c
    F10: a version accepted by mistake, kept in the config, accepted every later loss)."""
    every = sorted(migrations, key=lambda m: m.version)
    found = [m for m in every if m.version == version]
    if not found:
        return f"{version} is not a migration of the directory"
    for step in found[0].steps:
        for statement in step.statements:
            if any(isinstance(c, Setting | Kept) for c in statement.session_changes):
                return None
            needs = statement_needs(statement)
            if needs.opaque or needs.calls:
                return None  # a call may change the session in ways the parse cannot see
    if _makes_state_in_context(version, every):
        return None
    return f"{found[0].filename} makes no session state a new session could lack"


def _makes_state_in_context(version: int, migrations: Sequence[Migration]) -> bool:
    """True when migration ``version`` makes session state only the earlier ones let it make:
    a table created unqualified under an earlier file's ``SET search_path = pg_temp`` (F4),
    an ``EXECUTE`` of a statement an earlier file prepared (S1). Read by folding the
    migrations up to it, as one session runs them."""
    statements = [s for m in migrations for step in m.steps for s in step.statements]
    state = SessionState(changers=function_facts(statements).changers)
    for migration in migrations:
        if migration.version > version:
            break
        for step in migration.steps:
            state.apply((migration.version, step.index), step, migration.filename)
            if migration.version == version and (
                any(k.version == version for k in state.kept.values())
                or any(s.version == version for s in state.settings)
            ):
                return True
    return False


def refuse_accepted_version(version: int | None, migrations: Iterable[Migration]) -> None:
    """Raise BadInputError (exit 2) when ``version`` (accept_lost_session_state) accepts
    nothing: see accepted_version_problem."""
    problem = accepted_version_problem(version, migrations) if version is not None else None
    if problem is not None:
        raise BadInputError(
            f"accept_lost_session_state (--accept-lost-session-state): {problem}",
            hint="name the migration whose applied step made the state up refused",
        )
