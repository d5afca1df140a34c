"""PostgreSQL's SQL command reference as one table: for every command and subcommand form, how
pglast's parse tree shows it, the lock mode on each relation it locks (named and indirect),
whether it scans, rewrites, builds an index or can be rejected, where it may run, per server
version, and the manual page or source function each fact comes from. Pure data.

Why a Python module of frozen rows rather than a TOML or JSON file: each row's key names
pglast's own enums and node classes (``AlterTableType.AT_AddColumn``, ``ast.IndexStmt``), so a
misspelt key fails at import and mypy checks every row; no loader has to map strings back to
enums or validate a schema; and the docs page, the lookup and the server tests read the same
objects. The rows are data nonetheless: nothing in them is code but the small constructors of
``_build``.

``ROWS`` is every row; :func:`lookup.matches` finds the rows of a parsed statement (and the
parts no row knows); ``python -m safemigrate.reference`` writes docs/reference.md.
"""

from __future__ import annotations

from .families import (
    alter_objects,
    alter_relations,
    alter_table,
    alter_types,
    create,
    dml,
    drop,
    maintenance,
)
from .families import session_commands as session
from .model import NEWEST, OLDEST, Row

ROWS: tuple[Row, ...] = (
    *alter_table.ROWS,
    *alter_relations.ROWS,
    *alter_types.ROWS,
    *dml.ROWS,
    *create.ROWS,
    *drop.ROWS,
    *maintenance.ROWS,
    *alter_objects.ROWS,
    *session.ROWS,
)

BY_ID: dict[str, Row] = {row.id: row for row in ROWS}

__all__ = ["BY_ID", "NEWEST", "OLDEST", "ROWS", "Row"]
