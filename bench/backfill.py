"""A big backfill under application load: psql's one statement vs safemigrate's batches.

Scenario (both runners in the same run, each on a fresh copy of the same database):

1. A table ``orders`` with --rows rows (default 1,000,000) and a new, empty column
   ``total_cents`` to fill.
2. An application load: --clients threads (default 4), each on its own connection, sending a
   single-row ``UPDATE orders SET amount_cents = amount_cents + 1 WHERE id = $1`` (random id)
   every --period-ms (default 5 ms) on a fixed schedule. Response time is measured from the
   *scheduled* start, and slots a stuck client could not send count with the time they would
   have waited (coordinated omission corrected, as in stall.py).
3. After a second of load, the backfill ``UPDATE orders SET total_cents = amount_cents * 100``
   runs: with ``psql -f`` as one statement, or with ``safemigrate up`` and
   ``-- safemigrate: batch-size=N`` (--batch-size, default 10,000).

Measured per runner: the application's max response and requests over 100 ms while the backfill
runs, the backfill's duration and rows/s. Goal (issue 12): application max <= 100 ms with the
batches (psql's is the whole backfill), duration <= 1.5x psql's.

Output: bench/results/backfill.json and a Markdown table on stdout.

    .venv/bin/python bench/backfill.py            # 1,000,000 rows, on disk
    .venv/bin/python bench/backfill.py --quick    # 20,000 rows, a smoke run
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _common as c

RUNNERS = ("psql", "safemigrate")
LABELS = {"psql": "psql -f (one statement)", "safemigrate": "safemigrate up (batch-size)"}
BACKFILL = "UPDATE orders SET total_cents = amount_cents * 100"


def workload(rows: int) -> c.Workload:
    """A single-row update of ``orders`` by a random id, and nothing else."""
    return c.Workload(
        read=None,
        write="UPDATE orders SET amount_cents = amount_cents + 1 WHERE id = %s",
        keys=rows,
        seed=1000,
    )


def make_template(instance: Any, rows: int) -> str:
    """A database with the ``orders`` table filled, to copy for each runner."""
    import psycopg

    name = c.create_database(instance, prefix="backfill_template")
    with psycopg.connect(instance.dsn(name), autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE orders (id bigint PRIMARY KEY, amount_cents int NOT NULL, "
            "total_cents bigint, note text)"
        )
        conn.execute(
            "INSERT INTO orders SELECT g, g %% 10000, NULL, repeat('x', 40) "
            "FROM generate_series(1, %s) g",
            [rows],
        )
        conn.execute("VACUUM ANALYZE orders")
        conn.execute("CHECKPOINT")
    return name


def runner_argv(runner: str, instance: Any, dbname: str, workdir: Path, batch: int) -> list[str]:
    """The command line that runs the backfill with ``runner``."""
    dsn = c.url(instance, dbname)
    directory = workdir / runner
    directory.mkdir(parents=True, exist_ok=True)
    if runner == "psql":
        script = directory / "0001_backfill.sql"
        script.write_text(BACKFILL + ";\n", encoding="utf-8")
        return c.psql_session_argv(instance, dbname, [script])
    (directory / "0001_backfill.sql").write_text(
        f"-- safemigrate: batch-size={batch}\n{BACKFILL};\n", encoding="utf-8"
    )
    return [
        *c.SAFEMIGRATE, "up", "--dir", str(directory), "--dsn", dsn, "--format", "json",
        # The run's statement timeout is per batch; the default is generous anyway.
        "--lint-gate", "off",
    ]  # fmt: skip


def trial(runner: str, instance: Any, template: str, args: argparse.Namespace) -> dict[str, Any]:
    """One runner's backfill under load, on a fresh copy of the template."""
    import psycopg

    dbname = c.create_database(instance, template=template, prefix=f"backfill_{runner}")
    try:
        dsn = instance.dsn(dbname)
        # Threads, as in this benchmark's published results (processes would change them).
        with c.AppLoad(
            dsn,
            workload(args.rows),
            clients=args.clients,
            period_s=args.period_ms / 1000,
            processes=False,
        ) as load:
            c.sleep_until(load.start() + 1.0)  # a second of load before the backfill
            with tempfile.TemporaryDirectory() as work:
                argv = runner_argv(runner, instance, dbname, Path(work), args.batch_size)
                began = time.monotonic()
                proc = subprocess.run(argv, env=c.child_env(), capture_output=True, text=True)
                ended = time.monotonic()
            time.sleep(1.0)
            requests = load.stop()
        if proc.returncode != 0:
            raise RuntimeError(f"{runner} exited {proc.returncode}: {proc.stderr[-2000:]}")
        with psycopg.connect(dsn, autocommit=True) as conn:
            left = conn.execute("SELECT count(*) FROM orders WHERE total_cents IS NULL").fetchone()
        assert left is not None
        assert left[0] == 0, f"{runner} left {left[0]} rows unfilled"
    finally:
        c.drop_database(instance, dbname)
    during = [
        (end - slot) * 1000
        for slot, end in requests.responses()
        if began <= slot <= ended or began <= end <= ended
    ]
    duration = ended - began
    batches = None
    if runner == "safemigrate":
        import json

        events = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
        finished = [e for e in events if e["event"] == "batch_progress" and e["finished"]]
        batches = finished[-1]["batches"] if finished else None
    return {
        "runner": runner,
        "duration_s": round(duration, 3),
        "rows_per_s": round(args.rows / duration),
        "batches": batches,
        "app_requests_during": len(during),
        "app_max_ms": round(max(during), 1) if during else None,
        "app_p99_ms": round(c.percentile(during, 99), 1) if during else None,
        "app_over_100ms": sum(1 for x in during if x > c.SLOW_MS),
    }


def table(results: list[dict[str, Any]]) -> str:
    """The Markdown table of the results."""
    lines = [
        "| runner | backfill duration | rows/s | app max response | app p99 | "
        "requests > 100 ms | batches |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {LABELS[r['runner']]} | {c.fmt_s(r['duration_s'])} | {r['rows_per_s']:,} | "
            f"{r['app_max_ms']} ms | {r['app_p99_ms']} ms | "
            f"{r['app_over_100ms']} of {r['app_requests_during']} | {r['batches'] or '-'} |"
        )
    psql, batched = results
    lines.append("")
    lines.append(
        f"duration ratio safemigrate/psql: {batched['duration_s'] / psql['duration_s']:.2f} "
        "(goal <= 1.5); app max with batches: "
        f"{batched['app_max_ms']} ms (goal <= 100 ms)"
    )
    return "\n".join(lines)


def main() -> None:
    """Run the benchmark and write bench/results/backfill.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch-size", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--period-ms", type=float, default=5.0)
    parser.add_argument("--storage", default="disk", choices=("disk", "ram"))
    parser.add_argument("--pg-bindir", default=None)
    parser.add_argument("--quick", action="store_true", help="20,000 rows, in RAM")
    parser.add_argument("--out", type=Path, default=c.RESULTS / "backfill.json")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.storage, args.batch_size = 20_000, "ram", 1000
    c.sigterm_as_interrupt()
    with c.server(args.storage, args.pg_bindir) as instance:
        c.log(f"filling {args.rows:,} rows ...")
        template = make_template(instance, args.rows)
        results = []
        for runner in RUNNERS:
            c.log(f"{runner} ...")
            results.append(trial(runner, instance, template, args))
        info = c.machine_info(instance)
    text = table(results)
    print(text)
    c.write_json(
        args.out,
        {
            "scenario": {
                "rows": args.rows,
                "batch_size": args.batch_size,
                "clients": args.clients,
                "period_ms": args.period_ms,
                "storage": args.storage,
                "backfill": BACKFILL,
            },
            "results": results,
            "table": text,
            "machine": info,
        },
    )


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
