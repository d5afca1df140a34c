"""How fast is ``safemigrate check`` on a large migrations directory?

Generates N small migration files (default 1000) in a temporary directory, then times

- ``safemigrate check --dir DIR --format json`` as a user runs it (a ``python -m safemigrate``
  subprocess: interpreter start, imports, linting and rendering), median of ``--repeat`` runs;
- ``safemigrate.lint.lint_directory(DIR)`` in this process (reading, parsing and linting
  only), median of ``--repeat`` runs;
- ``safemigrate --version`` as a subprocess: the fixed start-up cost included in the first line,

and prints a small table with files per second. Nothing is asserted; the directory is removed.

    python bench/check_scale.py [--files 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000, help="migrations to generate")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    options = parser.parse_args(argv)
    if options.files < 1 or options.repeat < 1:
        parser.error("--files and --repeat must be at least 1")

    # Benchmark this checkout, whatever is installed.
    sys.path.insert(0, str(REPO))
    from safemigrate.lint import lint_directory

    with tempfile.TemporaryDirectory(prefix="safemigrate-bench-") as tmp:
        directory = Path(tmp)
        generate(directory, options.files)

        checks: list[subprocess.CompletedProcess[str]] = []

        def cli_check() -> None:
            checks.append(run_cli("check", "--dir", str(directory), "--format", "json"))

        cli_s = median_seconds(cli_check, options.repeat)
        check = checks[-1]
        if check.returncode not in (0, 1):  # 1: error findings; 2 would be bad input
            print(f"safemigrate check failed (exit {check.returncode}):", file=sys.stderr)
            print(check.stderr or check.stdout, file=sys.stderr)
            return 1
        severities = Counter(f["severity"] for f in json.loads(check.stdout)["findings"])
        lib_s = median_seconds(lambda: lint_directory(directory), options.repeat)
        start_s = median_seconds(lambda: run_cli("--version"), options.repeat)

    rows = [
        ("safemigrate check (CLI subprocess)", cli_s, f"{options.files / cli_s:,.0f}"),
        ("lint_directory (in process)", lib_s, f"{options.files / lib_s:,.0f}"),
        ("CLI start-up only (--version)", start_s, "-"),
    ]
    print(
        f"safemigrate check on {options.files} generated migrations "
        f"(median of {options.repeat} runs, Python {sys.version.split()[0]})"
    )
    print(f"{'measurement':<38} {'seconds':>9} {'files/s':>9}")
    for label, seconds, rate in rows:
        print(f"{label:<38} {seconds:>9.3f} {rate:>9}")
    print(
        f"findings: {sum(severities.values())} "
        f"({severities['error']} errors, {severities['warning']} warnings, "
        f"{severities['info']} notes)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
