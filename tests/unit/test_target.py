"""The target a command acts on: how it is chosen (DSN sources, require_dsn), how it is shown,
how a bad DSN is reported, and the pieces of the run header that describe it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from safemigrate.core.errors import BadInputError, ConnectionFailedError, DriftError, ExitCode
from safemigrate.core.model import JournalEntry, Migration, Step, StepOptions, TxMode
from safemigrate.core.reached import Target, version_text
from safemigrate.db.dsn import explain_parse_error, parse_dsn, resolve_dsn
from safemigrate.db.journal import JournalTable
from safemigrate.planning.pending import pending_after
from safemigrate.planning.policy import backoff_of, worst_case
from safemigrate.run.connection import resolve_database
from safemigrate.run.run_lock import holding_run_lock
from safemigrate.settings.config import Settings

# -- Target ----------------------------------------------------------------------------------


def test_target_describes_user_host_port_database_version_and_role() -> None:
    target = Target("postgres", "/var/run/postgresql", 5432, "postgres", "15.18", False)
    assert target.address == "postgres@/var/run/postgresql:5432/postgres"
    assert target.describe() == (
        "postgres@/var/run/postgresql:5432/postgres (PostgreSQL 15.18, primary)"
    )
    standby = Target("app", "db.example", 6432, "shop", "16.4", True)
    assert standby.describe() == "app@db.example:6432/shop (PostgreSQL 16.4, standby)"


def test_server_versions_read_as_people_write_them() -> None:
    assert version_text(150018) == "15.18"
    assert version_text(170000) == "17.0"
    assert version_text(90624) == "9.6.24"


# -- where the DSN comes from ----------------------------------------------------------------

DSN = "host=db.example dbname=shop"


def test_the_flag_wins_then_safemigrate_dsn_then_database_url() -> None:
    env = {"SAFEMIGRATE_DSN": "dbname=a", "DATABASE_URL": "dbname=b", "PGHOST": "h"}
    assert resolve_dsn(DSN, env) == (DSN, "--dsn")
    assert resolve_dsn(None, env) == ("dbname=a", "SAFEMIGRATE_DSN")
    assert resolve_dsn(None, {"DATABASE_URL": "dbname=b"}) == ("dbname=b", "DATABASE_URL")


@pytest.mark.parametrize(
    "variable", ["PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"]
)
def test_a_libpq_variable_that_names_a_database_is_a_deliberate_choice(variable: str) -> None:
    value, source = resolve_dsn(None, {variable: "x"})
    assert value == "" and "PG*" in source


@pytest.mark.parametrize("env", [{}, {"PGPASSWORD": "pw", "PGSSLMODE": "require"}])
def test_nothing_naming_a_database_is_refused_rather_than_libpq_defaults(
    env: dict[str, str],
) -> None:
    with pytest.raises(BadInputError) as caught:
        resolve_dsn(None, env)
    assert caught.value.exit_code is ExitCode.BAD_INPUT
    assert caught.value.message.startswith("no database given: pass --dsn")
    assert "\n" not in caught.value.message


def test_empty_environment_dsns_do_not_count() -> None:
    with pytest.raises(BadInputError):
        resolve_dsn(None, {"SAFEMIGRATE_DSN": "", "DATABASE_URL": " "})


def test_require_dsn_ignores_the_pg_variables() -> None:
    env = {"PGHOST": "db.example", "PGDATABASE": "shop"}
    with pytest.raises(BadInputError) as caught:
        resolve_dsn(None, env, require_dsn=True)
    assert "require_dsn is on" in caught.value.message
    assert "SAFEMIGRATE_DSN" in caught.value.message
    assert resolve_dsn(None, {**env, "DATABASE_URL": DSN}, require_dsn=True) == (
        DSN,
        "DATABASE_URL",
    )


def test_an_empty_dsn_flag_is_refused_not_skipped() -> None:
    # `--dsn "$PROD_DSN"` with the variable unset must not fall through to other sources.
    with pytest.raises(BadInputError, match="--dsn: is empty"):
        resolve_dsn("", {"DATABASE_URL": DSN})


def test_resolve_database_passes_require_dsn_on() -> None:
    with pytest.raises(BadInputError, match="require_dsn"):
        resolve_database(None, {"PGHOST": "h"}, require_dsn=True)
    assert resolve_database(None, {"PGHOST": "h"}).source.startswith("libpq")


# -- a DSN libpq cannot parse ----------------------------------------------------------------


def test_a_word_without_equals_gets_a_useful_message() -> None:
    with pytest.raises(BadInputError) as caught:
        parse_dsn("not a dsn", "--dsn")
    assert caught.value.message == (
        '--dsn: invalid connection string: missing "=" after a word; expected key=value pairs '
        "(host=... dbname=...) or a postgresql:// URL"
    )


@pytest.mark.parametrize(
    ("dsn", "expected"),
    [
        ("hots=db dbname=x", 'unknown connection option (did you mean "host"?)'),
        (
            "postgresql://u@h/db?sslmod=require",
            'unknown URI query parameter (did you mean "sslmode"?)',
        ),
        ("postgresql://u:p%zz@h/db", "invalid percent-encoding in the URL"),
        ("host='db", "unterminated quoted string"),
        ("postgresql://[::1/db", 'matching "]" in IPv6 host address in URI'),
    ],
)
def test_libpq_complaints_keep_their_meaning(dsn: str, expected: str) -> None:
    with pytest.raises(BadInputError) as caught:
        parse_dsn(dsn, "DATABASE_URL")
    assert caught.value.message.startswith("DATABASE_URL: invalid connection string: ")
    assert expected in caught.value.message


@pytest.mark.parametrize(
    "dsn",
    [
        "hunter2secret",
        "password=x hunter2secret",
        "hunter2secret=1",
        "postgresql://u:hunter2secret%zz@h/db",
        "postgresql://u@h/db?hunter2secret=1",
        "postgresql://[hunter2secret/db",
    ],
)
def test_no_text_of_an_unparseable_dsn_is_repeated(dsn: str) -> None:
    with pytest.raises(BadInputError) as caught:
        parse_dsn(dsn, "--dsn")
    assert "hunter2" not in caught.value.message
    assert "\n" not in caught.value.message


def test_only_libpq_syntax_survives_a_generic_message() -> None:
    assert explain_parse_error('something odd near "s3cret" and "="') == (
        'something odd near and "="'
    )


# -- worst-case waits ------------------------------------------------------------------------

SETTINGS = Settings(
    lock_timeout_ms=1_000,
    concurrent_lock_timeout_ms=60_000,
    max_attempts=3,
    backoff_initial_ms=100,
    backoff_max_ms=200,
)


def step(mode: TxMode = TxMode.OWN, **options: Any) -> Step:
    return Step(0, (), mode, StepOptions(**options))


def test_a_run_without_autocommit_steps_has_no_concurrently_worst_case() -> None:
    worst = worst_case([step(), step()], SETTINGS)
    one = backoff_of(SETTINGS).worst_case_ms(3, 1_000)
    assert worst.concurrent_ms is None
    assert worst.step_ms == one
    assert worst.run_ms == 2 * one


def test_autocommit_steps_have_their_own_worst_case() -> None:
    worst = worst_case([step(), step(TxMode.AUTOCOMMIT)], SETTINGS)
    backoff = backoff_of(SETTINGS)
    assert worst.concurrent_ms == backoff.worst_case_ms(3, 60_000)
    assert worst.run_ms == backoff.worst_case_ms(3, 1_000) + backoff.worst_case_ms(3, 60_000)


def test_the_step_worst_case_is_the_longest_step_at_its_own_policy() -> None:
    worst = worst_case([step(), step(lock_timeout_ms=5_000), step(no_retry=True)], SETTINGS)
    assert worst.step_ms == backoff_of(SETTINGS).worst_case_ms(3, 5_000)


def test_the_deadline_caps_every_worst_case() -> None:
    settings = Settings(**{**SETTINGS.__dict__, "deadline_ms": 10_000})
    worst = worst_case([step(TxMode.AUTOCOMMIT)] * 5, settings)
    assert worst.concurrent_ms == 10_000 and worst.run_ms == 10_000
    assert worst.step_ms == backoff_of(settings).worst_case_ms(3, 1_000)


# -- --target: what stays pending --------------------------------------------------------------


def migration(version: int, steps: int = 1) -> Migration:
    return Migration(
        version,
        f"{version:04d}",
        f"m{version}",
        Path(f"/m/{version:04d}_m{version}.sql"),
        tuple(Step(i, (), TxMode.OWN) for i in range(steps)),
    )


def test_pending_after_counts_later_migrations_not_fully_applied() -> None:
    migrations = [migration(1), migration(2), migration(3, steps=2), migration(4)]
    entries = [
        JournalEntry(1, "m1", 0, migrations[0].steps[0].checksum),
        JournalEntry(3, "m3", 0, migrations[2].steps[0].checksum),
        JournalEntry(4, "m4", 0, migrations[3].steps[0].checksum),
    ]
    assert pending_after(migrations, entries, 1) == 2  # 2 untouched, 3 partial; 4 applied
    assert pending_after(migrations, entries, 4) == 0
    assert pending_after(migrations, entries, None) == 0


# -- the run lock's release never hides the error that ended the block --------------------------


class FailingReleaseSession:
    """Enough of a Session for holding_run_lock: the lock is free, releasing it fails."""

    closed = False
    pid = 1

    def scalar(self, query: object, params: object = None) -> object:
        return True  # pg_try_advisory_lock

    def execute(self, query: object, params: object = None) -> None:
        raise ConnectionFailedError("lost the database connection", mid_run=True)

    def rollback_quietly(self) -> None:
        pass


@contextmanager
def holding(session: object) -> Iterator[None]:
    with holding_run_lock(session, JournalTable("public", "h"), 0, lambda _: None):  # type: ignore[arg-type]
        yield


def test_a_failed_unlock_does_not_replace_the_error_that_ended_the_block() -> None:
    with pytest.raises(DriftError, match="the real problem"), holding(FailingReleaseSession()):
        raise DriftError("the real problem")


def test_a_failed_unlock_after_success_is_not_an_error() -> None:
    with holding(FailingReleaseSession()):
        pass
