"""The ``lock-timeout=`` directive judged as ``SET LOCAL lock_timeout`` is (issue 21: one
judgement for every way a migration sets its lock timeout): above ``max_lock_timeout`` an error,
refused by ``up`` whatever lint_gate says unless allowed with a reason, and accepted where the
SET LOCAL is (a fresh database). The value judged is the one the runner sends, in whole
milliseconds (PostgreSQL docs, 19.1.2 Parameter Names and Values: "a value with a fractional
part is rounded")."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.lint import explain
from safemigrate.lint.findings import Finding
from safemigrate.lint.options import TimeoutCeilings
from safemigrate.lint.walker import lint_text
from safemigrate.planning import gate
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import PlannedStep, pending_steps
from safemigrate.planning.shapes import shape_of
from safemigrate.planning.timeout_guard import refuse_unguarding
from safemigrate.settings.config import Settings
from tests.support.runner import run, write_migrations

RULE = "timeout-guard-off"
#: The default ceilings: lock_timeout 10s, statement_timeout 4h.
CEILINGS = TimeoutCeilings(10_000, 4 * 3_600_000)


def found(sql: str, ceilings: TimeoutCeilings = CEILINGS) -> list[Finding]:
    return [f for f in lint_text("0001_t.sql", sql, ceilings=ceilings).findings if f.rule == RULE]


def test_a_directive_above_the_ceiling_is_an_error_at_its_statement() -> None:
    [finding] = found("SELECT 0;\n-- safemigrate: lock-timeout=60s\nSELECT 1;\n")
    assert finding.severity == "error" and finding.line == 3
    assert "lock-timeout=1min sets lock_timeout to 1min, above max_lock_timeout" in (
        finding.message
    )


@pytest.mark.parametrize(
    "sql",
    [
        "-- safemigrate: lock-timeout=10s\nSELECT 1;\n",
        "-- safemigrate: lock-timeout=5s max-attempts=3\nSELECT 1;\n",
        # 10.0004s is sent as 10000ms: at the ceiling, not above it
        "-- safemigrate: lock-timeout=10.0004s\nSELECT 1;\n",
        "-- safemigrate: lock-timeout=60s\n"
        "-- safemigrate: allow timeout-guard-off -- the backfill waits for the nightly job\n"
        "SELECT 1;\n",
        "-- safemigrate: allow timeout-guard-off -- the backfill waits for the nightly job\n"
        "-- safemigrate: lock-timeout=60s group-start\nSELECT 1;\nSELECT 2;\n"
        "-- safemigrate: group-end\n",
    ],
)
def test_within_the_ceiling_or_allowed_is_fine(sql: str) -> None:
    assert found(sql) == []


def test_a_higher_config_ceiling_accepts_it() -> None:
    sql = "-- safemigrate: lock-timeout=60s\nSELECT 1;\n"
    assert found(sql, TimeoutCeilings(60_000, 4 * 3_600_000)) == []
    [_] = found(sql, TimeoutCeilings(59_999, 4 * 3_600_000))


def test_just_above_the_ceiling_once_rounded_is_an_error() -> None:
    [finding] = found("-- safemigrate: lock-timeout=10.0005s\nSELECT 1;\n")
    assert "above max_lock_timeout" in finding.message


def test_only_the_step_the_directive_starts_is_judged() -> None:
    sql = "-- safemigrate: lock-timeout=1min group-start\nSELECT 1;\nSELECT 2;\n"
    sql += "-- safemigrate: group-end\nSELECT 3;\n"
    assert [f.line for f in found(sql)] == [2]


def _planned(tmp_path: Path, sql: str) -> list[PlannedStep]:
    directory = tmp_path / "m"
    directory.mkdir(parents=True)
    (directory / "0001_a.sql").write_text(sql, encoding="utf-8")
    return pending_steps(load_migrations(directory), [])


def test_the_runner_refuses_it_whatever_lint_gate_says(tmp_path: Path) -> None:
    planned = _planned(tmp_path, "-- safemigrate: lock-timeout=60s\nSELECT 1;\n")
    assert gate.may_trip_guard(planned)  # linted for the guard even with lint_gate = "off"
    for mode in ("error", "warn", "off"):
        with pytest.raises(MigrationFileError, match=r"0001_a\.sql:2: refused: the directive"):
            refuse_unguarding(planned, Settings(lint_gate=mode))
    refuse_unguarding(planned, Settings(lint_gate="off", max_lock_timeout_ms=60_000))


def test_explain_names_the_directive() -> None:
    assert "`-- safemigrate: lock-timeout=DUR` directive, as `SET LOCAL lock_timeout`" in (
        explain(RULE)
    )


# A CONCURRENTLY step's ceiling is concurrent_lock_timeout (issue 21): the runner gives such a
# step that lock timeout itself (planning.policy.step_policy, shapes' WAITS_LONG), so a
# directive up to it waits no longer than the step's own default would.
WITH_CONCURRENT = TimeoutCeilings(10_000, 4 * 3_600_000, 300_000)


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE INDEX CONCURRENTLY i ON t (a)",
        "CREATE INDEX i ON t (a)",  # the runner adds CONCURRENTLY: a table it did not create
        "DROP INDEX CONCURRENTLY i",
        "REINDEX INDEX CONCURRENTLY i",
        "VACUUM t",
    ],
)
def test_on_a_concurrently_step_the_ceiling_is_concurrent_lock_timeout(statement: str) -> None:
    assert found(f"-- safemigrate: lock-timeout=5min\n{statement};\n", WITH_CONCURRENT) == []
    [finding] = found(f"-- safemigrate: lock-timeout=300001ms\n{statement};\n", WITH_CONCURRENT)
    assert "above concurrent_lock_timeout (5min)" in finding.message


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT 1",
        "ALTER TABLE t ADD CHECK (a > 0)",  # its recipe runs under the ordinary lock timeout
        "UPDATE t SET a = 1",
    ],
)
def test_other_steps_keep_max_lock_timeout(statement: str) -> None:
    assert found(f"-- safemigrate: lock-timeout=10s\n{statement};\n", WITH_CONCURRENT) == []
    [finding] = found(f"-- safemigrate: lock-timeout=11s\n{statement};\n", WITH_CONCURRENT)
    assert "above max_lock_timeout (10s)" in finding.message


def test_a_higher_max_lock_timeout_stays_the_ceiling_of_a_concurrently_step() -> None:
    sql = "-- safemigrate: lock-timeout=20min\nCREATE INDEX CONCURRENTLY i ON t (a);\n"
    assert found(sql, TimeoutCeilings(1_200_000, 4 * 3_600_000, 300_000)) == []
    [finding] = found(sql, TimeoutCeilings(1_199_999, 4 * 3_600_000, 300_000))
    assert "above max_lock_timeout" in finding.message


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE INDEX CONCURRENTLY i ON t (a);\n",
        "CREATE INDEX i ON t (a);\n",
        "CREATE TABLE n (a int);\nCREATE INDEX j ON n (a);\n",
        "VACUUM t;\n",
        "ALTER TABLE t ADD CHECK (a > 0);\n",
        "SELECT 1;\n",
        "-- safemigrate: batch-size=10\nUPDATE t SET a = 1;\n",
    ],
)
def test_the_ceiling_follows_the_timeout_the_runner_gives_the_step(
    tmp_path: Path, sql: str
) -> None:
    """The lint's judgement and the runner's shape agree on which steps wait long."""
    last = sql.splitlines()[-1]
    marked = f"{sql[: -len(last) - 1]}-- safemigrate: lock-timeout=1min\n{last}\n"
    *_, planned = _planned(tmp_path, marked)
    waits_long = shape_of(planned.step).WAITS_LONG
    assert (found(marked, WITH_CONCURRENT) == []) is waits_long


def test_a_value_just_above_the_ceiling_is_shown_as_given() -> None:
    # review 21h D7: 10001ms was shown as "10s", "above max_lock_timeout (10s)" hid why
    [finding] = found("-- safemigrate: lock-timeout=10001ms\nSELECT 1;\n")
    assert (
        "lock-timeout=10001ms sets lock_timeout to 10001ms, above max_lock_timeout (10s)"
        in finding.message
    )
    [finding] = found("SET LOCAL lock_timeout = '10.0006s';\n")
    assert "to 10001ms, above max_lock_timeout (10s)" in finding.message


def test_plan_shows_the_lock_timeout_the_runner_sends(tmp_path: Path) -> None:
    files = {"0001_a.sql": "-- safemigrate: lock-timeout=10001ms\nSELECT 1;\n"}
    result = run("plan", "--dir", str(write_migrations(tmp_path / "m", files)))
    assert "step 1/1: own transaction, lock_timeout 10001ms," in result.output
    assert "sets lock_timeout to 10001ms, above max_lock_timeout (10s)" in result.output
