"""Running server programs and summing up their output: no server is started here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from safemigrate.infra.throwaway.errors import ThrowawayServerError
from safemigrate.infra.throwaway.programs import child_env, read_tail, run_program, tail


def test_tail_keeps_the_last_non_blank_lines_on_one_line() -> None:
    text = "one\n\n  two  \nthree\n\n"
    assert tail(text, 2) == "two | three"
    assert tail(text) == "one | two | three"


def test_tail_of_nothing_says_so() -> None:
    assert tail("") == "(no output)"
    assert tail(" \n\n") == "(no output)"


def test_read_tail_of_a_missing_file_is_a_note_not_an_error(tmp_path: Path) -> None:
    assert read_tail(tmp_path / "missing.log").startswith("(no server log: ")
    log = tmp_path / "server.log"
    log.write_text("a\nb\n")
    assert read_tail(log) == "a | b"


def test_child_env_drops_pg_variables_and_asks_for_english(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PGDATA", "/elsewhere")
    monkeypatch.setenv("PGOPTIONS", "-c fsync=on")
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    monkeypatch.setenv("SAFEMIGRATE_KEPT", "yes")
    env = child_env()
    assert not [name for name in env if name.startswith("PG")]
    assert env["LC_ALL"] == "C"
    assert env["SAFEMIGRATE_KEPT"] == "yes"


def test_run_program_returns_status_and_both_output_streams(tmp_path: Path) -> None:
    code = "import os, sys; print(os.getcwd()); print('oops', file=sys.stderr); sys.exit(3)"
    status, output = run_program(
        [sys.executable, "-c", code], run_as=None, cwd=tmp_path, timeout=30
    )
    assert status == 3
    assert output.split() == [str(tmp_path), "oops"]


def test_run_program_that_hangs_raises(tmp_path: Path) -> None:
    with pytest.raises(ThrowawayServerError, match=r"did not finish within 0\.5 s"):
        run_program(
            [sys.executable, "-c", "import time; time.sleep(30)"],
            run_as=None,
            cwd=tmp_path,
            timeout=0.5,
        )


def test_run_program_that_does_not_exist_raises(tmp_path: Path) -> None:
    with pytest.raises(ThrowawayServerError, match="cannot run"):
        run_program([tmp_path / "no-such-program"], run_as=None, cwd=tmp_path, timeout=5)
