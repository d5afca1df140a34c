"""Repeatable fault-injection trials over whole migration corpora, and the checks after each.

A trial applies a whole corpus (``migrations_example/``, or the langfuse corpus in
``../shared/corpora/langfuse/migrations``) to a fresh database while one kind of fault is
injected at moments drawn from a seeded random generator:

- ``kill9``: the runner is SIGKILLed (several times per trial), each time at a random moment:
  a random time after its start (start-up, connect, run lock, journal creation...), the start
  of a random step, or the start of a random CONCURRENTLY/autocommit step, plus a random few
  milliseconds. Leftover backends are ended with pg_terminate_backend half of the time; the
  other half the rerun waits for them with ``--wait-for-lock 30s``. Reruns go on until one
  finishes.
- ``restart-fast`` / ``restart-immediate``: the server is restarted (``pg_ctl stop -m MODE``,
  then started again) at the start of random steps; the same runner must reconnect and finish.
- ``terminate``: the runner's backend is ended with pg_terminate_backend at random steps; the
  same runner must reconnect and finish.
- ``outage``: the server is SIGKILLed at a random step and stays down longer than the
  runner's ``reconnect_timeout`` (2s): the runner must exit 6 and the next run, once the server
  is back (crash recovery), must finish the job.
- ``concurrent`` / ``concurrent-wait``: eight runners are started at once (in a seeded order
  with seeded gaps of up to 50ms); without ``--wait-for-lock`` the losers exit 3, with
  ``--wait-for-lock 60s`` they wait and find nothing to do.
- ``mixed`` (issue 21's soak; on the ``mixed`` corpus, bench/harness/mixed_corpus.py: session
  SETs across files, batched changes, constraint recipes): each of several faults is drawn
  from kill -9 of the runner, pg_terminate_backend of its backend and a fast or immediate
  server restart, and lands at the start of a random step, during the batches, or between
  recipe parts; a killed runner is run again, the others must reconnect. Every batch must be
  applied exactly once, to the table the search_path of its file names.

After every trial: the schema equals the reference application's (one psql session running
every file in turn, autocommit per statement), the journal has exactly one row per step and
every row is 'applied', no INVALID index is left, and neither a runner process nor a runner
backend is left.
After every kill whose backends were ended, the journal is a clean prefix of the steps: applied
rows for the first N steps and at most one 'started' autocommit or batched step after them.

tests/faults/test_reliability_trials.py holds the CI-size runs (a few trials);
``bench/chaos.py`` runs the same trials by the hundred and prints a table per fault. A failing
trial names its kind, corpus and seed;
``python bench/chaos.py --kinds KIND --corpora CORPUS --seed SEED --trials 1`` repeats it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import random
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import psycopg

from bench.harness import mixed_corpus
from bench.harness.corpora import EXAMPLE, FOREIGN_HISTORY_ENV, LANGFUSE
from bench.harness.databases import fresh_database, invalid_indexes, journal_rows, schema_snapshot
from bench.harness.processes import FAST_BACKOFF, Runner, environment, psql_binary
from safemigrate.core.model import TxMode
from safemigrate.infra.throwaway import ThrowawayServer
from safemigrate.planning.migrations import load_migrations

#: Every fault kind a trial can inject.
KINDS = (
    "kill9",
    "restart-fast",
    "restart-immediate",
    "terminate",
    "outage",
    "concurrent",
    "concurrent-wait",
    "mixed",
)
#: The kinds that restart or kill the server: they need a server of their own.
SERVER_KINDS = frozenset({"restart-fast", "restart-immediate", "outage", "mixed"})
#: The faults a ``mixed`` trial draws from.
MIXED_FAULTS = ("kill9", "terminate", "restart-fast", "restart-immediate")
#: The application_names of a runner's two sessions.
RUNNER_APPS = ("safemigrate", "safemigrate-monitor")
#: Settings of the trials' own server: prepared transactions are the gates that survive
#: restarts in test_reliability_reconnect.py.
OWN_SERVER_SETTINGS = {"max_prepared_transactions": "4"}


class MissingProgram(RuntimeError):
    """A program a trial needs (psql, for the reference application) is not installed."""


class SharedServer(Protocol):
    """What a trial needs of the test session's server (tests/fixtures_db.PgServer)."""

    @property
    def admin_dsn(self) -> str: ...

    @property
    def major_version(self) -> int: ...

    def dsn(self, dbname: str = ...) -> str: ...


# ------------------------------------------------------------------------------------------
# Where trials run


class Cluster:
    """A PostgreSQL server on which trials create their own databases (and maybe restart it)."""

    def __init__(
        self,
        admin_dsn: str,
        dsn_for: Callable[[str], str],
        major_version: int,
        throwaway: ThrowawayServer | None = None,
    ) -> None:
        self.admin_dsn = admin_dsn
        self.dsn_for = dsn_for
        self.major_version = major_version
        self.throwaway = throwaway

    @classmethod
    def of(cls, server: SharedServer) -> Cluster:
        """The test session's shared server (never restarted by a trial)."""
        return cls(server.admin_dsn, server.dsn, server.major_version)

    @classmethod
    def own(cls, throwaway: ThrowawayServer) -> Cluster:
        """A server of the trial's own, which restart and outage trials may stop and start."""
        return cls(throwaway.dsn("postgres"), throwaway.dsn, throwaway.major_version, throwaway)

    def ensure_running(self) -> None:
        """Start the own server again if a trial left it down."""
        if self.throwaway is not None and not self.throwaway.running:
            self.throwaway.start()

    @contextlib.contextmanager
    def database(self) -> Iterator[str]:
        """A fresh empty database of its own; its DSN; dropped afterwards."""
        self.ensure_running()
        with fresh_database(
            self.admin_dsn, self.dsn_for, "sm_chaos_", before_drop=self.ensure_running
        ) as dsn:
            yield dsn


# ------------------------------------------------------------------------------------------
# What is applied, and what it must give


@dataclass(frozen=True)
class Corpus:
    """A migration directory and the journal it must end with."""

    name: str
    directory: Path
    #: (version, step index) of every step, in the order the runner applies them.
    steps: tuple[tuple[int, int], ...]
    #: The steps that run outside a transaction (CONCURRENTLY and the like).
    autocommit: frozenset[tuple[int, int]]
    #: (name, query) of what must equal the reference besides the public schema.
    queries: tuple[tuple[str, str], ...] = ()
    #: The batched steps (``batch-size=N``): like autocommit steps, they write a 'started'
    #: row before their first batch.
    batched: frozenset[tuple[int, int]] = frozenset()

    @property
    def expected_journal(self) -> list[tuple[int, int, str]]:
        """The journal rows of a complete application."""
        return [(v, s, "applied") for v, s in self.steps]


CORPORA: dict[str, Callable[[], Path]] = {
    "example": lambda: EXAMPLE,
    "langfuse": lambda: LANGFUSE,
    "mixed": mixed_corpus.directory,
}


@functools.cache
def corpus(name: str) -> Corpus:
    """The corpus called ``name`` (``example``, ``langfuse`` or ``mixed``)."""
    directory = CORPORA[name]()
    migrations = load_migrations(directory)
    steps = tuple((m.version, s.index) for m in migrations for s in m.steps)
    autocommit = frozenset(
        (m.version, s.index) for m in migrations for s in m.steps if s.mode is TxMode.AUTOCOMMIT
    )
    queries = mixed_corpus.QUERIES if name == "mixed" else ()
    batched = frozenset(
        (m.version, s.index) for m in migrations for s in m.steps if s.options.batch_size
    )
    return Corpus(name, directory, steps, autocommit, queries, batched)


def corpus_available(name: str) -> bool:
    """False when the corpus is not on this machine (langfuse lives in ../shared)."""
    return name == "mixed" or CORPORA[name]().is_dir()


def corpus_snapshot(dsn: str, source: Corpus) -> dict[str, list[tuple[Any, ...]]]:
    """The public schema (schema_snapshot) and what the corpus's own queries show."""
    snapshot = schema_snapshot(dsn)
    if source.queries:
        with psycopg.connect(dsn, autocommit=True) as conn:
            snapshot.update({k: conn.execute(q.encode()).fetchall() for k, q in source.queries})
    return snapshot


def apply_reference(dsn: str, source: Corpus) -> None:
    """The reference application: one psql session reading every file in turn (``psql -X -v
    ON_ERROR_STOP=1 -f A -f B ...``), as psql runs a fresh build: what the runner's sessions
    reproduce, session settings included, however often it is interrupted (40 times faster
    on the 434 langfuse files than one psql per file; the langfuse MANIFEST gets the same
    schema hash both ways)."""
    psql = psql_binary()
    if psql is None:
        raise MissingProgram("psql is not installed")
    files = sorted(source.directory.glob("*.sql"), key=lambda p: int(p.name.split("_")[0]))
    args = [psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn]
    for path in files:
        args += ["-f", str(path)]
    subprocess.run(args, check=True, capture_output=True, env=environment())


_REFERENCES: dict[tuple[str, int], dict[str, list[tuple[Any, ...]]]] = {}


def reference_snapshot(cluster: Cluster, source: Corpus) -> dict[str, list[tuple[Any, ...]]]:
    """The schema the reference application gives on this PostgreSQL version (cached)."""
    key = (source.name, cluster.major_version)
    if key not in _REFERENCES:
        with cluster.database() as dsn:
            apply_reference(dsn, source)
            _REFERENCES[key] = corpus_snapshot(dsn, source)
    return _REFERENCES[key]


# ------------------------------------------------------------------------------------------
# A trial's outcome


@dataclass
class TrialResult:
    """What one trial did and found."""

    kind: str
    corpus: str
    seed: int
    #: Faults injected (kills, restarts, terminations, outages; runners for concurrent).
    faults: int = 0
    #: Faults that hit a run in progress (a killed runner, a reconnection...); for concurrent
    #: trials, the runners that lost the race for the run lock.
    landed: int = 0
    #: Runner processes started.
    runs: int = 0
    #: Runs that exited 3 (concurrent) or waited and found nothing to do.
    lock_refusals: int = 0
    #: Runs refused with "a session that has just ended" instead of the holder's pid.
    unnamed_holder: int = 0
    checks: dict[str, bool] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: For mixed trials: the faults injected, by kind, and where they landed.
    fault_kinds: Counter[str] = field(default_factory=Counter)
    moments: Counter[str] = field(default_factory=Counter)

    def check(self, name: str, ok: bool, detail: object = "") -> bool:
        """Record a check (a name checked several times passes only if it always passed)."""
        self.checks[name] = self.checks.get(name, True) and ok
        if not ok:
            self.problems.append(f"{name}: {str(detail)[-1500:]}")
        return ok

    @property
    def recovered(self) -> bool:
        """Every check passed."""
        return bool(self.checks) and all(self.checks.values())

    def report(self) -> str:
        """Several lines for a failed assertion, with what repeats the trial."""
        head = (
            f"trial kind={self.kind} corpus={self.corpus} seed={self.seed}: faults={self.faults} "
            f"landed={self.landed} runs={self.runs} checks={self.checks}"
        )
        again = (
            f"repeat: python bench/chaos.py --kinds {self.kind} --corpora {self.corpus} "
            f"--seed {self.seed} --trials 1"
        )
        return "\n".join([head, *self.problems, again])

    def to_dict(self) -> dict[str, Any]:
        """For bench/chaos.py --json."""
        return {
            "kind": self.kind,
            "corpus": self.corpus,
            "seed": self.seed,
            "faults": self.faults,
            "landed": self.landed,
            "runs": self.runs,
            "lock_refusals": self.lock_refusals,
            "unnamed_holder": self.unnamed_holder,
            "recovered": self.recovered,
            "checks": self.checks,
            "problems": self.problems,
            "seconds": round(self.seconds, 2),
            "fault_kinds": dict(self.fault_kinds),
            "moments": dict(self.moments),
        }


# ------------------------------------------------------------------------------------------
# Watching a runner


class Events:
    """The JSON events of a background runner, parsed as they arrive."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.seen: list[dict[str, Any]] = []
        self._read = 0

    def poll(self) -> list[dict[str, Any]]:
        """Parse the lines printed since the last poll; return every event so far."""
        lines = self.runner.stdout_lines
        while self._read < len(lines):
            line = lines[self._read]
            self._read += 1
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    self.seen.append(json.loads(line))
        return self.seen

    def count(self, kind: str, **fields: Any) -> int:
        """How many events of ``kind`` (with these field values) were printed."""
        return sum(
            1
            for e in self.poll()
            if e.get("event") == kind and all(e.get(k) == v for k, v in fields.items())
        )

    def first(self, kind: str) -> dict[str, Any] | None:
        """The first event of ``kind``, if any."""
        return next((e for e in self.poll() if e.get("event") == kind), None)

    def last(self, kind: str) -> dict[str, Any] | None:
        """The last event of ``kind``, if any."""
        return next((e for e in reversed(self.poll()) if e.get("event") == kind), None)

    def wait(self, probe: Callable[[], bool], timeout: float) -> bool:
        """Poll until ``probe()``; False if the runner exited first. Raises after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            if probe():
                return True
            if self.runner.proc.poll() is not None:
                # Let the reader threads deliver the last lines before deciding.
                self.runner.drain()
                return probe()
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s:\n{self.runner.output[-3000:]}")
            time.sleep(0.002)


def runner_backends(dsn: str) -> list[int]:
    """Pids of the runner sessions connected to this database."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name = ANY(%s) AND pid <> pg_backend_pid()",
            [list(RUNNER_APPS)],
        ).fetchall()
    return [r[0] for r in rows]


def terminate_backends(dsn: str, apps: tuple[str, ...] = RUNNER_APPS, timeout: float = 10) -> int:
    """pg_terminate_backend the runner sessions of ``apps`` in this database; wait until gone."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = ANY(%s) "
            "AND pid <> pg_backend_pid()",
            [list(apps)],
        ).fetchall()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            left = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND application_name = ANY(%s) AND pid <> pg_backend_pid()",
                [list(apps)],
            ).fetchone()
            if left is not None and left[0] == 0:
                break
            time.sleep(0.02)
    return len(rows)


def _tail(runner: Runner, size: int = 1500) -> str:
    return f"exit {runner.proc.returncode}: {runner.output[-size:]}"


# ------------------------------------------------------------------------------------------
# Checks


def check_journal_prefix(result: TrialResult, source: Corpus, dsn: str) -> None:
    """After a crash: applied rows for the first N steps, at most one 'started' after them."""
    rows = journal_rows(dsn)
    order = {key: i for i, key in enumerate(source.steps)}
    unknown = [r for r in rows if (r[0], r[1]) not in order]
    if not result.check("journal rows are known steps", not unknown, unknown):
        return
    applied = sorted(order[(v, s)] for v, s, state in rows if state == "applied")
    started = [(v, s) for v, s, state in rows if state == "started"]
    result.check(
        "journal is a prefix of the steps after a crash",
        applied == list(range(len(applied))),
        f"applied step positions {applied[:5]}...{applied[-5:]} of {len(source.steps)}",
    )
    result.check(
        "only an autocommit or batched step is left 'started'",
        len(started) <= 1
        and all(
            k in source.autocommit | source.batched and order[k] == len(applied) for k in started
        ),
        started,
    )


def final_checks(
    result: TrialResult,
    cluster: Cluster,
    source: Corpus,
    dsn: str,
    runners: list[Runner],
) -> None:
    """What every trial must end with: reference schema, exact journal, no leftovers."""
    reference = reference_snapshot(cluster, source)
    snapshot = corpus_snapshot(dsn, source)
    differs = [k for k in reference if reference[k] != snapshot.get(k)]
    result.check("schema equals the reference", not differs, f"differs in {differs}")
    if source.name == "mixed":
        with psycopg.connect(dsn, autocommit=True) as conn:
            counters = conn.execute(mixed_corpus.COUNTERS).fetchall()
        result.check(
            "every batch applied once, to the table its search_path names",
            counters == [(1, 1), (1, 1)],
            counters,
        )
    rows = journal_rows(dsn)
    duplicates = [k for k, n in Counter((v, s) for v, s, _ in rows).items() if n > 1]
    result.check("journal has no duplicate step", not duplicates, duplicates)
    result.check(
        "journal has exactly one 'applied' row per step",
        rows == source.expected_journal,
        f"{len(rows)} rows for {len(source.steps)} steps; "
        f"not applied: {[r for r in rows if r[2] != 'applied'][:5]}",
    )
    result.check("no invalid index", invalid_indexes(dsn) == [], invalid_indexes(dsn))
    alive = [r.pid for r in runners if r.proc.poll() is None]
    result.check("no runner process left", not alive, alive)
    deadline = time.monotonic() + 10
    left = runner_backends(dsn)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = runner_backends(dsn)
    result.check("no runner backend left", not left, left)


def _up_args(source: Corpus, dsn: str, *extra: str) -> tuple[str, ...]:
    # The trials are about crashes and contention, not lint: langfuse's history has error
    # findings the lint gate would refuse (tests/integration/test_lint_gate.py tests the gate).
    gate = ("--lint-gate", "off") if source.directory != EXAMPLE else ()
    return ("up", "--dir", str(source.directory), "--dsn", dsn, "--format", "json", *gate, *extra)


def _env(source: Corpus, env: dict[str, str]) -> dict[str, str]:
    """``env``, with what another project's history needs to run (see FOREIGN_HISTORY_ENV)."""
    return {**env, **FOREIGN_HISTORY_ENV} if source.directory == LANGFUSE else env


# ------------------------------------------------------------------------------------------
# The trials


def kill9_trial(
    cluster: Cluster,
    source: Corpus,
    seed: int,
    *,
    kills: int = 2,
    terminate_probability: float = 0.5,
) -> TrialResult:
    """SIGKILL the runner ``kills`` times at random moments, then rerun until it finishes."""
    rng = random.Random(f"kill9-{source.name}-{seed}")
    result = TrialResult("kill9", source.name, seed)
    began = time.monotonic()
    runners: list[Runner] = []
    with cluster.database() as dsn:
        try:
            for round_ in range(kills + 1):
                rerun = ("--wait-for-lock", "30s") if round_ else ()
                runner = Runner(*_up_args(source, dsn, *rerun), env=_env(source, FAST_BACKOFF))
                runners.append(runner)
                result.runs += 1
                if round_ == kills:
                    code = runner.wait(timeout=600)
                    result.check("the last rerun exits 0", code == 0, _tail(runner))
                    break
                if not _wait_for_kill_moment(runner, rng, source, dsn):
                    # It finished before the moment came: the job is done.
                    code = runner.wait(timeout=600)
                    result.check("a run that was not killed exits 0", code == 0, _tail(runner))
                    break
                os.kill(runner.pid, signal.SIGKILL)
                code = runner.wait(timeout=60)
                result.faults += 1
                if code != -signal.SIGKILL:
                    result.check(
                        "a run that ended before its kill exits 0", code == 0, _tail(runner)
                    )
                    break
                result.landed += 1
                if rng.random() < terminate_probability:
                    terminate_backends(dsn)
                    check_journal_prefix(result, source, dsn)
            final_checks(result, cluster, source, dsn, runners)
        finally:
            for runner in runners:
                with contextlib.suppress(Exception):
                    runner.kill()
    result.seconds = time.monotonic() - began
    return result


def _wait_for_kill_moment(runner: Runner, rng: random.Random, source: Corpus, dsn: str) -> bool:
    """Wait for a random moment of the run; False if the runner exited before it."""
    events = Events(runner)
    draw = rng.random()
    if draw < 0.25:
        # Any moment: start-up, connecting, the run lock, journal creation, steps.
        deadline = time.monotonic() + rng.uniform(0.2, 1.2)
        return events.wait(lambda: time.monotonic() >= deadline, timeout=30)
    if not events.wait(lambda: events.first("run_started") is not None, timeout=60):
        return False
    started = events.first("run_started")
    assert started is not None
    pending = int(started["pending_steps"])
    if pending == 0:
        return False
    done = {(v, s) for v, s, state in journal_rows(dsn) if state == "applied"}
    pending_autocommit = len(source.autocommit - done)
    if draw < 0.5 and pending_autocommit:
        # During a CONCURRENTLY build (or another autocommit step).
        nth = rng.randint(1, pending_autocommit)
        reached = events.wait(
            lambda: events.count("step_started", mode="autocommit") >= nth, timeout=600
        )
        jitter = rng.uniform(0, 0.01)
    else:
        nth = rng.randint(1, pending)
        reached = events.wait(lambda: events.count("step_started") >= nth, timeout=600)
        jitter = rng.uniform(0, 0.02)
    if not reached:
        return False
    time.sleep(jitter)
    return runner.proc.poll() is None


def reconnect_trial(
    cluster: Cluster, source: Corpus, seed: int, *, kind: str, faults: int = 2
) -> TrialResult:
    """Restart the server or end the runner's backend at random steps; the runner must resume."""
    if kind != "terminate" and cluster.throwaway is None:
        raise ValueError(f"{kind} needs a server of the trial's own")
    rng = random.Random(f"{kind}-{source.name}-{seed}")
    result = TrialResult(kind, source.name, seed)
    began = time.monotonic()
    with cluster.database() as dsn:
        runner = Runner(*_up_args(source, dsn), env=_env(source, FAST_BACKOFF))
        result.runs = 1
        try:
            events = Events(runner)
            if events.wait(lambda: events.first("run_started") is not None, timeout=60):
                started = events.first("run_started")
                assert started is not None
                pending = int(started["pending_steps"])
                moments = sorted(rng.sample(range(1, pending), min(faults, max(0, pending - 1))))
                for moment in moments:

                    def reached(m: int = moment) -> bool:
                        return events.count("step_started") >= m

                    if not events.wait(reached, 600):
                        break
                    time.sleep(rng.uniform(0, 0.02))
                    if runner.proc.poll() is not None:
                        break
                    back_before = events.count("reconnected")
                    _inject(cluster, dsn, kind)
                    result.faults += 1

                    # A fault that hit the run ends in a reconnection (or in the runner's exit,
                    # which the checks below report); one that came after the last step, in
                    # the runner's normal exit.
                    def reconnected(n: int = back_before) -> bool:
                        return events.count("reconnected") > n

                    if events.wait(reconnected, 90):
                        result.landed += 1
            code = runner.wait(timeout=600)
            result.check("the same run reconnects and exits 0", code == 0, _tail(runner))
            # One connection_lost per loss is what the README promises, but api.up reports
            # only the first loss of a run (see test_reliability_reconnect.py).
            lost, back = events.count("connection_lost"), events.count("reconnected")
            result.check(
                "connection_lost reported before reconnecting", back == 0 or lost >= 1, lost
            )
            final_checks(result, cluster, source, dsn, [runner])
        finally:
            with contextlib.suppress(Exception):
                runner.kill()
    result.seconds = time.monotonic() - began
    return result


def _inject(cluster: Cluster, dsn: str, kind: str) -> None:
    if kind == "terminate":
        terminate_backends(dsn, apps=("safemigrate",))
        return
    assert cluster.throwaway is not None
    cluster.throwaway.restart(kind.removeprefix("restart-"))


def outage_trial(cluster: Cluster, source: Corpus, seed: int) -> TrialResult:
    """Crash the server at a random step for longer than reconnect_timeout; exit 6, then rerun."""
    server = cluster.throwaway
    if server is None:
        raise ValueError("outage needs a server of the trial's own")
    rng = random.Random(f"outage-{source.name}-{seed}")
    result = TrialResult("outage", source.name, seed)
    began = time.monotonic()
    runners: list[Runner] = []
    with cluster.database() as dsn:
        try:
            env = {**FAST_BACKOFF, "SAFEMIGRATE_RECONNECT_TIMEOUT": "2s"}
            runner = Runner(*_up_args(source, dsn), env=_env(source, env))
            runners.append(runner)
            result.runs += 1
            events = Events(runner)
            landed = False
            if events.wait(lambda: events.first("run_started") is not None, timeout=60):
                started = events.first("run_started")
                assert started is not None
                pending = int(started["pending_steps"])
                nth = rng.randint(1, max(1, pending - 1))
                if events.wait(lambda: events.count("step_started") >= nth, timeout=600):
                    time.sleep(rng.uniform(0, 0.02))
                    landed = runner.proc.poll() is None
            if landed:
                server.kill()
                result.faults += 1
                code = runner.wait(timeout=60)
                server.start()
                if code != 0:
                    result.landed += 1
                    failed = events.first("run_failed")
                    result.check("exit 6 while the server is down", code == 6, _tail(runner))
                    result.check(
                        "a clear message: could not resume within the reconnect timeout",
                        failed is not None and "could not resume within 2s" in failed["error"],
                        failed,
                    )
                    runner = Runner(
                        *_up_args(source, dsn, "--wait-for-lock", "30s"), env=_env(source, env)
                    )
                    runners.append(runner)
                    result.runs += 1
            code = runner.wait(timeout=600)
            result.check("the run after the outage exits 0", code == 0, _tail(runner))
            final_checks(result, cluster, source, dsn, runners)
        finally:
            cluster.ensure_running()
            for each in runners:
                with contextlib.suppress(Exception):
                    each.kill()
    result.seconds = time.monotonic() - began
    return result


def concurrent_trial(
    cluster: Cluster, source: Corpus, seed: int, *, runners: int = 8, wait: bool = False
) -> TrialResult:
    """Start ``runners`` runners at once: exactly one applies each step."""
    rng = random.Random(f"concurrent-{wait}-{source.name}-{seed}")
    result = TrialResult("concurrent-wait" if wait else "concurrent", source.name, seed)
    began = time.monotonic()
    started: list[Runner] = []
    with cluster.database() as dsn:
        try:
            extra = ("--wait-for-lock", "60s") if wait else ()
            for _ in range(runners):
                started.append(
                    Runner(*_up_args(source, dsn, *extra), env=_env(source, FAST_BACKOFF))
                )
                time.sleep(rng.uniform(0, 0.05))
            result.runs = result.faults = len(started)
            codes = [r.wait(timeout=600) for r in started]
            allowed = {0} if wait else {0, 3}
            result.check(f"every runner exits {sorted(allowed)}", set(codes) <= allowed, codes)
            applied: Counter[tuple[int, int]] = Counter()
            appliers = 0
            for runner in started:
                steps = [e for e in Events(runner).poll() if e.get("event") == "step_applied"]
                applied.update((e["ref"]["version"], e["ref"]["step"] - 1) for e in steps)
                appliers += bool(steps)
                if runner.proc.returncode == 3:
                    result.lock_refusals += 1
                    failed = Events(runner).first("run_failed")
                    error = "" if failed is None else str(failed["error"])
                    # The holder may end between the refused try and the look-up of who held
                    # the lock: then the runner says so instead of naming it (and exits 3
                    # although the lock is free by then: see test_reliability_runlock.py).
                    ended = "a session that has just ended" in error
                    result.unnamed_holder += ended
                    result.check(
                        "a refused runner says who holds the run lock",
                        failed is not None
                        and failed["exit_code"] == 3
                        and ("pid " in error or ended),
                        failed,
                    )
                elif not steps:
                    result.lock_refusals += 1
            result.check(
                "each step applied by exactly one runner",
                applied == Counter(source.steps),
                f"{sum(applied.values())} step_applied events for {len(source.steps)} steps",
            )
            result.check("exactly one runner applies anything", appliers == 1, appliers)
            # For this kind a fault that "landed" is a runner that lost the race for the lock.
            result.landed = result.lock_refusals
            final_checks(result, cluster, source, dsn, started)
        finally:
            for runner in started:
                with contextlib.suppress(Exception):
                    runner.kill()
    result.seconds = time.monotonic() - began
    return result


def mixed_trial(cluster: Cluster, source: Corpus, seed: int, *, faults: int = 3) -> TrialResult:
    """Faults of every kind at every kind of moment (see the module docstring): kill -9 (then
    a rerun), pg_terminate_backend and a fast or immediate restart (the same run reconnects)."""
    if cluster.throwaway is None:
        raise ValueError("mixed needs a server of the trial's own")
    rng = random.Random(f"mixed-{source.name}-{seed}")
    result = TrialResult("mixed", source.name, seed)
    began = time.monotonic()
    runners: list[Runner] = []
    with cluster.database() as dsn:
        try:
            runner: Runner | None = None
            events: Events | None = None
            left = faults
            while True:
                if runner is None or events is None:
                    rerun = ("--wait-for-lock", "30s") if runners else ()
                    runner = Runner(*_up_args(source, dsn, *rerun), env=_env(source, FAST_BACKOFF))
                    events = Events(runner)
                    runners.append(runner)
                    result.runs += 1
                if left == 0 or not _mixed_moment(events, rng, result):
                    code = runner.wait(timeout=600)
                    result.check("the last run exits 0", code == 0, _tail(runner))
                    break
                kind = rng.choice(MIXED_FAULTS)
                left -= 1
                result.faults += 1
                result.fault_kinds[kind] += 1
                if kind == "kill9":
                    os.kill(runner.pid, signal.SIGKILL)
                    code = runner.wait(timeout=60)
                    if code != -signal.SIGKILL:
                        result.check(
                            "a run that ended before its kill exits 0", code == 0, _tail(runner)
                        )
                        break
                    result.landed += 1
                    if rng.random() < 0.5:
                        terminate_backends(dsn)
                        check_journal_prefix(result, source, dsn)
                    runner = events = None
                    continue
                back_before = events.count("reconnected")
                _inject(cluster, dsn, kind)

                def reconnected(n: int = back_before, seen: Events = events) -> bool:
                    return seen.count("reconnected") > n

                if events.wait(reconnected, 90):
                    result.landed += 1
                elif runner.proc.poll() is not None and runner.proc.returncode != 0:
                    result.check("the same run reconnects and exits 0", False, _tail(runner))
                    break
            final_checks(result, cluster, source, dsn, runners)
        finally:
            cluster.ensure_running()
            for each in runners:
                with contextlib.suppress(Exception):
                    each.kill()
    result.seconds = time.monotonic() - began
    return result


def _mixed_moment(events: Events, rng: random.Random, result: TrialResult) -> bool:
    """Wait for a random moment of the run: the start of one of the next few steps (session
    SETs included), a moment during the batches, or the start of a recipe part; False when
    the runner exited first."""
    draw = rng.random()
    if draw < 0.45:
        result.moments["step"] += 1
        nth = events.count("step_started") + rng.randint(1, 6)
        reached = events.wait(lambda: events.count("step_started") >= nth, timeout=600)
        jitter = rng.uniform(0, 0.02)
    elif draw < 0.75:
        result.moments["batch"] += 1
        # The next batched step's first batch, then a moment among its next batches.
        nth = events.count("batch_progress") + 1
        reached = events.wait(lambda: events.count("batch_progress") >= nth, timeout=600)
        jitter = rng.uniform(0, 0.6)
    else:
        result.moments["recipe part"] += 1
        nth = events.count("recipe_part") + rng.randint(1, 3)
        reached = events.wait(lambda: events.count("recipe_part") >= nth, timeout=600)
        jitter = rng.uniform(0, 0.01)
    if not reached:
        return False
    time.sleep(jitter)
    return events.runner.proc.poll() is None


def run_trial(
    cluster: Cluster, kind: str, source: Corpus, seed: int, **options: Any
) -> TrialResult:
    """One trial of ``kind`` (see KINDS)."""
    if kind == "kill9":
        return kill9_trial(cluster, source, seed, **options)
    if kind in ("restart-fast", "restart-immediate", "terminate"):
        return reconnect_trial(cluster, source, seed, kind=kind, **options)
    if kind == "outage":
        return outage_trial(cluster, source, seed)
    if kind in ("concurrent", "concurrent-wait"):
        return concurrent_trial(cluster, source, seed, wait=kind == "concurrent-wait", **options)
    if kind == "mixed":
        return mixed_trial(cluster, source, seed, **options)
    raise ValueError(f"unknown fault kind {kind!r}: one of {', '.join(KINDS)}")
