"""How fast is ``safemigrate check`` on a large migrations directory, beside squawk?

Generates N small migration files (default 1000) in a temporary directory, or takes ``--dir``
(the langfuse corpus, say), then times, each as the subprocess a user runs (interpreter start,
imports, linting, JSON rendering), alternated, median of ``--repeat`` runs:

- ``check --cache off``: nothing cached (a fresh CI machine);
- ``check`` with a cache filled by an earlier run of the same directory;
- ``check`` after one file was added since the cached run (the usual change);
- ``squawk --reporter json`` on the same files, when squawk-cli is installed (the bench extra);
- ``safemigrate --version``: the interpreter and CLI start-up alone;

and ``safemigrate.lint.lint_directory(DIR)`` in this process, and prints each with files per
second and its ratio to squawk. Nothing is asserted; nothing of the directory is changed.

    python bench/check_scale.py [--files 1000 | --dir DIR] [--repeat 3] [--python PY]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def migration_sql(i: int) -> str:
    """The SQL of the ``i``-th generated migration (0-based).

    Every fifth file creates a table; the four after it change that table the way real
    migrations do (new column, index, constraint, backfill), so the rules have existing tables
    to reason about and some findings are produced.
    """
    base = i - i % 5
    table = f"t{base:05d}"
    kind = i % 5
    if kind == 0:
        return f"""\
            -- A new table and its first index (plain: the table is new in this file).
            CREATE TABLE {table} (
                id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name       text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX {table}_name_idx ON {table} (name);
            """
    if kind == 1:
        return f"""\
            ALTER TABLE {table} ADD COLUMN score integer;
            -- safemigrate: lock-timeout=1s max-attempts=5
            ALTER TABLE {table} ALTER COLUMN score SET DEFAULT 0;
            """
    if kind == 2:
        return f"""\
            CREATE INDEX CONCURRENTLY IF NOT EXISTS {table}_created_at_idx
                ON {table} (created_at);
            CREATE INDEX {table}_score_idx ON {table} (score);
            """
    if kind == 3:
        return f"""\
            ALTER TABLE {table} ADD CONSTRAINT {table}_score_check CHECK (score >= 0) NOT VALID;
            ALTER TABLE {table} VALIDATE CONSTRAINT {table}_score_check;
            """
    return f"""\
        CREATE FUNCTION {table}_touch() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            NEW.name := lower(NEW.name);
            RETURN NEW;
        END;
        $$;
        UPDATE {table} SET score = 0 WHERE score IS NULL AND id < 10000;
        """


def generate(directory: Path, count: int) -> None:
    """Write ``count`` migrations ``00001_step_00001.sql``... into ``directory``."""
    width = max(5, len(str(count)))
    for i in range(count):
        name = f"{i + 1:0{width}d}_step_{i + 1:0{width}d}.sql"
        (directory / name).write_text(textwrap.dedent(migration_sql(i)), encoding="utf-8")


def median_seconds(action: Callable[[], object], repeat: int) -> float:
    """The median wall-clock time of ``repeat`` calls of ``action``."""
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m safemigrate ARGS`` from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "safemigrate", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


#: The rows of the speed table, in order.
COLD = "check, nothing cached (--cache off)"
WARM = "check, unchanged directory (cached)"
ADDED = "check, one file added since the cached run"
SQUAWK = "squawk"
STARTUP = "safemigrate --version (interpreter and CLI start-up only)"

#: The file added for the ADDED row.
ADDED_FILE = "CREATE TABLE bench_added (id bigint PRIMARY KEY, note text);\n"


def time_check(
    directory: Path, repeat: int, python: str = sys.executable, squawk: str | None = None
) -> dict[str, float]:
    """Median wall time of ``check`` on ``directory`` (nothing cached, cached, one file added
    since the cached run), of ``squawk`` on its files when given, and of the CLI's start-up,
    each as the subprocess a user runs, alternated; the directory is not changed."""
    langfuse = directory
    files = sorted(str(p) for p in langfuse.glob("*.sql"))
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        grown = work / "grown"
        shutil.copytree(langfuse, grown)
        cache, grown_cache = work / "cache", work / "grown-cache"

        def check(directory: Path, where: str) -> list[str]:
            command = [python, "-m", "safemigrate", "check", "--dir", str(directory)]
            return [*command, "--format", "json", "--cache", where]

        def run(cmd: list[str]) -> None:
            subprocess.run(cmd, capture_output=True, check=False, env=env)

        run(check(langfuse, str(cache)))  # fills the cache of the unchanged directory
        run(check(grown, str(grown_cache)))  # the cache before the file is added
        saved = {p.name: p.read_bytes() for p in grown_cache.glob("check-*.json")}
        (grown / added_name(files)).write_text(ADDED_FILE, "utf-8")

        def added() -> None:
            for name, data in saved.items():  # back to the state before the file was added
                (grown_cache / name).write_bytes(data)
            run(check(grown, str(grown_cache)))

        actions: dict[str, Callable[[], None]] = {
            COLD: lambda: run(check(langfuse, "off")),
            WARM: lambda: run(check(langfuse, str(cache))),
            ADDED: added,
            SQUAWK: lambda: run([squawk or "", "--reporter", "json", *files]),
            STARTUP: lambda: run([python, "-m", "safemigrate", "--version"]),
        }
        if squawk is None:
            del actions[SQUAWK]
        times: dict[str, list[float]] = {name: [] for name in actions}
        for _ in range(repeat):
            for name, action in actions.items():
                start = time.perf_counter()
                action()
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def added_name(files: list[str]) -> str:
    """A migration name after the last of ``files``: the next version, same width."""
    last = Path(files[-1]).name if files else "0000_none.sql"
    digits = last[: len(last) - len(last.lstrip("0123456789"))] or "0000"
    return f"{int(digits) + 1:0{len(digits)}d}_bench_added.sql"


def find_squawk() -> str | None:
    """squawk (squawk-cli, the bench extra) beside this interpreter or on PATH, if installed."""
    beside = Path(sys.executable).parent / "squawk"
    return str(beside) if beside.exists() else shutil.which("squawk")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000, help="migrations to generate")
    parser.add_argument(
        "--dir", type=Path, help="time this migrations directory instead (e.g. langfuse)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter that runs safemigrate (one with a wheel install: an editable "
        "install adds its import hook to every start-up)",
    )
    options = parser.parse_args(argv)
    if options.files < 1 or options.repeat < 1:
        parser.error("--files and --repeat must be at least 1")

    # Benchmark this checkout, whatever is installed.
    sys.path.insert(0, str(REPO))
    from safemigrate.lint import lint_directory

    squawk = find_squawk()
    with tempfile.TemporaryDirectory(prefix="safemigrate-bench-") as tmp:
        directory = options.dir if options.dir is not None else Path(tmp)
        if options.dir is None:
            generate(directory, options.files)
            # A report on files changed within two seconds is not kept whole (lint.cache
            # RACY_NS): without this wait the cached row would measure the per-file level.
            time.sleep(2.1)
        count = len(list(directory.glob("*.sql")))
        check = run_cli("check", "--dir", str(directory), "--format", "json", "--cache", "off")
        if check.returncode not in (0, 1):  # 1: error findings; 2 would be bad input
            print(f"safemigrate check failed (exit {check.returncode}):", file=sys.stderr)
            print(check.stderr or check.stdout, file=sys.stderr)
            return 1
        severities = Counter(f["severity"] for f in json.loads(check.stdout)["findings"])
        times = time_check(directory, options.repeat, options.python, squawk)
        lib_s = median_seconds(lambda: lint_directory(directory), options.repeat)

    print(
        f"safemigrate check on {count} migrations of {options.dir or 'generated files'} "
        f"(median of {options.repeat} runs, Python {sys.version.split()[0]})"
    )
    print(f"{'measurement':<58} {'seconds':>9} {'files/s':>9} {'x squawk':>9}")
    rows = [*times.items(), ("lint_directory in process (no start-up, no cache)", lib_s)]
    for label, seconds in rows:
        rate = f"{count / seconds:,.0f}" if label != STARTUP else "-"
        versus = f"{seconds / times[SQUAWK]:.1f}" if SQUAWK in times else "-"
        print(f"{label:<58} {seconds:>9.3f} {rate:>9} {versus:>9}")
    print(
        f"findings: {sum(severities.values())} "
        f"({severities['error']} errors, {severities['warning']} warnings, "
        f"{severities['info']} notes)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
