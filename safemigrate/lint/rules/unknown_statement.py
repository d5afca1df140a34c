"""unknown-statement: a statement or subcommand the reference table (safemigrate.reference) has
no row for, on any server version: what PostgreSQL does with it is not known to check, so it
is reported rather than passed as safe."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...core.model import summarize
from ...reference import lookup
from ..context import StatementContext
from ..findings import Hit, hit, make_rule

DOC = """
Catches: a statement, or a part of one (an ALTER TABLE subcommand, a column's constraint, a
data-modifying WITH query), that safemigrate's reference table of PostgreSQL's SQL commands
(docs/reference.md: the lock mode on each relation, scans, rewrites, index builds,
rejections, where it may run) has no row for on any server version. The message names what
is unknown: the parse-tree node and the subcommand or object type that tells its form.

Why it hurts: every other rule judges a statement by what the reference and the rules know
of it. A form nobody has looked up may take an ACCESS EXCLUSIVE lock, scan or rewrite a
table, or be refused by the server; "no finding" would claim it is safe when it is only
unknown.

Applies to: every PostgreSQL version (the table covers 12 to 18; an older pg_version is
judged as 12, a newer one as 18).
Source: PostgreSQL docs, SQL Commands (every command's page), 13.3 Explicit Locking.

Instead: look the statement up in PostgreSQL's documentation for its lock and its work, and
allow it with what you found (`-- safemigrate: allow unknown-statement -- SHARE UPDATE
EXCLUSIVE, no scan (sql-altertable)`); report the form so that the table gets a row.
"""

RULE = make_rule(
    "unknown-statement",
    "warning",
    "statement or subcommand the reference table of PostgreSQL's commands does not know",
    DOC,
)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    version = lookup.clamp(ctx.pg_version)
    try:
        found = lookup.matches(node, version)
    except lookup.AmbiguousRowError:
        # Two rows claim it: known, if not precisely (the table's own tests catch the tie).
        return
    for match in found:
        if match.row is not None or lookup.other_rows(match.node, match.parents):
            # Known; a form only other versions have is rejected-by-server-version's.
            continue
        yield hit(
            RULE,
            f"{summarize(ctx.text)!r}: no row of the reference table knows "
            f"{lookup.describe(match.node, match.parents)}, so its locks, scans and "
            "rewrites are not known to check (not judged safe)",
            "look its lock and work up in PostgreSQL's documentation and allow it with what "
            "you found ('-- safemigrate: allow unknown-statement -- <lock, work, source>')",
        )
