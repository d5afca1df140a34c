"""The one volatile-function list (safemigrate.statements.volatility) against the server's own
catalog: every VOLATILE function of pg_catalog is in it, so a regenerated list adds nothing (the
query is the one its docstring gives)."""

from __future__ import annotations

from safemigrate.statements.volatility import VOLATILE_FUNCTIONS
from tests.fixtures_db import ConnectFactory

QUERY = (
    "SELECT DISTINCT proname FROM pg_proc "
    "WHERE pronamespace = 'pg_catalog'::regnamespace AND prokind = 'f' AND provolatile = 'v'"
)


def test_every_volatile_function_of_the_server_is_listed(connect: ConnectFactory) -> None:
    conn = connect()
    names = {str(row[0]) for row in conn.execute(QUERY).fetchall()}
    assert names - VOLATILE_FUNCTIONS == set()
    assert {"random", "gen_random_uuid", "clock_timestamp", "nextval"} <= names
