"""``statements.parsed.walk`` enters only the attributes that may hold a node, and finds the
same nodes in the same order as a walk that reads every attribute, on every SQL file the
project holds (issue 26: the walk is shared by the parse and the linter)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pglast
import pytest
from pglast import ast

from safemigrate.lint.context import walk as lint_walk
from safemigrate.statements.parsed import walk

REPO = Path(__file__).resolve().parents[2]
LANGFUSE = REPO.parent / "shared" / "corpora" / "langfuse" / "migrations"
SQL_FILES = sorted(
    [*REPO.glob("tests/**/*.sql"), *REPO.glob("migrations_example/*.sql"), *LANGFUSE.glob("*.sql")]
)


def _every_attribute(node: Any, skip: tuple[type, ...] = ()) -> Iterator[Any]:
    """The walk as it was: every attribute of every node read."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Node):
            yield current
            if isinstance(current, skip):
                continue
            for attr in current:
                value = getattr(current, attr)
                if isinstance(value, ast.Node | tuple | list):
                    stack.append(value)
        elif isinstance(current, tuple | list):
            stack.extend(reversed(current))


def _trees(path: Path) -> list[Any]:
    try:
        return [raw.stmt for raw in pglast.parse_sql(path.read_text(encoding="utf-8"))]
    except (pglast.parser.ParseError, UnicodeDecodeError):
        return []


def test_there_are_files_to_walk() -> None:
    assert len(SQL_FILES) > 20


@pytest.mark.parametrize("path", SQL_FILES, ids=lambda p: p.name)
def test_the_walk_finds_what_reading_every_attribute_finds(path: Path) -> None:
    for tree in _trees(path):
        expected = list(_every_attribute(tree))
        assert [id(n) for n in walk(tree)] == [id(n) for n in expected]
        skipped = list(_every_attribute(tree, (ast.CreateFunctionStmt,)))
        assert [id(n) for n in lint_walk(tree)] == [id(n) for n in skipped]


def test_a_node_in_a_list_attribute_and_an_expression_is_found() -> None:
    (raw,) = pglast.parse_sql(
        "ALTER TABLE t ADD CONSTRAINT c CHECK (f(x) > 0), ALTER COLUMN y SET DEFAULT g()"
    )
    calls = [n for n in walk(raw.stmt) if isinstance(n, ast.FuncCall)]
    names = [str(n.funcname[-1].sval) for n in calls if n.funcname]
    assert names == ["f", "g"]
