"""The recorded batches of a started step against its text (issue 21 item 4). Pure."""

from __future__ import annotations

import pytest

from safemigrate.core.errors import BadInputError, DriftError
from safemigrate.core.model import JournalEntry, StepProgress
from safemigrate.planning.pending import RepairAction, State, check_drift, repairs_of, statuses
from tests.unit.test_pending import migration, only

A = migration(1, "flag", "UPDATE orders SET flag = true")


def progress(checksum: str, step: int = 0) -> StepProgress:
    return StepProgress(1, step, checksum, 20, ("20000",), 20000, "2026-12-01 10:00:00+00")


STARTED = [JournalEntry(1, "flag", 0, A.steps[0].checksum, state="started")]


def test_batches_of_the_steps_own_text_are_its_progress() -> None:
    status = only(statuses([A], STARTED, [progress(A.steps[0].checksum)]))
    assert status.state is State.PENDING
    assert status.problems == ()


def test_issue_21_item_4_batches_of_another_text_make_the_step_drifted() -> None:
    edited = migration(1, "flag", "UPDATE invoices SET flag = true")
    status = only(statuses([edited], STARTED, [progress(A.steps[0].checksum)]))
    assert status.state is State.DRIFTED
    [problem] = status.problems
    assert problem == (
        "0001_flag.sql step 1 (line 1): 20 batches (keys up to 20000, 20,000 rows changed, the "
        "last at 2026-12-01 10:00:00+00) of an earlier text committed; its text has changed since"
    )
    with pytest.raises(DriftError) as raised:
        check_drift([status])
    assert raised.value.hint is not None and "--forget-batches" in raised.value.hint
    [repair] = status.repairs
    assert repair.action is RepairAction.FORGET and repair.progress is not None
    assert repair.describe().startswith("0001_flag.sql step 1: forget the 20 batches")
    assert repair.to_dict()["batches"] == 20


def test_forgetting_batches_takes_the_explicit_option() -> None:
    edited = migration(1, "flag", "UPDATE invoices SET flag = true")
    report = statuses([edited], STARTED, [progress(A.steps[0].checksum)])
    with pytest.raises(BadInputError, match="cannot repair without --forget-batches"):
        repairs_of(report)
    [repair] = repairs_of(report, forget_batches=True)
    assert repair.progress is not None


def test_batches_of_a_step_the_file_no_longer_has_are_drift_too() -> None:
    status = only(statuses([A], STARTED, [progress("old", step=1)]))
    assert status.state is State.DRIFTED
    assert "the file now has only 1 step" in status.problems[0]


def test_progress_of_an_applied_step_is_history_not_drift() -> None:
    applied = [JournalEntry(1, "flag", 0, A.steps[0].checksum)]
    edited = migration(1, "flag", "UPDATE orders SET flag = true ")
    status = only(statuses([edited], applied, [progress("older text")]))
    assert status.state is State.APPLIED
