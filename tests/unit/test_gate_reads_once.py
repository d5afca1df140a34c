"""The lint gate judges the runner's own reading of the pending files (issue 23): the loader's
parse is linted, the files are not parsed again, and the findings are the ones a fresh parse
gives, under any settings."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from safemigrate.core.model import ConcurrentIndexes, SafeRewrites
from safemigrate.lint import walker
from safemigrate.planning import gate
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import PlannedStep, pending_steps
from safemigrate.settings.config import Settings

FILES = {
    "0001_t.sql": "CREATE TABLE t (id bigint PRIMARY KEY, qty int);\n",
    # A candidate of each kind: an index (CONCURRENTLY), a constraint recipe, a lock-cost
    # finding, and a guard finding.
    "0002_index.sql": "CREATE INDEX t_qty ON t (qty);\n",
    "0003_check.sql": "ALTER TABLE t ADD CHECK (qty >= 0);\n",
    "0004_column.sql": "ALTER TABLE t ADD COLUMN r float DEFAULT random();\n",
    "0005_unlock.sql": "SELECT pg_advisory_unlock_all();\n",
}


def _planned(
    directory: Path, concurrent_indexes: ConcurrentIndexes, safe_rewrites: SafeRewrites
) -> list[PlannedStep]:
    migrations = load_migrations(
        directory, concurrent_indexes=concurrent_indexes, safe_rewrites=safe_rewrites
    )
    return pending_steps(migrations, [])


@pytest.mark.parametrize(
    ("concurrent_indexes", "safe_rewrites"), [("rewrite", "rewrite"), ("off", "off")]
)
def test_the_gate_lints_the_runners_reading_with_the_findings_of_a_fresh_parse(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    concurrent_indexes: ConcurrentIndexes,
    safe_rewrites: SafeRewrites,
) -> None:
    directory = tmp_path / "migrations"
    directory.mkdir()
    for name, text in FILES.items():
        (directory / name).write_text(text, encoding="utf-8")
    settings = replace(
        Settings(),
        dir=directory,
        concurrent_indexes=concurrent_indexes,
        safe_rewrites=safe_rewrites,
    )
    planned = _planned(directory, concurrent_indexes, safe_rewrites)
    # The same steps without the loader's reading (a library caller's migrations): parsed.
    unread = [replace(p, migration=replace(p.migration, reading=None)) for p in planned]
    fresh = gate.lint_pending(unread, settings)
    assert {f.rule for f in fresh} >= {"run-lock-release"}

    def parse_again(*_: object, **__: object) -> None:
        raise AssertionError("a pending file was parsed again")

    monkeypatch.setattr(walker, "parse_file", parse_again)
    assert gate.lint_pending(planned, settings) == fresh


def test_a_file_changed_since_it_was_read_is_parsed_again(tmp_path: Path) -> None:
    directory = tmp_path / "migrations"
    directory.mkdir()
    path = directory / "0001_t.sql"
    path.write_text("CREATE TABLE t (id int);\n", encoding="utf-8")
    planned = _planned(directory, "rewrite", "rewrite")
    # The reading is keyed on the text: the linter judges the file as it is now.
    path.write_text("SELECT pg_advisory_unlock_all();\n", encoding="utf-8")
    findings = gate.lint_pending(planned, replace(Settings(), dir=directory))
    assert [f.rule for f in findings] == ["run-lock-release"]
