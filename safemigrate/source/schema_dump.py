"""What ``rehearse --schema-from`` needs to know of a plain ``pg_dump`` file before psql loads
it: the roles it names (owners, grantees), which a throwaway server lacks. Pure.

A plain dump is a psql script: SQL, psql's meta-commands (``\\connect``, ``\\restrict`` since
pg_dump 17.6 / 15.14 ...) on lines of their own, and, after a ``COPY ... FROM stdin``
statement, the rows as data lines ending with ``\\.``. The SQL is read with pglast; meta-command
lines and COPY data are left out first (psql sends neither to the parser either), each COPY
statement recognised by pglast too.
"""

from __future__ import annotations

from typing import Any

#: The line that ends a COPY's data in a psql script.
_END_OF_DATA = "\\."


def sql_of_dump(text: str) -> str:
    """The dump's SQL, line numbers kept: psql meta-command lines and COPY data blanked."""
    from pglast import parse_sql
    from pglast.parser import ParseError

    lines = text.split("\n")
    out: list[str] = []
    in_data = False
    for line in lines:
        if in_data:
            in_data = line != _END_OF_DATA
            out.append("")
            continue
        if line.startswith("\\"):
            out.append("")  # a psql meta-command: psql's, not SQL
            continue
        out.append(line)
        if line.upper().startswith("COPY ") and line.rstrip().endswith(";"):
            try:
                statements = parse_sql(line)
            except ParseError:
                continue
            stmt: Any = statements[0].stmt if statements else None
            if type(stmt).__name__ == "CopyStmt" and stmt.is_from and stmt.filename is None:
                in_data = True  # its rows follow, psql sends them as COPY data
    return "\n".join(out)


def referenced_roles(text: str) -> list[str]:
    """Every role a dump names (``OWNER TO``, ``GRANT ... TO``, ``AUTHORIZATION``, ``FOR
    ROLE``, policies' ``TO``), sorted; [] when its SQL does not parse (psql then reports the
    dump's error itself)."""
    from pglast import enums, parse_sql
    from pglast.parser import ParseError
    from pglast.visitors import Visitor

    try:
        tree = parse_sql(sql_of_dump(text))
    except ParseError:
        return []
    names: dict[str, None] = {}

    class _Roles(Visitor):  # pglast's visitor: one method per node type
        def visit_RoleSpec(self, ancestors: Any, node: Any) -> None:
            if node.roletype == enums.RoleSpecType.ROLESPEC_CSTRING and node.rolename:
                names.setdefault(str(node.rolename))

    _Roles()(tree)
    return sorted(names)


__all__ = ["referenced_roles", "sql_of_dump"]
