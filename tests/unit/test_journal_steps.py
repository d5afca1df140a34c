"""The status reader (``source.journal_steps``) makes the full parse's steps: same texts,
lines, kinds, modes, options and checksums, on every SQL file the project holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.model import Step
from safemigrate.planning.safer_forms import build_steps
from safemigrate.source.journal_steps import plain_steps

REPO = Path(__file__).resolve().parents[2]
LANGFUSE = REPO.parent / "shared" / "corpora" / "langfuse" / "migrations"
SQL_FILES = sorted(
    [*REPO.glob("tests/**/*.sql"), *REPO.glob("migrations_example/*.sql"), *LANGFUSE.glob("*.sql")]
)


def _facts(steps: tuple[Step, ...] | list[Step]) -> list[tuple[object, ...]]:
    """What status reads of each step."""
    return [
        (
            s.index,
            s.mode,
            s.options,
            s.line,
            s.summary,
            s.checksum,
            s.raw_checksum,
            tuple((x.text, x.line, x.column, x.kind, x.non_transactional) for x in s.statements),
        )
        for s in steps
    ]


def _full(text: str) -> list[Step] | None:
    try:
        return build_steps("f.sql", text)
    except Exception:  # any refusal: the fast reader must then decline the file
        return None


@pytest.mark.parametrize(
    "text",
    [
        "CREATE TABLE t (id int);\nINSERT INTO t VALUES (1);\n",
        "-- only a comment\n",
        "",
        "DROP TABLE t;\nDROP INDEX CONCURRENTLY i;\n",
        "BEGIN;\nCREATE TABLE t (id int);\nCOMMIT;\n",
        "CREATE INDEX i ON t (id);\n",
        "-- safemigrate: lock-timeout=1s\nCREATE TABLE t (id int);\n",
        "-- SafeMigrate: lock-timeout=1s\nCREATE TABLE t (id int);\n",
        "/* safemigrate: no-retry */\nCREATE TABLE t (id int);\n",
        "-- safe-migrate: no-retry\nCREATE TABLE t (id int);\n",
        "CREATE TABLE t (id int;\n",
        "SELECT 1;\0\n",
        "COPY t FROM STDIN;\n",
        "VACUUM t;\n",
        "  CREATE TABLE t (\r\n  id int   \r\n);  \n-- tail\nSELECT 'a  \n b';\n",
    ],
)
def test_plain_steps_are_the_full_parse_or_none(text: str) -> None:
    fast = plain_steps(text)
    if fast is not None:
        full = _full(text)
        assert full is not None
        assert _facts(fast) == _facts(full)


def test_plain_steps_declines_what_the_policy_or_a_block_decides() -> None:
    assert plain_steps("BEGIN;\nCREATE TABLE t (id int);\nCOMMIT;\n") is None
    assert plain_steps("CREATE INDEX i ON t (id);\n") is None
    assert plain_steps("DROP INDEX CONCURRENTLY i;\n") is None
    assert plain_steps("-- safemigrate: no-rewrite\nCREATE TABLE t (id int);\n") is None
    assert plain_steps("CREATE TABLE t (id int;\n") is None


@pytest.mark.skipif(not SQL_FILES, reason="no SQL files")
def test_every_sql_file_reads_the_same_for_status() -> None:
    read = 0
    for path in SQL_FILES:
        text = path.read_bytes().decode("utf-8", errors="replace").removeprefix("\ufeff")
        fast = plain_steps(text)
        if fast is None:
            continue
        full = _full(text)
        assert full is not None, path
        assert _facts(fast) == _facts(full), path
        read += 1
    assert read > 0
