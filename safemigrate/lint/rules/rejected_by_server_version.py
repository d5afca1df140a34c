"""rejected-by-server-version: a form of a command the target server (``pg_version``) does
not have: the reference table has rows for it only on other server majors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.model import summarize
from ...reference import lookup
from ...reference.model import NEWEST, OLDEST, Row
from ..context import StatementContext
from ..findings import Hit, hit, make_rule

DOC = """
Catches: a statement, or a subcommand of one, that PostgreSQL's reference gives only to other
server majors than the target's `pg_version`: `MERGE` before 15, its `WHEN NOT MATCHED BY
SOURCE` and `RETURNING` before 17, `RETURNING old.*, new.*` before 18, `ALTER TABLE ... DETACH
PARTITION ... CONCURRENTLY` before 14, `SET COMPRESSION` before 14, `SET ACCESS METHOD`
before 15, `ALTER COLUMN ... SET EXPRESSION` before 17, a `VIRTUAL` generated column or a
`NOT ENFORCED` constraint before 18, added by `ALTER TABLE` or written in `CREATE TABLE`
(every such row of docs/reference.md, its Versions column). Judged for a pg_version from 12
to 18, the versions the table covers.

Why it hurts: the target server's parser has no such form, so the statement fails with a
syntax error (SQLSTATE 42601, as PostgreSQL 15 answers each form newer than 15; a
data-modifying MERGE in WITH before 17: 0A000) and the migration stops there; on servers of
different majors the same file works on some and fails on others.

Applies to: the server majors the message names (pg_version setting).
Source: PostgreSQL docs, each command's page in the manual of the target version (the form
is absent there) and the release notes of the version that added it.

Instead: write the form the target version has (a plain `DETACH PARTITION`, an `INSERT ...
ON CONFLICT` for `MERGE`), or set `pg_version` to the server's major if it is newer.
"""

RULE = make_rule(
    "rejected-by-server-version",
    "error",
    "statement form the target server version does not have (pg_version)",
    DOC,
)

#: What PostgreSQL answers for a form its parser lacks (syntax_error), as PostgreSQL 15 does
#: for each form newer than 15 (the bi* cases of tests/lint_corpus say what it showed).
SYNTAX_ERROR = "42601"
#: The forms the parser has but the server refuses before their version: PostgreSQL 15
#: answers "MERGE not supported in WITH query" (feature_not_supported), and 'missing
#: FROM-clause entry for table "old"' (undefined_table) for RETURNING old.column.
SQLSTATE_BY_ROW = {"with.merge": "0A000", "returning.old-new": "42P01"}


def _forms(rows: tuple[Row, ...]) -> str:
    """``ALTER TABLE DETACH PARTITION ... CONCURRENTLY on PostgreSQL 14+``."""
    return "; ".join(
        f"{row.command if row.form == row.command else f'{row.command} {row.form}'} on "
        f"PostgreSQL {row.versions}"
        for row in rows
    )


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not OLDEST <= ctx.pg_version <= NEWEST:
        # The table does not say what servers outside its range have.
        return
    try:
        found = lookup.matches(node, ctx.pg_version)
    except lookup.AmbiguousRowError:
        return
    reported: list[Any] = []
    for match in found:
        if any(parent is node for parent in match.parents for node in reported):
            continue  # a clause of a statement already reported (MERGE's WHEN before 15)
        if match.row is not None:
            rows = lookup.newer_forms(match, ctx.pg_version)
        else:
            rows = lookup.other_rows(match.node, match.parents)
        if not rows:
            continue  # unknown-statement's
        reported.append(match.node)
        yield hit(
            RULE,
            f"{summarize(ctx.text)!r}: PostgreSQL {ctx.pg_version} (pg_version) has no such "
            f"form (the reference has {_forms(rows)}): the server refuses it (SQLSTATE "
            f"{SQLSTATE_BY_ROW.get(rows[0].id, SYNTAX_ERROR)}) and the migration stops",
            "write the form this server version has, or set pg_version to the server's major",
        )
