"""Issue 22 item 4: the connection strings other tools write, mapped to libpq's own form (or
refused naming the parameter, never showing a password); item 8: values libpq refuses only
when connecting (a port that is not a number, an unknown sslmode) are bad input (exit 2)."""

from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from safemigrate.core.errors import BadInputError, ExitCode
from safemigrate.db.dsn import normalize, parse_dsn


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # SQLAlchemy / yoyo: the driver part goes.
        ("postgresql+psycopg://app:pw@db:5433/shop", "postgresql://app:pw@db:5433/shop"),
        (
            "postgresql+psycopg2://app@db/shop?sslmode=require",
            "postgresql://app@db/shop?sslmode=require",
        ),
        ("postgres+asyncpg://app@db/shop", "postgresql://app@db/shop"),
        # dbmate / lib/pq: socket is libpq's host; search_path goes to options.
        (
            "postgres://app@/shop?socket=/var/run/postgresql&sslmode=disable",
            "postgresql://app@/shop?host=/var/run/postgresql&sslmode=disable",
        ),
        (
            "postgres://app@db/shop?search_path=tenant",
            "postgresql://app@db/shop?options=-csearch_path%3Dtenant",
        ),
        # JDBC (Flyway): user, password, ssl, ApplicationName, currentSchema.
        (
            "jdbc:postgresql://db:5432/shop?user=app&password=p%40ss&ssl=true&ApplicationName=deploy&currentSchema=app",
            "postgresql://db:5432/shop?user=app&password=p%40ss&sslmode=require&application_name=deploy&options=-csearch_path%3Dapp",
        ),
        # golang-migrate: its statement-splitting parameters are dropped.
        (
            "postgres://app@db/shop?x-multi-statement=true&sslmode=disable",
            "postgresql://app@db/shop?sslmode=disable",
        ),
        # libpq's own forms are left exactly as written.
        ("postgres://app@db/shop", "postgres://app@db/shop"),
        ("host=db dbname=shop user=app", "host=db dbname=shop user=app"),
    ],
)
def test_other_tools_connection_strings_are_mapped_to_libpqs(given: str, expected: str) -> None:
    assert normalize(given, "--dsn") == expected
    conninfo_to_dict(normalize(given, "--dsn"))  # libpq reads the result


def test_mapped_values_reach_libpq_as_meant() -> None:
    params = conninfo_to_dict(normalize("jdbc:postgresql://db/shop?user=app&password=p%40ss", "x"))
    assert (params["user"], params["password"], params["host"]) == ("app", "p@ss", "db")
    params = conninfo_to_dict(normalize("postgres://app@/shop?search_path=a,b", "x"))
    assert params["options"] == "-csearch_path=a,b"


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ("postgres://app:hunter2@db/shop?x-migrations-table=my_history", "'x-migrations-table'"),
        ("postgres://app:hunter2@db/shop?x-statement-timeout=5000", "--statement-timeout"),
        ("postgres://app:hunter2@db/shop?x-custom=1", "'x-custom'"),
        ("jdbc:postgresql://db/shop?password=hunter2&prepareThreshold=0", "'prepareThreshold'"),
        ("postgresql://app:hunter2@db/shop?sslmod=require", '"sslmode"'),
    ],
)
def test_a_refused_parameter_is_named_and_the_password_never_shown(given: str, named: str) -> None:
    with pytest.raises(BadInputError) as info:
        normalize(given, "DATABASE_URL")
    assert info.value.exit_code is ExitCode.BAD_INPUT
    assert named in info.value.message and info.value.message.startswith("DATABASE_URL: ")
    assert "hunter2" not in info.value.message + (info.value.hint or "")


@pytest.mark.parametrize(
    ("dsn", "message"),
    [
        ("host=db port=abc", "--dsn: port: must be a port number (1 to 65535), not 'abc'"),
        (
            "postgresql://db:99999/shop",
            "--dsn: port: must be a port number (1 to 65535), not '99999'",
        ),
        (
            "host=db sslmode=bogus",
            "--dsn: sslmode: must be one of disable, allow, prefer, "
            "require, verify-ca, verify-full; not 'bogus'",
        ),
        ("host=db target_session_attrs=rw", "--dsn: target_session_attrs: must be one of"),
        ("host=db connect_timeout=soon", "--dsn: connect_timeout: must be a whole number"),
    ],
)
def test_issue_22_item_8_values_libpq_refuses_at_connect_are_bad_input(
    dsn: str, message: str
) -> None:
    with pytest.raises(BadInputError) as info:
        parse_dsn(dsn, "--dsn")
    assert info.value.message.startswith(message)


def test_a_host_list_with_ports_is_accepted() -> None:
    assert parse_dsn("host=a,b port=5432,5433 dbname=x", "--dsn")["port"] == "5432,5433"


def test_libpq_variables_are_checked_where_the_dsn_leaves_them() -> None:
    with pytest.raises(BadInputError, match="PGSSLMODE: must be one of"):
        parse_dsn("host=db", "--dsn", {"PGSSLMODE": "nope"})
    # The DSN's own value wins over the variable, as in libpq.
    assert parse_dsn("host=db sslmode=disable", "--dsn", {"PGSSLMODE": "nope"})
