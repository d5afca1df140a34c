"""``plan`` judges each file after the directory's earlier files, as ``check`` does (issue 13:
keep the two in step)."""

from __future__ import annotations

from pathlib import Path

from safemigrate import api
from safemigrate.settings.config import Settings

from .support import write


def test_plan_findings_follow_the_history_like_check(tmp_path: Path) -> None:
    write(tmp_path, "0001_accounts.sql", "CREATE TABLE accounts (id bigint, email text NOT NULL);")
    write(
        tmp_path,
        "0002_change.sql",
        "ALTER TABLE accounts ALTER COLUMN email SET NOT NULL;\n"
        "ALTER TABLE accounts ALTER COLUMN id TYPE int;\n",
    )
    settings = Settings(dir=tmp_path, safe_rewrites="off")
    checked = [(Path(f.file).name, f.line, f.rule) for f in api.check(settings).findings]
    planned = [
        (Path(f.file).name, f.line, f.rule)
        for step in api.plan(settings).steps
        for f in step.findings
    ]
    # The restated NOT NULL is nothing; the bigint -> int narrowing rewrites.
    assert checked == [("0002_change.sql", 2, "column-type-change")]
    assert planned == checked
