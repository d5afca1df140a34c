"""Application stall while a migration waits for a lock: psql, yoyo and safemigrate compared.

Scenario (all runners in the same run, each on a fresh copy of the same database):

1. A table ``accounts`` with --rows rows (default 100,000).
2. An application load: --clients processes (default 4), each on its own connection, issuing a
   primary-key read or a single-row update every --period-ms (default 5 ms) on a fixed
   schedule. Response time is measured from the *scheduled* start, and slots a stuck client
   could not send are counted with the time they would have waited (coordinated omission
   corrected, as HdrHistogram does), so a client stuck behind a lock does not hide the requests
   it would have sent.
3. A long transaction (the "blocker") reads the table and stays open --blocker-s (default 10 s).
4. --migration-delay seconds after it began (default 1 s), a migration
   ``ALTER TABLE accounts ADD COLUMN note text`` is started with one of the runners.

Runners: none (control: blocker only), ``psql -f``, yoyo-migrations (``yoyo apply --batch``),
``safemigrate up`` (defaults) and ``safemigrate up --no-lock-precheck``.

Output: bench/results/stall.json (every request of every trial plus the summary), docs/stall.png
(latency over time, one panel per runner) and a Markdown table on stdout.

    .venv/bin/python bench/stall.py            # full: 2 scenarios x 3 rounds, ~9 min
    .venv/bin/python bench/stall.py --quick    # tiny smoke run, ~12 s
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _common as c

MIGRATION_SQL = "ALTER TABLE accounts ADD COLUMN note text;\n"
RUNNERS = (
    "none",
    "psql",
    "yoyo",
    "safemigrate",
    "safemigrate-previous",
    "safemigrate-no-yield",
    "safemigrate-no-precheck",
)
LABELS = {
    "none": "no migration (control)",
    "psql": "psql -f",
    "yoyo": "yoyo apply",
    "safemigrate": "safemigrate up",
    "safemigrate-previous": "safemigrate up, previous release (before zero stall)",
    "safemigrate-no-yield": "safemigrate up, yield_after=0",
    "safemigrate-no-precheck": "safemigrate up --no-lock-precheck",
}
#: The commit whose code is "the previous release" (the pre-check, a plain exponential backoff
#: after it, no yielding): extracted with git archive and run from there.
PREVIOUS_RELEASE = "4dafe88"
REFERENCE = "safemigrate"


@dataclass(frozen=True)
class Scenario:
    """When the migration starts relative to the blocker (and what load runs)."""

    name: str
    migration_delay_s: float
    description: str
    #: False: no blocker transaction at all (busy traffic only).
    blocker: bool = True
    #: Load overrides: clients, and the period between a client's requests (0 = back to back).
    clients: int | None = None
    period_ms: float | None = None


SCENARIOS = {
    "young-blocker": Scenario(
        "young-blocker",
        1.0,
        "migration starts 1 s after the blocker began",
    ),
    "simultaneous": Scenario(
        "simultaneous",
        0.0,
        "migration starts when the blocker begins",
    ),
    "busy": Scenario(
        "busy",
        0.5,
        "no blocker; 16 clients send single-row reads and writes back to back (every 2 ms)",
        blocker=False,
        clients=16,
        # Back to back on this machine: a client's request takes about this long under load.
        period_ms=2.0,
    ),
}


# ------------------------------------------------------------------------------ the application


def workload(rows: int, update_share: float) -> c.Workload:
    """A primary-key read or a single-row update of ``accounts``."""
    return c.Workload(
        read="SELECT balance FROM accounts WHERE id = %s",
        write="UPDATE accounts SET balance = balance + 1 WHERE id = %s",
        keys=rows,
        write_share=update_share,
        seed=1000,
    )


# ------------------------------------------------------------------------------ one trial


@dataclass
class Trial:
    """One runner's run: timeline and every request."""

    scenario: str
    round: int
    runner: str
    t_load_start: float = 0.0
    t_blocker_start: float = 0.0
    t_blocker_end: float = 0.0
    t_migration_start: float | None = None
    t_migration_end: float | None = None
    t_stop: float = 0.0
    migration_exit: int | None = None
    migration_applied: bool | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    executed: list[tuple[float, float, float, int]] = field(default_factory=list)
    missed: list[tuple[float, float]] = field(default_factory=list)
    stderr_tail: str = ""
    loadavg: float | None = None
    #: Queries the runner's monitor session started during the migration (sampled from
    #: pg_stat_activity.query_start every ~2 ms: a lower bound).
    monitor_queries: int | None = None


def runner_argv(runner: str, instance: Any, dbname: str, workdir: Path) -> list[str]:
    """The command line that applies the migration with ``runner``."""
    dsn = c.url(instance, dbname)
    if runner == "psql":
        return c.psql_session_argv(instance, dbname, [workdir / "migrations" / "0001_add_note.sql"])
    if runner == "yoyo":
        return c.yoyo_apply_argv(instance, dbname, workdir / "migrations")
    argv = [
        *c.SAFEMIGRATE,
        "up",
        "--dir",
        str(workdir / "migrations"),
        "--dsn",
        dsn,
        "--format",
        "json",
    ]
    if runner == "safemigrate-no-precheck":
        argv.append("--no-lock-precheck")
    return argv


def runner_env(runner: str, previous_src: Path | None) -> dict[str, str]:
    """The environment of ``runner``: the previous release's code, or yielding off."""
    if runner == "safemigrate-previous" and previous_src is not None:
        return c.child_env(PYTHONPATH=str(previous_src))
    if runner == "safemigrate-no-yield":
        return c.child_env(SAFEMIGRATE_YIELD_AFTER="0")
    return c.child_env()


def previous_release_src(revision: str = PREVIOUS_RELEASE) -> Path | None:
    """The ``safemigrate`` package of ``revision`` (the previous release unless told),
    extracted into a temporary folder."""
    repo = Path(__file__).resolve().parents[1]
    folder = Path(tempfile.mkdtemp(prefix="bench-previous-"))
    try:
        archive = subprocess.run(
            ["git", "-C", str(repo), "archive", revision, "safemigrate"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        c.log(f"cannot extract the previous release ({exc}): skipping safemigrate-previous")
        return None
    return folder


def _count_monitor_queries(dsn: str, stop: threading.Event, trial: Trial) -> None:
    """Count the monitor session's queries (distinct query_start values) until ``stop``."""
    import psycopg

    seen: set[Any] = set()
    with psycopg.connect(dsn, autocommit=True, application_name="bench-sampler") as conn:
        while not stop.is_set():
            row = conn.execute(
                "SELECT query_start FROM pg_stat_activity "
                "WHERE application_name LIKE '%-monitor' AND state = 'active'"
            ).fetchone()
            if row is not None:
                seen.add(row[0])
            time.sleep(0.002)
    trial.monitor_queries = len(seen)


def run_trial(
    instance: Any,
    template: str,
    runner: str,
    scenario: Scenario,
    round_no: int,
    args: argparse.Namespace,
) -> Trial:
    """Load + blocker + (maybe) migration on a fresh copy of the template database."""
    import psycopg

    trial = Trial(scenario.name, round_no, runner)
    import os

    trial.loadavg = round(os.getloadavg()[0], 2)  # 1-min load before the trial (noise)
    dbname = c.create_database(instance, template, prefix="stall")
    workdir = Path(tempfile.mkdtemp(prefix="bench-stall-"))
    (workdir / "migrations").mkdir()
    (workdir / "migrations" / "0001_add_note.sql").write_text(MIGRATION_SQL)
    dsn = c.url(instance, dbname)
    period_ms = scenario.period_ms if scenario.period_ms is not None else args.period_ms
    load = c.AppLoad(
        dsn,
        workload(args.rows, args.update_share),
        clients=scenario.clients or args.clients,
        period_s=period_ms / 1000,
    )
    blocker = None
    proc = None
    sampler: threading.Thread | None = None
    sampler_stop = threading.Event()
    try:
        trial.t_load_start = load.start()
        blocker = psycopg.connect(dsn, application_name="bench-blocker")
        c.sleep_until(trial.t_load_start + args.warmup_s)
        trial.t_blocker_start = time.monotonic()
        blocker_until = trial.t_blocker_start + args.blocker_s
        if scenario.blocker:
            # A report-style transaction: reads the whole table, then stays open.
            blocker.execute("SELECT count(*), sum(balance) FROM accounts").fetchone()
        else:
            # No blocker: its "end" is the start, only the migration is awaited.
            blocker_until = trial.t_blocker_start
        stderr_file = workdir / "stderr.txt"
        if runner != "none":
            c.sleep_until(trial.t_blocker_start + scenario.migration_delay_s)
            argv = runner_argv(runner, instance, dbname, workdir)
            trial.t_migration_start = time.monotonic()
            # Every runner's trial has the sampler (its pg_stat_activity reads load the
            # server a little): the same load for all, so their windows compare.
            sampler = threading.Thread(
                target=_count_monitor_queries, args=(dsn, sampler_stop, trial), daemon=True
            )
            sampler.start()
            with stderr_file.open("wb") as err:
                proc = subprocess.Popen(
                    argv,
                    cwd=workdir,
                    env=runner_env(runner, args.previous_src),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=err,
                )
            reader = threading.Thread(target=_read_events, args=(proc, trial), daemon=True)
            reader.start()
        deadline = blocker_until + args.migration_timeout_s
        while True:
            now = time.monotonic()
            if blocker is not None and now >= blocker_until:
                blocker.commit()
                trial.t_blocker_end = time.monotonic()
                blocker.close()
                blocker = None
            if proc is not None and trial.t_migration_end is None and proc.poll() is not None:
                trial.t_migration_end = time.monotonic()
                trial.migration_exit = proc.returncode
                sampler_stop.set()
            if blocker is None and (proc is None or trial.t_migration_end is not None):
                break
            if now > deadline and proc is not None and trial.t_migration_end is None:
                proc.kill()
            time.sleep(0.002)
        if sampler is not None:
            sampler_stop.set()
            sampler.join(timeout=10)
        if proc is not None:
            reader.join(timeout=10)
            trial.stderr_tail = stderr_file.read_text(errors="replace")[-1500:]
        stop_at = trial.t_blocker_end + args.settle_s
        if trial.t_migration_end is not None:
            stop_at = max(stop_at, trial.t_migration_end + 1.0)
        c.sleep_until(stop_at)
        trial.t_stop = time.monotonic()
        seen = load.stop()
        trial.executed, trial.missed = seen.executed, seen.missed
        if runner != "none":
            with psycopg.connect(dsn, autocommit=True) as conn:
                found = conn.execute(
                    "SELECT count(*) FROM information_schema.columns "
                    "WHERE table_name = 'accounts' AND column_name = 'note'"
                ).fetchone()
                assert found is not None  # count(*) always returns a row
                trial.migration_applied = bool(found[0])
    finally:
        load.close()
        if blocker is not None:
            blocker.close()
        if proc is not None and proc.poll() is None:
            proc.kill()
        c.drop_database(instance, dbname)
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    return trial


def _read_events(proc: subprocess.Popen[bytes], trial: Trial) -> None:
    """Timestamp safemigrate's JSON events as they arrive (stdout is unbuffered)."""
    assert proc.stdout is not None
    for raw in proc.stdout:
        stamp = time.monotonic()
        try:
            event = json.loads(raw)
        except ValueError:
            continue
        if isinstance(event, dict):
            trial.events.append(
                {
                    "t": stamp,
                    "event": event.get("event"),
                    "attempt": event.get("attempt"),
                    "precheck": event.get("precheck"),
                    "sqlstate": event.get("sqlstate"),
                    "wait_ms": event.get("wait_ms"),
                }
            )


# ------------------------------------------------------------------------------ metrics


def requests(trial: Trial) -> list[tuple[float, float, bool]]:
    """(scheduled time relative to the blocker's start, response time s, executed?)."""
    t0 = trial.t_blocker_start
    out = [(slot - t0, end - slot, True) for slot, _start, end, _w in trial.executed]
    out += [(slot - t0, free - slot, False) for slot, free in trial.missed]
    return [r for r in out if 0 <= r[0] <= trial.t_stop - t0]


def metrics(trial: Trial) -> dict[str, Any]:
    """The numbers of one trial, over the window from the blocker's start to the load's end."""
    reqs = requests(trial)
    resp = [r[1] for r in reqs]
    service = [
        end - start
        for slot, start, end, _w in trial.executed
        if 0 <= slot - trial.t_blocker_start <= trial.t_stop - trial.t_blocker_start
    ]
    out: dict[str, Any] = {
        "requests": len(resp),
        "executed": len(service),
        "max_s": max(resp),
        "p50_s": c.percentile(resp, 50),
        "p99_s": c.percentile(resp, 99),
        "p999_s": c.percentile(resp, 99.9),
        "over_100ms": sum(1 for r in resp if r * 1000 > c.SLOW_MS),
        "executed_over_100ms": sum(1 for s in service if s * 1000 > c.SLOW_MS),
        "window_s": trial.t_stop - trial.t_blocker_start,
        "blocker_s": trial.t_blocker_end - trial.t_blocker_start,
    }
    if trial.t_migration_start is not None and trial.t_migration_end is not None:
        out["migration_s"] = trial.t_migration_end - trial.t_migration_start
        out["migration_end_after_blocker_end_s"] = trial.t_migration_end - trial.t_blocker_end
        out["migration_exit"] = trial.migration_exit
        out["migration_applied"] = trial.migration_applied
        out["attempts"] = sum(1 for e in trial.events if e["event"] == "attempt_started")
        out["precheck_backoffs"] = sum(
            1 for e in trial.events if e["event"] == "attempt_failed" and e["precheck"]
        )
        out["lock_timeouts"] = sum(
            1 for e in trial.events if e["event"] == "attempt_failed" and not e["precheck"]
        )
        out["yields"] = sum(1 for e in trial.events if e["event"] == "step_yielded")
        if trial.monitor_queries is not None and out["migration_s"] > 0:
            out["monitor_queries_per_s"] = trial.monitor_queries / out["migration_s"]
        out["max_ms_by_phase"] = max_by_phase(trial)
        window = lock_window(trial)
        if window is not None:
            out["lock_window_s"] = window[1] - window[0]
            out["lock_window_max_s"] = window_max_s(trial, *window)
        first = [e["t"] for e in trial.events if e["event"] == "attempt_started"]
        if first:
            # safemigrate only: how old the blocker was when the first attempt began, and how
            # long the CLI took from launch to that attempt.
            out["blocker_age_at_first_attempt_s"] = first[0] - trial.t_blocker_start
            out["launch_to_first_attempt_s"] = first[0] - trial.t_migration_start
    return out


#: The phases of a safemigrate run, by the event that starts each (stall.py's busy analysis).
PHASES = (
    ("start-up (before connecting)", None),
    ("connected to first attempt", "connected"),
    ("attempts (lock wait, yields)", "attempt_started"),
    ("after the step", "step_applied"),
)


#: The margin around a runner's lock request and commit that its lock window includes.
LOCK_WINDOW_MARGIN_S = 0.5


def lock_window(trial: Trial) -> tuple[float, float] | None:
    """From the runner's lock request to its commit, with LOCK_WINDOW_MARGIN_S either side:
    safemigrate's first attempt to its step applied, psql's or yoyo's whole process (they
    connect and send the ALTER at once). The same length of window for every runner: the
    maximum response over a window grows with its length (a slow start-up on a saturated
    machine is a longer window, not a stall), so the whole-window maxima do not compare."""
    if trial.t_migration_start is None or trial.t_migration_end is None:
        return None
    begin, end = trial.t_migration_start, trial.t_migration_end
    if trial.runner.startswith("safemigrate"):
        first = next((e["t"] for e in trial.events if e["event"] == "attempt_started"), None)
        applied = next((e["t"] for e in trial.events if e["event"] == "step_applied"), None)
        if first is None or applied is None:
            return None
        begin, end = first, applied
    return begin - LOCK_WINDOW_MARGIN_S, end + LOCK_WINDOW_MARGIN_S


def _responses(trial: Trial) -> list[tuple[float, float]]:
    """(scheduled slot, response s) of every request, sent or missed."""
    out = [(slot, end - slot) for slot, _s, end, _w in trial.executed]
    return out + [(slot, free - slot) for slot, free in trial.missed]


def window_max_s(trial: Trial, begin: float, end: float) -> float | None:
    """The slowest response of the requests scheduled in [begin, end)."""
    inside = [r for slot, r in _responses(trial) if begin <= slot < end]
    return max(inside) if inside else None


def control_window_max_s(trial: Trial, length_s: float) -> float | None:
    """For the control (no migration): the median over its consecutive windows of
    ``length_s`` of each window's slowest response: what a window that long shows anyway."""
    t0, t1 = trial.t_blocker_start, trial.t_stop
    maxima = []
    at = t0
    while at + length_s <= t1:
        found = window_max_s(trial, at, at + length_s)
        if found is not None:
            maxima.append(found)
        at += length_s
    return c.percentile(maxima, 50) if maxima else None


def max_by_phase(trial: Trial) -> dict[str, float]:
    """The slowest response (ms) of the requests scheduled in each phase of the run: where a
    runner's extra wait comes from (the start-up's CPU, the pre-check and monitor reads, the
    lock wait of the attempts and their yields, or the end of the process)."""
    if trial.t_migration_start is None or trial.t_migration_end is None:
        return {}
    starts = [(trial.t_migration_start, PHASES[0][0])]
    for label, event in PHASES[1:]:
        when = next((e["t"] for e in trial.events if e["event"] == event), None)
        if when is not None:
            starts.append((when, label))
    starts.append((trial.t_migration_end, "after the process"))
    out: dict[str, float] = {}
    reqs = _responses(trial)
    for (begin, label), (end, _) in itertools.pairwise(starts):
        inside = [r for slot, r in reqs if begin <= slot < end]
        out[label] = round(max(inside) * 1000, 1) if inside else 0.0
    return out


def aggregate(trials: list[Trial]) -> dict[str, Any]:
    """Per scenario and runner: min/median/max over rounds, and max-stall ratios per round."""
    table: dict[str, Any] = {}
    for scenario in dict.fromkeys(t.scenario for t in trials):
        per_runner: dict[str, Any] = {}
        control = {
            t.round: metrics(t)["max_s"]
            for t in trials
            if t.scenario == scenario and t.runner == "none"
        }
        reference = {
            t.round: metrics(t)["max_s"]
            for t in trials
            if t.scenario == scenario and t.runner == REFERENCE
        }
        for runner in RUNNERS:
            mine = [t for t in trials if t.scenario == scenario and t.runner == runner]
            if not mine:
                continue
            ms = [metrics(t) for t in mine]
            row: dict[str, Any] = {}
            for key in (
                "max_s",
                "p99_s",
                "p999_s",
                "p50_s",
                "over_100ms",
                "executed_over_100ms",
                "migration_s",
                "migration_end_after_blocker_end_s",
                "attempts",
                "precheck_backoffs",
                "lock_timeouts",
                "yields",
                "monitor_queries_per_s",
                "blocker_age_at_first_attempt_s",
                "launch_to_first_attempt_s",
                "lock_window_s",
                "lock_window_max_s",
            ):
                values = [m[key] for m in ms if m.get(key) is not None]
                if values:
                    row[key] = c.summary(values)
            ratios = [
                metrics(t)["max_s"] / reference[t.round] for t in mine if t.round in reference
            ]
            if ratios:
                row["max_stall_ratio_vs_safemigrate"] = c.summary(ratios)
            ratios = [metrics(t)["max_s"] / control[t.round] for t in mine if t.round in control]
            if ratios:
                row["max_stall_ratio_vs_control"] = c.summary(ratios)
            # The same length of window around the lock for every runner (lock_window): the
            # ratio to psql's in the same round, and what the control shows over that length.
            psql_window = {
                t.round: metrics(t).get("lock_window_max_s")
                for t in trials
                if t.scenario == scenario and t.runner == "psql"
            }
            controls = {t.round: t for t in trials if t.scenario == scenario and t.runner == "none"}
            vs_psql, control_same = [], []
            for t in mine:
                m = metrics(t)
                mine_max = m.get("lock_window_max_s")
                theirs = psql_window.get(t.round)
                if mine_max is not None and theirs:
                    vs_psql.append(mine_max / theirs)
                if mine_max is not None and t.round in controls:
                    found = control_window_max_s(controls[t.round], m["lock_window_s"])
                    if found is not None:
                        control_same.append(found)
            if vs_psql:
                row["lock_window_ratio_vs_psql"] = c.summary(vs_psql)
            if control_same:
                row["control_same_length_max_s"] = c.summary(control_same)
            row["all_applied"] = all(m.get("migration_applied", True) for m in ms)
            per_runner[runner] = row
        table[scenario] = per_runner
    return table


def markdown(summary: dict[str, Any]) -> str:
    """The result tables, min / median / max over the rounds."""

    def mmm(row: dict[str, Any], key: str, fmt: Callable[[float], str]) -> str:
        if key not in row:
            return "-"
        s = row[key]
        if s["n"] == 1:
            return fmt(s["median"])
        return f"{fmt(s['median'])} ({fmt(s['min'])} - {fmt(s['max'])})"

    lines = []
    for scenario, rows in summary.items():
        lines.append(f"\n### {scenario}: {SCENARIOS[scenario].description}\n")
        lines.append("median (min - max) over rounds; response time from the scheduled start\n")
        lines.append(
            "| runner | max | p99 | p99.9 | requests > 100 ms | migration took | "
            "run end after blocker end | yields | monitor queries/s | "
            "max stall / safemigrate's |"
        )
        lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for runner, row in rows.items():
            ratio = mmm(row, "max_stall_ratio_vs_safemigrate", lambda x: f"{x:.1f}x")
            lines.append(
                f"| {LABELS[runner]} | {mmm(row, 'max_s', c.fmt_s)} | "
                f"{mmm(row, 'p99_s', c.fmt_s)} | {mmm(row, 'p999_s', c.fmt_s)} | "
                f"{mmm(row, 'over_100ms', lambda x: f'{x:.0f}')} | "
                f"{mmm(row, 'migration_s', c.fmt_s)} | "
                f"{mmm(row, 'migration_end_after_blocker_end_s', c.fmt_s)} | "
                f"{mmm(row, 'yields', lambda x: f'{x:.0f}')} | "
                f"{mmm(row, 'monitor_queries_per_s', lambda x: f'{x:.0f}')} | {ratio} |"
            )
        windowed = {r: row for r, row in rows.items() if "lock_window_max_s" in row}
        if windowed:
            lines.append(
                "\nThe same length of window around each runner's lock (its request to its "
                f"commit, {LOCK_WINDOW_MARGIN_S:g} s either side):\n"
            )
            lines.append(
                "| runner | window | app max in it | / psql's, same round | "
                "control's max over a window that long |"
            )
            lines.append("| --- | --- | --- | --- | --- |")
            for runner, row in windowed.items():
                lines.append(
                    f"| {LABELS[runner]} | {mmm(row, 'lock_window_s', c.fmt_s)} | "
                    f"{mmm(row, 'lock_window_max_s', c.fmt_s)} | "
                    f"{mmm(row, 'lock_window_ratio_vs_psql', lambda x: f'{x:.2f}x')} | "
                    f"{mmm(row, 'control_same_length_max_s', c.fmt_s)} |"
                )
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ the plot


def plot(trials: list[Trial], scenario: str, path: Path, title: str) -> None:
    """Response time over time, one panel per runner (the round with the median max stall)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chosen: list[Trial] = []
    for runner in RUNNERS:
        mine = sorted(
            (t for t in trials if t.scenario == scenario and t.runner == runner),
            key=lambda t: metrics(t)["max_s"],
        )
        if mine:
            chosen.append(mine[len(mine) // 2])
    fig, axes = plt.subplots(
        len(chosen), 1, figsize=(11, 2.1 * len(chosen) + 0.8), sharex=True, sharey=True
    )
    if len(chosen) == 1:
        axes = [axes]
    xmax = max(t.t_stop - t.t_blocker_start for t in chosen)
    for ax, trial in zip(axes, chosen, strict=False):
        reqs = requests(trial)
        done = [(x, y * 1000) for x, y, ex in reqs if ex]
        skipped = [(x, y * 1000) for x, y, ex in reqs if not ex]
        b1 = trial.t_blocker_end - trial.t_blocker_start
        ax.axvspan(0, b1, color="0.88", zorder=0, label="blocker transaction open")
        if trial.t_migration_start is not None and trial.t_migration_end is not None:
            m0 = trial.t_migration_start - trial.t_blocker_start
            m1 = trial.t_migration_end - trial.t_blocker_start
            ax.axvspan(
                m0,
                m1,
                ymin=0.0,
                ymax=0.06,
                color="tab:orange",
                alpha=0.9,
                label="migration running",
            )
            ax.axvline(m1, color="tab:orange", lw=1, ls="--")
        for e in trial.events:
            if e["event"] == "attempt_failed":
                colour = "tab:blue" if e["precheck"] else "tab:red"
                ax.axvline(e["t"] - trial.t_blocker_start, color=colour, lw=0.8, alpha=0.8)
        if skipped:
            ax.scatter(
                *zip(*skipped, strict=False),
                s=2,
                color="tab:purple",
                alpha=0.25,
                lw=0,
                label="request a stuck client could not send (corrected)",
            )
        if done:
            ax.scatter(
                *zip(*done, strict=False), s=3, color="black", alpha=0.5, lw=0, label="query sent"
            )
        ax.axhline(c.SLOW_MS, color="0.4", lw=0.6, ls=":")
        m = metrics(trial)
        ax.set_title(
            f"{LABELS[trial.runner]}: max {c.fmt_s(m['max_s'])}, p99 "
            f"{c.fmt_s(m['p99_s'])}, {m['over_100ms']} requests > 100 ms",
            fontsize=9,
            loc="left",
        )
        ax.set_yscale("log")
        ax.set_ylim(0.1, max(20_000, m["max_s"] * 1500))
        ax.set_xlim(-0.3, xmax + 0.2)
        ax.set_ylabel("response ms")
        ax.grid(True, which="major", axis="y", lw=0.3)
    handles: dict[str, Any] = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=False):
            handles.setdefault(lab, h)
    from matplotlib.lines import Line2D

    handles["failed attempt: lock_timeout"] = Line2D([], [], color="tab:red", lw=0.8)
    handles["failed attempt: pre-check backed off"] = Line2D([], [], color="tab:blue", lw=0.8)
    fig.legend(
        list(handles.values()),
        list(handles.keys()),
        loc="lower center",
        ncol=3,
        fontsize=8,
        markerscale=4,
        frameon=False,
    )
    axes[-1].set_xlabel("seconds since the blocker's transaction began")
    import textwrap

    fig.suptitle("\n".join(textwrap.wrap(title, 110)), fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 0.97))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------ main


def make_template(instance: Any, rows: int) -> str:
    """A database holding ``accounts`` with ``rows`` rows, vacuumed, to copy per trial."""
    import psycopg

    name = c.create_database(instance, prefix="stall_template")
    with psycopg.connect(c.url(instance, name), autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, "
            "owner text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())"
        )
        conn.execute(
            "INSERT INTO accounts (id, balance, owner) SELECT g, g %% 1000, 'owner ' || g "
            "FROM generate_series(1, %s) g",
            (rows,),
        )
        conn.execute("VACUUM ANALYZE accounts")
        conn.execute("CHECKPOINT")
    return name


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (see --help)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes, one round (smoke test)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--period-ms", type=float, default=5.0)
    p.add_argument("--update-share", type=float, default=0.2, help="share of updates")
    p.add_argument("--blocker-s", type=float, default=10.0)
    p.add_argument("--warmup-s", type=float, default=1.0)
    p.add_argument(
        "--settle-s",
        type=float,
        default=3.0,
        help="load keeps running this long after the blocker ends",
    )
    p.add_argument("--migration-timeout-s", type=float, default=60.0)
    p.add_argument("--scenarios", default="young-blocker,simultaneous,busy")
    p.add_argument(
        "--previous-release",
        default=PREVIOUS_RELEASE,
        metavar="REV",
        help="the git revision the safemigrate-previous runner runs (to measure a change "
        f"before and after in the same run) [default: {PREVIOUS_RELEASE}]",
    )
    p.add_argument("--runners", default=",".join(RUNNERS))
    p.add_argument(
        "--storage",
        choices=["disk", "ram"],
        default=None,
        help="disk: fsync and full_page_writes on, data on disk (default); ram: "
        "the throwaway module's test settings (default with --quick)",
    )
    p.add_argument(
        "--pg-bindir",
        default=None,
        help="PostgreSQL server programs (default: /usr/lib/postgresql/15/bin if "
        "present, else auto): a path, auto, system or wheel",
    )
    p.add_argument("--out", type=Path, default=None, help="JSON results file")
    p.add_argument(
        "--replot",
        type=Path,
        default=None,
        metavar="RAW",
        help="only redraw the plots from a *_requests.json.gz file",
    )
    p.add_argument("--plot", type=Path, default=None, help="PNG of the first scenario")
    args = p.parse_args(argv)
    if args.quick:
        args.rounds = 1
        args.rows = 5_000
        args.blocker_s = 0.6
        args.warmup_s = 0.1
        args.settle_s = 0.2
        args.scenarios = "young-blocker"
        SCENARIOS["young-blocker"] = Scenario("young-blocker", 0.1, "quick smoke run")
    if args.storage is None:
        args.storage = "ram" if args.quick else "disk"
    suffix = ".quick" if args.quick else ""
    if args.out is None:
        args.out = c.RESULTS / f"stall{suffix}.json"
    if args.plot is None:
        args.plot = (c.RESULTS / "stall.quick.png") if args.quick else (c.DOCS / "stall.png")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run every scenario, round and runner; write JSON, PNG and a table."""
    args = parse_args(argv)
    c.sigterm_as_interrupt()
    if args.replot is not None:
        trials = read_raw(args.replot, args)
        names = list(dict.fromkeys(t.scenario for t in trials))
        plot_all(trials, [SCENARIOS[n] for n in names], args)
        summary = aggregate(trials)
        if args.out.exists():  # refresh the summary computed from the same raw data
            data = json.loads(args.out.read_text())
            data["summary"] = summary
            for name in names:
                data["scenarios"][name]["description"] = SCENARIOS[name].description
            c.write_json(args.out, data)
        print(markdown(summary))
        return 0
    runners = [r for r in args.runners.split(",") if r]
    if args.previous_release != PREVIOUS_RELEASE:
        LABELS["safemigrate-previous"] = f"safemigrate up at {args.previous_release}"
    args.previous_src = (
        previous_release_src(args.previous_release) if "safemigrate-previous" in runners else None
    )
    if args.previous_src is None and "safemigrate-previous" in runners:
        runners.remove("safemigrate-previous")
    if "yoyo" in runners and c.yoyo_program() is None:
        c.log("yoyo-migrations is not installed: skipping the yoyo runner")
        runners.remove("yoyo")
    scenarios = [SCENARIOS[s] for s in args.scenarios.split(",") if s]
    trials = []
    began = time.monotonic()
    with c.server(args.storage, args.pg_bindir) as instance:
        info = c.machine_info(instance)
        template = make_template(instance, args.rows)
        for scenario in scenarios:
            for round_no in range(1, args.rounds + 1):
                # Interleaved: each round rotates the order, so drift on the machine is shared.
                shift = (round_no - 1) % len(runners)
                order = runners[shift:] + runners[:shift]
                for runner in order:
                    c.log(
                        f"[{time.monotonic() - began:6.1f}s] {scenario.name} round "
                        f"{round_no}/{args.rounds}: {runner}"
                    )
                    trial = run_trial(instance, template, runner, scenario, round_no, args)
                    m = metrics(trial)
                    c.log(
                        f"    max {c.fmt_s(m['max_s'])}  p99 {c.fmt_s(m['p99_s'])}  "
                        f">100ms {m['over_100ms']}  migration "
                        f"{c.fmt_s(m.get('migration_s', float('nan')))}  "
                        f"exit {m.get('migration_exit')}"
                        + (f"  max by phase {m['max_ms_by_phase']}" if m.get("attempts") else "")
                        + (
                            f"  lock window max {c.fmt_s(m['lock_window_max_s'])}"
                            if m.get("lock_window_max_s") is not None
                            else ""
                        )
                    )
                    if runner != "none" and (
                        trial.migration_exit != 0 or not trial.migration_applied
                    ):
                        c.log(f"    migration failed: {trial.stderr_tail}")
                    trials.append(trial)
    summary = aggregate(trials)
    data = {
        "benchmark": "stall",
        "machine": info,
        "parameters": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "scenarios": {
            s.name: {"migration_delay_s": s.migration_delay_s, "description": s.description}
            for s in scenarios
        },
        "migration_sql": MIGRATION_SQL,
        "summary": summary,
        "trials": [
            {
                "scenario": t.scenario,
                "round": t.round,
                "runner": t.runner,
                "loadavg_1min_before": t.loadavg,
                "metrics": metrics(t),
                # Times in seconds relative to the blocker's start.
                "blocker": [0.0, t.t_blocker_end - t.t_blocker_start],
                "migration": None
                if t.t_migration_start is None
                else [
                    t.t_migration_start - t.t_blocker_start,
                    (t.t_migration_end or t.t_stop) - t.t_blocker_start,
                ],
                "load": [t.t_load_start - t.t_blocker_start, t.t_stop - t.t_blocker_start],
                "events": [dict(e, t=round(e["t"] - t.t_blocker_start, 4)) for e in t.events],
                "stderr_tail": t.stderr_tail,
                "histogram_ms": histogram(t),
            }
            for t in trials
        ],
        "raw_requests_file": raw_path(args.out).name,
    }
    c.write_json(args.out, data)
    write_raw(raw_path(args.out), trials, args)
    c.log(f"[{time.monotonic() - began:6.1f}s] wrote {args.out} and {raw_path(args.out).name}")
    plot_all(trials, scenarios, args)
    print(markdown(summary))
    c.log(f"done in {time.monotonic() - began:.0f} s")
    return 0


# ------------------------------------------------------------------------------ raw data

#: Raw times are stored as integers in this unit (10 microseconds), relative to the blocker.
_UNIT = 1e-5


def raw_path(out: Path) -> Path:
    """Where every request of every trial goes, next to the summary JSON."""
    return out.with_name(out.stem + "_requests.json.gz")


def histogram(trial: Trial) -> dict[str, int]:
    """Response times (ms) counted in log-spaced buckets: upper bound -> count."""
    bounds = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 1e9]
    counts = dict.fromkeys(bounds, 0)
    for _x, y, _ex in requests(trial):
        ms = y * 1000
        for b in bounds:
            if ms <= b:
                counts[b] += 1
                break
    return {("inf" if b == 1e9 else f"{b:g}"): n for b, n in counts.items()}


def write_raw(path: Path, trials: list[Trial], args: argparse.Namespace) -> None:
    """Every request of every trial, compact: integers in 10 us units from the blocker start.

    executed: [slot, start - slot, end - start, is_write]; missed: [slot, free - slot].
    ``bench/stall.py --replot FILE`` redraws the plots from this file.
    """
    import gzip

    def q(v: float, t0: float) -> int:
        return round((v - t0) / _UNIT)

    out = []
    for t in trials:
        b = t.t_blocker_start
        out.append(
            {
                "scenario": t.scenario,
                "round": t.round,
                "runner": t.runner,
                "blocker_end": q(t.t_blocker_end, b),
                "stop": q(t.t_stop, b),
                "load_start": q(t.t_load_start, b),
                "migration": None
                if t.t_migration_start is None
                else [q(t.t_migration_start, b), q(t.t_migration_end or t.t_stop, b)],
                "exit": t.migration_exit,
                "applied": t.migration_applied,
                "events": [dict(e, t=q(e["t"], b)) for e in t.events],
                "executed": [
                    [q(s, b), round((st - s) / _UNIT), round((en - st) / _UNIT), w]
                    for s, st, en, w in t.executed
                ],
                "missed": [[q(s, b), round((f - s) / _UNIT)] for s, f in t.missed],
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(
            {
                "unit_s": _UNIT,
                "rows": args.rows,
                "clients": args.clients,
                "period_ms": args.period_ms,
                "trials": out,
            },
            fh,
            separators=(",", ":"),
        )


def read_raw(path: Path, args: argparse.Namespace) -> list[Trial]:
    """The trials of a raw file (times relative to the blocker's start); sets the plot's
    parameters in ``args`` from it."""
    import gzip

    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    args.rows, args.clients, args.period_ms = data["rows"], data["clients"], data["period_ms"]
    u = data["unit_s"]
    trials = []
    for r in data["trials"]:
        t = Trial(r["scenario"], r["round"], r["runner"])
        t.t_blocker_start, t.t_blocker_end, t.t_stop = 0.0, r["blocker_end"] * u, r["stop"] * u
        t.t_load_start = r["load_start"] * u
        if r["migration"] is not None:
            t.t_migration_start, t.t_migration_end = (x * u for x in r["migration"])
        t.migration_exit, t.migration_applied = r["exit"], r["applied"]
        t.events = [dict(e, t=e["t"] * u) for e in r["events"]]
        t.executed = [(s * u, (s + ls) * u, (s + ls + sv) * u, w) for s, ls, sv, w in r["executed"]]
        t.missed = [(s * u, (s + f) * u) for s, f in r["missed"]]
        trials.append(t)
    return trials


def plot_all(trials: list[Trial], scenarios: list[Scenario], args: argparse.Namespace) -> None:
    """One PNG per scenario: the first at --plot, the others beside it."""
    for i, scenario in enumerate(scenarios):
        path = (
            args.plot
            if i == 0
            else args.plot.with_name(f"{args.plot.stem}_{scenario.name}{args.plot.suffix}")
        )
        if c.have_module("matplotlib"):
            plot(
                trials,
                scenario.name,
                path,
                f"Application response time while ALTER TABLE waits ({args.rows:,} rows, "
                f"{args.clients} clients every {args.period_ms:g} ms; {scenario.description})",
            )
            c.log(f"wrote {path}")
        else:
            c.log("matplotlib is not installed: no plot")


if __name__ == "__main__":
    sys.exit(main())
