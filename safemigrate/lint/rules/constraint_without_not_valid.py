"""constraint-without-not-valid: FOREIGN KEY or CHECK added with a full validating scan."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, show, written
from ..findings import Hit, hit, make_rule

DOC = """
Catches: `ALTER TABLE ... ADD [CONSTRAINT name] FOREIGN KEY ...` or `... CHECK (...)` on a table
that existed before the migration, without NOT VALID; and a `VALIDATE CONSTRAINT` run in the same
transaction (same statement, BEGIN/COMMIT block or group) as the `ADD ... NOT VALID` it
validates, which gives up what NOT VALID gained. NOT ENFORCED constraints are not checked.

Why it hurts: PostgreSQL checks every existing row while it holds the lock the ADD took: ACCESS
EXCLUSIVE for a CHECK (no reads or writes of the table), SHARE ROW EXCLUSIVE on both tables for a
FOREIGN KEY (no writes to either). On a large table that is a long outage.

Severity: warning when safemigrate itself runs the statement as NOT VALID + VALIDATE
(safe_rewrites = "rewrite", a single-command ALTER TABLE outside a BEGIN/COMMIT block or group):
the runner is safe, but the file is not when run by anything else. Error otherwise.

Instead: add the constraint with NOT VALID (it then applies to new rows only and is added in an
instant), then `ALTER TABLE ... VALIDATE CONSTRAINT name` as a separate statement (its own
transaction): validation takes only a SHARE UPDATE EXCLUSIVE lock, which lets reads and writes
go on.
"""

RULE = make_rule(
    "constraint-without-not-valid",
    "error",
    "FOREIGN KEY or CHECK constraint added without NOT VALID on an existing table",
    DOC,
)

_AT = enums.AlterTableType
_CONSTR = enums.ConstrType


def _describe(con: Any) -> str:
    kind = "FOREIGN KEY" if con.contype == _CONSTR.CONSTR_FOREIGN else "CHECK"
    return f"{kind} constraint {con.conname}" if con.conname else f"{kind} constraint"


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not isinstance(node, ast.AlterTableStmt) or node.relation is None:
        return
    if node.objtype != enums.ObjectType.OBJECT_TABLE or ctx.is_new(node.relation):
        return
    table = ctx.table(node.relation)
    shown = show(written(node.relation))
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
                )
                continue
            yield hit(
                RULE,
                f"adds {_describe(con)} on existing table {shown} without NOT VALID: it {effect}",
                "add it with NOT VALID, then VALIDATE CONSTRAINT in a separate statement "
                "(validation takes a SHARE UPDATE EXCLUSIVE lock, which lets reads and writes "
                "go on)",
            )
        elif cmd.subtype == _AT.AT_ValidateConstraint and cmd.name:
            name = str(cmd.name)
            added = ctx.state.not_valid.get((table, name))
            if name in added_here:
                where = "in the same statement"
            elif added is not None and added[0] == ctx.tx.id:
                where = f"in the same transaction ({ctx.tx.describe()})"
            else:
                continue
            yield hit(
                RULE,
                f"VALIDATE CONSTRAINT {name} runs {where} as the ADD ... NOT VALID: the scan "
                f"happens while the lock the ADD took on {shown} is still held, as if NOT VALID "
                "had not been written",
                "run VALIDATE CONSTRAINT as its own statement, after the transaction that added "
                "the constraint has committed",
            )
