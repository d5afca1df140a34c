"""--layout, --yield-after and --lock-wait-budget: each reaches the settings of the commands that
take it, over the config file and the environment, and a bad value is one error line naming
the flag (exit 2), before anything is read or connected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from safemigrate import api
from safemigrate.api import check_command as check_module
from safemigrate.core.errors import SafemigrateError
from safemigrate.settings.config import Settings
from tests.support.runner import Result, run

#: Stands in for every database: the command fails on the fake before it would connect.
DSN = "host=/nonexistent dbname=never"

#: The commands that read the migrations directory, with their arguments, and the function
#: each hands its settings to.
LAYOUT_COMMANDS: dict[str, tuple[list[str], Any, str]] = {
    "up": (["--dsn", DSN], api, "up"),
    "status": (["--dsn", DSN], api, "status"),
    "plan": ([], api, "plan"),
    "check": ([], check_module, "check"),
    "rehearse": ([], api, "rehearse"),
    "baseline": (["--dsn", DSN, "1"], api, "baseline"),
    "adopt": (["--dsn", DSN], api, "adopt"),
    "repair": (["--dsn", DSN], api, "repair"),
    "new": (["add_users"], api, "new"),
}
#: The commands that take the run settings: up, rehearse (which runs up on its server) and plan
#: (whose worst cases use them).
RUN_COMMANDS = ["up", "rehearse", "plan"]


class Reached(SafemigrateError):
    """Raised by the fake library call: the command got that far (exit 1)."""


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[Settings]:
    """The settings each faked library call was given (every command's call is faked)."""
    calls: list[Settings] = []

    def fake(settings: Settings, *args: object, **kwargs: object) -> None:
        calls.append(settings)
        raise Reached("reached the library call")

    for _args, module, name in LAYOUT_COMMANDS.values():
        monkeypatch.setattr(module, name, fake)
    return calls


def _run(cwd: Path, command: str, *flags: str, env: dict[str, str] | None = None) -> Result:
    args, _module, _name = LAYOUT_COMMANDS[command]
    return run(command, *flags, *args, cwd=cwd, env=env)


def _assert_flag_error(result: Result, flag: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.stderr.splitlines() == [result.stderr.strip()], result.stderr
    assert result.stderr.startswith(f"error: {flag}: "), result.stderr


@pytest.mark.parametrize("command", sorted(LAYOUT_COMMANDS))
def test_layout_flag_overrides_the_config_and_the_environment(
    tmp_path: Path, seen: list[Settings], command: str
) -> None:
    (tmp_path / "safemigrate.toml").write_text('layout = "flyway"\n')
    result = _run(tmp_path, command, "--layout", "dbmate", env={"SAFEMIGRATE_LAYOUT": "yoyo"})
    assert result.exit_code == 1, result.output
    assert "reached the library call" in result.stderr
    assert [s.layout for s in seen] == ["dbmate"]


@pytest.mark.parametrize("command", sorted(LAYOUT_COMMANDS))
def test_layout_flag_with_a_bad_value_is_one_error_line(
    tmp_path: Path, seen: list[Settings], command: str
) -> None:
    result = _run(tmp_path, command, "--layout", "liquibase")
    _assert_flag_error(result, "--layout")
    assert "'golang-migrate'" in result.stderr
    assert "not 'liquibase'" in result.stderr
    assert seen == []


def test_layout_auto_from_the_flag_says_what_it_detected(
    tmp_path: Path, seen: list[Settings]
) -> None:
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "1_a.sql").write_text("-- migrate:up\nSELECT 1;\n")
    result = _run(tmp_path, "check", "--layout", "auto")
    assert "layout: dbmate (detected in" in result.stderr
    assert [s.layout for s in seen] == ["auto"]


@pytest.mark.parametrize("command", RUN_COMMANDS)
def test_yield_after_and_lock_wait_budget_flags_override_the_config_and_the_environment(
    tmp_path: Path, seen: list[Settings], command: str
) -> None:
    (tmp_path / "safemigrate.toml").write_text('yield_after = "1s"\nlock_wait_budget = "1h"\n')
    env = {"SAFEMIGRATE_YIELD_AFTER": "2s", "SAFEMIGRATE_LOCK_WAIT_BUDGET": "2h"}
    flags = ["--yield-after", "0", "--lock-wait-budget", "90s"]
    result = _run(tmp_path, command, *flags, env=env)
    assert result.exit_code == 1, result.output
    assert [(s.yield_after_ms, s.lock_wait_budget_ms) for s in seen] == [(0, 90_000)]


@pytest.mark.parametrize("command", RUN_COMMANDS)
def test_without_the_flags_the_config_and_the_environment_still_count(
    tmp_path: Path, seen: list[Settings], command: str
) -> None:
    (tmp_path / "safemigrate.toml").write_text('yield_after = "1s"\n')
    result = _run(tmp_path, command, env={"SAFEMIGRATE_LOCK_WAIT_BUDGET": "2h"})
    assert result.exit_code == 1, result.output
    assert [(s.yield_after_ms, s.lock_wait_budget_ms) for s in seen] == [(1_000, 7_200_000)]


def test_up_dry_run_plans_with_the_flags(tmp_path: Path, seen: list[Settings]) -> None:
    # The dry run is the same settings as the real run: api.plan is faked like api.up.
    result = _run(tmp_path, "up", "--dry-run", "--yield-after", "5s", "--lock-wait-budget", "1min")
    assert result.exit_code == 1, result.output
    assert [(s.yield_after_ms, s.lock_wait_budget_ms) for s in seen] == [(5_000, 60_000)]


@pytest.mark.parametrize("command", RUN_COMMANDS)
@pytest.mark.parametrize(
    ("flag", "value", "needle"),
    [
        ("--yield-after", "soon", "'soon' is not a duration"),
        ("--yield-after", "-50ms", "must be a positive duration"),
        ("--lock-wait-budget", "0", "must be greater than 0"),
        ("--lock-wait-budget", "10 parsecs", "is not a duration"),
    ],
)
def test_bad_durations_are_one_error_line_naming_the_flag(
    tmp_path: Path, seen: list[Settings], command: str, flag: str, value: str, needle: str
) -> None:
    result = _run(tmp_path, command, flag, value)
    _assert_flag_error(result, flag)
    assert needle in result.stderr
    assert seen == []


@pytest.mark.parametrize("command", sorted(LAYOUT_COMMANDS))
def test_help_offers_layout_with_its_default(command: str) -> None:
    result = run(command, "--help")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())  # the help is wrapped at 100 columns
    assert "--layout NAME" in text
    assert "[default: the config's layout, else safemigrate]" in text


@pytest.mark.parametrize("command", RUN_COMMANDS)
def test_help_offers_yield_after_and_lock_wait_budget_with_their_defaults(command: str) -> None:
    text = " ".join(run(command, "--help").stdout.split())
    assert "--yield-after DUR" in text
    assert "[default: the config's yield_after, else 50ms]" in text
    assert "--lock-wait-budget DUR" in text
    assert "[default: the config's lock_wait_budget, else 10min]" in text
