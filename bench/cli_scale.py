"""CLI latency and how it scales with the number of migrations.

For directories of 10, 1,000 and 10,000 generated one-statement migrations
(``CREATE TABLE tN (id int);``):

- ``safemigrate up`` on a fresh database: wall time and steps per second, against the server's
  floor measured in the same run (``psql -f`` of all statements in one session, one autocommit
  transaction per statement, no journal);
- then, everything applied: ``safemigrate --help``, ``--version``, ``status`` and ``check``;
- ``python -c pass`` and ``python -c "import safemigrate.cli"`` as the start-up baselines, and
  ``python -X importtime`` attributing the import time to packages (psycopg, pglast, click...).

Median (and min/max) of several runs.

    /work/.venv/bin/python bench/cli_scale.py           # sizes 10, 1000, 10000; ~8 min
    /work/.venv/bin/python bench/cli_scale.py --quick   # sizes 10 and 50, 1 run; ~8 s
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _common as c

SM = [sys.executable, "-m", "safemigrate"]


def generate(directory: Path, count: int) -> None:
    """``count`` one-statement migrations, zero-padded versions."""
    directory.mkdir(parents=True)
    width = max(4, len(str(count)))
    for i in range(1, count + 1):
        (directory / f"{i:0{width}d}_create_t{i}.sql").write_text(
            f"-- generated migration {i}\nCREATE TABLE t{i} (id int);\n", encoding="utf-8"
        )


def timed_runs(argv: list[str], runs: int, cwd: Path, ok: tuple[int, ...] = (0,)) -> list[float]:
    """Wall times of ``runs`` runs of ``argv`` (exit status must be in ``ok``)."""
    out = []
    for _ in range(runs):
        began = time.perf_counter()
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=c.child_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        out.append(time.perf_counter() - began)
        if proc.returncode not in ok:
            raise RuntimeError(f"{argv[2:5]} exited {proc.returncode}: {proc.stderr[-800:]!r}")
    return out


THIRD_PARTY = ("psycopg", "psycopg_binary", "psycopg_pool", "pglast", "click", "tomli")


def _owner_of(name: str) -> str | None:
    """The package an import is charged to, None for the standard library."""
    top = name.split(".")[0]
    if top in ("psycopg", "psycopg_binary"):
        return "psycopg (with psycopg_binary)"
    if top in THIRD_PARTY:
        return top
    if top == "safemigrate":
        parts = name.split(".")
        return ".".join(parts[:2]) if len(parts) > 1 else "safemigrate"
    return None


def _charge(node: tuple[int, str, float, list[Any]], owner: str, per: dict[str, float]) -> None:
    """Add the self time of ``node`` and its subtree to their owners in ``per``."""
    _depth, name, self_s, kids = node
    mine = _owner_of(name) or owner
    per[mine] += self_s
    for kid in kids:
        _charge(kid, mine, per)


def import_profile(runs: int) -> dict[str, Any]:
    """``python -X importtime -c 'import safemigrate.cli'``, self times summed per package.

    A standard-library module is charged to the package that imported it first (its nearest
    non-stdlib ancestor in the import tree), so "psycopg" means everything ``import psycopg``
    brought in. Medians over ``runs`` runs, in seconds.
    """
    totals: list[dict[str, float]] = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import safemigrate.cli"],
            capture_output=True,
            text=True,
            env=c.child_env(),
            check=True,
        )
        # importtime prints children before their parent, indented 2 more spaces.
        pending: list[tuple[int, str, float, list[Any]]] = []
        for line in proc.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\|( +)(\S+)", line)
            if not m:
                continue
            depth = len(m.group(3))
            children = []
            while pending and pending[-1][0] > depth:
                children.append(pending.pop())
            pending.append((depth, m.group(4), int(m.group(1)) / 1e6, children))
        per: dict[str, float] = collections.Counter()
        for root in pending:
            _charge(root, "python start-up and other stdlib", per)
        totals.append(per)
    keys = sorted(
        {k for t in totals for k in t},
        key=lambda k: -statistics.median([t.get(k, 0.0) for t in totals]),
    )
    return {
        "self_s_median": {k: statistics.median([t.get(k, 0.0) for t in totals]) for k in keys},
        "total_s_median": statistics.median([sum(t.values()) for t in totals]),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (see --help)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="sizes 10 and 50, 1 run")
    p.add_argument("--sizes", default="10,1000,10000")
    p.add_argument("--runs", type=int, default=5, help="runs of --help/--version/status/check")
    p.add_argument("--up-runs", type=int, default=3, help="runs of up (fresh database each)")
    p.add_argument(
        "--storage",
        choices=["disk", "ram"],
        default=None,
        help="disk: fsync and full_page_writes on (default); ram: test settings",
    )
    p.add_argument(
        "--pg-bindir",
        default=None,
        help="PostgreSQL server programs (default: /usr/lib/postgresql/15/bin if "
        "present, else auto): a path, auto, system or wheel",
    )
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    if args.quick:
        args.sizes = "10,50"
        args.runs = 1
        args.up_runs = 1
    if args.storage is None:
        args.storage = "ram" if args.quick else "disk"
    if args.out is None:
        args.out = c.RESULTS / ("cli_scale.quick.json" if args.quick else "cli_scale.json")
    return args


def main(argv: list[str] | None = None) -> int:
    """Generate, apply, time; write JSON and a table."""
    args = parse_args(argv)
    c.sigterm_as_interrupt()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    work = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    began = time.monotonic()
    results: dict[str, Any] = {"sizes": {}}
    try:
        results["python_pass"] = c.summary(
            timed_runs([sys.executable, "-c", "pass"], 1 if args.quick else max(args.runs, 3), work)
        )
        results["import_cli"] = c.summary(
            timed_runs(
                [sys.executable, "-c", "import safemigrate.cli"],
                1 if args.quick else max(args.runs, 3),
                work,
            )
        )
        results["importtime"] = import_profile(max(1, min(args.runs, 3)))
        with c.server(args.storage, args.pg_bindir) as instance:
            info = c.machine_info(instance)
            for size in sizes:
                directory = work / f"m{size}"
                generate(directory, size)
                row: dict[str, Any] = {}
                up_times, floor_times = [], []
                dbname = ""
                for run in range(args.up_runs):
                    # The server's floor: the same statements through one psql session.
                    floor_db = c.create_database(instance, prefix="cli_floor")
                    script = work / f"all{size}.sql"
                    script.write_text(
                        "".join(f.read_text() for f in sorted(directory.glob("*.sql")))
                    )
                    floor_times.append(
                        c.run_timed(
                            [
                                c.psql_program(),
                                "-X",
                                "-q",
                                "-v",
                                "ON_ERROR_STOP=1",
                                "-d",
                                c.url(instance, floor_db),
                                "-f",
                                str(script),
                            ],
                            cwd=work,
                        )
                    )
                    c.drop_database(instance, floor_db)
                    if dbname:
                        c.drop_database(instance, dbname)
                    dbname = c.create_database(instance, prefix="cli")
                    up_times.append(
                        c.run_timed(
                            [*SM, "up", "--dir", str(directory), "--dsn", c.url(instance, dbname)],
                            cwd=work,
                        )
                    )
                    c.log(
                        f"[{time.monotonic() - began:6.1f}s] size {size} run {run + 1}: up "
                        f"{up_times[-1]:.2f} s, psql floor {floor_times[-1]:.2f} s"
                    )
                row["up"] = c.summary(up_times)
                row["psql_one_session"] = c.summary(floor_times)
                row["up_steps_per_s"] = c.summary([size / t for t in up_times])
                row["psql_statements_per_s"] = c.summary([size / t for t in floor_times])
                row["up_over_psql"] = c.summary(
                    [u / f for u, f in zip(up_times, floor_times, strict=False)]
                )
                dsn = c.url(instance, dbname)
                commands = {
                    "--help": [*SM, "--help"],
                    "--version": [*SM, "--version"],
                    "status": [*SM, "status", "--dir", str(directory), "--dsn", dsn],
                    "check": [*SM, "check", "--dir", str(directory)],
                }
                runs = args.runs if size < 5000 else min(args.runs, 3)
                for name, argv_ in commands.items():
                    row[name] = c.summary(timed_runs(argv_, runs, work))
                    c.log(
                        f"[{time.monotonic() - began:6.1f}s] size {size}: {name} median "
                        f"{row[name]['median']:.3f} s"
                    )
                c.drop_database(instance, dbname)
                shutil.rmtree(directory)
                results["sizes"][str(size)] = row
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["growth"] = growth(results["sizes"])
    data = {
        "benchmark": "cli_scale",
        "machine": info,
        "parameters": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        **results,
    }
    c.write_json(args.out, data)
    print(markdown(data))
    c.log(f"wrote {args.out} in {time.monotonic() - began:.0f} s")
    return 0


def growth(sizes: dict[str, Any]) -> dict[str, Any]:
    """Per-migration cost between the smallest and the largest size (ms per migration)."""
    keys = sorted(sizes, key=int)
    if len(keys) < 2:
        return {}
    small, large = keys[0], keys[-1]
    span = int(large) - int(small)
    out = {}
    for command in ("--help", "--version", "status", "check", "up"):
        a = sizes[small][command]["median"]
        b = sizes[large][command]["median"]
        out[command] = {
            "ms_per_migration": (b - a) * 1000 / span,
            "fixed_s": a,
            f"ratio_{large}_to_{small}": b / a,
        }
    return out


def markdown(data: dict[str, Any]) -> str:
    """Tables: command latency per size, up throughput, import attribution."""
    sizes = data["sizes"]
    keys = sorted(sizes, key=int)
    lines = [
        "\nmedian (min - max) wall time, seconds\n",
        "| command | " + " | ".join(f"{int(k):,} migrations" for k in keys) + " |",
        "| --- |" + " --- |" * len(keys),
    ]
    for command in ("--help", "--version", "status", "check", "up"):
        cells = []
        for k in keys:
            s = sizes[k][command]
            cells.append(f"{s['median']:.3f} ({s['min']:.3f} - {s['max']:.3f})")
        lines.append(f"| `{command}` | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| throughput | " + " | ".join(f"{int(k):,}" for k in keys) + " |",
        "| --- |" + " --- |" * len(keys),
    ]
    for label, key in (
        ("safemigrate up, steps/s", "up_steps_per_s"),
        ("psql one session, statements/s", "psql_statements_per_s"),
        ("up time / psql time", "up_over_psql"),
    ):
        lines.append(
            f"| {label} | " + " | ".join(f"{sizes[k][key]['median']:.1f}" for k in keys) + " |"
        )
    lines.append(
        f"\npython -c pass: {data['python_pass']['median']:.3f} s; import "
        f"safemigrate.cli: {data['import_cli']['median']:.3f} s"
    )
    lines.append("import self time by package (python -X importtime, median):")
    for name, secs in data["importtime"]["self_s_median"].items():
        if secs >= 0.002:
            lines.append(f"  {name}: {secs * 1000:.0f} ms")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
