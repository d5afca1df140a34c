"""repair never records as applied a step whose text never ran (issue 21 item 2). Pure.

Applied steps are compared with the file by their text (checksum), not by their position: SQL
inserted above an applied step moves that step's text, and accepting what now sits at its
position would record SQL that never ran while up runs the applied text again.
"""

from __future__ import annotations

import pytest

from safemigrate.core.checksums import EMPTY
from safemigrate.core.errors import BadInputError, DriftError
from safemigrate.core.model import JournalEntry
from safemigrate.planning.pending import (
    RepairAction,
    State,
    check_drift,
    pending_steps,
    repairs_of,
    statuses,
)
from tests.unit.test_pending import applied, migration, only

UPDATE = migration(2, "interest", "UPDATE accounts SET balance = balance + 10")


def test_issue_21_item_2_sql_inserted_above_an_applied_step_is_refused_not_accepted() -> None:
    inserted = migration(
        2,
        "interest",
        "CREATE TABLE interest_log (id int)",
        "UPDATE accounts SET balance = balance + 10",
    )
    status = only(statuses([inserted], applied(UPDATE)))
    assert status.state is State.DRIFTED
    assert status.problems == (
        "0002_interest.sql step 1: applied, but its text is now step 2 (line 2): SQL was "
        "inserted above it",
    )
    with pytest.raises(DriftError) as drift:
        check_drift([status])
    assert drift.value.hint is not None and "new migration" in drift.value.hint
    for accept_edited in (False, True):
        with pytest.raises(BadInputError) as refused:
            repairs_of([status], accept_edited=accept_edited)
        assert refused.value.message.startswith(
            "cannot repair: 0002_interest.sql step 1: applied, but its text is now step 2"
        )
        assert "never ran" in refused.value.message
        assert refused.value.hint is not None and "safemigrate new NAME" in refused.value.hint


def test_a_step_removed_above_an_applied_one_is_refused_too() -> None:
    three = migration(3, "c", "SELECT 1", "SELECT 2", "SELECT 3")
    fewer = migration(3, "c", "SELECT 1", "SELECT 3")
    status = only(statuses([fewer], applied(three)))
    assert "0003_c.sql step 3: applied, but its text is now step 2 (line 2): a step above it " in (
        " ".join(status.problems)
    )
    with pytest.raises(BadInputError, match="cannot repair"):
        repairs_of([status])


def test_issue_21_item_2_sql_added_to_an_applied_empty_migration_is_forgotten_not_accepted() -> (
    None
):
    filled = migration(5, "idx", "CREATE INDEX CONCURRENTLY i ON t (a)")
    rows = [JournalEntry(5, "idx", 0, EMPTY)]
    status = only(statuses([filled], rows))
    assert status.state is State.DRIFTED
    assert status.problems == (
        "0005_idx.sql step 1: applied while the file had no SQL; SQL was added since, and none "
        "of it ran",
    )
    [repair] = repairs_of([status])
    assert repair.action is RepairAction.FORGET
    assert repair.reason == "applied while the file had no SQL: none of its SQL ran"
    # Forgotten, the migration is pending: up runs its SQL.
    [planned] = pending_steps([filled], [])
    assert planned.step.statements[0].kind == "IndexStmt"


def test_an_empty_migration_still_empty_after_a_comment_edit_is_applied() -> None:
    placeholder = migration(5, "idx", "-- comment only")
    rows = [JournalEntry(5, "idx", 0, EMPTY)]
    assert placeholder.steps[0].empty
    assert only(statuses([placeholder], rows)).state is State.APPLIED


def test_an_edited_applied_step_is_accepted_only_with_accept_edited() -> None:
    edited = migration(2, "interest", "UPDATE accounts SET balance = balance + 11")
    status = only(statuses([edited], applied(UPDATE)))
    with pytest.raises(BadInputError) as refused:
        repairs_of([status])
    assert refused.value.message == (
        "cannot repair without --accept-edited: 0002_interest.sql step 1: applied, but its text "
        "has changed; repair records as applied only text that ran"
    )
    [repair] = repairs_of([status], accept_edited=True)
    assert repair.action is RepairAction.ACCEPT
    assert "accept the current text `UPDATE accounts SET balance = balance + 11`" in (
        repair.describe()
    )


def test_an_edit_and_a_removal_together_cannot_be_told_apart() -> None:
    two = migration(4, "d", "SELECT 1", "SELECT 2", "SELECT 3")
    changed = migration(4, "d", "SELECT 1", "SELECT 22")
    status = only(statuses([changed], applied(two)))
    with pytest.raises(BadInputError, match="both edited and removed"):
        repairs_of([status], accept_edited=True)


def test_a_removed_last_step_is_still_forgotten_and_a_new_last_step_is_pending() -> None:
    two = migration(4, "d", "SELECT 1", "SELECT 2")
    shorter = migration(4, "d", "SELECT 1")
    [repair] = repairs_of(statuses([shorter], applied(two)))
    assert repair.action is RepairAction.FORGET
    longer = migration(4, "d", "SELECT 1", "SELECT 2", "SELECT 3")
    assert only(statuses([longer], applied(two))).state is State.PARTIAL
