"""lint_paths, lint_directory, invalid files, the rule registry and explain()."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from safemigrate.lint import RULES, LintReport, Rule, explain, lint_directory, lint_paths

from .support import write

INVALID = "invalid-migration-file"


def test_lint_paths_lints_each_file_on_its_own(tmp_path: Path) -> None:
    a = write(tmp_path, "0001_a.sql", "CREATE TABLE items (a int);\n")
    b = write(tmp_path, "0002_b.sql", "CREATE INDEX ON items (a);\n")
    report = lint_paths([a, b])
    # In 0002 the table was not created in the same file: it exists.
    assert [(Path(f.file).name, f.rule) for f in report.findings] == [
        ("0002_b.sql", "require-concurrent-index")
    ]
    assert not report.bad_input
    assert report.errors == []
    assert report.exit_code == 0
    assert report.files == (str(a), str(b))


def test_report_errors_and_exit_code(tmp_path: Path) -> None:
    path = write(tmp_path, "0001_a.sql", "VACUUM FULL orders;\nDROP TABLE x;\n")
    report = lint_paths([path])
    assert [f.rule for f in report.errors] == ["table-rewrite"]
    assert report.exit_code == 1


def test_misnamed_file_is_bad_input_but_still_linted(tmp_path: Path) -> None:
    path = write(tmp_path, "add_things.sql", "DROP TABLE x;\n")
    report = lint_paths([path])
    assert report.bad_input
    assert report.exit_code == 2
    assert [f.rule for f in report.findings] == [INVALID, "drop-table-or-column"]
    assert "does not match <version>_<name>.sql" in report.findings[0].message


def test_missing_file_is_bad_input(tmp_path: Path) -> None:
    report = lint_paths([tmp_path / "0001_gone.sql"])
    assert report.bad_input
    [finding] = report.findings
    assert finding.rule == INVALID
    assert "cannot read" in finding.message


def test_not_utf8_is_bad_input_with_the_line(tmp_path: Path) -> None:
    path = tmp_path / "0001_a.sql"
    path.write_bytes(b"SELECT 1;\nSELECT '\xff';\n")
    report = lint_paths([path])
    [finding] = report.findings
    assert (finding.rule, finding.line) == (INVALID, 2)
    assert "not UTF-8" in finding.message
    assert report.bad_input


def test_sql_that_does_not_parse_is_bad_input_with_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "0001_a.sql", "SELECT 1;\n\nSELEC 2;\n")
    report = lint_paths([path])
    [finding] = report.findings
    assert (finding.rule, finding.line, finding.severity) == (INVALID, 3, "error")
    assert "SQL does not parse" in finding.message
    assert report.bad_input


@pytest.mark.parametrize(
    ("sql", "words", "line"),
    [
        ("BEGIN;\nSELECT 1;\n", "BEGIN has no matching COMMIT", 1),
        ("SELECT 1;\nROLLBACK;\n", "ROLLBACK", 2),
        ("-- safemigrate: bogus\nSELECT 1;\n", "unknown safemigrate directive", 1),
    ],
)
def test_files_the_runner_refuses_are_bad_input(sql: str, words: str, line: int) -> None:
    from safemigrate.lint.walker import lint_text

    result = lint_text("0001_a.sql", sql)
    assert result.bad_input
    invalid = [f for f in result.findings if f.rule == INVALID]
    assert len(invalid) == 1
    assert words in invalid[0].message
    assert invalid[0].line == line
    assert not invalid[0].message.startswith("0001_a.sql")


def test_rules_still_run_in_a_file_the_runner_refuses() -> None:
    from safemigrate.lint.walker import lint_text

    result = lint_text("0001_a.sql", "DROP TABLE x;\nBEGIN;\nCREATE INDEX ON orders (a);\n")
    assert result.bad_input
    assert [f.rule for f in result.findings] == [
        "drop-table-or-column",
        INVALID,
        "require-concurrent-index",
    ]


def test_every_problem_the_runner_would_refuse_is_a_finding() -> None:
    from safemigrate.lint.walker import lint_text

    sql = "-- safemigrate: bogus\nSELECT 1;\nCOMMIT;\nBEGIN;\nVACUUM t;\nSELECT 2;\n"
    result = lint_text("0001_a.sql", sql)
    assert result.bad_input
    assert [(f.line, f.rule) for f in result.findings] == [
        (1, INVALID),  # unknown directive
        (3, INVALID),  # COMMIT without BEGIN
        (4, INVALID),  # BEGIN has no matching COMMIT
        (5, "non-transactional-in-transaction"),  # the rule reports it, not a second finding
    ]


def test_linter_and_runner_agree_on_the_steps_of_a_file() -> None:
    from safemigrate.lint.walker import transactions_of
    from safemigrate.planning.safer_forms import build_steps, parse_file

    sql = (
        "CREATE TABLE a (id int);\n"
        "BEGIN;\nUPDATE a SET id = 1;\nCOMMIT;\n"
        "-- safemigrate: group-start\nINSERT INTO a VALUES (1);\nDELETE FROM a;\n"
        "-- safemigrate: group-end\n"
        "CREATE INDEX i ON b (id);\nSELECT 1;\n"
    )
    parsed = parse_file("0001_a.sql", sql)
    steps = build_steps("0001_a.sql", sql)
    transactions = transactions_of(parsed.statements)
    # Two statements share a linter transaction exactly when the runner runs them in one step.
    for one, tx_one in zip(parsed.statements, transactions, strict=True):
        for other, tx_other in zip(parsed.statements, transactions, strict=True):
            same_step = one.step == other.step and len(steps[one.step or 0].statements) > 1
            assert (tx_one is tx_other) == (same_step or one is other)
    assert [s.statement for s in parsed.statements] == [
        s for step in steps for s in step.statements
    ]


def test_lint_directory_checks_every_migration_in_version_order(tmp_path: Path) -> None:
    write(tmp_path, "10_ten.sql", "DROP TABLE ten;\n")
    write(tmp_path, "2_two.sql", "DROP TABLE two;\n")
    write(tmp_path, "notes.txt", "DROP TABLE ignored;\n")
    write(tmp_path, ".hidden.sql", "garbage")
    report = lint_directory(tmp_path)
    assert [Path(f.file).name for f in report.findings] == ["2_two.sql", "10_ten.sql"]
    assert not report.bad_input
    assert [Path(f).name for f in report.files] == ["2_two.sql", "10_ten.sql"]


def test_lint_directory_reports_every_naming_problem(tmp_path: Path) -> None:
    write(tmp_path, "0001_a.sql", "SELECT 1;\n")
    write(tmp_path, "01_b.sql", "SELECT 1;\n")
    write(tmp_path, "bad name.sql", "SELECT 1;\n")
    write(tmp_path, "0002_c.sql", "DROP TABLE c;\n")
    report = lint_directory(tmp_path)
    assert report.bad_input
    found = [(Path(f.file).name, f.rule) for f in report.findings]
    assert ("01_b.sql", INVALID) in found
    assert ("bad name.sql", INVALID) in found
    assert ("0002_c.sql", "drop-table-or-column") in found
    [duplicate] = [f for f in report.findings if "duplicate version 01" in f.message]
    assert Path(duplicate.file).name == "01_b.sql"
    assert "also used by 0001_a.sql" in duplicate.message


def test_lint_directory_of_a_missing_directory_is_bad_input(tmp_path: Path) -> None:
    report = lint_directory(tmp_path / "nope")
    assert report.bad_input
    assert [f.rule for f in report.findings] == [INVALID]


def test_lint_paths_accepts_a_directory(tmp_path: Path) -> None:
    write(tmp_path, "0001_a.sql", "DROP TABLE a;\n")
    report = lint_paths([tmp_path])
    assert [f.rule for f in report.findings] == ["drop-table-or-column"]


def test_options_are_validated(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="concurrent_indexes"):
        lint_paths([], concurrent_indexes="sometimes")
    with pytest.raises(ValueError, match="pg_version"):
        lint_directory(tmp_path, pg_version=0)


def test_empty_report() -> None:
    report = lint_paths([])
    assert report == LintReport([], False, ())


# the registry


STATEMENT_RULES = {
    "rejected-by-server-version": "error",
    "rejected-by-schema": "error",
    "sequence-max-lowered": "error",
    "unknown-statement": "warning",
    "require-concurrent-index": "error",
    "require-concurrent-index-drop": "warning",
    "require-concurrent-reindex": "error",
    "non-transactional-in-transaction": "error",
    "constraint-without-not-valid": "error",
    "set-not-null": "error",
    "column-type-change": "error",
    "add-column-volatile-default": "error",
    "add-column-rewrites": "error",
    "add-column-not-null-without-default": "error",
    "unique-without-index": "error",
    "attach-partition": "error",
    "detach-partition": "error",
    "rename": "warning",
    "drop-table-or-column": "warning",
    "table-rewrite": "error",
    "lock-table": "warning",
    "unbounded-data-change": "error",
    "scan-under-lock": "error",
    "enum-value-used-in-same-transaction": "error",
    "timeout-guard-off": "error",
    "run-lock-release": "error",
    "self-termination": "error",
    "read-only-transaction": "error",
}
META_RULES = (
    "invalid-migration-file",
    "unknown-rule-in-allow",
    "unused-allow",
    "allow-without-reason",
    "empty-migration",
)


def test_every_rule_is_registered_with_its_severity() -> None:
    assert {k: v.severity for k, v in RULES.items()} == {
        **STATEMENT_RULES,
        **dict.fromkeys(META_RULES, "error"),
        "empty-migration": "warning",
    }


@pytest.mark.parametrize("sql", ["", "\n", "-- a placeholder\n/* kept */\n", ";;"])
def test_a_file_without_statements_is_an_empty_migration_warning(sql: str) -> None:
    from safemigrate.lint.walker import lint_text

    result = lint_text("0001_a.sql", sql)
    assert not result.bad_input
    [finding] = result.findings
    assert (finding.rule, finding.severity, finding.line) == ("empty-migration", "warning", 1)
    assert "empty migration" in finding.message


@pytest.mark.parametrize("rule_id", [*STATEMENT_RULES, *META_RULES])
def test_every_rule_has_a_kebab_case_id_and_docs(rule_id: str) -> None:
    rule = RULES[rule_id]
    assert isinstance(rule, Rule)
    assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", rule.id)
    assert rule.summary
    text = explain(rule_id)
    assert text == rule.doc
    assert text.startswith(f"{rule_id} ({rule.severity}): {rule.summary}")
    assert "Catches:" in text and "Why it hurts:" in text and "Instead:" in text


def test_explain_unknown_rule_raises_key_error() -> None:
    with pytest.raises(KeyError):
        explain("no-such-rule")


def test_rule_modules_export_their_doc() -> None:
    from safemigrate.lint.rules import set_not_null

    assert set_not_null.DOC.strip() in explain("set-not-null")


@pytest.mark.parametrize("rule_id", list(STATEMENT_RULES))
def test_every_statement_rule_states_its_versions_and_cites_its_source(rule_id: str) -> None:
    # issue 13: every rule says which PostgreSQL versions it applies to and cites the docs.
    text = explain(rule_id)
    assert "Applies to:" in text
    assert "Source: PostgreSQL docs" in text
