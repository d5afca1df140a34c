"""Running safemigrate in tests, and writing and inspecting migration directories.

Two ways to run the CLI, chosen per test:

- :func:`run` invokes the click command inside the test process (see ``in_process``): same argv,
  exit code, stdout and stderr as ``python -m safemigrate``, without 0.4 s of start-up. The
  default for anything that only looks at what a finished run printed and left behind.
- :func:`run_process` and :func:`start_process` start a real ``python -m safemigrate`` (or the
  installed ``safemigrate`` script): for signals, kill -9, anything that races the process, and
  the few deliberate end-to-end tests of the entry points.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from tests.support.in_process import invoke

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "migrations_example"
SHARED = REPO.parent / "shared"
LANGFUSE = SHARED / "corpora" / "langfuse" / "migrations"
#: Another project's history is run to exercise the runner, not to be judged: langfuse's
#: backfill lifts statement_timeout to 0 on purpose, which the timeout guard refuses by default
#: (max_statement_timeout 4h); a project adopting such a set sets the same.
FOREIGN_HISTORY_ENV = {"SAFEMIGRATE_MAX_STATEMENT_TIMEOUT": "0"}
#: The console script pip installs next to the interpreter (absent in a bare checkout).
SCRIPT = Path(sys.executable).parent / "safemigrate"


@dataclass
class Result:
    """A finished safemigrate run (in-process or a process)."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        """stdout and stderr together."""
        return self.stdout + self.stderr

    def events(self) -> list[dict[str, Any]]:
        """The JSON events of ``--format json`` output."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]


def command(*args: str) -> list[str]:
    """The argv of ``python -m safemigrate ARGS``."""
    return [sys.executable, "-m", "safemigrate", *args]


def script_command(*args: str) -> list[str]:
    """The argv of the installed console script, ``safemigrate ARGS``, next to this Python."""
    return [str(SCRIPT), *args]


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A clean environment for the CLI: no inherited DSN or config variables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SAFEMIGRATE_", "PG")) and k != "DATABASE_URL"
    }
    env.update(extra or {})
    return env


def run(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120
) -> Result:
    """Run the CLI to completion inside this process (main thread only), as a process would."""
    finished = invoke(args, cwd=cwd or REPO, env=environment(env), timeout=timeout)
    return Result(finished.exit_code, finished.stdout, finished.stderr)


def run_process(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    script: bool = False,
) -> Result:
    """Run ``python -m safemigrate ARGS`` (``script``: the console script) to completion."""
    proc = subprocess.run(
        script_command(*args) if script else command(*args),
        cwd=cwd or REPO,
        env=environment(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def start_process(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """Start ``python -m safemigrate ARGS`` in the background (for kills, races and signals)."""
    return subprocess.Popen(
        command(*args),
        cwd=cwd or REPO,
        env=environment(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def write_migrations(directory: Path, files: dict[str, str]) -> Path:
    """Write ``{filename: sql}`` into ``directory`` (dedented) and return the directory."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, sql in files.items():
        (directory / name).write_text(textwrap.dedent(sql).lstrip(), encoding="utf-8")
    return directory


def journal_rows(dsn: str, table: str = "public.safemigrate_history") -> list[tuple[Any, ...]]:
    """(version, step, state) of every journal row; empty when there is no journal."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [table]).fetchone()
        if not exists or not exists[0]:
            return []
        return conn.execute(
            f"SELECT version, step, state FROM {table} ORDER BY version, step"
        ).fetchall()


SNAPSHOT_QUERIES = {
    "columns": """
        SELECT table_schema, table_name, column_name, data_type, is_nullable, column_default,
               is_identity, is_generated
        FROM information_schema.columns
        WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
          AND table_name NOT IN ('safemigrate_history', 'safemigrate_history_batches')
        ORDER BY 1, 2, 3""",
    "constraints": """
        SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), convalidated
        FROM pg_constraint
        WHERE connamespace = 'public'::regnamespace
          AND conrelid::regclass::text NOT IN ('safemigrate_history', 'safemigrate_history_batches')
        ORDER BY 1, 2""",
    "indexes": """
        SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid), indisvalid
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE c.relnamespace = 'public'::regnamespace
          AND indrelid::regclass::text NOT IN ('safemigrate_history', 'safemigrate_history_batches')
        ORDER BY 1""",
    "functions": """
        SELECT p.proname, pg_get_functiondef(p.oid) FROM pg_proc p
        WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f' ORDER BY 1""",
    "triggers": """
        SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1""",
    "types": """
        SELECT t.typname, array_agg(e.enumlabel::text ORDER BY e.enumsortorder)
        FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
        WHERE t.typnamespace = 'public'::regnamespace GROUP BY 1 ORDER BY 1""",
    "views": """
        SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1""",
}


def schema_snapshot(dsn: str) -> dict[str, list[tuple[Any, ...]]]:
    """A comparable picture of the public schema, without the journal's tables."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        return {k: conn.execute(q).fetchall() for k, q in SNAPSHOT_QUERIES.items()}


def psql_binary() -> str | None:
    """A psql client: PATH, else next to the Debian server binaries."""
    found = shutil.which("psql")
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"), reverse=True):
        return str(candidate)
    return None


def apply_with_psql_semantics(dsn: str, directory: Path) -> None:
    """The reference application: ``psql -X -v ON_ERROR_STOP=1 -f FILE`` for every file."""
    psql = psql_binary()
    if psql is None:
        import pytest

        pytest.skip("psql is not installed")
    for path in sorted(directory.glob("*.sql"), key=lambda p: int(p.name.split("_")[0])):
        subprocess.run(
            [psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", str(path)],
            check=True,
            capture_output=True,
            env=environment(),
        )


def invalid_indexes(dsn: str) -> list[str]:
    """Names of INVALID indexes in the database."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT indexrelid::regclass::text FROM pg_index WHERE NOT indisvalid"
        ).fetchall()
    return [r[0] for r in rows]
