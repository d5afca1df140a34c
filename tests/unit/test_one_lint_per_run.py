"""The gate and the timeout guard judge the run's one lint of the pending files (issue 23):
handed the findings, neither lints the files again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.planning import gate
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import pending_steps
from safemigrate.planning.timeout_guard import refuse_unguarding
from safemigrate.settings.config import Settings

FILES = {
    "0001_t.sql": "CREATE TABLE orders (id int);\nCREATE TABLE customers (id int PRIMARY KEY);\n",
    "0002_fk.sql": "ALTER TABLE orders ADD FOREIGN KEY (id) REFERENCES customers (id);\n",
    "0003_unlock.sql": "SELECT pg_advisory_unlock_all();\n",
}


def test_the_gate_and_the_guard_judge_the_findings_they_are_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "migrations"
    directory.mkdir()
    for name, text in FILES.items():
        (directory / name).write_text(text, encoding="utf-8")
    planned = pending_steps(load_migrations(directory), [])
    settings = replace(Settings(), dir=directory, lint_gate="error")
    findings = gate.lint_pending(planned, settings)

    def lint_again(*_: object, **__: object) -> None:
        raise AssertionError("the pending files were linted again")

    monkeypatch.setattr(gate, "lint_pending", lint_again)
    judged = gate.verdict(planned, settings, findings=findings)
    assert judged.findings and judged.refuses
    with pytest.raises(MigrationFileError, match=r"0003_unlock\.sql:1: refused"):
        refuse_unguarding(planned, settings, findings=findings)
