"""The library examples, exactly as docs/library.md and ``safemigrate.api`` show them, against a
real PostgreSQL: only the example DSN is replaced by the test database's."""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
from pathlib import Path

import pytest

import safemigrate.api
from tests.support.runner import REPO, journal_rows, write_migrations

EXAMPLE_DSN = '"postgresql://app@db/shop"'

MIGRATIONS = {
    "0001_items.sql": "CREATE TABLE items (id bigint PRIMARY KEY, name text);\n",
    "0002_items_name.sql": "CREATE INDEX items_name ON items (name);\n",
}


def readme_example() -> str:
    """The python block of the manual's "As a library" page (docs/library.md)."""
    page = (REPO / "docs" / "library.md").read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", page, re.DOTALL)
    assert match is not None, "docs/library.md has no python example"
    return match.group(1)


def docstring_example() -> str:
    """The indented example of ``safemigrate.api``'s docstring."""
    doc = safemigrate.api.__doc__ or ""
    block = doc.split("::\n", 1)[1].split("\n\n\n", 1)[0]
    lines = []
    for line in block.splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


def run_example(code: str, dsn: str) -> tuple[dict[str, object], str]:
    """Run ``code`` with the test DSN in place of the example's; its globals and what it
    printed."""
    assert EXAMPLE_DSN in code
    code = code.replace(EXAMPLE_DSN, repr(dsn))
    namespace: dict[str, object] = {"__name__": "example"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "example", "exec"), namespace)
    return namespace, printed.getvalue()


@pytest.mark.parametrize("example", [readme_example, docstring_example], ids=["readme", "api"])
def test_the_library_example_applies_the_migrations(
    example: object, db_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert callable(example)
    write_migrations(tmp_path / "migrations", MIGRATIONS)
    monkeypatch.chdir(tmp_path)  # the examples load ./migrations
    namespace, printed = run_example(example(), db_dsn)
    assert journal_rows(db_dsn) == [(1, 0, "applied"), (2, 0, "applied")]
    result = namespace["result"]
    assert len(result.applied) == 2  # type: ignore[attr-defined]
    if example is readme_example:
        assert "applied 2 steps" in printed
        assert "RunStarted(" in printed  # on_event=print
        assert "0 lint errors" in printed
        assert namespace["report"].drifted == []  # type: ignore[attr-defined]
