"""``-- safemigrate: allow <rule-id> -- <reason>`` suppression."""

from __future__ import annotations

from safemigrate.lint.allow import is_allow_comment
from safemigrate.lint.walker import lint_text
from safemigrate.planning.safer_forms import parse_file

from .support import lint, rules


def test_allow_with_a_reason_suppresses_the_finding() -> None:
    sql = "-- safemigrate: allow drop-table-or-column -- unused since v42\nDROP TABLE legacy;"
    assert rules(sql) == []


def test_allow_does_not_make_the_file_invalid() -> None:
    # The runner passes over allow comments (source.read_file lists them for the linter).
    sql = "-- safemigrate: allow rename -- old name unused\nALTER TABLE a RENAME TO b;\nSELECT 1;"
    result = lint_text("0001_x.sql", sql)
    assert not result.bad_input
    assert result.findings == []


def test_allow_suppresses_only_the_next_statement() -> None:
    sql = (
        "-- safemigrate: allow drop-table-or-column -- unused since v42\n"
        "DROP TABLE legacy;\n"
        "DROP TABLE other;"
    )
    findings = lint(sql)
    assert [(f.rule, f.line) for f in findings] == [("drop-table-or-column", 3)]


def test_allow_suppresses_only_the_named_rule() -> None:
    sql = (
        "-- safemigrate: allow constraint-without-not-valid -- small table\n"
        "ALTER TABLE orders ADD CHECK (a > 0), DROP COLUMN b;"
    )
    assert rules(sql) == ["drop-table-or-column"]


def test_allow_may_name_several_rules_and_stand_among_other_comments() -> None:
    sql = (
        "-- safemigrate: allow constraint-without-not-valid, drop-table-or-column -- tiny table\n"
        "-- the check is for the new importer\n"
        "\n"
        "-- safemigrate: lock-timeout=5s\n"
        "ALTER TABLE orders ADD CHECK (a > 0), DROP COLUMN b;"
    )
    assert rules(sql) == []


def test_allow_before_a_do_block_covers_its_statements() -> None:
    sql = (
        "-- safemigrate: allow unbounded-data-change -- lookup table, 12 rows\n"
        "DO $$ BEGIN UPDATE currencies SET active = true; END $$;"
    )
    assert rules(sql) == []


def test_allow_inside_a_block_before_a_statement() -> None:
    sql = (
        "BEGIN;\n"
        "-- safemigrate: allow lock-table -- ordering of the two changes\n"
        "LOCK TABLE orders;\n"
        "COMMIT;"
    )
    assert rules(sql) == []


def test_allow_without_reason_is_an_error_and_suppresses_nothing() -> None:
    sql = "-- safemigrate: allow drop-table-or-column\nDROP TABLE legacy;"
    findings = lint(sql)
    assert [(f.rule, f.severity, f.line) for f in findings] == [
        ("allow-without-reason", "error", 1),
        ("drop-table-or-column", "warning", 2),
    ]


def test_allow_with_an_empty_reason_is_without_reason() -> None:
    sql = "-- safemigrate: allow drop-table-or-column --   \nDROP TABLE legacy;"
    assert rules(sql) == ["allow-without-reason", "drop-table-or-column"]


def test_unknown_rule_in_allow_is_an_error() -> None:
    sql = "-- safemigrate: allow drop-tables -- typo\nDROP TABLE legacy;"
    findings = lint(sql)
    assert [(f.rule, f.severity) for f in findings] == [
        ("unknown-rule-in-allow", "error"),
        ("drop-table-or-column", "warning"),
    ]
    assert "'drop-tables'" in findings[0].message


def test_allow_naming_no_rule_is_an_error() -> None:
    sql = "-- safemigrate: allow -- because\nSELECT 1;"
    assert rules(sql) == ["unknown-rule-in-allow"]


def test_file_rules_cannot_be_suppressed() -> None:
    sql = "-- safemigrate: allow invalid-migration-file -- trust me\nSELECT 1;"
    [finding] = lint(sql)
    assert finding.rule == "unknown-rule-in-allow"
    assert "cannot be suppressed" in finding.message


def test_unused_allow_is_an_error() -> None:
    sql = "-- safemigrate: allow rename -- old name unused\nDROP TABLE legacy;"
    findings = lint(sql)
    assert [(f.rule, f.severity, f.line, f.column) for f in findings] == [
        ("unused-allow", "error", 1, 1),
        ("drop-table-or-column", "warning", 2, 1),
    ]


def test_partly_used_allow_reports_the_unused_rule() -> None:
    sql = "-- safemigrate: allow drop-table-or-column, rename -- both fine\nDROP TABLE legacy;"
    [finding] = lint(sql)
    assert finding.rule == "unused-allow"
    assert "allow rename" in finding.message


def test_allow_after_a_statement_on_the_same_line_is_unused() -> None:
    sql = "SELECT 1; -- safemigrate: allow drop-table-or-column -- reason\nDROP TABLE legacy;"
    findings = lint(sql)
    assert [f.rule for f in findings] == ["unused-allow", "drop-table-or-column"]
    assert "own line" in findings[0].message


def test_allow_inside_a_statement_is_unused() -> None:
    sql = "DROP TABLE\n-- safemigrate: allow drop-table-or-column -- reason\nlegacy;"
    findings = lint(sql)
    assert sorted(f.rule for f in findings) == ["drop-table-or-column", "unused-allow"]
    assert any("inside a statement" in f.message for f in findings)


def test_allow_at_the_end_of_the_file_is_unused() -> None:
    sql = "SELECT 1;\n-- safemigrate: allow rename -- nothing follows"
    [finding] = lint(sql)
    assert finding.rule == "unused-allow"
    assert "not followed by a statement" in finding.message


def test_block_comment_allow_is_refused_not_ignored() -> None:
    # Issue 21 (review 21f F5): only `-- safemigrate:` is read; a look-alike is refused.
    sql = "/* safemigrate: allow drop-table-or-column -- reason */\nDROP TABLE legacy;"
    assert rules(sql) == ["invalid-migration-file", "drop-table-or-column"]
    assert "looks like a safemigrate directive" in lint(sql)[0].message


def test_allow_comments_are_found_by_the_parse_beside_other_directives() -> None:
    sql = (
        "-- safemigrate: allow rename -- reason\n"
        "-- safemigrate: no-retry\n"
        "ALTER TABLE a RENAME TO b; -- plain comment"
    )
    parsed = parse_file("0001_x.sql", sql)
    assert parsed.problems == ()
    [comment] = parsed.allows
    assert (comment.line, comment.column, comment.body) == (1, 1, "rename -- reason")
    assert sql[comment.start : comment.end] == "-- safemigrate: allow rename -- reason"
    assert parsed.steps[0].options.no_retry


def test_is_allow_comment() -> None:
    assert is_allow_comment("-- safemigrate: allow rename -- x")
    assert is_allow_comment("--safemigrate:allow rename")
    assert not is_allow_comment("-- safemigrate: no-retry")
    assert not is_allow_comment("-- safemigrate: allowance")
    assert not is_allow_comment("-- allow rename")
