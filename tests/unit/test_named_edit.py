"""``repair --accept-edited-step VERSION:STEP`` (issue 21): the one applied step the operator
names as edited in place, and ``matching.recorded_text_in``, which finds a recorded text among
the edited step and the steps after it. Pure: migrations built from text, journal rows made
from the texts that ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import BadInputError
from safemigrate.core.model import JournalEntry, Migration
from safemigrate.planning import matching, named_edit
from safemigrate.planning.pending import RepairAction, statuses
from safemigrate.planning.safer_forms import build_steps

PLUS = "UPDATE accounts SET balance = balance + 10;\n"
TIMES = "UPDATE accounts SET balance = balance * 2;\n"
MINUS = "UPDATE accounts SET balance = balance - 1;\n"
START, END = "-- safemigrate: group-start\n", "-- safemigrate: group-end\n"


def _file(sql: str) -> Migration:
    path = Path("/m/0002_i.sql")
    return Migration(2, "0002", "i", path, tuple(build_steps(str(path), sql)))


def _ran(sql: str, *steps: int) -> list[JournalEntry]:
    """Journal rows of ``steps`` (0-based) of ``sql`` as it was when they ran."""
    ran = _file(sql)
    return [JournalEntry(2, "i", i, ran.steps[i].checksum) for i in steps]


def _accept(sql: str, entries: list[JournalEntry], named: str) -> RepairAction:
    now = _file(sql)
    report, repair = named_edit.accept_named(statuses([now], entries), named, [now], entries)
    assert report == []
    return repair.action


def _refused(sql: str, entries: list[JournalEntry], named: str) -> BadInputError:
    now = _file(sql)
    with pytest.raises(BadInputError) as refused:
        named_edit.accept_named(statuses([now], entries), named, [now], entries)
    return refused.value


def test_the_last_applied_step_edited_in_place_is_accepted() -> None:
    entries = _ran(PLUS + TIMES, 0, 1)
    edited = PLUS + TIMES.replace("* 2", "* (2)") + MINUS
    assert _accept(edited, entries, "0002:2") is RepairAction.ACCEPT


def test_a_split_group_is_refused_naming_the_steps_it_is_now() -> None:
    entries = _ran(PLUS + START + TIMES + MINUS + END, 0, 1)
    refused = _refused(PLUS + TIMES + MINUS, entries, "0002:2")
    assert "its applied text is now steps 2 to 3 (line 2): the edit split it" in refused.message
    assert refused.hint is not None and "restore the group markers" in refused.hint


def test_a_split_block_is_refused_too() -> None:
    # A block's BEGIN and COMMIT are in the recorded text but in no step now (review21g P1).
    entries = _ran(PLUS + "BEGIN;\n" + TIMES + MINUS + "COMMIT;\n", 0, 1)
    refused = _refused(PLUS + TIMES + MINUS, entries, "0002:2")
    assert "its statements are now in 0002_i.sql step 3 (line 3), which is not applied" in (
        refused.message
    )
    assert refused.hint is not None and "BEGIN/COMMIT" in refused.hint


def test_statements_added_around_the_applied_text_are_refused() -> None:
    entries = _ran(PLUS + TIMES, 0, 1)
    refused = _refused(PLUS + START + TIMES + MINUS + END, entries, "0002:2")
    assert "SQL was added inside it: line 4 `UPDATE accounts SET balance = balance - 1`" in (
        refused.message
    )
    assert refused.hint is not None and "new migration" in refused.hint


def test_another_applied_step_edited_too_is_refused() -> None:
    entries = _ran(PLUS + TIMES, 0, 1)
    edited = PLUS.replace("+ 10", "+ (10)") + TIMES.replace("* 2", "* (2)") + MINUS
    refused = _refused(edited, entries, "0002:2")
    assert "only the step named may differ from what ran, but 0002_i.sql step 1" in (
        refused.message
    )


@pytest.mark.parametrize(
    ("named", "words"),
    [
        ("0002:3", "0002_i.sql step 3 (line 3) is not applied"),
        ("0002:1", "0002_i.sql step 1 (line 1): its text is what ran"),
        ("0002:7", "0002_i.sql has 3 steps"),
        ("0009:1", "no migration 0009 in the directory"),
        ("0002", "'0002' is not VERSION:STEP"),
        ("0002:0", "STEP is a step number from 1"),
        ("x:1", "is not VERSION:STEP"),
    ],
)
def test_a_step_that_cannot_be_named_is_refused(named: str, words: str) -> None:
    entries = _ran(PLUS + TIMES, 0, 1)
    refused = _refused(PLUS + TIMES.replace("* 2", "* (2)") + MINUS, entries, named)
    assert words in refused.message


def test_too_many_statements_after_it_to_search_are_refused() -> None:
    entries = _ran(PLUS + TIMES, 0, 1)
    many = "".join(f"SELECT {i};\n" for i in range(matching.MAX_SEARCHED_STATEMENTS))
    refused = _refused(PLUS + TIMES.replace("* 2", "* (2)") + many, entries, "0002:2")
    assert "hold too many statements to rule out" in refused.message


def test_recorded_text_in_finds_runs_of_statements_across_steps() -> None:
    ran = _file(START + TIMES + MINUS + END)
    now = _file(PLUS + TIMES + MINUS + "SELECT 1;\n")
    found = matching.recorded_text_in(ran.steps[0].checksum, now.steps)
    assert found == matching.Found(first_step=1, last_step=2, line=2)
    assert matching.recorded_text_in(_file(PLUS).steps[0].checksum, now.steps[1:]) is None
    assert matching.searchable(now.steps)
