"""Rendering of events for people: the lines a run prints and the live status line."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from safemigrate.core.events import (
    AttemptFailed,
    AttemptStarted,
    Blocker,
    BlockerAction,
    Connected,
    FreshDatabase,
    GateFinding,
    HistoryAdopted,
    IndexProgress,
    LintFindings,
    RunStarted,
    RunSummary,
    StepApplied,
    StepRef,
    StepStarted,
    StepSummary,
    StepYielded,
    WaitingFor,
    WaitingForHolders,
)
from safemigrate.core.reached import Target
from safemigrate.render.live_line import LiveStatus
from safemigrate.render.output import (
    event_json,
    event_text,
    journal_text,
    lint_findings_text,
    paint,
)
from tests.unit.blockers.fakes import idle_session

REF = StepRef(version=3, file="0003_x.sql", line=5, step=1, steps=2, sql="ALTER TABLE t ...")
BLOCKER = idle_session()


def failed(**changes: object) -> AttemptFailed:
    values: dict[str, object] = {
        "ref": REF,
        "attempt": 2,
        "max_attempts": 10,
        "sqlstate": "55P03",
        "reason": "canceling statement due to lock timeout",
        "lock_timeout_ms": 2000,
        "wait_ms": 1400,
        "blockers": (BLOCKER,),
        "waiting": WaitingFor(7, "relation", "t", "AccessExclusiveLock", 1800.0),
        "chain": (42,),
    }
    values.update(changes)
    return AttemptFailed(**values)  # type: ignore[arg-type]


def test_failed_attempt_names_step_attempt_wait_and_root_blocker() -> None:
    lines = event_text(failed())
    assert lines[0].startswith(
        "  ! 0003_x.sql:5 step 1/2: attempt 2/10 failed after lock_timeout 2s"
    )
    assert "[55P03]; retrying in 1.4s -- ALTER TABLE t ..." in lines[0]
    assert (
        "blocked by pid 42 'report-job', user bob, from 10.0.0.5: idle in transaction" in lines[1]
    )
    assert "transaction 41.5s old" in lines[1] and "holds AccessShareLock" in lines[1]
    assert lines[1].endswith("query: SELECT count(*) FROM t")
    assert lines[2] == "      runner pid 7 waits for AccessExclusiveLock on t for 1.8s"


def test_last_attempt_says_giving_up() -> None:
    assert "giving up" in event_text(failed(wait_ms=None))[0]


def test_precheck_failure_says_the_statement_was_not_issued() -> None:
    lines = event_text(failed(precheck=True, sqlstate=None, reason="not queued behind 1 ..."))
    assert "pre-check: not issued (not an attempt): not queued behind 1 ..." in lines[0]
    assert "attempt 2/10" not in lines[0]
    assert lines[1].startswith("      held by pid 42")


def test_json_event_is_one_line_with_nested_reports() -> None:
    line = event_json(failed())
    assert "\n" not in line
    assert line.startswith('{"event":"attempt_failed"')
    assert '"blockers":[{"pid":42' in line and '"waiting":{"pid":7' in line


def test_blocker_actions_and_summary_are_readable() -> None:
    action = BlockerAction(
        REF, 42, "report-job", "bob", "terminate", "idle in transaction for 40s", True
    )
    assert (
        "terminated blocker pid 42 'report-job' (idle in transaction for 40s); it is gone"
        in (event_text(action)[0])
    )
    summary = RunSummary((StepSummary("0003_x.sql", 5, 1, 3, 4200.0, ("pid 42 (report-job)",)),), 1)
    lines = event_text(summary)
    assert lines[1] == (
        "  0003_x.sql:5 step 1: 4.2s waiting for locks; blockers: pid 42 (report-job)"
    )


TARGET = Target("postgres", "/var/run/postgresql", 5432, "shop", "15.18", False)


def started_event(**changes: Any) -> RunStarted:
    fields: dict[str, Any] = {
        "database": TARGET.address,
        "target": TARGET,
        "journal": "public.h",
        "pending_migrations": 2,
        "pending_steps": 5,
        "lock_timeout_ms": 2000,
        "max_attempts": 10,
        "worst_case_step_wait_ms": 142_000,
        "worst_case_concurrent_wait_ms": None,
        "worst_case_run_wait_ms": 700_000,
        "deadline_ms": None,
    }
    return RunStarted(**{**fields, **changes})


def test_run_start_prints_the_worst_case_wait() -> None:
    started = started_event()
    assert "worst case per step 2min 22s" in event_text(started)[1]
    assert "worst case for the run 11min 40s" in event_text(started)[1]
    assert "worst cases assume every attempt times out" in event_text(started)[1]
    assert "(no run deadline)" in event_text(started)[1]


def test_concurrently_timeouts_are_shown_only_for_runs_with_such_steps() -> None:
    assert "CONCURRENTLY" not in " ".join(event_text(started_event()))
    with_index = started_event(
        worst_case_concurrent_wait_ms=3_120_000, concurrent_lock_timeout_ms=300_000
    )
    assert "(CONCURRENTLY steps: lock_timeout 5min, worst case 52min)" in event_text(with_index)[1]


def test_run_worst_case_names_the_deadline_that_caps_it() -> None:
    capped = started_event(worst_case_run_wait_ms=600_000, deadline_ms=600_000)
    assert "worst case for the run 10min (the run deadline)" in event_text(capped)[1]
    under = started_event(deadline_ms=3_600_000)
    assert "worst case for the run 11min 40s (run deadline 1h)" in event_text(under)[1]


def test_connected_prints_the_target_line() -> None:
    (line,) = event_text(Connected(TARGET))
    assert line == "target: postgres@/var/run/postgresql:5432/shop (PostgreSQL 15.18, primary)"


def test_run_started_carries_the_target_in_json() -> None:
    document = json.loads(event_json(started_event()))
    assert document["target"] == {
        "user": "postgres",
        "host": "/var/run/postgresql",
        "port": 5432,
        "dbname": "shop",
        "server_version": "15.18",
        "standby": False,
    }
    assert document["database"] == "postgres@/var/run/postgresql:5432/shop"


def test_nothing_to_apply_says_so() -> None:
    nothing = started_event(pending_steps=0, pending_migrations=0)
    assert event_text(nothing) == ["nothing to apply, every migration is applied"]


def test_nothing_to_apply_up_to_a_target_says_later_ones_are_pending() -> None:
    nothing = started_event(
        pending_steps=0, pending_migrations=0, up_to_version="0003", later_pending_migrations=2
    )
    assert event_text(nothing) == [
        "nothing to apply up to version 0003; 2 later migrations are pending"
    ]
    one = started_event(
        pending_steps=0, pending_migrations=0, up_to_version="0003", later_pending_migrations=1
    )
    assert event_text(one) == ["nothing to apply up to version 0003; 1 later migration is pending"]


def test_applying_up_to_a_target_says_what_stays_pending() -> None:
    started = started_event(up_to_version="0003", later_pending_migrations=4)
    assert event_text(started)[0] == (
        "applying 5 steps of 2 migrations up to version 0003 (journal public.h); "
        "4 later migrations are pending"
    )


def test_applied_step_shows_rehearsal_locks() -> None:
    applied = StepApplied(REF, 12.0, 1, None, ("public.t ACCESS EXCLUSIVE",))
    assert event_text(applied)[1] == "      locks taken: public.t ACCESS EXCLUSIVE"


@pytest.mark.parametrize(
    ("fields", "timing"),
    [
        ({"attempts": 1}, "35.8s"),
        (
            {"attempts": 8, "prechecks": 7, "polite_wait_ms": 35_500.0},
            "35.8s, 7 pre-checks (35.5s polite)",
        ),
        (
            {
                "attempts": 4,
                "prechecks": 1,
                "yields": 1,
                "failed_attempts": 1,
                "polite_wait_ms": 900,
            },
            "35.8s, 1 pre-check, 1 yield (900ms polite), 1 failed attempt",
        ),
        ({"attempts": 3, "failed_attempts": 2}, "35.8s, 2 failed attempts"),
    ],
)
def test_issue_22_review_f6_the_ok_line_counts_pre_checks_apart_from_failed_attempts(
    fields: dict[str, Any], timing: str
) -> None:
    applied = StepApplied(REF, 35_800.0, **fields)
    line = event_text(applied)[0]
    assert line.endswith(f"ALTER TABLE t ...  {timing}"), line
    assert "8 attempts" not in line


def test_colour_only_when_asked() -> None:
    assert paint("x", "red", False) == "x"
    assert paint("x", "red", True) == "\x1b[31mx\x1b[0m"
    assert not any("\x1b" in line for line in event_text(failed(), colour=False))


def test_live_status_shows_step_attempt_lock_wait_and_blocker() -> None:
    status = LiveStatus()
    assert status.line(0.0) is None
    status.update(StepStarted(REF, 3, 22, "own transaction", ()), now=10.0)
    assert status.line(10.2) == "[3/22] 0003_x.sql step 1/2 | 200ms"
    status.update(AttemptStarted(REF, 1, 10, 2000), now=10.0)
    status.update(failed(attempt=1, failures=1), now=12.0)
    status.update(AttemptStarted(REF, 2, 10, 2000, failures=1), now=12.5)
    line = status.line(13.7)
    assert line == (
        "[3/22] 0003_x.sql step 1/2 | 3.7s | attempt 2/10 | lock wait 1.2s of 2s | "
        "blocked by pid 42 'report-job' (idle in transaction 41.5s): SELECT count(*) FROM t"
    )


def test_issue_22_item_7_polite_waits_are_not_attempts_in_the_live_line() -> None:
    # README: max_attempts counts failures only; pre-check back-offs and yields are polite.
    status = LiveStatus()
    status.update(StepStarted(REF, 3, 22, "own transaction", ()), now=0.0)
    status.update(AttemptStarted(REF, 12, 10, 2000, failures=2, polite_wait_ms=9_000.0), 1.0)
    status.update(failed(attempt=12, precheck=True, sqlstate=None), now=1.0)
    status.update(WaitingForHolders(REF, 12, "precheck", (BLOCKER,), 1_000, 9_500.0, 600_000), 1.0)
    line = status.line(2.0) or ""
    assert "attempt 12/10" not in line
    assert "waiting politely 10.5s of 10min (not an attempt) | held by pid 42" in line
    status.update(AttemptStarted(REF, 13, 10, 2000, failures=2, polite_wait_ms=10_500.0), 2.0)
    assert "attempt 3/10" in (status.line(3.0) or "")


@pytest.mark.parametrize("width", [200, 120, 99, 80, 60, 40, 30, 12])
def test_issue_22_item_7_the_live_line_fits_and_never_loses_the_blockers_pid(width: int) -> None:
    long_ref = replace(
        REF, file="migrations/20261201120000_add_a_column_to_orders_for_checkout.sql"
    )
    blocker = replace(BLOCKER, pid=424242, query="SELECT " + ", ".join(["o.total"] * 40))
    status = LiveStatus()
    status.update(StepStarted(long_ref, 3, 22, "own transaction", ()), now=0.0)
    status.update(AttemptStarted(long_ref, 4, 10, 2000, failures=3), now=1.0)
    status.update(failed(ref=long_ref, blockers=(blocker,), failures=3), now=1.5)
    line = status.line(2.0, width) or ""
    assert len(line) <= width
    assert "pid 424242" in line
    if width >= 120:
        # The query is shortened first: the step and the attempt stay.
        assert "attempt 4/10" in line and "step 1/2" in line and "..." in line


def test_live_status_shows_index_build_progress() -> None:
    status = LiveStatus()
    status.update(StepStarted(REF, 1, 1, "autocommit", ()), now=0.0)
    progress = IndexProgress(REF, "building index: scanning table", 50, 200, 0, 0, 25.0, None, 0, 0)
    status.update(progress, now=1.0)
    assert "index build: building index: scanning table 25.0% (blocks 50/200)" in (
        status.line(1.0) or ""
    )
    waiting = IndexProgress(REF, "waiting for writers before build", 0, 0, 0, 0, None, 99, 1, 3)
    status.update(waiting, now=2.0)
    assert "waiting for pid 99 (1/3 older transactions done)" in (status.line(2.0) or "")


def test_a_yield_names_who_queued_behind_and_who_holds_the_table() -> None:
    reader = Blocker(8, "web", None, None, "active", 1.0, 1.0, "relation", None, "SELECT 1")
    lines = event_text(StepYielded(REF, 1, "t", 61.2, 50, (reader,), (BLOCKER,)))
    assert lines[0] == (
        "  ~ 0003_x.sql:5 step 1/2: yielded after waiting 61ms for t (grace 50ms): 1 session "
        "queued behind it; rolled back, retrying once the holders are gone -- ALTER TABLE t ..."
    )
    assert lines[1].startswith("      queued behind: pid 8 'web'")
    assert lines[2].startswith("      held by pid 42 'report-job'")
    assert event_json(StepYielded(REF, 1, "t", 61.2, 50, (reader,), ()))


def test_a_wait_for_holders_says_how_long_at_most_and_the_budget() -> None:
    [line] = event_text(WaitingForHolders(REF, 2, "precheck", (BLOCKER,), 1_000, 2_500.0, 600_000))
    assert line == (
        "  ... 0003_x.sql:5 step 1/2 waiting for pid 42 'report-job' to finish (after a "
        "pre-check; retrying as soon as they are gone, at most 1s; polite wait 2.5s of 10min "
        "budget)"
    )


def test_the_summary_counts_yields_and_polite_waits_apart() -> None:
    summary = RunSummary((StepSummary("0003_x.sql", 5, 1, 4, 3_000.0, (), 2, 2_900.0, 1),), 0)
    assert event_text(summary)[1] == (
        "  0003_x.sql:5 step 1: 1 failed attempt, 2 yields, 2.9s polite waiting; 3s waiting "
        "for locks in all"
    )


# -- the lint gate's findings and the fresh database (issue 20) -------------------------------


def _gate_finding(
    rule: str, blocking: bool, why: str | None = None, size: str | None = None
) -> GateFinding:
    return GateFinding(
        2, "0002_x.sql", 1, 1, 1, 1, rule, "error", "msg", "fix", blocking, size, why
    )


def test_non_blocking_findings_are_one_line_of_counts_per_rule() -> None:
    findings = (
        _gate_finding("set-not-null", True, size="big: 300,000 rows, 10 MB"),
        _gate_finding("column-type-change", False, "acct: 100 rows, 24 kB: ..."),
        _gate_finding("column-type-change", False, "fresh"),
        _gate_finding("rename", False),
    )
    lines = lint_findings_text(LintFindings("error", True, findings))
    assert (
        lines[0]
        == "lint gate (error): 4 findings on pending steps, 1 blocking; refusing to apply anything"
    )
    assert (
        lines[1] == "  0002_x.sql:1 step 1/1: error [set-not-null] msg (big: 300,000 rows, 10 MB)"
    )
    assert lines[-1] == (
        "  not blocking: 2 column-type-change, 1 rename (--verbose or --format json lists them)"
    )
    verbose = lint_findings_text(LintFindings("error", True, findings), verbose=True)
    assert "      not blocking: acct: 100 rows, 24 kB: ..." in verbose
    assert not any(line.startswith("  not blocking:") for line in verbose)


def test_a_bootstrap_is_one_line() -> None:
    [line] = event_text(FreshDatabase(resumed=False, alone=True))
    assert line.startswith("bootstrapping a fresh database (nothing of its own, no journal): ")
    assert line.endswith("no other session is connected, so steps skip the lock pre-check")
    [resumed] = event_text(FreshDatabase(resumed=True))
    assert resumed.startswith("resuming the bootstrap of a fresh database an interrupted run began")


def test_issue_22_review_f12_status_after_the_switch_says_next_up_and_it_for_one() -> None:
    event = HistoryAdopted(
        "yoyo",
        "public._yoyo_migration",
        "public.safemigrate_history",
        1,
        "0005",
        "0005",
        recorded=False,
    )
    lines = journal_text("public.safemigrate_history", True, event)
    assert lines[1] == (
        "yoyo applied 1 migration the journal does not know yet (0005, read from "
        "public._yoyo_migration): the next `safemigrate up` (or `adopt`) records it in the "
        "journal public.safemigrate_history as baseline, without running it"
    )
    first = journal_text("public.safemigrate_history", False, event)[1]
    assert first.startswith("switch from yoyo: the first `safemigrate up`"), first
    assert "without running it " in first
