"""``safemigrate up`` runs a plain ``ALTER COLUMN ... TYPE`` that rewrites as the online type
change (issue 24), through the real command in a process of its own: the happy path ends in
psql's schema (column order aside) with every row intact, with an application writing during
the backfill; kill -9 in the backfill and in the swap, and pg_terminate_backend mid-backfill,
are resumed by a rerun; what the recipe cannot carry is refused before anything runs (exit 7);
``safemigrate abandon`` removes an interrupted change's objects.

Lock behaviour cited: a waiting ``LOCK TABLE ... ACCESS EXCLUSIVE`` queues behind an open
reader's ACCESS SHARE ("Explicit Locking", table-level lock conflicts).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.helpers import terminate_runner_backends, wait_for_lock_wait, wait_until
from tests.fixtures_db import MakeDatabase
from tests.support.online_type import describe
from tests.support.runner import run_process, start_process, up_args

SCHEMA = """
CREATE TABLE plain (id int PRIMARY KEY, qty int NOT NULL DEFAULT 0 CHECK (qty >= 0), note text);
CREATE INDEX plain_qty_idx ON plain (qty);
COMMENT ON COLUMN plain.qty IS 'how many';
INSERT INTO plain SELECT g, g % 100, 'n' || g FROM generate_series(1, 6000) g;
ANALYZE plain;
"""
STATEMENT = "ALTER TABLE plain ALTER COLUMN qty TYPE bigint"
#: Every table judged large (gate_small_table 0): the plain ALTER's finding blocks, so the
#: change runs online. Below gate_small_table it runs as written (tests at the end).
LARGE = ("--gate-small-table", "0")


def _migrations(tmp_path: Path, directives: str = "", statement: str = STATEMENT) -> Path:
    folder = tmp_path / "migrations"
    folder.mkdir(exist_ok=True)
    (folder / "0001_bigint.sql").write_text(f"{directives}{statement};\n")
    return folder


def _prepare(make_database: MakeDatabase, schema: str = SCHEMA) -> tuple[str, dict[str, Any]]:
    """The run's database, and what psql's plain ALTER leaves on another one."""
    online, plain = make_database(), make_database()
    for dsn in (online, plain):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(schema)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(STATEMENT)
    return online, describe(plain, "plain")


class Up:
    """``safemigrate up --format json`` in a process of its own, its events as they come."""

    def __init__(self, folder: Path, dsn: str) -> None:
        self.proc = start_process(*up_args(folder, dsn, *LARGE))
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.events.append(json.loads(line))

    def parts(self) -> list[str]:
        return [str(e["part"]) for e in self.events if e.get("event") == "recipe_part"]

    def batches(self) -> int:
        return sum(1 for e in self.events if e.get("event") == "batch_progress")

    def wait_for_part(self, prefix: str, timeout: float = 30.0) -> None:
        wait_until(
            lambda: any(p.startswith(prefix) for p in self.parts()),
            timeout=timeout,
            what=f"{prefix!r} in {self.parts()}",
        )

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        self._reader.join(timeout=10)

    def wait(self) -> int:
        code = self.proc.wait(timeout=120)
        self._reader.join(timeout=10)
        return code


def _rerun_ends_in(
    folder: Path, dsn: str, expected: dict[str, Any], options: tuple[str, ...] = LARGE
) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        terminate_runner_backends(conn)
    done = run_process(*up_args(folder, dsn, *options))
    assert done.exit_code == 0, done.output
    assert describe(dsn, "plain") == expected
    with psycopg.connect(dsn, autocommit=True) as conn:
        journal = conn.execute("SELECT state FROM safemigrate_history").fetchall()
        left = conn.execute("SELECT count(*) FROM safemigrate_history_type_changes").fetchone()
    assert journal == [("applied",)] and left == (0,)


def test_up_runs_the_change_online_and_ends_in_psqls_schema(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsn, expected = _prepare(make_database)
    done = run_process(*up_args(_migrations(tmp_path), dsn, *LARGE))
    assert done.exit_code == 0, done.output
    phases = [
        str(e["part"]).split(":")[0] for e in done.events() if e.get("event") == "recipe_part"
    ]
    assert phases[0] == "expand" and "backfill" in phases and phases[-1] == "swap", phases
    assert any(e.get("event") == "batch_progress" for e in done.events())
    assert describe(dsn, "plain") == expected


def test_an_application_writing_during_the_backfill_keeps_its_rows(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsn, _ = _prepare(make_database)
    folder = _migrations(tmp_path, "-- safemigrate: batch-size=200 batch-pause=30ms\n")
    up = Up(folder, dsn)
    stop = threading.Event()
    written: list[int] = []
    failures: list[str] = []

    def app() -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            n = 10_000
            while not stop.is_set():
                n += 1
                try:
                    conn.execute("INSERT INTO plain (id, qty, note) VALUES (%s, 7, 'app')", [n])
                    conn.execute("UPDATE plain SET qty = qty + 1 WHERE id = %s", [n - 5000])
                    written.append(n)
                except psycopg.Error as error:
                    failures.append(str(error))
                time.sleep(0.005)

    writer = threading.Thread(target=app)
    writer.start()
    try:
        assert up.wait() == 0, up.events[-3:]
    finally:
        stop.set()
        writer.join(timeout=30)
    assert not failures and written
    with psycopg.connect(dsn, autocommit=True) as conn:
        kind = conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'plain'::regclass AND attname = 'qty'"
        ).fetchone()
        rows = conn.execute("SELECT count(*) FROM plain WHERE id > 10000").fetchone()
        updated = conn.execute(
            "SELECT sum(qty) FROM plain WHERE id BETWEEN 5001 AND 6000"
        ).fetchone()
    assert kind == ("bigint",)
    assert rows == (len(written),)
    # Every UPDATE of the application reached the new column (the sync trigger).
    expected = sum(g % 100 for g in range(5001, 6001)) + sum(
        1 for n in written if 5001 <= n - 5000 <= 6000
    )
    assert updated == (expected,)


def test_kill_9_mid_backfill_then_up_again_ends_in_psqls_schema(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsn, expected = _prepare(make_database)
    folder = _migrations(tmp_path, "-- safemigrate: batch-size=100 batch-pause=50ms\n")
    up = Up(folder, dsn)
    wait_until(lambda: up.batches() >= 1, timeout=30, what="a batch")
    time.sleep(0.5)
    up.kill()
    with psycopg.connect(dsn, autocommit=True) as conn:
        done = conn.execute("SELECT count(*) FROM safemigrate_history_batches").fetchone()
        assert done is not None and 1 <= int(done[0]) < 60
    # The rerun goes on online from the record even where the gate would now let the plain
    # ALTER through (the default gate_small_table): the change is half done.
    _rerun_ends_in(folder, dsn, expected, ())


def test_kill_9_in_the_swap_then_up_again_ends_in_psqls_schema(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsn, expected = _prepare(make_database)
    folder = _migrations(tmp_path, "-- safemigrate: batch-size=500 batch-pause=20ms\n")
    holder = psycopg.connect(dsn)
    up = Up(folder, dsn)
    try:
        up.wait_for_part("backfill")
        # A lock on the sync function only (COMMENT takes SHARE UPDATE EXCLUSIVE on the
        # object, DROP FUNCTION ACCESS EXCLUSIVE: lmgr.c LockDatabaseObject): nothing of the
        # table's, so the rebuild goes on and the swap, holding the table, waits for it.
        holder.execute("COMMENT ON FUNCTION plain_qty_sync_safemigrate() IS 'held'")
        up.wait_for_part("swap", timeout=60)
        with psycopg.connect(dsn, autocommit=True) as watch:
            wait_for_lock_wait(watch, wait_event="object", timeout=30)
            up.kill()
            # Its backend would go on with the swap (sent in one round trip) once the lock
            # is free: gone before the holder lets go.
            terminate_runner_backends(watch)
    finally:
        holder.rollback()
        holder.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        terminate_runner_backends(conn)
        state = conn.execute(
            "SELECT state FROM safemigrate_history_type_changes WHERE kind = 'recipe'"
        ).fetchone()
    assert state == ("rebuilt",)
    _rerun_ends_in(folder, dsn, expected)


def test_a_terminated_backend_mid_backfill_is_resumed_by_the_same_run(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsn, expected = _prepare(make_database)
    folder = _migrations(tmp_path, "-- safemigrate: batch-size=100 batch-pause=50ms\n")
    up = Up(folder, dsn)
    wait_until(lambda: up.batches() >= 1, timeout=30, what="a batch")
    with psycopg.connect(dsn, autocommit=True) as conn:
        terminate_runner_backends(conn)
    # The run reconnects and resumes the change from its record after the committed batches.
    assert up.wait() == 0, up.events[-3:]
    assert any(e.get("event") == "reconnected" for e in up.events)
    assert describe(dsn, "plain") == expected
    _rerun_ends_in(folder, dsn, expected)


def test_a_user_index_with_the_recipes_name_is_never_taken(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsn, expected = _prepare(make_database)
    mine = "CREATE INDEX plain_plain_qty_idx_safemigrate ON plain (note)"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(mine)
    done = run_process(*up_args(_migrations(tmp_path), dsn, *LARGE))
    assert done.exit_code == 0, done.output
    got = describe(dsn, "plain")
    assert (
        "plain_plain_qty_idx_safemigrate",
        mine.replace("ON plain", "ON public.plain").replace("(note)", "USING btree (note)"),
        True,
    ) in got["indexes"]
    got["indexes"] = [i for i in got["indexes"] if i[0] != "plain_plain_qty_idx_safemigrate"]
    assert got == expected


REFUSALS = [
    ("ALTER TABLE plain ADD CONSTRAINT plain_qty_key UNIQUE (qty, id)", "unique"),
    ("CREATE VIEW plain_v AS SELECT id, qty FROM plain", "view or rule"),
    (
        "ALTER TABLE plain DROP CONSTRAINT plain_pkey; ALTER TABLE plain ADD PRIMARY KEY (id, qty)",
        "primary key",
    ),
    (
        "CREATE TABLE ref (n int PRIMARY KEY); INSERT INTO ref SELECT generate_series(0, 99); "
        "ALTER TABLE plain ADD FOREIGN KEY (qty) REFERENCES ref",
        "foreign key",
    ),
    (
        "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END'; "
        "CREATE TRIGGER touch BEFORE UPDATE ON plain FOR EACH ROW EXECUTE FUNCTION touch()",
        "trigger",
    ),
]


@pytest.mark.parametrize(("extra", "kind"), REFUSALS)
def test_what_the_recipe_cannot_carry_is_refused_before_anything_runs(
    make_database: MakeDatabase, tmp_path: Path, extra: str, kind: str
) -> None:
    dsn = make_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCHEMA)
        conn.execute(extra)
    before = describe(dsn, "plain")
    done = run_process(*up_args(_migrations(tmp_path), dsn, *LARGE, json=False))
    assert done.exit_code == 7, done.output
    line = [ln for ln in done.stderr.splitlines() if "refused" in ln]
    assert line and f"({kind})" in line[0] and "nothing was applied" in line[0], done.stderr
    assert "Traceback" not in done.output
    assert describe(dsn, "plain") == before
    with psycopg.connect(dsn, autocommit=True) as conn:
        journal = conn.execute("SELECT to_regclass('safemigrate_history')").fetchone()
    assert journal == (None,)  # refused before the journal was even created


def test_a_narrowing_cast_is_refused_before_anything_runs(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsn = make_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCHEMA)
    folder = _migrations(tmp_path, statement="ALTER TABLE plain ALTER COLUMN qty TYPE smallint")
    done = run_process(*up_args(folder, dsn, *LARGE, json=False))
    assert done.exit_code == 7, done.output
    assert "(narrowing cast)" in done.stderr and "Traceback" not in done.output


def test_a_failed_cast_leaves_it_half_done_until_abandon_removes_it(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsn = make_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCHEMA)
        conn.execute("UPDATE plain SET note = 'bad' WHERE id = 3000")
    before = describe(dsn, "plain")
    folder = _migrations(
        tmp_path,
        "-- safemigrate: batch-size=500\n",
        statement="ALTER TABLE plain ALTER COLUMN note TYPE int USING substr(note, 2)::int",
    )
    done = run_process(*up_args(folder, dsn, *LARGE, json=False))
    assert done.exit_code == 1, done.output
    assert "22P02" in done.stderr and "safemigrate abandon 0001" in done.stderr, done.stderr
    assert "Traceback" not in done.output
    left = run_process("abandon", "0001", "--dir", str(folder), "--dsn", dsn)
    assert left.exit_code == 0, left.output
    assert "abandoned the online type change of public.plain.note" in left.stdout
    assert describe(dsn, "plain") == before
    again = run_process("abandon", "0001", "--dir", str(folder), "--dsn", dsn)
    assert again.exit_code == 2 and "no interrupted online type change" in again.stderr
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("UPDATE plain SET note = 'n3000' WHERE id = 3000")
        journal = conn.execute("SELECT count(*) FROM safemigrate_history").fetchone()
    assert journal == (0,)
    fixed = run_process(*up_args(folder, dsn, *LARGE))
    assert fixed.exit_code == 0, fixed.output


def _as_psql(make_database: MakeDatabase, setup: str, statements: list[str]) -> dict[str, Any]:
    """What psql leaves after ``setup`` and ``statements``, on a database of its own."""
    plain = make_database()
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(setup)
        for statement in statements:
            conn.execute(statement)
    return describe(plain, "plain")


def _ran_as_written(done: Any, dsn: str) -> None:
    assert done.exit_code == 0, done.output
    # No phase of the online type change (a constraint recipe's parts are the UNIQUE's).
    parts = [str(e["part"]) for e in done.events() if e.get("event") == "recipe_part"]
    assert not [p for p in parts if p.split(":")[0] in ("expand", "backfill", "swap")], parts
    with psycopg.connect(dsn, autocommit=True) as conn:
        record = conn.execute("SELECT to_regclass('safemigrate_history_type_changes')").fetchone()
    assert record == (None,)


def test_a_small_tables_primary_key_change_runs_as_written(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    # The gate lets a rewrite of a table below gate_small_table through: the plain ALTER
    # runs, as it did before the online form (which cannot carry a primary key) existed.
    statement = "ALTER TABLE plain ALTER COLUMN id TYPE bigint"
    dsn = make_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCHEMA)
    expected = _as_psql(make_database, SCHEMA, [statement])
    done = run_process(*up_args(_migrations(tmp_path, statement=statement), dsn))
    _ran_as_written(done, dsn)
    assert describe(dsn, "plain") == expected


def test_an_earlier_step_changing_a_small_table_leaves_the_plain_alter_to_run(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    # An earlier pending step adds what the recipe cannot carry (a UNIQUE on the column):
    # on a small table the change runs as written and works, as before.
    unique = "ALTER TABLE plain ADD CONSTRAINT plain_qty_key UNIQUE (qty, id)"
    dsn = make_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCHEMA)
    expected = _as_psql(make_database, SCHEMA, [unique, STATEMENT])
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_unique.sql").write_text(f"{unique};\n")
    (folder / "0002_bigint.sql").write_text(f"{STATEMENT};\n")
    done = run_process(*up_args(folder, dsn))
    _ran_as_written(done, dsn)
    assert describe(dsn, "plain") == expected


def test_what_the_recipe_cannot_carry_runs_as_written_when_the_gate_only_warns(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    # A large table, a UNIQUE on the column: the recipe cannot carry it, so the plain ALTER's
    # finding stays (it names why), and lint_gate = "warn" applies it as written.
    unique = "ALTER TABLE plain ADD CONSTRAINT plain_qty_key UNIQUE (qty, id)"
    dsn = make_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCHEMA)
        conn.execute(unique)
    expected = _as_psql(make_database, SCHEMA, [unique, STATEMENT])
    done = run_process(*up_args(_migrations(tmp_path), dsn, *LARGE, "--lint-gate", "warn"))
    _ran_as_written(done, dsn)
    findings = [
        f
        for e in done.events()
        if e.get("event") == "lint_findings"
        for f in e["findings"]
        if f["rule"] == "column-type-change"
    ]
    assert (
        findings
        and "not run online" in findings[0]["message"]
        and "(unique)" in str(findings[0]["message"])
    ), findings
    assert describe(dsn, "plain") == expected


def test_plan_shows_the_phases_only_where_up_runs_the_change_online(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsn = make_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(SCHEMA)
    folder = _migrations(tmp_path)
    base = ("plan", "--dir", str(folder), "--dsn", dsn)
    online = run_process(*base, *LARGE)
    assert online.exit_code == 0, online.output
    parts = [ln.strip() for ln in online.stdout.splitlines() if ln.strip().startswith("part ")]
    phases = [p.split(": ")[1] for p in parts]
    assert phases == ["expand", "backfill", "rebuild", "rebuild", "rebuild", "swap"], parts
    assert "ACCESS EXCLUSIVE on plain (blocks reads and writes for a moment)" in parts[0]
    assert "ROW EXCLUSIVE on plain" in parts[1] and "would apply" in online.stdout
    # Below gate_small_table, and without a database, up runs it as written: no phases.
    for done in (run_process(*base), run_process("plan", "--dir", str(folder))):
        assert not [ln for ln in done.stdout.splitlines() if ln.strip().startswith("part ")]
    with psycopg.connect(dsn, autocommit=True) as conn:
        journal = conn.execute("SELECT to_regclass('safemigrate_history')").fetchone()
    assert journal == (None,)  # plan writes nothing
