"""A constraint recipe adopts only what it recorded as its own, and drops nothing else.

Issue 21 item 1: a resumed recipe (a lock-timeout retry, a pre-check wait, a reconnect, a rerun
after kill -9) used to look for PostgreSQL's first name candidate and take over a user's object
of that name: a NOT VALID ``t_a_check`` validated instead of the author's CHECK, dropped by the
clean-up when VALIDATE failed, a partial ``users_email_key`` dropped. Here the user's object of
that name exists before the migration; PostgreSQL's ChooseConstraintName / ChooseRelationName
(src/backend/catalog/pg_constraint.c, src/backend/commands/indexcmds.c) then give the plain
statement the next numbered name, and the recipe must do the same whatever interrupts it, leave
the user's object exactly as it was, and end with psql's schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import (
    NO_PRECHECK,
    Runner,
    Spawn,
    by_kind,
)
from tests.faults.recipe_stages import (
    JOURNAL,
    before_closing_transaction,
    during_build,
    killed_at,
)
from tests.fixtures_db import ConnectFactory
from tests.support.runner import (
    invalid_indexes,
    journal_rows,
    run,
    up_args,
    write_migrations,
)
from tests.support.schemas import assert_schema_psql_gives, constraint_names
from tests.support.tables import all_rows

#: The first part queues behind the test's lock and times out quickly: the second attempt
#: resumes the recipe.
RETRY_ENV = {**NO_PRECHECK, "SAFEMIGRATE_LOCK_TIMEOUT": "200ms"}


@dataclass(frozen=True)
class Case:
    #: The tables, their rows and the user's object with PostgreSQL's first-choice name.
    setup: str
    #: The plain statement the runner applies as its recipe.
    change: str
    #: The user's objects (constraints and indexes) that must stay exactly as they were.
    users: tuple[str, ...]
    #: The name PostgreSQL gives the plain statement's constraint.
    expected: str


ROWS = "INSERT INTO orders (id, customer_id, amount, note) SELECT g, 1 + g % 10, g, 'n' " + (
    "FROM generate_series(1, 500) g;\n"
)
TABLES = (
    "CREATE TABLE customers (id int PRIMARY KEY);\n"
    "CREATE TABLE legacy_customers (id int PRIMARY KEY);\n"
    "INSERT INTO customers SELECT generate_series(1, 10);\n"
    "INSERT INTO legacy_customers SELECT generate_series(1, 10);\n"
    "CREATE TABLE orders (id int, customer_id int, amount int, note text);\n" + ROWS
)

CASES = {
    # The issue's scenario: the user's NOT VALID CHECK has the first candidate's name.
    "check": Case(
        TABLES + "ALTER TABLE orders ADD CONSTRAINT orders_amount_check "
        "CHECK (amount > 0) NOT VALID;\n",
        "ALTER TABLE orders ADD CHECK (amount < 100000)",
        ("orders_amount_check",),
        "orders_amount_check1",
    ),
    "foreign_key": Case(
        TABLES + "ALTER TABLE orders ADD CONSTRAINT orders_customer_id_fkey "
        "FOREIGN KEY (customer_id) REFERENCES legacy_customers (id) NOT VALID;\n",
        "ALTER TABLE orders ADD FOREIGN KEY (customer_id) REFERENCES customers (id)",
        ("orders_customer_id_fkey",),
        "orders_customer_id_fkey1",
    ),
    # The helper check's first-choice name is taken by a user's NOT VALID check.
    "not_null": Case(
        TABLES + "ALTER TABLE orders ADD CONSTRAINT orders_note_not_null_safemigrate "
        "CHECK (note <> '') NOT VALID;\n",
        "ALTER TABLE orders ALTER COLUMN note SET NOT NULL",
        ("orders_note_not_null_safemigrate",),
        "",
    ),
    # The issue's UNIQUE scenario: an existing partial index users_email_key.
    "unique": Case(
        TABLES + "CREATE UNIQUE INDEX orders_note_key ON orders (note) WHERE id < 0;\n"
        "UPDATE orders SET note = 'n' || id;\n",
        "ALTER TABLE orders ADD UNIQUE (note)",
        ("orders_note_key",),
        "orders_note_key1",
    ),
    # A user's index called orders_pkey, and a user's check with the helper's first name.
    "primary_key": Case(
        TABLES + "CREATE INDEX orders_pkey ON orders (amount);\n"
        "ALTER TABLE orders ADD CONSTRAINT orders_id_not_null_safemigrate "
        "CHECK (id > 0) NOT VALID;\n",
        "ALTER TABLE orders ADD PRIMARY KEY (id)",
        ("orders_pkey", "orders_id_not_null_safemigrate"),
        "orders_pkey1",
    ),
}


def user_objects(dsn: str, names: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """Each named object as the catalog shows it: its definition and validity."""
    return all_rows(
        dsn,
        "SELECT conname::text, pg_get_constraintdef(oid), convalidated, oid::bigint "
        "FROM pg_constraint WHERE conname = ANY(%s) UNION ALL "
        "SELECT c.relname::text, pg_get_indexdef(c.oid), i.indisvalid, c.oid::bigint "
        "FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = ANY(%s) "
        "ORDER BY 1",
        [list(names), list(names)],
    )


def _migrations(tmp_path: Path, case: Case) -> Path:
    return write_migrations(
        tmp_path / "m", {"0001_setup.sql": case.setup, "0002_change.sql": case.change + ";\n"}
    )


def _set_up_applied(migrations: Path, db_dsn: str, case: Case) -> list[tuple[Any, ...]]:
    """0001 (the case's set-up) applied alone; the user's objects as it left them."""
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn, "--target", "1").exit_code == 0
    return user_objects(db_dsn, case.users)


def _retried_up(spawn: Spawn, connect: ConnectFactory, db_dsn: str, migrations: Path) -> Runner:
    """``up`` whose recipe's first attempt times out behind the test's lock and whose second
    resumes: every recipe's first part (ADD ... NOT VALID, CREATE INDEX CONCURRENTLY)
    conflicts with SHARE UPDATE EXCLUSIVE. Returns the finished runner."""
    holder = connect(autocommit=False)
    holder.execute("LOCK TABLE orders IN SHARE UPDATE EXCLUSIVE MODE")
    runner = spawn(
        "up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json", env=RETRY_ENV
    )
    runner.wait_for_event(lambda e: e["event"] == "attempt_failed" and e["sqlstate"] == "55P03")
    holder.rollback()
    runner.wait()
    return runner


@pytest.mark.parametrize("name", sorted(CASES))
def test_issue_21_item_1_a_retried_recipe_takes_the_next_name_and_leaves_the_users_object(
    name: str,
    spawn: Spawn,
    connect: ConnectFactory,
    db_dsn: str,
    reference_dsn: str,
    tmp_path: Path,
) -> None:
    case = CASES[name]
    migrations = _migrations(tmp_path, case)
    before = _set_up_applied(migrations, db_dsn, case)
    assert len(before) == len(case.users)
    runner = _retried_up(spawn, connect, db_dsn, migrations)
    assert runner.wait() == 0, runner.output
    assert len(by_kind(runner.events(), "attempt_started")) >= 2

    assert user_objects(db_dsn, case.users) == before
    if case.expected:
        assert case.expected in constraint_names(db_dsn)
    assert_schema_psql_gives(db_dsn, reference_dsn, migrations)
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "applied")]


@pytest.mark.parametrize("name", ["check", "foreign_key", "not_null", "primary_key"])
def test_issue_21_item_1_a_failed_validate_drops_only_the_recipes_own_constraint(
    name: str, spawn: Spawn, connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    case = CASES[name]
    breaking = {
        "check": "UPDATE orders SET amount = 200000 WHERE id = 7",
        # Allowed by the user's NOT VALID foreign key, refused by the author's.
        "foreign_key": "INSERT INTO legacy_customers VALUES (99);\n"
        "UPDATE orders SET customer_id = 99 WHERE id = 7",
        "not_null": "UPDATE orders SET note = NULL WHERE id = 7",
        "primary_key": "UPDATE orders SET id = NULL WHERE id = 7",
    }[name]
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_setup.sql": case.setup + breaking + ";\n",
            "0002_change.sql": case.change + ";\n",
        },
    )
    before = _set_up_applied(migrations, db_dsn, case)
    names_before = constraint_names(db_dsn)
    runner = _retried_up(spawn, connect, db_dsn, migrations)
    assert runner.wait() == 1, runner.output
    assert "is violated by some row" in runner.output or "violates" in runner.output
    # The user's objects are untouched; what the recipe made is gone.
    assert user_objects(db_dsn, case.users) == before
    assert constraint_names(db_dsn) == names_before
    assert invalid_indexes(db_dsn) == []
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "started")]


@dataclass(frozen=True)
class Kill:
    case: str
    build: bool
    #: Where the runner is stopped: the closing transaction, or inside the index build.
    during_build: bool = False


KILLS = {
    "check-before-validate": Kill("check", False),
    "foreign_key-before-validate": Kill("foreign_key", False),
    "not_null-before-set": Kill("not_null", False),
    "unique-during-build": Kill("unique", True, during_build=True),
    "unique-before-attach": Kill("unique", True),
    "primary_key-during-build": Kill("primary_key", True, during_build=True),
    "primary_key-before-attach": Kill("primary_key", True),
}


@pytest.mark.parametrize("kill", sorted(KILLS))
def test_issue_21_item_1_kill_9_then_rerun_resumes_its_own_objects_not_the_users(
    kill: str,
    spawn: Spawn,
    connect: ConnectFactory,
    db_dsn: str,
    reference_dsn: str,
    tmp_path: Path,
) -> None:
    spec = KILLS[kill]
    case = CASES[spec.case]
    migrations = _migrations(tmp_path, case)
    before = _set_up_applied(migrations, db_dsn, case)
    staging = during_build if spec.during_build else before_closing_transaction(spec.build)
    watch = killed_at(spawn, connect, staging, *up_args(migrations, db_dsn))
    assert (2, 0, "started") in journal_rows(db_dsn)
    recorded = watch.execute(f"SELECT kind, name FROM {JOURNAL}_recipes ORDER BY 1, 2").fetchall()
    assert ("step", "") in recorded
    if case.expected:
        assert ("index" if spec.build else "constraint", case.expected) in recorded

    resumed = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert resumed.exit_code == 0, resumed.output
    assert user_objects(db_dsn, case.users) == before
    assert_schema_psql_gives(db_dsn, reference_dsn, migrations)
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "applied")]
    # The record goes with the applied row.
    assert watch.execute(f"SELECT count(*) FROM {JOURNAL}_recipes").fetchone() == (0,)


def test_an_edited_started_recipe_drops_what_its_earlier_text_made_then_runs_the_new_one(
    spawn: Spawn,
    connect: ConnectFactory,
    db_dsn: str,
    reference_dsn: str,
    tmp_path: Path,
) -> None:
    case = CASES["check"]
    migrations = _migrations(tmp_path, case)
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn, "--target", "1").exit_code == 0
    staging = before_closing_transaction(False)
    killed_at(spawn, connect, staging, *up_args(migrations, db_dsn, json=False))
    assert "orders_amount_check1" in constraint_names(db_dsn)
    # Not applied, so it may be edited: the NOT VALID check of the old text is not the new
    # text's constraint.
    (migrations / "0002_change.sql").write_text("ALTER TABLE orders ADD CHECK (amount < 50000);\n")
    resumed = run("up", "--dir", str(migrations), "--dsn", db_dsn, "--format", "json")
    assert resumed.exit_code == 0, resumed.output
    parts = [e["part"] for e in resumed.events() if e["event"] == "recipe_part"]
    assert parts[0] == "drop orders_amount_check1 (made by an earlier text of this step)"
    assert_schema_psql_gives(db_dsn, reference_dsn, migrations)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conname = 'orders_amount_check1'"
        ).fetchone()
    assert row == ("CHECK ((amount < 50000))",)


def test_a_recipe_started_by_a_release_without_the_record_is_refused_not_adopted(
    connect: ConnectFactory, db_dsn: str, tmp_path: Path
) -> None:
    case = CASES["check"]
    migrations = _migrations(tmp_path, case)
    assert run("up", "--dir", str(migrations), "--dsn", db_dsn, "--target", "1").exit_code == 0
    # What an earlier release left: its started row and its NOT VALID constraint, no record.
    conn = connect()
    conn.execute(
        "ALTER TABLE orders ADD CONSTRAINT orders_amount_check1 CHECK (amount < 100000) NOT VALID"
    )
    conn.execute(
        f"INSERT INTO {JOURNAL} (version, name, step, checksum, state) "
        "VALUES (2, 'change', 0, 'x', 'started')"
    )
    before = user_objects(db_dsn, ("orders_amount_check", "orders_amount_check1"))
    refused = run("up", "--dir", str(migrations), "--dsn", db_dsn)
    assert refused.exit_code == 1, refused.output
    assert (
        "0002_change.sql:1 (step 1): an earlier run started this constraint recipe but left no "
        "record of what it created"
    ) in refused.stderr
    assert "delete the journal's 'started' row (version 2, step 0)" in refused.stderr
    assert user_objects(db_dsn, ("orders_amount_check", "orders_amount_check1")) == before


def test_issue_21_item_1_the_pre_check_wait_alone_adopts_nothing(
    spawn: Spawn,
    connect: ConnectFactory,
    db_dsn: str,
    reference_dsn: str,
    tmp_path: Path,
) -> None:
    """The issue's run as written: an application transaction reads the table while ``up``
    runs with the default pre-check, which waits for it before the first attempt."""
    case = CASES["check"]
    migrations = _migrations(tmp_path, case)
    before = _set_up_applied(migrations, db_dsn, case)
    reader = connect(autocommit=False)
    reader.execute("SELECT count(*) FROM orders")
    runner = spawn(*up_args(migrations, db_dsn), env={"SAFEMIGRATE_LOCK_TIMEOUT": "200ms"})
    runner.wait_for_event(lambda e: e["event"] in ("attempt_failed", "waiting_for_holders"))
    reader.rollback()
    assert runner.wait() == 0, runner.output
    assert user_objects(db_dsn, case.users) == before
    assert "orders_amount_check1" in constraint_names(db_dsn)
    assert_schema_psql_gives(db_dsn, reference_dsn, migrations)
