"""Which function bodies a call, a write or a binding runs: the migrations' own by name, else
the database's through the search_path the statement runs under (issue 21 G5).

The migrations' functions (FileState.functions, by unqualified name) come first: a body an
earlier or the same file created, or replaced, is the newest. Otherwise, against a database,
an unqualified call runs the routine of that name in the first schema of the search_path
that holds one, pg_catalog first unless the path places it (PostgreSQL docs, 5.9.3 The
Schema Search Path; 10.3 Function Type Resolution): a routine whose name and argument types
pg_catalog has too is the built-in. The path is the one the migrations set (lint.search_path)
or else the live session's (``current_schemas(true)``: the default ``"$user", public`` as
the server resolves it); while it is unknown, every routine of the name may be the one run.
A qualified call names its schema. Overloads in one schema are all judged (the argument
types are not resolved).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .search_path import is_unknown

if TYPE_CHECKING:
    from .context import FileState

#: What function_origins holds for a routine read from the database.
IN_DATABASE = "the database"


def resolve(parts: Sequence[str], state: FileState) -> list[str]:
    """The keys of ``state.functions`` a call of the function named ``parts`` (its schema, if
    written, then its name) runs; empty when its body is not known."""
    name = parts[-1]
    if name in state.functions:
        return [name]
    live = state.catalog.live_functions.get(name, ())
    if not live:
        return []
    if len(parts) >= 2:
        return [k for k in live if _schema(k) == parts[-2]]
    if is_unknown(state.search_path_schema):
        return list(live)
    path = _path(state)
    for schema in path:
        keys = [k for k in live if _schema(k) == schema]
        if not keys:
            continue
        first = path.index("pg_catalog") < path.index(schema)
        return [k for k in keys if not (first and k in state.catalog.shadowed_functions)]
    return []


def of_schema(qualified: str, state: FileState) -> list[str]:
    """The keys of the live routines named ``schema.name`` (an event trigger's function)."""
    schema, _, name = qualified.partition(".")
    return [k for k in state.catalog.live_functions.get(name, ()) if _schema(k) == schema]


def _schema(key: str) -> str:
    return key.partition(".")[0]


def _path(state: FileState) -> tuple[str, ...]:
    """The schemas an unqualified call searches, in order, pg_catalog among them."""
    if state.search_path is not None:
        path: tuple[str, ...] = state.search_path
    elif state.catalog.function_path:
        path = state.catalog.function_path
    else:
        path = (state.search_path_schema,)
    return path if "pg_catalog" in path else ("pg_catalog", *path)
