"""Tests for safemigrate.pending: migrations on disk against the journal."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from safemigrate.errors import BadInputError, DriftError, ExitCode, OutOfOrderError
from safemigrate.model import JournalEntry, Migration
from safemigrate.pending import (
    MigrationStatus,
    PlannedStep,
    State,
    check_drift,
    pending_steps,
    resolve_target,
    statuses,
)
from safemigrate.source import build_steps


def migration(version: int, name: str, *statements: str) -> Migration:
    """A migration with one OWN step per statement."""
    sql = "".join(f"{s};\n" for s in statements or ("SELECT 1",))
    path = Path(f"/m/{version:04d}_{name}.sql")
    steps = build_steps(str(path), sql)
    return Migration(version, f"{version:04d}", name, path, tuple(steps))


def applied(m: Migration, *steps: int, state: str = "applied") -> list[JournalEntry]:
    """Journal entries for ``steps`` of ``m`` (all steps by default), with matching checksums."""
    chosen = steps or tuple(range(len(m.steps)))
    return [JournalEntry(m.version, m.name, i, m.steps[i].checksum, state=state) for i in chosen]


def status_of(migrations: Sequence[Migration], entries: list[JournalEntry]) -> dict[int, State]:
    return {s.version: s.state for s in statuses(migrations, entries)}


def only(report: list[MigrationStatus]) -> MigrationStatus:
    [status] = report
    return status


A = migration(1, "a", "SELECT 1", "SELECT 2")
B = migration(2, "b", "SELECT 3")
C = migration(10, "c", "SELECT 4", "SELECT 5", "SELECT 6")


# statuses


def test_nothing_applied_is_pending() -> None:
    assert status_of([A, B], []) == {1: State.PENDING, 2: State.PENDING}


def test_every_step_applied_is_applied() -> None:
    status = only(statuses([A], applied(A)))
    assert status.state is State.APPLIED
    assert (status.steps_applied, status.steps_total) == (2, 2)
    assert status.problems == ()


def test_some_steps_applied_is_partial() -> None:
    status = only(statuses([C], applied(C, 0)))
    assert status.state is State.PARTIAL
    assert (status.steps_applied, status.steps_total) == (1, 3)


def test_baseline_entries_count_as_applied() -> None:
    assert status_of([A], applied(A, state="baseline")) == {1: State.APPLIED}


def test_started_entries_do_not_count_as_applied() -> None:
    assert status_of([A], applied(A, 0, state="started")) == {1: State.PENDING}
    assert status_of([A], applied(A, 0) + applied(A, 1, state="started")) == {1: State.PARTIAL}


def test_changed_applied_step_is_drift() -> None:
    edited = migration(1, "a", "SELECT 1", "SELECT 22")
    status = only(statuses([edited], applied(A)))
    assert status.state is State.DRIFTED
    [problem] = status.problems
    assert "0001_a.sql step 2" in problem
    assert "line 2" in problem


def test_renamed_file_is_drift() -> None:
    renamed = migration(1, "renamed", "SELECT 1", "SELECT 2")
    status = only(statuses([renamed], applied(A)))
    assert status.state is State.DRIFTED
    assert "0001_renamed.sql" in status.problems[0]
    assert "renamed" in status.problems[0]


def test_removed_step_is_drift() -> None:
    shorter = migration(1, "a", "SELECT 1")
    status = only(statuses([shorter], applied(A)))
    assert status.state is State.DRIFTED
    assert "step 2" in status.problems[0]
    assert "only 1 steps" in status.problems[0]


def test_editing_an_unapplied_step_of_a_partial_migration_is_not_drift() -> None:
    edited = migration(10, "c", "SELECT 4", "SELECT 55", "SELECT 66", "SELECT 77")
    status = only(statuses([edited], applied(C, 0)))
    assert status.state is State.PARTIAL
    assert status.problems == ()


def test_changed_started_step_is_not_drift() -> None:
    edited = migration(1, "a", "SELECT 1", "SELECT 22")
    assert status_of([edited], applied(A, 1, state="started")) == {1: State.PENDING}


def test_applied_migration_with_file_gone_is_missing() -> None:
    report = statuses([A], applied(A) + applied(B))
    assert [(s.version, s.state) for s in report] == [(1, State.APPLIED), (2, State.MISSING)]
    missing = report[1]
    assert missing.migration is None
    assert missing.filename == "2_b.sql"
    assert "gone" in missing.problems[0]


def test_only_started_migration_with_file_gone_is_not_listed() -> None:
    assert [s.version for s in statuses([A], applied(B, state="started"))] == [1]


def test_statuses_are_sorted_by_version() -> None:
    report = statuses([A, C], applied(B))
    assert [s.version for s in report] == [1, 2, 10]


# check_drift


def test_check_drift_passes_without_drift() -> None:
    check_drift(statuses([A, B, C], applied(A) + applied(C, 0)))


def test_check_drift_names_file_and_step() -> None:
    edited = migration(1, "a", "SELECT 1", "SELECT 22")
    with pytest.raises(DriftError) as info:
        check_drift(statuses([edited], applied(A)))
    assert info.value.exit_code == 5
    assert "0001_a.sql step 2" in str(info.value)
    assert info.value.hint


def test_check_drift_counts_further_problems() -> None:
    edited_a = migration(1, "a", "SELECT 11", "SELECT 22")
    with pytest.raises(DriftError) as info:
        check_drift(statuses([edited_a], applied(A) + applied(B)))
    assert "(and 2 more)" in str(info.value)


def test_check_drift_refuses_a_missing_file() -> None:
    with pytest.raises(DriftError) as info:
        check_drift(statuses([A], applied(A) + applied(B)))
    assert "2_b.sql" in str(info.value)


# pending_steps


def refs(planned: Sequence[PlannedStep]) -> list[tuple[int, int]]:
    return [(p.migration.version, p.step.index) for p in planned]


def test_pending_steps_in_order() -> None:
    assert refs(pending_steps([A, B, C], [])) == [(1, 0), (1, 1), (2, 0), (10, 0), (10, 1), (10, 2)]


def test_pending_steps_skip_applied_and_baseline_steps() -> None:
    entries = applied(A) + applied(B, state="baseline") + applied(C, 0)
    assert refs(pending_steps([A, B, C], entries)) == [(10, 1), (10, 2)]


def test_nothing_pending_when_all_applied() -> None:
    assert pending_steps([A, B], applied(A) + applied(B)) == []


def test_started_step_is_pending_and_marked() -> None:
    entries = applied(C, 0) + applied(C, 1, state="started")
    planned = pending_steps([C], entries)
    assert refs(planned) == [(10, 1), (10, 2)]
    assert [p.started_before for p in planned] == [True, False]


def test_started_steps_are_not_marked_by_default() -> None:
    assert not any(p.started_before for p in pending_steps([A, B], []))


def test_target_stops_after_its_version() -> None:
    assert refs(pending_steps([A, B, C], [], target=2)) == [(1, 0), (1, 1), (2, 0)]


def test_target_already_applied_plans_nothing() -> None:
    assert pending_steps([A, B, C], applied(A), target=1) == []


def test_out_of_order_pending_migration_is_refused() -> None:
    with pytest.raises(OutOfOrderError) as info:
        pending_steps([A, B, C], applied(A) + applied(C))
    assert info.value.exit_code == 2
    assert "0002_b.sql" in str(info.value)
    assert "10" in str(info.value)


def test_out_of_order_counts_baseline_and_partial_as_applied() -> None:
    with pytest.raises(OutOfOrderError):
        pending_steps([A, B, C], applied(C, 0, state="baseline"))


def test_started_newer_step_does_not_make_older_out_of_order() -> None:
    planned = pending_steps([A, B, C], applied(C, 0, state="started"))
    assert refs(planned)[0] == (1, 0)


def test_allow_out_of_order_plans_the_older_migration() -> None:
    planned = pending_steps([A, B, C], applied(A) + applied(C), allow_out_of_order=True)
    assert refs(planned) == [(2, 0)]


def test_partial_older_migration_is_not_out_of_order() -> None:
    planned = pending_steps([A, C], applied(A, 0) + applied(C))
    assert refs(planned) == [(1, 1)]


# resolve_target


def test_no_target() -> None:
    assert resolve_target([A, B], None) is None


@pytest.mark.parametrize("text", ["2", "0002", "00000000002"])
def test_target_is_a_version_number(text: str) -> None:
    assert resolve_target([A, B], text) == 2


@pytest.mark.parametrize("text", ["", "b", "-1", "2.0", " 2", "0x2", "²"])
def test_target_must_be_digits(text: str) -> None:
    with pytest.raises(BadInputError) as info:
        resolve_target([A, B], text)
    assert info.value.exit_code == ExitCode.BAD_INPUT
    assert "digits" in str(info.value)


def test_target_must_be_a_migration_on_disk() -> None:
    with pytest.raises(BadInputError) as info:
        resolve_target([A, B], "3")
    assert "no migration has version 3" in str(info.value)
