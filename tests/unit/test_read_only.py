"""Statements that would make the runner's transactions read-only (issue 21, review 21f F3):
the journal row of a step is written in a read-write transaction only, and a transaction cannot
go back to read-write after its first query (check_transaction_read_only in
src/backend/commands/variable.c)."""

from __future__ import annotations

import pglast
import pytest

from safemigrate.planning.safer_forms import build_steps
from safemigrate.statements.read_only import read_only_change
from safemigrate.statements.session_state import history_state


def _change(sql: str) -> str | None:
    return read_only_change(pglast.parse_sql(sql)[0].stmt, sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY",
        "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY",
        "SET TRANSACTION READ ONLY",
        "SET default_transaction_read_only = on",
        "SET default_transaction_read_only = 1",
        "SET SESSION default_transaction_read_only TO 'yes'",
        "SET LOCAL transaction_read_only TO true",
        "SET transaction_read_only = on",
        "BEGIN READ ONLY",
        "START TRANSACTION ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE",
        "SELECT set_config('default_transaction_read_only', 'on', false)",
        "SELECT pg_catalog.set_config('transaction_read_only', 'true', true)",
        "SELECT set_config('default_transaction_read_only', v, false) FROM t",
        "UPDATE pg_settings SET setting = 'on' WHERE name = 'default_transaction_read_only'",
        "DO $$ BEGIN SET default_transaction_read_only = on; END $$",
    ],
)
def test_read_only_forms_are_found(sql: str) -> None:
    assert _change(sql) is not None


@pytest.mark.parametrize(
    "sql",
    [
        "SET default_transaction_read_only = off",  # pg_dumpall's preamble
        "SET default_transaction_read_only = 'of'",
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
        "RESET default_transaction_read_only",
        "SET default_transaction_read_only TO DEFAULT",
        "BEGIN",
        "BEGIN READ WRITE",
        "SELECT set_config('default_transaction_read_only', 'off', false)",
        "SELECT set_config('search_path', 'on', false)",
        "ALTER ROLE reporting SET default_transaction_read_only = on",
        "CREATE FUNCTION f() RETURNS void LANGUAGE sql AS 'SET TRANSACTION READ ONLY'",
    ],
)
def test_read_write_and_other_forms_are_not(sql: str) -> None:
    assert _change(sql) is None


def test_an_applied_read_only_default_is_not_replayed() -> None:
    """A history applied before the refusal existed never wedges a rerun: the replay leaves
    the read-only default out, and keeps the other characteristics."""
    text = (
        "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY;\n"
        "SET default_transaction_read_only = on;\n"
        "SELECT set_config('default_transaction_read_only', 'on', false);\n"
        "SET search_path = app;\n"
    )
    steps = build_steps("0002_ro.sql", text)
    state = history_state([((2, s.index), s, "0002_ro.sql") for s in steps])
    replay = " ".join(state.replay).lower()
    assert "read_only" not in replay and "read only" not in replay
    assert "repeatable read" in replay and "search_path" in replay
