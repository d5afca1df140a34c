"""constraint-without-not-valid: FOREIGN KEY or CHECK added with a full validating scan."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule
from .add_column_volatile_default import added_columns, has_default, type_and_domain

DOC = """
Catches: `ALTER TABLE ... ADD [CONSTRAINT name] FOREIGN KEY ...` or `... CHECK (...)` on a table
that existed before the migration, without NOT VALID; and a `VALIDATE CONSTRAINT` run in the same
transaction (same statement, BEGIN/COMMIT block or group) as the `ADD ... NOT VALID` it
validates, which gives up what NOT VALID gained, or after another ALTER TABLE / LOCK TABLE
of the same table in that transaction (the scan then runs under that statement's lock). NOT
ENFORCED constraints are not checked.
Also `ALTER DOMAIN ... ADD CONSTRAINT ... CHECK` without NOT VALID (every column of the
domain's type is checked; ALTER DOMAIN docs), and the constraints an `ADD COLUMN` implies:
an inline `CHECK` is checked against every existing row (parse_utilcmd.c
transformCheckConstraints skips validation only for CREATE TABLE); an inline `REFERENCES` is
not validated when the column has no default (every value is NULL, so PostgreSQL marks it
valid without a scan: transformAlterTableStmt's skipValidation), but is when it has one.

Why it hurts: PostgreSQL checks every existing row while it holds the lock the ADD took: ACCESS
EXCLUSIVE for a CHECK (no reads or writes of the table), SHARE ROW EXCLUSIVE on both tables for a
FOREIGN KEY (no writes to either). On a large table that is a long outage.

Severity: warning when safemigrate itself runs the statement as NOT VALID + VALIDATE
(safe_rewrites = "rewrite", a single-command ALTER TABLE outside a BEGIN/COMMIT block or group):
the runner is safe, but the file is not when run by anything else. Error otherwise.

Applies to: every PostgreSQL version (NOT VALID for CHECK from 9.2, for FOREIGN KEY from 9.1).
Source: PostgreSQL docs, ALTER TABLE (ADD table_constraint, VALIDATE CONSTRAINT, Notes), ALTER
DOMAIN (ADD domain_constraint, NOT VALID) and
13.3 Explicit Locking (the lock modes).

Instead: add the constraint with NOT VALID (it then applies to new rows only and is added in an
instant), then `ALTER TABLE ... VALIDATE CONSTRAINT name` as a separate statement (its own
transaction): validation takes only a SHARE UPDATE EXCLUSIVE lock, which lets reads and writes
go on.
"""

RULE = make_rule(
    "constraint-without-not-valid",
    "error",
    "FOREIGN KEY or CHECK constraint added without NOT VALID on an existing table",
    DOC + WITH_A_DATABASE,
)

_AT = enums.AlterTableType
_CONSTR = enums.ConstrType


def _describe(con: Any) -> str:
    kind = "FOREIGN KEY" if con.contype == _CONSTR.CONSTR_FOREIGN else "CHECK"
    return f"{kind} constraint {con.conname}" if con.conname else f"{kind} constraint"


def _domain(node: Any) -> Iterator[Hit]:
    """ALTER DOMAIN ... ADD CONSTRAINT ... CHECK without NOT VALID."""
    con = node.def_
    if (
        node.subtype == "C"
        and isinstance(con, ast.Constraint)
        and con.contype == _CONSTR.CONSTR_CHECK
        and not con.skip_validation
    ):
        domain = ".".join(str(n.sval) for n in node.typeName or ())
        yield hit(
            RULE,
            f"adds a CHECK constraint to domain {domain} without NOT VALID: PostgreSQL checks "
            "every value of every column of that type, in every table, while holding locks "
            "that block their writes",
            "add it with NOT VALID, then ALTER DOMAIN ... VALIDATE CONSTRAINT in a separate "
            "statement",
            cost=Cost("scan"),
        )


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if isinstance(node, ast.AlterDomainStmt):
        yield from _domain(node)
        return
    if not ctx.alters_existing_table(node):
        return
    table = ctx.table(node.relation)
    shown = show(written(node.relation))
    scan = Cost("scan", ctx.family(node.relation))
    added_here: set[str] = set()
    for cmd in node.cmds or ():
        if not isinstance(cmd, ast.AlterTableCmd):
            continue
        if cmd.subtype == _AT.AT_AddConstraint and isinstance(cmd.def_, ast.Constraint):
            con = cmd.def_
            if con.contype not in (_CONSTR.CONSTR_FOREIGN, _CONSTR.CONSTR_CHECK):
                continue
            if not con.is_enforced:
                continue
            if con.skip_validation:
                if con.conname:
                    added_here.add(str(con.conname))
                continue
            if con.contype == _CONSTR.CONSTR_FOREIGN:
                other = show(written(con.pktable)) if con.pktable is not None else "?"
                effect = (
                    f"checks every row of {shown} while holding SHARE ROW EXCLUSIVE locks on "
                    f"{shown} and {other}: writes to both tables are blocked for the whole scan"
                )
            else:
                effect = (
                    f"checks every row of {shown} while holding an ACCESS EXCLUSIVE lock: no "
                    "reads or writes of the table for the whole scan"
                )
            if ctx.runs_as_recipe():
                yield hit(
                    RULE,
                    f"adds {_describe(con)} on existing table {shown} without NOT VALID: "
                    "safemigrate runs it as ADD ... NOT VALID then VALIDATE CONSTRAINT, but run "
                    f"as written (psql, another tool) it {effect}",
                    "write the NOT VALID and VALIDATE CONSTRAINT statements yourself so the file "
                    "says what runs",
                    "warning",
                    cost=scan,
                )
                continue
            yield hit(
                RULE,
                f"adds {_describe(con)} on existing table {shown} without NOT VALID: it {effect}",
                "add it with NOT VALID, then VALIDATE CONSTRAINT in a separate statement "
                "(validation takes a SHARE UPDATE EXCLUSIVE lock, which lets reads and writes "
                "go on)",
                cost=scan,
            )
        elif cmd.subtype == _AT.AT_ValidateConstraint and cmd.name:
            name = str(cmd.name)
            added = ctx.state.not_valid.get((table, name))
            if name in added_here:
                where = "in the same statement"
            elif added is not None and added[0] == ctx.tx.id:
                where = f"in the same transaction ({ctx.tx.describe()})"
            elif table in ctx.state.locked_in_tx.get(ctx.tx.id, ()):
                yield hit(
                    RULE,
                    f"VALIDATE CONSTRAINT {name} runs in {ctx.tx.describe()}, which already "
                    f"holds a strong lock on {shown} from an earlier ALTER TABLE or LOCK TABLE: "
                    "the validation scan runs under that lock, blocking writes (or reads and "
                    "writes) for the whole scan",
                    "run VALIDATE CONSTRAINT as its own statement, outside the block",
                    cost=scan,
                )
                continue
            else:
                continue
            yield hit(
                RULE,
                f"VALIDATE CONSTRAINT {name} runs {where} as the ADD ... NOT VALID: the scan "
                f"happens while the lock the ADD took on {shown} is still held, as if NOT VALID "
                "had not been written",
                "run VALIDATE CONSTRAINT as its own statement, after the transaction that added "
                "the constraint has committed",
                cost=scan,
            )
    yield from _inline(node, ctx, shown)


def _inline(node: Any, ctx: StatementContext, shown: str) -> Iterator[Hit]:
    """The CHECK and REFERENCES constraints written on the columns an ALTER TABLE adds."""
    for coldef in added_columns(node, ctx):
        written_default = has_default(coldef)
        added, domain = type_and_domain(coldef, ctx)
        if added is not None and domain is not None and domain.constrained and not added.array:
            # tablecmds.c ATExecAddColumn: a new column of a domain with constraints has its
            # default (NULL too) checked against them for every row: a rewrite (verified on
            # PostgreSQL 15).
            yield hit(
                RULE,
                f"adds column {coldef.colname} of the domain {added}, which has constraints, "
                f"to existing table {shown}: PostgreSQL checks every existing row's value "
                "against them and rewrites the table under an ACCESS EXCLUSIVE lock",
                "add the column with the domain's base type, backfill, then switch the type "
                "(or add a CHECK ... NOT VALID and VALIDATE it) in separate statements",
                cost=Cost("rewrite", ctx.family(node.relation)),
            )
            continue
        for con in coldef.constraints or ():
            if not isinstance(con, ast.Constraint) or not con.is_enforced:
                continue
            if con.contype == _CONSTR.CONSTR_CHECK:
                effect = (
                    "checks every existing row under an ACCESS EXCLUSIVE lock (an ADD COLUMN "
                    "CHECK is validated like ADD CONSTRAINT CHECK)"
                )
            elif con.contype == _CONSTR.CONSTR_FOREIGN and written_default:
                effect = (
                    "checks every existing row's default against the referenced table while "
                    "holding the ADD COLUMN's ACCESS EXCLUSIVE lock"
                )
            else:
                continue
            yield hit(
                RULE,
                f"adds column {coldef.colname} to existing table {shown} with an inline "
                f"{'CHECK' if con.contype == _CONSTR.CONSTR_CHECK else 'REFERENCES'}: it {effect}",
                "add the column without the constraint, then ADD CONSTRAINT ... NOT VALID and "
                "VALIDATE CONSTRAINT in separate statements",
                cost=Cost("scan", ctx.family(node.relation)),
            )
