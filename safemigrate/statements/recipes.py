"""The non-blocking recipes of plain constraint statements, and PostgreSQL's names. Pure.

Four everyday ALTER TABLE forms hold a strong lock while they scan the table; each has a
recipe of short parts that let the application read and write meanwhile:

- ``ADD FOREIGN KEY`` / ``ADD CHECK``: ``ADD CONSTRAINT name ... NOT VALID`` (a short lock, no
  scan), then ``VALIDATE CONSTRAINT name`` (SHARE UPDATE EXCLUSIVE: writes go on);
- ``ALTER COLUMN c SET NOT NULL``: a helper ``CHECK (c IS NOT NULL) NOT VALID``, its VALIDATE,
  then ``SET NOT NULL`` (PostgreSQL 12+ skips its scan thanks to the validated check) and the
  helper dropped;
- ``ADD UNIQUE`` / ``ADD PRIMARY KEY``: ``CREATE UNIQUE INDEX CONCURRENTLY name``, then
  ``ADD CONSTRAINT name UNIQUE|PRIMARY KEY USING INDEX name`` (a primary key's nullable columns
  first made NOT NULL by the helper-check recipe).

The names are those PostgreSQL gives the plain statement (``makeObjectName`` and the numbered
labels of ``ChooseConstraintName`` / ``ChooseRelationName``); which candidate is free needs the
catalog, so the db layer picks among :func:`name_candidates`, and among
:func:`helper_candidates` for the NOT NULL recipe's helper checks (:func:`choose_helper_names`
keeps them apart from each other and from the schema's constraints).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pglast
from pglast import ast, enums
from pglast.stream import RawStream

from ..core.model import ConstraintRewrite, LockNeed, QualifiedName, Statement
from . import names as object_names
from .locks import lock_needs
from .parsed import one_index_statement, qualified, tree_of

#: The label of the helper CHECK (col IS NOT NULL) constraint of the NOT NULL recipe.
HELPER_LABEL = "not_null_safemigrate"
#: PostgreSQL version (server_version_num) from which SET NOT NULL uses a validated CHECK.
NOT_NULL_RECIPE_MIN_VERSION = 120000

_AT = enums.AlterTableType
_CT = enums.ConstrType

#: What each recipe is called in notes, plans and errors.
RECIPE_TITLES = {
    "foreign_key": "ADD FOREIGN KEY -> NOT VALID + VALIDATE CONSTRAINT",
    "check": "ADD CHECK -> NOT VALID + VALIDATE CONSTRAINT",
    "not_null": "SET NOT NULL -> validated CHECK (col IS NOT NULL), SET NOT NULL, drop the CHECK",
    "unique": "ADD UNIQUE -> CREATE UNIQUE INDEX CONCURRENTLY + ADD CONSTRAINT USING INDEX",
    "primary_key": (
        "ADD PRIMARY KEY -> CREATE UNIQUE INDEX CONCURRENTLY, NOT NULL via validated CHECKs, "
        "ADD CONSTRAINT USING INDEX"
    ),
}

#: How each plain form is written safely by hand (the hint of ``safe_rewrites = "require"``).
HAND_WRITTEN = {
    "foreign_key": "write ADD CONSTRAINT ... NOT VALID, then VALIDATE CONSTRAINT in a later step",
    "check": "write ADD CONSTRAINT ... CHECK (...) NOT VALID, then VALIDATE CONSTRAINT",
    "not_null": (
        "add CHECK (col IS NOT NULL) NOT VALID, VALIDATE it, then SET NOT NULL and drop the CHECK"
    ),
    "unique": "CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT ... UNIQUE USING INDEX",
    "primary_key": "CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT ... PRIMARY KEY "
    "USING INDEX (columns made NOT NULL safely first)",
}


def name_candidates(rewrite: ConstraintRewrite, count: int = 20) -> list[str]:
    """The names PostgreSQL tries in order for the plain statement: the label, then label1,
    label2, ... (the first one free in the schema is chosen). Only the author's name when
    the statement names its constraint."""
    if rewrite.name is not None:
        return [rewrite.name]
    return object_names.name_candidates(
        rewrite.table.name, rewrite.name_addition, rewrite.name_label, count
    )


def helper_candidates(table: QualifiedName, column: str, count: int = 20) -> list[str]:
    """The names the NOT NULL recipe's helper CHECK on ``column`` may get, in order: like
    ChooseConstraintName, ``<table>_<column>_not_null_safemigrate`` cut to NAMEDATALEN - 1
    bytes, then with the label numbered (``..._safemigrate1``, ...)."""
    return object_names.name_candidates(table.name, column, HELPER_LABEL, count)


def helper_name(table: QualifiedName, column: str) -> str:
    """The first-choice name of the NOT NULL recipe's helper CHECK constraint on ``column``."""
    return helper_candidates(table, column, 1)[0]


def choose_helper_names(
    table: QualifiedName, columns: Sequence[str], taken: Collection[str]
) -> dict[str, str]:
    """column -> the name of its helper CHECK: the first candidate that is not ``taken`` (the
    schema's constraint names, the recipe's own constraint) nor chosen for an earlier column.

    Two long columns with a shared prefix are cut to the same name; as in PostgreSQL's
    ChooseConstraintName, the later one then gets the next number.
    """
    used = set(taken)
    chosen: dict[str, str] = {}
    for column in columns:
        candidates = helper_candidates(table, column)
        # Every candidate taken: the last one, and the server says why.
        name = next((c for c in candidates if c not in used), candidates[-1])
        chosen[column] = name
        used.add(name)
    return chosen


# -- recognising the plain forms ---------------------------------------------------------------


def _names(nodes: Sequence[Any] | None) -> tuple[str, ...]:
    return tuple(n.sval for n in nodes or ())


def _check_references(expression: Any, table: QualifiedName) -> set[tuple[str, str]]:
    """What the column references of a CHECK expression resolve to, as PostgreSQL's
    transformColumnRef resolves them against the one table in scope (its name, or schema and
    name): ``("column", c)``, ``("row", "")`` for a whole-row reference (``t`` or ``t.*``),
    and ``("either", t)`` for a bare name that is the table's, which is the column ``t`` when
    the table has one (tried first) and else the whole row."""
    found: set[tuple[str, str]] = set()

    def resolve(fields: Sequence[Any]) -> tuple[str, str]:
        names = [str(f.sval) if isinstance(f, ast.String) else "*" for f in fields]
        if names[-1] == "*":
            return ("row", "")
        if len(names) == 1:
            return ("either", names[0]) if names[0] == table.name else ("column", names[0])
        if len(names) == 2:
            # table.column, else column.field (a field of a composite column).
            return ("column", names[1] if names[0] == table.name else names[0])
        if len(names) == 3:
            # schema.table.column, else table.column.field.
            is_table = names[1] == table.name and table.schema in (None, names[0])
            return ("column", names[2] if is_table else names[1])
        return ("column", names[3])  # catalog.schema.table.column

    def visit(node: Any) -> None:
        if isinstance(node, ast.ColumnRef):
            found.add(resolve(node.fields or ()))
            return
        if isinstance(node, ast.Node):
            for attr in node:
                visit(getattr(node, attr))
        elif isinstance(node, tuple):
            for item in node:
                visit(item)

    visit(expression)
    return found


def check_name_addition(
    references: Collection[tuple[str, str]], columns: Collection[str] = ()
) -> str | None:
    """The name's middle part PostgreSQL gives a CHECK (AddRelationNewConstraints): the
    column when the expression's distinct Vars (pull_var_clause, list_union) are one column;
    None when they are several, or one whole-row Var (varattno 0 has no attribute name).
    ``columns``: the table's columns among the ``either`` names (see _check_references)."""
    resolved = {
        ("column", name)
        if kind == "either" and name in columns
        else (("row", "") if kind == "either" else (kind, name))
        for kind, name in references
    }
    if len(resolved) != 1:
        return None
    kind, name = next(iter(resolved))
    return name if kind == "column" else None


def _deparse(node: Any) -> str:
    return str(RawStream()(node))


def recognise(node: Any, text: str) -> ConstraintRewrite | str | None:
    """The recipe of a plain constraint statement; a reason string when ``node`` is one of the
    four plain forms but the runner cannot apply it as a recipe; None for anything else. The
    recipe keeps ``node`` as its tree."""
    found = _recognise(node, text)
    if isinstance(found, ConstraintRewrite):
        return dataclasses.replace(found, tree=node)
    return found


def _recognise(node: Any, text: str) -> ConstraintRewrite | str | None:
    if not isinstance(node, ast.AlterTableStmt) or node.objtype != enums.ObjectType.OBJECT_TABLE:
        return None
    commands = node.cmds or ()
    if len(commands) != 1 or not isinstance(commands[0], ast.AlterTableCmd):
        return None
    cmd: Any = commands[0]
    table = qualified(node.relation)
    if cmd.subtype == _AT.AT_SetNotNull:
        if node.missing_ok:
            return "ALTER TABLE IF EXISTS is run as written"
        return ConstraintRewrite(
            "not_null", table, text, None, columns=(cmd.name,), definition=f"{cmd.name} NOT NULL"
        )
    if cmd.subtype != _AT.AT_AddConstraint or not isinstance(cmd.def_, ast.Constraint):
        return None
    con: Any = cmd.def_
    kind = {
        _CT.CONSTR_FOREIGN: "foreign_key",
        _CT.CONSTR_CHECK: "check",
        _CT.CONSTR_UNIQUE: "unique",
        _CT.CONSTR_PRIMARY: "primary_key",
    }.get(con.contype)
    if kind is None:
        return None
    if kind in ("foreign_key", "check") and con.skip_validation:
        return None  # already NOT VALID: the author wrote the safe form
    if kind in ("unique", "primary_key") and con.indexname:
        return None  # already USING INDEX
    if node.missing_ok:
        return "ALTER TABLE IF EXISTS is run as written"
    unnamed = _copy_constraint(con)
    definition = _deparse(unnamed)
    name = con.conname or None
    if kind == "foreign_key":
        fk_columns = _names(con.fk_attrs)
        referenced = qualified(con.pktable)
        return ConstraintRewrite(
            kind,
            table,
            text,
            name,
            columns=fk_columns,
            definition=definition,
            name_addition="_".join(fk_columns),
            name_label="fkey",
            referenced=referenced,
        )
    if kind == "check":
        references = _check_references(con.raw_expr, table)
        either = tuple(sorted(n for k, n in references if k == "either"))
        return ConstraintRewrite(
            kind,
            table,
            text,
            name,
            definition=definition,
            name_addition=check_name_addition(references),
            name_label="check",
            check_references=tuple(sorted(references)) if either else (),
        )
    if con.options or con.indexspace or getattr(con, "without_overlaps", False):
        return "a UNIQUE/PRIMARY KEY with WITH (...), USING INDEX TABLESPACE or WITHOUT OVERLAPS"
    keys = _names(con.keys)
    including = _names(con.including)
    return ConstraintRewrite(
        kind,
        table,
        text,
        name,
        columns=keys + including,
        definition=definition,
        name_addition=None if kind == "primary_key" else "_".join(keys + including),
        name_label="pkey" if kind == "primary_key" else "key",
        key_count=len(keys),
        nulls_not_distinct=bool(con.nulls_not_distinct),
        deferrable=bool(con.deferrable),
        initially_deferred=bool(con.initdeferred),
    )


def recipe_of(statement: Statement) -> ConstraintRewrite | None:
    """The recipe of ``statement`` when it is one of the plain forms the runner can apply as a
    recipe, else None (whatever directive or setting runs it as written now). Read from the
    tree the file's parse built."""
    node = tree_of(statement)
    if node is None:
        return None
    found = recognise(node, statement.text)
    return found if isinstance(found, ConstraintRewrite) else None


def _copy_constraint(con: Any) -> Any:
    """A copy of a Constraint node without its name."""
    copy = ast.Constraint(**{attr: getattr(con, attr) for attr in con})
    copy.conname = None
    return copy


# -- the parts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecipePart:
    """One part of a recipe: its SQL and the locks it takes."""

    #: What it does, for people, e.g. ``validate t_a_fkey``.
    label: str
    sql: str
    locks: tuple[LockNeed, ...]
    #: True for CREATE INDEX CONCURRENTLY, which runs outside a transaction block.
    concurrent: bool = False
    #: True for the closing parts, sent in one transaction together with the journal row.
    final: bool = False


def _statement(rewrite: ConstraintRewrite) -> Any:
    """The tree of the author's statement: the one its parse built, else parsed now."""
    return rewrite.tree if rewrite.tree is not None else _parsed(rewrite.source)


@functools.lru_cache(maxsize=256)
def _parsed(source: str) -> Any:
    return pglast.parse_sql(source)[0].stmt


def _alter(rewrite: ConstraintRewrite, cmd: Any) -> Any:
    """The tree of ``ALTER TABLE <the author's relation> <cmd>``."""
    stmt = _statement(rewrite)
    return ast.AlterTableStmt(relation=stmt.relation, cmds=(cmd,), objtype=stmt.objtype)


def _part(label: str, node: Any, *, concurrent: bool = False, final: bool = False) -> RecipePart:
    """A part whose statement is the tree ``node``: its text deparsed, its locks read from
    the same tree (the text is not parsed back)."""
    needs = tuple(lock_needs(node))
    return RecipePart(label, _deparse(node), needs, concurrent, final)


def _add(rewrite: ConstraintRewrite, constraint: Any) -> Any:
    return _alter(rewrite, ast.AlterTableCmd(subtype=_AT.AT_AddConstraint, def_=constraint))


def _validate(rewrite: ConstraintRewrite, name: str) -> Any:
    return _alter(rewrite, ast.AlterTableCmd(subtype=_AT.AT_ValidateConstraint, name=name))


def _helper_check(column: str, name: str) -> Any:
    expression = ast.NullTest(
        arg=ast.ColumnRef(fields=(ast.String(sval=column),)),
        nulltesttype=enums.NullTestType.IS_NOT_NULL,
    )
    return ast.Constraint(
        contype=_CT.CONSTR_CHECK,
        conname=name,
        raw_expr=expression,
        skip_validation=True,
        initially_valid=False,
        is_enforced=True,
    )


def helper_parts(
    rewrite: ConstraintRewrite, column: str, helper: str
) -> tuple[RecipePart, RecipePart]:
    """The helper CHECK (column IS NOT NULL) NOT VALID called ``helper``, and its VALIDATE."""
    return (
        _part(f"add {helper} NOT VALID", _add(rewrite, _helper_check(column, helper))),
        _part(f"validate {helper}", _validate(rewrite, helper)),
    )


def closing_not_null(
    rewrite: ConstraintRewrite, column: str, helper: str
) -> tuple[RecipePart, RecipePart]:
    """SET NOT NULL (no scan: the validated helper proves it) and DROP of the helper."""
    set_not_null = _alter(rewrite, ast.AlterTableCmd(subtype=_AT.AT_SetNotNull, name=column))
    drop = _alter(rewrite, ast.AlterTableCmd(subtype=_AT.AT_DropConstraint, name=helper))
    set_part = _part(f"set {column} NOT NULL", set_not_null, final=True)
    # The validated helper proves the column has no NULL: the server skips the scan.
    set_part = dataclasses.replace(
        set_part, locks=tuple(dataclasses.replace(n, scans=False) for n in set_part.locks)
    )
    return (
        set_part,
        _part(f"drop {helper}", drop, final=True),
    )


def index_part(rewrite: ConstraintRewrite, name: str) -> RecipePart:
    """CREATE UNIQUE INDEX CONCURRENTLY ``name`` with the constraint's columns."""
    stmt = _statement(rewrite)
    relation = ast.RangeVar(
        schemaname=stmt.relation.schemaname,
        relname=stmt.relation.relname,
        inh=True,
        relpersistence="p",
    )

    def element(column: str) -> Any:
        return ast.IndexElem(
            name=column,
            ordering=enums.SortByDir.SORTBY_DEFAULT,
            nulls_ordering=enums.SortByNulls.SORTBY_NULLS_DEFAULT,
        )

    keys = rewrite.columns[: rewrite.key_count]
    including = rewrite.columns[rewrite.key_count :]
    index = ast.IndexStmt(
        idxname=name,
        relation=relation,
        accessMethod="btree",
        indexParams=tuple(element(c) for c in keys),
        indexIncludingParams=tuple(element(c) for c in including) or None,
        unique=True,
        nulls_not_distinct=rewrite.nulls_not_distinct,
        concurrent=True,
    )
    return _part(f"build index {name} CONCURRENTLY", index, concurrent=True)


def index_shape(definition: str) -> str | None:
    """What a CREATE INDEX text builds, deparsed without what does not change the index: its
    name, table, CONCURRENTLY and IF NOT EXISTS (the recipe's own :func:`index_part` text and
    ``pg_get_indexdef`` of the index it built give the same shape). None when ``definition``
    is not one CREATE INDEX statement."""
    stmt = one_index_statement(definition)
    if stmt is None:
        return None
    shape = ast.IndexStmt(**{attr: getattr(stmt, attr) for attr in stmt})
    shape.idxname = None
    shape.concurrent = False
    shape.if_not_exists = False
    shape.relation = ast.RangeVar(relname="t", inh=True, relpersistence="p")
    return _deparse(shape)


def attach_part(rewrite: ConstraintRewrite, name: str) -> RecipePart:
    """ADD CONSTRAINT ``name`` UNIQUE|PRIMARY KEY USING INDEX ``name``."""
    constraint = ast.Constraint(
        contype=_CT.CONSTR_PRIMARY if rewrite.kind == "primary_key" else _CT.CONSTR_UNIQUE,
        conname=name,
        indexname=name,
        deferrable=rewrite.deferrable,
        initdeferred=rewrite.initially_deferred,
        is_enforced=True,
    )
    return _part(f"attach {name} as the constraint", _add(rewrite, constraint), final=True)


def recipe_parts(
    rewrite: ConstraintRewrite,
    name: str,
    nullable: Sequence[str] | None = None,
    helpers: Mapping[str, str] | None = None,
) -> tuple[RecipePart, ...]:
    """Every part of ``rewrite``'s recipe in order, the constraint called ``name``.

    ``nullable``: the primary key columns still nullable (all of them when unknown); the
    NOT NULL recipe runs for those only. ``helpers``: column -> its helper CHECK's name (the
    db layer's choice against the catalog); by default the first choices, kept apart from each
    other and from ``name``.
    """
    if helpers is None:
        columns = rewrite.columns[:1] if rewrite.kind == "not_null" else rewrite.columns
        helpers = choose_helper_names(rewrite.table, columns, {name})
    if rewrite.kind in ("foreign_key", "check"):
        constraint = _copy_constraint(_statement(rewrite).cmds[0].def_)
        constraint.conname = name
        constraint.skip_validation = True
        constraint.initially_valid = False
        return (
            _part(f"add {name} NOT VALID", _add(rewrite, constraint)),
            _part(f"validate {name}", _validate(rewrite, name), final=True),
        )
    if rewrite.kind == "not_null":
        column = rewrite.columns[0]
        helper = helpers[column]
        return helper_parts(rewrite, column, helper) + closing_not_null(rewrite, column, helper)
    keys = rewrite.columns[: rewrite.key_count]
    parts: list[RecipePart] = [index_part(rewrite, name)]
    if rewrite.kind == "primary_key":
        todo = [c for c in keys if nullable is None or c in nullable]
        for column in todo:
            parts += helper_parts(rewrite, column, helpers[column])
        for column in todo:
            parts.append(closing_not_null(rewrite, column, helpers[column])[0])
        parts.append(attach_part(rewrite, name))
        for column in todo:
            parts.append(closing_not_null(rewrite, column, helpers[column])[1])
        return tuple(parts)
    parts.append(attach_part(rewrite, name))
    return tuple(parts)


def drop_part(
    rewrite: ConstraintRewrite, index: bool, name: str, why: str, schema: str | None = None
) -> RecipePart:
    """The DROP of an object the recipe made, if it still exists: ``index``: DROP INDEX
    CONCURRENTLY ``schema.name`` (the table's schema, as the catalog names it: an unqualified
    name could find another schema's index first on the search_path); else ALTER TABLE ...
    DROP CONSTRAINT."""
    if not index:
        drop = ast.AlterTableCmd(
            subtype=_AT.AT_DropConstraint,
            name=name,
            behavior=enums.DropBehavior.DROP_RESTRICT,
            missing_ok=True,
        )
        return _part(f"drop {name} ({why})", _alter(rewrite, drop))
    schema = schema or _statement(rewrite).relation.schemaname
    qualified_name = (ast.String(sval=schema),) if schema else ()
    statement = ast.DropStmt(
        objects=((*qualified_name, ast.String(sval=name)),),
        removeType=enums.ObjectType.OBJECT_INDEX,
        behavior=enums.DropBehavior.DROP_RESTRICT,
        missing_ok=True,
        concurrent=True,
    )
    return _part(f"drop index {name} ({why})", statement, concurrent=True)


def plain_part(rewrite: ConstraintRewrite, text: str, reason: str) -> RecipePart:
    """The author's statement ``text`` (of ``rewrite``) run as written where the recipe cannot
    run, and why; its locks are read from the recipe's tree (the file's parse)."""
    needs = tuple(lock_needs(_statement(rewrite)))
    return RecipePart(f"run as written ({reason})", text, needs, final=True)


def planned_name(rewrite: ConstraintRewrite) -> str:
    """The name the plan shows: the author's, or PostgreSQL's first choice (a taken name makes
    the server, and the runner, pick the next numbered one)."""
    return name_candidates(rewrite, 1)[0]


def describe_locks(part: RecipePart) -> str:
    """The locks of a part for people, e.g. ``SHARE UPDATE EXCLUSIVE on orders (reads and
    writes go on; scans the table)``."""
    described = []
    for need in part.locks:
        if need.mode.blocks_reads:
            effect = "blocks reads and writes for a moment"
        elif need.mode.blocks_writes:
            effect = "blocks writes for a moment"
        else:
            effect = "reads and writes go on"
        if need.scans:
            effect += "; scans the table"
        described.append(f"{need.mode.sql_name} on {need.relation} ({effect})")
    return ", ".join(described) or "no table lock"


def iter_locks(parts: Sequence[RecipePart]) -> Iterator[LockNeed]:
    """Every lock need of ``parts``."""
    for part in parts:
        yield from part.locks
