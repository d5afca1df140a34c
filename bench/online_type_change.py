"""The online column type change (issue 24) beside psql's plain ALTER, in one run.

Scenario, on one throwaway server, each runner on a fresh copy of the same database:

1. ``acct (id int PRIMARY KEY, qty int NOT NULL CHECK (qty >= 0), note text)`` with --rows rows
   (default 1,000,000), an index on ``qty``, ANALYZEd;
2. an application: --clients threads (default 4), each on its own connection, sending back to
   back a primary-key read, an UPDATE of ``qty`` and an INSERT (new keys), every statement
   timed; a failed one is counted, never retried;
3. ``ALTER TABLE acct ALTER COLUMN qty TYPE bigint`` run by ``psql -c`` and by ``safemigrate up``
   (the online type change: the gate finds the rewrite blocking, the recipe carries it).

Per runner: the application's slowest statement and p99 while the change ran, its failed
statements, the change's wall time; and whether the schema (column order aside) equals psql's.
Then --trials kill -9 trials: ``up`` killed at a random moment of its run, then ``up`` again,
each ending in psql's schema with every row intact (the rows the application wrote included).

Not the issue's full bar: the recipe does not carry a primary key, identity or foreign key yet,
so the changed column here is an indexed, CHECKed non-key column.

    .venv/bin/python bench/online_type_change.py                 # 1M rows, 3 kill trials
    .venv/bin/python bench/online_type_change.py --quick         # 50k rows, 1 trial

Results in ``bench/results/online_type_change.json`` (``*.quick.json`` with ``--quick``,
``*.ram.json`` with ``--storage ram``: fsync off, which tells a lock's stall from the disk's;
``*.pause.json`` with ``--batch-pause``).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _common as c
import psycopg

STATEMENT = "ALTER TABLE acct ALTER COLUMN qty TYPE bigint"
SCHEMA = """
CREATE TABLE acct (id int PRIMARY KEY, qty int NOT NULL CHECK (qty >= 0), note text);
INSERT INTO acct SELECT g, g % 1000, 'n' || g FROM generate_series(1, {rows}) g;
CREATE INDEX acct_qty_idx ON acct (qty);
ANALYZE acct;
"""
#: The first key the application inserts (above every key of the table).
FIRST_NEW_KEY = 100_000_000


@dataclass
class Seen:
    """What one application client saw: (start, duration s) of each statement, failures."""

    timings: list[tuple[float, float, str]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def _client(dsn: str, index: int, rows: int, stop: threading.Event, seen: Seen) -> None:
    rng = random.Random(1000 + index)
    key = FIRST_NEW_KEY + index * 10_000_000
    with psycopg.connect(dsn, autocommit=True, application_name=f"bench-app-{index}") as conn:
        while not stop.is_set():
            key += 1
            for statement, args in (
                # The result holds no changed column: a prepared one keeps working across
                # the swap (one holding it fails once after psql's ALTER too: plancache.c).
                ("SELECT note FROM acct WHERE id = %s", [rng.randint(1, rows)]),
                ("UPDATE acct SET qty = qty + 1 WHERE id = %s", [rng.randint(1, rows)]),
                ("INSERT INTO acct (id, qty, note) VALUES (%s, 7, 'app')", [key]),
            ):
                began = time.monotonic()
                try:
                    conn.execute(statement, args).close()
                except psycopg.Error as error:
                    seen.failures.append(f"{type(error).__name__}: {error}".splitlines()[0])
                seen.timings.append((began, time.monotonic() - began, statement.split()[0]))
            time.sleep(0.002)


class App:
    """The application's clients, started and stopped around one change."""

    def __init__(self, dsn: str, clients: int, rows: int) -> None:
        self.stop = threading.Event()
        self.seen = [Seen() for _ in range(clients)]
        self.threads = [
            threading.Thread(target=_client, args=(dsn, i, rows, self.stop, s), daemon=True)
            for i, s in enumerate(self.seen)
        ]

    def __enter__(self) -> App:
        for thread in self.threads:
            thread.start()
        time.sleep(0.5)  # connected and warm
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)

    def during(self, begin: float, end: float) -> dict[str, Any]:
        """The statements that started or were running between ``begin`` and ``end``, and the
        five slowest (their kind, and when they began, in seconds after ``begin``)."""
        timed = [
            (d, start, kind)
            for s in self.seen
            for start, d, kind in s.timings
            if start + d >= begin and start <= end
        ]
        durations = [d for d, _start, _kind in timed]
        failures = [f for s in self.seen for f in s.failures]
        return {
            "statements": len(durations),
            "max_ms": round(max(durations, default=0.0) * 1000, 1),
            "p99_ms": round(c.percentile(durations, 99) * 1000, 1) if durations else None,
            "slowest": [
                {"ms": round(d * 1000, 1), "at_s": round(start - begin, 2), "statement": kind}
                for d, start, kind in sorted(timed, reverse=True)[:5]
            ],
            "failed": len(failures),
            "failures": failures[:5],
        }


def describe(dsn: str) -> dict[str, Any]:
    """What psql's ALTER and the online recipe must leave the same, column order aside."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        queries = {
            "columns": "SELECT attname, format_type(atttypid, atttypmod), attnotnull "
            "FROM pg_attribute WHERE attrelid = 'acct'::regclass AND attnum > 0 "
            "AND NOT attisdropped ORDER BY 1",
            "indexes": "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid), "
            "indisvalid FROM pg_index WHERE indrelid = 'acct'::regclass ORDER BY 1",
            "constraints": "SELECT conname, pg_get_constraintdef(oid), convalidated "
            "FROM pg_constraint WHERE conrelid = 'acct'::regclass ORDER BY 1",
            "triggers": "SELECT tgname FROM pg_trigger WHERE tgrelid = 'acct'::regclass",
        }
        return {k: [list(r) for r in conn.execute(q).fetchall()] for k, q in queries.items()}


def rows_of(dsn: str) -> tuple[int, int]:
    """The rows' count and a checksum of every row (the application's included)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*), sum(hashtext(id::text || ':' || qty::text || ':' || "
            "coalesce(note, '')))::bigint FROM acct"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1] or 0)


#: The migration's directive line (--batch-pause), or nothing: the defaults.
DIRECTIVE: list[str] = []


def migrations(into: Path) -> Path:
    folder = into / "migrations"
    folder.mkdir(parents=True, exist_ok=True)
    # The default batch (1000 keys): a row the application updates waits for the batch
    # holding it at most one batch's time.
    text = "".join(f"{line}\n" for line in DIRECTIVE) + f"{STATEMENT};\n"
    (folder / "0001_bigint.sql").write_text(text, encoding="utf-8")
    return folder


#: ``up``'s options besides the defaults: --quick's small table is judged large (else the gate
#: lets its quick rewrite through and up runs it as written).
UP_OPTIONS: list[str] = []


def up_argv(folder: Path, dsn: str) -> list[str]:
    return [
        *c.SAFEMIGRATE, "up", "--dir", str(folder), "--dsn", dsn, "--format", "json", *UP_OPTIONS
    ]  # fmt: skip


def fresh_copy(instance: Any, template: str) -> tuple[str, str]:
    name = c.create_database(instance, template=template)
    return name, instance.dsn(name)


def run_control(instance: Any, template: str, clients: int, rows: int, s: float) -> dict[str, Any]:
    """The application alone for ``s`` seconds: the machine's own noise (its slowest statement
    with no change running), beside which the runners' stalls are read."""
    name, dsn = fresh_copy(instance, template)
    with App(dsn, clients, rows) as app:
        began = time.monotonic()
        time.sleep(s)
        ended = time.monotonic()
    c.drop_database(instance, name)
    return {"wall_s": round(ended - began, 2), **app.during(began, ended)}


def run_psql(instance: Any, template: str, clients: int, rows: int) -> dict[str, Any]:
    name, dsn = fresh_copy(instance, template)
    with App(dsn, clients, rows) as app:
        began = time.monotonic()
        c.run_timed([c.psql_program(), "-X", "-q", "-d", c.url(instance, name), "-c", STATEMENT])
        ended = time.monotonic()
    return {"db": name, "dsn": dsn, "wall_s": round(ended - began, 2), **app.during(began, ended)}


def run_up(instance: Any, template: str, clients: int, rows: int, work: Path) -> dict[str, Any]:
    name, dsn = fresh_copy(instance, template)
    folder = migrations(work / name)
    parts: list[tuple[float, str]] = []
    with App(dsn, clients, rows) as app:
        began = time.monotonic()
        proc = subprocess.Popen(
            up_argv(folder, dsn),
            env=c.child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        lines: list[str] = []
        for line in proc.stdout:
            lines.append(line)
            # Each phase's event as it comes: when each phase began, to place the slowest.
            if line.startswith('{"event":"recipe_part"'):
                parts.append((time.monotonic() - began, str(json.loads(line)["part"])))
        code = proc.wait(timeout=3600)
        ended = time.monotonic()
        stderr = proc.stderr.read() if proc.stderr is not None else ""
    if code != 0:
        # With --format json the error is an event on stdout.
        raise RuntimeError(f"up exited {code}: {stderr[-2000:]}{''.join(lines[-3:])}")
    return {
        "db": name,
        "dsn": dsn,
        "wall_s": round(ended - began, 2),
        "phases": sorted({p.split(":")[0] for _at, p in parts}),
        "phase_starts": [{"at_s": round(at, 2), "part": p[:80]} for at, p in parts],
        **app.during(began, ended),
    }


def kill_trial(
    instance: Any, template: str, clients: int, rows: int, work: Path, up_s: float, seed: int
) -> dict[str, Any]:
    """``up`` killed (SIGKILL) at a random moment of its run, then ``up`` again; the schema and
    every row checked against psql's ALTER applied to the same rows."""
    name, dsn = fresh_copy(instance, template)
    folder = migrations(work / name)
    at = random.Random(seed).uniform(0.05, 0.8) * up_s
    with App(dsn, clients, rows):
        proc = subprocess.Popen(
            up_argv(folder, dsn),
            env=c.child_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(at)
        killed = proc.poll() is None
        proc.kill()
        proc.wait(timeout=30)
        with psycopg.connect(dsn, autocommit=True) as conn:
            # Its backend may still be running the statement it sent: gone before the rerun.
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'safemigrate' AND pid <> pg_backend_pid()"
            )
        again = subprocess.run(
            up_argv(folder, dsn), env=c.child_env(), capture_output=True, text=True, check=False
        )
    got_rows, got_schema = rows_of(dsn), describe(dsn)
    # psql's ALTER on the same rows, in a copy made now.
    with c.admin(instance) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name]
        )
    check, check_dsn = fresh_copy(instance, name)
    with psycopg.connect(check_dsn, autocommit=True) as conn:
        # The copy has what the online run left; psql's side: the original schema with
        # those rows, then the plain ALTER.
        conn.execute("CREATE TABLE acct_rows AS SELECT id, qty, note FROM acct")
        conn.execute("DROP TABLE acct")
        conn.execute(SCHEMA.format(rows=0).replace("ANALYZE acct;", ""))
        conn.execute("INSERT INTO acct SELECT * FROM acct_rows")
        conn.execute("DROP TABLE acct_rows")
        conn.execute(STATEMENT)
    expected, expected_rows = describe(check_dsn), rows_of(check_dsn)
    c.drop_database(instance, check)
    c.drop_database(instance, name)
    return {
        "killed_at_s": round(at, 2),
        "killed_while_running": killed,
        "rerun_exit": again.returncode,
        "schema_equal": got_schema == expected,
        "rows_intact": got_rows == expected_rows,
        "rows": got_rows[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="50k rows, 1 trial")
    parser.add_argument("--storage", default="disk", choices=("disk", "ram"))
    parser.add_argument(
        "--batch-pause", metavar="DUR", help="the backfill's pause between batches (e.g. 20ms)"
    )
    args = parser.parse_args()
    if args.batch_pause:
        # batch-pause applies only with batch-size: the default size, written out.
        DIRECTIVE.append(f"-- safemigrate: batch-size=1000 batch-pause={args.batch_pause}")
    if args.quick:
        args.rows, args.trials = 50_000, 1
        UP_OPTIONS.extend(["--gate-small-table", "0"])
    c.sigterm_as_interrupt()
    result: dict[str, Any] = {"rows": args.rows, "clients": args.clients}
    with c.server(args.storage) as instance, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        template = c.create_database(instance, prefix="template")
        with psycopg.connect(instance.dsn(template), autocommit=True) as conn:
            conn.execute(SCHEMA.format(rows=args.rows))
        c.log(f"table of {args.rows} rows made")
        control = run_control(instance, template, args.clients, args.rows, 20.0)
        c.log(f"no change (control, 20 s): app max {control['max_ms']} ms")
        result["control"] = control
        psql = run_psql(instance, template, args.clients, args.rows)
        c.log(f"psql: {psql['wall_s']} s, app max {psql['max_ms']} ms")
        up = run_up(instance, template, args.clients, args.rows, work)
        up["schema_equal_to_psql"] = describe(up["dsn"]) == describe(psql["dsn"])
        c.log(
            f"up: {up['wall_s']} s, app max {up['max_ms']} ms, phases {up['phases']}, "
            f"schema equal to psql's: {up['schema_equal_to_psql']}"
        )
        result["psql"], result["up"] = psql, up
        trials = []
        for n in range(args.trials):
            trial = kill_trial(
                instance, template, args.clients, args.rows, work, up["wall_s"], seed=n
            )
            c.log(f"kill trial {n + 1}: {trial}")
            trials.append(trial)
        result["kill_trials"] = trials
        result["machine"] = c.machine_info(instance)
    suffix = (
        (".quick" if args.quick else "")
        + (".ram" if args.storage == "ram" else "")
        + (".pause" if args.batch_pause else "")
        + ".json"
    )
    c.write_json(c.RESULTS / f"online_type_change{suffix}", result)
    print(
        f"| runner | change wall | app max | app p99 | failed |\n| --- | --- | --- | --- | --- |\n"
        f"| none (control, 20 s) | - | {control['max_ms']} ms | {control['p99_ms']} ms | "
        f"{control['failed']} |\n"
        f"| psql -c | {psql['wall_s']} s | {psql['max_ms']} ms | {psql['p99_ms']} ms | "
        f"{psql['failed']} |\n"
        f"| safemigrate up | {up['wall_s']} s | {up['max_ms']} ms | {up['p99_ms']} ms | "
        f"{up['failed']} |"
    )


if __name__ == "__main__":
    main()
