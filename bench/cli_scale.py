"""`up` throughput beside psql and yoyo, and CLI latency, on generated one-table migrations.

For a directory of 1,000 generated migrations (``CREATE TABLE tN (id int);``, one file each;
other sizes with ``--sizes``), on one throwaway server with fsync on, in one run:

- applying them all to a fresh database, the runners interleaved (the order rotates every
  round; ``--up-runs`` rounds):
  - psql: ``psql -f`` of all the statements in one session, autocommit, so one commit per
    statement and no bookkeeping: the per-commit floor;
  - yoyo: ``yoyo apply --batch`` on a yoyo copy of the same files (one transaction each);
  - up: ``safemigrate up``;
- then, everything applied: ``safemigrate --help``, ``--version``, ``status`` and ``check``,
  interleaved with ``python -c pass`` (the interpreter's start-up floor);
- ``python -c "import safemigrate.cli"`` and ``python -X importtime`` attributing the import
  time to packages (psycopg, pglast, click...);
- with ``--profile``: one more ``up`` under pyinstrument (text tree in
  ``bench/results/cli_scale_profile.txt``, its time summed per kind of work: round trips by
  caller, thread starts, parsing, imports...) and one in-process ``up`` counting the
  statements it sends per step.

Reports medians (min - max), steps/s, the ratios up/psql and up/yoyo, and the issue's goals
(up <= 1.3x psql, status < 0.5 s, --help < 100 ms), as JSON and as a markdown table.

With ``--corpus DIR`` it applies a real migration set instead (issue 20: a fresh database
bootstrapped with the default settings), interleaved, each run on a fresh database:

- psql: every file with ``-f``, in order, in one session;
- up: ``safemigrate up`` with the defaults: a fresh database with nobody else connected, so
  the run skips the lock pre-check (``fresh_database`` ``"alone": true``);
- up, another session connected: the same, with one idle session on the database, so the
  pre-check and its catalog look-ups run as on any database: the fast path's A/B.

    .venv/bin/python bench/cli_scale.py --profile     # 1,000 migrations; ~4 min
    .venv/bin/python bench/cli_scale.py --sizes 10,1000,10000 --runners psql,up
    .venv/bin/python bench/cli_scale.py --quick       # sizes 10 and 50, 1 run; ~10 s
    .venv/bin/python bench/cli_scale.py --corpus ../shared/corpora/langfuse/migrations
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

SM = c.SAFEMIGRATE
RUNNERS = ("psql", "yoyo", "up")
RUNNER_LABELS = {
    "psql": "`psql -f`, autocommit (one commit per statement: the floor)",
    "yoyo": "`yoyo apply --batch`",
    "up": "`safemigrate up`",
}
COMMANDS = ("python -c pass", "--help", "--version", "status", "check")
#: The issue's goals (issue 16).
GOALS = {"up_over_psql": 1.3, "status_s": 0.5, "help_s": 0.1}


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


# ------------------------------------------------------------------------------ applying


def apply(runner: str, instance: Any, dbname: str, dirs: dict[str, Path], work: Path) -> float:
    """Apply every migration with ``runner`` to ``dbname``; return the wall time in seconds."""
    if runner == "psql":
        return c.run_timed(c.psql_session_argv(instance, dbname, [dirs["script"]]), cwd=work)
    if runner == "yoyo":
        return c.run_timed(c.yoyo_apply_argv(instance, dbname, dirs["yoyo"]), cwd=work)
    dsn = c.url(instance, dbname)
    return c.run_timed([*SM, "up", "--dir", str(dirs["sm"]), "--dsn", dsn], cwd=work)


def apply_rounds(
    instance: Any, dirs: dict[str, Path], work: Path, runners: list[str], rounds: int, log: Any
) -> tuple[dict[str, list[float]], dict[str, int], str]:
    """``rounds`` rounds of every runner, each on a fresh database, the order rotating.

    Returns the wall times per runner, the transactions each runner's first run made, and the
    database of the last ``up`` (kept, fully applied, for the read-only commands)."""
    times: dict[str, list[float]] = {r: [] for r in runners}
    xacts: dict[str, int] = {}
    kept = ""
    for round_ in range(rounds):
        shift = round_ % len(runners)
        for runner in runners[shift:] + runners[:shift]:
            dbname = c.create_database(instance, prefix=f"cli_{runner}")
            try:
                times[runner].append(apply(runner, instance, dbname, dirs, work))
                if runner not in xacts:
                    xacts[runner] = c.transactions(instance, dbname)
            finally:
                if runner == "up":
                    if kept:
                        c.drop_database(instance, kept)
                    kept = dbname
                else:
                    c.drop_database(instance, dbname)
            log(f"round {round_ + 1}/{rounds} {runner}: {times[runner][-1]:.2f} s")
    return times, xacts, kept


def command_rounds(
    directory: Path, dsn: str, runs: int, work: Path, log: Any
) -> dict[str, list[float]]:
    """The read-only commands and ``python -c pass``, ``runs`` rounds, the order rotating."""
    argvs = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "--help": [*SM, "--help"],
        "--version": [*SM, "--version"],
        "status": [*SM, "status", "--dir", str(directory), "--dsn", dsn],
        "check": [*SM, "check", "--dir", str(directory)],
    }
    names = list(argvs)
    times: dict[str, list[float]] = {n: [] for n in names}
    for round_ in range(runs):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            times[name] += timed_runs(argvs[name], 1, work)
    log(", ".join(f"{n} {statistics.median(t):.3f} s" for n, t in times.items()))
    return times


def size_row(
    size: int,
    applied: dict[str, list[float]],
    xacts: dict[str, int],
    commands: dict[str, list[float]],
) -> dict[str, Any]:
    """One size's results: summaries, throughput, ratios and the goals."""
    row: dict[str, Any] = {}
    names = {"psql": "psql_one_session", "yoyo": "yoyo", "up": "up"}
    for runner, values in applied.items():
        row[names[runner]] = c.summary(values)
    row["up_steps_per_s"] = c.summary([size / t for t in applied["up"]])
    if "psql" in applied:
        row["psql_statements_per_s"] = c.summary([size / t for t in applied["psql"]])
    if "yoyo" in applied:
        row["yoyo_steps_per_s"] = c.summary([size / t for t in applied["yoyo"]])
    for over, base in (("up", "psql"), ("up", "yoyo"), ("yoyo", "psql")):
        if over in applied and base in applied:
            row[f"{over}_over_{base}"] = c.summary(
                [a / b for a, b in zip(applied[over], applied[base], strict=True)]
            )
    row["times_s"] = applied
    row["transactions"] = xacts
    for name, values in commands.items():
        row["python_pass" if name == "python -c pass" else name] = c.summary(values)
    row["goals"] = goals(row)
    return row


def goals(row: dict[str, Any]) -> dict[str, Any]:
    """The issue's goals against this size's medians."""
    out: dict[str, Any] = {
        "status_s": {
            "goal": GOALS["status_s"],
            "median": row["status"]["median"],
            "met": row["status"]["median"] < GOALS["status_s"],
        },
        "help_s": {
            "goal": GOALS["help_s"],
            "median": row["--help"]["median"],
            "met": row["--help"]["median"] < GOALS["help_s"],
        },
    }
    if "up_over_psql" in row:
        ratio = row["up_over_psql"]["median"]
        out["up_over_psql"] = {
            "goal": GOALS["up_over_psql"],
            "median": ratio,
            "met": ratio <= GOALS["up_over_psql"],
        }
    return out


# ------------------------------------------------------------------------------ start-up


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


# ------------------------------------------------------------------------------ profiling


def profile_up(instance: Any, directory: Path, steps: int, text_out: Path) -> dict[str, Any]:
    """One ``up`` under pyinstrument: the text tree to ``text_out``, and the profiled time
    summed per kind of work (:func:`where_time_goes`)."""
    session = Path(tempfile.mkdtemp(prefix="bench-prof-")) / "up.pyisession"
    dbname = c.create_database(instance, prefix="cli_prof")
    pyinstrument = [sys.executable, "-m", "pyinstrument"]
    try:
        target = ["-m", "safemigrate", "up", "--dir", str(directory)]
        target += ["--dsn", c.url(instance, dbname)]
        wall = c.run_timed(
            [*pyinstrument, "-r", "pyisession", "-o", str(session), *target], cwd=directory.parent
        )
    finally:
        c.drop_database(instance, dbname)
    text_out.parent.mkdir(parents=True, exist_ok=True)
    c.run_timed(
        [
            *pyinstrument,
            "--load",
            str(session),
            "-r",
            "text",
            "--no-color",
            "-p",
            "processor_options.show_all=false",
            "-o",
            str(text_out),
        ]
    )
    from pyinstrument.session import Session

    root = Session.load(session).root_frame()
    shutil.rmtree(session.parent, ignore_errors=True)
    spent: dict[str, float] = collections.Counter()
    if root is not None:
        where_time_goes(root, "start-up, CLI and other", "", spent)
    total = sum(spent.values())
    return {
        "wall_s": wall,
        "profiled_s": total,
        "steps": steps,
        "ms_per_step": {
            k: round(1000 * v / steps, 3) for k, v in sorted(spent.items(), key=lambda kv: -kv[1])
        },
        "share": {k: round(v / total, 4) for k, v in spent.items()} if total else {},
        "tree": str(text_out.relative_to(c.REPO))
        if text_out.is_relative_to(c.REPO)
        else str(text_out),
    }


#: Labels that the frames below them keep (a round trip's psycopg internals are round trip).
_STICKY = ("round trip", "imports", "thread", "connect", "parsing")


def where_time_goes(frame: Any, label: str, caller: str, spent: dict[str, float]) -> None:
    """Add each pyinstrument frame's self time to the kind of work it is part of.

    The innermost recognised frame names the kind: a psycopg ``execute`` is a round trip,
    charged to the nearest safemigrate caller outside ``db/session.py`` (which only forwards);
    ``Thread.start``/``join`` and ``threading`` waits; pglast (parsing); imports; connecting.
    Other time goes to the safemigrate module running it, else to what encloses it.
    """
    path = frame.file_path or ""
    function = frame.function
    qualified = f"{frame.class_name}.{function}" if frame.class_name else function
    if "/safemigrate/" in path and not path.endswith("db/session.py"):
        caller = f"{qualified} ({Path(path).name})"
    if not label.startswith(_STICKY):
        if "importlib" in path and function in ("_find_and_load", "import_module"):
            label = "imports"
        elif "/psycopg/" in path and function in ("connect", "_connect_gen"):
            label = "connect (psycopg)"
        elif "/psycopg/" in path and function in ("execute", "executemany", "fetchall"):
            label = f"round trip: {caller or '?'}"
        elif path.endswith("threading.py") and function == "start":
            label = "thread start (Thread.start)"
        elif path.endswith("threading.py") and function == "join":
            label = "thread join (Thread.join)"
        elif path.endswith("threading.py"):
            label = "thread other (locks, events)"
        elif "/pglast/" in path:
            label = "parsing (pglast)"
        elif "/safemigrate/" in path:
            label = f"safemigrate Python: {path.rsplit('/safemigrate/', 1)[1]}"
    own = frame.time - sum(child.time for child in frame.children)
    spent[label] += max(own, 0.0)
    for child in frame.children:
        where_time_goes(child, label, caller, spent)


# ------------------------------------------------------------------------------ a corpus

#: The runners of --corpus, and how the report names them.
CORPUS_RUNNERS = {
    "psql": "`psql -f` of every file, one session",
    "up": "`safemigrate up`, defaults (fresh, nobody else connected: no pre-check)",
    "up_watched": "`safemigrate up`, defaults, one other session connected (pre-check on)",
}


def corpus_rounds(instance: Any, corpus: Path, rounds: int, work: Path, log: Any) -> dict[str, Any]:
    """``rounds`` rounds of psql, up and up with another session connected, on a fresh
    database each, the order rotating; wall times, medians and ratios."""
    import psycopg

    files = sorted(corpus.glob("*.sql"))
    names = list(CORPUS_RUNNERS)
    times: dict[str, list[float]] = {n: [] for n in names}
    for round_ in range(rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            dbname = c.create_database(instance, prefix=f"corpus_{name}")
            argv = [*SM, "up", "--dir", str(corpus), "--dsn", c.url(instance, dbname)]
            try:
                if name == "psql":
                    took = c.run_timed(c.psql_session_argv(instance, dbname, files), cwd=work)
                elif name == "up":
                    took = c.run_timed(argv, cwd=work)
                else:
                    with psycopg.connect(c.url(instance, dbname), autocommit=True):
                        took = c.run_timed(argv, cwd=work)
            finally:
                c.drop_database(instance, dbname)
            times[name].append(took)
            log(f"round {round_ + 1}/{rounds} {name}: {took:.2f} s")
    row: dict[str, Any] = {"files": len(files), "times_s": times}
    for name in names:
        row[name] = c.summary(times[name])
    for over, base in (("up", "psql"), ("up_watched", "psql"), ("up", "up_watched")):
        row[f"{over}_over_{base}"] = c.summary(
            [a / b for a, b in zip(times[over], times[base], strict=True)]
        )
    return row


def corpus_markdown(data: dict[str, Any]) -> str:
    """The --corpus table."""
    row = data["corpus"]
    lines = [
        f"{row['files']} migrations of `{data['parameters']['corpus']}`, each run on a fresh "
        f"database ({data['parameters']['up_runs']} rounds, interleaved):",
        "",
        "| runner | wall time (median, min - max) | / psql |",
        "| --- | --- | --- |",
    ]
    for name, label in CORPUS_RUNNERS.items():
        ratio = _ratio(row[f"{name}_over_psql"]) if name != "psql" else ""
        lines.append(f"| {label} | {_cell(row[name])} | {ratio} |")
    lines.append(f"\nup without the pre-check / with it: {_ratio(row['up_over_up_watched'])}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (see --help)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="sizes 10 and 50, 1 run, RAM server")
    p.add_argument("--sizes", default="1000", help="comma-separated (e.g. 10,1000,10000)")
    p.add_argument("--runs", type=int, default=5, help="rounds of the read-only commands")
    p.add_argument("--up-runs", type=int, default=3, help="rounds of psql, yoyo and up")
    p.add_argument(
        "--runners",
        default=",".join(RUNNERS),
        help="which of psql,yoyo,up apply the migrations (up is always run; yoyo takes "
        "~0.25 s per migration at 10,000)",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="one more up (of the largest size up to 1,000) under pyinstrument, and one "
        "in-process up counting its round trips",
    )
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
    p.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="apply this directory of migrations (a real set) instead of generated ones",
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
        name = "cli_scale.corpus" if args.corpus is not None else "cli_scale"
        args.out = c.RESULTS / (f"{name}.quick.json" if args.quick else f"{name}.json")
    return args


def chosen_runners(spec: str) -> list[str]:
    """The runners asked for, in the canonical order, up always; yoyo only when installed."""
    asked = {r for r in spec.split(",") if r} | {"up"}
    unknown = asked - set(RUNNERS)
    if unknown:
        raise SystemExit(f"unknown runners: {', '.join(sorted(unknown))}")
    if "yoyo" in asked and c.yoyo_program() is None:
        c.log("yoyo-migrations is not installed: skipping the yoyo runner")
        asked.discard("yoyo")
    return [r for r in RUNNERS if r in asked]


def main(argv: list[str] | None = None) -> int:
    """Generate, apply, time; write JSON and a table."""
    args = parse_args(argv)
    c.sigterm_as_interrupt()
    if args.corpus is not None:
        return corpus_main(args)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    runners = chosen_runners(args.runners)
    work = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    began = time.monotonic()

    def log(message: str) -> None:
        c.log(f"[{time.monotonic() - began:6.1f}s] {message}")

    results: dict[str, Any] = {"sizes": {}}
    start_runs = 1 if args.quick else max(args.runs, 3)
    try:
        results["python_pass"] = c.summary(
            timed_runs([sys.executable, "-c", "pass"], start_runs, work)
        )
        results["import_cli"] = c.summary(
            timed_runs([sys.executable, "-c", "import safemigrate.cli"], start_runs, work)
        )
        results["importtime"] = import_profile(max(1, min(args.runs, 3)))
        with c.server(args.storage, args.pg_bindir) as instance:
            info = c.machine_info(instance)
            for size in sizes:
                dirs = {"sm": work / f"m{size}", "yoyo": work / f"yoyo{size}"}
                generate(dirs["sm"], size)
                files = sorted(dirs["sm"].glob("*.sql"))
                dirs["script"] = work / f"all{size}.sql"
                dirs["script"].write_text("".join(f.read_text() for f in files))
                if "yoyo" in runners:
                    c.yoyo_dir(files, dirs["yoyo"])

                def sized(message: str, size: int = size) -> None:
                    log(f"size {size}: {message}")

                applied, xacts, dbname = apply_rounds(
                    instance, dirs, work, runners, args.up_runs, sized
                )
                runs = args.runs if size < 5000 else min(args.runs, 3)
                commands = command_rounds(dirs["sm"], c.url(instance, dbname), runs, work, sized)
                c.drop_database(instance, dbname)
                results["sizes"][str(size)] = size_row(size, applied, xacts, commands)
            if args.profile:
                results.update(profiles(instance, sizes, work, args, log))
            for size in sizes:
                shutil.rmtree(work / f"m{size}", ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["growth"] = growth(results["sizes"])
    data = {
        "benchmark": "cli_scale",
        "machine": info,
        "parameters": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "goals": GOALS,
        **results,
    }
    c.write_json(args.out, data)
    print(markdown(data))
    log(f"wrote {args.out}")
    return 0


def corpus_main(args: argparse.Namespace) -> int:
    """--corpus: psql and up (with and without another session) on the corpus; JSON, table."""
    corpus = args.corpus.resolve()
    if not any(corpus.glob("*.sql")):
        raise SystemExit(f"--corpus {corpus}: no .sql files")
    work = Path(tempfile.mkdtemp(prefix="bench-corpus-"))
    began = time.monotonic()

    def log(message: str) -> None:
        c.log(f"[{time.monotonic() - began:6.1f}s] {message}")

    try:
        with c.server(args.storage, args.pg_bindir) as instance:
            info = c.machine_info(instance)
            row = corpus_rounds(instance, corpus, args.up_runs, work, log)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    data = {
        "benchmark": "cli_scale --corpus",
        "machine": info,
        "parameters": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "corpus": row,
    }
    c.write_json(args.out, data)
    print(corpus_markdown(data))
    log(f"wrote {args.out}")
    return 0


def profiles(
    instance: Any, sizes: list[int], work: Path, args: argparse.Namespace, log: Any
) -> dict[str, Any]:
    """The pyinstrument profile and the round-trip count of one ``up`` each."""
    size = max((s for s in sizes if s <= 1000), default=min(sizes))
    directory = work / f"m{size}"
    out: dict[str, Any] = {}
    if c.have_module("pyinstrument"):
        text = args.out.parent / (
            "cli_scale_profile.quick.txt" if args.quick else "cli_scale_profile.txt"
        )
        log(f"profiling one up of {size} migrations with pyinstrument ...")
        out["profile"] = profile_up(instance, directory, size, text)
    else:
        log("pyinstrument is not installed: no profile")
    log(f"counting the round trips of one in-process up of {size} migrations ...")
    out["round_trips"] = c.round_trips(instance, directory)
    return out


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


# ------------------------------------------------------------------------------ reporting


def _cell(s: dict[str, float]) -> str:
    """median (min - max) in the unit that suits the median."""
    if s["median"] < 1:
        return f"{s['median'] * 1000:.0f} ms ({s['min'] * 1000:.0f} - {s['max'] * 1000:.0f})"
    return f"{s['median']:.2f} s ({s['min']:.2f} - {s['max']:.2f})"


def _ratio(s: dict[str, float]) -> str:
    return f"{s['median']:.2f}x ({s['min']:.2f} - {s['max']:.2f})"


def _count(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def _met(goal: dict[str, Any]) -> str:
    return "**met**" if goal["met"] else "not met"


def size_table(size: int, row: dict[str, Any], data: dict[str, Any]) -> list[str]:
    """The markdown table of one size."""
    params = data["parameters"]
    n_up = row["up"]["n"]
    lines = [
        f"\n{size:,} one-table migrations (`CREATE TABLE tN (id int);`, one file each), "
        f"storage {params['storage']} (fsync {'on' if params['storage'] == 'disk' else 'off'}); "
        f"{n_up} interleaved rounds of the runners (fresh database each), "
        f"{row['status']['n']} of the commands; median (min - max):\n",
        "| what | wall time | steps/s | transactions | ratio | goal |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    keys = {"psql": "psql_one_session", "yoyo": "yoyo", "up": "up"}
    rates = {"psql": "psql_statements_per_s", "yoyo": "yoyo_steps_per_s", "up": "up_steps_per_s"}
    for runner, key in keys.items():
        if key not in row:
            continue
        ratio, goal = "", ""
        if runner == "up":
            parts = []
            if "up_over_psql" in row:
                parts.append(f"{_ratio(row['up_over_psql'])} psql")
                g = row["goals"]["up_over_psql"]
                goal = f"<= {g['goal']}x psql: {_met(g)}"
            if "up_over_yoyo" in row:
                parts.append(f"{_ratio(row['up_over_yoyo'])} yoyo")
            ratio = "; ".join(parts)
        elif runner == "yoyo" and "yoyo_over_psql" in row:
            ratio = f"{_ratio(row['yoyo_over_psql'])} psql"
        rate = row[rates[runner]]["median"]
        lines.append(
            f"| {RUNNER_LABELS[runner]} | {_cell(row[key])} | {rate:,.0f} | "
            f"{_count(row['transactions'].get(runner))} | {ratio} | {goal} |"
        )
    for name in ("status", "--help", "--version", "check"):
        goal = ""
        if name == "status":
            g = row["goals"]["status_s"]
            goal = f"< {g['goal']} s: {_met(g)}"
        if name == "--help":
            g = row["goals"]["help_s"]
            goal = f"< {g['goal'] * 1000:.0f} ms: {_met(g)}"
        lines.append(f"| `safemigrate {name}` | {_cell(row[name])} | | | | {goal} |")
    lines.append(f"| `python -c pass` (start-up floor) | {_cell(row['python_pass'])} | | | | |")
    return lines


def markdown(data: dict[str, Any]) -> str:
    """Per size: the runners and commands against the goals; then start-up and the profile."""
    lines: list[str] = []
    for key in sorted(data["sizes"], key=int):
        lines += size_table(int(key), data["sizes"][key], data)
    if data["growth"]:
        lines += ["", "growth between the smallest and the largest size:"]
        for command, g in data["growth"].items():
            lines.append(f"  {command}: {g['ms_per_migration']:.3f} ms per migration")
    lines.append(
        f"\npython -c pass: {data['python_pass']['median'] * 1000:.0f} ms; import "
        f"safemigrate.cli: {data['import_cli']['median'] * 1000:.0f} ms"
    )
    lines.append("import self time by package (python -X importtime, median):")
    for name, secs in data["importtime"]["self_s_median"].items():
        if secs >= 0.002:
            lines.append(f"  {name}: {secs * 1000:.0f} ms")
    prof = data.get("profile")
    if prof:
        per_step = 1000 * prof["profiled_s"] / prof["steps"]
        lines += [
            f"\nWhere one `up` spends its time (pyinstrument, main thread, {prof['steps']:,} "
            f"steps, {prof['profiled_s']:.2f} s profiled = {per_step:.2f} ms per step; "
            f"tree in `{prof['tree']}`):\n",
            "| kind of work | ms per step | share |",
            "| --- | --- | --- |",
        ]
        for kind, ms in prof["ms_per_step"].items():
            if prof["share"].get(kind, 0) >= 0.005:
                lines.append(f"| {kind} | {ms:.2f} | {100 * prof['share'][kind]:.1f}% |")
    trips = data.get("round_trips")
    if trips:
        lines += [
            f"\nStatements sent per step (one in-process `up`, {trips['steps']:,} steps, "
            f"{trips['wall_s']:.2f} s): "
            + ", ".join(f"{k} {v}" for k, v in trips["per_step"].items()),
            "",
            "| connection: statement | count | ms each | ms per step |",
            "| --- | --- | --- | --- |",
        ]
        for shape in trips["by_shape"][:12]:
            lines.append(
                f"| {shape['shape'].replace('|', '/')} | {shape['count']:,} | "
                f"{shape['ms_each']:.2f} | {1000 * shape['seconds'] / trips['steps']:.2f} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
