"""render_text, render_json and render_github."""

from __future__ import annotations

import json
from pathlib import Path

from safemigrate.lint import Finding, LintReport
from safemigrate.lint.render import annotation_path, render_github, render_json, render_text

ERROR = Finding(
    "migrations/0001_a.sql", 3, 1, "table-rewrite", "error", "VACUUM FULL rewrites t", "use VACUUM"
)
WARNING = Finding(
    "migrations/0001_a.sql", 7, 5, "rename", "warning", "renames t: breaks code", "expand"
)
INFO = Finding("migrations/0002_b.sql", 1, 1, "rename", "info", "a note", "nothing to do")
REPORT = LintReport(
    [ERROR, WARNING, INFO], False, ("migrations/0001_a.sql", "migrations/0002_b.sql")
)


def test_to_dict_has_exactly_the_documented_keys() -> None:
    assert ERROR.to_dict() == {
        "file": "migrations/0001_a.sql",
        "line": 3,
        "column": 1,
        "rule": "table-rewrite",
        "severity": "error",
        "message": "VACUUM FULL rewrites t",
        "hint": "use VACUUM",
    }


def test_json_lists_the_findings() -> None:
    data = json.loads(render_json(REPORT))
    assert list(data) == ["findings"]
    assert data["findings"] == [ERROR.to_dict(), WARNING.to_dict(), INFO.to_dict()]


def test_json_of_no_findings() -> None:
    assert json.loads(render_json(LintReport([], False))) == {"findings": []}


def test_github_annotations() -> None:
    assert render_github(REPORT) == [
        "::error file=migrations/0001_a.sql,line=3,col=1,title=table-rewrite::"
        "VACUUM FULL rewrites t (use VACUUM)",
        "::warning file=migrations/0001_a.sql,line=7,col=5,title=rename::"
        "renames t: breaks code (expand)",
        "::notice file=migrations/0002_b.sql,line=1,col=1,title=rename::a note (nothing to do)",
    ]


def test_github_annotations_escape_special_characters() -> None:
    finding = Finding("a,b:c.sql", 1, 1, "rename", "error", "100% sure\nreally", "x")
    [line] = render_github(LintReport([finding], False))
    assert line == "::error file=a%2Cb%3Ac.sql,line=1,col=1,title=rename::100%25 sure%0Areally (x)"


def test_text_groups_by_file() -> None:
    lines = render_text(REPORT, colour=False)
    assert lines[0] == "migrations/0001_a.sql"
    assert lines[1].startswith("  3:1  error    VACUUM FULL rewrites t  [table-rewrite]")
    assert lines[2] == "      hint: use VACUUM"
    assert lines[3].startswith("  7:5  warning  renames t")
    assert lines[5] == ""
    assert lines[6] == "migrations/0002_b.sql"
    assert lines[-1] == "2 files checked: 1 error, 1 warning, 1 note"


def test_text_colour() -> None:
    lines = render_text(REPORT, colour=True)
    assert lines[0] == "\x1b[1mmigrations/0001_a.sql\x1b[0m"
    assert "\x1b[31merror  \x1b[0m" in lines[1]
    assert "\x1b[33mwarning\x1b[0m" in lines[3]
    assert not any("\x1b" in line for line in render_text(REPORT, colour=False))


def test_text_of_no_findings() -> None:
    assert render_text(LintReport([], False, ("a.sql",)), colour=False) == [
        "1 file checked: no findings"
    ]


def test_text_says_when_input_is_invalid() -> None:
    report = LintReport([ERROR], True, ("a.sql",))
    assert render_text(report, colour=False)[-1].endswith(
        "(some input is invalid: safemigrate would refuse it)"
    )


def test_issue_22_item_3_github_annotations_are_relative_to_the_repository(
    tmp_path: Path,
) -> None:
    # GitHub places an annotation only for a path relative to the repository.
    repo = tmp_path / "repo"
    (repo / "migrations").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    absolute = str(repo / "migrations" / "0002.sql")
    roots = [repo, elsewhere]
    assert annotation_path(absolute, elsewhere, roots) == "migrations/0002.sql"
    assert annotation_path("migrations/0002.sql", repo, roots) == "migrations/0002.sql"
    # Relative to the current directory when the workspace does not hold it.
    assert annotation_path("0002.sql", elsewhere, [repo, elsewhere]) == "0002.sql"
    # Outside both: absolute, as it is.
    outside = tmp_path / "other" / "0003.sql"
    assert annotation_path(str(outside), elsewhere, roots) == str(outside)
    finding = Finding(absolute, 4, 1, "rename", "warning", "renames", "hint")
    [line] = render_github(LintReport([finding], False), cwd=elsewhere, roots=roots)
    assert line.startswith("::warning file=migrations/0002.sql,line=4,col=1,")
