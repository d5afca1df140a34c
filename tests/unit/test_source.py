"""Tests for safemigrate.source: files, versions, statement splitting, directives and steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import ExitCode, MigrationFileError
from safemigrate.core.model import QualifiedName, Step, StepOptions, TxMode
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.safer_forms import build_steps, parse_file
from safemigrate.source import ConcurrentIndexes, ParsedFile, discover, read_sql, scan_directory

LANGFUSE = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "langfuse"


def write(directory: Path, name: str, text: str = "SELECT 1;\n") -> Path:
    """Write a migration file as UTF-8 and return its path."""
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def steps(text: str, policy: ConcurrentIndexes = "rewrite") -> list[Step]:
    return build_steps("f.sql", text, concurrent_indexes=policy)


def texts(text: str) -> list[str]:
    """The statement texts of ``text``, in order, across all steps."""
    return [s.text for step in steps(text) for s in step.statements]


def error(text: str, policy: ConcurrentIndexes = "rewrite") -> MigrationFileError:
    """The MigrationFileError that building steps from ``text`` raises."""
    with pytest.raises(MigrationFileError) as info:
        steps(text, policy)
    return info.value


# discover


def test_versions_are_ordered_numerically(tmp_path: Path) -> None:
    write(tmp_path, "10_ten.sql")
    write(tmp_path, "2_two.sql")
    write(tmp_path, "0003_three.sql")
    assert [f.version for f in discover(tmp_path)] == [2, 3, 10]


def test_zero_padded_version_sorts_before_larger_unpadded(tmp_path: Path) -> None:
    write(tmp_path, "10_b.sql")
    write(tmp_path, "0002_a.sql")
    found = discover(tmp_path)
    assert [(f.version, f.version_text, f.name) for f in found] == [
        (2, "0002", "a"),
        (10, "10", "b"),
    ]


def test_duplicate_versions_name_both_files(tmp_path: Path) -> None:
    write(tmp_path, "0001_first.sql")
    write(tmp_path, "1_second.sql")
    with pytest.raises(MigrationFileError) as info:
        discover(tmp_path)
    assert "0001_first.sql" in str(info.value)
    assert "1_second.sql" in str(info.value)
    assert info.value.exit_code == ExitCode.BAD_INPUT


@pytest.mark.parametrize("name", ["init.sql", "0001-init.sql", "0001_.sql", "v1_init.sql"])
def test_misnamed_sql_file_is_an_error(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name)
    with pytest.raises(MigrationFileError) as info:
        discover(tmp_path)
    assert info.value.path == str(path)


def test_non_sql_and_hidden_files_and_folders_are_ignored(tmp_path: Path) -> None:
    write(tmp_path, "0001_a.sql")
    write(tmp_path, "README.md", "notes")
    write(tmp_path, "0002_b.sql.bak")
    write(tmp_path, ".0003_hidden.sql")
    write(tmp_path, ".#0001_a.sql")
    (tmp_path / "0004_folder.sql").mkdir()
    assert [f.path.name for f in discover(tmp_path)] == ["0001_a.sql"]


def test_missing_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(MigrationFileError) as info:
        discover(tmp_path / "nope")
    assert "does not exist" in str(info.value)
    assert info.value.exit_code == ExitCode.BAD_INPUT


def test_too_long_version_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, "1" + "0" * 18 + "_big.sql")
    with pytest.raises(MigrationFileError):
        discover(tmp_path)


def test_empty_directory_has_no_migrations(tmp_path: Path) -> None:
    assert load_migrations(tmp_path) == []


# read_sql


def test_non_utf8_file_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "0001_a.sql"
    path.write_bytes(b"SELECT 1;\nSELECT 2;\nSELECT '\xe9';\n")
    with pytest.raises(MigrationFileError) as info:
        read_sql(path)
    assert info.value.line == 3
    assert info.value.path == str(path)
    assert "UTF-8" in str(info.value)


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "0001_a.sql"
    path.write_bytes(b"\xef\xbb\xbfSELECT 1;\n")
    assert read_sql(path) == "SELECT 1;\n"
    [migration] = load_migrations(tmp_path)
    statement = migration.steps[0].statements[0]
    assert (statement.text, statement.line, statement.column) == ("SELECT 1", 1, 1)


def test_unreadable_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(MigrationFileError):
        read_sql(tmp_path / "missing.sql")


# load_migrations


def test_load_migrations_builds_migrations_in_order(tmp_path: Path) -> None:
    write(tmp_path, "10_b.sql", "SELECT 10;")
    write(tmp_path, "2_a.sql", "SELECT 2;\nSELECT 3;")
    migrations = load_migrations(tmp_path)
    assert [(m.version, m.name, len(m.steps)) for m in migrations] == [(2, "a", 2), (10, "b", 1)]
    assert migrations[0].filename == "2_a.sql"


def test_sql_parse_error_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "0001_a.sql", "SELECT 1;\n\n-- comment\nSELEC 2;\nSELECT 3;\n")
    with pytest.raises(MigrationFileError) as info:
        load_migrations(tmp_path)
    assert info.value.path == str(path)
    assert info.value.line == 4
    assert info.value.exit_code == 2
    assert f"{path}:4:" in str(info.value)


def test_parse_error_line_counts_characters_not_bytes() -> None:
    assert error("SELECT 'é';\nSELECT 'ééé';\nSELEC x;\n").line == 3


def test_unterminated_string_error_names_its_line() -> None:
    assert error("SELECT 1;\nSELECT 'abc\n\n").line == 2


def test_load_migrations_passes_the_index_policy(tmp_path: Path) -> None:
    write(tmp_path, "1_a.sql", "CREATE INDEX i ON t (a);")
    with pytest.raises(MigrationFileError):
        load_migrations(tmp_path, concurrent_indexes="require")


# Splitting


def test_dollar_quoted_body_keeps_its_semicolons() -> None:
    body = "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; SELECT 2; $$ LANGUAGE sql"
    assert texts(f"{body};\nSELECT 1;") == [body, "SELECT 1"]


def test_tagged_dollar_quote_keeps_its_semicolons() -> None:
    body = "DO $fn$ BEGIN PERFORM 1; RAISE NOTICE '$$;'; END $fn$"
    assert texts(f"{body};\nSELECT 2;") == [body, "SELECT 2"]


def test_escape_string_with_quote_and_semicolon() -> None:
    assert texts("SELECT E'a\\'; b';SELECT 2") == ["SELECT E'a\\'; b'", "SELECT 2"]


def test_dollars_inside_ordinary_string() -> None:
    assert texts("SELECT 'x $$ y';SELECT '$$';") == ["SELECT 'x $$ y'", "SELECT '$$'"]


def test_line_comment_with_semicolon_and_quote() -> None:
    assert texts("SELECT 2 -- c; 'q\n;SELECT 3;") == ["SELECT 2 -- c; 'q", "SELECT 3"]


def test_nested_block_comments() -> None:
    assert texts("SELECT /* a /* b; */ c; ' */ 3;") == ["SELECT /* a /* b; */ c; ' */ 3"]


def test_last_statement_without_semicolon() -> None:
    assert texts("SELECT 1;\nSELECT 2\n") == ["SELECT 1", "SELECT 2"]


def test_statement_text_is_exact_multiline_text() -> None:
    stmt = "CREATE TABLE t (\n    a int, -- first\n    b text\n)"
    assert texts(f"{stmt};\n") == [stmt]


def test_statement_line_and_column() -> None:
    result = steps("-- head\nSELECT 1;  SELECT 2;\n\n   SELECT\n3;")
    positions = [(s.statements[0].line, s.statements[0].column) for s in result]
    assert positions == [(2, 1), (2, 12), (4, 4)]
    assert [s.index for s in result] == [0, 1, 2]
    assert result[2].line == 4


def test_plain_statements_are_one_step_each() -> None:
    result = steps("CREATE TABLE t (a int);\nALTER TABLE t ADD b int;")
    assert [s.mode for s in result] == [TxMode.OWN, TxMode.OWN]
    assert [s.statements[0].kind for s in result] == ["CreateStmt", "AlterTableStmt"]


@pytest.mark.parametrize("text", ["", "\n\n", "-- only a comment\n/* and another */\n", ";;"])
def test_file_without_statements_is_an_empty_migration(text: str) -> None:
    [step] = steps(text)
    assert step.empty and step.statements == () and step.index == 0
    assert step.mode is TxMode.OWN
    assert (step.line, step.last_line) == (1, 1)
    assert step.summary.startswith("(empty migration")


def test_a_directive_without_statements_is_still_an_error() -> None:
    assert "directive applies to no statement" in str(error("-- safemigrate: no-retry\n"))


# Explicit blocks


def test_begin_commit_block_is_one_explicit_step() -> None:
    [step] = steps("BEGIN;\nSELECT 1;\nSELECT 2;\nCOMMIT;\n")
    assert step.mode is TxMode.EXPLICIT
    assert [s.text for s in step.statements] == ["BEGIN", "SELECT 1", "SELECT 2", "COMMIT"]
    assert step.summary == "SELECT 1"


def test_start_transaction_end_block() -> None:
    [step] = steps("START TRANSACTION; SELECT 1; END;")
    assert step.mode is TxMode.EXPLICIT
    assert [s.text for s in step.statements] == ["START TRANSACTION", "SELECT 1", "END"]


def test_begin_with_isolation_level() -> None:
    [step] = steps("BEGIN ISOLATION LEVEL SERIALIZABLE;\nSELECT 1;\nCOMMIT;")
    assert step.mode is TxMode.EXPLICIT
    assert step.statements[0].text == "BEGIN ISOLATION LEVEL SERIALIZABLE"


def test_statements_around_a_block_are_own_steps() -> None:
    result = steps("SELECT 0;\nBEGIN;\nSELECT 1;\nCOMMIT;\nSELECT 2;")
    assert [s.mode for s in result] == [TxMode.OWN, TxMode.EXPLICIT, TxMode.OWN]


def test_savepoint_inside_a_block_is_fine() -> None:
    [step] = steps("BEGIN;\nSAVEPOINT a;\nRELEASE SAVEPOINT a;\nCOMMIT;")
    assert len(step.statements) == 4


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("SELECT 1;\nBEGIN;\nSELECT 2;\n", 2, "BEGIN has no matching COMMIT"),
        ("SELECT 1;\nCOMMIT;\n", 2, "COMMIT without"),
        ("SELECT 1;\nEND;\n", 2, "COMMIT without"),
        ("BEGIN;\nBEGIN;\nCOMMIT;\n", 2, "BEGIN inside"),
        ("SELECT 1;\n\nROLLBACK;\n", 3, "ROLLBACK"),
        ("BEGIN;\nSELECT 1;\nROLLBACK;\n", 3, "ROLLBACK"),
        ("BEGIN;\nCOMMIT AND CHAIN;\nCOMMIT;\n", 2, "AND CHAIN"),
        ("SELECT 1;\nPREPARE TRANSACTION 'x';\n", 2, "two-phase"),
        ("SELECT 1;\nCOMMIT PREPARED 'x';\n", 2, "two-phase"),
        ("SELECT 1;\nSAVEPOINT a;\n", 2, "SAVEPOINT outside"),
    ],
)
def test_transaction_control_errors_name_the_line(text: str, line: int, words: str) -> None:
    err = error(text)
    assert err.line == line
    assert words in str(err)
    assert err.path == "f.sql"


# Groups


def test_group_directives_make_one_group_step() -> None:
    text = "-- safemigrate: group-start\nSELECT 1;\nSELECT 2;\n-- safemigrate: group-end\nSELECT 3;"
    result = steps(text)
    assert [s.mode for s in result] == [TxMode.GROUP, TxMode.OWN]
    assert [s.text for s in result[0].statements] == ["SELECT 1", "SELECT 2"]


def test_empty_group_is_an_error() -> None:
    err = error("-- safemigrate: group-start\n-- safemigrate: group-end\nSELECT 1;")
    assert err.line == 2
    assert "empty group" in str(err)


def test_group_without_end_is_an_error() -> None:
    assert error("SELECT 0;\n-- safemigrate: group-start\nSELECT 1;\n").line == 2


def test_group_end_without_start_is_an_error() -> None:
    assert error("SELECT 1;\n-- safemigrate: group-end\n").line == 2


def test_nested_group_start_is_an_error() -> None:
    text = "-- safemigrate: group-start\nSELECT 1;\n-- safemigrate: group-start\n"
    assert error(text).line == 3


def test_begin_inside_a_group_is_an_error() -> None:
    err = error("-- safemigrate: group-start\nBEGIN;\n-- safemigrate: group-end\n")
    assert err.line == 2
    assert "BEGIN inside a group" in str(err)


# Option directives


def test_options_directive_applies_to_the_next_step_only() -> None:
    text = (
        "-- safemigrate: lock-timeout=5s statement-timeout=1min max-attempts=3\n"
        "SELECT 1;\nSELECT 2;\n"
    )
    first, second = steps(text)
    assert first.options == StepOptions(
        lock_timeout_ms=5000, statement_timeout_ms=60_000, max_attempts=3
    )
    assert second.options == StepOptions()


def test_no_retry_directive() -> None:
    first, second = steps("SELECT 1;\n-- safemigrate: no-retry\nSELECT 2;")
    assert first.options == StepOptions()
    assert second.options == StepOptions(no_retry=True)


def test_several_directive_lines_combine() -> None:
    [step] = steps("-- safemigrate: lock-timeout=1s\n-- safemigrate: no-retry\nSELECT 1;")
    assert step.options == StepOptions(lock_timeout_ms=1000, no_retry=True)


def test_same_option_twice_is_an_error() -> None:
    err = error("-- safemigrate: lock-timeout=1s\n-- safemigrate: lock-timeout=2s\nSELECT 1;")
    assert err.line == 2
    assert str(err) == "f.sql:2: lock-timeout given twice"


# Issue 21 (review 21h D4): on one line the last one won silently, on two lines it was refused
# under its internal name (lock_timeout_ms).
@pytest.mark.parametrize(
    ("line", "option"),
    [
        ("lock-timeout=1s lock-timeout=5s", "lock-timeout"),
        ("batch-size=100 batch-size=200", "batch-size"),
        ("no-retry max-attempts=2 no-retry", "no-retry"),
        ("group-start statement-timeout=1s statement-timeout=1s", "statement-timeout"),
    ],
)
def test_same_option_twice_on_one_line_is_an_error(line: str, option: str) -> None:
    err = error(f"-- safemigrate: {line}\nUPDATE t SET n = 1;\n-- safemigrate: group-end\n")
    assert str(err).startswith(f"f.sql:1: {option} given twice")


def test_options_before_group_start_apply_to_the_group() -> None:
    text = (
        "-- safemigrate: lock-timeout=3s\n-- safemigrate: group-start\n"
        "SELECT 1;\n-- safemigrate: group-end\nSELECT 2;"
    )
    group, after = steps(text)
    assert group.options == StepOptions(lock_timeout_ms=3000)
    assert after.options == StepOptions()


def test_options_on_the_group_start_line() -> None:
    text = "-- safemigrate: group-start max-attempts=2\nSELECT 1;\n-- safemigrate: group-end\n"
    assert steps(text)[0].options == StepOptions(max_attempts=2)


def test_options_before_begin_apply_to_the_block() -> None:
    [step] = steps("-- safemigrate: no-retry\nBEGIN;\nSELECT 1;\nCOMMIT;")
    assert step.options == StepOptions(no_retry=True)


def test_options_inside_an_explicit_block_are_an_error() -> None:
    assert error("BEGIN;\n-- safemigrate: no-retry\nSELECT 1;\nCOMMIT;").line == 2


def test_options_inside_a_group_after_a_statement_are_an_error() -> None:
    text = (
        "-- safemigrate: group-start\nSELECT 1;\n-- safemigrate: no-retry\n"
        "SELECT 2;\n-- safemigrate: group-end\n"
    )
    assert error(text).line == 3


def test_option_directive_after_group_end_is_for_the_next_statement() -> None:
    text = (
        "-- safemigrate: group-start\nSELECT 1;\n-- safemigrate: group-end\n"
        "-- safemigrate: no-retry\nSELECT 2;\n"
    )
    group, after = steps(text)
    assert group.options == StepOptions()
    assert after.options == StepOptions(no_retry=True)


def test_options_apply_to_the_next_autocommit_step() -> None:
    [step] = steps("-- safemigrate: lock-timeout=10s\nCREATE INDEX CONCURRENTLY i ON t (a);")
    assert step.mode is TxMode.AUTOCOMMIT
    assert step.options == StepOptions(lock_timeout_ms=10_000)


def test_unknown_directive_names_the_line() -> None:
    err = error("SELECT 1;\n-- safemigrate: bogus\nSELECT 2;")
    assert err.line == 2
    assert "bogus" in str(err)


def test_empty_directive_is_an_error() -> None:
    assert error("SELECT 1;\n-- safemigrate:\nSELECT 2;").line == 2


def test_lock_timeout_zero_is_an_error() -> None:
    err = error("SELECT 1;\n-- safemigrate: lock-timeout=0\nSELECT 2;")
    assert err.line == 2
    assert "lock-timeout=0" in str(err)


def test_statement_timeout_zero_is_allowed() -> None:
    [step] = steps("-- safemigrate: statement-timeout=0\nSELECT 1;")
    assert step.options.statement_timeout_ms == 0


@pytest.mark.parametrize("value", ["5x", "5", "-1s", "abc", ""])
def test_bad_duration_is_an_error_naming_the_directive(value: str) -> None:
    err = error(f"SELECT 1;\n-- safemigrate: lock-timeout={value}\nSELECT 2;")
    assert err.line == 2
    assert "lock-timeout" in str(err)
    assert str(err).startswith("f.sql:2: ")


@pytest.mark.parametrize("value", ["0", "1001", "x", "1.5", "-1", "²", ""])
def test_bad_max_attempts_is_an_error(value: str) -> None:
    err = error(f"-- safemigrate: max-attempts={value}\nSELECT 1;")
    assert err.line == 1
    assert "max-attempts" in str(err)


@pytest.mark.parametrize("word", ["no-retry=yes", "group-start=1", "lock-timeout"])
def test_directive_with_wrong_value_shape_is_unknown(word: str) -> None:
    assert "unknown" in str(error(f"-- safemigrate: {word}\nSELECT 1;"))


def test_directive_inside_a_statement_is_an_error() -> None:
    err = error("SELECT 1,\n-- safemigrate: no-retry\n2;")
    assert err.line == 2
    assert "own line" in str(err)


def test_directive_at_the_end_applies_to_nothing() -> None:
    err = error("SELECT 1;\n\n-- safemigrate: no-retry\n")
    assert err.line == 3
    assert "applies to no statement" in str(err)


# A comment that only looks like a directive is refused, never ignored (issue 21, review 21f
# F5: `-- SafeMigrate: batch-size=500` ran one full-table UPDATE, exit 0).


@pytest.mark.parametrize(
    ("comment", "kind"),
    [
        ("-- SafeMigrate: batch-size=500", "not written `-- safemigrate:`"),
        ("-- SAFEMIGRATE: batch-size=500", "not written `-- safemigrate:`"),
        ("-- safemigrate : batch-size=500", "not written `-- safemigrate:`"),
        ("/* safemigrate: batch-size=500 */", "in a block comment"),
        ("/*safemigrate:batch-size=500*/", "in a block comment"),
        ("/* SafeMigrate:\n   batch-size=500 */", "in a block comment"),
        # Issue 21 (review 21h D3): no colon, or a near spelling, followed by a directive word.
        ("-- safemigrate batch-size=500", "not written `-- safemigrate:`"),
        ("-- safemigrates: batch-size=500", "not written `-- safemigrate:`"),
        ("-- safe-migrate: batch-size=500", "not written `-- safemigrate:`"),
        ("-- Safe_Migrate batch-size=500", "not written `-- safemigrate:`"),
        ("/* safemigrate batch-size=500 */", "in a block comment"),
        # Issue 21 (review 21i E1): block comments in the ` * ` style, nested, more dashes,
        # other misspellings and separators, a look-alike character.
        ("/*\n * safemigrate: batch-size=500\n */", "in a block comment"),
        ("/** safemigrate: batch-size=500 */", "in a block comment"),
        ("/* outer /* safemigrate: batch-size=500 */ */", "in a block comment"),
        ("/* notes\n * SafeMigrate batch-size=500\n */", "in a block comment"),
        ("--- safemigrate: batch-size=500", "not written `-- safemigrate:`"),
        ("---safemigrate: batch-size=500", "not written `-- safemigrate:`"),
        ("-- safemigrat: batch-size=500", "not written `-- safemigrate:`"),
        ("-- safemigarte: batch-size=500", "not written `-- safemigrate:`"),
        ("-- safe migrate: batch-size=500", "not written `-- safemigrate:`"),
        ("-- safemigrate; batch-size=500", "not written `-- safemigrate:`"),
        ("-- safemigrate= batch-size=500", "not written `-- safemigrate:`"),
        ("-- safemigrate\uff1a batch-size=500", "not written `-- safemigrate:`"),
        ("-- \u0455afemigrate: batch-size=500", "not written `-- safemigrate:`"),
        ("-- safe\u200bmigrate: batch-size=500", "not written `-- safemigrate:`"),
    ],
)
def test_a_comment_that_looks_like_a_directive_is_refused(comment: str, kind: str) -> None:
    err = error(f"SELECT 1;\n{comment}\nUPDATE t SET n = n + 1;")
    assert err.line == 2
    assert str(err).startswith(
        f"f.sql:2: this comment looks like a safemigrate directive but is {kind}"
    )
    assert "write `-- safemigrate: batch-size=500` (lower case" in str(err)


def test_a_group_written_without_the_colon_is_refused() -> None:
    # Issue 21 (review 21h D3): the two statements ran as two steps, without the group's
    # single transaction, and check said "no findings".
    text = (
        "-- safemigrate group-start\nUPDATE t SET n = 1;\nUPDATE u SET n = 1;\n"
        "-- safemigrate group-end\n"
    )
    err = error(text)
    assert err.line == 1
    assert "write `-- safemigrate: group-start`" in str(err)


def test_a_group_written_with_four_dashes_is_refused() -> None:
    # Issue 21 (review 21i E1): `---- safemigrate: group-start` was a comment, so the group's
    # statements ran as separate steps.
    text = "---- safemigrate: group-start\nUPDATE t SET n = 1;\nUPDATE u SET n = 1;\n"
    err = error(text + "---- safemigrate: group-end\n")
    assert err.line == 1
    assert "write `-- safemigrate: group-start`" in str(err)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # Issue 21 (review 21i E2): the group-start line's option given again below it, or
        # above it, was taken silently (the later one won).
        ("-- safemigrate: group-start lock-timeout=1s\n-- safemigrate: lock-timeout=2s\n", 2),
        ("-- safemigrate: lock-timeout=2s\n-- safemigrate: group-start lock-timeout=1s\n", 2),
    ],
)
def test_an_option_given_again_beside_group_start_is_refused(text: str, line: int) -> None:
    err = error(text + "UPDATE t SET n = 1;\nUPDATE u SET n = 1;\n-- safemigrate: group-end\n")
    assert err.line == line
    assert "lock-timeout given twice" in str(err)


@pytest.mark.parametrize(
    "text",
    [
        "-- safemigrate: no-retry max-attempts=5\n",
        "-- safemigrate: no-retry\n-- safemigrate: max-attempts=5\n",
        "-- safemigrate: group-start max-attempts=5\n-- safemigrate: no-retry\n",
    ],
)
def test_no_retry_beside_max_attempts_is_refused(text: str) -> None:
    # Issue 21 (review 21i E2): one of the two was dropped without a word.
    err = error(
        text + "UPDATE t SET n = 1;\n" + ("-- safemigrate: group-end\n" if "group" in text else "")
    )
    assert "no-retry and max-attempts contradict" in str(err)


def test_a_block_comment_directive_inside_a_statement_is_refused() -> None:
    assert error("SELECT /* safemigrate: no-retry */ 1;").line == 1


@pytest.mark.parametrize(
    "comment",
    [
        "--safemigrate: batch-size=500",
        "--\tsafemigrate: batch-size=500",
        "--   safemigrate:batch-size=500",
    ],
)
def test_blanks_around_the_directive_word_are_read(comment: str) -> None:
    [_, step] = steps(f"SELECT 1;\n{comment}\nUPDATE t SET n = n + 1;")
    assert step.options.batch_size == 500


@pytest.mark.parametrize(
    "comment",
    [
        "-- SafeMigrate migration for the orders table",
        "/* safemigrate runs this file in one transaction */",
        "-- -- safemigrate: batch-size=500 (switched off)",
        "-- note: safemigrate: batch-size=500",
        "/* safemigrates: */",
        "-- safemigrates: the notes of this file",
        "-- safe-migrate runs this file in one transaction",
        "/*\n * safemigrate runs this file\n * in one transaction\n */",
        "-- safe to run: batch-size is not needed here",
        "-- migrate: batch-size=500 was too small",
        "/* the safemigration notes: batch-size=500 */",
        "/*\n * Safe migrate: yes\n */",  # review 21i: prose, not a directive
        "-- Safe migrate: yes, this file is",
    ],
)
def test_other_comments_naming_safemigrate_are_comments(comment: str) -> None:
    [_, step] = steps(f"SELECT 1;\n{comment}\nUPDATE t SET n = n + 1;")
    assert step.options == StepOptions()


# Non-transactional statements


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE INDEX CONCURRENTLY i ON t (a)",
        "DROP INDEX CONCURRENTLY i",
        "REINDEX TABLE CONCURRENTLY t",
        "REINDEX DATABASE d",
        "ALTER TABLE p DETACH PARTITION c CONCURRENTLY",
        "VACUUM t",
        "VACUUM ANALYZE t",
        "CREATE DATABASE d",
        "ALTER SYSTEM SET work_mem = '64MB'",
        "CLUSTER",
    ],
)
def test_non_transactional_statement_is_an_autocommit_step(sql: str) -> None:
    [step] = steps(f"{sql};")
    assert step.mode is TxMode.AUTOCOMMIT
    assert step.statements[0].non_transactional


@pytest.mark.parametrize(
    "sql",
    ["ANALYZE t", "REINDEX TABLE t", "ALTER TABLE p DETACH PARTITION c", "CLUSTER t USING i"],
)
def test_transactional_look_alikes_are_own_steps(sql: str) -> None:
    [step] = steps(f"{sql};")
    assert step.mode is TxMode.OWN


def test_non_transactional_statement_inside_a_block_is_an_error() -> None:
    err = error("BEGIN;\nSELECT 1;\nVACUUM t;\nCOMMIT;")
    assert err.line == 3
    assert "line 1" in str(err)


def test_non_transactional_statement_inside_a_group_is_an_error() -> None:
    text = (
        "-- safemigrate: group-start\nSELECT 1;\n"
        "CREATE INDEX CONCURRENTLY i ON t (a);\n-- safemigrate: group-end\n"
    )
    assert error(text).line == 3


def test_concurrent_index_build_is_described() -> None:
    [step] = steps("CREATE INDEX CONCURRENTLY i ON s.t (a);")
    statement = step.statements[0]
    assert statement.rewritten is None
    assert statement.index_build is not None
    assert statement.index_build.table == QualifiedName("s", "t")
    assert statement.index_build.name == "i"


def test_concurrent_index_drop_is_described() -> None:
    [step] = steps("DROP INDEX CONCURRENTLY IF EXISTS s.i;")
    drop = step.statements[0].index_drop
    assert drop is not None
    assert drop.names == (QualifiedName("s", "i"),)
    assert drop.if_exists


# Plain CREATE INDEX


def test_plain_index_on_existing_table_is_rewritten() -> None:
    [step] = steps("CREATE INDEX i ON t (a);")
    statement = step.statements[0]
    assert step.mode is TxMode.AUTOCOMMIT
    assert statement.text == "CREATE INDEX i ON t (a)"
    assert statement.rewritten == "CREATE INDEX CONCURRENTLY i ON t (a)"
    assert statement.run_text == statement.rewritten
    assert statement.non_transactional
    assert statement.index_build is not None
    assert statement.index_build.table == QualifiedName(None, "t")
    assert statement.notes and "rewritten" in statement.notes[0]
    assert step.rewritten


def test_rewrite_keeps_comments_spacing_unique_and_if_not_exists() -> None:
    sql = "CREATE  UNIQUE  INDEX /* keep; */ IF NOT EXISTS i\n  ON t (a) -- tail"
    [step] = steps(f"{sql}\n;")
    assert step.statements[0].text == sql
    assert step.statements[0].rewritten == (
        "CREATE  UNIQUE  INDEX CONCURRENTLY /* keep; */ IF NOT EXISTS i\n  ON t (a) -- tail"
    )
    build = step.statements[0].index_build
    assert build is not None and build.if_not_exists


def test_plain_index_is_refused_with_require() -> None:
    err = error("SELECT 1;\nCREATE INDEX i ON t (a);", "require")
    assert err.line == 2
    assert "require" in str(err)


def test_plain_index_is_untouched_with_off() -> None:
    [step] = steps("CREATE INDEX i ON t (a);", "off")
    assert step.mode is TxMode.OWN
    assert step.statements[0].rewritten is None
    assert step.statements[0].notes == ()


@pytest.mark.parametrize(
    ("create", "index_on"),
    [
        ("CREATE TABLE t (a int)", "t"),
        ("CREATE TABLE t AS SELECT 1 AS a", "t"),
        ("SELECT 1 AS a INTO t", "t"),
        ('CREATE TABLE "Foo" (a int)', '"Foo"'),
        ("CREATE TABLE Foo (a int)", "foo"),
        ("CREATE TABLE foo (a int)", '"foo"'),
        ("CREATE TABLE S.Bar (a int)", "s.bar"),
        ("CREATE TABLE public.t (a int)", "t"),
        ("CREATE TABLE t (a int)", "public.t"),
    ],
)
def test_index_on_table_created_in_the_file_is_not_rewritten(create: str, index_on: str) -> None:
    policies: tuple[ConcurrentIndexes, ...] = ("rewrite", "require")
    for policy in policies:
        result = steps(f"{create};\nCREATE INDEX i ON {index_on} (a);", policy)
        assert result[1].mode is TxMode.OWN
        assert result[1].statements[0].rewritten is None


@pytest.mark.parametrize(
    ("create", "index_on"),
    [
        ('CREATE TABLE "Foo" (a int)', "Foo"),
        ("CREATE TABLE s.t (a int)", "other.t"),
        ("CREATE TABLE t (a int)", "u"),
    ],
)
def test_index_on_a_different_table_is_rewritten(create: str, index_on: str) -> None:
    result = steps(f"{create};\nCREATE INDEX i ON {index_on} (a);")
    assert result[1].statements[0].rewritten is not None


def test_index_on_table_created_later_is_rewritten() -> None:
    result = steps("CREATE INDEX i ON t (a);\nCREATE TABLE t (a int);")
    assert result[0].statements[0].rewritten is not None


def test_plain_index_in_block_gets_a_note_with_rewrite() -> None:
    [step] = steps("BEGIN;\nCREATE INDEX i ON t (a);\nCOMMIT;")
    statement = step.statements[1]
    assert step.mode is TxMode.EXPLICIT
    assert statement.rewritten is None
    assert not statement.non_transactional
    assert statement.notes and "not rewritten" in statement.notes[0]


def test_plain_index_in_group_gets_a_note_with_rewrite() -> None:
    text = "-- safemigrate: group-start\nCREATE INDEX i ON t (a);\n-- safemigrate: group-end\n"
    [step] = steps(text)
    assert step.mode is TxMode.GROUP
    assert step.statements[0].rewritten is None
    assert step.statements[0].notes


def test_plain_index_in_block_is_an_error_with_require() -> None:
    assert error("BEGIN;\nCREATE INDEX i ON t (a);\nCOMMIT;", "require").line == 2


def test_plain_index_in_block_on_table_created_there_is_fine() -> None:
    [step] = steps("BEGIN;\nCREATE TABLE t (a int);\nCREATE INDEX i ON t (a);\nCOMMIT;", "require")
    assert step.statements[2].notes == ()


# Look-alikes in strings and comments


def test_sql_inside_a_string_does_not_change_steps() -> None:
    [step] = steps("SELECT 'CREATE INDEX CONCURRENTLY i ON t (a); BEGIN;';")
    assert step.mode is TxMode.OWN


def test_sql_inside_comments_does_not_change_steps() -> None:
    result = steps("-- BEGIN;\nSELECT 1;\n/* COMMIT; VACUUM; */ SELECT 2;\n-- ROLLBACK;\n")
    assert [s.mode for s in result] == [TxMode.OWN, TxMode.OWN]
    assert [s.statements[0].text for s in result] == ["SELECT 1", "SELECT 2"]


def test_directive_text_in_a_string_is_not_a_directive() -> None:
    [step] = steps("SELECT '-- safemigrate: bogus';")
    assert step.options == StepOptions()


# Checksums


def test_checksum_changes_when_step_text_changes() -> None:
    before = steps("SELECT 1;\nSELECT 2;")
    after = steps("SELECT 1;\nSELECT 3;")
    assert before[0].checksum == after[0].checksum
    assert before[1].checksum != after[1].checksum
    # One more blank between tokens is the same statement (review21c F4); its bytes differ.
    spaced = steps("SELECT 1;\nSELECT  2;")
    assert before[1].checksum == spaced[1].checksum
    assert before[1].raw_checksum != spaced[1].raw_checksum


def test_checksum_ignores_directives_and_other_steps() -> None:
    before = steps("SELECT 1;\nSELECT 2;")
    after = steps("SELECT 0;\n-- safemigrate: no-retry\nSELECT 2;")
    assert before[1].checksum == after[1].checksum


def test_checksum_of_explicit_block_covers_every_statement() -> None:
    a = steps("BEGIN;\nSELECT 1;\nCOMMIT;")[0]
    b = steps("BEGIN;\nSELECT 2;\nCOMMIT;")[0]
    assert a.checksum != b.checksum


def test_checksum_is_the_file_text_not_the_rewrite() -> None:
    rewritten = steps("CREATE INDEX i ON t (a);")[0]
    untouched = steps("CREATE INDEX i ON t (a);", "off")[0]
    assert rewritten.checksum == untouched.checksum


# A real migration history


def test_langfuse_corpus_loads() -> None:
    directory = LANGFUSE / "migrations"
    if not directory.is_dir():
        pytest.skip(f"{directory} is not available")
    migrations = load_migrations(directory)
    assert len(migrations) == 434
    explicit = [s for m in migrations for s in m.steps if s.mode is TxMode.EXPLICIT]
    assert len(explicit) == 14
    for migration in migrations:
        text = read_sql(migration.path)
        for step in migration.steps:
            for statement in step.statements:
                assert statement.text in text, (migration.filename, statement.line)


def test_directive_after_a_statement_on_the_same_line_is_an_error() -> None:
    with pytest.raises(MigrationFileError) as caught:
        build_steps("f.sql", "SELECT 1; -- safemigrate: no-retry\nSELECT 2;")
    assert caught.value.line == 1
    assert "on its own line" in str(caught.value)


def test_create_table_if_not_exists_does_not_make_the_table_new() -> None:
    steps = build_steps("f.sql", "CREATE TABLE IF NOT EXISTS t (a int);\nCREATE INDEX ON t (a);")
    assert steps[1].mode is TxMode.AUTOCOMMIT
    assert steps[1].statements[0].rewritten == "CREATE INDEX CONCURRENTLY ON t (a)"


# parse_file: one lenient reading for the runner and the linter


def parse(text: str, policy: ConcurrentIndexes = "rewrite") -> ParsedFile:
    return parse_file("f.sql", text, concurrent_indexes=policy)


def contexts(parsed: ParsedFile) -> list[tuple[str, str, int | None]]:
    """(first word, context, block line) of each statement."""
    return [
        (s.text.split()[0], s.context, s.block.line if s.block else None) for s in parsed.statements
    ]


def test_parse_gives_each_statement_its_transaction_context() -> None:
    parsed = parse(
        "CREATE TABLE a (id int);\n"  # 1
        "BEGIN;\n"  # 2
        "UPDATE a SET id = 1;\n"
        "COMMIT;\n"
        "-- safemigrate: group-start\n"  # 5
        "INSERT INTO a VALUES (1);\n"
        "DELETE FROM a;\n"
        "-- safemigrate: group-end\n"
        "CREATE INDEX CONCURRENTLY i ON a (id);\n"
        "CREATE INDEX j ON b (id);\n"  # rewritten: runs alone in autocommit mode
    )
    assert parsed.problems == ()
    assert contexts(parsed) == [
        ("CREATE", "own", None),
        ("BEGIN", "explicit", 2),
        ("UPDATE", "explicit", 2),
        ("COMMIT", "explicit", 2),
        ("INSERT", "group", 5),
        ("DELETE", "group", 5),
        ("CREATE", "autocommit", None),
        ("CREATE", "autocommit", None),
    ]
    assert [s.step for s in parsed.statements] == [0, 1, 1, 1, 2, 2, 3, 4]
    assert [s.mode for s in parsed.steps] == [
        TxMode.OWN,
        TxMode.EXPLICIT,
        TxMode.GROUP,
        TxMode.AUTOCOMMIT,
        TxMode.AUTOCOMMIT,
    ]
    assert parsed.statements[-1].statement.rewritten is not None
    assert [(s.line, s.column) for s in parsed.statements][:2] == [(1, 1), (2, 1)]
    assert parsed.statements[1].block is parsed.statements[3].block


def test_parse_collects_every_problem_and_goes_on() -> None:
    text = (
        "-- safemigrate: bogus\n"  # 1
        "SELECT 1;\n"
        "COMMIT;\n"  # 3
        "ROLLBACK;\n"  # 4
        "BEGIN;\n"  # 5
        "CREATE INDEX CONCURRENTLY i ON t (a);\n"  # 6
        "SELECT 2;\n"
    )
    parsed = parse(text)
    assert [(p.line, p.message) for p in parsed.problems] == [
        (1, "unknown safemigrate directive 'bogus'"),
        (3, "COMMIT without a matching BEGIN"),
        (4, "ROLLBACK in a migration file is not supported"),
        (
            6,
            "'CREATE INDEX CONCURRENTLY i ON t (a)' cannot run inside a transaction block "
            "(an explicit BEGIN/COMMIT block started at line 5)",
        ),
        (5, "BEGIN has no matching COMMIT"),
    ]
    assert all(p.path == "f.sql" for p in parsed.problems)
    assert [p.kind for p in parsed.problems].count("non-transactional-in-block") == 1
    # After a problem the statements keep the transaction they are written in.
    assert contexts(parsed) == [
        ("SELECT", "own", None),
        ("COMMIT", "own", None),
        ("ROLLBACK", "own", None),
        ("BEGIN", "explicit", 5),
        ("CREATE", "explicit", 5),
        ("SELECT", "explicit", 5),
    ]
    # The unclosed block is no step.
    assert [s.step for s in parsed.statements][3:] == [None, None, None]


def test_a_bad_group_directive_still_opens_its_group() -> None:
    parsed = parse(
        "-- safemigrate: group-start lock-timeout=0\nSELECT 1;\n-- safemigrate: group-end\n"
    )
    assert [p.message for p in parsed.problems] == [
        "lock-timeout=0 would wait forever; the runner always keeps a lock timeout"
    ]
    assert contexts(parsed) == [("SELECT", "group", 1)]


def test_a_file_that_does_not_parse_has_one_problem_with_its_column() -> None:
    parsed = parse("SELECT 1;\nSELECT (1;\n")
    [problem] = parsed.problems
    assert (problem.line, problem.kind) == (2, "syntax")
    assert problem.message.startswith("SQL does not parse: ")
    assert problem.column > 1
    assert parsed.statements == ()


def test_parse_finds_allow_comments_and_the_runner_passes_over_them() -> None:
    parsed = parse("SELECT 1;\n  -- safemigrate: allow lock-table -- short\nLOCK TABLE t;\n")
    assert parsed.problems == ()
    [allow] = parsed.allows
    assert (allow.line, allow.column, allow.body, allow.own_line) == (
        2,
        3,
        "lock-table -- short",
        True,
    )


@pytest.mark.parametrize(
    "text",
    [
        "-- safemigrate: bogus\nCOMMIT;\n",
        "COMMIT;\n-- safemigrate: bogus\nSELECT 1;\n",
        "BEGIN;\nVACUUM t;\nROLLBACK;\nCOMMIT;\n",
        "-- safemigrate: group-start\n-- safemigrate: group-end\nSELECT 1, -- safemigrate: x\n2;\n",
        "-- safemigrate: no-retry\n",
        "CREATE INDEX i ON t (a);\nBEGIN;\nCREATE INDEX j ON t (a);\n",
    ],
)
@pytest.mark.parametrize("policy", ["rewrite", "require", "off"])
def test_the_runner_raises_the_first_problem(text: str, policy: ConcurrentIndexes) -> None:
    parsed = parse(text, policy)
    assert parsed.problems
    first = parsed.problems[0]
    err = error(text, policy)
    assert (err.message, err.line, err.hint) == (first.error().message, first.line, first.hint)
    assert err.exit_code == ExitCode.BAD_INPUT


def test_the_runner_steps_are_the_parse_steps() -> None:
    text = STEPS_SAMPLE
    parsed = parse(text)
    assert parsed.problems == ()
    assert steps(text) == list(parsed.steps)
    for step in parsed.steps:
        members = [s for s in parsed.statements if s.step == step.index]
        assert tuple(m.statement for m in members) == step.statements
        if step.mode in (TxMode.EXPLICIT, TxMode.GROUP):
            assert len({m.block for m in members}) == 1
        else:
            assert [m.block for m in members] == [None]


STEPS_SAMPLE = (
    "-- safemigrate: lock-timeout=2s\n"
    "CREATE TABLE t (id int);\n"
    "BEGIN;\nALTER TABLE u ADD COLUMN c int;\nCOMMIT;\n"
    "-- safemigrate: group-start no-retry\n"
    "UPDATE u SET c = 1;\nUPDATE u SET c = 2;\n"
    "-- safemigrate: group-end\n"
    "CREATE INDEX i ON u (c);\n"
    "DROP INDEX CONCURRENTLY old;\n"
)


def test_scan_directory_collects_every_problem_and_discover_raises_the_first(
    tmp_path: Path,
) -> None:
    write(tmp_path, "0001_a.sql")
    write(tmp_path, "1_again.sql")
    write(tmp_path, "init.sql")
    write(tmp_path, "1" + "0" * 18 + "_big.sql")
    scan = scan_directory(tmp_path)
    big = "1" + "0" * 18 + "_big.sql"
    # In directory order: "10..." sorts before "1_again".
    assert [(Path(p.path).name, p.message) for p in scan.problems] == [
        (big, "version has more than 18 significant digits"),
        ("1_again.sql", "duplicate version 1: also used by 0001_a.sql"),
        ("init.sql", "file name does not match <version>_<name>.sql"),
    ]
    assert [f.path.name for f in scan.files] == ["0001_a.sql", "1_again.sql"]
    assert [p.name for p in scan.misnamed] == [big, "init.sql"]
    with pytest.raises(MigrationFileError) as info:
        discover(tmp_path)
    assert info.value.message == scan.problems[0].error().message


@pytest.mark.parametrize("value", ["0.4ms", "0.0004s", "0.0001s"])
def test_a_statement_timeout_directive_that_rounds_to_zero_is_refused(value: str) -> None:
    """issue 21 review21c F8: 0.4ms is 0 in whole milliseconds, i.e. no statement timeout."""
    err = error(f"-- safemigrate: statement-timeout={value}\nSELECT 1;")
    assert "is 0 in whole milliseconds" in str(err)


@pytest.mark.parametrize("value", ["0", "0s", "0.0ms"])
def test_a_statement_timeout_directive_written_as_zero_means_none(value: str) -> None:
    [step] = steps(f"-- safemigrate: statement-timeout={value}\nSELECT 1;")
    assert step.options.statement_timeout_ms == 0
