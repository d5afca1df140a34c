"""A function an object of the migrations already calls, given a SET clause or a new body
that switches the guard off, is refused where that is given (issue 21, review 21i E16).

A trigger, a column DEFAULT, a view or an event trigger made by a migration calls a function
with no call written at the statements that use it. When a LATER statement gives that
function ``SET lock_timeout = 0`` (``ALTER FUNCTION ... SET``, ``CREATE OR REPLACE FUNCTION
... SET``: "the specified configuration parameter ... set to the specified value when the
function is entered", CREATE FUNCTION docs), or a body that does ``set_config('lock_timeout',
'0', false)``, every later use runs it so. Before, the write that fired the trigger, the
INSERT that used the default, the read of the view and the DDL that fired the event trigger
were judged with the function as it was when the object was made: each waited behind the
application's holder with no lock timeout (8.7 s in the review), exit 0.

Each test: the application holds ACCESS SHARE on ``big`` (an open transaction that the server
ends after a few seconds, so a run that does wait ends too), ``up`` runs with ``--lock-timeout
1s``, no pre-check, no yielding; the function ALTERs ``big`` (ACCESS EXCLUSIVE, which
conflicts with ACCESS SHARE: docs 13.3.1 Table-Level Locks). The guard refuses the run up
front: exit 2 at the statement that gave the function its setting, nothing applied, no wait.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.guard_holder import REFUSED_WITHIN_S, Conn, column_added, up_behind_holder
from tests.fixtures_db import ConnectFactory
from tests.support.runner import assert_refused_as_bad_input, run, write_migrations

#: How long the holder's transaction stays open (idle_in_transaction_session_timeout ends
#: it): longer than the refusal takes, short enough that a run that waits behind it ends.
_HOLD = "6s"

#: A PL/pgSQL body that ALTERs big (queued behind the holder once lock_timeout is off).
_ALTERS_BIG = "ALTER TABLE big ADD COLUMN IF NOT EXISTS c int;"


def _make_big(connect: ConnectFactory) -> None:
    """The application's table ``big``, with a row."""
    setup = connect()
    setup.execute("CREATE TABLE big (id int PRIMARY KEY, a int)")
    setup.execute("INSERT INTO big VALUES (1, 1)")


def _hold_big(connect: ConnectFactory) -> Conn:
    """``big`` held in ACCESS SHARE by an application transaction that the server ends after
    ``_HOLD`` idle (the test then ends even if ``up`` waits)."""
    app = connect(autocommit=False, application_name="app")
    app.execute(f"SET idle_in_transaction_session_timeout = '{_HOLD}'")
    app.execute("SELECT * FROM big")
    return app


@pytest.fixture
def holder(connect: ConnectFactory) -> Conn:
    """``big``, held (``_hold_big``)."""
    _make_big(connect)
    return _hold_big(connect)


def _function(name: str, returns: str, extra: str = "", body: str = _ALTERS_BIG) -> str:
    """A PL/pgSQL ``CREATE OR REPLACE FUNCTION name()`` running ``body`` (``extra``: its
    options before AS)."""
    tail = {"trigger": "RETURN NEW;", "int": "RETURN 1;"}.get(returns, "")
    return (
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS {returns} LANGUAGE plpgsql {extra}AS "
        f"$$ BEGIN {body} {tail} END $$;\n"
    )


_TRIGGER = (
    "CREATE TABLE cfg (s text);\n"
    + _function("tf", "trigger")
    + "CREATE TRIGGER trg AFTER INSERT ON cfg FOR EACH ROW EXECUTE FUNCTION tf();\n"
)


@pytest.mark.parametrize(
    ("first", "second", "where", "words"),
    [
        (
            _TRIGGER,
            "ALTER FUNCTION tf() SET lock_timeout = 0;\nINSERT INTO cfg VALUES ('x');\n",
            "0002_b.sql:1",
            ("ALTER FUNCTION tf()", "the trigger trg on cfg (0001_a.sql:3)"),
        ),
        (
            _TRIGGER,
            _function("tf", "trigger", "SET lock_timeout = 0 ") + "INSERT INTO cfg VALUES ('x');\n",
            "0002_b.sql:1",
            ("CREATE OR REPLACE FUNCTION tf()", "the trigger trg on cfg"),
        ),
        (
            _function("d", "int") + "CREATE TABLE x (a int DEFAULT d());\n",
            "ALTER FUNCTION d() SET lock_timeout = 0;\nINSERT INTO x DEFAULT VALUES;\n",
            "0002_b.sql:1",
            ("ALTER FUNCTION d()", "table x (0001_a.sql:2)"),
        ),
        (
            _function("d", "int") + "CREATE VIEW vx AS SELECT d() AS v;\n",
            "ALTER ROUTINE d SET lock_timeout = 0;\nSELECT * FROM vx;\n",
            "0002_b.sql:1",
            ("ALTER ROUTINE d()", "the view vx (0001_a.sql:2)"),
        ),
        (
            _function("etf", "event_trigger")
            + "CREATE EVENT TRIGGER et ON ddl_command_end WHEN TAG IN ('CREATE TABLE')\n"
            "  EXECUTE FUNCTION etf();\n",
            "ALTER FUNCTION etf() SET lock_timeout = 0;\nCREATE TABLE z (id int);\n",
            "0002_b.sql:1",
            ("ALTER FUNCTION etf()", "CREATE EVENT TRIGGER et (0001_a.sql:2)"),
        ),
        (
            _function("d", "int", body="") + "CREATE TABLE x (a int DEFAULT d());\n",
            _function("d", "int", body="PERFORM set_config('lock_timeout', '0', false);")
            + "INSERT INTO x DEFAULT VALUES;\n"
            + _ALTERS_BIG
            + "\n",
            "0002_b.sql:1",
            ("CREATE OR REPLACE FUNCTION d()", "set_config() sets lock_timeout to 0"),
        ),
    ],
    ids=["trigger-alter", "trigger-replace", "default", "view", "event-trigger", "body"],
)
def test_a_function_an_object_calls_given_the_guard_off_later_is_refused_there(
    tmp_path: Path,
    db_dsn: str,
    holder: Conn,
    connect: ConnectFactory,
    first: str,
    second: str,
    where: str,
    words: tuple[str, ...],
) -> None:
    directory = write_migrations(tmp_path / "m", {"0001_a.sql": first, "0002_b.sql": second})
    checked = run("check", "--dir", str(directory))
    assert checked.exit_code == 1, checked.output
    assert "0002_b.sql" in checked.stdout and "[timeout-guard-off]" in checked.stdout
    result, elapsed = up_behind_holder(directory, db_dsn)
    assert_refused_as_bad_input(result, db_dsn, where, *words, "lock_timeout to 0")
    assert elapsed < REFUSED_WITHIN_S
    assert not column_added(connect())
    for mode in ("warn", "off"):
        # The guard's refusal does not depend on lint_gate.
        again, _ = up_behind_holder(directory, db_dsn, "--lint-gate", mode)
        assert again.exit_code == 2 and where in again.stderr, again.output


def test_a_harmless_setting_given_later_is_accepted(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    # Within the ceilings, or another setting: nothing to refuse, the run applies it all.
    conn = connect()
    conn.execute("CREATE TABLE big (id int PRIMARY KEY, a int)")
    second = (
        "ALTER FUNCTION tf() SET lock_timeout = '2s';\n"
        "ALTER FUNCTION tf() SET search_path = public;\n"
        "INSERT INTO cfg VALUES ('x');\n"
    )
    directory = write_migrations(tmp_path / "m", {"0001_a.sql": _TRIGGER, "0002_b.sql": second})
    result, _ = up_behind_holder(directory, db_dsn)
    assert result.exit_code == 0, result.output
    assert column_added(conn)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (_TRIGGER, "ALTER FUNCTION tf() SET lock_timeout = 0;\nINSERT INTO cfg VALUES ('x');\n"),
        (
            _function("d", "int") + "CREATE TABLE x (a int DEFAULT d());\n",
            "ALTER FUNCTION d() SET lock_timeout = 0;\nINSERT INTO x DEFAULT VALUES;\n",
        ),
        (
            _function("d", "int") + "CREATE VIEW vx AS SELECT d() AS v;\n",
            "ALTER ROUTINE d SET lock_timeout = 0;\nSELECT * FROM vx;\n",
        ),
        (
            _function("etf", "event_trigger")
            + "CREATE EVENT TRIGGER et ON ddl_command_end WHEN TAG IN ('CREATE TABLE')\n"
            "  EXECUTE FUNCTION etf();\n",
            "ALTER FUNCTION etf() SET lock_timeout = 0;\nCREATE TABLE z (id int);\n",
        ),
        (
            _function("d", "int", body="") + "CREATE TABLE x (a int DEFAULT d());\n",
            _function("d", "int", body="PERFORM set_config('lock_timeout', '0', false);")
            + f"BEGIN;\nINSERT INTO x DEFAULT VALUES;\n{_ALTERS_BIG}\nCOMMIT;\n",
        ),
    ],
    ids=["trigger", "default", "view", "event-trigger", "body"],
)
def test_the_object_made_by_an_applied_migration_is_judged_at_the_use(
    tmp_path: Path,
    db_dsn: str,
    connect: ConnectFactory,
    first: str,
    second: str,
) -> None:
    # With 0001 applied, the object is the database's: the pending ALTER or REPLACE changes
    # the function the live catalog's trigger, default, view or event trigger calls, and the
    # statement that uses it is refused (line 2), as the database's own objects are.
    directory = write_migrations(tmp_path / "m", {"0001_a.sql": first, "0002_b.sql": second})
    _make_big(connect)  # before 0001: a CREATE TABLE of it would fire 0001's event trigger
    applied = run("up", "--dir", str(directory), "--dsn", db_dsn, "--target", "1")
    assert applied.exit_code == 0, applied.output
    _hold_big(connect)
    result, elapsed = up_behind_holder(directory, db_dsn)
    assert result.exit_code == 2, result.output
    assert "0002_b.sql:" in result.stderr and "lock_timeout to 0" in result.stderr
    assert elapsed < REFUSED_WITHIN_S
    assert not column_added(connect())
