"""The online column type change: whether a type change rewrites, and its recipe or refusal.

Pure. A plain ``ALTER COLUMN ... TYPE`` that rewrites a table with rows holds ACCESS EXCLUSIVE
on it (and on the tables whose foreign keys reference the column) for the whole rewrite. The
online recipe does the same change in four phases that each hold a strong lock only for a
moment (ALTER TABLE; "Explicit Locking"; verified on PostgreSQL 15 and 18):

1. expand: a nullable shadow column of the new type (ACCESS EXCLUSIVE, catalog only) and a
   BEFORE INSERT OR UPDATE row trigger keeping it equal to the new value (SHARE ROW
   EXCLUSIVE, catalog only); the trigger's name sorts after every other BEFORE row trigger,
   since same-event triggers fire in name order ("Overview of Trigger Behavior");
2. backfill: the existing rows in key batches (ROW EXCLUSIVE), up to the greatest key when
   expand committed (every row written later is the trigger's);
3. rebuild: every index on the column built again CONCURRENTLY on the shadow (SHARE UPDATE
   EXCLUSIVE), every CHECK and the NOT NULL as a CHECK added NOT VALID then validated (a
   moment of ACCESS EXCLUSIVE, then SHARE UPDATE EXCLUSIVE while it scans);
4. swap: one short transaction under ACCESS EXCLUSIVE: the trigger dropped (its function
   names the shadow column, and would fail once it is renamed), SET NOT NULL with no scan (the
   validated CHECK proves it: tablecmds.c ``NotNullImpliedByRelConstraints``), the columns
   renamed, the default, comment, statistics target and column privileges carried over (they
   are per column and would be lost), the old column dropped (which drops its indexes and
   CHECKs: pg_depend ``a``), the new indexes and CHECKs given the old names.

:func:`plan_type_change` decides from the statement and the live catalog's
:class:`ColumnFacts`: :class:`AsWritten` (no rewrite, or no rows: the plain statement is
quick), :class:`TypeChangeRefusal` (one line naming the object kind), or the
:class:`TypeChangeRecipe` with its phases and the objects it creates, each under a name of the
recipe's own that no schema object has (:func:`own_name`).

What this landing runs online is the column of a plain table with plain indexes, CHECKs, NOT
NULL, a default, a comment, a statistics target and column privileges. Everything else is
refused up front (:data:`NOT_YET_BUILT` and :func:`refusal`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.model import LockMode, QualifiedName, TxMode
from ..lint.types import ColumnType, column_type, rewrite_reason
from ..statements import names as object_names
from ..statements import shadow_column
from ..statements.type_change import TypeChange
from .pending import PlannedStep

#: The label of every object the recipe creates (columns, trigger, function, indexes, CHECKs).
OWN_LABEL = "safemigrate"

#: Dependents the recipe cannot carry across the swap (yet), by kind, as the refusal names them.
NOT_YET_BUILT = {
    "primary_key": "the column is in a PRIMARY KEY",
    "unique": "the column is in a UNIQUE or EXCLUDE constraint",
    "foreign_key": "a FOREIGN KEY uses the column",
    "identity": "the column is an identity column",
    "serial": "the column's default is a sequence it owns (serial)",
}


@dataclass(frozen=True)
class IndexFact:
    """An index that reads the column."""

    name: str
    #: ``pg_get_indexdef``.
    definition: str
    #: The constraint it backs: ``p`` (PRIMARY KEY), ``u`` (UNIQUE), ``x`` (EXCLUDE) or None.
    constraint: str | None = None
    #: True when it has expressions or a predicate (the column appears outside a plain key).
    expressions: bool = False
    #: True when it is the table's REPLICA IDENTITY index.
    replica_identity: bool = False


@dataclass(frozen=True)
class CheckFact:
    """A CHECK constraint that reads the column."""

    name: str
    #: ``pg_get_constraintdef``, e.g. ``CHECK ((id > 0))``.
    definition: str
    validated: bool = True


@dataclass(frozen=True)
class ColumnFacts:
    """What the live catalog says about the table and the column (the db layer reads it)."""

    table: QualifiedName
    column: str
    #: The column's current type; None when it has no ColumnType shape (the rewrite is assumed).
    current_type: ColumnType | None
    #: False when the table has no rows (``reltuples`` and a look at the heap).
    has_rows: bool = True
    #: pg_class.relkind of the table: ``r`` plain, ``p`` partitioned.
    relkind: str = "r"
    #: The table is a partition, an inheritance parent or an inheritance child.
    partition: bool = False
    inheritance_parent: bool = False
    inheritance_child: bool = False
    #: The column is in the table's partition key.
    partition_key: bool = False
    #: The column itself is generated (``attgenerated``).
    generated: bool = False
    #: The table's persistence: ``p`` permanent, ``u`` unlogged, ``t`` temporary.
    persistence: str = "p"
    #: Stored generated columns whose expression reads the column.
    generated_dependents: tuple[str, ...] = ()
    #: Views, materialized views and rules reading the column (``schema.name``).
    views: tuple[str, ...] = ()
    #: Policies, BEGIN ATOMIC functions and extended statistics reading the column.
    policies: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    statistics: tuple[str, ...] = ()
    #: Publications whose row filter or column list names the column.
    publications: tuple[str, ...] = ()
    #: User triggers on the table whose column list or WHEN reads the column.
    column_triggers: tuple[str, ...] = ()
    #: The table's other BEFORE row triggers (not internal), by name.
    before_row_triggers: tuple[str, ...] = ()
    #: The table's user triggers (not internal) that fire on UPDATE, by name: the backfill's
    #: UPDATEs would fire them, which psql's ALTER does not.
    update_triggers: tuple[str, ...] = ()
    indexes: tuple[IndexFact, ...] = ()
    checks: tuple[CheckFact, ...] = ()
    not_null: bool = False
    #: PostgreSQL 18 and newer catalog a NOT NULL as a pg_constraint row (contype ``n``) with
    #: a name psql's ALTER keeps: (its name, validated, NO INHERIT); None before 18 or without
    #: NOT NULL.
    not_null_constraint: tuple[str, bool, bool] | None = None
    #: ``pg_get_expr`` of the column default; None without one.
    default: str | None = None
    #: ``attidentity``: ``a`` (ALWAYS), ``d`` (BY DEFAULT) or None.
    identity: str | None = None
    #: The sequence the column owns (a serial's); None without one.
    owned_sequence: str | None = None
    #: Foreign keys on the table that use the column, and on tables that reference it.
    foreign_keys: tuple[str, ...] = ()
    referencing_foreign_keys: tuple[str, ...] = ()
    #: ``attstattarget`` when set (None: the default).
    statistics_target: int | None = None
    comment: str | None = None
    #: Column privileges, as ``aclexplode`` rows ``(grantee, privilege, grantable)``.
    privileges: tuple[tuple[str, str, bool], ...] = ()
    #: Every column, constraint, index, trigger and function name of the table's schema that
    #: a recipe name must not take.
    taken_names: frozenset[str] = frozenset()
    #: The key the backfill batches by (the primary key's, or a unique not-null index's
    #: columns); empty when the table has none.
    batch_key: tuple[str, ...] = ()
    #: Heap, TOAST and index bytes, and the estimated rows, for the plan.
    table_bytes: int = 0
    rows: int = 0


@dataclass(frozen=True)
class AsWritten:
    """The plain statement is quick: it runs as written, and why."""

    reason: str


@dataclass(frozen=True)
class TypeChangeRefusal:
    """The change cannot run online: ``kind`` names the object, ``reason`` says why."""

    kind: str
    reason: str

    def __str__(self) -> str:
        return f"{self.reason}: the online type change cannot carry it ({self.kind})"


@dataclass(frozen=True)
class OwnObject:
    """An object the recipe creates, under its own name."""

    #: ``column``, ``function``, ``trigger``, ``index`` or ``check``.
    kind: str
    name: str
    #: The user object it replaces after the swap (an index's or CHECK's old name); None for
    #: the recipe's helpers (the sync trigger and its function, the NOT NULL CHECK).
    replaces: str | None = None
    #: What the object is built from: an index's or CHECK's definition on the old column.
    definition: str = ""


@dataclass(frozen=True)
class PhaseStep:
    """One thing a phase does, the lock it takes on the table and whether it scans."""

    label: str
    lock: LockMode
    scans: bool = False
    #: True when the step runs outside a transaction block (CONCURRENTLY).
    concurrent: bool = False


@dataclass(frozen=True)
class Phase:
    """A journaled phase: ``expand``, ``backfill``, ``rebuild`` or ``swap``."""

    name: str
    steps: tuple[PhaseStep, ...]

    @property
    def strongest(self) -> LockMode:
        """The strongest lock any of its steps takes."""
        return max((s.lock for s in self.steps), default=LockMode.ACCESS_SHARE)


@dataclass(frozen=True)
class TypeChangeRecipe:
    """The online recipe of one type change."""

    change: TypeChange
    facts: ColumnFacts
    #: Why the plain statement would rewrite the table.
    rewrite: str
    shadow: str
    old_column: str
    function: str
    trigger: str
    #: Every object the recipe creates, the shadow column first.
    objects: tuple[OwnObject, ...]
    phases: tuple[Phase, ...] = field(default=())

    @property
    def phase_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.phases)


Decision = AsWritten | TypeChangeRefusal | TypeChangeRecipe


def own_name(table: str, part: str, taken: Collection[str]) -> str:
    """A name for an object of the recipe: ``<table>_<part>_safemigrate`` cut as PostgreSQL
    cuts names (makeObjectName), numbered when ``taken`` holds it (ChooseConstraintName)."""
    return object_names.choose_name(table, part, OWN_LABEL, taken)


def refusal(facts: ColumnFacts) -> TypeChangeRefusal | None:
    """The first thing about the table or column the recipe cannot handle safely, or None.

    Partitioned and inheritance tables: a trigger on an inheritance parent does not fire for
    its children's rows, CONCURRENTLY and USING INDEX do not work on a partitioned table (facts
    verified on 15 and 18). A partition key column cannot be dropped (42P16). Dependents that
    name the column by attnum would keep the old column and block its DROP (2BP01): views,
    rules, policies, BEGIN ATOMIC functions, publication lists, triggers' column lists and
    WHEN, stored generated expressions, extended statistics.
    """
    col = facts.column
    if facts.persistence == "t":
        return TypeChangeRefusal("temporary table", "the table is temporary")
    if facts.relkind == "p":
        return TypeChangeRefusal("partitioned table", "the table is partitioned")
    if facts.partition:
        return TypeChangeRefusal("partition", "the table is a partition")
    if facts.inheritance_parent or facts.inheritance_child:
        return TypeChangeRefusal("inheritance", "the table is in an inheritance tree")
    if facts.partition_key:
        return TypeChangeRefusal("partition key", f"{col} is in the partition key")
    if facts.generated:
        return TypeChangeRefusal("generated column", f"{col} is a generated column")
    listed = (
        ("generated column", "stored generated columns read", facts.generated_dependents),
        ("view or rule", "views or rules read", facts.views),
        ("policy", "row security policies read", facts.policies),
        ("function", "BEGIN ATOMIC functions read", facts.functions),
        ("extended statistics", "extended statistics read", facts.statistics),
        ("publication", "publication row filters or column lists name", facts.publications),
        ("trigger", "triggers' column lists or WHEN read", facts.column_triggers),
    )
    if facts.update_triggers:
        return TypeChangeRefusal(
            "trigger",
            "the table has triggers that fire on UPDATE, which the backfill's batches would "
            f"fire: {', '.join(facts.update_triggers)}",
        )
    for kind, what, found in listed:
        if found:
            return TypeChangeRefusal(kind, f"{what} {col}: {', '.join(found)}")
    named = facts.not_null_constraint
    if named is not None and not named[1]:
        return TypeChangeRefusal(
            "not-null constraint", f"the NOT NULL constraint {named[0]} on {col} is NOT VALID"
        )
    for index in facts.indexes:
        if index.replica_identity:
            return TypeChangeRefusal(
                "replica identity", f"index {index.name} on {col} is the replica identity"
            )
    return _not_yet_built(facts)


def _not_yet_built(facts: ColumnFacts) -> TypeChangeRefusal | None:
    col = facts.column
    for index in facts.indexes:
        if index.constraint == "p":
            return TypeChangeRefusal(
                "primary key", f"{NOT_YET_BUILT['primary_key']} ({index.name})"
            )
        if index.constraint in ("u", "x"):
            return TypeChangeRefusal("unique", f"{NOT_YET_BUILT['unique']} ({index.name})")
        if index.expressions:
            return TypeChangeRefusal(
                "expression index", f"index {index.name} reads {col} in an expression or predicate"
            )
    if facts.foreign_keys or facts.referencing_foreign_keys:
        names = ", ".join(facts.foreign_keys + facts.referencing_foreign_keys)
        return TypeChangeRefusal("foreign key", f"{NOT_YET_BUILT['foreign_key']} ({names})")
    if facts.identity is not None:
        return TypeChangeRefusal("identity", NOT_YET_BUILT["identity"])
    if facts.owned_sequence is not None:
        return TypeChangeRefusal("serial", f"{NOT_YET_BUILT['serial']} ({facts.owned_sequence})")
    if not facts.batch_key:
        return TypeChangeRefusal(
            "batch key", "the table has no primary key or unique NOT NULL index to backfill by"
        )
    if col in facts.batch_key:
        return TypeChangeRefusal("primary key", f"{NOT_YET_BUILT['primary_key']} (batch key)")
    return None


#: The integer types, narrowest first.
_INTEGERS = ("int2", "int4", "int8")
#: The decimal digits of the largest value of each integer type.
_DIGITS = {"int2": 5, "int4": 10, "int8": 19}
#: The character types.
_TEXTS = frozenset({"text", "varchar", "bpchar"})


def narrowing(old: ColumnType, new: ColumnType) -> str | None:
    """Why ``new`` may not hold every value of ``old`` (a cast that fails on some values), or
    None. The online recipe cannot take such a change: psql's ALTER fails at once and changes
    nothing, but the recipe's sync trigger would make the application's writes of such a
    value fail while it runs (22003 out of range, 22001 too long), and its backfill would stop
    half done."""
    if old.array or new.array:
        # Arrays: the element casts are not looked into (a rewrite, run online).
        return None
    if old.name in _INTEGERS and new.name in _INTEGERS:
        if _INTEGERS.index(new.name) < _INTEGERS.index(old.name):
            return f"{old} to {new} narrows: larger values are out of range"
        return None
    if old.name in ("numeric", "float4", "float8") and new.name in _INTEGERS:
        return f"{old} to {new} narrows: fractions are rounded and larger values out of range"
    if old.name == "float8" and new.name == "float4":
        return f"{old} to {new} narrows: larger values are out of range"
    if new.name == "numeric" and new.typmods:
        if old.name in _INTEGERS:
            digits, scale = _DIGITS[old.name], 0
        elif old.name != "numeric" or not old.typmods:
            return f"{old} to {new} narrows: values with more digits are out of range"
        else:
            digits, scale = old.typmods[0] - old.typmods[1], old.typmods[1]
        if new.typmods[0] - new.typmods[1] < digits or new.typmods[1] < scale:
            return f"{old} to {new} narrows: values with more digits are out of range or rounded"
        return None
    sized = new.name in ("varchar", "bpchar", "bit", "varbit") and bool(new.typmods)
    longer = not old.typmods or (bool(new.typmods) and old.typmods[0] > new.typmods[0])
    if sized and old.name in _TEXTS | {"bit", "varbit"} and longer:
        return f"{old} to {new} narrows: longer values do not fit"
    return None


def _rewrites(change: TypeChange, facts: ColumnFacts, pg_version: int, utc: bool) -> str | None:
    """Why the plain change rewrites the table; None when it does not (lint/types.py's
    reading of ATColumnChangeRequiresRewrite). A COLLATE clause is treated as a rewrite: the
    indexes on the column are rebuilt under ACCESS EXCLUSIVE either way."""
    if change.using is not None:
        return "a USING expression computes every value"
    if change.collation is not None:
        return "a COLLATE clause rebuilds every index on the column"
    new = column_type(change.type_name)
    if facts.current_type is None or new is None:
        return "the runner cannot tell the types apart: assumed to rewrite"
    return rewrite_reason(facts.current_type, new, pg_version=pg_version, utc_session=utc)


def plan_type_change(
    change: TypeChange,
    facts: ColumnFacts,
    *,
    pg_version: int,
    utc_session: bool = False,
) -> Decision:
    """How ``change`` runs against the table ``facts`` describes (see the module doc)."""
    reason = _rewrites(change, facts, pg_version, utc_session)
    if reason is None:
        return AsWritten("the change does not rewrite the table")
    if not facts.has_rows:
        return AsWritten("the table has no rows: the rewrite is immediate")
    refused = refusal(facts)
    if refused is not None:
        return refused
    new = column_type(change.type_name)
    if change.using is None and facts.current_type is not None and new is not None:
        narrows = narrowing(facts.current_type, new)
        if narrows is not None:
            return TypeChangeRefusal("narrowing cast", narrows)
    taken = set(facts.taken_names)

    def claim(part: str) -> str:
        name = own_name(facts.table.name, part, taken)
        taken.add(name)
        return name

    shadow = claim(f"{facts.column}_new")
    old_column = claim(f"{facts.column}_old")
    function = claim(f"{facts.column}_sync")
    # Same-event BEFORE row triggers fire in name order: the sync trigger must come after
    # those that change the column, so its name starts with "zz" (checked below).
    trigger = object_names.choose_name(
        f"zz_{facts.table.name}", f"{facts.column}_sync", OWN_LABEL, taken
    )
    taken.add(trigger)
    objects: list[OwnObject] = [
        OwnObject("column", shadow),
        OwnObject("function", function),
        OwnObject("trigger", trigger),
    ]
    late = [t for t in facts.before_row_triggers if t > trigger]
    if late:
        return TypeChangeRefusal(
            "trigger",
            f"BEFORE row triggers that fire after the recipe's sync trigger: {', '.join(late)}",
        )
    for index in facts.indexes:
        objects.append(OwnObject("index", claim(index.name), index.name, index.definition))
    for check in facts.checks:
        objects.append(OwnObject("check", claim(check.name), check.name, check.definition))
    if facts.not_null:
        objects.append(OwnObject("check", claim(f"{facts.column}_not_null")))
    return TypeChangeRecipe(
        change=change,
        facts=facts,
        rewrite=reason,
        shadow=shadow,
        old_column=old_column,
        function=function,
        trigger=trigger,
        objects=tuple(objects),
        phases=_phases(facts, shadow, tuple(objects)),
    )


def _phases(facts: ColumnFacts, shadow: str, objects: Sequence[OwnObject]) -> tuple[Phase, ...]:
    x, sre, re, sue = (
        LockMode.ACCESS_EXCLUSIVE,
        LockMode.SHARE_ROW_EXCLUSIVE,
        LockMode.ROW_EXCLUSIVE,
        LockMode.SHARE_UPDATE_EXCLUSIVE,
    )
    expand = Phase(
        "expand",
        (
            PhaseStep(f"add the shadow column {shadow}", x),
            PhaseStep("create the sync trigger", sre),
        ),
    )
    backfill = Phase(
        "backfill",
        (PhaseStep(f"backfill {shadow} in batches of ({', '.join(facts.batch_key)})", re),),
    )
    rebuild: list[PhaseStep] = []
    for obj in objects:
        if obj.kind == "index":
            rebuild.append(PhaseStep(f"build index {obj.name} CONCURRENTLY", sue, True, True))
        elif obj.kind == "check":
            rebuild.append(PhaseStep(f"add {obj.name} NOT VALID", x))
            rebuild.append(PhaseStep(f"validate {obj.name}", sue, scans=True))
    swap = [PhaseStep("lock the table, drop the sync trigger and its function", x)]
    if facts.not_null:
        swap.append(PhaseStep(f"set {facts.column} NOT NULL (no scan)", x))
    if facts.default is not None:
        swap.append(PhaseStep(f"set the default {facts.default}", x))
    if facts.comment is not None:
        swap.append(PhaseStep("carry the comment over", x))
    if facts.statistics_target is not None:
        swap.append(PhaseStep(f"set statistics {facts.statistics_target}", x))
    if facts.privileges:
        swap.append(PhaseStep(f"grant the {len(facts.privileges)} column privileges", x))
    swap.append(PhaseStep("drop the old column with its indexes and CHECKs", x))
    swap.append(PhaseStep(f"rename {shadow} to {facts.column}", x))
    if any(o.replaces for o in objects):
        swap.append(PhaseStep("give the new indexes and CHECKs their old names", x))
    return (expand, backfill, Phase("rebuild", tuple(rebuild)), Phase("swap", tuple(swap)))


def outline(change: TypeChange, batch_size: int) -> tuple[PhaseStep, ...]:
    """The phases of ``change`` run online as ``plan`` shows them without the live catalog
    (the indexes and CHECKs on the column are known only when the step runs), each with the
    lock it takes on the table."""
    x, sue = LockMode.ACCESS_EXCLUSIVE, LockMode.SHARE_UPDATE_EXCLUSIVE
    column = change.column
    return (
        PhaseStep(f"expand: add a shadow column of type {change.new_type} and the sync trigger", x),
        PhaseStep(
            f"backfill: {column}'s new value into the shadow in batches of {batch_size} keys",
            LockMode.ROW_EXCLUSIVE,
            scans=True,
        ),
        PhaseStep(f"rebuild: each index on {column} again CONCURRENTLY", sue, True, True),
        PhaseStep(f"rebuild: each CHECK and the NOT NULL of {column} added NOT VALID", x),
        PhaseStep("rebuild: each validated", sue, scans=True),
        PhaseStep(
            "swap: drop the trigger and the old column, rename the shadow, indexes and CHECKs "
            "(catalog only, one short transaction)",
            x,
        ),
    )


@dataclass(frozen=True)
class RecordedRecipe:
    """What the runner records of a recipe when it begins it (its expand phase), and resumes
    from: the names it chose and the SQL texts of its rebuilt objects, so a rerun never plans
    again against a catalog that now holds the recipe's own objects."""

    table: QualifiedName
    column: str
    #: The shadow column's type (with its COLLATE clause), as the author wrote it.
    new_type: str
    #: The new value over the table's columns (the backfill's) and over ``NEW`` (the trigger's).
    backfill_value: str
    row_value: str
    shadow: str
    function: str
    trigger: str
    #: (own name, the user's name it takes in the swap, CREATE INDEX CONCURRENTLY on the shadow).
    indexes: tuple[tuple[str, str, str], ...] = ()
    #: (own name, the user's name, the CHECK expression on the shadow, validated).
    checks: tuple[tuple[str, str, str, bool], ...] = ()
    #: The helper CHECK (shadow IS NOT NULL) that lets the swap SET NOT NULL without a scan.
    not_null_check: str | None = None
    #: On 18 and newer: the NOT NULL constraint's name and NO INHERIT, added again under that
    #: name in the swap (before 18 the swap's SET NOT NULL has no name to keep).
    not_null_name: str | None = None
    not_null_no_inherit: bool = False
    default: str | None = None
    comment: str | None = None
    statistics_target: int | None = None
    privileges: tuple[tuple[str, str, bool], ...] = ()
    #: The key the backfill walks, and its greatest value (text per column) when expand
    #: committed, read in expand's transaction (db/type_change_record.py): the walk stops
    #: there, since the sync trigger sets every row written after expand. None: the table
    #: had no row then. A record without ``batch_key`` (an older one) reads the bound when
    #: the backfill starts, which is as safe (the trigger was there already).
    batch_key: tuple[str, ...] = ()
    backfill_upto: tuple[str, ...] | None = None

    def to_json(self) -> str:
        """The record's text (``<journal>_type_changes.recipe``)."""
        data: dict[str, Any] = {k: getattr(self, k) for k in self.__dataclass_fields__}
        data["table"] = [self.table.schema, self.table.name]
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> RecordedRecipe:
        """The record :meth:`to_json` wrote."""
        data: dict[str, Any] = json.loads(text)
        schema, name = data.pop("table")
        return cls(
            table=QualifiedName(schema, name),
            indexes=tuple(tuple(i) for i in data.pop("indexes")),
            checks=tuple(tuple(c) for c in data.pop("checks")),
            privileges=tuple(tuple(p) for p in data.pop("privileges")),
            batch_key=tuple(data.pop("batch_key", ())),
            backfill_upto=_key_or_none(data.pop("backfill_upto", None)),
            **data,
        )

    @property
    def own_names(self) -> tuple[str, ...]:
        """The indexes and constraints the recipe creates on the table, by name."""
        made = [i[0] for i in self.indexes] + [c[0] for c in self.checks]
        return tuple(made + ([self.not_null_check] if self.not_null_check else []))


def _key_or_none(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(v) for v in value)


def recorded(recipe: TypeChangeRecipe) -> RecordedRecipe:
    """The record of ``recipe``: its names, and its indexes and CHECKs rebuilt on the shadow."""
    change, facts = recipe.change, recipe.facts
    table, column, shadow = facts.table, facts.column, recipe.shadow
    new_type = change.new_type
    if change.collation is not None:
        new_type = f"{new_type} COLLATE {change.collation}"
    indexes = []
    checks = []
    not_null: str | None = None
    by_check = {c.name: c for c in facts.checks}
    for obj in recipe.objects:
        if obj.kind == "index" and obj.replaces is not None:
            text = shadow_column.shadow_index(obj.definition, table, column, shadow, obj.name)
            indexes.append((obj.name, obj.replaces, text))
        elif obj.kind == "check" and obj.replaces is not None:
            expression = shadow_column.shadow_check(obj.definition, table, column, shadow)
            checks.append((obj.name, obj.replaces, expression, by_check[obj.replaces].validated))
        elif obj.kind == "check":
            not_null = obj.name
    return RecordedRecipe(
        table=table,
        column=column,
        new_type=new_type,
        backfill_value=change.new_value,
        row_value=shadow_column.row_value(change.new_value, table),
        shadow=shadow,
        function=recipe.function,
        trigger=recipe.trigger,
        indexes=tuple(indexes),
        checks=tuple(checks),
        not_null_check=not_null,
        not_null_name=None if facts.not_null_constraint is None else facts.not_null_constraint[0],
        not_null_no_inherit=facts.not_null_constraint is not None and facts.not_null_constraint[2],
        default=facts.default,
        comment=facts.comment,
        statistics_target=facts.statistics_target,
        privileges=facts.privileges,
        batch_key=facts.batch_key,
    )


def as_written_unless(
    planned: Sequence[PlannedStep], online: Collection[tuple[int, int]]
) -> list[PlannedStep]:
    """``planned`` with every step the policy gave the online type change's form taken back
    to the step as read, except the ones in ``online`` (by (version, step index)): the lint
    gate's finding on those would block and the recipe can carry them, or an earlier run
    began them online. Every other runs as written, exactly as without the online form."""
    out = []
    for item in planned:
        step = item.step
        key = (item.migration.version, step.index)
        if step.mode is TxMode.ONLINE_TYPE and step.as_written is not None and key not in online:
            item = dataclasses.replace(item, step=step.as_written)
        out.append(item)
    return out
