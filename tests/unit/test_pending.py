"""Tests for safemigrate.planning.pending: migrations on disk against the journal."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from safemigrate.core.errors import BadInputError, DriftError, ExitCode, OutOfOrderError
from safemigrate.core.model import JournalEntry, Migration
from safemigrate.planning.pending import (
    MigrationStatus,
    PlannedStep,
    RepairAction,
    State,
    check_drift,
    pending_steps,
    refuse_empty_directory,
    repairs_of,
    resolve_target,
    statuses,
    version_label,
)
from safemigrate.planning.safer_forms import build_steps


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
    assert "only 1 step" in status.problems[0]


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
    assert missing.filename == "0002_b.sql"  # padded like the directory's files (issue 9)
    assert "gone" in missing.problems[0]


def test_issue_21_review_d3_a_started_step_whose_file_is_gone_is_reported_not_ignored() -> None:
    report = statuses([A], applied(B, state="started"))
    assert [(s.version, s.state) for s in report] == [(1, State.PENDING), (2, State.MISSING)]
    gone = report[1]
    assert "started, not recorded as applied; the file is gone" in gone.problems[0]
    # Its text is nowhere that would run: repair may forget the started row.
    assert [(r.action, r.started) for r in gone.repairs] == [(RepairAction.FORGET, True)]


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


# drift that repair can clear (issue 9)


def entry_with_raw_checksum(m: Migration, step: int) -> JournalEntry:
    """A row as the previous release wrote it: the raw checksum of the step's text."""
    return JournalEntry(m.version, m.name, step, m.steps[step].raw_checksum)


def test_rows_with_the_previous_releases_raw_checksum_are_applied() -> None:
    crlf = Migration(
        1, "0001", "a", A.path, tuple(build_steps(str(A.path), "SELECT  \r\n 1;\nSELECT 2;\n"))
    )
    assert crlf.steps[0].raw_checksum != crlf.steps[0].checksum
    rows = [entry_with_raw_checksum(crlf, 0), entry_with_raw_checksum(crlf, 1)]
    assert only(statuses([crlf], rows)).state is State.APPLIED


def test_whitespace_at_line_ends_is_not_drift() -> None:
    base = migration(1, "a", "CREATE TABLE t (\n  id int\n)")
    edited = migration(1, "a", "CREATE TABLE t (   \r\n  id int\t\r\n)")
    status = only(statuses([edited], applied(base)))
    assert status.state is State.APPLIED
    assert status.repairs == ()


def test_changed_step_repair_accepts_the_new_text() -> None:
    edited = migration(1, "a", "SELECT 1", "SELECT 22")
    status = only(statuses([edited], applied(A)))
    [repair] = status.repairs
    assert repair.action is RepairAction.ACCEPT
    assert (repair.version, repair.step) == (1, 1)
    assert repair.checksum == A.steps[1].checksum
    assert repair.new_checksum == edited.steps[1].checksum
    assert "0001_a.sql step 2: accept the current text" in repair.describe()


def test_gone_file_repair_forgets_every_row_of_it() -> None:
    report = statuses([A], applied(A) + applied(C, 0, 1) + applied(C, 2, state="started"))
    missing = [s for s in report if s.state is State.MISSING]
    assert [(r.action, r.version, r.step) for r in missing[0].repairs] == [
        (RepairAction.FORGET, 10, 0),
        (RepairAction.FORGET, 10, 1),
        (RepairAction.FORGET, 10, 2),
    ]
    assert missing[0].repairs[0].describe() == "0010_c.sql step 1: forget (the file is gone)"


def test_removed_step_repair_forgets_its_row() -> None:
    shorter = migration(1, "a", "SELECT 1")
    [repair] = only(statuses([shorter], applied(A))).repairs
    assert (repair.action, repair.step) == (RepairAction.FORGET, 1)


def test_same_version_rename_is_one_problem_with_a_rename_repair_per_row() -> None:
    renamed = migration(1, "renamed", "SELECT 1", "SELECT 2")
    status = only(statuses([renamed], applied(A)))
    assert status.problems == ("0001_renamed.sql: applied as 0001_a.sql, the file was renamed",)
    assert [(r.action, r.step, r.new_version, r.new_name) for r in status.repairs] == [
        (RepairAction.RENAME, 0, 1, "renamed"),
        (RepairAction.RENAME, 1, 1, "renamed"),
    ]


def test_renamed_and_edited_file_gets_a_rename_then_an_accept() -> None:
    renamed = migration(1, "renamed", "SELECT 1", "SELECT 22")
    repairs = repairs_of(statuses([renamed], applied(A)), accept_edited=True)
    assert [(r.action, r.step) for r in repairs] == [
        (RepairAction.RENAME, 0),
        (RepairAction.RENAME, 1),
        (RepairAction.ACCEPT, 1),
    ]


def test_new_version_with_the_applied_text_of_a_gone_version_is_a_rename() -> None:
    moved = migration(7, "a_again", "SELECT 1", "SELECT 2")
    report = statuses([moved], applied(A))
    status = only(report)
    assert status.version == 7
    assert status.state is State.DRIFTED
    assert (status.steps_applied, status.steps_total) == (2, 2)
    assert "0007_a_again.sql: applied as 0001_a.sql" in status.problems[0]
    assert [(r.action, r.version, r.step, r.new_version) for r in status.repairs] == [
        (RepairAction.RENAME, 1, 0, 7),
        (RepairAction.RENAME, 1, 1, 7),
    ]


def test_partially_applied_text_of_a_gone_version_is_followed_too() -> None:
    moved = migration(11, "c_again", "SELECT 4", "SELECT 5", "SELECT 6")
    status = only(statuses([moved], applied(C, 0)))
    assert status.state is State.DRIFTED
    assert [r.step for r in status.repairs] == [0]


def test_new_version_with_other_text_is_not_a_rename() -> None:
    other = migration(7, "other", "SELECT 1", "SELECT 3")
    report = statuses([other], applied(A))
    assert [(s.version, s.state) for s in report] == [(1, State.MISSING), (7, State.PENDING)]


def test_text_in_two_files_is_not_guessed_and_not_repaired() -> None:
    one = migration(7, "one", "SELECT 1", "SELECT 2")
    two = migration(8, "two", "SELECT 1", "SELECT 2")
    report = statuses([one, two], applied(A))
    missing = [s for s in report if s.state is State.MISSING]
    assert "0007_one.sql, 0008_two.sql" in missing[0].problems[0]
    assert missing[0].repairs == ()
    with pytest.raises(BadInputError, match="cannot repair"):
        repairs_of(report)


def test_repairs_in_json_name_the_row_and_what_it_becomes() -> None:
    moved = migration(7, "a_again", "SELECT 1", "SELECT 2")
    [first, _] = repairs_of(statuses([moved], applied(A)))
    assert first.to_dict() == {
        "action": "rename",
        "file": "0007_a_again.sql",
        "applied_file": "0001_a.sql",
        "version": 1,
        "name": "a",
        "step": 1,
        "checksum": A.steps[0].checksum,
        "new_version": 7,
        "new_name": "a_again",
    }
    assert first.describe() == "0001_a.sql step 1: follow the rename to 0007_a_again.sql"


def test_no_drift_means_no_repairs() -> None:
    assert repairs_of(statuses([A, B], applied(A))) == []


# hints and version padding


@pytest.mark.parametrize(
    ("files", "rows", "hint"),
    [
        ([migration(1, "renamed", "SELECT 1", "SELECT 2")], applied(A), "follow the rename"),
        (
            [migration(1, "a", "SELECT 1", "SELECT 22")],
            applied(A),
            "`safemigrate repair --accept-edited` records the current text",
        ),
        ([A], applied(A) + applied(B), "restore the file, or run `safemigrate repair`"),
    ],
)
def test_drift_hints_name_the_repair(
    files: list[Migration], rows: list[JournalEntry], hint: str
) -> None:
    with pytest.raises(DriftError) as info:
        check_drift(statuses(files, rows))
    assert hint in (info.value.hint or "")
    assert "safemigrate repair" in (info.value.hint or "")


def test_rename_hint_does_not_say_restore_the_applied_text() -> None:
    with pytest.raises(DriftError) as info:
        check_drift(statuses([migration(1, "renamed", "SELECT 1", "SELECT 2")], applied(A)))
    assert "restore the applied text" not in (info.value.hint or "")


def test_gone_versions_are_padded_like_the_directorys_files() -> None:
    report = statuses([A], applied(A) + applied(C))
    assert report[1].filename == "0010_c.sql"
    assert "0010_c.sql: applied, but the file is gone" in report[1].problems[0]


def test_gone_versions_are_not_padded_when_the_files_are_not() -> None:
    stamp = Migration(20261201120000, "20261201120000", "t", Path("/m/x.sql"), A.steps)
    report = statuses([stamp], applied(B))
    assert [s.filename for s in report] == ["2_b.sql", "x.sql"]


def test_version_label_keeps_the_files_padding() -> None:
    assert version_label(10, [A, C]) == "0010"
    assert version_label(2, [A, C]) == "0002"
    assert version_label(2, []) == "2"


def test_out_of_order_error_prints_the_padded_version() -> None:
    with pytest.raises(OutOfOrderError, match=r"\(version 0010\)"):
        pending_steps([A, C], applied(C))


# refuse_empty_directory


def test_empty_directory_on_a_used_journal_is_refused_in_one_line() -> None:
    with pytest.raises(BadInputError) as info:
        refuse_empty_directory([], applied(A) + applied(B), "db/migrations")
    assert info.value.exit_code == 2
    assert str(info.value.message) == (
        "no migration files in db/migrations but the journal records 2 applied migrations: "
        "is --dir right?"
    )


def test_empty_directory_is_fine_on_a_new_or_only_started_journal() -> None:
    refuse_empty_directory([], [], "m")
    refuse_empty_directory([], applied(A, state="started"), "m")
    refuse_empty_directory([A], applied(A) + applied(B), "m")
