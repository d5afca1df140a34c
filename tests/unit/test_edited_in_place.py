"""An applied step edited in its place, statement by statement against its recorded text
(issue 21, review21f F1): statements added inside it never ran, so repair may not accept it.
Pure: steps built from text, the recorded checksum from the text that ran."""

from __future__ import annotations

import pytest

from safemigrate.core import checksums
from safemigrate.planning import edited_in_place
from safemigrate.planning.safer_forms import build_steps

PLUS = "UPDATE acc SET n = n + 10;\n"
ONE = "UPDATE acc SET n = n + 1;\n"
LOG = "CREATE TABLE interest_log (id int);\n"
START, END = "-- safemigrate: group-start\n", "-- safemigrate: group-end\n"


def _recorded(sql: str) -> str:
    [step] = build_steps("/m/0002_x.sql", sql)
    return step.checksum


def _added(ran: str, now: str) -> str | None:
    [step] = build_steps("/m/0002_x.sql", now)
    return edited_in_place.added_problem("0002_x.sql", step, _recorded(ran))


@pytest.mark.parametrize(
    ("ran", "now", "line"),
    [
        (PLUS, START + PLUS + LOG + END, 3),  # the review's case: a group around it
        (PLUS, "BEGIN;\n" + PLUS + LOG + "COMMIT;\n", 3),  # a transaction block
        (PLUS, START + LOG + PLUS + END, 2),  # added before it
        (START + PLUS + PLUS + END, START + PLUS + LOG + PLUS + END, 3),  # between two
        (PLUS, "DO $$ BEGIN " + PLUS + LOG + "END $$;\n", 1),  # a DO block's body
        (START + PLUS + ONE + END, START + PLUS + ONE + LOG + END, 4),  # appended in a group
        ("BEGIN;\n" + PLUS + ONE + "COMMIT;\n", "BEGIN;\n" + PLUS + ONE + LOG + "COMMIT;\n", 4),
    ],
)
def test_a_statement_added_inside_is_named_by_its_line(ran: str, now: str, line: int) -> None:
    problem = _added(ran, now)
    assert problem is not None
    assert f"SQL was added inside it: line {line}" in problem
    assert "CREATE TABLE interest_log (id int)" in problem or "(in its DO block)" in problem


@pytest.mark.parametrize(
    ("ran", "now"),
    [
        (PLUS, PLUS.replace("UPDATE", "update")),  # an edit: accept-edited's case
        (PLUS, "BEGIN;\n" + PLUS + "COMMIT;\n"),  # only a block around it
        (PLUS, "DO $$ BEGIN " + PLUS + "END $$;\n"),  # the same statement in a DO block
        (START + PLUS + LOG + END, PLUS),  # a statement removed: not what this can see
    ],
)
def test_an_edit_adding_nothing_is_left_to_accept_edited(ran: str, now: str) -> None:
    assert _added(ran, now) is None


def test_a_step_too_long_to_compare_is_refused() -> None:
    many = START + "".join(f"SELECT {i};\n" for i in range(61)) + END
    problem = _added(PLUS, many)
    assert problem is not None and "more than the 60 repair compares" in problem


def test_a_long_step_is_searched_by_runs() -> None:
    ran = START + "".join(f"SELECT {i};\n" for i in range(20)) + END
    now = START + "".join(f"SELECT {i};\n" for i in range(10)) + LOG
    now += "".join(f"SELECT {i};\n" for i in range(10, 20)) + END
    problem = _added(ran, now)
    assert problem is not None and "line 12 `CREATE TABLE interest_log (id int)`" in problem


def test_statement_units_digest_to_the_step_checksums() -> None:
    texts = ["UPDATE a SET n = n + 1  ", "SELECT 'x'\n 'y'", "COPY t FROM stdin"]
    data = ["", "", "1\t2\r\n"]
    units = [checksums.statement_units(t, d) for t, d in zip(texts, data, strict=True)]
    got = tuple(checksums.digest(u[kind] for u in units) for kind in range(4))
    assert got == checksums.all_checksums(texts, data)
