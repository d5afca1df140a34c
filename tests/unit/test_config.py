"""Tests for safemigrate.settings.config: where settings come from, and how bad ones are
reported."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from safemigrate.core.errors import ConfigError, ExitCode
from safemigrate.settings.config import KEYS, CancelRule, Settings, find_config_file, load_settings


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` as UTF-8 and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load(
    cwd: Path,
    *,
    config_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, object] | None = None,
) -> Settings:
    """Load settings from ``cwd`` with an empty environment unless one is given."""
    return load_settings(
        cwd=cwd,
        config_file=config_file,
        environ={} if environ is None else environ,
        overrides=overrides,
    )


def error_of(
    cwd: Path,
    *,
    config_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, object] | None = None,
) -> str:
    """Return the message of the ConfigError that loading raises, checking it is one line."""
    with pytest.raises(ConfigError) as info:
        load(cwd, config_file=config_file, environ=environ, overrides=overrides)
    message = str(info.value)
    assert "\n" not in message
    return message


# Defaults and discovery


def test_defaults_without_any_source(tmp_path: Path) -> None:
    settings = load(tmp_path)
    assert settings == Settings(dir=tmp_path / "migrations")
    assert settings.lock_timeout_ms == 2_000
    assert settings.statement_timeout_ms == 900_000
    assert settings.concurrent_lock_timeout_ms == 300_000
    assert settings.concurrent_statement_timeout_ms == 14_400_000
    assert settings.max_attempts == 10
    assert settings.backoff_initial_ms == 500
    assert settings.backoff_max_ms == 30_000
    assert settings.deadline_ms is None
    assert settings.wait_for_lock_ms == 0
    assert settings.allow_out_of_order is False
    assert settings.concurrent_indexes == "rewrite"
    assert settings.safe_rewrites == "rewrite"
    assert settings.journal_schema == "public"
    assert settings.journal_table == "safemigrate_history"
    assert settings.application_name == "safemigrate"
    assert settings.version_style == "sequence"
    assert settings.config_file is None


def test_keys_are_exactly_the_settings_fields_without_unit_suffix() -> None:
    fields = {
        name.removesuffix("_ms").removesuffix("_bytes") for name in Settings.__dataclass_fields__
    }
    assert set(KEYS) == fields - {"config_file", "warnings"}
    assert all(description and "\n" not in description for description in KEYS.values())


def test_settings_are_immutable() -> None:
    with pytest.raises(AttributeError):
        Settings().max_attempts = 3  # type: ignore[misc]


def test_config_error_is_bad_input_exit_code() -> None:
    assert ConfigError("x").exit_code is ExitCode.BAD_INPUT
    assert int(ExitCode.BAD_INPUT) == 2


def test_no_config_file_found_in_empty_directory(tmp_path: Path) -> None:
    assert find_config_file(tmp_path) is None


def test_pyproject_without_tool_safemigrate_is_not_a_config_file(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.other]\nx = 1\n[project]\nname = "p"\n')
    assert find_config_file(tmp_path) is None
    assert load(tmp_path).config_file is None


def test_pyproject_tool_safemigrate_table_is_read(tmp_path: Path) -> None:
    pyproject = write(
        tmp_path / "pyproject.toml",
        '[project]\nname = "p"\n\n[tool.safemigrate]\nlock_timeout = "5s"\nmax_attempts = 3\n',
    )
    assert find_config_file(tmp_path) == pyproject
    settings = load(tmp_path)
    assert settings.lock_timeout_ms == 5_000
    assert settings.max_attempts == 3
    assert settings.config_file == pyproject


def test_safemigrate_toml_is_preferred_over_pyproject(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.safemigrate]\nlock_timeout = "5s"\n')
    own = write(tmp_path / "safemigrate.toml", 'lock_timeout = "7s"\n')
    assert find_config_file(tmp_path) == own
    settings = load(tmp_path)
    assert settings.lock_timeout_ms == 7_000
    assert settings.config_file == own


def test_pyproject_keys_outside_tool_safemigrate_are_ignored(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml", '[tool.safemigrate]\nmax_attempts = 4\n[tool.x]\ndsn = "s"\n'
    )
    assert load(tmp_path).max_attempts == 4


def test_given_config_file_is_used_instead_of_discovery(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", "max_attempts = 2\n")
    other = write(tmp_path / "conf" / "prod.toml", "max_attempts = 5\n")
    settings = load(tmp_path, config_file=Path("conf/prod.toml"))
    assert settings.max_attempts == 5
    assert settings.config_file == other


def test_given_pyproject_is_read_from_tool_safemigrate(tmp_path: Path) -> None:
    write(tmp_path / "sub" / "pyproject.toml", "[tool.safemigrate]\nmax_attempts = 6\n")
    assert load(tmp_path, config_file=Path("sub/pyproject.toml")).max_attempts == 6


def test_given_pyproject_without_table_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.safe-migrate]\nmax_attempts = 6\n")
    message = error_of(tmp_path, config_file=Path("pyproject.toml"))
    assert message == "pyproject.toml: has no [tool.safemigrate] table"


def test_tool_safemigrate_that_is_not_a_table_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool]\nsafemigrate = 5\n")
    message = error_of(tmp_path)
    assert message == "pyproject.toml [tool.safemigrate]: must be a table, not an integer (5)"


def test_file_with_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "safemigrate.toml").write_bytes(b"\xef\xbb\xbfmax_attempts = 3\n")
    assert load(tmp_path).max_attempts == 3


# Precedence


def test_config_file_overrides_defaults(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", 'lock_timeout = "3s"\nallow_out_of_order = true\n')
    settings = load(tmp_path)
    assert settings.lock_timeout_ms == 3_000
    assert settings.allow_out_of_order is True
    assert settings.statement_timeout_ms == 900_000


def test_environment_overrides_config_file(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", 'lock_timeout = "3s"\nmax_attempts = 4\n')
    settings = load(tmp_path, environ={"SAFEMIGRATE_LOCK_TIMEOUT": "4s"})
    assert settings.lock_timeout_ms == 4_000
    assert settings.max_attempts == 4


def test_overrides_override_environment(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", 'lock_timeout = "3s"\n')
    settings = load(
        tmp_path,
        environ={"SAFEMIGRATE_LOCK_TIMEOUT": "4s", "SAFEMIGRATE_MAX_ATTEMPTS": "7"},
        overrides={"lock_timeout": "5s"},
    )
    assert settings.lock_timeout_ms == 5_000
    assert settings.max_attempts == 7


def test_none_overrides_are_ignored(tmp_path: Path) -> None:
    settings = load(
        tmp_path, environ={"SAFEMIGRATE_MAX_ATTEMPTS": "7"}, overrides={"max_attempts": None}
    )
    assert settings.max_attempts == 7


def test_every_key_can_be_set_from_the_environment(tmp_path: Path) -> None:
    environ = {
        "SAFEMIGRATE_DIR": "db/migrations",
        "SAFEMIGRATE_LOCK_TIMEOUT": "1s",
        "SAFEMIGRATE_STATEMENT_TIMEOUT": "0",
        "SAFEMIGRATE_CONCURRENT_LOCK_TIMEOUT": "1min",
        "SAFEMIGRATE_CONCURRENT_STATEMENT_TIMEOUT": "1h",
        "SAFEMIGRATE_MAX_ATTEMPTS": "3",
        "SAFEMIGRATE_BACKOFF_INITIAL": "100ms",
        "SAFEMIGRATE_BACKOFF_MAX": "2s",
        "SAFEMIGRATE_DEADLINE": "10min",
        "SAFEMIGRATE_WAIT_FOR_LOCK": "30s",
        "SAFEMIGRATE_ALLOW_OUT_OF_ORDER": "YES",
        "SAFEMIGRATE_CONCURRENT_INDEXES": "require",
        "SAFEMIGRATE_SAFE_REWRITES": "off",
        "SAFEMIGRATE_JOURNAL_SCHEMA": "ops",
        "SAFEMIGRATE_JOURNAL_TABLE": "history",
        "SAFEMIGRATE_APPLICATION_NAME": "deploy 42",
        "SAFEMIGRATE_VERSION_STYLE": "timestamp",
        "SAFEMIGRATE_LAYOUT": "dbmate",
        "SAFEMIGRATE_TOOL_HISTORY": "leave",
        "SAFEMIGRATE_TOOL_HISTORY_TABLE": "ops.app_migrations",
        "SAFEMIGRATE_LOCK_PRECHECK": "false",
        "SAFEMIGRATE_REDACT_QUERIES": "1",
        "SAFEMIGRATE_BLOCKER_QUERY_LENGTH": "80",
        "SAFEMIGRATE_CANCEL_BLOCKERS": "idle-in-transaction:30s",
        "SAFEMIGRATE_CANCEL_BLOCKERS_ONLY": "worker, reporting",
        "SAFEMIGRATE_CANCEL_BLOCKERS_GRACE": "2s",
        "SAFEMIGRATE_CANCEL_BLOCKERS_DRY_RUN": "yes",
        "SAFEMIGRATE_PG_VERSION": "12",
        "SAFEMIGRATE_RECONNECT_TIMEOUT": "0",
        "SAFEMIGRATE_LOCK_PRECHECK_AGE": "250ms",
        "SAFEMIGRATE_REQUIRE_DSN": "true",
        "SAFEMIGRATE_LINT_GATE": "warn",
        "SAFEMIGRATE_LINT_GATE_AFTER": "0042",
        "SAFEMIGRATE_ACCEPT_LOST_SESSION_STATE": "0007",
        "SAFEMIGRATE_GATE_SMALL_TABLE": "512kB",
        "SAFEMIGRATE_MAX_REPLICA_LAG": "5s",
        "SAFEMIGRATE_YIELD_AFTER": "0",
        "SAFEMIGRATE_LOCK_WAIT_BUDGET": "1h",
        "SAFEMIGRATE_HOUSEKEEPING_TIMEOUT": "5s",
        "SAFEMIGRATE_MAX_LOCK_TIMEOUT": "3s",
        "SAFEMIGRATE_MAX_STATEMENT_TIMEOUT": "1h",
        "SAFEMIGRATE_CHECK_CACHE": "build/check-cache",
    }
    assert len(environ) == len(KEYS)
    assert load(tmp_path, environ=environ) == Settings(
        dir=tmp_path / "db" / "migrations",
        lock_timeout_ms=1_000,
        statement_timeout_ms=0,
        concurrent_lock_timeout_ms=60_000,
        concurrent_statement_timeout_ms=3_600_000,
        max_attempts=3,
        backoff_initial_ms=100,
        backoff_max_ms=2_000,
        deadline_ms=600_000,
        wait_for_lock_ms=30_000,
        allow_out_of_order=True,
        concurrent_indexes="require",
        safe_rewrites="off",
        journal_schema="ops",
        journal_table="history",
        application_name="deploy 42",
        version_style="timestamp",
        layout="dbmate",
        tool_history="leave",
        tool_history_table=("ops", "app_migrations"),
        lock_precheck=False,
        redact_queries=True,
        blocker_query_length=80,
        cancel_blockers=CancelRule("idle-in-transaction", 30_000),
        cancel_blockers_only=("reporting", "worker"),
        cancel_blockers_grace_ms=2_000,
        cancel_blockers_dry_run=True,
        pg_version=12,
        lint_gate="warn",
        lint_gate_after=42,
        accept_lost_session_state=7,
        gate_small_table_bytes=512 * 1024,
        reconnect_timeout_ms=0,
        lock_precheck_age_ms=250,
        require_dsn=True,
        max_replica_lag_ms=5_000,
        yield_after_ms=0,
        lock_wait_budget_ms=3_600_000,
        housekeeping_timeout_ms=5_000,
        max_lock_timeout_ms=3_000,
        max_statement_timeout_ms=3_600_000,
        check_cache=tmp_path / "build" / "check-cache",
    )


def test_non_config_safemigrate_variables_are_ignored(tmp_path: Path) -> None:
    environ = {
        "SAFEMIGRATE_DSN": "postgresql://u:hunter2@h/db",
        "SAFEMIGRATE_TEST_DSN": "postgresql://u:hunter2@h/test",
        "SAFEMIGRATE_PG_BINDIR": "/usr/lib/postgresql/15/bin",
    }
    assert load(tmp_path, environ=environ) == load(tmp_path)


def test_issue_22_item_8_a_misspelt_variable_is_refused_naming_the_close_match(
    tmp_path: Path,
) -> None:
    message = error_of(tmp_path, environ={"SAFEMIGRATE_LOCK_TIMOUT": "postgresql://u:pw@h/db"})
    assert message == (
        "SAFEMIGRATE_LOCK_TIMOUT: not a safemigrate variable (did you mean "
        "SAFEMIGRATE_LOCK_TIMEOUT?); rename or unset it"
    )
    assert "pw" not in message
    assert "SAFEMIGRATE_DSN?" in error_of(tmp_path, environ={"SAFEMIGRATE_DNS": "x"})


def test_issue_22_item_8_an_unrelated_safemigrate_variable_is_a_warning(tmp_path: Path) -> None:
    # e.g. a CI job pinning the version it installs: not a misspelling of any setting.
    settings = load(tmp_path, environ={"SAFEMIGRATE_VERSION": "0.1.0"})
    assert settings.warnings == ("SAFEMIGRATE_VERSION is not a safemigrate setting: ignored",)
    assert replace(settings, warnings=()) == load(tmp_path)


def test_os_environ_is_the_default_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAFEMIGRATE_MAX_ATTEMPTS", "9")
    assert load_settings(cwd=tmp_path).max_attempts == 9


@pytest.mark.parametrize(
    ("text", "expected"),
    [("true", True), ("1", True), ("Yes", True), ("FALSE", False), ("0", False), ("no", False)],
)
def test_environment_booleans(tmp_path: Path, text: str, expected: bool) -> None:
    environ = {"SAFEMIGRATE_ALLOW_OUT_OF_ORDER": text}
    assert load(tmp_path, environ=environ).allow_out_of_order is expected


def test_environment_bad_boolean_is_an_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, environ={"SAFEMIGRATE_ALLOW_OUT_OF_ORDER": "maybe"})
    assert message.startswith("SAFEMIGRATE_ALLOW_OUT_OF_ORDER: must be true or false")
    assert "'maybe'" in message


def test_environment_bad_integer_names_the_variable(tmp_path: Path) -> None:
    message = error_of(tmp_path, environ={"SAFEMIGRATE_MAX_ATTEMPTS": "ten"})
    assert message == "SAFEMIGRATE_MAX_ATTEMPTS: must be an integer from 1 to 1000, not 'ten'"


def test_environment_empty_value_is_an_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, environ={"SAFEMIGRATE_LOCK_TIMEOUT": ""})
    assert message.startswith("SAFEMIGRATE_LOCK_TIMEOUT: is set but empty")


def test_overrides_accept_native_bool_and_int(tmp_path: Path) -> None:
    settings = load(tmp_path, overrides={"allow_out_of_order": True, "max_attempts": 2})
    assert settings.allow_out_of_order is True
    assert settings.max_attempts == 2


def test_override_errors_name_the_flag(tmp_path: Path) -> None:
    message = error_of(tmp_path, overrides={"lock_timeout": "soon"})
    assert message.startswith("--lock-timeout: 'soon' is not a duration")
    message = error_of(tmp_path, overrides={"max_attempts": 0})
    assert message == "--max-attempts: must be an integer from 1 to 1000, not 0"
    message = error_of(tmp_path, overrides={"concurrent_indexes": "always"})
    assert message.startswith("--concurrent-indexes: must be one of 'rewrite', 'require', 'off'")


def test_unknown_override_key_is_an_error(tmp_path: Path) -> None:
    assert (
        error_of(tmp_path, overrides={"colour": "red"}) == "--colour: not a configuration setting"
    )


# The dir key


def test_dir_in_config_file_is_relative_to_the_file(tmp_path: Path) -> None:
    write(tmp_path / "deploy" / "safemigrate.toml", 'dir = "sql"\n')
    settings = load(tmp_path, config_file=Path("deploy/safemigrate.toml"))
    assert settings.dir == tmp_path / "deploy" / "sql"


def test_dir_from_environment_and_flags_is_relative_to_cwd(tmp_path: Path) -> None:
    write(tmp_path / "deploy" / "safemigrate.toml", 'dir = "sql"\n')
    config = Path("deploy/safemigrate.toml")
    settings = load(tmp_path, config_file=config, environ={"SAFEMIGRATE_DIR": "env_sql"})
    assert settings.dir == tmp_path / "env_sql"
    settings = load(tmp_path, config_file=config, overrides={"dir": Path("flag_sql")})
    assert settings.dir == tmp_path / "flag_sql"


def test_default_dir_is_relative_to_cwd_even_with_a_config_file(tmp_path: Path) -> None:
    write(tmp_path / "deploy" / "safemigrate.toml", "max_attempts = 2\n")
    settings = load(tmp_path, config_file=Path("deploy/safemigrate.toml"))
    assert settings.dir == tmp_path / "migrations"


def test_absolute_dir_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    write(tmp_path / "safemigrate.toml", f"dir = {str(target)!r}\n".replace("'", '"'))
    assert load(tmp_path).dir == target


def test_empty_dir_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", 'dir = ""\n')
    assert error_of(tmp_path) == "safemigrate.toml: dir: must not be empty"


# The check_cache key


def test_check_cache_defaults_to_auto(tmp_path: Path) -> None:
    assert load(tmp_path).check_cache == "auto"


def test_check_cache_in_config_file_is_relative_to_the_file(tmp_path: Path) -> None:
    write(tmp_path / "deploy" / "safemigrate.toml", 'check_cache = ".cache/check"\n')
    settings = load(tmp_path, config_file=Path("deploy/safemigrate.toml"))
    assert settings.check_cache == tmp_path / "deploy" / ".cache" / "check"


def test_check_cache_from_environment_and_flag_is_relative_to_cwd(tmp_path: Path) -> None:
    write(tmp_path / "deploy" / "safemigrate.toml", 'check_cache = "file_cache"\n')
    config = Path("deploy/safemigrate.toml")
    environ = {"SAFEMIGRATE_CHECK_CACHE": "env_cache"}
    settings = load(tmp_path, config_file=config, environ=environ)
    assert settings.check_cache == tmp_path / "env_cache"
    settings = load(tmp_path, config_file=config, environ=environ, overrides={"check_cache": "c"})
    assert settings.check_cache == tmp_path / "c"


@pytest.mark.parametrize("mode", ["auto", "off"])
def test_check_cache_modes_are_not_directories(tmp_path: Path, mode: str) -> None:
    write(tmp_path / "safemigrate.toml", f'check_cache = "{mode}"\n')
    assert load(tmp_path).check_cache == mode
    bare = tmp_path / "no-config"
    bare.mkdir()
    assert load(bare, environ={"SAFEMIGRATE_CHECK_CACHE": mode}).check_cache == mode
    assert load(bare, overrides={"check_cache": mode}).check_cache == mode
    # The environment overrides the file, the flag the environment.
    other = "off" if mode == "auto" else "auto"
    environ = {"SAFEMIGRATE_CHECK_CACHE": other}
    assert load(tmp_path, environ=environ).check_cache == other
    assert load(tmp_path, environ=environ, overrides={"check_cache": mode}).check_cache == mode


def test_absolute_check_cache_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    write(tmp_path / "deploy" / "safemigrate.toml", f'check_cache = "{target}"\n')
    assert load(tmp_path, config_file=Path("deploy/safemigrate.toml")).check_cache == target


def test_bad_check_cache_names_where_it_came_from(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", 'check_cache = ""\n')
    assert error_of(tmp_path) == "safemigrate.toml: check_cache: must not be empty"
    bare = tmp_path / "no-config"
    bare.mkdir()
    empty_env = {"SAFEMIGRATE_CHECK_CACHE": ""}
    assert error_of(bare, environ=empty_env).startswith("SAFEMIGRATE_CHECK_CACHE: ")
    # The flag is check's --cache, and the error names it as typed.
    assert error_of(bare, overrides={"check_cache": ""}) == "--cache: must not be empty"


# Unknown keys and secrets


def test_unknown_key_suggests_the_closest_key(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", 'lock_timout = "2s"\n')
    assert error_of(tmp_path) == (
        "safemigrate.toml: key 'lock_timout' is unknown (did you mean 'lock_timeout'?)"
    )


def test_unknown_key_with_dashes_suggests_the_underscore_key(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", "max-attempts = 2\n")
    assert "(did you mean 'max_attempts'?)" in error_of(tmp_path)


def test_unknown_key_without_close_match_has_no_suggestion(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", "zzz = 1\n")
    assert error_of(tmp_path) == "safemigrate.toml: key 'zzz' is unknown"


def test_unknown_key_in_pyproject_names_the_table(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.safemigrate]\nmax_attempt = 2\n")
    assert error_of(tmp_path) == (
        "pyproject.toml [tool.safemigrate]: key 'max_attempt' is unknown "
        "(did you mean 'max_attempts'?)"
    )


@pytest.mark.parametrize("key", ["dsn", "password", "DATABASE_URL"])
def test_connection_keys_are_rejected_without_echoing_the_value(tmp_path: Path, key: str) -> None:
    secret = "postgresql://admin:s3cr3t-hunter2@db.internal/prod"
    write(tmp_path / "safemigrate.toml", f'{key} = "{secret}"\n')
    with pytest.raises(ConfigError) as info:
        load(tmp_path)
    message = str(info.value)
    assert message.startswith(f"safemigrate.toml: key {key!r} is unknown")
    assert "--dsn" in message
    assert "SAFEMIGRATE_DSN" in message
    assert "DATABASE_URL" in message
    assert "s3cr3t" not in message
    assert "s3cr3t" not in repr(info.value)
    assert info.value.hint is None or "s3cr3t" not in info.value.hint


# Values


@pytest.mark.parametrize(
    ("line", "start"),
    [
        ('lock_timeout = "fast"', "safemigrate.toml: lock_timeout: 'fast' is not a duration"),
        ("lock_timeout = 5", "safemigrate.toml: lock_timeout: '5' is not a duration"),
        ('statement_timeout = "-1s"', "safemigrate.toml: statement_timeout: '-1s' must be"),
        ('backoff_max = "30days"', "safemigrate.toml: backoff_max: '30days' is not a duration"),
    ],
)
def test_bad_duration_names_file_and_key(tmp_path: Path, line: str, start: str) -> None:
    write(tmp_path / "safemigrate.toml", line + "\n")
    assert error_of(tmp_path).startswith(start)


def test_zero_durations_are_allowed_where_zero_means_none(tmp_path: Path) -> None:
    write(
        tmp_path / "safemigrate.toml",
        "statement_timeout = 0\nconcurrent_statement_timeout = '0'\nwait_for_lock = 0\n",
    )
    settings = load(tmp_path)
    assert settings.statement_timeout_ms == 0
    assert settings.concurrent_statement_timeout_ms == 0
    assert settings.wait_for_lock_ms == 0


@pytest.mark.parametrize("key", ["lock_timeout", "concurrent_lock_timeout"])
def test_lock_timeouts_must_be_positive(tmp_path: Path, key: str) -> None:
    message = error_of(tmp_path, environ={f"SAFEMIGRATE_{key.upper()}": "0"})
    assert message.startswith(f"SAFEMIGRATE_{key.upper()}: must be greater than 0")
    assert "never runs a step without a lock timeout" in message


def test_zero_deadline_is_an_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, overrides={"deadline": "0"})
    assert message.startswith("--deadline: must be greater than 0")


def test_zero_backoff_initial_is_an_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, overrides={"backoff_initial": "0s"})
    assert message == "--backoff-initial: must be greater than 0"


def test_backoff_max_below_backoff_initial_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", 'backoff_initial = "2s"\n')
    message = error_of(tmp_path, environ={"SAFEMIGRATE_BACKOFF_MAX": "1s"})
    assert message == (
        "SAFEMIGRATE_BACKOFF_MAX: 1s is less than backoff_initial (2s, from "
        "safemigrate.toml: backoff_initial)"
    )


def test_backoff_initial_above_default_backoff_max_is_an_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, overrides={"backoff_initial": "1min"})
    assert message == "--backoff-initial: 1min is more than backoff_max (30s, the default)"


def test_bad_enum_lists_allowed_values(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", 'concurrent_indexes = "always"\n')
    assert error_of(tmp_path) == (
        "safemigrate.toml: concurrent_indexes: must be one of 'rewrite', 'require', 'off', "
        "not 'always'"
    )


def test_issue_22_item_8_a_misspelt_layout_names_the_choices_and_the_close_one(
    tmp_path: Path,
) -> None:
    write(tmp_path / "safemigrate.toml", 'layout = "yoyoo"\n')
    assert error_of(tmp_path) == (
        "safemigrate.toml: layout: must be one of 'safemigrate', 'auto', 'dbmate', 'yoyo', "
        "'golang-migrate', 'sqlx', 'diesel', 'flyway', 'prisma', not 'yoyoo' (did you mean "
        "'yoyo'?)"
    )
    message = error_of(tmp_path / "none", environ={"SAFEMIGRATE_VERSION_STYLE": "date"})
    assert message == (
        "SAFEMIGRATE_VERSION_STYLE: must be one of 'sequence', 'timestamp', not 'date'"
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            'max_attempts = "ten"',
            "safemigrate.toml: max_attempts: must be an integer from 1 to 1000, "
            "not a string ('ten')",
        ),
        (
            "max_attempts = 2.0",
            "safemigrate.toml: max_attempts: must be an integer from 1 to 1000, not a float (2.0)",
        ),
        (
            "max_attempts = true",
            "safemigrate.toml: max_attempts: must be an integer from 1 to 1000, "
            "not a boolean (true)",
        ),
        (
            "max_attempts = 1001",
            "safemigrate.toml: max_attempts: must be an integer from 1 to 1000, not 1001",
        ),
        (
            'allow_out_of_order = "yes"',
            "safemigrate.toml: allow_out_of_order: must be true or false, not a string ('yes')",
        ),
        (
            "[journal_schema]\nname = 'ops'",
            "safemigrate.toml: journal_schema: must be a string, not a table",
        ),
        (
            "application_name = ['a']",
            "safemigrate.toml: application_name: must be a string, not an array",
        ),
        (
            "lock_timeout = 1.5",
            "safemigrate.toml: lock_timeout: must be a duration such as '2s' or '500ms', "
            "not a float (1.5)",
        ),
        (
            "deadline = {}",
            "safemigrate.toml: deadline: must be a duration such as '2s' or '500ms', not a table",
        ),
        (
            "dir = 3",
            "safemigrate.toml: dir: must be a directory path (a string), not an integer (3)",
        ),
        (
            "check_cache = 3",
            "safemigrate.toml: check_cache: must be a directory path (a string), "
            "not an integer (3)",
        ),
        (
            "check_cache = false",
            "safemigrate.toml: check_cache: must be a directory path (a string), "
            "not a boolean (false)",
        ),
        (
            "check_cache = ['auto']",
            "safemigrate.toml: check_cache: must be a directory path (a string), not an array",
        ),
        (
            "version_style = 1979-05-27",
            "safemigrate.toml: version_style: must be one of 'sequence', 'timestamp', not a date",
        ),
    ],
)
def test_wrong_toml_types_name_the_key(tmp_path: Path, line: str, message: str) -> None:
    write(tmp_path / "safemigrate.toml", line + "\n")
    assert error_of(tmp_path) == message


@pytest.mark.parametrize("key", ["journal_schema", "journal_table"])
def test_journal_identifiers_are_validated(tmp_path: Path, key: str) -> None:
    flag = "--" + key.replace("_", "-")
    assert error_of(tmp_path, overrides={key: ""}) == f"{flag}: must not be empty"
    assert (
        error_of(tmp_path, overrides={key: "a\0b"}) == f"{flag}: must not contain a NUL character"
    )
    too_long = "é" * 32  # 32 characters, but 64 bytes of UTF-8
    assert error_of(tmp_path, overrides={key: too_long}).startswith(f"{flag}: ")
    assert "64 bytes long" in error_of(tmp_path, overrides={key: too_long})


@pytest.mark.parametrize("key", ["journal_schema", "journal_table"])
def test_journal_identifiers_may_be_any_name_postgresql_accepts(tmp_path: Path, key: str) -> None:
    for name in ["Migrations Log", "é" * 31, "x" * 63, "a.b"]:
        settings = load(tmp_path, overrides={key: name})
        assert getattr(settings, key) == name


def test_application_name_is_validated(tmp_path: Path) -> None:
    prefix = "--application-name: must be 1 to 63 printable ASCII characters"
    for bad in ["", "x" * 64, "déploiement", "tab\there"]:
        assert error_of(tmp_path, overrides={"application_name": bad}).startswith(prefix)
    ok = "~deploy #42 (ci)!" + "x" * 46
    assert load(tmp_path, overrides={"application_name": ok}).application_name == ok


def test_long_bad_values_are_shortened_in_messages(tmp_path: Path) -> None:
    message = error_of(tmp_path, overrides={"application_name": "x" * 500})
    assert len(message) < 200


# Unreadable files


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", "max_attempts = 3\nlock_timeout = \n")
    message = error_of(tmp_path)
    assert message.startswith("safemigrate.toml: invalid TOML: ")
    assert "line 2" in message


def test_toml_syntax_error_in_given_file_names_the_path_as_given(tmp_path: Path) -> None:
    write(tmp_path / "conf" / "prod.toml", "[broken\n")
    message = error_of(tmp_path, config_file=Path("conf/prod.toml"))
    assert message.startswith(f"{Path('conf/prod.toml')}: invalid TOML: ")
    assert "line 1" in message


def test_duplicate_key_is_a_toml_error(tmp_path: Path) -> None:
    write(tmp_path / "safemigrate.toml", "max_attempts = 3\nmax_attempts = 4\n")
    assert error_of(tmp_path).startswith("safemigrate.toml: invalid TOML: ")


def test_broken_pyproject_is_an_error_not_ignored(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.safemigrate\n")
    with pytest.raises(ConfigError, match=r"^pyproject\.toml: invalid TOML: .*line 1"):
        find_config_file(tmp_path)


def test_not_utf8_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "safemigrate.toml").write_bytes(b"max_attempts = 3\n# caf\xe9\n")
    assert error_of(tmp_path) == "safemigrate.toml: not UTF-8 text (invalid byte on line 2)"


def test_missing_given_config_file_is_an_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, config_file=Path("nope.toml"))
    assert message == "nope.toml: config file not found"


def test_given_config_file_that_is_a_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "conf.toml").mkdir()
    message = error_of(tmp_path, config_file=Path("conf.toml"))
    assert message.startswith("conf.toml: ")


def test_unreadable_given_config_file_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Simulated: chmod cannot make a file unreadable when the tests run as root.
    write(tmp_path / "locked.toml", "max_attempts = 3\n")

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    message = error_of(tmp_path, config_file=Path("locked.toml"))
    assert message == "locked.toml: cannot read config file: permission denied"


@pytest.mark.parametrize("value", ["sometimes", "idle-in-transaction", "any:forever", "idle:5s"])
def test_cancel_blockers_policy_is_validated(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="--cancel-blockers"):
        load(tmp_path, overrides={"cancel_blockers": value})


def test_cancel_blockers_allow_list_from_toml_array(tmp_path: Path) -> None:
    (tmp_path / "safemigrate.toml").write_text('cancel_blockers_only = ["worker", "etl"]\n')
    assert load(tmp_path).cancel_blockers_only == ("etl", "worker")
    (tmp_path / "safemigrate.toml").write_text("cancel_blockers_only = [1]\n")
    with pytest.raises(ConfigError, match="cancel_blockers_only"):
        load(tmp_path)


def test_lint_gate_defaults_to_error_and_takes_a_version_to_start_after(tmp_path: Path) -> None:
    assert Settings().lint_gate == "error"
    assert Settings().lint_gate_after is None
    (tmp_path / "safemigrate.toml").write_text(
        'lint_gate = "warn"\nlint_gate_after = "0042"\n', encoding="utf-8"
    )
    settings = load(tmp_path)
    assert (settings.lint_gate, settings.lint_gate_after) == ("warn", 42)
    with pytest.raises(ConfigError, match=r"SAFEMIGRATE_LINT_GATE.*must be one of"):
        load(tmp_path, environ={"SAFEMIGRATE_LINT_GATE": "strict"})
    with pytest.raises(ConfigError, match="lint-gate-after: must be a migration version"):
        load(tmp_path, overrides={"lint_gate_after": "v3"})
