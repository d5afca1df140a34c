"""Runner overhead on a real migration set: psql vs yoyo-migrations vs safemigrate up.

The corpus is langfuse's 434 Prisma migrations (../shared/corpora/langfuse/migrations, 1,117
top-level statements; its MANIFEST.txt documents the reference application). Each run applies
the whole set to a fresh empty database:

- psql: ``psql -X -v ON_ERROR_STOP=1 -f FILE``, one call per file (the MANIFEST's method);
- psql-session: one psql with every file as its own ``-f`` (one session): the floor of what
  any runner that sends each statement separately can do, with no bookkeeping at all;
- yoyo: ``yoyo apply --batch`` on a copy of the files. yoyo runs every SQL migration in one
  transaction (and each statement in a SAVEPOINT), which breaks the 98 CONCURRENTLY files and
  the 13 files with their own BEGIN/COMMIT; those copies get yoyo's ``-- transactional: false``
  header, which runs their statements in autocommit mode, as psql does;
- safemigrate: ``python -m safemigrate up`` on the files as they are.

Runs are interleaved (the order rotates each round). Every runner's resulting schema is
compared (normalised pg_dump, runners' own bookkeeping tables left out). Then one extra
safemigrate run is profiled with pyinstrument, and one in-process run counts its round trips.

    .venv/bin/python bench/overhead.py            # 5 runs each, ~6 min
    .venv/bin/python bench/overhead.py --quick    # first 76 files, 1 run, ~8 s
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _common as c

CORPUS = c.REPO.parent / "shared" / "corpora" / "langfuse" / "migrations"
RUNNERS = ("psql", "psql-session", "yoyo", "safemigrate")
LABELS = {
    "psql": "psql -f (one call per file)",
    "psql-session": "psql -f f1 -f f2 ... (one session, floor)",
    "yoyo": "yoyo apply",
    "safemigrate": "safemigrate up",
}


def corpus_files(corpus: Path, limit: int | None) -> list[Path]:
    """The corpus's .sql files in apply order (``limit`` first ones)."""
    files = sorted(corpus.glob("*.sql"))
    if not files:
        raise SystemExit(f"no .sql files in {corpus}")
    return files[:limit] if limit else files


def apply(runner: str, instance: Any, dbname: str, files: list[Path], work: Path) -> float:
    """Apply the set with ``runner``; return the wall time in seconds."""
    dsn = c.url(instance, dbname)
    if runner == "psql":
        psql = c.psql_program()
        env = c.child_env()
        began = time.perf_counter()
        for f in files:
            proc = subprocess.run(
                [psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", str(f)],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            if proc.returncode != 0:
                raise RuntimeError(f"psql failed on {f.name}: {proc.stderr.decode()[-800:]}")
        return time.perf_counter() - began
    if runner == "psql-session":
        # Not what the brief's psql baseline does, but the floor for any runner: every file in
        # one psql session, one autocommit transaction per statement, no bookkeeping.
        argv = [c.psql_program(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn]
        for f in files:
            argv += ["-f", str(f)]
        return c.run_timed(argv, cwd=work)
    if runner == "yoyo":
        return c.run_timed(c.yoyo_apply_argv(instance, dbname, work / "yoyo_migrations"), cwd=work)
    return c.run_timed(
        [
            sys.executable,
            "-m",
            "safemigrate",
            "up",
            "--dir",
            str(work / "sm_migrations"),
            "--dsn",
            dsn,
            # langfuse's history has error findings the lint gate would refuse; warn keeps the
            # cost of linting in the measurement without refusing.
            "--lint-gate",
            "warn",
        ],
        cwd=work,
        # langfuse's backfill lifts statement_timeout on purpose: no ceiling, as its project
        # would configure when adopting safemigrate.
        env=c.child_env(SAFEMIGRATE_MAX_STATEMENT_TIMEOUT="0"),
    )


def schema_hash(instance: Any, dbname: str) -> str:
    """The MANIFEST's normalised schema hash, runners' own tables left out."""
    # pg_dump refuses a server newer than itself: prefer the one beside the server's binaries.
    beside = Path(instance.bindir) / "pg_dump"
    pg_dump = (
        str(beside)
        if beside.exists()
        else shutil.which("pg_dump") or str(Path(c.psql_program()).parent / "pg_dump")
    )
    out = subprocess.run(
        [
            pg_dump,
            "--schema-only",
            "--no-owner",
            "--no-privileges",
            "--exclude-table=safemigrate_history*",
            "--exclude-table=_yoyo_*",
            "--exclude-table=yoyo_lock",
            "-d",
            c.url(instance, dbname),
        ],
        env=c.child_env(),
        capture_output=True,
        check=True,
    ).stdout.decode()
    kept = [
        line
        for line in out.splitlines(keepends=True)
        if not re.match(r"^(--|SET |\\restrict |\\unrestrict )", line)
    ]
    return hashlib.sha256("".join(kept).encode()).hexdigest()


# ------------------------------------------------------------------------------ profiling


def profile(instance: Any, work: Path, out_dir: Path) -> dict[str, Any]:
    """One safemigrate run under pyinstrument: text tree and the top functions by self time."""
    dbname = c.create_database(instance, prefix="overhead_prof")
    text = out_dir / "overhead_profile.txt"
    stats = Path(tempfile.mkdtemp()) / "profile.pstats"
    try:
        base = [sys.executable, "-m", "pyinstrument"]
        target = [
            "-m",
            "safemigrate",
            "up",
            "--lint-gate",
            "warn",  # as in apply(): langfuse's history would be refused
            "--dir",
            str(work / "sm_migrations"),
            "--dsn",
            c.url(instance, dbname),
        ]
        env = c.child_env(SAFEMIGRATE_MAX_STATEMENT_TIMEOUT="0")
        c.run_timed([*base, "-r", "pstats", "-o", str(stats), *target], cwd=work, env=env)
        c.drop_database(instance, dbname)
        dbname = c.create_database(instance, prefix="overhead_prof")
        target[-1] = c.url(instance, dbname)
        c.run_timed(
            [
                *base,
                "-r",
                "text",
                "-p",
                "processor_options.show_all=false",
                "-o",
                str(text),
                *target,
            ],
            cwd=work,
            env=env,
        )
    finally:
        c.drop_database(instance, dbname)
    import pstats

    st = pstats.Stats(str(stats))
    total = max(v[3] for v in st.stats.values())  # the root's cumulative time
    rows = []
    for (file, line, func), (_cc, _nc, tt, ct, _callers) in st.stats.items():
        rows.append(
            {
                "function": f"{Path(file).name}:{line}:{func}",
                "file": file,
                "self_s": tt,
                "cumulative_s": ct,
            }
        )
    by_self = sorted(rows, key=lambda r: -r["self_s"])[:25]
    # Where the wall time goes, by area of code (self time summed over files).
    areas: dict[str, float] = collections.Counter()
    for r in rows:
        areas[_area(r["file"], r["function"])] += r["self_s"]
    return {
        "total_s": total,
        "top_self": by_self,
        "areas_self_s": dict(sorted(areas.items(), key=lambda kv: -kv[1])),
        "tree": str(text.relative_to(c.REPO)) if text.is_relative_to(c.REPO) else str(text),
    }


def _area(file: str, function: str) -> str:
    """A coarse bucket for a profile row."""
    if "psycopg" in file and ("wait" in function or "poll" in function or "select" in function):
        return "waiting for the server (psycopg wait)"
    if "psycopg" in file:
        return "psycopg (other)"
    if "pglast" in file:
        return "pglast (parsing)"
    if "/safemigrate/" in file:
        return "safemigrate code"
    if "threading" in file:
        return "threads (watcher start/join)"
    if "<frozen importlib" in file or "importlib" in file:
        return "imports"
    if "selectors" in file or "socket" in file:
        return "waiting for the server (selectors)"
    return "other"


# ------------------------------------------------------------------------------ main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (see --help)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="first 76 files, 1 run, no profile")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--limit", type=int, default=None, help="only the first N files")
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--runners", default=",".join(RUNNERS))
    p.add_argument(
        "--storage",
        choices=["disk", "ram"],
        default=None,
        help="disk: fsync and full_page_writes on, data on disk (default); ram: "
        "the throwaway module's test settings, to isolate client-side costs",
    )
    p.add_argument("--no-profile", action="store_true")
    p.add_argument(
        "--pg-bindir",
        default=None,
        help="PostgreSQL server programs (default: /usr/lib/postgresql/15/bin if "
        "present, else auto): a path, auto, system or wheel",
    )
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    if args.quick:
        args.runs = 1
        args.limit = args.limit or 76
        args.no_profile = True
    if args.storage is None:
        args.storage = "ram" if args.quick else "disk"
    if args.out is None:
        suffix = ".quick" if args.quick else ("" if args.storage == "disk" else f".{args.storage}")
        args.out = c.RESULTS / f"overhead{suffix}.json"
    return args


def main(argv: list[str] | None = None) -> int:
    """Apply the corpus with each runner, interleaved; profile; write JSON and a table."""
    args = parse_args(argv)
    c.sigterm_as_interrupt()
    if not args.corpus.is_dir():
        c.log(f"corpus not found: {args.corpus}")
        return 2
    runners = [r for r in args.runners.split(",") if r]
    if "yoyo" in runners and c.yoyo_program() is None:
        c.log("yoyo-migrations is not installed: skipping the yoyo runner")
        runners.remove("yoyo")
    files = corpus_files(args.corpus, args.limit)
    work = Path(tempfile.mkdtemp(prefix="bench-overhead-"))
    marked = c.yoyo_dir(files, work / "yoyo_migrations")
    shutil.copytree(
        args.corpus,
        work / "sm_migrations",
        ignore=lambda d, names: [n for n in names if n not in {f.name for f in files}],
    )
    times: dict[str, list[float]] = {r: [] for r in runners}
    xacts: dict[str, int] = {}
    hashes: dict[str, str] = {}
    began = time.monotonic()
    try:
        with c.server(args.storage, args.pg_bindir) as instance:
            info = c.machine_info(instance)
            for run in range(1, args.runs + 1):
                shift = (run - 1) % len(runners)
                for runner in runners[shift:] + runners[:shift]:
                    dbname = c.create_database(instance, prefix="overhead")
                    try:
                        elapsed = apply(runner, instance, dbname, files, work)
                        times[runner].append(elapsed)
                        if runner not in hashes:
                            hashes[runner] = schema_hash(instance, dbname)
                            xacts[runner] = c.transactions(instance, dbname)
                    finally:
                        c.drop_database(instance, dbname)
                    c.log(
                        f"[{time.monotonic() - began:6.1f}s] run {run}/{args.runs} {runner}: "
                        f"{elapsed:.2f} s"
                    )
            prof = None
            trips = None
            if not args.no_profile and "safemigrate" in runners:
                if c.have_module("pyinstrument"):
                    c.log("profiling one safemigrate run with pyinstrument ...")
                    prof = profile(instance, work, c.RESULTS)
                else:
                    c.log("pyinstrument is not installed: no profile")
                c.log("counting round trips of one in-process run ...")
                trips = c.round_trips(instance, work / "sm_migrations")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = {r: c.summary(v) for r, v in times.items() if v}
    ratios: dict[str, Any] = {}
    if "safemigrate" in times:
        for base in ("psql", "psql-session", "yoyo"):
            if base in times:
                per_run = [s / b for s, b in zip(times["safemigrate"], times[base], strict=False)]
                ratios[f"safemigrate/{base}"] = {
                    "per_run": c.summary(per_run),
                    "of_medians": summary["safemigrate"]["median"] / summary[base]["median"],
                }
    data = {
        "benchmark": "overhead",
        "machine": info,
        "parameters": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "corpus": {
            "path": str(args.corpus),
            "files": len(files),
            "yoyo_non_transactional_files": marked,
        },
        "times_s": times,
        "summary": summary,
        "ratios": ratios,
        "schema_hashes": hashes,
        "schemas_identical": len(set(hashes.values())) <= 1,
        "transactions": xacts,
        "profile": prof,
        "round_trips": trips,
    }
    c.write_json(args.out, data)
    print(markdown(data))
    c.log(f"wrote {args.out} in {time.monotonic() - began:.0f} s")
    return 0 if data["schemas_identical"] else 1


def markdown(data: dict[str, Any]) -> str:
    """The result table."""
    lines = [
        f"\n{data['corpus']['files']} files, {len(next(iter(data['times_s'].values())))} "
        f"runs each, storage {data['parameters']['storage']}\n",
        "| runner | min | median | max | transactions | ratio to psql (median of runs) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    psql = data["times_s"].get("psql")
    for runner, s in data["summary"].items():
        ratio = "-"
        if psql:
            per = [a / b for a, b in zip(data["times_s"][runner], psql, strict=False)]
            ratio = f"{c.summary(per)['median']:.2f}x"
        lines.append(
            f"| {LABELS[runner]} | {c.fmt_s(s['min'])} | {c.fmt_s(s['median'])} | "
            f"{c.fmt_s(s['max'])} | {data['transactions'].get(runner, '-')} | {ratio} |"
        )
    lines.append(f"\nschemas identical: {data['schemas_identical']}")
    for name, r in data["ratios"].items():
        p = r["per_run"]
        lines.append(f"{name}: {p['median']:.2f} (runs {p['min']:.2f} - {p['max']:.2f})")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
