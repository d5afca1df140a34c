"""The data lines of a ``COPY ... FROM STDIN`` in a migration file: found and blanked. Pure.

A ``pg_dump`` file is a psql script: after ``COPY t (a, b) FROM stdin;`` psql sends the lines
that follow, up to a line that is exactly ``\\.`` (or the end of the file), as the COPY's rows;
they are data, not SQL, and may hold anything (``;``, ``$$``, quotes, tabs, ``\\N``). The parser
must not read them, so :func:`blank_copy_data` replaces them with blanks of the same length
(line breaks kept, so every offset, line and column of the SQL stays the file's) and says
where each block of data was, for the statement's checksum: the rows belong to the step.

Where a COPY starts and ends is decided with PostgreSQL's parser (pglast), as psql does with
its own lexer: the data begins on the line after the one holding the COPY's semicolon.

pg_dump (17.6, 16.10, 15.14, 14.19, 13.22 and later) also writes ``\\restrict KEY`` at the top of
a plain dump and ``\\unrestrict KEY`` at its end: psql meta-commands that only stop other
meta-commands from running in between, with no effect on the SQL. Those two lines, outside any
literal or comment (PostgreSQL's scanner says so), are blanked too and are in no checksum; any
other meta-command still does not parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pglast
from pglast import parser

from ..statements import parsed as sqlinfo

#: The line that ends a COPY's data in a psql script (a CR before its line feed allowed).
END_OF_DATA = "\\."
#: pg_dump's ``\\restrict KEY`` / ``\\unrestrict KEY`` lines (psql meta-commands, not SQL: a
#: pattern, not the parser, is the tool for them).
_RESTRICT = re.compile(r"\\(?:un)?restrict [A-Za-z0-9]+\r?")


@dataclass(frozen=True)
class BlankedText:
    """A file's text with its COPY data blanked, and where the data was."""

    #: The text the parser reads: every character of a data block but line feeds a space.
    sql: str
    #: For each COPY ... FROM STDIN, the offset where its statement ends (the parser's
    #: statement slice's stop) -> the slice of its data lines in the file's text (the ``\\.``
    #: line included, its line feed not).
    data: dict[int, slice]


def blank_copy_data(text: str) -> BlankedText:
    """``text`` with the data lines of every ``COPY ... FROM STDIN`` blanked (see the module
    docstring); ``text`` itself when it has none."""
    restrict = "restrict " in text
    # pg_dump's \\restrict comes before the rows, its \\unrestrict after them (behind data a
    # scanner may not read): blanked before the data are found, and again after.
    sql = _blank_restrict(text) if restrict else text
    if "stdin" not in sql.lower():
        return BlankedText(sql, {})
    data: dict[int, slice] = {}
    segment = 0
    while True:
        stop = _next_copy_stop(sql, segment)
        if stop is None:
            return BlankedText(_blank_restrict(sql) if restrict else sql, data)
        span = _data_span(sql, stop)
        data[stop] = span
        sql = sql[: span.start] + _blank(sql[span]) + sql[span.stop :]
        # psql reads SQL again after the data: the next COPY is after it.
        segment = span.stop


def _blank_restrict(text: str) -> str:
    """``text`` with pg_dump's ``\\restrict`` / ``\\unrestrict`` lines blanked where they
    stand outside every literal and comment (where psql reads them as meta-commands)."""
    out = text
    start = 0
    while start < len(out):
        end = out.find("\n", start)
        end = len(out) if end < 0 else end
        if out.startswith("\\", start) and _RESTRICT.fullmatch(out, start, end):
            try:
                parser.scan(out[:start])
            except pglast.parser.ParseError:
                pass  # inside a literal or a comment: not a meta-command
            else:
                out = out[:start] + _blank(out[start:end]) + out[end:]
        start = end + 1
    return out


def _blank(data: str) -> str:
    return "".join("\n" if char == "\n" else " " for char in data)


def _first_copy_stop(pieces: list[tuple[Any, slice]], base: int) -> int | None:
    for node, span in pieces:
        if sqlinfo.client_copy(node) == "FROM STDIN":
            return base + int(span.stop)
    return None


def _statements(text: str) -> list[tuple[Any, slice]]:
    raw = pglast.parse_sql(text)
    slices = parser.split(text, only_slices=True)
    return [(r.stmt, s) for r, s in zip(raw, slices, strict=False)]


def _next_copy_stop(sql: str, segment: int) -> int | None:
    """Where the first COPY ... FROM STDIN at or after ``segment`` ends, else None."""
    rest = sql[segment:]
    lower = rest.lower()
    if "stdin" not in lower:
        return None
    try:
        return _first_copy_stop(_statements(rest), segment)
    except pglast.parser.ParseError:
        pass
    # Its data does not parse (it is not SQL): the text up to the end of the COPY's line does.
    # pg_dump writes the whole statement on one line; only such lines are tried.
    start = 0
    while start < len(rest):
        end = rest.find("\n", start)
        end = len(rest) if end < 0 else end
        line = lower[start:end]
        semicolon = line.rfind(";")
        if semicolon >= 0 and "stdin" in line[:semicolon]:
            try:
                found = _first_copy_stop(_statements(rest[:end]), segment)
            except pglast.parser.ParseError:
                found = None
            if found is not None:
                return found
        start = end + 1
    return None


def _data_span(sql: str, stop: int) -> slice:
    """The data lines of the COPY whose statement ends at ``stop``: from the line after its
    semicolon's to the ``\\.`` line (or the end of the text)."""
    semicolon = sql.find(";", stop)
    line_end = sql.find("\n", semicolon) if semicolon >= 0 else -1
    if line_end < 0:
        return slice(len(sql), len(sql))
    start = position = line_end + 1
    while position < len(sql):
        end = sql.find("\n", position)
        end = len(sql) if end < 0 else end
        if sql[position:end].removesuffix("\r") == END_OF_DATA:
            return slice(start, end)
        position = end + 1
    return slice(start, len(sql))


__all__ = ["END_OF_DATA", "BlankedText", "blank_copy_data"]


def client_copy_refusal(direction: str) -> tuple[str, str]:
    """The message and hint refusing a COPY whose rows come from the client (``direction``
    ``FROM STDIN``) or go to it (``TO STDOUT``): the runner can do neither."""
    if direction == "FROM STDIN":
        return (
            "COPY ... FROM STDIN reads its rows from the client, which the runner cannot send "
            "(the data lines psql feeds it are not SQL)",
            "write the rows as INSERT statements, or COPY them from a file on the "
            "server (COPY ... FROM '/path'); a data load can also run with psql's \\copy "
            "outside the migrations",
        )
    return (
        "COPY ... TO STDOUT sends rows to the client, which the runner does not read",
        "remove it from the migration, or COPY to a file on the server",
    )
