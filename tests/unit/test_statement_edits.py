"""Issue 21: an edited applied step against the statements it ran, as the journal records
them (each statement's token checksum): which statements never ran (added), which ran and
are gone (removed), which stand in the place of one that ran (edited), which ran as another
applied step (grouped), whether the order changed; and no bound on how many. Pure: steps
built from text, the recorded statements from the text that ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.model import JournalEntry, Migration, Step
from safemigrate.planning import edited_in_place
from safemigrate.planning.pending import statuses
from safemigrate.planning.safer_forms import build_steps

A = "UPDATE acc SET n = n + 10;\n"
B = "UPDATE acc SET n = n + 1;\n"
C = "UPDATE acc SET n = n * 2;\n"
LOG = "CREATE TABLE interest_log (id int);\n"
START, END = "-- safemigrate: group-start\n", "-- safemigrate: group-end\n"


def _steps(sql: str) -> list[Step]:
    return build_steps("/m/0002_x.sql", sql)


def _ran(sql: str) -> tuple[str, ...]:
    [step] = _steps(sql)
    return step.statement_checksums


def _compare(ran: str, now: str) -> edited_in_place.Ran:
    return edited_in_place.compare({0: _ran(ran)}, _steps(now)).ran[0]


def _group(*statements: str) -> str:
    return START + "".join(statements) + END


def _lines(sents: tuple[edited_in_place.Sent, ...]) -> list[int]:
    return [s.statement.line for s in sents]


@pytest.mark.parametrize(
    ("ran", "now", "lines"),
    [
        (A, _group(A, LOG), [3]),
        (A, _group(LOG, A), [2]),
        (_group(A, B), _group(A, LOG, B), [3]),
        (_group(A, B), _group(B, LOG, A), [3]),  # reordered, with one put between
        (_group(A, B), _group(A, B, LOG, LOG), [4, 5]),
        (_group(A, B), "BEGIN;\n" + A + B + LOG + "COMMIT;\n", [4]),  # block for group
        (A, "DO $$ BEGIN " + A + LOG + "END $$;\n", [1]),
        (_group(A, B), _group(A, C + C, LOG), [4, 5]),  # edited, and two beyond what ran
    ],
    ids=[
        "after",
        "before",
        "between",
        "reordered-between",
        "two",
        "block",
        "do-block",
        "edit-and-added",
    ],
)
def test_statements_beyond_what_ran_are_added(ran: str, now: str, lines: list[int]) -> None:
    assert _lines(_compare(ran, now).added) == lines


def test_edit_and_add_in_one_step_names_the_added_one() -> None:
    """What one checksum per step could not show: a statement edited and one added."""
    found = _compare(_group(A, B), _group(A, C, LOG))
    assert _lines(found.added) == [4]
    assert [(s.statement.line, p) for s, p in found.edited] == [(3, 2)]
    assert found.removed == ()


def test_a_statement_removed_is_reported_not_added() -> None:
    found = _compare(_group(A, B, C), _group(A, C))
    assert found.added == () and found.edited == ()
    assert found.removed == (2,) and found.count == 3
    assert "statement 2 of the 3 it ran is no longer in it" in found.detail()


def test_statements_reordered_all_ran() -> None:
    found = _compare(_group(A, B, C), _group(C, A, B))
    assert found.added == () and found.removed == () and found.edited == ()
    assert found.reordered
    assert "the statements that ran are all there, in another order" in found.detail()


def test_a_block_made_a_group_changes_nothing() -> None:
    found = _compare("BEGIN;\n" + A + B + "COMMIT;\n", _group(A, B))
    assert found == edited_in_place.Ran(count=2)


def test_one_statement_edited_is_an_edit() -> None:
    found = _compare(A, "update acc SET n = n + 10;\n")
    assert found.added == () and [p for _, p in found.edited] == [1]


def test_a_duplicate_statement_is_one_more_than_ran() -> None:
    found = _compare(_group(A, B), _group(A, B, A))
    assert _lines(found.added) == [4]


@pytest.mark.parametrize("count", [61, 250])
def test_no_bound_on_the_statements_compared(count: int) -> None:
    many = [f"UPDATE acc SET n = n + {i};\n" for i in range(count)]
    ran = _group(*many)
    added = _compare(ran, _group(*many[:40], LOG, *many[40:]))
    assert _lines(added.added) == [42]
    reordered = _compare(ran, _group(*reversed(many)))
    assert reordered.reordered and not reordered.added and not reordered.removed
    removed = _compare(ran, _group(*many[:-1]))
    assert removed.removed == (count,) and not removed.added


def test_steps_grouped_into_one_ran_as_the_other_rows() -> None:
    """Three applied steps made two: step 1 holds what steps 1 and 2 ran, step 2 what step 3
    ran; row 3 is beyond the file's end. Nothing never ran."""
    ran = {0: _ran(A), 1: _ran(B), 2: _ran(C)}
    compared = edited_in_place.compare(ran, _steps(_group(A, B) + C))
    assert not compared.ran[0].added and not compared.ran[1].added
    assert [step for _, step in compared.ran[0].moved_in] == [1]
    assert [step for _, step in compared.ran[1].moved_in] == [2]
    assert compared.moved_out == {1: (0,), 2: (1,)}
    assert compared.unplaced == {}


def test_statements_no_step_holds_are_unplaced() -> None:
    ran = {0: _ran(_group(A, B))}
    compared = edited_in_place.compare(ran, _steps(A))
    assert compared.unplaced == {0: _ran(B)}


def test_rows_without_statements_keep_the_step_checksum_comparison() -> None:
    """A row an earlier release wrote has no statements: pending compares it as before."""
    steps = _steps(_group(A, B, LOG))
    [ran] = _steps(_group(A, B))
    migration = Migration(2, "0002", "x", Path("/m/0002_x.sql"), tuple(steps))
    old = JournalEntry(2, "x", 0, ran.checksum)
    new = JournalEntry(2, "x", 0, ran.checksum, statements=ran.statement_checksums)
    [before] = statuses([migration], [old])
    [after] = statuses([migration], [new])
    assert before.unrepairable is not None and after.unrepairable is not None
    assert "SQL was added inside it: line 4" in before.unrepairable
    assert "SQL was added inside it: line 4" in after.unrepairable
