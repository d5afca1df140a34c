"""unique-without-index: UNIQUE or PRIMARY KEY added without USING INDEX."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast, enums

from ..context import StatementContext, show, written
from ..findings import WITH_A_DATABASE, Cost, Hit, hit, make_rule
from .add_column_volatile_default import added_columns

DOC = """
Catches: `ALTER TABLE ... ADD [CONSTRAINT name] UNIQUE (...)` or `... PRIMARY KEY (...)` without
`USING INDEX`, `ADD ... EXCLUDE (...)` (which has no USING INDEX form), and
`ADD COLUMN ... UNIQUE | PRIMARY KEY`, on a table that existed before the migration.

Why it hurts: the constraint's index is built inside the ALTER TABLE, under an ACCESS EXCLUSIVE
lock: no reads or writes of the table for the whole build (a PRIMARY KEY also scans for NULLs).

Severity: warning when safemigrate itself runs the statement that way (safe_rewrites =
"rewrite", a single-command ALTER TABLE outside any block; a PRIMARY KEY on PostgreSQL 12 or
later): the runner is safe, but the file is not when run by anything else. Error otherwise.

Applies to: every PostgreSQL version (USING INDEX from 9.1).
Source: PostgreSQL docs, ALTER TABLE (ADD table_constraint_using_index), CREATE INDEX
(Building Indexes Concurrently).

Instead: build the index first, without blocking writes, then attach it (instant):
    CREATE UNIQUE INDEX CONCURRENTLY t_col_key ON t (col);
    ALTER TABLE t ADD CONSTRAINT t_col_key UNIQUE USING INDEX t_col_key;
For a PRIMARY KEY, make the columns NOT NULL first (see `set-not-null`), then
`ADD CONSTRAINT t_pkey PRIMARY KEY USING INDEX t_pkey_idx`.
"""

RULE = make_rule(
    "unique-without-index",
    "error",
    "UNIQUE or PRIMARY KEY constraint added without USING INDEX",
    DOC + WITH_A_DATABASE,
)

_CONSTR = enums.ConstrType
_KINDS = {
    _CONSTR.CONSTR_UNIQUE: "UNIQUE",
    _CONSTR.CONSTR_PRIMARY: "PRIMARY KEY",
    _CONSTR.CONSTR_EXCLUSION: "EXCLUDE",
}


def _hint(kind: str) -> str:
    return (
        f"CREATE UNIQUE INDEX CONCURRENTLY first, then ADD CONSTRAINT ... {kind} USING INDEX "
        "(instant)"
    )


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not ctx.alters_existing_table(node):
        return
    shown = show(written(node.relation))
    build = Cost("index build", ctx.family(node.relation))
    for cmd in node.cmds or ():
        if (
            isinstance(cmd, ast.AlterTableCmd)
            and cmd.subtype == enums.AlterTableType.AT_AddConstraint
            and isinstance(cmd.def_, ast.Constraint)
            and cmd.def_.contype in _KINDS
            and not cmd.def_.indexname
        ):
            kind = _KINDS[cmd.def_.contype]
            name = f" {cmd.def_.conname}" if cmd.def_.conname else ""
            if kind == "EXCLUDE":
                yield hit(
                    RULE,
                    f"adds EXCLUDE constraint{name} on existing table {shown}: its index is "
                    "built under an ACCESS EXCLUSIVE lock, and an exclusion constraint cannot "
                    "be attached from an index built CONCURRENTLY",
                    "run it in a maintenance window, or enforce the rule another way (a unique "
                    "index built CONCURRENTLY, a trigger)",
                    cost=build,
                )
                continue
            if ctx.runs_as_recipe():
                yield hit(
                    RULE,
                    f"adds {kind} constraint{name} on existing table {shown} without USING "
                    "INDEX: safemigrate builds its index CONCURRENTLY and attaches it, but run "
                    "as written (psql, another tool) its index is built under an ACCESS "
                    "EXCLUSIVE lock, blocking reads and writes for the whole build",
                    "write CREATE UNIQUE INDEX CONCURRENTLY and ADD CONSTRAINT ... USING INDEX "
                    "yourself so the file says what runs",
                    "warning",
                    cost=build,
                )
                continue
            yield hit(
                RULE,
                f"adds {kind} constraint{name} on existing table {shown} without USING INDEX: "
                "its index is built under an ACCESS EXCLUSIVE lock, blocking reads and writes "
                "for the whole build",
                _hint(kind),
                cost=build,
            )
    for coldef in added_columns(node, ctx):
        for con in coldef.constraints or ():
            if isinstance(con, ast.Constraint) and con.contype in _KINDS:
                kind = _KINDS[con.contype]
                yield hit(
                    RULE,
                    f"adds column {coldef.colname} as {kind} on existing table {shown}: its "
                    "index is built under an ACCESS EXCLUSIVE lock, blocking reads and writes "
                    "for the whole build",
                    "add the column plainly, " + _hint(kind),
                    cost=build,
                )
