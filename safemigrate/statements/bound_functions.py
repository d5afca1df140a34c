"""The functions a CREATE OPERATOR / AGGREGATE / CAST / EVENT TRIGGER / TYPE / OPERATOR CLASS
binds: PostgreSQL calls them later without their names being written (an operator or an
aggregate in an expression, a cast, an event trigger on DDL, a type's I/O functions, an
index's support functions). One reading for the timeout guard (lint.walker judges their
bodies at that CREATE) and the session state (a use of the operator or aggregate is a call of
its functions). Pure: facts from PostgreSQL's parse tree (pglast), no I/O.
"""

from __future__ import annotations

from typing import Any

from pglast import ast, enums

from .parsed import walk

#: The CREATE OPERATOR / CREATE AGGREGATE keys naming a function PostgreSQL calls itself.
BINDING_KEYS = frozenset(
    {
        *("function", "procedure", "restrict", "join"),
        *("sfunc", "finalfunc", "combinefunc", "serialfunc", "deserialfunc"),
        *("msfunc", "minvfunc", "mfinalfunc"),
    }
)


#: The CREATE TYPE keys naming a support function: a base type's I/O and typmod functions,
#: its ANALYZE and SUBSCRIPT handlers, a range's SUBTYPE_DIFF and CANONICAL (PostgreSQL docs,
#: CREATE TYPE): the server calls them whenever a value is read, written, sent, analyzed,
#: subscripted or normalized, with no call written.
TYPE_KEYS = frozenset(
    {
        *("input", "output", "receive", "send", "typmod_in", "typmod_out"),
        *("analyze", "subscript", "subtype_diff", "canonical"),
    }
)
#: CreateOpClassItem.itemtype of a FUNCTION n item (OPCLASS_ITEM_FUNCTION in parsenodes.h).
_OPCLASS_ITEM_FUNCTION = 2


def _defined_functions(definition: Any, keys: frozenset[str]) -> list[str]:
    """The function names a CREATE's ``definition`` (DefElems) gives under ``keys``."""
    names = []
    for item in definition or ():
        arg = getattr(item, "arg", None)
        if not isinstance(item, ast.DefElem) or item.defname not in keys:
            continue
        if isinstance(arg, ast.TypeName) and arg.names:
            names.append(str(arg.names[-1].sval))
        elif isinstance(arg, ast.String):
            names.append(str(arg.sval))
    return names


def _opclass_functions(items: Any) -> list[str]:
    """The support functions an operator class's or family's ``FUNCTION n f(...)`` items
    bind: the access method calls them on every index scan, build and sort."""
    return [
        str(item.name.objname[-1].sval)
        for item in items or ()
        if isinstance(item, ast.CreateOpClassItem)
        and item.itemtype == _OPCLASS_ITEM_FUNCTION
        and item.name is not None
        and item.name.objname
    ]


def bound_functions(node: Any) -> tuple[str, list[str]]:
    """What ``node`` is called in messages and the functions it binds for PostgreSQL to call
    without their names being written: an operator's, an aggregate's, a cast's, an event
    trigger's (issue 21 review21e G1-G4), a type's support functions, an operator class's or
    family's. Empty when it binds none."""
    defined: Any
    if isinstance(node, ast.DefineStmt) and node.kind in (
        enums.ObjectType.OBJECT_OPERATOR,
        enums.ObjectType.OBJECT_AGGREGATE,
    ):
        kind = "OPERATOR" if node.kind == enums.ObjectType.OBJECT_OPERATOR else "AGGREGATE"
        defined = node.defnames
        return f"CREATE {kind} {defined[-1].sval}", _defined_functions(
            node.definition, BINDING_KEYS
        )
    if isinstance(node, ast.DefineStmt) and node.kind == enums.ObjectType.OBJECT_TYPE:
        defined = node.defnames
        return f"CREATE TYPE {defined[-1].sval}", _defined_functions(node.definition, TYPE_KEYS)
    if isinstance(node, ast.CreateRangeStmt):
        defined = node.typeName
        return f"CREATE TYPE {defined[-1].sval}", _defined_functions(node.params, TYPE_KEYS)
    if isinstance(node, ast.CreateOpClassStmt):
        defined = node.opclassname
        return f"CREATE OPERATOR CLASS {defined[-1].sval}", _opclass_functions(node.items)
    if isinstance(node, ast.AlterOpFamilyStmt) and not node.isDrop:
        defined = node.opfamilyname
        return f"ALTER OPERATOR FAMILY {defined[-1].sval}", _opclass_functions(node.items)
    if isinstance(node, ast.CreateCastStmt) and node.func is not None and node.func.objname:
        return "CREATE CAST", [str(node.func.objname[-1].sval)]
    if isinstance(node, ast.CreateEventTrigStmt) and node.funcname:
        return f"CREATE EVENT TRIGGER {node.trigname}", [str(node.funcname[-1].sval)]
    return "", []


#: How a use of a cast is named among a statement's calls: ``::`` and the target type.
CAST_PREFIX = "::"


def cast_use(type_name: Any) -> str | None:
    """The call name of a cast to the type ``type_name`` (a TypeName): ``::mt``."""
    names = getattr(type_name, "names", None)
    if not names:
        return None
    return CAST_PREFIX + str(names[-1].sval).lower()


def used_as(node: Any) -> str | None:
    """The name a later statement uses what the CREATE OPERATOR, CREATE AGGREGATE or CREATE
    CAST ``node`` makes by, as session_state's needs read calls: its operator symbol, its
    aggregate's lower-case name, ``::`` and its cast's target type (written ``x::mt`` or
    ``CAST(x AS mt)``; an implicit or assignment cast runs with no such name written, which
    is not seen); None for anything else."""
    if isinstance(node, ast.CreateCastStmt):
        return cast_use(node.targettype)
    if not isinstance(node, ast.DefineStmt) or not node.defnames:
        return None
    defined: Any = node.defnames
    name = str(defined[-1].sval)
    if node.kind == enums.ObjectType.OBJECT_OPERATOR:
        return name
    if node.kind == enums.ObjectType.OBJECT_AGGREGATE:
        return name.lower()
    return None


#: The statements that keep expressions in the catalog for PostgreSQL to evaluate later: a
#: column DEFAULT or GENERATED expression, a CHECK, a view's or materialized view's query, an
#: index expression or predicate, a domain's CHECK or DEFAULT, a policy, a rule's action.
_STORING = (
    ast.CreateStmt,
    ast.AlterTableStmt,
    ast.ViewStmt,
    ast.CreateTableAsStmt,
    ast.IndexStmt,
    ast.CreateDomainStmt,
    ast.AlterDomainStmt,
    ast.CreatePolicyStmt,
    ast.AlterPolicyStmt,
    ast.RuleStmt,
)


def stored_calls(node: Any) -> tuple[str, list[str]]:
    """What ``node`` makes, in messages, and the functions PostgreSQL calls through it later
    with no call written where it does: a trigger's function, the functions
    :func:`bound_functions` names, and those a stored expression calls (a DEFAULT, a CHECK, a
    view's query, an index expression, a policy, a rule). A function given a SET clause (or a
    new body) after this statement runs with it at every such use (issue 21, review 21i E16).
    A plain ``CREATE TABLE AS`` runs its query once, at once: it stores nothing."""
    if isinstance(node, ast.CreateTrigStmt) and node.funcname and node.relation is not None:
        table = node.relation.relname
        return f"the trigger {node.trigname} on {table}", [str(node.funcname[-1].sval)]
    what, names = bound_functions(node)
    if names:
        return what, names
    if not isinstance(node, _STORING):
        return "", []
    if isinstance(node, ast.CreateTableAsStmt) and node.objtype != enums.ObjectType.OBJECT_MATVIEW:
        return "", []
    found = [
        str(call.funcname[-1].sval)
        for call in walk(node)
        if isinstance(call, ast.FuncCall) and call.funcname
    ]
    return (_stored_what(node), list(dict.fromkeys(found))) if found else ("", [])


def _stored_what(node: Any) -> str:
    """How the object a storing statement makes is named in messages."""
    found: Any = getattr(node, "relation", None) or getattr(node, "view", None)
    if isinstance(node, ast.CreateTableAsStmt) and node.into is not None:
        found = node.into.rel
    relation: Any = found if found is not None else ast.RangeVar(relname="?")
    if isinstance(node, ast.ViewStmt):
        return f"the view {relation.relname}"
    if isinstance(node, ast.CreateTableAsStmt):
        return f"the materialized view {relation.relname}"
    if isinstance(node, ast.IndexStmt):
        return f"the index {node.idxname or 'on ' + str(relation.relname)}"
    if isinstance(node, ast.CreateDomainStmt):
        return "the domain " + ".".join(str(n.sval) for n in node.domainname or ())
    if isinstance(node, ast.AlterDomainStmt):
        return "the domain " + ".".join(str(n.sval) for n in node.typeName or ())
    if isinstance(node, ast.CreatePolicyStmt | ast.AlterPolicyStmt):
        return f"the policy {node.policy_name} on {relation.relname}"
    if isinstance(node, ast.RuleStmt):
        return f"the rule {node.rulename} on {relation.relname}"
    return f"a DEFAULT, GENERATED or CHECK expression of the table {relation.relname}"
