"""What a statement creates in the session's temporary schema, whether it says TEMP or not.
Pure: facts from PostgreSQL's parse tree (pglast), no I/O.

An object lives in ``pg_temp`` (and ends with the session) when its CREATE says TEMP or
TEMPORARY, when its name is qualified with ``pg_temp`` or a ``pg_temp_N`` schema, or when
its name is unqualified and the search_path in force puts ``pg_temp`` first: PostgreSQL
creates an unqualified object in the first schema of the path that exists, and a table
made so is temporary as if TEMP were written (``RangeVarAdjustRelationPersistence`` in
src/backend/catalog/namespace.c; PostgreSQL docs, 5.9.3 The Schema Search Path). A view
that reads a temporary relation is temporary too (docs, CREATE VIEW: "If any of the tables
referenced by the view are temporary, the view is created as a temporary view").

Which entries of the path exist is not known without the database, and PostgreSQL skips
the missing ones (``recomputeNamespacePath`` in namespace.c): so only a schema known to
exist ends the search before ``pg_temp`` (``pg_catalog``, ``public``, one the migrations
create); any other one, ``"$user"`` included, may be missing, and an unqualified CREATE
under such a path counts as made in ``pg_temp`` (issue 21, review 21i E14).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pglast
from pglast import ast, enums

from ..lint.context import walk
from ..lint.search_path import path_of_value
from .pg_settings_writes import folded_string

#: The entry of a search_path that names the session's own temporary schema.
TEMP_SCHEMA = "pg_temp"
#: The search_path entry that names the role's own schema, if it has one.
USER_SCHEMA = "$user"


def is_temp_schema(name: str | None) -> bool:
    """True for ``pg_temp`` and ``pg_temp_N`` (a session's temporary schema by its own name)."""
    if name is None:
        return False
    lowered = name.lower()
    if lowered == TEMP_SCHEMA:
        return True
    prefix = TEMP_SCHEMA + "_"
    return lowered.startswith(prefix) and lowered[len(prefix) :].isdigit()


#: The schemas taken to exist in every database: the catalog, and ``public``, which every
#: database has unless someone dropped it.
KNOWN_SCHEMAS = frozenset({"pg_catalog", "public"})


def creates_in_temp(path: Iterable[str] | None, existing: Iterable[str] = ()) -> bool:
    """True when an unqualified CREATE under the search_path ``path`` may make a temporary
    object: a temporary schema comes before any schema known to exist (KNOWN_SCHEMAS and
    ``existing``, the ones the migrations created); False for None (the default path,
    ``"$user", public``)."""
    known = KNOWN_SCHEMAS.union(existing)
    for entry in path or ():
        if is_temp_schema(entry):
            return True
        if entry != USER_SCHEMA and entry in known:
            return False
    return False


#: What a statement may do to the search_path: a path, or UNKNOWN (a value not known here).
UNKNOWN = "unknown"


def set_path(node: Any) -> tuple[str, ...] | str | None:
    """The search_path a ``SET search_path`` (``SET SCHEMA``) or a ``SET ... = DEFAULT`` node
    sets: the entries, one per argument (the server quotes each as one name); ``()`` for
    DEFAULT and RESET; None when ``node`` sets another setting."""
    if not isinstance(node, ast.VariableSetStmt) or str(node.name).lower() != "search_path":
        return None
    kind = enums.VariableSetKind
    if node.kind in (kind.VAR_SET_DEFAULT, kind.VAR_RESET):
        return ()
    if node.kind != kind.VAR_SET_VALUE:
        return UNKNOWN
    values = [folded_string(a) for a in node.args or ()]
    if any(v is None for v in values):
        return UNKNOWN
    return tuple(str(v) for v in values)


def set_config_path(call: Any) -> tuple[str, ...] | str | None:
    """The search_path a ``set_config('search_path', value, ...)`` call sets (UNKNOWN when
    its value is not a constant that splits); None when it is no call of set_config that
    may name search_path."""
    funcname: Any = call.funcname if isinstance(call, ast.FuncCall) else None
    if not funcname or str(funcname[-1].sval).lower() != "set_config":
        return None
    if len(funcname) == 2 and funcname[0].sval != "pg_catalog":
        return None
    args = list(call.args or ())
    name = folded_string(args[0]) if args else None
    if name is not None and name.strip().lower() != "search_path":
        return None
    value = folded_string(args[1]) if len(args) == 3 else None
    if name is None or value is None:
        return UNKNOWN
    path = path_of_value(value)
    return UNKNOWN if path is None else path


@functools.lru_cache(maxsize=256)
def replayed_path(sql: str) -> tuple[str, ...] | str:
    """The search_path the replayed setting ``sql`` (a ``SET search_path`` or the
    ``SELECT pg_catalog.set_config(...)`` session_state replays) gives; UNKNOWN when it does
    not read as one. Cached: a history asks it of the same setting at every statement."""
    try:
        [raw] = pglast.parse_sql(sql)
    except (pglast.parser.ParseError, ValueError):
        return UNKNOWN
    found = set_path(raw.stmt)
    if found is not None:
        return found
    for node in walk(raw.stmt):
        found = set_config_path(node)
        if found is not None:
            return found
    return UNKNOWN


@dataclass(frozen=True)
class Created:
    """An object a statement creates that may live in the temporary schema."""

    #: ``table``, ``view``, ``sequence``, ``type``, ``function``...: for messages.
    what: str
    #: The schema its name is qualified with, if any.
    schema: str | None
    name: str
    #: True when its CREATE says TEMP / TEMPORARY.
    temporary: bool = False
    #: True when it cannot be temporary whatever the path (UNLOGGED, ON COMMIT DROP: the
    #: former is an error in pg_temp, the latter ends with its transaction).
    never_kept: bool = False
    #: For a view: the unqualified or pg_temp relations it reads.
    reads: frozenset[str] = frozenset()


def _relation(what: str, rel: Any, on_commit: Any = None) -> Created | None:
    if rel is None:
        return None
    return Created(
        what,
        rel.schemaname,
        str(rel.relname),
        temporary=rel.relpersistence == "t",
        never_kept=rel.relpersistence == "u" or on_commit == enums.OnCommitAction.ONCOMMIT_DROP,
    )


def _named(what: str, names: Any) -> Created | None:
    parts = [str(getattr(p, "sval", "")) for p in names or ()]
    if not parts or not parts[-1]:
        return None
    return Created(what, parts[-2] if len(parts) >= 2 else None, parts[-1])


_DEFINED = {
    enums.ObjectType.OBJECT_TYPE: "type",
    enums.ObjectType.OBJECT_OPERATOR: "operator",
    enums.ObjectType.OBJECT_AGGREGATE: "aggregate",
    enums.ObjectType.OBJECT_COLLATION: "collation",
}


def created(node: Any) -> Created | None:
    """What the top-level ``node`` creates that could be temporary, else None."""
    if isinstance(node, ast.CreateStmt):
        return _relation("table", node.relation, node.oncommit)
    if isinstance(node, ast.CreateTableAsStmt) and node.into is not None:
        return _relation("table", node.into.rel, node.into.onCommit)
    if isinstance(node, ast.SelectStmt) and node.intoClause is not None:
        return _relation("table", node.intoClause.rel, node.intoClause.onCommit)
    if isinstance(node, ast.CreateSeqStmt):
        return _relation("sequence", node.sequence)
    if isinstance(node, ast.ViewStmt):
        found = _relation("view", node.view)
        if found is None:
            return None
        reads = frozenset(
            str(n.relname)
            for n in walk(node.query)
            if isinstance(n, ast.RangeVar)
            and (n.schemaname is None or is_temp_schema(n.schemaname))
        )
        return Created(found.what, found.schema, found.name, found.temporary, reads=reads)
    if isinstance(node, ast.CompositeTypeStmt):
        rel = node.typevar
        return None if rel is None else Created("type", rel.schemaname, str(rel.relname))
    if isinstance(node, ast.CreateEnumStmt | ast.CreateRangeStmt):
        return _named("type", node.typeName)
    if isinstance(node, ast.CreateDomainStmt):
        return _named("domain", node.domainname)
    if isinstance(node, ast.CreateFunctionStmt):
        return _named("procedure" if node.is_procedure else "function", node.funcname)
    if isinstance(node, ast.DefineStmt) and node.kind in _DEFINED:
        return _named(_DEFINED[node.kind], node.defnames)
    return None


#: The kinds (parse node names) of the statements ``created`` reads, and a DO block's, whose
#: statements may too: a cheap test before the search_path is looked at.
CREATING_KINDS = frozenset(
    {
        *("CreateStmt", "CreateTableAsStmt", "SelectStmt", "CreateSeqStmt", "ViewStmt"),
        *("CompositeTypeStmt", "CreateEnumStmt", "CreateRangeStmt", "CreateDomainStmt"),
        *("CreateFunctionStmt", "DefineStmt", "DoStmt"),
    }
)


def made_temporary(
    node: Any, path_in_temp: bool, temporary_relations: frozenset[str] = frozenset()
) -> Created | None:
    """The temporary object the top-level ``node`` makes, kept after its transaction: one its
    CREATE says is TEMP, one qualified with a temporary schema, one unqualified while the
    search_path creates in pg_temp (``path_in_temp``), or a view that reads one of
    ``temporary_relations`` (the session's temporary tables and views, by name)."""
    found = created(node)
    if found is None or found.never_kept:
        return None
    if found.temporary or is_temp_schema(found.schema):
        return found
    if found.schema is None and (path_in_temp or found.reads & temporary_relations):
        return found
    return None


#: The renames whose object may be a temporary one, by how the object is named: a relation
#: (ALTER TABLE also renames a view or sequence), a type, a routine.
_RENAMED_RELATIONS = frozenset(
    {
        enums.ObjectType.OBJECT_TABLE,
        enums.ObjectType.OBJECT_VIEW,
        enums.ObjectType.OBJECT_SEQUENCE,
    }
)
_RENAMED_TYPES = frozenset({enums.ObjectType.OBJECT_TYPE, enums.ObjectType.OBJECT_DOMAIN})
_RENAMED_ROUTINES = frozenset(
    {
        enums.ObjectType.OBJECT_FUNCTION,
        enums.ObjectType.OBJECT_PROCEDURE,
        enums.ObjectType.OBJECT_ROUTINE,
        enums.ObjectType.OBJECT_AGGREGATE,
    }
)


def renamed(node: Any) -> tuple[str, str] | None:
    """The (old, new) names of the object an ``ALTER ... RENAME TO`` of the top-level
    ``node`` renames when that object may live in pg_temp (issue 21 review 21i E13): a
    relation or type named unqualified (pg_temp is searched first for them: PostgreSQL docs,
    5.9.3) or in a temporary schema, a routine in a temporary schema (an unqualified name
    never finds one there). None for any other statement. A rename keeps the schema
    (RenameRelation, namespace.c), so the new name is in pg_temp too."""
    if not isinstance(node, ast.RenameStmt) or not node.newname:
        return None
    kind = node.renameType
    parts: list[str]
    if kind in _RENAMED_RELATIONS and node.relation is not None:
        rel: Any = node.relation
        parts = [str(p) for p in (rel.schemaname, rel.relname) if p is not None]
    elif kind in _RENAMED_TYPES and isinstance(node.object, tuple | list):
        parts = [str(getattr(p, "sval", "")) for p in node.object]
    elif kind in _RENAMED_ROUTINES and isinstance(node.object, ast.ObjectWithArgs):
        parts = [str(getattr(p, "sval", "")) for p in node.object.objname or ()]
        if len(parts) < 2:
            return None
    else:
        return None
    if not parts or (len(parts) > 1 and not is_temp_schema(parts[-2])):
        return None
    return parts[-1], str(node.newname)


#: The functions that take a relation as ``regclass`` (or its name as text, which they look up
#: as regclass does): a string literal given to one names a relation, found in pg_temp first
#: as an unqualified relation name is (issue 21 review21h D8). PostgreSQL 15's pg_proc, and
#: the contrib modules' common ones.
REGCLASS_FUNCTIONS = frozenset(
    {
        *("nextval", "currval", "setval", "pg_sequence_last_value", "to_regclass"),
        *("pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size"),
        *("pg_relation_filenode", "pg_relation_filepath", "pg_get_serial_sequence"),
        *("pg_partition_tree", "pg_partition_ancestors", "pg_partition_root"),
        *("pg_get_replica_identity_index", "pg_relation_is_updatable", "pg_column_is_updatable"),
        *("pg_get_viewdef", "has_table_privilege", "has_sequence_privilege"),
        *("has_column_privilege", "has_any_column_privilege", "gin_clean_pending_list"),
        *("brin_summarize_new_values", "brin_summarize_range", "brin_desummarize_range"),
        *("pgstattuple", "pgstattuple_approx", "pgstatindex", "pg_prewarm"),
        *("bt_index_check", "bt_index_parent_check", "pg_visibility_map", "pg_check_frozen"),
    }
)


def qualified_name(text: str) -> tuple[str, ...] | None:
    """The parts of a relation name as regclass reads a string (``public.s``, ``"My S"``):
    dot-separated identifiers, double-quoted ones as written, others folded to lower case
    (``stringToQualifiedNameList``, varlena.c SplitIdentifierString); None when it does not
    split so (the server refuses such a name)."""
    parts: list[str] = []
    rest = text.strip()
    while True:
        if rest.startswith('"'):
            name = ""
            end = 1
            while True:
                close = rest.find('"', end)
                if close < 0:
                    return None
                name += rest[end:close]
                if rest[close + 1 : close + 2] != '"':
                    rest = rest[close + 1 :].strip()
                    break
                name += '"'
                end = close + 2
        else:
            stop = len(rest)
            for i, char in enumerate(rest):
                if char == "." or char.isspace():
                    stop = i
                    break
            name = rest[:stop].lower()
            rest = rest[stop:].strip()
            if not name or '"' in name:
                return None
        parts.append(name)
        if not rest:
            return tuple(parts)
        if not rest.startswith("."):
            return None
        rest = rest[1:].strip()


def _is_regclass(type_name: Any) -> bool:
    parts = [str(getattr(p, "sval", "")).lower() for p in type_name.names or ()]
    return parts in (["regclass"], ["pg_catalog", "regclass"]) and not type_name.arrayBounds


def temporary_name(text: str | None) -> str | None:
    """The relation the regclass string ``text`` may name in pg_temp: its name when it is
    unqualified (found in pg_temp first) or qualified with a temporary schema, else None."""
    parts = None if text is None else qualified_name(text)
    if not parts or len(parts) > 3:
        return None
    if len(parts) == 1 or is_temp_schema(parts[-2]):
        return parts[-1]
    return None


def relations_named(node: Any) -> tuple[str, ...]:
    """The relations ``node`` names in a string that may be in pg_temp: a string literal
    cast to regclass (``'s'::regclass``), or given to a function in REGCLASS_FUNCTIONS
    (``nextval('s')``)."""
    if isinstance(node, ast.TypeCast) and node.typeName is not None:
        if not _is_regclass(node.typeName):
            return ()
        found = temporary_name(folded_string(node.arg))
        return () if found is None else (found,)
    if not isinstance(node, ast.FuncCall) or not node.funcname:
        return ()
    # Any schema: the contrib ones live where their extension was created.
    if str(getattr(node.funcname[-1], "sval", "")).lower() not in REGCLASS_FUNCTIONS:
        return ()
    names = (temporary_name(folded_string(arg)) for arg in node.args or ())
    return tuple(name for name in names if name is not None)


def names_relation_at_run_time(node: Any) -> bool:
    """True when ``node`` takes a relation by a name only the run computes: a regclass cast,
    or the first argument of a function in REGCLASS_FUNCTIONS, that is no constant
    (``nextval(format('%s', 's'))``): it may be a temporary relation as much as any other."""
    if isinstance(node, ast.TypeCast) and node.typeName is not None:
        return _is_regclass(node.typeName) and _computed(node.arg)
    if not isinstance(node, ast.FuncCall) or not node.funcname or not node.args:
        return False
    if str(getattr(node.funcname[-1], "sval", "")).lower() not in REGCLASS_FUNCTIONS:
        return False
    return _computed(node.args[0])


def _computed(arg: Any) -> bool:
    """True for an argument whose text no constant gives (a call, a column, a parameter)."""
    if isinstance(arg, ast.A_Const):
        return False
    if isinstance(arg, ast.TypeCast):
        return _computed(arg.arg)
    return folded_string(arg) is None
