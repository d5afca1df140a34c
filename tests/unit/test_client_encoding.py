"""Which statements would switch the runner's session away from client_encoding UTF8."""

from __future__ import annotations

import pglast
import pytest

from safemigrate.statements.client_encoding import EncodingChange, encoding_change, refusal

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


def _found(text: str) -> EncodingChange | None:
    return encoding_change(pglast.parse_sql(text)[0].stmt, text)


def _change(text: str) -> str | None:
    found = _found(text)
    return None if found is None else found.text


@pytest.mark.parametrize("text", REFUSED)
def test_a_switch_away_from_utf8_is_found(text: str) -> None:
    assert _change(text) is not None


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_utf8_resets_and_other_sessions_defaults_are_left_alone(text: str) -> None:
    assert _change(text) is None


def test_the_finding_names_where_the_change_is() -> None:
    found = _change("DO $$BEGIN PERFORM set_config('client_encoding', 'LATIN1', false); END$$")
    assert found is not None and "inside a DO block" in found and "LATIN1" in found


#: A set_config whose setting name is known only when it runs (issue 21 review21i, the
#: "Cosmetic" finding of guard2.sh): refused, saying what it may switch off.
RUN_TIME_NAMES = [
    "SELECT set_config(s, '0', true) FROM cfg",
    "SELECT set_config(v.s, '0', true) FROM (VALUES ('lock_timeout')) v(s)",
    "DO $$DECLARE s text := 'lock_timeout'; BEGIN PERFORM set_config(s, '0', true); END$$",
    "SELECT set_config(setting_name => current_setting('app.n'), new_value => '0', "
    "is_local => true)",
]


@pytest.mark.parametrize("text", RUN_TIME_NAMES)
def test_issue_21_review21i_a_run_time_setting_name_is_refused_for_the_guard(text: str) -> None:
    found = _found(text)
    assert found is not None and found.name_unknown
    message, hint = refusal(found)
    assert "its setting name is not a constant" in message
    assert "lock_timeout or statement_timeout" in message
    assert "timeout guard off" in message
    assert "name the setting with a string constant" in hint


@pytest.mark.parametrize(
    "text",
    [
        "SELECT set_config(setting_name => 'lock_timeout', new_value => '0', is_local => true)",
        "SELECT set_config('statement_timeout', new_value => '0', is_local => true)",
        "SELECT set_config(new_value => 'UTF8', setting_name => 'client_encoding', "
        "is_local => false)",
    ],
)
def test_named_arguments_are_read_by_name(text: str) -> None:
    """A constant name given by name is that setting: not the encoding (the timeout guard
    judges the first two)."""
    assert _found(text) is None


def test_a_constant_encoding_keeps_the_encodings_message() -> None:
    found = _found(
        "SELECT set_config(setting_name => 'client_encoding', new_value => 'LATIN1', "
        "is_local => false)"
    )
    assert found is not None and not found.name_unknown
    assert "keeps the session's client_encoding UTF8" in refusal(found)[0]
