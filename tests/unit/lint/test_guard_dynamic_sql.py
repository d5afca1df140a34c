"""The guard's refusal of dynamic SQL it can read (a DO block's ``EXECUTE 'SET LOCAL lock' ||
'_timeout = 0'``) holds whatever lint_gate says (issue 21 review21g G3): the text names no
guarded word, so with the gate off the files were not linted and the block ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.planning import gate
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import pending_steps
from safemigrate.planning.timeout_guard import refuse_unguarding
from safemigrate.settings.config import Settings


@pytest.mark.parametrize(
    ("body", "setting"),
    [
        ("EXECUTE 'SET LOCAL lock' || '_timeout = 0'", "lock_timeout"),
        ("EXECUTE 'SET LOCAL statement' || '_timeout = 0'; PERFORM pg_sleep(3)", "statement"),
        ("EXECUTE format('SET LOCAL %s = 0', 'lock' || '_timeout')", "lock_timeout"),
    ],
)
def test_an_execute_of_a_built_text_is_refused_under_every_gate(
    tmp_path: Path, body: str, setting: str
) -> None:
    (tmp_path / "0001_a.sql").write_text(
        f"DO $$ BEGIN {body}; END $$;\nALTER TABLE t ADD COLUMN b int;\n", encoding="utf-8"
    )
    planned = pending_steps(load_migrations(tmp_path), [])
    assert gate.may_trip_guard(planned)  # linted for the guard even with lint_gate = "off"
    for mode in ("error", "warn", "off"):
        with pytest.raises(MigrationFileError, match=rf"0001_a\.sql:1: refused: .*{setting}"):
            refuse_unguarding(planned, Settings(dir=tmp_path, lint_gate=mode))


def test_an_execute_of_harmless_text_is_linted_and_passes(tmp_path: Path) -> None:
    (tmp_path / "0001_a.sql").write_text(
        "DO $$ BEGIN EXECUTE 'SELECT ' || '1'; END $$;\n", encoding="utf-8"
    )
    planned = pending_steps(load_migrations(tmp_path), [])
    assert gate.may_trip_guard(planned)
    refuse_unguarding(planned, Settings(dir=tmp_path, lint_gate="off"))
