"""Which statements would switch the runner's session away from client_encoding UTF8."""

from __future__ import annotations

import pglast
import pytest

from safemigrate.statements.client_encoding import encoding_change

REFUSED = [
    "SET client_encoding = 'SQL_ASCII'",
    "SET client_encoding TO latin1",
    "SET SESSION client_encoding = 'WIN1252'",
    "SET LOCAL client_encoding = 'LATIN1'",
    "SET NAMES 'LATIN1'",
    "SELECT set_config('client_encoding', 'LATIN1', false)",
    "SELECT pg_catalog.set_config('client_encoding', 'SQL_ASCII', true)",
    # Name or value known only when it runs: it could be the encoding.
    "SELECT set_config(current_setting('app.name'), 'x', false)",
    "SELECT set_config('client_encoding', current_setting('app.enc'), false)",
    "DO $$BEGIN PERFORM set_config('client_encoding', 'LATIN1', false); END$$",
    "CREATE FUNCTION f() RETURNS text LANGUAGE sql "
    "AS $$SELECT set_config('client_encoding', 'LATIN1', false)$$",
    "CREATE FUNCTION g() RETURNS void LANGUAGE plpgsql "
    "AS $$BEGIN SET client_encoding = 'LATIN1'; END$$",
]

LEFT_ALONE = [
    # pg_dump's preamble for a UTF-8 database, and the spellings the server takes for UTF-8
    # (pg_char_to_encoding ignores case and non-alphanumerics; "unicode" is an alias).
    "SET client_encoding = 'UTF8'",
    "SET client_encoding = 'utf-8'",
    "SET NAMES 'Unicode'",
    # Back to the connection's value, which the runner sets to UTF8.
    "RESET client_encoding",
    "SET client_encoding TO DEFAULT",
    "RESET ALL",
    # Defaults for other sessions or calls: the runner's connection parameter and the
    # function's exit (proconfig is restored on return) undo them.
    "ALTER DATABASE d SET client_encoding = 'LATIN1'",
    "ALTER ROLE r SET client_encoding = 'LATIN1'",
    "ALTER SYSTEM SET client_encoding = 'LATIN1'",
    "CREATE FUNCTION h() RETURNS void LANGUAGE plpgsql SET client_encoding = 'LATIN1' "
    "AS $$BEGIN END$$",
    "SELECT set_config('search_path', 'app', false)",
    "SET search_path = app",
]


def _change(text: str) -> str | None:
    return encoding_change(pglast.parse_sql(text)[0].stmt, text)


@pytest.mark.parametrize("text", REFUSED)
def test_a_switch_away_from_utf8_is_found(text: str) -> None:
    assert _change(text) is not None


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_utf8_resets_and_other_sessions_defaults_are_left_alone(text: str) -> None:
    assert _change(text) is None


def test_the_finding_names_where_the_change_is() -> None:
    found = _change("DO $$BEGIN PERFORM set_config('client_encoding', 'LATIN1', false); END$$")
    assert found is not None and "inside a DO block" in found and "LATIN1" in found
