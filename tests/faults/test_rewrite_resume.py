"""kill -9 at every boundary between the parts of a constraint recipe, and the run after it.

The runner is stopped deterministically before a given part: a test session holds a lock the
part needs (and, to let the earlier parts through, releases the lock they needed), the runner's
backend is seen waiting for it in pg_locks, and the runner is SIGKILLed. The next run must
resume at the right part and end with psql's schema: no NOT VALID constraint, no helper check,
no invalid index left, the step journaled once as applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import Spawn

# JOURNAL is re-exported for the fault tests that import it from here.
from tests.faults.recipe_stages import JOURNAL as JOURNAL
from tests.faults.recipe_stages import (
    Staging,
    before_closing_transaction,
    before_first_part,
    before_helpers,
    before_validate,
    during_build,
    killed_at,
)
from tests.fixtures_db import ConnectFactory
from tests.support.rewrite_cases import CASES, SETUP
from tests.support.runner import (
    journal_rows,
    run,
    up_args,
    write_migrations,
)
from tests.support.schemas import assert_schema_psql_gives


@dataclass(frozen=True)
class Boundary:
    case: str
    staging: Staging
    #: What the catalog shows after the kill (checked before the resuming run).
    leftover: str


BOUNDARIES = {
    "foreign_key-before-add": Boundary("foreign_key", before_first_part, "nothing"),
    "foreign_key-before-validate": Boundary(
        "foreign_key", before_closing_transaction(False), "not-valid"
    ),
    "check-before-add": Boundary("check", before_first_part, "nothing"),
    "check-before-validate": Boundary("check", before_closing_transaction(False), "not-valid"),
    "not_null-before-helper": Boundary("not_null", before_first_part, "nothing"),
    "not_null-before-validate": Boundary("not_null", before_validate(False), "helper-not-valid"),
    "not_null-before-set": Boundary("not_null", before_closing_transaction(False), "helper-valid"),
    "unique-during-build": Boundary("unique", during_build, "invalid-index"),
    "unique-before-attach": Boundary("unique", before_closing_transaction(True), "valid-index"),
    "primary_key-during-build": Boundary("primary_key", during_build, "invalid-index"),
    "primary_key-before-helper": Boundary("primary_key", before_helpers, "valid-index"),
    "primary_key-before-validate": Boundary(
        "primary_key", before_validate(True), "helper-not-valid"
    ),
    "primary_key-before-attach": Boundary(
        "primary_key", before_closing_transaction(True), "helper-valid"
    ),
}


def _leftover(conn: psycopg.Connection[Any]) -> str:
    cons = conn.execute(
        "SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'orders'::regclass"
    ).fetchall()
    helpers = [c for c in cons if "not_null_safemigrate" in c[0]]
    if helpers:
        return "helper-valid" if helpers[0][1] else "helper-not-valid"
    if cons:
        return "not-valid" if not cons[0][1] else "valid"
    index = conn.execute(
        "SELECT indisvalid FROM pg_index WHERE indrelid = 'orders'::regclass"
    ).fetchone()
    if index is not None:
        return "valid-index" if index[0] else "invalid-index"
    return "nothing"


@pytest.mark.parametrize("boundary", sorted(BOUNDARIES))
def test_kill_9_between_parts_resumes_at_the_right_part(
    boundary: str,
    spawn: Spawn,
    connect: ConnectFactory,
    db_dsn: str,
    reference_dsn: str,
    tmp_path: Path,
) -> None:
    spec = BOUNDARIES[boundary]
    migrations = write_migrations(tmp_path / "m", {"0001_setup.sql": SETUP})
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn).exit_code == 0
    write_migrations(migrations, {"0002_change.sql": CASES[spec.case] + ";\n"})
    watch = killed_at(spawn, connect, spec.staging, *up_args(migrations, db_dsn))
    assert _leftover(watch) == spec.leftover
    assert (2, 0, "started") in journal_rows(db_dsn)

    resumed = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert resumed.exit_code == 0, resumed.output
    assert_schema_psql_gives(db_dsn, reference_dsn, migrations)
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "applied")]
