"""ALTER DOMAIN and ALTER TYPE: one row per form (sql-alterdomain.html, sql-altertype.html).

A domain's or type's own catalog rows are locked as objects (pg_locks ``locktype = 'object'``),
which no query of the application waits for; what matters is the tables that use it: a new
or validated domain constraint reads every row of every column of the domain under SHARE
(writes wait), and a composite type's attribute change reaches its typed tables.
"""

from __future__ import annotations

from typing import Any

from pglast import ast

from .._build import *
from ..model import ABSENT, PRESENT, Row

_DP = "sql-alterdomain"
_TYPECMDS = "src/backend/commands/typecmds.c"


def _domain(
    id: str, form: str, key: Any, locks: list[Any], examples: list[Any], function: str, **facts: Any
) -> Row:
    return row(
        f"alter-domain.{id}",
        "ALTER DOMAIN",
        form,
        key,
        locks,
        [doc(_DP, form), code(_TYPECMDS, function)],
        examples,
        **facts,
    )


def _ad(subtype: str, *fields: Any) -> Any:
    return stmt(ast.AlterDomainStmt, f("subtype", subtype), *fields)


_USES = {"orders": USERS}
_SCAN_USERS = does(USERS)

ALTER_DOMAIN = [
    _domain(
        "set-default",
        "SET DEFAULT",
        _ad("T", f("def_", PRESENT)),
        [],
        [ex("ALTER DOMAIN positive SET DEFAULT 1")],
        "AlterDomainDefault",
        note="Applies to later INSERTs only; existing rows keep their values.",
    ),
    _domain(
        "drop-default",
        "DROP DEFAULT",
        _ad("T", f("def_", ABSENT)),
        [],
        [ex("ALTER DOMAIN positive DROP DEFAULT")],
        "AlterDomainDefault",
    ),
    _domain(
        "set-not-null",
        "SET NOT NULL",
        _ad("O"),
        [lock(USERS, SH)],
        [
            ex("ALTER DOMAIN positive SET NOT NULL", _USES),
            ex(
                "ALTER DOMAIN positive SET NOT NULL",
                setup=("UPDATE orders SET qty = NULL WHERE id = 1",),
                error="23502",
            ),
        ],
        "AlterDomainNotNull",
        scans=_SCAN_USERS,
        rejects=[reject("23502", "when a column of the domain holds NULL")],
    ),
    _domain(
        "drop-not-null",
        "DROP NOT NULL",
        _ad("N"),
        [],
        [ex("ALTER DOMAIN positive DROP NOT NULL")],
        "AlterDomainNotNull",
    ),
    _domain(
        "add-constraint",
        "ADD domain_constraint",
        _ad("C", f("def_.skip_validation", False)),
        [lock(USERS, SH)],
        [
            ex("ALTER DOMAIN positive ADD CONSTRAINT positive_cap CHECK (VALUE < 1000)", _USES),
            ex(
                "ALTER DOMAIN positive ADD CONSTRAINT positive_cap CHECK (VALUE < 50)",
                error="23514",
            ),
        ],
        "AlterDomainAddConstraint",
        scans=_SCAN_USERS,
        rejects=[reject("23514", "when a value in a column of the domain violates it")],
    ),
    _domain(
        "add-constraint-not-valid",
        "ADD domain_constraint NOT VALID",
        _ad("C", f("def_.skip_validation", True)),
        [],
        [ex("ALTER DOMAIN positive ADD CONSTRAINT positive_cap CHECK (VALUE < 50) NOT VALID")],
        "AlterDomainAddConstraint",
        note="New and updated values are checked; existing ones only by VALIDATE CONSTRAINT.",
    ),
    _domain(
        "drop-constraint",
        "DROP CONSTRAINT",
        _ad("X"),
        [],
        [ex("ALTER DOMAIN positive DROP CONSTRAINT positive_check")],
        "AlterDomainDropConstraint",
    ),
    _domain(
        "validate-constraint",
        "VALIDATE CONSTRAINT",
        _ad("V"),
        [lock(USERS, SH)],
        [
            ex(
                "ALTER DOMAIN positive VALIDATE CONSTRAINT positive_cap",
                _USES,
                setup=(
                    "ALTER DOMAIN positive ADD CONSTRAINT positive_cap CHECK (VALUE < 1000)"
                    " NOT VALID",
                ),
            )
        ],
        "AlterDomainValidateConstraint",
        scans=_SCAN_USERS,
        rejects=[reject("23514", "when a value violates it")],
    ),
    row(
        "alter-domain.rename-constraint",
        "ALTER DOMAIN",
        "RENAME CONSTRAINT",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_DOMCONSTRAINT)),
        [],
        [doc(_DP, "RENAME CONSTRAINT"), code(_TYPECMDS, "RenameConstraint")],
        [ex("ALTER DOMAIN positive RENAME CONSTRAINT positive_check TO positive_ck")],
    ),
    row(
        "alter-domain.owner",
        "ALTER DOMAIN",
        "OWNER TO",
        stmt(ast.AlterOwnerStmt, f("objectType", OT.OBJECT_DOMAIN)),
        [],
        [doc(_DP, "OWNER"), code(_TYPECMDS, "AlterTypeOwner")],
        [ex("ALTER DOMAIN positive OWNER TO sm_reference_role")],
    ),
    row(
        "alter-domain.rename",
        "ALTER DOMAIN",
        "RENAME",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_DOMAIN)),
        [],
        [doc(_DP, "RENAME"), code(_TYPECMDS, "RenameType")],
        [ex("ALTER DOMAIN positive RENAME TO counting")],
    ),
    row(
        "alter-domain.set-schema",
        "ALTER DOMAIN",
        "SET SCHEMA",
        stmt(ast.AlterObjectSchemaStmt, f("objectType", OT.OBJECT_DOMAIN)),
        [],
        [doc(_DP, "SET SCHEMA"), code(_TYPECMDS, "AlterTypeNamespace")],
        [ex("ALTER DOMAIN positive SET SCHEMA archive")],
    ),
]

_TP = "sql-altertype"
_T = OT.OBJECT_TYPE
_SPARE = {"spare": TYPE_REL}

ALTER_TYPE = [
    row(
        "alter-type.owner",
        "ALTER TYPE",
        "OWNER TO",
        stmt(ast.AlterOwnerStmt, f("objectType", _T)),
        [lock(TYPE_REL, AE)],
        [doc(_TP, "OWNER"), code(_TYPECMDS, "AlterTypeOwner")],
        [
            ex("ALTER TYPE level OWNER TO sm_reference_role"),
            ex("ALTER TYPE spare OWNER TO sm_reference_role", _SPARE),
        ],
        note="A composite type's relation is locked too (ACCESS EXCLUSIVE); no table is.",
    ),
    row(
        "alter-type.rename",
        "ALTER TYPE",
        "RENAME TO",
        stmt(ast.RenameStmt, f("renameType", _T)),
        [lock(TYPE_REL, AE)],
        [doc(_TP, "RENAME"), code(_TYPECMDS, "RenameType")],
        [ex("ALTER TYPE level RENAME TO grade"), ex("ALTER TYPE spare RENAME TO extra", _SPARE)],
    ),
    row(
        "alter-type.set-schema",
        "ALTER TYPE",
        "SET SCHEMA",
        stmt(ast.AlterObjectSchemaStmt, f("objectType", _T)),
        [],
        [doc(_TP, "SET SCHEMA"), code(_TYPECMDS, "AlterTypeNamespace")],
        [
            ex("ALTER TYPE level SET SCHEMA archive"),
            ex("ALTER TYPE spare SET SCHEMA archive", _SPARE),
        ],
    ),
    row(
        "alter-type.rename-attribute",
        "ALTER TYPE",
        "RENAME ATTRIBUTE",
        stmt(ast.RenameStmt, f("renameType", OT.OBJECT_ATTRIBUTE)),
        [lock(TYPE_REL, AE), lock(USERS, AE)],
        [doc(_TP, "RENAME ATTRIBUTE"), tablecmds("renameatt")],
        [
            ex("ALTER TYPE spare RENAME ATTRIBUTE a TO aa", _SPARE),
            ex("ALTER TYPE pair RENAME ATTRIBUTE x TO xx", error="2BP01"),
            ex(
                "ALTER TYPE pair RENAME ATTRIBUTE x TO xx CASCADE",
                {"pair": TYPE_REL, "pair_rows": USERS},
            ),
        ],
        rejects=[reject("2BP01", "when typed tables use the type and CASCADE is not given")],
    ),
    row(
        "alter-type.add-attribute",
        "ALTER TYPE",
        "ADD ATTRIBUTE",
        alter(_T, AT.AT_AddColumn),
        [lock(TYPE_REL, AE), lock(USERS, AE)],
        [doc(_TP, "ADD ATTRIBUTE"), tablecmds("ATTypedTableRecursion")],
        [
            ex("ALTER TYPE spare ADD ATTRIBUTE c int", _SPARE),
            ex("ALTER TYPE pair ADD ATTRIBUTE z int", error="2BP01"),
            ex(
                "ALTER TYPE pair ADD ATTRIBUTE z int CASCADE",
                {"pair": TYPE_REL, "pair_rows": USERS},
            ),
        ],
        rejects=[reject("2BP01", "when typed tables use the type and CASCADE is not given")],
        note="Typed tables (CREATE TABLE ... OF type) get the attribute as a column; columns of "
        "the type in other tables read it as NULL.",
    ),
    row(
        "alter-type.drop-attribute",
        "ALTER TYPE",
        "DROP ATTRIBUTE",
        alter(_T, AT.AT_DropColumn),
        [lock(TYPE_REL, AE), lock(USERS, AE)],
        [doc(_TP, "DROP ATTRIBUTE"), tablecmds("ATTypedTableRecursion")],
        [
            ex("ALTER TYPE spare DROP ATTRIBUTE b", _SPARE),
            ex("ALTER TYPE pair DROP ATTRIBUTE y", error="2BP01"),
            ex(
                "ALTER TYPE pair DROP ATTRIBUTE y CASCADE",
                {"pair": TYPE_REL, "pair_rows": USERS},
            ),
        ],
        rejects=[reject("2BP01", "when typed tables use the type and CASCADE is not given")],
    ),
    row(
        "alter-type.alter-attribute-type",
        "ALTER TYPE",
        "ALTER ATTRIBUTE ... SET DATA TYPE",
        alter(_T, AT.AT_AlterColumnType),
        [lock(TYPE_REL, AE), lock(USERS, AE)],
        [doc(_TP, "ALTER ATTRIBUTE"), tablecmds("find_composite_type_dependencies")],
        [
            ex("ALTER TYPE spare ALTER ATTRIBUTE a TYPE bigint", _SPARE),
            ex("ALTER TYPE pair ALTER ATTRIBUTE x TYPE bigint CASCADE", error="0A000"),
        ],
        rejects=[
            reject(
                "0A000", "when a table has a column of the type (its rows would need rewriting)"
            ),
            reject("2BP01", "when typed tables use the type and CASCADE is not given"),
        ],
    ),
    row(
        "alter-type.add-value",
        "ALTER TYPE",
        "ADD VALUE",
        stmt(ast.AlterEnumStmt, f("oldVal", ABSENT)),
        [],
        [
            doc(_TP, "ADD VALUE [ IF NOT EXISTS ] [ BEFORE | AFTER ]; Notes"),
            code(_TYPECMDS, "AlterEnum"),
        ],
        [
            ex("ALTER TYPE level ADD VALUE 'medium' BEFORE 'high'"),
            ex("ALTER TYPE mood ADD VALUE IF NOT EXISTS 'calm'"),
        ],
        rejects=[
            reject(
                "55P04",
                "the new value is used in the transaction that added it "
                "(PostgreSQL 12+ allow the ALTER in a transaction block; the value "
                "is usable after COMMIT)",
            )
        ],
        note="No table is locked or rewritten, whatever uses the type.",
    ),
    row(
        "alter-type.rename-value",
        "ALTER TYPE",
        "RENAME VALUE",
        stmt(ast.AlterEnumStmt, f("oldVal", PRESENT)),
        [],
        [doc(_TP, "RENAME VALUE"), code(_TYPECMDS, "AlterEnum")],
        [ex("ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'")],
    ),
    row(
        "alter-type.set-property",
        "ALTER TYPE",
        "SET ( property = value )",
        stmt(ast.AlterTypeStmt),
        [],
        [doc(_TP, "SET ( property = value [, ... ] )"), code(_TYPECMDS, "AlterType")],
        [ex("ALTER TYPE mood SET (STORAGE = plain)", error="42809")],
        rejects=[
            reject("42809", "on a type that is not a base type"),
            reject("42501", "when not a superuser (most properties)"),
        ],
        versions=since(13),
        note="Only base types (CREATE TYPE with I/O functions); domains over it follow.",
    ),
]

ROWS: tuple[Row, ...] = (*ALTER_DOMAIN, *ALTER_TYPE)
