"""Shared helpers of the benchmarks: a production-like throwaway server, timing, an
application load, statistics.

Not part of the package. Every benchmark compares runners measured in the same run on the same
server, and reports ratios and distributions, never a lone absolute time.
"""

from __future__ import annotations

import collections
import contextlib
import json
import multiprocessing
import os
import platform
import queue
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
RESULTS = BENCH_DIR / "results"
DOCS = REPO / "docs"
VENV_BIN = Path(sys.executable).parent
#: ``safemigrate`` as a user runs it, with this interpreter (the work tree's code on PYTHONPATH).
SAFEMIGRATE = [sys.executable, "-m", "safemigrate"]

#: What a production server has and the throwaway module turns off for test speed.
PRODUCTION_SETTINGS = {"fsync": "on", "full_page_writes": "on"}


def sigterm_as_interrupt() -> None:
    """SIGTERM (and SIGINT, even when ignored by a background shell) stop a benchmark cleanly:
    the throwaway server is stopped and its files removed by the context managers."""
    import signal

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def child_env(**extra: str) -> dict[str, str]:
    """Environment for runner subprocesses: no PG*/DATABASE_URL/SAFEMIGRATE_* leaking in."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PG", "SAFEMIGRATE_")) and k != "DATABASE_URL"
    }
    env["PYTHONUNBUFFERED"] = "1"
    env["LC_ALL"] = "C.UTF-8"
    env.update(extra)
    return env


def use_storage(storage: str) -> None:
    """Put the throwaway cluster on disk (production-like) or in RAM (/dev/shm).

    ``safemigrate.infra.throwaway`` puts clusters in $TMPDIR when it is set, else in /dev/shm.
    Must run before the first ThrowawayServer is created.
    """
    if storage == "disk":
        target = os.environ.get("BENCH_DISK_TMPDIR", "/var/tmp")
    elif storage == "ram":
        target = "/dev/shm"
    else:
        raise SystemExit(f"unknown storage {storage!r}: disk or ram")
    os.environ["TMPDIR"] = target
    tempfile.tempdir = None  # forget a cached gettempdir()


@contextlib.contextmanager
def server(
    storage: str = "disk", bindir: str | None = None, extra: Mapping[str, str] | None = None
) -> Iterator[Any]:
    """A throwaway PostgreSQL on TCP 127.0.0.1, fsync and full_page_writes ON for ``disk``;
    ``extra`` postgresql.conf settings on top."""
    use_storage(storage)
    from safemigrate.infra.throwaway import ThrowawayServer, find_server_bindir

    settings = dict(PRODUCTION_SETTINGS) if storage == "disk" else {}
    settings.update(extra or {})
    chosen = find_server_bindir(bindir or _default_bindir())
    instance = ThrowawayServer(chosen, tcp=True, settings=settings)
    instance.start()
    try:
        yield instance
    finally:
        instance.stop()


def _default_bindir() -> str:
    debian15 = Path("/usr/lib/postgresql/15/bin")
    return str(debian15) if (debian15 / "postgres").is_file() else "auto"


def server_log(instance: Any) -> Path:
    """The throwaway server's log file (next to its data directory)."""
    return Path(instance.data_dir).parent / "server.log"


def url(instance: Any, dbname: str, scheme: str = "postgresql") -> str:
    """A URL DSN for ``dbname`` on the throwaway server (TCP, user postgres, no password)."""
    return f"{scheme}://postgres@127.0.0.1:{instance.port}/{dbname}"


def admin(instance: Any) -> Any:
    """An autocommit psycopg connection to the ``postgres`` database."""
    import psycopg

    return psycopg.connect(instance.dsn("postgres"), autocommit=True)


def create_database(instance: Any, template: str = "template1", prefix: str = "bench") -> str:
    """Create a fresh database (a copy of ``template``) and return its name."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with admin(instance) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return name


def drop_database(instance: Any, name: str) -> None:
    """Drop ``name``, disconnecting whoever is left in it."""
    with admin(instance) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def psql_program() -> str:
    """The psql binary ($BENCH_PSQL, else psql on PATH).

    On Debian /usr/bin/psql is pg_wrapper, a Perl script that picks a cluster and then runs
    the real binary: about 35 ms more per call here, which would inflate a psql-per-file
    baseline ~4x. We call the binary it would run instead.
    """
    override = os.environ.get("BENCH_PSQL")
    if override:
        return override
    found = shutil.which("psql")
    if found is not None:
        with open(found, "rb") as head:
            is_script = head.read(2) == b"#!"
        if not is_script:
            return found
    candidates = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/psql"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    if candidates:
        return str(candidates[-1])
    if found is not None:
        return found
    raise SystemExit("psql not found: install postgresql-client")


def yoyo_program() -> str | None:
    """The yoyo console script of this interpreter's environment, or None."""
    candidate = VENV_BIN / "yoyo"
    if candidate.exists():
        return str(candidate)
    return shutil.which("yoyo")


def have_module(name: str) -> bool:
    """True when ``name`` can be imported (checked without importing it)."""
    import importlib.util

    return importlib.util.find_spec(name) is not None


def run_timed(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    stdout: Path | None = None,
) -> float:
    """Run a command; return its wall time in seconds. Output goes to ``stdout`` or nowhere."""
    with contextlib.ExitStack() as stack:
        out: Any = subprocess.DEVNULL
        if stdout is not None:
            out = stack.enter_context(stdout.open("ab"))
        began = time.perf_counter()
        proc = subprocess.run(
            list(argv),
            cwd=cwd,
            env=dict(env) if env is not None else child_env(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.PIPE,
            check=False,
        )
        elapsed = time.perf_counter() - began
    if check and proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")[-2000:]
        raise RuntimeError(f"{' '.join(argv[:4])}... exited {proc.returncode}: {err}")
    return elapsed


def psql_session_argv(instance: Any, dbname: str, scripts: Sequence[Path]) -> list[str]:
    """One psql session running every script with ``-f``: autocommit, so one commit per
    statement, and no bookkeeping: the floor for a runner that sends statements one by one."""
    argv = [psql_program(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url(instance, dbname)]
    for script in scripts:
        argv += ["-f", str(script)]
    return argv


#: What yoyo cannot run inside its per-migration transaction (a bench heuristic, not the
#: package's SQL understanding).
_NON_TRANSACTIONAL = re.compile(r"\bCONCURRENTLY\b|^\s*(BEGIN|COMMIT)\s*;", re.I | re.M)


def yoyo_dir(files: Sequence[Path], into: Path) -> int:
    """Copy ``files`` for yoyo; mark the ones yoyo cannot wrap in a transaction. Returns how
    many were marked ``-- transactional: false``."""
    into.mkdir(parents=True, exist_ok=True)
    marked = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        if _NON_TRANSACTIONAL.search(text):
            text = "-- transactional: false\n" + text
            marked += 1
        (into / f.name).write_text(text, encoding="utf-8")
    return marked


def yoyo_apply_argv(instance: Any, dbname: str, directory: Path) -> list[str]:
    """``yoyo apply`` of every migration in ``directory``, no prompt, no config file, through
    yoyo's psycopg 3 backend."""
    yoyo = yoyo_program()
    if yoyo is None:
        raise RuntimeError("yoyo-migrations is not installed")
    return [
        yoyo,
        "apply",
        "--batch",
        "--no-config-file",
        "--database",
        url(instance, dbname, "postgresql+psycopg"),
        str(directory),
    ]


def transactions(instance: Any, dbname: str) -> int:
    """Transactions the server counted in ``dbname`` (commits + rollbacks)."""
    with admin(instance) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s", (dbname,)
        ).fetchone()
    return int(row[0])


def round_trips(instance: Any, directory: Path) -> dict[str, Any]:
    """Run ``api.up`` on ``directory`` in-process, counting statements sent per connection
    (by application_name) and per kind of statement, with the time spent in each."""
    import psycopg

    from safemigrate import api
    from safemigrate.settings.config import load_settings

    dbname = create_database(instance, prefix="bench_rt")
    counts: collections.Counter[str] = collections.Counter()
    seconds: collections.defaultdict[str, float] = collections.defaultdict(float)
    shape_n: collections.Counter[str] = collections.Counter()
    shape_s: collections.defaultdict[str, float] = collections.defaultdict(float)
    original = psycopg.Cursor.execute

    def counted(self: Any, query: Any, params: Any = None, **kw: Any) -> Any:
        who = self.connection.info.parameter_status("application_name") or b"?"
        key = who.decode() if isinstance(who, bytes) else str(who)
        t0 = time.perf_counter()
        try:
            return original(self, query, params, **kw)
        finally:
            elapsed = time.perf_counter() - t0
            counts[key] += 1
            seconds[key] += elapsed
            shape = f"{key}: {_shape(query, self.connection)}"
            shape_n[shape] += 1
            shape_s[shape] += elapsed

    events: collections.Counter[str] = collections.Counter()
    psycopg.Cursor.execute = counted  # type: ignore[method-assign]
    try:
        # The gate warns instead of refusing, so that linting stays in the measurement; no
        # statement_timeout ceiling, as a project adopting langfuse's history would set.
        settings = load_settings(
            cwd=directory.parent,
            overrides={"dir": directory, "lint_gate": "warn", "max_statement_timeout": "0"},
        )
        began = time.perf_counter()
        result = api.up(
            settings,
            dsn=url(instance, dbname),
            environ={},
            on_event=lambda e: events.update([e.kind]),
        )
        wall = time.perf_counter() - began
    finally:
        psycopg.Cursor.execute = original  # type: ignore[method-assign]
        drop_database(instance, dbname)
    steps = len(result.applied)
    return {
        "steps": steps,
        "wall_s": wall,
        "statements_sent": dict(counts),
        "seconds_in_execute": {k: round(v, 3) for k, v in seconds.items()},
        "per_step": {k: round(v / steps, 2) for k, v in counts.items()},
        "events": dict(events),
        # Every kind of statement sent, by total time in execute (client-side wall, i.e.
        # round trip plus server work).
        "by_shape": [
            {
                "shape": k,
                "count": shape_n[k],
                "seconds": round(v, 3),
                "ms_each": round(1000 * v / shape_n[k], 3),
            }
            for k, v in sorted(shape_s.items(), key=lambda item: item[1], reverse=True)
        ],
    }


def _shape(query: Any, conn: Any) -> str:
    """A statement with literals and names blanked, to group the runner's round trips."""
    if isinstance(query, bytes):
        words = re.sub(r"--[^\n]*|/\*.*?\*/", " ", query.decode(errors="replace"), flags=re.S)
        head = words.split()[:3]
        if len(head) == 3 and head[2].upper() not in ("CONCURRENTLY", "INDEX", "TABLE"):
            head = head[:2]  # keep "CREATE UNIQUE INDEX", drop object names
        first = re.sub(r'"[^"]*"', "X", " ".join(head).upper())
        return f"migration SQL ({first} ...)"
    text = query.as_string(conn) if hasattr(query, "as_string") else str(query)
    text = re.sub(r"'(?:[^']|'')*'", "?", text)
    text = re.sub(r'"[^"]*"', "X", text)
    text = re.sub(r"\b\d+\b", "N", text)
    text = " ".join(text.split())
    return text[:110]


# ------------------------------------------------------------------------------ the application

#: A response slower than this (ms) is a stall the application's users notice.
SLOW_MS = 100.0


@dataclass(frozen=True)
class Workload:
    """What each application client sends: one single-row statement per request, keyed by a
    random integer from 1 to ``keys`` (its one parameter).

    With both ``read`` and ``write`` a request is a write with probability ``write_share``;
    with one of them None every request is the other. Client ``i`` draws from
    ``random.Random(seed + i)``, so a benchmark's load is the same in every trial.
    """

    read: str | None
    write: str | None
    keys: int
    write_share: float = 0.0
    seed: int = 1000

    def __post_init__(self) -> None:
        if self.read is None and self.write is None:
            raise ValueError("a workload needs a read or a write statement")

    def pick(self, rng: random.Random) -> tuple[str, bool]:
        """The statement of the next request, and whether it is the write."""
        # One statement only: no draw, so the keys' random sequence is the same as if the
        # choice did not exist.
        if self.read is None:
            assert self.write is not None  # __post_init__
            return self.write, True
        if self.write is None:
            return self.read, False
        is_write = rng.random() < self.write_share
        return (self.write if is_write else self.read), is_write


@dataclass
class Requests:
    """What the application's clients saw, in time.monotonic() seconds.

    ``executed``: (scheduled slot, start, end, 1 for a write else 0) of each request sent;
    ``missed``: (scheduled slot, when it could have been sent) of each slot that passed while
    its client was stuck in an earlier request. Response time runs from the scheduled slot.
    """

    executed: list[tuple[float, float, float, int]] = field(default_factory=list)
    missed: list[tuple[float, float]] = field(default_factory=list)

    def responses(self) -> list[tuple[float, float]]:
        """(scheduled slot, end) of every request, sent or missed: end - slot is its response
        time, coordinated omission corrected."""
        return [(slot, end) for slot, _start, end, _write in self.executed] + self.missed


class AppLoad:
    """An application under constant load: ``clients`` clients, each on its own connection,
    each sending one request of ``workload`` every ``period_s`` on a fixed schedule.

    Response time is measured from the *scheduled* start, and the slots a stuck client could not
    send are kept with the time they would have waited (coordinated omission corrected, as
    HdrHistogram does), so a client stuck behind a lock does not hide the requests it would have
    sent. Clients are forked processes (``processes=True``: they share no interpreter lock with
    the benchmark or each other) or threads of this process.

    ``start()`` waits until every client is connected and warmed up and returns when the
    schedule begins; ``stop()`` returns the requests; ``close()`` (or leaving the ``with``
    block) stops whatever is left, on any path.
    """

    def __init__(
        self,
        dsn: str,
        workload: Workload,
        *,
        clients: int,
        period_s: float,
        processes: bool = True,
    ) -> None:
        self._ready: Any
        self._results: Any
        self._go: Any
        self._stop: Any
        self._start_at: Any
        self._workers: list[Any]
        self._processes = processes
        if processes:
            # fork: the caller holds no connection or thread at this point, and forking is
            # ~100x faster than spawning an interpreter per client per trial.
            ctx = multiprocessing.get_context("fork")
            self._ready, self._results = ctx.Queue(), ctx.Queue()
            self._go, self._stop = ctx.Event(), ctx.Event()
            self._start_at = ctx.Value("d", 0.0)
            spawn: Any = ctx.Process
        else:
            self._ready, self._results = queue.Queue(), queue.Queue()
            self._go, self._stop = threading.Event(), threading.Event()
            self._start_at = _Moment()
            spawn = threading.Thread
        self._workers = [
            spawn(
                target=_client,
                args=(
                    i,
                    clients,
                    dsn,
                    workload,
                    period_s,
                    self._ready,
                    self._go,
                    self._start_at,
                    self._stop,
                    self._results,
                ),
                daemon=True,
            )
            for i in range(clients)
        ]

    def __enter__(self) -> AppLoad:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> float:
        """Start the clients, wait for their warm-up; the time.monotonic() when the schedule
        begins (just after this returns)."""
        for worker in self._workers:
            worker.start()
        for _ in self._workers:
            self._ready.get(timeout=60)
        began = time.monotonic() + 0.05
        self._start_at.value = began
        self._go.set()
        return began

    def stop(self) -> Requests:
        """Stop the clients after their current request; every request they made."""
        self._stop.set()
        seen = Requests()
        for _ in self._workers:
            got = self._results.get(timeout=60)
            seen.executed.extend(map(tuple, got["executed"]))
            seen.missed.extend(map(tuple, got["missed"]))
        for worker in self._workers:
            worker.join(timeout=10)
        return seen

    def close(self) -> None:
        """Release clients still waiting or running (processes are killed)."""
        self._stop.set()
        self._go.set()
        for worker in self._workers:
            if self._processes and worker.is_alive():
                worker.kill()


@dataclass
class _Moment:
    """A float shared by threads, shaped like multiprocessing.Value("d")."""

    value: float = 0.0


def _client(
    index: int,
    n_clients: int,
    dsn: str,
    workload: Workload,
    period_s: float,
    ready: Any,
    go: Any,
    start_at: Any,
    stop: Any,
    results: Any,
) -> None:
    """One application client: a request every ``period_s`` on a fixed schedule."""
    import psycopg

    rng = random.Random(workload.seed + index)
    conn = psycopg.connect(dsn, autocommit=True, application_name=f"bench-app-{index}")
    # Warm up: connection, plan cache, prepared statements.
    warm_up, warm_up_writes = (
        (workload.read, False) if workload.read is not None else (workload.write, True)
    )
    assert warm_up is not None
    for _ in range(10):
        _send(conn, warm_up, rng.randint(1, workload.keys), warm_up_writes)
    ready.put(index)
    go.wait()
    # Clients are staggered inside the period so the load is smooth.
    slot = start_at.value + period_s * index / n_clients
    executed: list[tuple[float, float, float, int]] = []
    missed: list[tuple[float, float]] = []
    monotonic = time.monotonic
    while not stop.is_set():
        now = monotonic()
        if now < slot:
            time.sleep(slot - now)
        statement, is_write = workload.pick(rng)
        key = rng.randint(1, workload.keys)
        began = monotonic()
        _send(conn, statement, key, is_write)
        ended = monotonic()
        executed.append((slot, began, ended, int(is_write)))
        slot += period_s
        while slot < ended:  # slots that passed while this query was stuck
            missed.append((slot, ended))
            slot += period_s
    conn.close()
    results.put({"client": index, "executed": executed, "missed": missed})


def _send(conn: Any, statement: str, key: int, is_write: bool) -> None:
    """One request; a read's rows are fetched, as an application would."""
    cursor = conn.execute(statement, (key,))
    if not is_write:
        cursor.fetchall()


def sleep_until(moment: float) -> None:
    """Sleep until time.monotonic() reaches ``moment`` (at once if it has)."""
    delay = moment - time.monotonic()
    if delay > 0:
        time.sleep(delay)


# ------------------------------------------------------------------------------ statistics


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation between closest ranks."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def summary(values: Sequence[float]) -> dict[str, float]:
    """min, median and max of several runs' values."""
    return {
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
        "n": len(values),
    }


def fmt_s(seconds: float) -> str:
    """Seconds for a table: ms below one second."""
    if seconds != seconds:  # NaN
        return "n/a"
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


# ------------------------------------------------------------------------------ reporting


def machine_info(instance: Any | None = None) -> dict[str, Any]:
    """What the numbers were measured on."""
    info: dict[str, Any] = {
        "cores": os.cpu_count(),
        "nproc": _nproc(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    with contextlib.suppress(OSError):
        load = os.getloadavg()
        info["loadavg_at_start"] = [round(x, 2) for x in load]
    if instance is not None:
        with admin(instance) as conn:
            info["postgresql"] = conn.execute("SELECT version()").fetchone()[0]
            info["server_settings"] = dict(
                conn.execute(
                    "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', "
                    "'full_page_writes', 'synchronous_commit', 'shared_buffers', "
                    "'wal_sync_method', 'data_directory')"
                ).fetchall()
            )
    info["git"] = _git_state()
    info["packages"] = _versions(["safemigrate", "psycopg", "pglast", "click", "yoyo-migrations"])
    return info


def _git_state() -> dict[str, Any]:
    """The commit measured, and the package files that differed from it (others may be
    editing the work tree while a benchmark runs)."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, check=False
        ).stdout.strip()

    with contextlib.suppress(OSError):
        return {
            "commit": git("rev-parse", "HEAD"),
            "modified_package_files": git(
                "status", "--porcelain", "--", "safemigrate"
            ).splitlines(),
        }
    return {}


def _nproc() -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        return subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return "?"


def _versions(names: Sequence[str]) -> dict[str, str | None]:
    from importlib import metadata

    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON, creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")


def log(message: str) -> None:
    """Progress on stderr (stdout is kept for the result table)."""
    print(message, file=sys.stderr, flush=True)
