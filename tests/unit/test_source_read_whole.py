"""A migration file is read whole or refused: NUL bytes, COPY with the client (issue 21).

PostgreSQL's parser (and pglast's, libpg_query) reads a C string, so it stops at a NUL byte;
COPY ... FROM STDIN / TO STDOUT exchange rows with the client over the COPY sub-protocol
(https://www.postgresql.org/docs/current/sql-copy.html), which a runner sending SQL text cannot
feed. A NUL byte is refused as the file is read; a client COPY is a problem of its file (what
``check`` reports) whose step is refused only when it is to run (issue 21 review D9: an
applied pg_dump baseline is fine), and the data lines after a COPY ... FROM STDIN are data:
blanked for the parser, kept in the step's checksum.
"""

from __future__ import annotations

import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.planning.safer_forms import build_steps, parse_file


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
    assert problem.kind == "client-copy"
    # The file is read (its step refused when it is to run: pending.refuse_client_copy).
    steps = build_steps("f.sql", text)
    assert steps[2].statements[0].client_copy == direction


def test_copy_inside_a_transaction_block_is_refused_too() -> None:
    text = "BEGIN;\nCOPY t FROM STDIN;\n\\.\nCOMMIT;\n"
    [problem] = parse_file("f.sql", text).problems
    assert problem.line == 2
    # Without the end marker the COMMIT is the COPY's data, as psql reads it.
    unended = parse_file("f.sql", "BEGIN;\nCOPY t FROM STDIN;\nCOMMIT;\n").problems
    assert [(p.kind, p.line) for p in unended] == [("client-copy", 2), ("file", 1)]


def test_the_data_lines_of_a_pg_dump_copy_are_reported_as_the_copy_not_a_syntax_error() -> None:
    text = (
        "CREATE TABLE public.t (a int, b text);\n"
        "\n"
        "COPY public.t (a, b) FROM stdin;\n"
        "1\tfoo\n"
        "2\tbar\n"
        "\\.\n"
    )
    parsed = parse_file("f.sql", text)
    [problem] = parsed.problems
    assert problem.line == 3
    assert problem.kind == "client-copy"
    assert problem.message.startswith("COPY ... FROM STDIN")
    assert [s.line for s in parsed.statements] == [1, 3]
    assert parsed.statements[1].statement.copy_data == "1\tfoo\n2\tbar\n\\."


def test_copy_with_a_server_file_or_program_is_an_ordinary_statement() -> None:
    for statement in ("COPY t FROM '/srv/rows.csv'", "COPY t TO PROGRAM 'gzip > /tmp/t.gz'"):
        assert parse_file("f.sql", f"{statement};\n").problems == ()


def test_a_syntax_error_after_another_statement_stays_a_syntax_error() -> None:
    [problem] = parse_file("f.sql", "SELECT 1;\nSELEC 2;\n").problems
    assert (problem.kind, problem.line) == ("syntax", 2)


def _dump(data: str) -> str:
    return f"CREATE TABLE t (a int, b text);\nCOPY t (a, b) FROM stdin;\n{data}SELECT 2;\n"


@pytest.mark.parametrize(
    "data",
    [
        # What the SQL scanner would choke on or misread: a semicolon, an unclosed dollar
        # quote, a lone quote, a comment start, tabs, \N, a statement, a directive.
        "1\tx; y $$ 'q\n",
        "2\t\\N\n3\t\t\n",
        "4\t/* never closed\n",
        "5\tCOPY u FROM stdin;\n",
        "6\t-- safemigrate: batch-size=10\n",
        "SELECT 1;\n",
        "7\ta \\. b\n 8\t\\.\n\\.x\n",
    ],
    ids=["quotes", "null", "comment", "copy", "directive", "sql", "not-an-end"],
)
def test_issue_21_review_d9_copy_data_lines_are_blanked_whatever_they_hold(data: str) -> None:
    text = _dump(data + "\\.\n")
    parsed = parse_file("f.sql", text)
    assert [p.kind for p in parsed.problems] == ["client-copy"]
    assert parsed.allows == ()
    copy, select = parsed.statements[1:]
    assert copy.statement.copy_data == data + "\\."
    assert (select.text, select.line) == ("SELECT 2", text.count("\n"))
    # No directive was read in the data: the SELECT is an ordinary step.
    assert parsed.steps[-1].options.batch_size is None


def test_issue_21_review_d9_a_crlf_end_marker_and_the_end_of_file_end_the_data() -> None:
    crlf = parse_file("f.sql", _dump("1\tx\r\n\\.\r\n"))
    assert crlf.statements[1].statement.copy_data == "1\tx\r\n\\.\r"
    assert crlf.statements[2].text == "SELECT 2"
    last = parse_file("f.sql", "COPY t FROM stdin;\n1\n2")
    assert [s.statement.copy_data for s in last.statements] == ["1\n2"]


def test_issue_21_review_d9_two_copies_each_keep_their_data() -> None:
    text = "COPY t FROM stdin;\n1\n\\.\nCOPY u FROM stdin;\n'2\n\\.\nSELECT 3;\n"
    statements = parse_file("f.sql", text).statements
    assert [(s.line, s.statement.copy_data) for s in statements] == [
        (1, "1\n\\."),
        (4, "'2\n\\."),
        (7, ""),
    ]


def test_issue_21_review_d9_the_copy_data_is_part_of_the_steps_checksum() -> None:
    [step] = build_steps("f.sql", "COPY t FROM stdin;\n1\t\n\\.\n")
    [same] = build_steps("f.sql", "COPY t FROM stdin;\n1\t\n\\.\n")
    # A trailing tab is an empty last column: not normalized away.
    [other] = build_steps("f.sql", "COPY t FROM stdin;\n1\n\\.\n")
    [bare] = build_steps("f.sql", "COPY t FROM stdin;\n")
    assert step.checksum == same.checksum
    assert len({step.checksum, other.checksum, bare.checksum}) == 3
    assert len({step.raw_checksum, other.raw_checksum, bare.raw_checksum}) == 3


def test_issue_21_review_d9_pg_dumps_restrict_lines_are_blanked_outside_literals_only() -> None:
    key = "4UwaM02daeSFxXDWEDqQ7oho8kLUutkIoUgtkl3U4gKpIamqHpS73DKaUIZad4q"
    text = f"\\restrict {key}\n\nCREATE TABLE t (a int);\n\n\\unrestrict {key}\n"
    parsed = parse_file("f.sql", text)
    assert parsed.problems == ()
    assert [s.text for s in parsed.statements] == ["CREATE TABLE t (a int)"]
    # Inside a dollar-quoted body it is the body's text, left as written.
    body = f"SELECT $$\n\\restrict {key}\n$$;\n"
    assert parse_file("f.sql", body).statements[0].text == body.rstrip(";\n")
    # Any other meta-command still does not parse.
    [problem] = parse_file("f.sql", "\\connect other\nSELECT 1;\n").problems
    assert problem.kind == "syntax"
