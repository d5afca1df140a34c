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
    return edited_in_place.compare({(2, 0): _ran(ran)}, {2: _steps(now)}).ran[(2, 0)]


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
    ran = {(2, 0): _ran(A), (2, 1): _ran(B), (2, 2): _ran(C)}
    compared = edited_in_place.compare(ran, {2: _steps(_group(A, B) + C)})
    assert not compared.ran[(2, 0)].added and not compared.ran[(2, 1)].added
    assert [step for _, step in compared.ran[(2, 0)].moved_in] == ["step 2"]
    assert [step for _, step in compared.ran[(2, 1)].moved_in] == ["step 3"]
    assert compared.moved_out == {(2, 1): ("step 1",), (2, 2): ("step 2",)}
    assert compared.unplaced == {}


def test_a_gone_file_merged_into_another_ran_as_its_row() -> None:
    """0003 [B] merged into 0002's applied step [A] and its file gone: B ran, as 0003."""
    ran = {(2, 0): _ran(A), (3, 0): _ran(B)}
    files = {2: "0002_x.sql", 3: "0003_y.sql"}
    compared = edited_in_place.compare(ran, {2: _steps(_group(A, B))}, files)
    assert not compared.ran[(2, 0)].added
    assert [step for _, step in compared.ran[(2, 0)].moved_in] == ["0003_y.sql step 1"]
    assert compared.moved_out == {(3, 0): ("0002_x.sql step 1",)}
    assert compared.unplaced == {}


def test_statements_no_step_holds_are_unplaced() -> None:
    ran = {(2, 0): _ran(_group(A, B))}
    compared = edited_in_place.compare(ran, {2: _steps(A)})
    assert compared.unplaced == {(2, 0): _ran(B)}


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


def _migration(version: int, name: str, sql: str) -> Migration:
    path = Path(f"/m/{version:04d}_{name}.sql")
    return Migration(version, f"{version:04d}", name, path, tuple(build_steps(str(path), sql)))


def _row(version: int, name: str, sql: str, step: int = 0) -> JournalEntry:
    ran = _steps(sql)[step]
    return JournalEntry(version, name, step, ran.checksum, statements=ran.statement_checksums)


def test_a_statement_split_into_a_later_file_is_refused_as_a_rerun() -> None:
    """[A; B] applied as 0002; A left in place, B in 0004 with 0003 between: up would run B
    again, so repair may neither accept nor forget the row."""
    migrations = [
        _migration(2, "x", A),
        _migration(3, "other", LOG),
        _migration(4, "b", B),
    ]
    report = statuses(migrations, [_row(2, "x", _group(A, B))])
    assert report[0].unrepairable is not None
    assert "its statements are now in 0004_b.sql step 1 (line 1)" in report[0].unrepairable
    assert "up would run them again" in report[0].unrepairable


def test_statements_of_a_gone_file_in_a_pending_one_are_refused_as_a_rerun() -> None:
    migrations = [_migration(5, "moved", _group(B, A))]
    report = statuses(migrations, [_row(2, "x", _group(A, B))])
    gone = next(s for s in report if s.version == 2)
    assert gone.unrepairable is not None and "0005_moved.sql step 1" in gone.unrepairable


def test_a_set_or_a_transaction_statement_again_is_no_rerun() -> None:
    """Running a BEGIN, COMMIT or SET again applies nothing: a new migration may repeat one
    that an edited applied step ran."""
    setting = "SET LOCAL lock_timeout = '5s';\n"
    migrations = [
        _migration(2, "x", _group(A, C)),
        _migration(3, "y", "BEGIN;\n" + setting + LOG + "COMMIT;\n"),
    ]
    report = statuses(migrations, [_row(2, "x", _group(setting, A, B, C))])
    assert report[0].unrepairable is None, report[0].unrepairable
    [accept] = report[0].repairs
    assert "statements 1, 3 of the 4 it ran are no longer in it" in accept.note


def test_grouped_steps_are_one_accept_and_one_forget() -> None:
    migrations = [_migration(2, "x", _group(A, B))]
    report = statuses(migrations, [_row(2, "x", A + B, 0), _row(2, "x", A + B, 1)])
    assert report[0].unrepairable is None
    assert [(r.action.value, r.step) for r in report[0].repairs] == [("accept", 0), ("forget", 1)]
    assert "what it ran is in step 1 now" in report[0].repairs[1].reason


def test_a_row_with_statements_in_a_migration_compared_as_before_is_still_followed() -> None:
    """0002's rows: one written before the journal recorded statements (edited), one since
    (its group [A; B] split, B moved to 0003): the migration is compared by step checksums,
    and B in 0003 is still found, by the search of consecutive statements."""
    old = JournalEntry(2, "x", 0, _steps(C)[0].checksum)
    new = _row(2, "x", C + _group(A, B), 1)
    migrations = [_migration(2, "x", "update acc SET n = n * 2;\n" + A), _migration(3, "b", B)]
    [status, _] = statuses(migrations, [old, new])
    assert status.unrepairable is not None
    assert "its statements are now in 0003_b.sql step 1 (line 1)" in status.unrepairable


def test_a_statement_moved_into_a_pending_do_block_is_a_rerun() -> None:
    migrations = [_migration(2, "x", A), _migration(3, "do", "DO $$ BEGIN " + B + "END $$;\n")]
    report = statuses(migrations, [_row(2, "x", _group(A, B))])
    assert report[0].unrepairable is not None
    assert "0003_do.sql step 1 (line 1)" in report[0].unrepairable


def test_a_statement_with_another_in_its_place_is_unplaced_still() -> None:
    """review21i E10: [A; B] made [A; LOG]: LOG stands in B's place (an edit of it), and B,
    which ran, is among those searched in the steps that would run."""
    ran = {(2, 0): _ran(_group(A, B))}
    compared = edited_in_place.compare(ran, {2: _steps(_group(A, LOG))})
    assert [p for _, p in compared.ran[(2, 0)].edited] == [2]
    assert compared.unplaced == {(2, 0): _ran(B)}
