"""Tests for safemigrate.core.checksums: what can change without counting as drift, and what
cannot."""

from __future__ import annotations

import hashlib

import pytest

from safemigrate.core.checksums import (
    continued_pieces,
    copy_data_lines,
    legacy_token_checksum,
    matches,
    normalize,
    normalized_checksum,
    raw_checksum,
    token_checksum,
)
from safemigrate.core.model import summarize
from safemigrate.planning.safer_forms import build_steps


def checksum(sql: str) -> str:
    """The checksum new rows store (tokens) of a one-statement step."""
    [step] = build_steps("/m/0001_x.sql", sql)
    return step.checksum


def raw(sql: str) -> str:
    [step] = build_steps("/m/0001_x.sql", sql)
    return step.raw_checksum


BASE = "CREATE TABLE t (\n    id int,\n    note text\n);\n"


@pytest.mark.parametrize(
    "edited",
    [
        "CREATE TABLE t (   \n    id int,\t\n    note text  \n);\n",  # trailing blanks
        "CREATE TABLE t (\r\n    id int,\r\n    note text\r\n);\r\n",  # CRLF line ends
        "CREATE TABLE t ( \r\n    id int, \t\r\n    note text\r\n);   \n",  # both
    ],
)
def test_blanks_at_line_ends_outside_literals_do_not_count(edited: str) -> None:
    assert checksum(edited) == checksum(BASE)
    assert raw(edited) != raw(BASE)


def test_blanks_after_a_comment_do_not_count() -> None:
    base = "SELECT 1 -- why\n  , 2 /* a\n b */\n"
    assert checksum("SELECT 1 -- why   \r\n  , 2 /* a  \n b */\n") == checksum(base)


@pytest.mark.parametrize(
    ("base", "edited"),
    [
        ("SELECT 'a\nb';", "SELECT 'a  \nb';"),  # multi-line string literal
        ("SELECT 'a\nb';", "SELECT 'a\r\nb';"),
        ("SELECT E'a\nb';", "SELECT E'a \nb';"),
        (
            "CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $$SELECT 'x'\n$$;",
            "CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $$SELECT 'x'  \n$$;",
        ),
        (
            "CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $body$\nSELECT 1\n$body$;",
            "CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $body$\r\nSELECT 1\r\n$body$;",
        ),
        ('CREATE TABLE "a\nb" (id int);', 'CREATE TABLE "a \nb" (id int);'),  # quoted name
    ],
)
def test_blanks_inside_literals_dollar_bodies_and_quoted_names_count(
    base: str, edited: str
) -> None:
    assert checksum(edited) != checksum(base)


def test_blanks_outside_a_literal_on_its_closing_line_do_not_count() -> None:
    base = "SELECT 'a\nb',\n  1;"
    assert checksum("SELECT 'a\nb',   \r\n  1;") == checksum(base)
    assert checksum("SELECT 'a \nb',\n  1;") != checksum(base)


@pytest.mark.parametrize(
    "edited",
    [
        "CREATE TABLE t (\n    id bigint,\n    note text\n);\n",
        "CREATE TABLE t (\n    id int,\n    note text NOT NULL\n);\n",
        "create table t (\n    id int,\n    note text\n);\n",  # keywords as written count
        'CREATE TABLE "t" (\n    id int,\n    note text\n);\n',  # a quoted name is a token
    ],
)
def test_real_changes_count(edited: str) -> None:
    assert checksum(edited) != checksum(BASE)


@pytest.mark.parametrize(
    "edited",
    [
        "CREATE TABLE t (id int, note text);\n",  # line breaks removed
        "CREATE TABLE t (\n    id int,\n        note text\n);\n",  # reindented
        "CREATE  TABLE t (\n    id int, -- the key\n    note /* free */ text\n);\n",  # comments
    ],
)
def test_review21c_f4_blanks_and_comments_between_tokens_do_not_count(edited: str) -> None:
    """One more space (as a formatter adds while splitting a file) is the same statement."""
    assert checksum(edited) == checksum(BASE)
    assert normalized_checksum([edited]) != normalized_checksum([BASE])


@pytest.mark.parametrize(
    ("base", "edited"),
    [
        ("SELECT 'a b'", "SELECT 'a  b'"),  # inside a string constant
        ("SELECT 'a'\n'b'", "SELECT 'a' || 'b'"),
        ("SELECT 1.5", "SELECT 1 .5"),  # one token or two
        ("SELECT a+b", "SELECT a + -b"),
        ("SELECT $$ x $$", "SELECT $$x$$"),
    ],
)
def test_review21c_f4_every_token_counts(base: str, edited: str) -> None:
    assert token_checksum([base]) != token_checksum([edited])


def test_review21c_f4_one_line_texts_that_differ_show_differently() -> None:
    """Blanks inside a literal are kept, line breaks shown: never collapsed into equal texts."""
    assert summarize("UPDATE t  SET a = 'x  y' -- why\n WHERE b = 'p\nq'", 200) == (
        "UPDATE t SET a = 'x  y' WHERE b = 'p\\nq'"
    )
    assert summarize("SELECT 'a b'") != summarize("SELECT 'a  b'")
    assert summarize("ALTER TABLE public.t ADD COLUMN c int[]") == (
        "ALTER TABLE public.t ADD COLUMN c int[]"
    )


def test_review21c_f4_statements_stay_apart() -> None:
    assert token_checksum(["SELECT 1", "SELECT 2"]) != token_checksum(["SELECT 1 SELECT 2"])
    assert matches(token_checksum(["SELECT  1"]), ["SELECT 1"])


def test_raw_checksum_is_the_previous_releases() -> None:
    """What 0.x stored: SHA-256 over each statement's text followed by a NUL byte."""
    texts = ["SELECT 1", "SELECT  2 \n"]
    expected = hashlib.sha256(b"SELECT 1\x00SELECT  2 \n\x00").hexdigest()
    assert raw_checksum(texts) == expected


def test_old_raw_checksums_still_match() -> None:
    texts = ["CREATE TABLE t (  \r\n  id int\r\n)"]
    assert normalized_checksum(texts) != raw_checksum(texts)
    assert matches(raw_checksum(texts), texts)
    assert matches(normalized_checksum(texts), texts)
    assert not matches(raw_checksum(["CREATE TABLE t (id int)"]), texts)


def test_text_that_does_not_scan_is_not_normalized() -> None:
    text = "SELECT 'unterminated  \n"
    assert normalize(text) == text


def test_a_lone_carriage_return_is_kept() -> None:
    assert normalize("SELECT 1\r  ,\n2") == "SELECT 1\r  ,\n2"
    assert normalize("SELECT 1  \r\n, 2") == "SELECT 1\n, 2"


def test_non_ascii_text_before_a_line_end_keeps_the_token_positions_right() -> None:
    """The scanner's offsets are characters, not UTF-8 bytes, even after 4-byte characters."""
    text = "SELECT '😀é\n x', 1   \r\n, 'ü  \n'  \n"
    assert normalize(text) == "SELECT '😀é\n x', 1\n, 'ü  \n'\n"


# review21d finding 2: the scanner returns a continued string constant ('a' newline 'b') as
# one token spanning the blanks between its pieces; only the pieces count.
CONTINUED = "INSERT INTO notes VALUES ('one, '\n    'two')"


@pytest.mark.parametrize(
    "edited",
    [
        "INSERT INTO notes VALUES ('one, '\n        'two')",  # re-indented
        "INSERT INTO notes VALUES ('one, '\n\n\t'two')",  # a blank line and a tab
        "INSERT INTO notes VALUES ('one, '   \r\n'two')",  # blanks before a CR LF
        "INSERT INTO notes VALUES ('one, ' -- why\n  -- more\n    'two')",  # comments
    ],
)
def test_review21d_2_blanks_between_pieces_of_a_continued_constant_do_not_count(
    edited: str,
) -> None:
    assert checksum(edited) == checksum(CONTINUED)


@pytest.mark.parametrize(
    "edited",
    [
        "INSERT INTO notes VALUES ('one,'\n    'two')",  # a piece's text
        "INSERT INTO notes VALUES ('one, ''two')",  # one piece: the value one, 'two
        "INSERT INTO notes VALUES ('one, two')",  # the same value, other tokens
        "INSERT INTO notes VALUES (E'one, '\n    'two')",  # the prefix
        "INSERT INTO notes VALUES ('one, '\n    'two'\n    '')",  # one more piece
    ],
)
def test_review21d_2_the_pieces_themselves_count(edited: str) -> None:
    assert checksum(edited) != checksum(CONTINUED)


@pytest.mark.parametrize(
    ("token", "pieces"),
    [
        ("'one, '\n    'two'", ["'one, '", "'two'"]),
        ("E'a\\''\n 'b\\''\n 'c'", ["E'a\\''", "'b\\''", "'c'"]),  # backslash escapes
        ("U&'a\\0020'\n 'b'", ["U&'a\\0020'", "'b'"]),
        ("B'10'\n -- x\n '1'", ["B'10'", "'1'"]),
        ("X'1f'\n 'a0'", ["X'1f'", "'a0'"]),
        ("'a'''\n ''''", ["'a'''", "''''"]),  # doubled quotes
        ("'x'", ["'x'"]),
        ("$$a$$", None),  # dollar quotes never continue
    ],
)
def test_continued_pieces_follow_the_scanner(token: str, pieces: list[str] | None) -> None:
    assert continued_pieces(token) == pieces


def test_the_scanner_spans_a_continued_constant_as_one_token() -> None:
    """What the fix rests on (pglast's scanner is PostgreSQL's)."""
    from pglast import parser

    for text, names in [
        ("SELECT 'a'\n 'b'", ["SELECT", "SCONST"]),
        ("SELECT E'a'\n 'b'", ["SELECT", "SCONST"]),
        ("SELECT U&'a'\n 'b'", ["SELECT", "USCONST"]),
        ("SELECT $$a$$\n $$b$$", ["SELECT", "SCONST", "SCONST"]),
        ("SELECT 'a' 'b'", ["SELECT", "SCONST", "SCONST"]),  # no newline: not continued
    ]:
        assert [t.name for t in parser.scan(text)] == names


def test_rows_of_a_continued_constant_written_before_the_fix_still_match() -> None:
    old = legacy_token_checksum([CONTINUED])
    assert old != token_checksum([CONTINUED])
    assert matches(old, [CONTINUED])
    assert not matches(old, ["INSERT INTO notes VALUES ('one, '\n        'two')"])


# review21d finding 4: a text-format COPY block converted from LF to CR LF loads the same rows.
COPY = "COPY public.t (id, s) FROM stdin"
DATA = "1\ta;b\n2\tx\\\\y\n3\t\\N\n\\."


def crlf(data: str) -> str:
    return data.replace("\n", "\r\n") + "\r"


def test_review21d_4_copy_data_converted_to_crlf_is_not_drift() -> None:
    assert token_checksum([COPY], [crlf(DATA)]) == token_checksum([COPY], [DATA])
    assert copy_data_lines(COPY, crlf(DATA)) == DATA


def test_rows_of_crlf_copy_data_written_before_the_fix_still_match() -> None:
    old = legacy_token_checksum([COPY], [crlf(DATA)])
    assert old != token_checksum([COPY], [crlf(DATA)])
    assert matches(old, [COPY], [crlf(DATA)])


@pytest.mark.parametrize(
    ("statement", "data"),
    [
        (COPY, "1\ta\n2\tb\r\n\\.\r"),  # mixed line ends: the server refuses the block
        (COPY, "1\ta\r\n2\tb\n\\."),  # likewise
        ("COPY t FROM stdin CSV", crlf('1,"a\nb"\n\\.')),  # a CSV value holds its line end
        ("COPY t FROM stdin WITH (FORMAT csv)", crlf("1,a\n\\.")),
    ],
)
def test_crlf_copy_data_counts_as_written_where_the_server_reads_other_rows(
    statement: str, data: str
) -> None:
    assert copy_data_lines(statement, data) == data
    lf = data.replace("\r\n", "\n").removesuffix("\r")
    assert token_checksum([statement], [data]) != token_checksum([statement], [lf])
