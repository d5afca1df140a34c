"""``up`` per step beside psql, on a fresh database and on one in use, this checkout beside a
baseline revision, in one run.

Issue 26's bars for ``up`` of 1,000 one-table migrations (``cli_scale.generate``): at most
1.5x psql on a database in use, 1.2x on a fresh one, psql running the same statements in one
session, autocommit (one commit per statement: the floor). Every round runs, the order
rotating, each on a new database of one throwaway server (fsync on with ``--storage disk``,
the default):

- ``psql``, fresh and in use;
- ``up`` of this checkout and of the baseline (its package extracted with ``git archive``,
  bytecode caches written for both first), fresh and in use.

"In use" is a database holding a table of its own, with an idle client session connected
during the run: not fresh (``db.bootstrap``), so the lint gate reads the catalog and the run
checks before every step what the gate took for new (``db.created``), and the lock pre-check
runs. Wall times (best and median) and, for ``up``, the CPU time of the process; ratios of
the best wall times.

    .venv/bin/python bench/up_per_step.py --baseline 9545ca5 --rounds 3
    .venv/bin/python bench/up_per_step.py --quick     # 5 migrations, 1 round: a smoke run

Results in ``bench/results/up_per_step.json`` (``*.quick.json`` with ``--quick``).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _common as c
import psycopg
from cli_scale import generate
from speed_baseline import compile_bytecode, extract

#: Issue 26's bars: up over psql's one-session floor.
GOALS = {"in_use": 1.5, "fresh": 1.2}


def timed(argv: list[str], src: Path | None, cwd: Path) -> tuple[float, float]:
    """Wall and CPU time (user + system) of ``argv``, with ``src`` first on PYTHONPATH."""
    env = c.child_env(PYTHONPATH=str(src if src is not None else c.REPO))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    proc = subprocess.run(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:4]} exited {proc.returncode}: {proc.stderr[-800:]!r}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="9545ca5", help="the git revision to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--migrations", type=int, default=1000)
    parser.add_argument("--storage", default="disk", help="disk (fsync on) or ram")
    parser.add_argument("--pg-bindir", help="the PostgreSQL server programs (default: auto)")
    parser.add_argument("--quick", action="store_true", help="5 migrations, 1 round, RAM")
    parser.add_argument("--out", type=Path, help="results file")
    args = parser.parse_args(argv)
    if args.quick:
        args.migrations, args.rounds, args.storage = 5, 1, "ram"
    c.sigterm_as_interrupt()
    with tempfile.TemporaryDirectory(prefix="bench-up-step-") as tmp:
        work = Path(tmp)
        baseline = extract(args.baseline, work / "baseline")
        compile_bytecode(baseline / "safemigrate", c.REPO / "safemigrate")
        directory = work / "migrations"
        generate(directory, args.migrations)
        script = work / "all.sql"
        script.write_text("".join(f.read_text() for f in sorted(directory.glob("*.sql"))))
        rows: dict[str, tuple[str, Path | None, bool]] = {}
        for use in ("fresh", "in use"):
            rows[f"psql, {use}"] = ("psql", None, use == "in use")
            rows[f"up, {use}"] = ("up", None, use == "in use")
            rows[f"up {args.baseline}, {use}"] = ("up", baseline, use == "in use")
        wall: dict[str, list[float]] = {n: [] for n in rows}
        cpu: dict[str, list[float]] = {n: [] for n in rows}
        names = list(rows)
        with c.server(storage=args.storage, bindir=args.pg_bindir) as instance:
            for round_ in range(args.rounds):
                shift = round_ % len(names)
                for name in names[shift:] + names[:shift]:
                    runner, src, in_use = rows[name]
                    dbname = c.create_database(instance, prefix="upstep")
                    try:
                        idle = None
                        if in_use:
                            idle = psycopg.connect(instance.dsn(dbname), autocommit=True)
                            idle.execute("CREATE TABLE app_data (id int)")
                        try:
                            if runner == "psql":
                                argv_ = c.psql_session_argv(instance, dbname, [script])
                            else:
                                dsn = c.url(instance, dbname)
                                argv_ = [
                                    sys.executable,
                                    "-m",
                                    "safemigrate",
                                    "up",
                                    "--dir",
                                    str(directory),
                                    "--dsn",
                                    dsn,
                                ]
                            w, u = timed(argv_, src, work)
                        finally:
                            if idle is not None:
                                idle.close()
                    finally:
                        c.drop_database(instance, dbname)
                    wall[name].append(w)
                    cpu[name].append(u)
                    c.log(f"round {round_ + 1}/{args.rounds} {name}: {w:.2f} s")
    best = {n: min(v) for n, v in wall.items()}
    ratios: dict[str, float] = {}
    for use, key in (("fresh", "fresh"), ("in use", "in_use")):
        ratios[f"up_over_psql_{key}"] = best[f"up, {use}"] / best[f"psql, {use}"]
        ratios[f"baseline_up_over_psql_{key}"] = (
            best[f"up {args.baseline}, {use}"] / best[f"psql, {use}"]
        )
        ratios[f"up_over_baseline_{key}"] = best[f"up, {use}"] / best[f"up {args.baseline}, {use}"]
    data: dict[str, Any] = {
        "baseline": args.baseline,
        "migrations": args.migrations,
        "storage": args.storage,
        "rounds": args.rounds,
        "wall_s": wall,
        "cpu_s": cpu,
        "best_s": best,
        "median_s": {n: statistics.median(v) for n, v in wall.items()},
        "ratios": ratios,
        "goals": GOALS,
        "machine": c.machine_info(),
    }
    c.write_json(
        args.out or c.RESULTS / ("up_per_step.quick.json" if args.quick else "up_per_step.json"),
        data,
    )
    print(f"{'row':<32} {'best s':>8} {'median s':>9} {'median CPU s':>13}")
    for name in rows:
        print(
            f"{name:<32} {best[name]:>8.3f} {data['median_s'][name]:>9.3f} "
            f"{statistics.median(cpu[name]):>13.3f}"
        )
    for name, value in ratios.items():
        print(f"{name}: {value:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
