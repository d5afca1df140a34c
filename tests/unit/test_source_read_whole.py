"""A migration file is read whole or refused: NUL bytes, COPY with the client (issue 21).

PostgreSQL's parser (and pglast's, libpg_query) reads a C string, so it stops at a NUL byte;
COPY ... FROM STDIN / TO STDOUT exchange rows with the client over the COPY sub-protocol
(https://www.postgresql.org/docs/current/sql-copy.html), which a runner sending SQL text cannot
feed. Both are refused as the file is read, with its line, before anything runs.
"""

from __future__ import annotations

import pytest

from safemigrate.errors import MigrationFileError
from safemigrate.source import build_steps, parse_file


def test_issue_21_item_8_a_nul_byte_is_refused_with_its_line_not_cut_off() -> None:
    text = "CREATE TABLE h (a int);\n\0\nCREATE TABLE h2 (a int);\n"
    parsed = parse_file("f.sql", text)
    [problem] = parsed.problems
    assert (problem.line, problem.column) == (2, 1)
    assert "NUL byte" in problem.message
    assert parsed.steps == ()
    with pytest.raises(MigrationFileError, match=r"^f\.sql:2: NUL byte"):
        build_steps("f.sql", text)


def test_a_nul_byte_inside_a_string_or_comment_is_refused_too() -> None:
    for text in ("SELECT 'a\0b';\n", "-- note \0\nSELECT 1;\n", "SELECT 1; /* \0 */\n"):
        [problem] = parse_file("f.sql", text).problems
        assert "NUL byte" in problem.message


@pytest.mark.parametrize(
    ("statement", "direction"),
    [
        ("COPY t FROM STDIN", "FROM STDIN"),
        ("COPY t (a, b) FROM stdin WITH (FORMAT csv)", "FROM STDIN"),
        ("COPY t TO STDOUT", "TO STDOUT"),
        ("COPY (SELECT 1) TO STDOUT", "TO STDOUT"),
    ],
)
def test_issue_21_copy_with_the_client_is_refused_where_it_stands(
    statement: str, direction: str
) -> None:
    text = f"CREATE TABLE t (a int, b text);\nSELECT 1;\n{statement};\n"
    [problem] = parse_file("f.sql", text).problems
    assert problem.line == 3
    assert problem.message.startswith(f"COPY ... {direction}")
    with pytest.raises(MigrationFileError, match=r"^f\.sql:3: COPY"):
        build_steps("f.sql", text)


def test_copy_inside_a_transaction_block_is_refused_too() -> None:
    text = "BEGIN;\nCOPY t FROM STDIN;\nCOMMIT;\n"
    [problem] = parse_file("f.sql", text).problems
    assert problem.line == 2


def test_the_data_lines_of_a_pg_dump_copy_are_reported_as_the_copy_not_a_syntax_error() -> None:
    text = (
        "CREATE TABLE public.t (a int, b text);\n"
        "\n"
        "COPY public.t (a, b) FROM stdin;\n"
        "1\tfoo\n"
        "2\tbar\n"
        "\\.\n"
    )
    [problem] = parse_file("f.sql", text).problems
    assert problem.line == 3
    assert problem.kind == "file"
    assert problem.message.startswith("COPY ... FROM STDIN")


def test_copy_with_a_server_file_or_program_is_an_ordinary_statement() -> None:
    for statement in ("COPY t FROM '/srv/rows.csv'", "COPY t TO PROGRAM 'gzip > /tmp/t.gz'"):
        assert parse_file("f.sql", f"{statement};\n").problems == ()


def test_a_syntax_error_after_another_statement_stays_a_syntax_error() -> None:
    [problem] = parse_file("f.sql", "SELECT 1;\nSELEC 2;\n").problems
    assert (problem.kind, problem.line) == ("syntax", 2)
