"""A UNIQUE / PRIMARY KEY recipe's index is its own only when its record proves it.

Issue 21 review D1: the recipe records its index as ``intended`` before CREATE UNIQUE INDEX
CONCURRENTLY (no transaction can hold both) and took any unattached index of that name as its
own on the next attempt; a user's index created under that name between two attempts (during
the lock-timeout backoff, or after a kill -9) was attached as the constraint, or dropped when
the attach failed. PostgreSQL's ChooseRelationName (src/backend/commands/indexcmds.c) gives
the plain statement the next free name instead: so must the recipe, leaving the user's index
as it was.

Issue 21 review D8: a recipe killed between its build and its attach, then finished by hand
(``ADD CONSTRAINT ... USING INDEX`` of the recorded index): the rerun counts the step done
instead of building a second index and a second UNIQUE constraint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import (
    Spawn,
    backends,
    by_kind,
    terminate_runner_backends,
    wait_for_lock_wait,
    wait_until,
)
from tests.faults.recipe_stages import JOURNAL, RUNNER_ENV, before_closing_transaction, killed_at
from tests.faults.test_recipe_ownership import RETRY_ENV, TABLES
from tests.fixtures_db import ConnectFactory
from tests.support.runner import invalid_indexes, journal_rows, run, up_args, write_migrations
from tests.support.schemas import constraint_names
from tests.support.tables import all_rows

#: The backoff leaves the test time to create its index between the two attempts.
BACKOFF_ENV = {
    **RETRY_ENV,
    "SAFEMIGRATE_BACKOFF_INITIAL": "3s",
    "SAFEMIGRATE_BACKOFF_MAX": "3s",
}

SETUP = TABLES + "UPDATE orders SET note = 'n' || id;\n"

#: A user's index that takes the recipe's first-choice name orders_note_key.
USERS = {
    "unique-on-another-column": "CREATE UNIQUE INDEX orders_note_key ON orders (amount)",
    # The attach fails on it (not unique): the clean-up used to drop it.
    "plain-on-the-same-column": "CREATE INDEX orders_note_key ON orders (note)",
    # Exactly the recipe's own definition under the recorded name, valid: taken as the
    # recipe's (review21c F6: the backend of a killed run finishes its build by itself, and
    # that index must not be left behind next to a second one). The accepted trade-off.
    "same-definition": "CREATE UNIQUE INDEX orders_note_key ON orders (note)",
}


def _index(dsn: str, name: str) -> tuple[Any, ...] | None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(
            "SELECT c.oid::bigint, pg_get_indexdef(c.oid), i.indisvalid, "
            "EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid) "
            "FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = %s",
            [name],
        ).fetchone()


def _unique_constraints(dsn: str) -> list[tuple[Any, ...]]:
    return all_rows(
        dsn,
        "SELECT conname::text, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = 'orders'::regclass AND contype = 'u' ORDER BY 1",
    )


@pytest.mark.parametrize("interruption", ["retry", "kill-9"])
@pytest.mark.parametrize("users", sorted(USERS))
def test_issue_21_review_d1_an_index_taking_the_intended_name_between_attempts_is_left_alone(
    users: str,
    interruption: str,
    spawn: Spawn,
    connect: ConnectFactory,
    db_dsn: str,
    tmp_path: Path,
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_setup.sql": SETUP, "0002_change.sql": "ALTER TABLE orders ADD UNIQUE (note);\n"},
    )
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn, "--target", "1").exit_code == 0
    # The first attempt's CREATE UNIQUE INDEX CONCURRENTLY times out behind this lock, after
    # the record names orders_note_key as intended.
    holder = connect(autocommit=False)
    holder.execute("LOCK TABLE orders IN SHARE UPDATE EXCLUSIVE MODE")
    runner = spawn(
        "up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json", env=BACKOFF_ENV
    )
    runner.wait_for_event(lambda e: e["event"] == "attempt_failed" and e["sqlstate"] == "55P03")
    watch = connect()
    if interruption == "kill-9":
        runner.kill()
        terminate_runner_backends(watch)
    recorded = watch.execute(f"SELECT kind, name, state FROM {JOURNAL}_recipes ORDER BY 1")
    assert ("index", "orders_note_key", "intended") in recorded.fetchall()
    holder.execute(USERS[users])
    holder.commit()
    before = _index(db_dsn, "orders_note_key")
    assert before is not None

    if interruption == "retry":
        assert runner.wait() == 0, runner.output
        assert len(by_kind(runner.events(), "attempt_started")) >= 2
    else:
        rerun = run("up", "--dir", str(migrations), "--dsn", db_dsn)
        assert rerun.exit_code == 0, rerun.output

    if users == "same-definition":
        # Indistinguishable from the recipe's own finished build: attached, nothing doubled.
        after = _index(db_dsn, "orders_note_key")
        assert after is not None and after[:3] == before[:3] and after[3]
        assert _unique_constraints(db_dsn) == [("orders_note_key", "UNIQUE (note)")]
        assert invalid_indexes(db_dsn) == []
        assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "applied")]
        return
    # The user's index is exactly as it was, attached to nothing; the recipe took the next
    # name, as the plain statement run now would.
    assert _index(db_dsn, "orders_note_key") == before
    expected = [("orders_note_key1", "UNIQUE (note)")]
    assert [c for c in _unique_constraints(db_dsn) if c[1] == "UNIQUE (note)"] == expected
    assert invalid_indexes(db_dsn) == []
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "applied")]


def _killed_before_attach(
    spawn: Spawn, connect: ConnectFactory, db_dsn: str, migrations: Path
) -> psycopg.Connection[Any]:
    """``up`` killed (-9) once its index is built and recorded, before the closing
    transaction. Returns a connection to look with."""
    return killed_at(spawn, connect, before_closing_transaction(True), *up_args(migrations, db_dsn))


@pytest.mark.parametrize("how", ["no-rewrite-directive", "safe-rewrites-off"])
def test_issue_21_review_d10_a_started_recipe_run_as_written_is_refused_naming_the_recipe(
    how: str, spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    change = "ALTER TABLE orders ADD UNIQUE (note);\n"
    migrations = write_migrations(
        tmp_path / "m", {"0001_setup.sql": SETUP, "0002_change.sql": change}
    )
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn, "--target", "1").exit_code == 0
    watch = _killed_before_attach(spawn, connect, db_dsn, migrations)
    recorded = f"SELECT kind, name, state FROM {JOURNAL}_recipes ORDER BY 1"
    before = watch.execute(recorded).fetchall()
    assert ("index", "orders_note_key", "created") in before

    args = ["up", "--dir", str(migrations), "--dsn", db_dsn, "--lint-gate", "warn"]
    if how == "no-rewrite-directive":
        (migrations / "0002_change.sql").write_text("-- safemigrate: no-rewrite\n" + change)
    else:
        args += ["--safe-rewrites", "off"]
    refused = run(*args)
    assert refused.exit_code == 1, refused.output
    assert "started this step as its recipe (ADD UNIQUE" in refused.output
    assert "index orders_note_key" in refused.output
    assert "in batches" not in refused.output and "batch-size" not in refused.output
    assert "remove the no-rewrite directive" in refused.output
    # Nothing ran: the record, the index and the started row are as the killed run left them.
    assert watch.execute(recorded).fetchall() == before
    assert _unique_constraints(db_dsn) == []
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "started")]

    (migrations / "0002_change.sql").write_text(change)
    finished = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert finished.exit_code == 0, finished.output
    assert _unique_constraints(db_dsn) == [("orders_note_key", "UNIQUE (note)")]


@pytest.mark.parametrize("kind", ["unique", "primary_key"])
def test_issue_21_review_d8_a_recipe_finished_by_hand_counts_as_done(
    kind: str,
    spawn: Spawn,
    connect: ConnectFactory,
    db_dsn: str,
    tmp_path: Path,
) -> None:
    change, name, clause = {
        "unique": ("ADD UNIQUE (note)", "orders_note_key", "UNIQUE"),
        "primary_key": ("ADD PRIMARY KEY (id)", "orders_pkey", "PRIMARY KEY"),
    }[kind]
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_setup.sql": SETUP, "0002_change.sql": f"ALTER TABLE orders {change};\n"},
    )
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn, "--target", "1").exit_code == 0
    watch = _killed_before_attach(spawn, connect, db_dsn, migrations)
    recorded = watch.execute(f"SELECT kind, name, state FROM {JOURNAL}_recipes ORDER BY 1")
    assert ("index", name, "created") in recorded.fetchall()
    # A DBA finishes the recipe by hand.
    watch.execute("SET lock_timeout = '10s'")
    if kind == "primary_key":
        watch.execute("ALTER TABLE orders ALTER COLUMN id SET NOT NULL")
    watch.execute(f"ALTER TABLE orders ADD CONSTRAINT {name} {clause} USING INDEX {name}")
    names_before = constraint_names(db_dsn)

    rerun = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert rerun.exit_code == 0, rerun.output
    assert f"build index {name}1" not in rerun.output
    # One constraint, on the index the recipe built; its helper checks (primary key) are gone.
    contype = "p" if kind == "primary_key" else "u"
    keys = watch.execute(
        "SELECT conname::text FROM pg_constraint WHERE conrelid = 'orders'::regclass "
        "AND contype = %s",
        [contype],
    ).fetchall()
    assert keys == [(name,)]
    assert [n for n in constraint_names(db_dsn) if "safemigrate" in n] == []
    assert {n for n in names_before if "safemigrate" not in n} == set(constraint_names(db_dsn))
    assert invalid_indexes(db_dsn) == []
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "applied")]
    assert watch.execute(f"SELECT count(*) FROM {JOURNAL}_recipes").fetchone() == (0,)


@pytest.mark.parametrize("rerun_at", ["after-the-build", "during-the-build"])
def test_review21c_f6_the_index_a_killed_runs_backend_finishes_is_the_recipes_own(
    rerun_at: str, spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    """kill -9 of the client during a UNIQUE recipe's CONCURRENTLY build: its backend goes on
    and finishes the build (VALID, the recorded name and definition). Before, the rerun took
    that index for someone else's and built ``orders_note_key1``, leaving a second valid
    unique index behind; now it attaches the one the record names, and a rerun started while
    the build still runs waits for it (behind the run lock the dead client's backend holds)."""
    migrations = write_migrations(
        tmp_path / "m",
        {"0001_setup.sql": SETUP, "0002_change.sql": "ALTER TABLE orders ADD UNIQUE (note);\n"},
    )
    where = ("--dir", str(migrations), "--dsn", db_dsn)
    assert run("up", *where, "--target", "1").exit_code == 0
    # An old snapshot: the build waits for it before it can mark the index valid.
    old = connect()
    old.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    old.execute("SELECT 1").fetchall()
    watch = connect()
    runner = spawn("up", *where, "--format", "json", env=RUNNER_ENV)
    wait_for_lock_wait(watch, wait_event="virtualxid", timeout=30)
    runner.kill()  # SIGKILL: the client only; its backend goes on with the build
    recorded = watch.execute(f"SELECT kind, name, state FROM {JOURNAL}_recipes ORDER BY 1")
    assert ("index", "orders_note_key", "intended") in recorded.fetchall()
    if rerun_at == "during-the-build":
        rerun = spawn("up", *where, "--wait-for-lock", "60s", env=RUNNER_ENV)
        old.execute("COMMIT")
        assert rerun.wait() == 0, rerun.output
    else:
        old.execute("COMMIT")
        wait_until(lambda: not backends(watch), timeout=30)
        built = _index(db_dsn, "orders_note_key")
        assert built is not None and built[2] and not built[3]  # valid, attached to nothing
        result = run("up", *where, env=RUNNER_ENV)
        assert result.exit_code == 0, result.output
        assert "orders_note_key1" not in result.output
    index = _index(db_dsn, "orders_note_key")
    assert index is not None and index[2] and index[3]
    assert _unique_constraints(db_dsn) == [("orders_note_key", "UNIQUE (note)")]
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        names = conn.execute(
            "SELECT indexrelid::regclass::text FROM pg_index "
            "WHERE indrelid = 'orders'::regclass ORDER BY 1"
        ).fetchall()
    assert ("orders_note_key1",) not in names
    assert invalid_indexes(db_dsn) == []
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "applied")]
