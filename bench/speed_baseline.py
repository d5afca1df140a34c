"""Cold ``check`` and ``status`` of this checkout beside a baseline revision, in one run.

Issue 26's first measures: ``check --cache off`` on a migration history (the langfuse corpus
by default) beside squawk, and ``status`` on 1,000 applied migrations, each as the process a
user runs, **this checkout and the baseline revision alternated in every round** (its
``safemigrate`` package extracted with ``git archive`` and run from there), with
``python -c pass`` as the interpreter's floor. The machines are shared and noisy: every row
gives the best and the median wall time of ``--rounds`` runs and the median CPU time (which
waiting for a core does not inflate), and the ratios are of the best wall times and of the
median CPU times of the same round set. Before timing, the output of both revisions is
compared byte for byte (check: text and JSON; status: text and JSON), so a speed-up that
changed what users see fails.

    .venv/bin/python bench/speed_baseline.py                  # baseline 8d41ec9, 7 rounds
    .venv/bin/python bench/speed_baseline.py --baseline main --rounds 11
    .venv/bin/python bench/speed_baseline.py --quick          # 50 migrations, 2 rounds

Results in ``bench/results/speed_baseline.json`` (``*.quick.json`` with ``--quick``).
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
from check_scale import find_squawk
from cli_scale import generate

#: The commit issue 26's work started from (main before it): the default baseline.
BASELINE = "8d41ec9"
#: The corpus ``check`` is timed on, when present.
CORPUS = c.REPO.parent / "shared" / "corpora" / "langfuse" / "migrations"
#: Issue 26's goals: status under 0.3 s, cold check at most twice squawk's time.
GOALS = {"status_s": 0.3, "check_over_squawk": 2.0}


def extract(revision: str, into: Path) -> Path:
    """The ``safemigrate`` package of ``revision``, extracted under ``into``."""
    into.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(c.REPO), "archive", revision, "safemigrate"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def compile_bytecode(*packages: Path) -> None:
    """Write the bytecode cache of every module of ``packages``, as installing a package does.

    Without it, a run under ``PYTHONDONTWRITEBYTECODE=1`` (or from a fresh ``git archive``)
    compiles every module it imports, every time: about 0.1 s more for ``status``, and more
    for the revision with no cache at all, so the comparison would not be fair.
    """
    for package in packages:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def run(argv: list[str], src: Path | None) -> subprocess.CompletedProcess[bytes]:
    """``argv`` with ``src`` (a revision's code) first on PYTHONPATH, or this checkout."""
    env = c.child_env(PYTHONPATH=str(src if src is not None else c.REPO))
    # From an empty folder: ``-m`` puts the working directory first on sys.path, so a run
    # from the checkout would import the checkout's package whatever PYTHONPATH says.
    with tempfile.TemporaryDirectory(prefix="bench-cwd-") as cwd:
        return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL)


def same_output(commands: dict[str, list[str]], baseline: Path) -> dict[str, bool]:
    """For each command: True when this checkout and the baseline print the same bytes and
    exit the same way."""
    same = {}
    for name, argv in commands.items():
        ours, theirs = run(argv, None), run(argv, baseline)
        same[name] = (ours.returncode, ours.stdout, ours.stderr) == (
            theirs.returncode,
            theirs.stdout,
            theirs.stderr,
        )
        if not same[name]:
            c.log(f"{name}: the output differs from the baseline's")
    return same


def rounds(
    rows: dict[str, tuple[list[str], Path | None]], count: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall times and CPU times (user + system, of the process and its children) of every
    row, ``count`` rounds, the order rotating every round. The CPU time is the steadier
    figure on a loaded machine: waiting for a core does not count."""
    names = list(rows)
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for round_ in range(count):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            argv, src = rows[name]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            began = time.perf_counter()
            run(argv, src)
            wall[name].append(time.perf_counter() - began)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default=BASELINE, help="the git revision to compare with")
    parser.add_argument("--rounds", type=int, default=7, help="runs of every row (best, median)")
    parser.add_argument("--migrations", type=int, default=1000, help="applied, for status")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the directory check reads")
    parser.add_argument("--storage", default="ram", help="disk or ram (status only reads)")
    parser.add_argument("--pg-bindir", help="the PostgreSQL server programs (default: auto)")
    parser.add_argument("--quick", action="store_true", help="50 migrations, 2 rounds")
    parser.add_argument("--out", type=Path, help="results file")
    args = parser.parse_args(argv)
    if args.quick:
        args.migrations, args.rounds = 50, 2
    c.sigterm_as_interrupt()
    squawk = find_squawk()
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-speed-") as tmp:
        work = Path(tmp)
        baseline = extract(args.baseline, work / "baseline")
        compile_bytecode(baseline / "safemigrate", c.REPO / "safemigrate")
        directory = work / "migrations"
        generate(directory, args.migrations)
        corpus = args.corpus if args.corpus.is_dir() else directory
        with c.server(storage=args.storage, bindir=args.pg_bindir) as instance:
            dsn = c.url(instance, c.create_database(instance, prefix="speed"))
            up = run([py, "-m", "safemigrate", "up", "--dir", str(directory), "--dsn", dsn], None)
            if up.returncode != 0:
                raise SystemExit(f"up failed: {up.stderr.decode()[-800:]}")
            status = [py, "-m", "safemigrate", "status", "--dir", str(directory), "--dsn", dsn]
            check = [py, "-m", "safemigrate", "check", "--dir", str(corpus), "--cache", "off"]
            # As the pre-commit hook runs it: every file named, besides the directory.
            corpus_files = sorted(str(p) for p in corpus.glob("*.sql"))
            check_files = [*check, *corpus_files]
            same = same_output(
                {
                    "status": status,
                    "status --format json": [*status, "--format", "json"],
                    "check": check,
                    "check --format json": [*check, "--format", "json"],
                    "check FILES": check_files,
                    "check (generated files)": [
                        *check[:4],
                        "--dir",
                        str(directory),
                        "--cache",
                        "off",
                    ],
                },
                baseline,
            )
            rows: dict[str, tuple[list[str], Path | None]] = {
                "python -c pass": ([py, "-c", "pass"], None),
                "status": (status, None),
                f"status ({args.baseline})": (status, baseline),
                "check --cache off": ([*check, "--format", "json"], None),
                f"check --cache off ({args.baseline})": ([*check, "--format", "json"], baseline),
                "check FILES --cache off": ([*check_files, "--format", "json"], None),
                f"check FILES --cache off ({args.baseline})": (
                    [*check_files, "--format", "json"],
                    baseline,
                ),
            }
            if squawk is not None:
                rows["squawk"] = ([squawk, "--reporter", "json", *corpus_files], None)
            times, cpu = rounds(rows, args.rounds)
    best = {name: min(values) for name, values in times.items()}
    cpu_median = {name: statistics.median(values) for name, values in cpu.items()}
    ratios: dict[str, float] = {}
    for label, of in (("", best), ("cpu_", cpu_median)):
        ratios[f"{label}status_over_baseline"] = of["status"] / of[f"status ({args.baseline})"]
        ratios[f"{label}check_over_baseline"] = (
            of["check --cache off"] / of[f"check --cache off ({args.baseline})"]
        )
        ratios[f"{label}check_files_over_baseline"] = (
            of["check FILES --cache off"] / of[f"check FILES --cache off ({args.baseline})"]
        )
        if "squawk" in of:
            ratios[f"{label}check_over_squawk"] = of["check --cache off"] / of["squawk"]
            ratios[f"{label}check_files_over_squawk"] = of["check FILES --cache off"] / of["squawk"]
            ratios[f"{label}baseline_check_over_squawk"] = (
                of[f"check --cache off ({args.baseline})"] / of["squawk"]
            )
    data: dict[str, Any] = {
        "baseline": args.baseline,
        "migrations": args.migrations,
        "corpus": corpus.name if corpus != directory else "generated",
        "corpus_files": len(list(corpus.glob("*.sql"))),
        "rounds": args.rounds,
        "same_output": same,
        "times_s": times,
        "best_s": best,
        "median_s": {name: statistics.median(values) for name, values in times.items()},
        "cpu_s": cpu,
        "cpu_median_s": cpu_median,
        #: Of the best wall times, and (``cpu_``) of the median CPU times.
        "ratios": ratios,
        "goals": {
            "status_s": {"goal": GOALS["status_s"], "best": best["status"]},
            **(
                {"check_over_squawk": {"goal": GOALS["check_over_squawk"], "best": r}}
                if (r := ratios.get("check_over_squawk")) is not None
                else {}
            ),
        },
        "machine": c.machine_info(),
    }
    out = args.out or c.RESULTS / (
        "speed_baseline.quick.json" if args.quick else "speed_baseline.json"
    )
    c.write_json(out, data)
    print(f"{'row':<40} {'best s':>8} {'median s':>9} {'median CPU s':>13}")
    for name in times:
        print(
            f"{name:<40} {best[name]:>8.3f} {data['median_s'][name]:>9.3f} "
            f"{cpu_median[name]:>13.3f}"
        )
    for name, value in ratios.items():
        print(f"{name}: {value:.2f}")
    print("same output as the baseline:", "yes" if all(same.values()) else f"NO {same}")
    return 0 if all(same.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
