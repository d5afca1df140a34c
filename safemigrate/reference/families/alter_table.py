"""ALTER TABLE: one row per subcommand form (sql-altertable.html), and the statements the page
documents that the parser makes nodes of their own (RENAME, SET SCHEMA, ALL IN TABLESPACE).

The lock of each subcommand is AlterTableGetLockLevel's (tablecmds.c); the subcommands that
recurse to partitions and inheritance children (ATPrepCmd: ATSimpleRecursion and the
"recursion occurs during execution" cases) take the same lock on every one of them unless the
table is named with ONLY. A statement with several subcommands takes the strongest of their
locks.
"""

from __future__ import annotations

from typing import Any

from pglast import ast, enums

from ...statements.locks import SERIAL_TYPES, TABLE_ACCESS_EXCLUSIVE_OPTIONS
from .._build import *
from ..model import ABSENT, PRESENT, Effect, Example, Fact, Field, Lock, Row, Source, Target

PAGE = "sql-altertable"
CASCADE = enums.DropBehavior.DROP_CASCADE
T = OT.OBJECT_TABLE
_SERIALS = SERIAL_TYPES
_COLUMN_KINDS = "def_.constraints.*.contype"
#: Storage parameters whose change takes ACCESS EXCLUSIVE on a table (reloptions.c, each
#: option's lockmode); every other table parameter takes SHARE UPDATE EXCLUSIVE.
TABLE_AE_OPTIONS = TABLE_ACCESS_EXCLUSIVE_OPTIONS

_IDENTITY_REJECTED = reject("55000", "when the column is not NOT NULL, or already has a default")
_IDENTITY_NOTE = (
    "Existing rows keep their values; the new sequence starts at 1 (set it with ALTER TABLE ... "
    "ALTER COLUMN ... RESTART)."
)
_PARTITION = reject("42809", "when the table is a partition (add it to the partitioned table)")
_VIEW_USES = reject(
    "0A000",
    "when a view, rule or generated column uses the column (drop and recreate it around the "
    "change)",
)
_FK_CLONED = "tables whose foreign keys reference the partitioned table (their triggers are cloned)"
_FK_DETACH = reject("23503", "when rows of a referencing table point into the partition")
_FK_REFERENCING = "tables whose foreign keys reference the partitioned table"
_FK_SCAN = depends(
    "when a foreign key references the partitioned table: its rows are checked against the "
    "partition (RI_PartitionRemove_Check)",
    REFING,
    OTHER,
)
_FK_NOTE = (
    "The manual says SHARE on the tables whose foreign keys reference the partitioned table; "
    "PostgreSQL 15, 16 and 18 take ACCESS EXCLUSIVE there (the partition's copy of the foreign "
    "key is dropped) and read those rows."
)
_DETACH_SOURCES = [
    doc(PAGE, "DETACH PARTITION"),
    LOCK_LEVEL,
    tablecmds("ATDetachCheckNoForeignKeyRefs"),
    tablecmds("DetachPartitionFinalize"),
]
_DEPENDENTS = reject("2BP01", "when another object depends on it and CASCADE is not given")


def _add_column(id: str, form: str, *fields: Field, examples: list[Example], **facts: Any) -> Row:
    return row(
        f"alter-table.add-column{id}",
        "ALTER TABLE",
        form,
        alter(T, AT.AT_AddColumn, *fields),
        [named(AE), lock(PARTS, AE)],
        [doc(PAGE, "ADD COLUMN; Notes"), LOCK_LEVEL, tablecmds("ATExecAddColumn")],
        examples,
        **facts,
    )


_DOMAIN_REWRITE = (
    "when the column's type is a domain with constraints (ATExecAddColumn: its NULLs are "
    "checked by rewriting)"
)

ADD_COLUMN = [
    _add_column(
        "",
        "ADD COLUMN (no default)",
        examples=[
            ex("ALTER TABLE orders ADD COLUMN z int", {"orders": N}, rewrites=False),
            ex(
                "ALTER TABLE events ADD COLUMN z int",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
                rewrites=False,
            ),
            ex(
                "ALTER TABLE base ADD COLUMN z int",
                {"base": N, "derived": PARTS},
                rewrites=False,
            ),
            ex(
                "ALTER TABLE orders ADD COLUMN z positive",
                {"orders": N},
                rewrites=True,
            ),
            ex("ALTER TABLE events_2024 ADD COLUMN z int", error="42809"),
        ],
        rewrites=depends(_DOMAIN_REWRITE, N, PARTS),
        rejects=[_PARTITION],
    ),
    _add_column(
        ".default",
        "ADD COLUMN ... DEFAULT",
        f(_COLUMN_KINDS, CT.CONSTR_DEFAULT),
        examples=[
            ex("ALTER TABLE orders ADD COLUMN z int DEFAULT 0", {"orders": N}, rewrites=False),
            ex(
                "ALTER TABLE orders ADD COLUMN z timestamptz DEFAULT now()",
                {"orders": N},
                rewrites=False,
            ),
            ex(
                "ALTER TABLE orders ADD COLUMN z timestamptz DEFAULT clock_timestamp()",
                {"orders": N},
                rewrites=True,
            ),
            ex(
                "ALTER TABLE orders ADD COLUMN z uuid DEFAULT gen_random_uuid()",
                {"orders": N},
                rewrites=True,
                versions=since(13),
            ),
            ex(
                "ALTER TABLE events ADD COLUMN z int DEFAULT 0",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
                rewrites=False,
            ),
        ],
        rewrites=depends(
            "when the default is volatile (random(), clock_timestamp(), gen_random_uuid(), "
            "nextval(), a function not marked STABLE or IMMUTABLE) or the type is a domain "
            "with constraints; a non-volatile default is evaluated once and stored in the "
            "catalog (PostgreSQL 11+)",
            N,
            PARTS,
        ),
        rejects=[_PARTITION],
    ),
    _add_column(
        ".default-not-null",
        "ADD COLUMN ... NOT NULL DEFAULT",
        f(_COLUMN_KINDS, CT.CONSTR_DEFAULT),
        f(_COLUMN_KINDS, CT.CONSTR_NOTNULL),
        examples=[
            ex(
                "ALTER TABLE orders ADD COLUMN z int NOT NULL DEFAULT 0",
                {"orders": N},
                rewrites=False,
            ),
            ex(
                "ALTER TABLE orders ADD COLUMN z float8 NOT NULL DEFAULT random()",
                {"orders": N},
                rewrites=True,
            ),
        ],
        rewrites=depends("as for ADD COLUMN ... DEFAULT", N, PARTS),
        rejects=[_PARTITION, reject("23502", "when the default evaluates to NULL")],
    ),
    _add_column(
        ".not-null",
        "ADD COLUMN ... NOT NULL (no default)",
        f(_COLUMN_KINDS, CT.CONSTR_NOTNULL),
        not_(_COLUMN_KINDS, (CT.CONSTR_DEFAULT, CT.CONSTR_IDENTITY, CT.CONSTR_GENERATED)),
        not_("def_.typeName.names.*.sval", _SERIALS),
        examples=[
            ex("ALTER TABLE orders ADD COLUMN z int NOT NULL", error="23502"),
        ],
        scans=does(N, PARTS),
        rejects=[
            _PARTITION,
            reject("23502", "when the table has rows (every row's new column is NULL)"),
        ],
    ),
    _add_column(
        ".identity",
        "ADD COLUMN ... GENERATED AS IDENTITY",
        f(_COLUMN_KINDS, CT.CONSTR_IDENTITY),
        examples=[
            ex(
                "ALTER TABLE orders ADD COLUMN z int GENERATED ALWAYS AS IDENTITY",
                {"orders": N},
            ),
        ],
        rewrites=does(N, PARTS),
        rejects=[_PARTITION],
    ),
    _add_column(
        ".serial",
        "ADD COLUMN ... serial",
        f("def_.typeName.names.*.sval", _SERIALS),
        examples=[ex("ALTER TABLE orders ADD COLUMN z bigserial", {"orders": N})],
        rewrites=does(N, PARTS),
        rejects=[_PARTITION],
    ),
    _add_column(
        ".generated-stored",
        "ADD COLUMN ... GENERATED ALWAYS AS (...) STORED",
        f(_COLUMN_KINDS, CT.CONSTR_GENERATED),
        f("def_.constraints.*.generated_kind", "s"),
        examples=[
            ex(
                "ALTER TABLE orders ADD COLUMN z int GENERATED ALWAYS AS (id * 2) STORED",
                {"orders": N},
            )
        ],
        rewrites=does(N, PARTS),
        rejects=[_PARTITION],
    ),
    _add_column(
        ".generated-virtual",
        "ADD COLUMN ... GENERATED ALWAYS AS (...) [VIRTUAL]",
        f(_COLUMN_KINDS, CT.CONSTR_GENERATED),
        f("def_.constraints.*.generated_kind", "v"),
        examples=[
            ex(
                "ALTER TABLE orders ADD COLUMN z int GENERATED ALWAYS AS (id * 2) VIRTUAL",
                {"orders": N},
            )
        ],
        rejects=[_PARTITION],
        versions=since(18),
    ),
]

_ADD_COLUMN_KEY = alter(T, AT.AT_AddColumn)
_INLINE_SOURCES = [doc(PAGE, "ADD COLUMN"), tablecmds("transformAlterTableStmt")]

INLINE_CONSTRAINTS = [
    row(
        "alter-table.add-column.references",
        "ALTER TABLE",
        "ADD COLUMN ... REFERENCES (inline foreign key)",
        part(ast.Constraint, _ADD_COLUMN_KEY, f("contype", CT.CONSTR_FOREIGN)),
        [named(SRE), lock(OTHER, SRE)],
        [*_INLINE_SOURCES, doc(PAGE, "ADD table_constraint")],
        [
            ex(
                "ALTER TABLE orders ADD COLUMN z bigint REFERENCES accounts (id)",
                {"orders": N, "accounts": OTHER},
                scans=False,
                rewrites=False,
            ),
            ex(
                "ALTER TABLE orders ADD COLUMN z bigint DEFAULT 1 REFERENCES accounts (id)",
                {"orders": N, "accounts": OTHER},
                scans=True,
                rewrites=False,
            ),
        ],
        scans=depends(
            "with a default, every row is checked against the referenced table",
        ),
        note="The column row's ACCESS EXCLUSIVE on the table is the stronger lock.",
    ),
    row(
        "alter-table.add-column.check",
        "ALTER TABLE",
        "ADD COLUMN ... CHECK (inline)",
        part(ast.Constraint, _ADD_COLUMN_KEY, f("contype", CT.CONSTR_CHECK)),
        [named(AE), lock(PARTS, AE)],
        _INLINE_SOURCES,
        [ex("ALTER TABLE orders ADD COLUMN z int CHECK (z > 0)", {"orders": N}, rewrites=False)],
        scans=does(N, PARTS),
    ),
    row(
        "alter-table.add-column.enforced-attribute",
        "ALTER TABLE",
        "ADD COLUMN ... column constraint [ NOT ] ENFORCED (inline)",
        part(
            ast.Constraint,
            _ADD_COLUMN_KEY,
            f("contype", (CT.CONSTR_ATTR_ENFORCED, CT.CONSTR_ATTR_NOT_ENFORCED)),
        ),
        [],
        [
            *_INLINE_SOURCES,
            doc("sql-createtable", "NOT ENFORCED"),
            code("src/backend/parser/parse_utilcmd.c", "transformConstraintAttrs"),
        ],
        [
            ex(
                "ALTER TABLE orders ADD COLUMN z bigint REFERENCES accounts (id) NOT ENFORCED",
                {"orders": N, "accounts": OTHER},
                scans=False,
                rewrites=False,
            )
        ],
        versions=since(18),
        note="The attribute of the column constraint before it (new in PostgreSQL 18; before, "
        "a syntax error, 42601).",
    ),
    row(
        "alter-table.add-column.unique",
        "ALTER TABLE",
        "ADD COLUMN ... UNIQUE / PRIMARY KEY (inline)",
        part(
            ast.Constraint,
            _ADD_COLUMN_KEY,
            f("contype", (CT.CONSTR_UNIQUE, CT.CONSTR_PRIMARY)),
        ),
        [named(AE), lock(PARTS, AE)],
        _INLINE_SOURCES,
        [
            ex("ALTER TABLE orders ADD COLUMN z int UNIQUE", {"orders": N}, rewrites=False),
            ex("ALTER TABLE orders ADD COLUMN z int PRIMARY KEY", error="42P16"),
        ],
        builds=does(N, PARTS),
        rejects=[
            reject("42P16", "PRIMARY KEY when the table already has one"),
            reject("23502", "PRIMARY KEY on a new column without a default, on rows"),
        ],
    ),
]


def _constraint(
    id: str,
    form: str,
    *fields: Field,
    locks: list[Lock],
    examples: list[Example],
    sources: tuple[Source, ...] = (),
    **facts: Any,
) -> Row:
    return row(
        f"alter-table.add-constraint.{id}",
        "ALTER TABLE",
        form,
        alter(T, AT.AT_AddConstraint, *fields),
        locks,
        [doc(PAGE, "ADD table_constraint [ NOT VALID ]"), LOCK_LEVEL, *sources],
        examples,
        **facts,
    )


_VALIDATED = f("def_.skip_validation", False)
_NOT_VALID = f("def_.skip_validation", True)
#: NOT ENFORCED (PostgreSQL 18+): the parser also marks the constraint NOT VALID
#: (processCASbits), so a NOT ENFORCED row tests both and is more specific than the NOT VALID
#: row, which is what older servers answer for it (and what tells them they lack the form).
_NOT_ENFORCED = (_NOT_VALID, f("def_.is_enforced", False))
_NOT_ENFORCED_DOC = doc("sql-createtable", "NOT ENFORCED")

#: ADD UNIQUE's examples, the same before PostgreSQL 18 and since (only the locks differ).
_ADD_UNIQUE_EXAMPLES = [
    ex(
        "ALTER TABLE events ADD CONSTRAINT events_id_at_key UNIQUE (id, at)",
        {"events": N, "events_2024": PARTS, "events_default": PARTS},
    ),
    ex("ALTER TABLE orders ADD CONSTRAINT orders_note_key UNIQUE (note)", {"orders": N}),
    ex("ALTER TABLE orders ADD CONSTRAINT orders_status_key UNIQUE (status)", error="23505"),
]

ADD_CONSTRAINT = [
    _constraint(
        "check",
        "ADD CONSTRAINT ... CHECK",
        f("def_.contype", CT.CONSTR_CHECK),
        _VALIDATED,
        locks=[named(AE), lock(PARTS, AE)],
        examples=[
            ex(
                "ALTER TABLE orders ADD CONSTRAINT orders_qty_cap CHECK (qty < 1000)", {"orders": N}
            ),
            ex(
                "ALTER TABLE events ADD CONSTRAINT events_kind_check CHECK (kind <> '')",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
            ex("ALTER TABLE orders ADD CONSTRAINT orders_qty_cap CHECK (qty > 50)", error="23514"),
        ],
        scans=does(N, PARTS),
        rejects=[reject("23514", "when a row violates it")],
    ),
    _constraint(
        "check-not-valid",
        "ADD CONSTRAINT ... CHECK ... NOT VALID",
        f("def_.contype", CT.CONSTR_CHECK),
        _NOT_VALID,
        locks=[named(AE), lock(PARTS, AE)],
        examples=[
            ex(
                "ALTER TABLE events ADD CONSTRAINT events_kind_check CHECK (kind <> '') NOT VALID",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
            ex(
                "ALTER TABLE orders ADD CONSTRAINT orders_qty_cap CHECK (qty < 1000) NOT VALID",
                {"orders": N},
            ),
        ],
    ),
    _constraint(
        "foreign-key",
        "ADD CONSTRAINT ... FOREIGN KEY",
        f("def_.contype", CT.CONSTR_FOREIGN),
        _VALIDATED,
        locks=[named(SRE), lock(OTHER, SRE), lock(PARTS, SRE)],
        examples=[
            ex(
                "ALTER TABLE events ADD CONSTRAINT events_id_fk"
                " FOREIGN KEY (id) REFERENCES orders (id)",
                {"events": N, "orders": OTHER, "events_2024": PARTS, "events_default": PARTS},
            ),
            ex(
                "ALTER TABLE items ADD CONSTRAINT items_order_fk2"
                " FOREIGN KEY (order_id) REFERENCES orders (id)",
                {"items": N, "orders": OTHER},
            ),
            ex(
                "ALTER TABLE orders ADD CONSTRAINT orders_qty_fk"
                " FOREIGN KEY (qty) REFERENCES items (id)",
                {"orders": N, "items": OTHER},
            ),
            ex(
                "ALTER TABLE items ADD CONSTRAINT items_price_fk"
                " FOREIGN KEY (price) REFERENCES tickets (id)",
                error="23503",
            ),
        ],
        scans=does(N, PARTS),
        rejects=[reject("23503", "when a row has no match in the referenced table")],
    ),
    _constraint(
        "foreign-key-not-valid",
        "ADD CONSTRAINT ... FOREIGN KEY ... NOT VALID",
        f("def_.contype", CT.CONSTR_FOREIGN),
        _NOT_VALID,
        locks=[named(SRE), lock(OTHER, SRE), lock(PARTS, SRE)],
        examples=[
            ex(
                "ALTER TABLE items ADD CONSTRAINT items_price_fk"
                " FOREIGN KEY (price) REFERENCES tickets (id) NOT VALID",
                {"items": N, "tickets": OTHER},
            ),
            ex(
                "ALTER TABLE events ADD CONSTRAINT events_id_fk"
                " FOREIGN KEY (id) REFERENCES orders (id) NOT VALID",
                error="42809",
                versions=between(12, 17),
            ),
            ex(
                "ALTER TABLE events ADD CONSTRAINT events_id_fk"
                " FOREIGN KEY (id) REFERENCES orders (id) NOT VALID",
                {"events": N, "orders": OTHER, "events_2024": PARTS, "events_default": PARTS},
                versions=since(18),
            ),
        ],
        rejects=[
            reject(
                "42809",
                "on a partitioned table (PostgreSQL 12-17)",
                between(12, 17),
            )
        ],
    ),
    _constraint(
        "check-not-enforced",
        "ADD CONSTRAINT ... CHECK ... NOT ENFORCED",
        f("def_.contype", CT.CONSTR_CHECK),
        *_NOT_ENFORCED,
        locks=[named(AE), lock(PARTS, AE)],
        examples=[
            ex(
                "ALTER TABLE events ADD CONSTRAINT events_kind_check CHECK (kind <> '')"
                " NOT ENFORCED",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
            ex(
                "ALTER TABLE orders ADD CONSTRAINT orders_qty_cap CHECK (qty > 50) NOT ENFORCED",
                {"orders": N},
            ),
        ],
        sources=(_NOT_ENFORCED_DOC, tablecmds("ATAddCheckNNConstraint")),
        versions=since(18),
        note="Not validated: rows that violate it stay (from the manual and the source; not "
        "yet run on 18).",
    ),
    _constraint(
        "foreign-key-not-enforced",
        "ADD CONSTRAINT ... FOREIGN KEY ... NOT ENFORCED",
        f("def_.contype", CT.CONSTR_FOREIGN),
        *_NOT_ENFORCED,
        locks=[named(SRE), lock(OTHER, SRE), lock(PARTS, SRE)],
        examples=[
            ex(
                "ALTER TABLE items ADD CONSTRAINT items_price_fk"
                " FOREIGN KEY (price) REFERENCES tickets (id) NOT ENFORCED",
                {"items": N, "tickets": OTHER},
            ),
            ex(
                "ALTER TABLE events ADD CONSTRAINT events_id_fk"
                " FOREIGN KEY (id) REFERENCES orders (id) NOT ENFORCED",
                {"events": N, "orders": OTHER, "events_2024": PARTS, "events_default": PARTS},
            ),
        ],
        sources=(_NOT_ENFORCED_DOC, tablecmds("ATAddForeignKeyConstraint")),
        versions=since(18),
        note="Not validated and no triggers are made; the referenced table is still locked "
        "SHARE ROW EXCLUSIVE (from the manual and the source; not yet run on 18).",
    ),
    _constraint(
        "primary-key",
        "ADD PRIMARY KEY",
        f("def_.contype", CT.CONSTR_PRIMARY),
        f("def_.indexname", ABSENT),
        locks=[named(AE), lock(PARTS, AE)],
        examples=[
            ex(
                "ALTER TABLE events ADD PRIMARY KEY (id, at)",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
                scans=True,
            ),
            ex("ALTER TABLE orphan ADD PRIMARY KEY (id)", {"orphan": N}, scans=True),
            ex("ALTER TABLE orders ADD PRIMARY KEY (status)", error="42P16"),
        ],
        builds=does(N, PARTS),
        scans=depends("the key's columns are checked for NULLs unless already NOT NULL", N, PARTS),
        rejects=[
            reject("42P16", "when the table already has a primary key"),
            reject("23505", "when a key value is duplicated"),
            reject("23502", "when a key column holds NULL"),
        ],
    ),
    _constraint(
        "unique",
        "ADD UNIQUE",
        f("def_.contype", CT.CONSTR_UNIQUE),
        f("def_.indexname", ABSENT),
        locks=[named(AE), lock(PARTS, SH)],
        examples=_ADD_UNIQUE_EXAMPLES,
        builds=does(N, PARTS),
        rejects=[reject("23505", "when a value is duplicated")],
        versions=until(17),
        note="On a partitioned table each partition's index is built under SHARE (seen on 15 "
        "and 16; 17 from the source).",
    ),
    _constraint(
        "unique.since-18",
        "ADD UNIQUE",
        f("def_.contype", CT.CONSTR_UNIQUE),
        f("def_.indexname", ABSENT),
        locks=[named(AE), lock(PARTS, AE)],
        examples=_ADD_UNIQUE_EXAMPLES,
        builds=does(N, PARTS),
        rejects=[reject("23505", "when a value is duplicated")],
        versions=since(18),
        note="On a partitioned table each partition is locked ACCESS EXCLUSIVE (seen on 18.4; "
        "15 and 16 take SHARE there).",
    ),
    _constraint(
        "exclude",
        "ADD EXCLUDE",
        f("def_.contype", CT.CONSTR_EXCLUSION),
        locks=[named(AE), lock(PARTS, AE)],
        examples=[
            ex(
                "ALTER TABLE orders ADD CONSTRAINT orders_id_excl EXCLUDE USING btree (id WITH =)",
                {"orders": N},
            )
        ],
        builds=does(N, PARTS),
        rejects=[reject("23P01", "when two rows conflict")],
    ),
    _constraint(
        "using-index",
        "ADD UNIQUE / PRIMARY KEY USING INDEX",
        f("def_.contype", (CT.CONSTR_UNIQUE, CT.CONSTR_PRIMARY)),
        f("def_.indexname", PRESENT),
        locks=[named(AE)],
        examples=[
            ex(
                "ALTER TABLE accounts ADD CONSTRAINT accounts_name_key"
                " UNIQUE USING INDEX accounts_name_idx",
                {"accounts": N},
                scans=False,
            ),
            ex(
                "ALTER TABLE events ADD CONSTRAINT events_key UNIQUE USING INDEX events_key_idx",
                setup=("CREATE UNIQUE INDEX events_key_idx ON events (id, at)",),
                error="0A000",
            ),
        ],
        scans=depends(
            "PRIMARY KEY: the index's columns are checked for NULLs unless already NOT NULL"
        ),
        rejects=[
            reject("0A000", "on a partitioned table"),
            reject("55000", "when the index is not unique, partial, or an expression index"),
        ],
    ),
    _constraint(
        "not-null",
        "ADD CONSTRAINT ... NOT NULL",
        f("def_.contype", CT.CONSTR_NOTNULL),
        _VALIDATED,
        locks=[named(AE), lock(PARTS, AE)],
        examples=[
            ex("ALTER TABLE orders ADD CONSTRAINT orders_note_nn NOT NULL note", {"orders": N}),
        ],
        scans=does(N, PARTS),
        rejects=[reject("23502", "when a row holds NULL")],
        versions=since(18),
    ),
    _constraint(
        "not-null-not-valid",
        "ADD CONSTRAINT ... NOT NULL ... NOT VALID",
        f("def_.contype", CT.CONSTR_NOTNULL),
        _NOT_VALID,
        locks=[named(AE), lock(PARTS, AE)],
        examples=[
            ex(
                "ALTER TABLE orders ADD CONSTRAINT orders_note_nn NOT NULL note NOT VALID",
                {"orders": N},
            ),
        ],
        versions=since(18),
    ),
]


def _simple(
    id: str,
    form: str,
    subtype: object,
    locks: list[Lock],
    examples: list[Example],
    sources: list[Source] | None = None,
    *fields: Field,
    **facts: Any,
) -> Row:
    """A subcommand row with the page's section ``form`` and the lock-level source."""
    return row(
        f"alter-table.{id}",
        "ALTER TABLE",
        form,
        alter(T, subtype, *fields),
        locks,
        sources or [doc(PAGE, form), LOCK_LEVEL],
        examples,
        **facts,
    )


def _add_identity_examples(measures: dict[str, Target]) -> list[Example]:
    """ADD GENERATED AS IDENTITY's examples; ``measures`` is what the partitioned table's
    example locks (its partitions too since PostgreSQL 17)."""
    return [
        ex("ALTER TABLE orders ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY", {"orders": N}),
        ex("ALTER TABLE orphan ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY", error="55000"),
        ex("ALTER TABLE measures ALTER COLUMN k ADD GENERATED ALWAYS AS IDENTITY", measures),
    ]


COLUMNS = [
    _simple(
        "drop-column",
        "DROP COLUMN",
        AT.AT_DropColumn,
        [named(AE), lock(PARTS, AE), lock(REF, AE), lock(REFING, AE)],
        [
            ex("ALTER TABLE orders DROP COLUMN qty", {"orders": N}),
            ex("ALTER TABLE items DROP COLUMN order_id", {"items": N, "orders": REF}),
            ex(
                "ALTER TABLE events DROP COLUMN kind",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
            ex("ALTER TABLE orders DROP COLUMN note", error="2BP01"),
        ],
        [doc(PAGE, "DROP COLUMN"), LOCK_LEVEL, tablecmds("ATExecDropColumn")],
        not_("behavior", CASCADE),
        rejects=[_DEPENDENTS],
        note="Foreign keys on the column are dropped: ACCESS EXCLUSIVE on their other side "
        "(RemoveTriggerById).",
    ),
    _simple(
        "drop-column.cascade",
        "DROP COLUMN ... CASCADE",
        AT.AT_DropColumn,
        [named(AE), lock(PARTS, AE), lock(REF, AE), lock(REFING, AE), lock(CASC, AE)],
        [
            ex(
                "ALTER TABLE accounts DROP COLUMN id CASCADE",
                {"accounts": N, "orders": REFING},
            ),
            ex("ALTER TABLE orders DROP COLUMN note CASCADE", {"orders": N, "open_orders": CASC}),
        ],
        [doc(PAGE, "DROP COLUMN"), LOCK_LEVEL, tablecmds("ATExecDropColumn")],
        f("behavior", CASCADE),
        note="Views, foreign keys and other objects that use the column are dropped with it.",
    ),
    _simple(
        "alter-column-type",
        "SET DATA TYPE",
        AT.AT_AlterColumnType,
        [named(AE), lock(PARTS, AE), lock(REF, AE), lock(REFING, AE)],
        [
            ex(
                "ALTER TABLE orders ALTER COLUMN amount TYPE numeric(12, 2)",
                {"orders": N},
                rewrites=False,
                builds=False,
                scans=True,
            ),
            ex(
                "ALTER TABLE items ALTER COLUMN sku TYPE varchar(50)",
                {"items": N},
                rewrites=True,
                builds=False,
                scans=False,
            ),
            ex(
                "ALTER TABLE items ALTER COLUMN id TYPE bigint",
                {"items": N},
                rewrites=True,
                builds=False,
                scans=False,
            ),
            ex("ALTER TABLE items ALTER COLUMN price TYPE bigint", error="0A000"),
            ex(
                "ALTER TABLE orders ALTER COLUMN status TYPE varchar(100)",
                error="0A000",
            ),
            ex(
                "ALTER TABLE items ALTER COLUMN order_id TYPE bigint",
                {"items": N, "orders": REF},
                rewrites=True,
                builds=False,
                scans=False,
            ),
            ex(
                "ALTER TABLE accounts ALTER COLUMN id TYPE int",
                {"accounts": N, "orders": REFING},
                rewrites=True,
                builds=False,
                scans=False,
            ),
            ex(
                "ALTER TABLE accounts ALTER COLUMN name TYPE varchar(200)",
                {"accounts": N},
                rewrites=True,
                builds=False,
                scans=False,
            ),
            ex(
                "ALTER TABLE events ALTER COLUMN kind TYPE varchar(10)",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
                rewrites=True,
                builds=False,
                scans=False,
            ),
        ],
        [
            doc(PAGE, "SET DATA TYPE; Notes"),
            LOCK_LEVEL,
            tablecmds("ATColumnChangeRequiresRewrite"),
            tablecmds("ATPostAlterTypeCleanup"),
        ],
        rewrites=depends(
            "unless the old type is binary-coercible to the new one and no USING changes the "
            "value (varchar(n) to a longer varchar or to text, numeric(p, s) to a larger p "
            "with the same s, cidr to inet, a domain to its base type)",
            N,
            PARTS,
        ),
        builds=depends(
            "without a rewrite, the indexes on the column are rebuilt unless the new type "
            "sorts the same way (varchar to text keeps them)",
            N,
            PARTS,
        ),
        scans=depends(
            "without a rewrite, the CHECK constraints on the column are verified again",
            N,
            PARTS,
        ),
        rejects=[_VIEW_USES],
        note="The foreign keys on the column are dropped and re-created: ACCESS EXCLUSIVE on "
        "their other side (ATPostAlterTypeCleanup).",
    ),
    _simple(
        "set-default",
        "SET DEFAULT",
        AT.AT_ColumnDefault,
        [named(AE), lock(PARTS, AE)],
        [
            ex("ALTER TABLE orders ALTER COLUMN status SET DEFAULT 'open'", {"orders": N}),
            ex(
                "ALTER TABLE events ALTER COLUMN kind SET DEFAULT 'view'",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
        ],
        [doc(PAGE, "SET/DROP DEFAULT"), LOCK_LEVEL],
        f("def_", PRESENT),
    ),
    _simple(
        "drop-default",
        "DROP DEFAULT",
        AT.AT_ColumnDefault,
        [named(AE), lock(PARTS, AE)],
        [
            ex(
                "ALTER TABLE events ALTER COLUMN kind DROP DEFAULT",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
            ex("ALTER TABLE orders ALTER COLUMN status DROP DEFAULT", {"orders": N}),
        ],
        [doc(PAGE, "SET/DROP DEFAULT"), LOCK_LEVEL],
        f("def_", ABSENT),
    ),
    _simple(
        "set-not-null",
        "SET NOT NULL",
        AT.AT_SetNotNull,
        [named(AE), lock(PARTS, AE)],
        [
            ex("ALTER TABLE orders ALTER COLUMN note SET NOT NULL", {"orders": N}, scans=True),
            ex(
                "ALTER TABLE items ALTER COLUMN sku SET NOT NULL",
                {"items": N},
                setup=("ALTER TABLE items ADD CONSTRAINT items_sku_nn CHECK (sku IS NOT NULL)",),
                scans=False,
            ),
            ex(
                "ALTER TABLE events ALTER COLUMN kind SET NOT NULL",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
                scans=True,
            ),
            ex(
                "ALTER TABLE orders ALTER COLUMN qty SET NOT NULL",
                error="23502",
                setup=("UPDATE orders SET qty = NULL WHERE id = 1",),
            ),
        ],
        [doc(PAGE, "SET/DROP NOT NULL"), LOCK_LEVEL, tablecmds("NotNullImpliedByRelConstraints")],
        scans=depends(
            "unless a valid CHECK constraint proves the column has no NULLs (PostgreSQL 12+)",
            N,
            PARTS,
        ),
        rejects=[reject("23502", "when a row holds NULL")],
    ),
    _simple(
        "drop-not-null",
        "DROP NOT NULL",
        AT.AT_DropNotNull,
        [named(AE), lock(PARTS, AE)],
        [
            ex("ALTER TABLE orders ALTER COLUMN status DROP NOT NULL", {"orders": N}),
            ex("ALTER TABLE orders ALTER COLUMN id DROP NOT NULL", error="42P16"),
        ],
        [doc(PAGE, "SET/DROP NOT NULL"), LOCK_LEVEL],
        rejects=[
            reject("42P16", "when the column is in the primary key or replica identity index"),
        ],
    ),
    _simple(
        "set-expression",
        "SET EXPRESSION AS",
        AT.AT_SetExpression,
        [named(AE), lock(PARTS, AE)],
        [
            ex(
                "ALTER TABLE items ALTER COLUMN price2 SET EXPRESSION AS (price * 3)",
                {"items": N},
                rewrites=True,
            ),
            ex(
                "ALTER TABLE lax ALTER COLUMN twice SET EXPRESSION AS (id * 3)",
                {"lax": N},
                rewrites=False,
                versions=since(18),
            ),
        ],
        [doc(PAGE, "SET EXPRESSION AS"), LOCK_LEVEL],
        rewrites=depends(
            "a stored generated column is recomputed by a rewrite; a virtual "
            "one (PostgreSQL 18) is not",
            N,
            PARTS,
        ),
        versions=since(17),
    ),
    _simple(
        "drop-expression",
        "DROP EXPRESSION",
        AT.AT_DropExpression,
        [named(AE), lock(PARTS, AE)],
        [ex("ALTER TABLE items ALTER COLUMN price2 DROP EXPRESSION", {"items": N})],
        [doc(PAGE, "DROP EXPRESSION [ IF EXISTS ]"), LOCK_LEVEL],
        rejects=[reject("0A000", "on a virtual generated column (PostgreSQL 18)", since(18))],
        versions=since(13),
    ),
    _simple(
        "add-identity",
        "ADD GENERATED AS IDENTITY",
        AT.AT_AddIdentity,
        [named(AE)],
        _add_identity_examples({"measures": N}),
        [doc(PAGE, "ADD GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY"), LOCK_LEVEL],
        rejects=[_IDENTITY_REJECTED],
        versions=until(16),
        note=_IDENTITY_NOTE + " Partitions are not changed (PostgreSQL 12-16).",
    ),
    _simple(
        "add-identity.since-17",
        "ADD GENERATED AS IDENTITY",
        AT.AT_AddIdentity,
        [named(AE), lock(PARTS, AE)],
        _add_identity_examples({"measures": N, "measures_1": PARTS, "measures_2": PARTS}),
        [doc(PAGE, "ADD GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY"), LOCK_LEVEL],
        rejects=[_IDENTITY_REJECTED],
        versions=since(17),
        note=_IDENTITY_NOTE + " On a partitioned table every partition gets it (PostgreSQL 17+).",
    ),
    _simple(
        "set-identity",
        "SET GENERATED / SET sequence_option / RESTART",
        AT.AT_SetIdentity,
        [named(AE), lock(SEQS, SRE)],
        [
            ex(
                "ALTER TABLE tickets ALTER COLUMN id SET GENERATED ALWAYS",
                {"tickets": N, "tickets_id_seq": SEQS},
            ),
            ex(
                "ALTER TABLE tickets ALTER COLUMN id RESTART WITH 1000",
                {"tickets": N, "tickets_id_seq": SEQS},
            ),
            ex(
                "ALTER TABLE tickets ALTER COLUMN id SET INCREMENT BY 2",
                {"tickets": N, "tickets_id_seq": SEQS},
            ),
        ],
        [doc(PAGE, "SET sequence_option / RESTART"), LOCK_LEVEL],
    ),
    _simple(
        "drop-identity",
        "DROP IDENTITY",
        AT.AT_DropIdentity,
        [named(AE), lock(SEQS, AE)],
        [
            ex(
                "ALTER TABLE tickets ALTER COLUMN id DROP IDENTITY",
                {"tickets": N, "tickets_id_seq": SEQS},
            )
        ],
        [doc(PAGE, "DROP IDENTITY [ IF EXISTS ]"), LOCK_LEVEL],
    ),
    _simple(
        "set-statistics",
        "SET STATISTICS",
        AT.AT_SetStatistics,
        [named(SUE), lock(PARTS, SUE)],
        [
            ex("ALTER TABLE orders ALTER COLUMN status SET STATISTICS 500", {"orders": N}),
            ex(
                "ALTER TABLE events ALTER COLUMN kind SET STATISTICS 500",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
            ex(
                "ALTER TABLE ONLY events ALTER COLUMN kind SET STATISTICS 500",
                {"events": N},
            ),
        ],
    ),
    _simple(
        "set-attribute-options",
        "SET ( attribute_option ) / RESET ( attribute_option )",
        (AT.AT_SetOptions, AT.AT_ResetOptions),
        [named(SUE)],
        [
            ex("ALTER TABLE orders ALTER COLUMN status SET (n_distinct = 5)", {"orders": N}),
            ex("ALTER TABLE orders ALTER COLUMN status RESET (n_distinct)", {"orders": N}),
            ex("ALTER TABLE events ALTER COLUMN kind SET (n_distinct = 5)", {"events": N}),
        ],
    ),
    _simple(
        "set-storage",
        "SET STORAGE",
        AT.AT_SetStorage,
        [named(AE), lock(PARTS, AE)],
        [
            ex("ALTER TABLE orders ALTER COLUMN note SET STORAGE EXTERNAL", {"orders": N}),
            ex(
                "ALTER TABLE events ALTER COLUMN kind SET STORAGE EXTERNAL",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
        ],
    ),
    _simple(
        "set-compression",
        "SET COMPRESSION",
        AT.AT_SetCompression,
        [named(AE)],
        [ex("ALTER TABLE orders ALTER COLUMN note SET COMPRESSION pglz", {"orders": N})],
        versions=since(14),
    ),
]


CONSTRAINTS = [
    _simple(
        "alter-constraint",
        "ALTER CONSTRAINT ... [NOT] DEFERRABLE",
        AT.AT_AlterConstraint,
        [named(AE)],
        [
            ex(
                "ALTER TABLE orders ALTER CONSTRAINT orders_account_id_fkey DEFERRABLE",
                {"orders": N},
            )
        ],
        [doc(PAGE, "ALTER CONSTRAINT"), LOCK_LEVEL, tablecmds("ATExecAlterConstraint")],
        f("def_.alterEnforceability", True, negate=True),
        f("def_.alterInheritability", True, negate=True),
    ),
    _simple(
        "alter-constraint.not-enforced",
        "ALTER CONSTRAINT ... NOT ENFORCED",
        AT.AT_AlterConstraint,
        [named(AE), lock(REF, AE)],
        [
            ex(
                "ALTER TABLE orders ALTER CONSTRAINT orders_account_id_fkey NOT ENFORCED",
                {"orders": N, "accounts": REF},
            ),
        ],
        [doc(PAGE, "ALTER CONSTRAINT"), LOCK_LEVEL, tablecmds("ATExecAlterConstrEnforceability")],
        f("def_.alterEnforceability", True),
        f("def_.is_enforced", False),
        versions=since(18),
        note="A foreign key's triggers are dropped from both tables (RemoveTriggerById).",
    ),
    _simple(
        "alter-constraint.enforced",
        "ALTER CONSTRAINT ... ENFORCED",
        AT.AT_AlterConstraint,
        [named(AE), lock(REF, SRE)],
        [
            ex(
                "ALTER TABLE lax ALTER CONSTRAINT lax_parent_fk ENFORCED",
                {"lax": N, "lax_parent": REF},
            )
        ],
        [doc(PAGE, "ALTER CONSTRAINT"), LOCK_LEVEL, tablecmds("ATExecAlterConstrEnforceability")],
        f("def_.alterEnforceability", True),
        f("def_.is_enforced", True),
        scans=does(),
        rejects=[reject("23503", "when a row has no match in the referenced table")],
        versions=since(18),
        note="The foreign key is validated (every row) and its triggers are created again.",
    ),
    _simple(
        "alter-constraint.inherit",
        "ALTER CONSTRAINT ... [NO] INHERIT",
        AT.AT_AlterConstraint,
        [named(AE), lock(PARTS, AE)],
        [
            ex(
                "ALTER TABLE base ALTER CONSTRAINT base_v_nn NO INHERIT",
                {"base": N, "derived": PARTS},
                setup=("ALTER TABLE base ADD CONSTRAINT base_v_nn NOT NULL v",),
            ),
        ],
        [doc(PAGE, "ALTER CONSTRAINT"), LOCK_LEVEL],
        f("def_.alterInheritability", True),
        versions=since(18),
    ),
    _simple(
        "validate-constraint",
        "VALIDATE CONSTRAINT",
        AT.AT_ValidateConstraint,
        [named(SUE), lock(PARTS, SUE), lock(REF, RS, "a foreign key's referenced table")],
        [
            ex("ALTER TABLE orders VALIDATE CONSTRAINT orders_note_check", {"orders": N}),
            ex(
                "ALTER TABLE items VALIDATE CONSTRAINT items_order_id_fkey",
                {"items": N, "orders": REF},
            ),
            ex(
                "ALTER TABLE orders VALIDATE CONSTRAINT orders_id_small",
                setup=(
                    "ALTER TABLE orders ADD CONSTRAINT orders_id_small CHECK (id < 50) NOT VALID",
                ),
                error="23514",
            ),
        ],
        [doc(PAGE, "VALIDATE CONSTRAINT; Notes"), LOCK_LEVEL],
        scans=does(N, PARTS),
        rejects=[
            reject("23514", "when a row violates the CHECK"),
            reject("23503", "when a row has no match"),
        ],
    ),
    _simple(
        "drop-constraint",
        "DROP CONSTRAINT",
        AT.AT_DropConstraint,
        [named(AE), lock(PARTS, AE), lock(REF, AE, "a foreign key's referenced table")],
        [
            ex("ALTER TABLE orders DROP CONSTRAINT orders_amount_check", {"orders": N}),
            ex(
                "ALTER TABLE orders DROP CONSTRAINT orders_account_id_fkey",
                {"orders": N, "accounts": REF},
            ),
            ex("ALTER TABLE accounts DROP CONSTRAINT accounts_pkey", error="2BP01"),
        ],
        [
            doc(PAGE, "DROP CONSTRAINT [ IF EXISTS ]"),
            LOCK_LEVEL,
            tablecmds("dropconstraint_internal"),
        ],
        not_("behavior", CASCADE),
        rejects=[_DEPENDENTS],
    ),
    _simple(
        "drop-constraint.cascade",
        "DROP CONSTRAINT ... CASCADE",
        AT.AT_DropConstraint,
        [named(AE), lock(PARTS, AE), lock(REF, AE), lock(CASC, AE)],
        [
            ex(
                "ALTER TABLE measures DROP CONSTRAINT measures_pkey CASCADE",
                {
                    "measures": N,
                    "measures_1": PARTS,
                    "measures_2": PARTS,
                    "measure_refs": CASC,
                },
            ),
            ex(
                "ALTER TABLE accounts DROP CONSTRAINT accounts_pkey CASCADE",
                {"accounts": N, "orders": CASC},
            ),
        ],
        [doc(PAGE, "DROP CONSTRAINT [ IF EXISTS ]"), LOCK_LEVEL],
        f("behavior", CASCADE),
        note="Dropping a primary key or unique constraint drops the foreign keys that "
        "reference it: ACCESS EXCLUSIVE on their tables.",
    ),
]

TRIGGERS_RULES_SECURITY = [
    _simple(
        "enable-disable-trigger",
        "DISABLE/ENABLE [ REPLICA | ALWAYS ] TRIGGER",
        TRIGGER_SWITCHES,
        [
            named(SRE),
            lock(PARTS, SRE, "a partitioned table's partitions, where its triggers are cloned"),
        ],
        [
            ex("ALTER TABLE items DISABLE TRIGGER items_touch", {"items": N}),
            ex("ALTER TABLE items ENABLE ALWAYS TRIGGER items_touch", {"items": N}),
            ex("ALTER TABLE items DISABLE TRIGGER USER", {"items": N}),
            ex("ALTER TABLE items DISABLE TRIGGER ALL", {"items": N}),
            ex("ALTER TABLE events DISABLE TRIGGER ALL", {"events": N}),
        ],
    ),
    _simple(
        "enable-disable-rule",
        "DISABLE/ENABLE [ REPLICA | ALWAYS ] RULE",
        (AT.AT_EnableRule, AT.AT_EnableAlwaysRule, AT.AT_EnableReplicaRule, AT.AT_DisableRule),
        [named(AE)],
        [
            ex("ALTER TABLE base DISABLE RULE base_keep", {"base": N}),
            ex("ALTER TABLE base ENABLE REPLICA RULE base_keep", {"base": N}),
        ],
    ),
    _simple(
        "row-level-security",
        "DISABLE/ENABLE/FORCE/NO FORCE ROW LEVEL SECURITY",
        (
            AT.AT_EnableRowSecurity,
            AT.AT_DisableRowSecurity,
            AT.AT_ForceRowSecurity,
            AT.AT_NoForceRowSecurity,
        ),
        [named(AE)],
        [
            ex("ALTER TABLE orders ENABLE ROW LEVEL SECURITY", {"orders": N}),
            ex("ALTER TABLE orders FORCE ROW LEVEL SECURITY", {"orders": N}),
        ],
    ),
    _simple(
        "replica-identity",
        "REPLICA IDENTITY",
        AT.AT_ReplicaIdentity,
        [named(AE)],
        [
            ex("ALTER TABLE orders REPLICA IDENTITY FULL", {"orders": N}),
            ex(
                "ALTER TABLE accounts REPLICA IDENTITY USING INDEX accounts_name_idx",
                {"accounts": N},
            ),
        ],
    ),
]

STORAGE = [
    _simple(
        "cluster-on",
        "CLUSTER ON / SET WITHOUT CLUSTER",
        (AT.AT_ClusterOn, AT.AT_DropCluster),
        [named(SUE)],
        [
            ex("ALTER TABLE orders CLUSTER ON orders_status_idx", {"orders": N}),
            ex("ALTER TABLE orders SET WITHOUT CLUSTER", {"orders": N}),
        ],
    ),
    _simple(
        "set-without-oids",
        "SET WITHOUT OIDS",
        AT.AT_DropOids,
        [named(AE), lock(PARTS, AE)],
        [ex("ALTER TABLE orders SET WITHOUT OIDS", {"orders": N})],
        note="Has no effect since PostgreSQL 12, but still takes its lock.",
    ),
    _simple(
        "set-access-method",
        "SET ACCESS METHOD",
        AT.AT_SetAccessMethod,
        [named(AE)],
        [
            ex("ALTER TABLE orders SET ACCESS METHOD heap_copy", {"orders": N}, rewrites=True),
            ex("ALTER TABLE orders SET ACCESS METHOD heap", {"orders": N}, rewrites=False),
            ex("ALTER TABLE events SET ACCESS METHOD heap", error="42809", versions=until(16)),
            ex(
                "ALTER TABLE events SET ACCESS METHOD heap_copy",
                {"events": N},
                rewrites=False,
                versions=since(17),
            ),
        ],
        rewrites=depends(
            "when the access method changes (a partitioned table only records it for new "
            "partitions, PostgreSQL 17+)"
        ),
        rejects=[reject("42809", "on a partitioned table (PostgreSQL 15-16)", until(16))],
        versions=since(15),
    ),
    _simple(
        "set-tablespace",
        "SET TABLESPACE",
        AT.AT_SetTableSpace,
        [named(AE)],
        [ex("ALTER TABLE orders SET TABLESPACE pg_default", {"orders": N}, rewrites=False)],
        rewrites=depends("when the tablespace changes (the files are copied)"),
    ),
    _simple(
        "set-logged",
        "SET { LOGGED | UNLOGGED }",
        (AT.AT_SetLogged, AT.AT_SetUnLogged),
        [named(AE), lock(SEQS, AE)],
        [
            ex(
                "ALTER TABLE tickets SET UNLOGGED",
                {"tickets": N, "tickets_id_seq": SEQS, "tickets_serial_no_seq": SEQS},
                rewrites=True,
            ),
            ex("ALTER TABLE orphan SET UNLOGGED", {"orphan": N}, rewrites=True),
            ex("ALTER TABLE orphan SET LOGGED", {"orphan": N}, rewrites=False),
            ex("ALTER TABLE orders SET UNLOGGED", error="42P16"),
            ex("ALTER TABLE accounts SET UNLOGGED", error="55000"),
        ],
        rewrites=depends("when the persistence changes"),
        rejects=[
            reject("42P16", "when a foreign key links it to a table of the other persistence"),
            reject("55000", "SET UNLOGGED on a table in a publication"),
        ],
    ),
    _simple(
        "set-storage-parameters",
        "SET ( storage_parameter ) / RESET",
        (AT.AT_SetRelOptions, AT.AT_ResetRelOptions),
        [named(SUE)],
        [
            ex("ALTER TABLE orders SET (fillfactor = 70)", {"orders": N}),
            ex("ALTER TABLE orders SET (autovacuum_enabled = false)", {"orders": N}),
            ex("ALTER TABLE orders RESET (fillfactor)", {"orders": N}),
            ex("ALTER TABLE orders SET (toast.autovacuum_enabled = false)", {"orders": N}),
        ],
        [
            doc(PAGE, "SET ( storage_parameter [= value] [, ... ] )"),
            code("src/backend/access/common/reloptions.c", "AlterTableGetRelOptionsLockLevel"),
        ],
        not_("def_.*.defname", TABLE_AE_OPTIONS),
        note="fillfactor, toast.*, autovacuum_*, parallel_workers and the other table options "
        "take SHARE UPDATE EXCLUSIVE; the options alone do not rewrite the table.",
    ),
    _simple(
        "set-storage-parameters.access-exclusive",
        "SET ( user_catalog_table )",
        (AT.AT_SetRelOptions, AT.AT_ResetRelOptions),
        [named(AE)],
        [ex("ALTER TABLE orders SET (user_catalog_table = true)", {"orders": N})],
        [
            doc(PAGE, "SET ( storage_parameter [= value] [, ... ] )"),
            code("src/backend/access/common/reloptions.c", "AlterTableGetRelOptionsLockLevel"),
        ],
        f("def_.*.defname", TABLE_AE_OPTIONS),
    ),
]

INHERITANCE = [
    _simple(
        "inherit",
        "INHERIT",
        AT.AT_AddInherit,
        [named(AE), lock(OTHER, SUE)],
        [ex("ALTER TABLE orphan INHERIT base", {"orphan": N, "base": OTHER})],
        [doc(PAGE, "INHERIT parent_table"), LOCK_LEVEL, tablecmds("ATExecAddInherit")],
        rejects=[reject("42804", "when the columns do not match the parent's")],
    ),
    _simple(
        "no-inherit",
        "NO INHERIT",
        AT.AT_DropInherit,
        [named(AE), lock(OTHER, AS)],
        [ex("ALTER TABLE derived NO INHERIT base", {"derived": N, "base": OTHER})],
        [doc(PAGE, "NO INHERIT parent_table"), LOCK_LEVEL, tablecmds("ATExecDropInherit")],
    ),
    _simple(
        "of",
        "OF type_name / NOT OF",
        (AT.AT_AddOf, AT.AT_DropOf),
        [named(AE)],
        [
            ex("ALTER TABLE spare_rows OF spare", {"spare_rows": N}),
            ex("ALTER TABLE pair_rows NOT OF", {"pair_rows": N}),
        ],
    ),
    _simple(
        "owner",
        "OWNER TO",
        AT.AT_ChangeOwner,
        [named(AE), lock(SEQS, AE)],
        [
            ex("ALTER TABLE orders OWNER TO sm_reference_role", {"orders": N}),
            ex(
                "ALTER TABLE tickets OWNER TO sm_reference_role",
                {"tickets": N, "tickets_id_seq": SEQS, "tickets_serial_no_seq": SEQS},
            ),
        ],
    ),
]

PARTITIONS = [
    row(
        "alter-table.attach-partition",
        "ALTER TABLE",
        "ATTACH PARTITION",
        alter(T, AT.AT_AttachPartition),
        [named(SUE), lock(OTHER, AE), lock(DEFAULT, AE), lock(REFING, SRE, _FK_CLONED)],
        [
            doc(PAGE, "ATTACH PARTITION"),
            doc("ddl-partitioning", "5.11.2.2 Partition Maintenance"),
            LOCK_LEVEL,
            tablecmds("ATExecAttachPartition"),
            tablecmds("CloneFkReferenced"),
        ],
        [
            ex(
                "ALTER TABLE events ATTACH PARTITION events_2025"
                " FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
                {"events": N, "events_2025": OTHER, "events_default": DEFAULT},
                scans=True,
                builds=True,
            ),
            ex(
                "ALTER TABLE measures ATTACH PARTITION measures_3 FOR VALUES IN (3)",
                {"measures": N, "measures_3": OTHER, "measure_refs": REFING},
                scans=True,
                builds=True,
            ),
            ex(
                "ALTER TABLE events ATTACH PARTITION events_2025"
                " FOR VALUES FROM ('2030-01-01') TO ('2031-01-01')",
                error="23514",
            ),
        ],
        scans=depends(
            "the attached table is scanned unless a valid CHECK constraint proves the bound; "
            "the default partition is scanned for rows of the new bound",
            OTHER,
            DEFAULT,
        ),
        builds=depends(
            "each index of the partitioned table is built on the attached table unless an "
            "equivalent index exists there",
            OTHER,
        ),
        rejects=[
            reject("23514", "when a row is outside the bound, or a default partition row inside it")
        ],
        note="A partitioned table being attached has its partitions locked (and scanned) too.",
    ),
    row(
        "alter-table.detach-partition",
        "ALTER TABLE",
        "DETACH PARTITION",
        alter(T, AT.AT_DetachPartition, f("def_.concurrent", False)),
        [named(AE), lock(OTHER, AE), lock(DEFAULT, AE), lock(REFING, AE, _FK_REFERENCING)],
        _DETACH_SOURCES,
        [
            ex(
                "ALTER TABLE events DETACH PARTITION events_2024",
                {"events": N, "events_2024": OTHER, "events_default": DEFAULT},
                scans=False,
            ),
            ex(
                "ALTER TABLE measures DETACH PARTITION measures_2",
                {"measures": N, "measures_2": OTHER, "measure_refs": REFING},
                scans=True,
            ),
            ex("ALTER TABLE measures DETACH PARTITION measures_1", error="23503"),
        ],
        scans=_FK_SCAN,
        rejects=[_FK_DETACH],
        note=_FK_NOTE,
    ),
    row(
        "alter-table.detach-partition.concurrently",
        "ALTER TABLE",
        "DETACH PARTITION ... CONCURRENTLY",
        alter(T, AT.AT_DetachPartition, f("def_.concurrent", True)),
        [named(SUE), lock(OTHER, AE), lock(REFING, AE, _FK_REFERENCING)],
        [*_DETACH_SOURCES, code("src/backend/tcop/utility.c", "ProcessUtilitySlow")],
        [
            ex(
                "ALTER TABLE measures DETACH PARTITION measures_2 CONCURRENTLY",
                {"measures": N, "measures_2": OTHER, "measure_refs": REFING},
                scans=True,
            ),
            ex(
                "ALTER TABLE events DETACH PARTITION events_2024 CONCURRENTLY",
                error="55000",
            ),
        ],
        transaction=NO_BLOCK,
        rejects=[reject("55000", "when the partitioned table has a default partition"), _FK_DETACH],
        versions=since(14),
        scans=_FK_SCAN,
        note=_FK_NOTE
        + " Two transactions: the first marks the partition detached, then it waits for "
        "every transaction using the partitioned table; the second takes ACCESS EXCLUSIVE on "
        "the partition only, to finish.",
    ),
    row(
        "alter-table.detach-partition.finalize",
        "ALTER TABLE",
        "DETACH PARTITION ... FINALIZE",
        alter(T, AT.AT_DetachPartitionFinalize),
        [named(SUE), lock(OTHER, AE)],
        [doc(PAGE, "DETACH PARTITION"), LOCK_LEVEL],
        [ex("ALTER TABLE measures DETACH PARTITION measures_1 FINALIZE", error="55000")],
        rejects=[
            reject("55000", "when the partition is not being detached concurrently"),
        ],
        versions=since(14),
    ),
]

_RENAME_SOURCES = [doc(PAGE, "RENAME"), tablecmds("RenameRelation")]

OWN_NODES = [
    row(
        "alter-table.rename",
        "ALTER TABLE",
        "RENAME TO",
        stmt(ast.RenameStmt, f("renameType", T)),
        [named(AE)],
        _RENAME_SOURCES,
        [ex("ALTER TABLE orders RENAME TO orders_old", {"orders": N})],
    ),
    row(
        "alter-table.rename-column",
        "ALTER TABLE",
        "RENAME COLUMN",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_COLUMN), f("relationType", T)),
        [named(AE), lock(PARTS, AE)],
        [doc(PAGE, "RENAME"), tablecmds("renameatt")],
        [
            ex("ALTER TABLE orders RENAME COLUMN note TO memo", {"orders": N}),
            ex(
                "ALTER TABLE events RENAME COLUMN kind TO sort",
                {"events": N, "events_2024": PARTS, "events_default": PARTS},
            ),
        ],
        note="Views that use the column keep working (they refer to it by number).",
    ),
    row(
        "alter-table.rename-constraint",
        "ALTER TABLE",
        "RENAME CONSTRAINT",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_TABCONSTRAINT)),
        [named(AE), lock(PARTS, AE)],
        [doc(PAGE, "RENAME"), tablecmds("RenameConstraint")],
        [
            ex(
                "ALTER TABLE orders RENAME CONSTRAINT orders_amount_check TO orders_amount_ck",
                {"orders": N},
            ),
            ex("ALTER TABLE orders RENAME CONSTRAINT orders_pkey TO orders_key", {"orders": N}),
        ],
    ),
    row(
        "alter-table.set-schema",
        "ALTER TABLE",
        "SET SCHEMA",
        stmt(ast.AlterObjectSchemaStmt, f("objectType", T)),
        [named(AE), lock(SEQS, AE)],
        [doc(PAGE, "SET SCHEMA"), tablecmds("AlterTableNamespace")],
        [
            ex("ALTER TABLE orders SET SCHEMA archive", {"orders": N}),
            ex(
                "ALTER TABLE tickets SET SCHEMA archive",
                {"tickets": N, "tickets_id_seq": SEQS, "tickets_serial_no_seq": SEQS},
            ),
        ],
    ),
    row(
        "alter-table.all-in-tablespace",
        "ALTER TABLE",
        "ALL IN TABLESPACE ... SET TABLESPACE",
        stmt(ast.AlterTableMoveAllStmt, f("objtype", T)),
        [lock(MOVED, AE)],
        [doc(PAGE, "SET TABLESPACE"), tablecmds("AlterTableMoveAll")],
        [
            ex(
                "ALTER TABLE ALL IN TABLESPACE pg_default OWNED BY sm_reference_role"
                " SET TABLESPACE pg_default",
                rewrites=False,
            )
        ],
        rewrites=Fact(Effect.DEPENDS, (MOVED,), "each table moved is copied to the new tablespace"),
        note="Every table in the tablespace (of the owners named) is locked before any moves.",
    ),
]

ROWS: tuple[Row, ...] = (
    *ADD_COLUMN,
    *INLINE_CONSTRAINTS,
    *ADD_CONSTRAINT,
    *COLUMNS,
    *CONSTRAINTS,
    *TRIGGERS_RULES_SECURITY,
    *STORAGE,
    *INHERITANCE,
    *PARTITIONS,
    *OWN_NODES,
)
