"""Constraints added the plain way on a live table: psql runs them as written, safemigrate as
their non-blocking recipes. Both measured in the same run, on fresh copies of one database.

Scenario, per statement and runner:

1. ``orders`` with --rows rows (default 1,000,000) and ``customers`` with 1,000; no constraint
   on ``orders`` yet, an index on ``orders.k`` for the application.
2. An application load: --clients processes (default 4), each on its own connection, issuing a
   read by ``k`` or a single-row update every --period-ms (default 5 ms) on a fixed schedule.
   Response times run from the *scheduled* start, and slots a stuck client could not send count
   with the time they would have waited (coordinated omission corrected, as in stall.py).
3. After --warmup-s the migration (one statement, in a file of its own: the table existed
   before it) is applied with ``psql -f`` or ``safemigrate up``; the load goes on until 1 s
   after it finished.

Statements: ADD FOREIGN KEY, ADD CHECK, SET NOT NULL, ADD UNIQUE, ADD PRIMARY KEY. Reported for
each: the application's max response time and requests over 100 ms during the migration, the
migration's duration, and whether the resulting schema (columns, constraints, indexes as the
catalog shows them) is identical for both runners.

With ``--autovacuum`` (issue 21: a recipe part queued behind a young autovacuum stalled every
client until autovacuum cancelled itself at deadlock_timeout), each trial loads ``orders``
fresh in its own database on a server with ``autovacuum_naptime = 1s``, waits until an
autovacuum worker works on it (autovacuum is switched on for the table once the application
load runs; it holds SHARE UPDATE EXCLUSIVE, which every recipe's write-blocking part conflicts
with), and starts the migration at once; the trial records whether it saw the
autovacuum and how often the server log says ``canceling autovacuum task`` during it.
``--rounds N`` repeats every statement and runner N times, in turn. So that the change meets a
young autovacuum, each runner's first file waits at a gate (an advisory lock the benchmark
holds): the benchmark switches autovacuum on once the runner waits there and opens the gate
when a worker works on the table (cost delay 10 ms, so it lasts a while).

Output: bench/results/rewrites.json and a Markdown table on stdout.

    .venv/bin/python bench/rewrites.py                 # full: 1,000,000 rows
    .venv/bin/python bench/rewrites.py --rows 200000   # smaller and quicker
    .venv/bin/python bench/rewrites.py --autovacuum --rounds 10
    .venv/bin/python bench/rewrites.py --quick         # tiny smoke run
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _common as c

RUNNERS = ("psql", "safemigrate")
STATEMENTS = {
    "foreign_key": "ALTER TABLE orders ADD FOREIGN KEY (customer_id) REFERENCES customers (id)",
    "check": "ALTER TABLE orders ADD CHECK (amount > 0)",
    "not_null": "ALTER TABLE orders ALTER COLUMN note SET NOT NULL",
    "unique": "ALTER TABLE orders ADD UNIQUE (ref)",
    "primary_key": "ALTER TABLE orders ADD PRIMARY KEY (id)",
}
#: What the two runners' schemas are compared on.
SCHEMA_QUERIES = (
    "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
    "WHERE table_name = 'orders' ORDER BY 1",
    "SELECT conname, pg_get_constraintdef(oid), convalidated FROM pg_constraint "
    "WHERE conrelid = 'orders'::regclass ORDER BY 1",
    "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid), indisvalid FROM pg_index "
    "WHERE indrelid = 'orders'::regclass ORDER BY 1",
)


def workload(rows: int, update_share: float) -> c.Workload:
    """A read by ``k`` or a single-row update of ``orders``."""
    return c.Workload(
        read="SELECT amount, note FROM orders WHERE k = %s",
        write="UPDATE orders SET amount = amount + 1 WHERE k = %s",
        keys=rows,
        write_share=update_share,
        seed=2000,
    )


@dataclass
class Trial:
    """One statement applied by one runner under load."""

    statement: str
    runner: str
    t_migration_start: float = 0.0
    t_migration_end: float = 0.0
    exit_code: int | None = None
    stderr_tail: str = ""
    schema: list[list[Any]] = field(default_factory=list)
    #: (scheduled slot, end) of every application request, sent or missed.
    requests: list[tuple[float, float]] = field(default_factory=list)
    #: (when, label) of each recipe part safemigrate reported starting.
    parts: list[tuple[float, str]] = field(default_factory=list)
    round: int = 1
    #: --autovacuum: an autovacuum worker was seen on orders when the migration began, and
    #: the server log's "canceling autovacuum task" lines during the trial.
    autovacuum_seen: bool | None = None
    autovacuum_cancelled: int | None = None
    #: --autovacuum: when an autovacuum worker was last seen holding its lock on orders, and
    #: whether it still held it when the runner's first part (psql: the process) started.
    autovacuum_until: float | None = None
    autovacuum_met: bool | None = None
    #: safemigrate's events by kind (attempts, pre-check back-offs, yields, waits), and the
    #: holders it named (application_name, or the query of a session without one).
    events: dict[str, int] = field(default_factory=dict)
    holders: list[str] = field(default_factory=list)


def runner_argv(runner: str, instance: Any, dbname: str, directory: Path) -> list[str]:
    """The command line that applies the migrations in ``directory`` with ``runner``."""
    dsn = c.url(instance, dbname)
    if runner == "psql":
        return c.psql_session_argv(instance, dbname, sorted(directory.glob("*.sql")))
    return [*c.SAFEMIGRATE, "up", "--dir", str(directory), "--dsn", dsn, "--format", "json"]


def run_trial(
    instance: Any, template: str, statement: str, runner: str, args: argparse.Namespace
) -> Trial:
    """Load + migration on a fresh copy of the template database."""
    import psycopg

    trial = Trial(statement, runner)
    if args.autovacuum:
        # A fresh table of its own: its inserts make autovacuum come for it within seconds.
        dbname = c.create_database(instance, prefix="rewrites")
        load_tables(c.url(instance, dbname), args.rows, vacuum=False)
        log = c.server_log(instance)
        log_from = log.stat().st_size if log.exists() else 0
    else:
        dbname = c.create_database(instance, template, prefix="rewrites")
    workdir = Path(tempfile.mkdtemp(prefix="bench-rewrites-"))
    if args.autovacuum:
        # Both runners wait at a gate first; autovacuum is let in meanwhile, and the gate
        # opens once it works on the table (see _autovacuum_at_the_gate): the change meets a
        # young autovacuum, as in issue 21.
        (workdir / "0001_gate.sql").write_text(
            "-- safemigrate: allow timeout-guard-off -- the test holds the gate past the ceiling\n"
            f"-- safemigrate: lock-timeout=60s\nSELECT pg_advisory_xact_lock({AUTOVACUUM_GATE});\n"
        )
        (workdir / "0002_change.sql").write_text(STATEMENTS[statement] + ";\n")
    else:
        (workdir / "0001_change.sql").write_text(STATEMENTS[statement] + ";\n")
    dsn = c.url(instance, dbname)
    load = c.AppLoad(
        dsn,
        workload(args.rows, args.update_share),
        clients=args.clients,
        period_s=args.period_ms / 1000,
    )
    gate = None
    try:
        if args.autovacuum:
            gate = psycopg.connect(dsn, autocommit=True)
            gate.execute("SELECT pg_advisory_lock(%s)", [AUTOVACUUM_GATE])
        load.start()
        time.sleep(args.warmup_s)
        watching = threading.Event()
        watcher: threading.Thread | None = None
        trial.t_migration_start = time.monotonic()
        stderr_file = workdir / "stderr.txt"
        with stderr_file.open("wb") as err:
            proc = subprocess.Popen(
                runner_argv(runner, instance, dbname, workdir),
                cwd=workdir,
                env=c.child_env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
            )
        # The only reader of stdout: events are timed as they arrive.
        reader = threading.Thread(target=_read_parts, args=(proc, trial), daemon=True)
        reader.start()
        opened = None
        if args.autovacuum:
            assert gate is not None
            opened = _autovacuum_at_the_gate(dsn, gate, trial, args.autovacuum_wait_s)
            watcher = threading.Thread(
                target=_watch_autovacuum, args=(dsn, watching, trial), daemon=True
            )
            watcher.start()
        proc.wait(timeout=args.migration_timeout_s)
        trial.t_migration_end = time.monotonic()
        reader.join(timeout=10)
        watching.set()
        if watcher is not None:
            watcher.join(timeout=10)
            # The change's first statement: safemigrate's first part; psql's ALTER, once the
            # gate opened.
            first = trial.parts[0][0] if trial.parts else opened
            first = first if first is not None else trial.t_migration_start
            trial.autovacuum_met = (
                trial.autovacuum_until is not None and trial.autovacuum_until >= first
            )
        trial.exit_code = proc.returncode
        trial.stderr_tail = stderr_file.read_text(errors="replace")[-1500:]
        time.sleep(1.0)
        trial.requests = load.stop().responses()
        with psycopg.connect(dsn, autocommit=True) as conn:
            trial.schema = [
                [list(row) for row in conn.execute(query).fetchall()] for query in SCHEMA_QUERIES
            ]
        if args.autovacuum:
            written = log.read_bytes()[log_from:] if log.exists() else b""
            trial.autovacuum_cancelled = written.count(b"canceling autovacuum task")
    finally:
        load.close()
        if gate is not None:
            gate.close()
        c.drop_database(instance, dbname)
        shutil.rmtree(workdir, ignore_errors=True)
    return trial


#: --autovacuum: the advisory lock the migration's first file waits for.
AUTOVACUUM_GATE = 42_021


def _autovacuum_at_the_gate(dsn: str, gate: Any, trial: Trial, timeout_s: float) -> float:
    """Once the runner waits at the gate (its first file), switch autovacuum on for orders,
    wait for a worker on it, then open the gate; returns when it opened."""
    import psycopg

    until = time.monotonic() + timeout_s
    with psycopg.connect(dsn, autocommit=True) as conn:
        while time.monotonic() < until:
            row = conn.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                "AND objid = %s::oid",
                [AUTOVACUUM_GATE],
            ).fetchone()
            if row and row[0]:
                break
            time.sleep(0.005)
        conn.execute("ALTER TABLE orders RESET (autovacuum_enabled)")
    trial.autovacuum_seen = wait_for_autovacuum(dsn, timeout_s)
    gate.execute("SELECT pg_advisory_unlock(%s)", [AUTOVACUUM_GATE])
    return time.monotonic()


def wait_for_autovacuum(dsn: str, timeout_s: float) -> bool:
    """Wait until an autovacuum worker works on ``orders``; False if none came in time."""
    import psycopg

    until = time.monotonic() + timeout_s
    with psycopg.connect(dsn, autocommit=True) as conn:
        while time.monotonic() < until:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' "
                "AND datname = current_database() AND query LIKE '%orders%'"
            ).fetchone()
            if row and row[0]:
                return True
            time.sleep(0.005)
    return False


def _watch_autovacuum(dsn: str, stop: threading.Event, trial: Trial) -> None:
    """Note the last moment an autovacuum worker holds its lock on orders (every 20 ms)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        while not stop.is_set():
            row = conn.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE a.backend_type = 'autovacuum worker' AND l.granted "
                "AND l.relation = 'orders'::regclass"
            ).fetchone()
            if row and row[0]:
                trial.autovacuum_until = time.monotonic()
            stop.wait(0.02)


def _read_parts(proc: subprocess.Popen[bytes], trial: Trial) -> None:
    """Note when each recipe part starts (safemigrate's ``recipe_part`` JSON events), count
    the events by kind and note who the attempts waited for."""
    assert proc.stdout is not None
    for raw in proc.stdout:
        line = raw.decode(errors="replace")
        if line.startswith("{"):
            event = json.loads(line)
            kind = str(event.get("event"))
            if kind == "attempt_failed" and event.get("precheck"):
                kind = "precheck_backoff"
            trial.events[kind] = trial.events.get(kind, 0) + 1
            if kind == "recipe_part":
                trial.parts.append((time.monotonic(), event["part"]))
            for holder in event.get("holders") or event.get("blockers") or ():
                name = holder.get("application_name") or str(holder.get("query") or "?")[:40]
                if name not in trial.holders:
                    trial.holders.append(name)


def slow_by_part(trial: Trial) -> dict[str, int]:
    """Requests over 100 ms, by the recipe part running when they were scheduled."""
    counts: dict[str, int] = {}
    for slot, end in trial.requests:
        if (end - slot) * 1000 <= c.SLOW_MS or not trial.parts:
            continue
        if not trial.t_migration_start <= slot <= trial.t_migration_end + 0.5:
            continue
        running = "before the first part"
        for when, label in trial.parts:
            if when <= slot:
                running = label
        counts[running] = counts.get(running, 0) + 1
    return counts


def metrics(trial: Trial) -> dict[str, Any]:
    """Response times of the requests scheduled while the migration ran (to its end + 0.5 s:
    a request stuck behind the migration's lock finishes just after it)."""
    window = [
        (end - slot) * 1000
        for slot, end in trial.requests
        if trial.t_migration_start <= slot <= trial.t_migration_end + 0.5
    ]
    return {
        "round": trial.round,
        "autovacuum_seen": trial.autovacuum_seen,
        "autovacuum_cancelled": trial.autovacuum_cancelled,
        "autovacuum_met": trial.autovacuum_met,
        "requests": len(window),
        "max_ms": round(max(window), 1) if window else float("nan"),
        "p99_ms": round(c.percentile(window, 0.99), 1) if window else float("nan"),
        "over_100ms": sum(1 for ms in window if ms > c.SLOW_MS),
        "migration_s": round(trial.t_migration_end - trial.t_migration_start, 3),
        "exit": trial.exit_code,
        "slow_by_part": slow_by_part(trial),
        "waits": {
            k: v
            for k, v in trial.events.items()
            if k in ("precheck_backoff", "attempt_failed", "step_yielded", "waiting_for_holders")
        },
        "holders": trial.holders,
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    """The result table (a line per round and runner; with --autovacuum, whether an
    autovacuum was at work on the table and how often it cancelled itself)."""
    autovacuum = any(row["autovacuum_seen"] is not None for row in rows)
    extra = " autovacuum seen / cancelled |" if autovacuum else ""
    lines = [
        "| statement | round | runner | app max | requests > 100 ms | migration | "
        f"schema = psql's |{extra}",
        "| --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if autovacuum else ""),
    ]
    for row in rows:
        seen = (
            f" {'yes' if row['autovacuum_seen'] else 'no'} / {row['autovacuum_cancelled']} |"
            if autovacuum
            else ""
        )
        lines.append(
            f"| `{STATEMENTS[row['statement']]}` | {row['round']} | {row['runner']} | "
            f"{row['max_ms']:.0f} ms | {row['over_100ms']} of {row['requests']} | "
            f"{row['migration_s']:.2f} s | {row['schema_identical']} |{seen}"
        )
    return "\n".join(lines)


def make_template(instance: Any, rows: int) -> str:
    """A database holding ``orders`` (``rows`` rows) and ``customers``, to copy per trial."""
    name = c.create_database(instance, prefix="rewrites_template")
    load_tables(c.url(instance, name), rows, vacuum=True)
    return name


def load_tables(dsn: str, rows: int, *, vacuum: bool) -> None:
    """``customers`` and ``orders`` (``rows`` rows, an index on k); vacuumed and checkpointed
    for a template, left as loaded (autovacuum to come) for --autovacuum."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE customers (id bigint PRIMARY KEY)")
        conn.execute("INSERT INTO customers SELECT generate_series(1, 1000)")
        # For --autovacuum, autovacuum is let in only once the application runs (see
        # run_trial), so that it works on the table when the migration starts.
        conn.execute(
            "CREATE TABLE orders (k bigint NOT NULL, id bigint, customer_id bigint, "
            "amount int, ref text, note text)"
            + ("" if vacuum else " WITH (autovacuum_enabled = false)")
        )
        conn.execute(
            "INSERT INTO orders SELECT g, g, 1 + g %% 1000, 1 + g %% 50, 'r' || g, 'n' "
            "FROM generate_series(1, %s) g",
            (rows,),
        )
        conn.execute("CREATE INDEX orders_k_idx ON orders (k)")
        if vacuum:
            conn.execute("VACUUM ANALYZE orders")
            conn.execute("CHECKPOINT")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (see --help)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--period-ms", type=float, default=5.0)
    p.add_argument("--update-share", type=float, default=0.2, help="share of updates")
    p.add_argument("--warmup-s", type=float, default=1.0)
    p.add_argument("--migration-timeout-s", type=float, default=600.0)
    p.add_argument("--statements", default=",".join(STATEMENTS))
    p.add_argument("--rounds", type=int, default=1, help="repeat every statement and runner")
    p.add_argument(
        "--autovacuum",
        action="store_true",
        help="a fresh table per trial and the migration started while autovacuum works on it",
    )
    p.add_argument("--autovacuum-wait-s", type=float, default=30.0)
    p.add_argument("--storage", choices=["disk", "ram"], default=None)
    p.add_argument("--pg-bindir", default=None)
    p.add_argument("--out", type=Path, default=None, help="JSON results file")
    args = p.parse_args(argv)
    if args.quick:
        args.rows = 5_000
        args.clients = 2
        args.warmup_s = 0.2
    if args.storage is None:
        args.storage = "ram" if args.quick else "disk"
    if args.out is None:
        name = "rewrites_autovacuum" if args.autovacuum else "rewrites"
        args.out = c.RESULTS / (f"{name}.quick.json" if args.quick else f"{name}.json")
    return args


def main(argv: list[str] | None = None) -> int:
    """Every statement with every runner; write JSON and a table."""
    args = parse_args(argv)
    c.sigterm_as_interrupt()
    began = time.monotonic()
    rows: list[dict[str, Any]] = []
    trials: list[Trial] = []
    # A slower autovacuum than PostgreSQL 15's default (2ms; 20ms until 11), as on a table
    # bigger than a benchmark's: it is still at work when a runner's first statement comes.
    extra = (
        {"autovacuum_naptime": "1s", "autovacuum_vacuum_cost_delay": "10ms"}
        if args.autovacuum
        else None
    )
    with c.server(args.storage, args.pg_bindir, extra) as instance:
        info = c.machine_info(instance)
        c.log(f"[{time.monotonic() - began:6.1f}s] template with {args.rows} rows")
        template = "" if args.autovacuum else make_template(instance, args.rows)
        cells = [
            (round_no, statement)
            for round_no in range(1, args.rounds + 1)
            for statement in [s for s in args.statements.split(",") if s]
        ]
        for round_no, statement in cells:
            by_runner: dict[str, Trial] = {}
            for runner in RUNNERS:
                c.log(f"[{time.monotonic() - began:6.1f}s] {statement} round {round_no}: {runner}")
                trial = run_trial(instance, template, statement, runner, args)
                trial.round = round_no
                m = metrics(trial)
                c.log(
                    f"    max {m['max_ms']} ms  >100ms {m['over_100ms']}  migration "
                    f"{m['migration_s']} s  exit {m['exit']}  slow by part {m['slow_by_part']}"
                    f"  autovacuum seen {m['autovacuum_seen']} met {m['autovacuum_met']} cancelled "
                    f"{m['autovacuum_cancelled']}  waits {m['waits']} holders {m['holders']}"
                )
                if trial.exit_code != 0:
                    c.log(f"    migration failed: {trial.stderr_tail}")
                by_runner[runner] = trial
                trials.append(trial)
            for runner, trial in by_runner.items():
                rows.append(
                    {
                        "statement": statement,
                        "runner": runner,
                        **metrics(trial),
                        "schema_identical": trial.schema == by_runner["psql"].schema,
                    }
                )
    data = {
        "benchmark": "rewrites",
        "machine": info,
        "parameters": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "statements": STATEMENTS,
        "results": rows,
        "schemas": {f"{t.statement}/{t.runner}/{t.round}": t.schema for t in trials},
        "parts": {
            f"{t.statement}/{t.runner}/{t.round}": [
                [round(when - t.t_migration_start, 4), label] for when, label in t.parts
            ]
            for t in trials
        },
    }
    c.write_json(args.out, data)
    c.log(f"[{time.monotonic() - began:6.1f}s] wrote {args.out}")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
