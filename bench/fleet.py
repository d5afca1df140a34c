"""Many targets: one process per database against one ``up --targets``, and tenant schemas.

Scenario (every runner in the same run, on the same throwaway server, each on fresh databases):

1. ``sequential``: --databases databases (default 24), then ``safemigrate up --dsn URL`` with
   migrations_example/ once per database, one process after another (what a shell loop does).
2. ``fleet``: as many fresh databases, then one ``safemigrate up --targets FILE --concurrency
   N`` (default 8).
3. ``tenants``: one database with --schemas tenant schemas (default 100), then one ``up
   --targets FILE`` whose targets each name a schema, with --concurrency N and with
   --concurrency 1 (the same process applying them one after another).

Every database ends with migrations_example/ applied (checked). Output: bench/results/fleet.json
and a Markdown table on stdout.

    .venv/bin/python bench/fleet.py            # full: ~1 min here
    .venv/bin/python bench/fleet.py --quick    # tiny smoke run
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _common as c

EXAMPLE = c.REPO / "migrations_example"
EXAMPLE_MIGRATIONS = 10


def _targets_file(path: Path, targets: list[tuple[str, str, str | None]]) -> Path:
    lines = []
    for name, dsn, schema in targets:
        lines += ["[[target]]", f'name = "{name}"', f'dsn = "{dsn}"']
        if schema is not None:
            lines.append(f'schema = "{schema}"')
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _run(argv: list[str]) -> float:
    began = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=c.child_env(), check=False)
    took = time.perf_counter() - began
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:6])} ... exited {proc.returncode}:\n{proc.stderr}")
    return took


def _applied(instance: Any, dbname: str, schema: str = "public") -> int:
    import psycopg

    with psycopg.connect(instance.dsn(dbname), autocommit=True) as conn:
        row = conn.execute(
            f'SELECT count(DISTINCT version) FROM "{schema}".safemigrate_history'
        ).fetchone()
    return int(row[0]) if row else 0


def _databases(instance: Any, n: int) -> list[str]:
    return [c.create_database(instance, prefix="fleet") for _ in range(n)]


def measure(args: argparse.Namespace, instance: Any, workdir: Path) -> dict[str, Any]:
    """Every scenario once; times in seconds."""
    up = [*c.SAFEMIGRATE, "up", "--dir", str(EXAMPLE), "--format", "json"]
    results: dict[str, Any] = {}

    names = _databases(instance, args.databases)
    began = time.perf_counter()
    for name in names:
        _run([*up, "--dsn", c.url(instance, name)])
    results["sequential_s"] = time.perf_counter() - began
    assert all(_applied(instance, n) == EXAMPLE_MIGRATIONS for n in names)
    for name in names:
        c.drop_database(instance, name)

    names = _databases(instance, args.databases)
    targets = _targets_file(
        workdir / "databases.toml", [(n, c.url(instance, n), None) for n in names]
    )
    results["fleet_s"] = _run(
        [*up, "--targets", str(targets), "--concurrency", str(args.concurrency)]
    )
    assert all(_applied(instance, n) == EXAMPLE_MIGRATIONS for n in names)
    for name in names:
        c.drop_database(instance, name)

    for concurrency in (args.concurrency, 1):
        dbname = c.create_database(instance, prefix="tenants")
        schemas = [f"tenant_{i:03d}" for i in range(args.schemas)]
        import psycopg

        with psycopg.connect(instance.dsn(dbname), autocommit=True) as conn:
            for schema in schemas:
                conn.execute(f'CREATE SCHEMA "{schema}"')
        dsn = c.url(instance, dbname)
        targets = _targets_file(
            workdir / f"tenants_{concurrency}.toml", [(s, dsn, s) for s in schemas]
        )
        results[f"tenants_concurrency_{concurrency}_s"] = _run(
            [*up, "--targets", str(targets), "--concurrency", str(concurrency)]
        )
        assert all(_applied(instance, dbname, s) == EXAMPLE_MIGRATIONS for s in schemas)
        c.drop_database(instance, dbname)
    results["speedup_fleet_vs_sequential"] = results["sequential_s"] / results["fleet_s"]
    return results


def table(args: argparse.Namespace, r: dict[str, Any]) -> str:
    """The Markdown table of a run."""
    n, k, s = args.databases, args.concurrency, args.schemas
    rows = [
        (f"{n} databases, `safemigrate up --dsn` per database, sequential", r["sequential_s"]),
        (f"{n} databases, one `up --targets --concurrency {k}`", r["fleet_s"]),
        (
            f"{s} tenant schemas, one `up --targets --concurrency {k}`",
            r[f"tenants_concurrency_{k}_s"],
        ),
        (f"{s} tenant schemas, one `up --targets --concurrency 1`", r["tenants_concurrency_1_s"]),
    ]
    lines = ["| scenario | wall clock | per target |", "| --- | ---: | ---: |"]
    for label, seconds in rows:
        per = seconds / (s if "tenant" in label else n)
        lines.append(f"| {label} | {c.fmt_s(seconds)} | {c.fmt_s(per)} |")
    lines.append(
        f"\nfleet vs sequential: {r['speedup_fleet_vs_sequential']:.1f}x faster (goal: 3x)"
    )
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    p.add_argument("--databases", type=int, default=24)
    p.add_argument("--schemas", type=int, default=100)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--storage", choices=["disk", "ram"], default="disk")
    p.add_argument("--bindir", default=None)
    p.add_argument("--output", type=Path, default=c.RESULTS / "fleet.json")
    args = p.parse_args(argv)
    if args.quick:
        args.databases, args.schemas, args.concurrency = 3, 4, 2
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the scenarios, write the JSON results, print the table."""
    args = parse_args(argv)
    c.sigterm_as_interrupt()
    with c.server(args.storage, args.bindir) as instance, tempfile.TemporaryDirectory() as tmp:
        info = c.machine_info(instance)
        results = measure(args, instance, Path(tmp))
    document = {
        "benchmark": "fleet",
        "machine": info,
        "parameters": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "results": {k: round(v, 3) for k, v in results.items()},
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(table(args, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
