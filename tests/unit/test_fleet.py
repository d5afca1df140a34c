"""The fleet without a database: targets files, waves, the stopping policy, Ctrl-C, exit codes."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from safemigrate.core.errors import ConfigError, ExitCode, StepFailedError
from safemigrate.core.events import Event, RunStarted
from safemigrate.core.reached import Target
from safemigrate.render.fleet_report import (
    FleetReport,
    TargetEvent,
    TargetOutcome,
    TargetState,
    fleet_table,
    worst_exit_code,
)
from safemigrate.run.connection import Database
from safemigrate.run.fleet import Control, FleetTarget, resolve_targets, run_fleet
from safemigrate.settings.config import Settings, load_settings
from safemigrate.settings.fleet_targets import load_targets_file, targets_from_config


def _targets(n: int) -> list[FleetTarget]:
    return [FleetTarget(f"t{i}", Settings(), Database("", "test", "x", ())) for i in range(n)]


def test_targets_file_settings_and_schema(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(
        '[[target]]\nname = "a"\ndsn = "dbname=a"\nlock_timeout = "5s"\n\n'
        '[[target]]\nname = "b"\ndsn_env = "B_DSN"\nschema = "tenant_b"\n',
        encoding="utf-8",
    )
    base = load_settings(cwd=tmp_path, environ={})
    specs = load_targets_file(Path("t.toml"), base, cwd=tmp_path)
    assert [s.name for s in specs] == ["a", "b"]
    assert specs[0].settings.lock_timeout_ms == 5000
    assert specs[1].settings.lock_timeout_ms == base.lock_timeout_ms
    assert specs[1].settings.journal_schema == "tenant_b"
    resolved = resolve_targets(specs, {"B_DSN": "dbname=b password=hunter22"})
    assert resolved[1].db.schema == "tenant_b"
    assert "hunter22" in resolved[1].db.secrets
    assert "dbname=b password=hunter22" in resolved[1].db.secrets
    with pytest.raises(ConfigError, match="B_DSN is not set"):
        resolve_targets(specs, {})


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[[target]]\ndsn = "x"\n', "every target needs a name"),
        ('[[target]]\nname = "a"\n', "exactly one of dsn and dsn_env"),
        ('[[target]]\nname = "a"\ndsn = "x"\ndsn_env = "Y"\n', "exactly one of dsn and dsn_env"),
        ('[[target]]\nname = "a"\ndsn = "x"\nmax_attempts = 0\n', "'a': max_attempts: must be"),
        ('[[target]]\nname = "a"\ndsn = "x"\n[[target]]\nname = "a"\ndsn = "y"\n', "used by"),
        ('[[target]]\nname = "a"\ndsn = "x"\nschema = ""\n', "schema: must not be empty"),
        ("target = 3\n", "must hold at least one"),
        ("[other]\n", "key 'other' is unknown"),
    ],
)
def test_bad_targets_files_name_file_and_key(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "t.toml").write_text(body, encoding="utf-8")
    with pytest.raises(ConfigError, match=message) as caught:
        load_targets_file(Path("t.toml"), Settings(), cwd=tmp_path)
    assert caught.value.message.startswith("t.toml")
    assert caught.value.exit_code == ExitCode.BAD_INPUT


def test_a_dsn_value_is_never_shown_in_an_error(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('[[target]]\nname = "a"\ndsn = 5\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_targets_file(Path("t.toml"), Settings(), cwd=tmp_path)
    assert "5" not in caught.value.message.replace("t.toml", "")


def test_targets_in_pyproject_and_targets_key(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.safemigrate]\nlock_timeout = "3s"\n\n'
        '[[tool.safemigrate.target]]\nname = "a"\ndsn = "dbname=a"\n',
        encoding="utf-8",
    )
    settings = load_settings(cwd=tmp_path, environ={})
    assert settings.lock_timeout_ms == 3000
    specs = targets_from_config(settings)
    assert [s.name for s in specs] == ["a"] and specs[0].settings.lock_timeout_ms == 3000
    (tmp_path / "fleet.toml").write_text('[[target]]\nname = "f"\ndsn = "x"\n', encoding="utf-8")
    (tmp_path / "safemigrate.toml").write_text('targets = "fleet.toml"\n', encoding="utf-8")
    assert [s.name for s in targets_from_config(load_settings(cwd=tmp_path, environ={}))] == ["f"]


def test_worst_exit_code_follows_the_severity_order() -> None:
    assert worst_exit_code([0, 0]) == 0
    assert worst_exit_code([3, 4, 6]) == 6
    assert worst_exit_code([6, 1]) == 1
    assert worst_exit_code([1, 5, 2]) == 2
    assert worst_exit_code([7, 130, 2]) == 130


def test_target_event_json_carries_the_target_name() -> None:
    target = Target("u", "h", 5432, "d", "15.1", False)
    started = RunStarted("u@h/d", target, "public.j", 1, 1, 2000, 10, 1, None, 1, None)
    document = TargetEvent("shop-eu", started).to_dict()
    assert document["event"] == "run_started"
    assert document["target"] == "shop-eu"
    assert document["server"]["host"] == "h"
    json.dumps(document)


def _job_failing(names: set[str], record: list[str], pause: float = 0.0):  # type: ignore[no-untyped-def]
    def job(target: FleetTarget, control: Control, emit: object) -> None:
        record.append(target.name)
        time.sleep(pause)
        if target.name in names:
            raise StepFailedError("boom")

    return job


def test_after_a_failure_no_new_target_starts() -> None:
    started: list[str] = []
    report = run_fleet(
        _targets(4), _job_failing({"t1"}, started), concurrency=1, on_event=lambda e: None
    )
    assert started == ["t0", "t1"]
    assert [o.state for o in report.outcomes] == [
        TargetState.DONE,
        TargetState.FAILED,
        TargetState.NOT_STARTED,
        TargetState.NOT_STARTED,
    ]
    assert report.exit_code == 1
    assert "failed: t1 (exit 1)" in report.summary()
    table = fleet_table(report)
    assert table[0].split() == ["target", "state", "steps", "duration", "attempts", "error"]
    assert "boom" in table[2]


def test_keep_going_and_canary() -> None:
    started: list[str] = []
    report = run_fleet(
        _targets(4),
        _job_failing({"t1"}, started),
        concurrency=2,
        keep_going=True,
        on_event=lambda e: None,
    )
    assert sorted(started) == ["t0", "t1", "t2", "t3"]
    assert [o.name for o in report.failed] == ["t1"]

    started.clear()
    report = run_fleet(
        _targets(4),
        _job_failing({"t0"}, started),
        concurrency=4,
        canary=1,
        keep_going=True,
        on_event=lambda e: None,
    )
    assert started == ["t0"]


def test_canary_runs_alone_before_the_rest() -> None:
    running = 0
    most_with_canary = 0
    lock = threading.Lock()
    order: list[str] = []

    def job(target: FleetTarget, control: Control, emit: object) -> None:
        nonlocal running, most_with_canary
        with lock:
            running += 1
            order.append(target.name)
            if target.name in ("t0", "t1"):
                most_with_canary = max(most_with_canary, running)
        time.sleep(0.05)
        with lock:
            running -= 1

    report = run_fleet(_targets(5), job, concurrency=4, canary=2, on_event=lambda e: None)
    assert report.exit_code == 0
    assert set(order[:2]) == {"t0", "t1"} and most_with_canary <= 2


def test_stopping_is_at_a_migration_boundary() -> None:
    stopping, interrupted = threading.Event(), threading.Event()
    control = Control(stopping, interrupted)

    class Step:
        def __init__(self, index: int) -> None:
            self.index = index

    class Planned:
        def __init__(self, index: int) -> None:
            self.step = Step(index)

    stopping.set()
    assert control.should_stop(Planned(0))  # type: ignore[arg-type]
    assert not control.should_stop(Planned(1))  # type: ignore[arg-type]
    interrupted.set()
    assert control.should_stop(Planned(1))  # type: ignore[arg-type]


def test_events_are_tagged_and_delivered_from_every_thread() -> None:
    events: list[Event] = []
    lock = threading.Lock()

    def sink(event: Event) -> None:
        with lock:
            events.append(event)

    run_fleet(_targets(3), lambda t, c, e: None, concurrency=3, on_event=sink)
    tagged = [e for e in events if isinstance(e, TargetEvent)]
    assert len(tagged) == len(events) == 6  # started and finished, per target
    assert {e.target for e in tagged} == {"t0", "t1", "t2"}


def test_interrupt_cancels_every_running_job_and_waits_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cancelled: list[str] = []
    finished: list[str] = []
    both_running = threading.Barrier(3)

    def job(target: FleetTarget, control: Control, emit: object) -> None:
        control.cancellers.append(lambda: cancelled.append(target.name))
        both_running.wait()
        try:
            control.sleep(30)
        finally:
            finished.append(target.name)

    import concurrent.futures

    import safemigrate.run.fleet as fleet

    real_wait = concurrent.futures.wait
    calls = 0

    def wait_then_interrupt(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        if calls == 1:
            both_running.wait()
            raise KeyboardInterrupt
        return real_wait(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fleet, "wait", wait_then_interrupt)
    report = run_fleet(_targets(3), job, concurrency=2, on_event=lambda e: None)
    assert report.interrupted and report.exit_code == 130
    assert sorted(cancelled) == ["t0", "t1"] and sorted(finished) == ["t0", "t1"]
    assert [o.state for o in report.outcomes] == [
        TargetState.INTERRUPTED,
        TargetState.INTERRUPTED,
        TargetState.NOT_STARTED,
    ]


def test_report_json() -> None:
    report = FleetReport([TargetOutcome("a", TargetState.DONE, 3, 12.0, 3)])
    document = report.to_dict()
    assert document["event"] == "fleet_finished"
    assert document["targets"][0]["applied_steps"] == 3


def test_the_fleet_sink_prefixes_lines_and_draws_one_live_line_per_running_target(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from safemigrate.cli.sinks import FleetSink
    from safemigrate.render.fleet_report import TargetFinished, TargetStarted

    sink = FleetSink("text", live=True)
    target = Target("u", "h", 5432, "d", "15.1", False)
    from safemigrate.core.events import Connected

    sink(TargetEvent("a", TargetStarted()))
    sink(TargetEvent("b", TargetStarted()))
    sink(TargetEvent("a", Connected(target)))
    out = capsys.readouterr().out
    assert "[a] target: u@h:5432/d" in out
    assert out.rstrip().endswith("b: connecting / between steps")
    assert "a: connecting / between steps" in out
    sink(TargetEvent("a", TargetFinished("done", 3, 10.0, 0, None)))
    out = capsys.readouterr().out
    assert "[a] done: 3 steps applied" in out
    # The live lines were erased (click drops the escape codes off a terminal) and only b's
    # is drawn again.
    assert out.startswith("\r") and out.rstrip().endswith("\nb: connecting / between steps")
    assert "a: connecting" not in out
