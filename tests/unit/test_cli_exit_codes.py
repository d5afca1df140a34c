"""Each command's --help lists exactly the exit codes that command can return, and the one
mapping from what a command did to the process's exit gives them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from safemigrate.cli import main
from safemigrate.cli.exit_codes import ExitStatus, Returned, exit_status
from safemigrate.core.errors import DriftError, ExitCode, LintGateError, SafemigrateError

EXPECTED = {
    "up": {0, 1, 2, 3, 4, 5, 6, 7, 130},
    "status": {0, 1, 2, 5, 6, 130},
    "new": {0, 2, 130},
    "baseline": {0, 1, 2, 3, 5, 6, 130},
    "abandon": {0, 1, 2, 3, 5, 6, 130},
    "adopt": {0, 1, 2, 3, 5, 6, 130},
    "plan": {0, 2, 5, 6, 130},
    "check": {0, 1, 2, 130},
    "rehearse": {0, 1, 2, 4, 6, 7, 130},
    "repair": {0, 1, 2, 3, 6, 130},
}


def listed_codes(help_text: str) -> tuple[set[int], dict[int, str]]:
    """The codes of the help's ``Exit codes:`` block, and what each line says."""
    block = help_text.split("Exit codes:", 1)[1]
    meanings = {
        int(m["code"]): m["text"]
        for m in re.finditer(r"^\s*(?P<code>\d+)  (?P<text>.+)$", block, re.MULTILINE)
    }
    return set(meanings), meanings


def help_of(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_is_covered() -> None:
    # A new command gets its own epilog (cli.exit_codes) and a line here.
    assert set(main.commands) == set(EXPECTED)


@pytest.mark.parametrize("command", sorted(EXPECTED))
def test_each_command_lists_exactly_its_exit_codes(command: str) -> None:
    codes, _ = listed_codes(help_of(command))
    assert codes == EXPECTED[command]


def test_check_says_what_its_1_means() -> None:
    _, meanings = listed_codes(help_of("check"))
    assert "finding" in meanings[1]
    assert "step failed" not in meanings[1]


def test_status_says_what_its_1_means() -> None:
    _, meanings = listed_codes(help_of("status"))
    assert "--exit-code" in meanings[1]


def test_the_group_lists_every_exit_code() -> None:
    codes, meanings = listed_codes(help_of())
    assert codes == {int(code) for code in ExitCode}
    assert "lint gate" in meanings[7]


def test_help_and_docs_say_each_code_from_the_same_text() -> None:
    # --help says ExitCode's meaning; the docs' tables say its full meaning, which starts with it.
    from tools import docs_reference

    _, meanings = listed_codes(help_of())
    table = {code: text for code, _, text in docs_reference.exit_code_meanings()}
    for code in ExitCode:
        assert meanings[int(code)] == code.meaning
        assert table[int(code)] == code.full_meaning
        assert code.full_meaning.startswith(code.meaning)


@pytest.mark.parametrize("command", ["up", "plan", "rehearse"])
def test_lint_gate_flag_is_offered(command: str) -> None:
    assert "--lint-gate [off|warn|error]" in help_of(command)


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (None, ExitStatus(0)),
        (1, ExitStatus(1)),
        (ExitCode.BAD_INPUT, ExitStatus(2)),
        (ExitStatus(6, "interrupted: running steps were rolled back"), None),
        (DriftError("0002_b.sql was edited"), ExitStatus(5, "error: 0002_b.sql was edited")),
        (LintGateError("refused"), ExitStatus(7, "error: refused")),
        (KeyboardInterrupt(), ExitStatus(130, "interrupted")),
    ],
)
def test_one_mapping_turns_what_a_command_did_into_the_exit(
    outcome: Returned | SafemigrateError | KeyboardInterrupt, expected: ExitStatus | None
) -> None:
    status = exit_status(outcome)
    assert status == (expected if expected is not None else outcome)


def test_a_typed_error_a_command_raises_is_reported_once_with_its_code(tmp_path: Path) -> None:
    args = ["new", "--dir", str(tmp_path), "bad name!"]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 2
    assert text.stdout == ""
    assert text.stderr.startswith("error: ")
    as_json = CliRunner().invoke(main, [*args, "--format", "json"])
    assert as_json.exit_code == 2
    event = json.loads(as_json.stdout)
    assert (event["event"], event["exit_code"]) == ("run_failed", 2)
    assert as_json.stderr == ""
