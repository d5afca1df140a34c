"""The indexed, remembered lookup of :mod:`safemigrate.reference.lookup` gives the verdicts of
a scan of every row: for every example of the table and every statement of the lint corpus,
on every server major, the same rows (and the same tie), asked once or again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pglast
import pytest

from safemigrate.reference import ROWS, lookup
from safemigrate.reference.model import NEWEST, OLDEST
from safemigrate.reference.schema import DATABASE, NEW_DATABASE

CORPUS = Path(__file__).resolve().parents[1] / "lint_corpus"
VERSIONS = range(OLDEST, NEWEST + 1)


def statements() -> list[Any]:
    """The parse trees of every example of the table and every lint corpus file."""
    texts = [
        example.sql.replace(DATABASE, "app").replace(NEW_DATABASE, "app_new")
        for row in ROWS
        for example in row.examples
    ]
    texts += [path.read_text() for path in sorted(CORPUS.glob("*.sql"))]
    found = []
    for text in texts:
        try:
            found += [raw.stmt for raw in pglast.parse_sql(text)]
        except pglast.parser.ParseError:
            continue  # a corpus file showing a syntax error
    return found


def scanned(statement: Any, version: int) -> list[tuple[Any, str | None]] | str:
    """Every part's row id by a scan of every row of its class (the ``rows`` argument), or
    the tie's message."""
    try:
        return [
            (m.node, m.row.id if m.row else None) for m in lookup.matches(statement, version, ROWS)
        ]
    except lookup.AmbiguousRowError as err:
        return str(err)


def indexed(statement: Any, version: int) -> list[tuple[Any, str | None]] | str:
    try:
        return [(m.node, m.row.id if m.row else None) for m in lookup.matches(statement, version)]
    except lookup.AmbiguousRowError as err:
        return str(err)


def test_indexed_lookup_finds_the_rows_a_scan_of_every_row_finds() -> None:
    everything = statements()
    assert len(everything) > 1000
    for statement in everything:
        for version in VERSIONS:
            want = scanned(statement, version)
            assert indexed(statement, version) == want
            assert indexed(statement, version) == want  # asked again: from the memo


def test_other_rows_are_those_a_scan_finds_on_any_version() -> None:
    for statement in statements():
        for node, parents in lookup.parts(statement):
            want = tuple(row for row in ROWS if row.key.matches(node, parents))
            assert lookup.other_rows(node, parents) == want
            lookup.matches(statement)  # remembered: the same answer from the memo
            assert lookup.other_rows(node, parents) == want


def test_a_remembered_answer_is_a_fresh_list() -> None:
    [raw] = pglast.parse_sql("ALTER TABLE t ADD COLUMN c int")
    first = lookup.matches(raw.stmt)
    first.clear()
    assert len(lookup.matches(raw.stmt)) == 1


@pytest.mark.parametrize("count", [1, 300, 2000])
def test_answers_stay_right_past_the_memo_bound(count: int) -> None:
    texts = [f"ALTER TABLE t{i} ADD COLUMN c int" for i in range(count)]
    trees = [pglast.parse_sql(text)[0].stmt for text in texts]
    first = [indexed(tree, NEWEST) for tree in trees]
    assert [indexed(tree, NEWEST) for tree in reversed(trees)] == first[::-1]
    assert all(not isinstance(answer, str) for answer in first)
    ids = {row for answer in first if not isinstance(answer, str) for _, row in answer}
    assert ids == {"alter-table.add-column"}
