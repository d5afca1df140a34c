"""`safemigrate check --cache` as a user runs it: real processes, no database.

A second run over an unchanged directory prints what the first printed, exits the same, and
never imports the parser; ``--cache off`` writes nothing.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

CREATE = "CREATE TABLE t (id int PRIMARY KEY, c int);\n"
SET_NOT_NULL = "ALTER TABLE t ALTER COLUMN c SET NOT NULL;\nVACUUM FULL t;\n"


def run_check(
    cwd: Path, *args: str, import_times: bool = False
) -> subprocess.CompletedProcess[str]:
    """``python -m safemigrate check --format json ARGS`` in ``cwd`` (with -X importtime)."""
    python = [sys.executable, "-X", "importtime"] if import_times else [sys.executable]
    return subprocess.run(
        [*python, "-m", "safemigrate", "check", "--format", "json", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def imported(stderr: str) -> list[str]:
    """The modules ``-X importtime`` reports in ``stderr``."""
    return [
        line.rsplit("|", 1)[-1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    ]


def migrations(tmp_path: Path) -> Path:
    """A migrations directory with an error finding in its second file (exit 1)."""
    directory = tmp_path / "migrations"
    directory.mkdir()
    (directory / "0001_create.sql").write_text(CREATE, encoding="utf-8")
    (directory / "0002_tighten.sql").write_text(SET_NOT_NULL, encoding="utf-8")
    # A report on files changed within the last two seconds is not kept whole (lint.cache
    # RACY_NS), and a change time cannot be dated back: wait it out.
    time.sleep(2.1)
    return directory


def test_second_run_prints_the_same_without_importing_the_parser(tmp_path: Path) -> None:
    directory = migrations(tmp_path)
    cache = tmp_path / "cache"
    first = run_check(tmp_path, "--dir", str(directory), "--cache", str(cache), import_times=True)
    assert first.returncode == 1, first.stderr
    assert "pglast" in imported(first.stderr)  # the first run parses: the probe sees imports
    assert sorted(p.name.startswith("check-") for p in cache.iterdir()) == [True]
    second = run_check(tmp_path, "--dir", str(directory), "--cache", str(cache), import_times=True)
    assert (second.stdout, second.returncode) == (first.stdout, first.returncode)
    modules = imported(second.stderr)
    assert modules, "no import times: -X importtime did not report"
    assert not [m for m in modules if m.split(".")[0] == "pglast"]
    assert "safemigrate.lint.walker" not in modules


def test_gained_file_prints_what_an_uncached_run_prints(tmp_path: Path) -> None:
    directory = migrations(tmp_path)
    cache = tmp_path / "cache"
    run_check(tmp_path, "--dir", str(directory), "--cache", str(cache))
    (directory / "0003_more.sql").write_text("CREATE INDEX t_c ON t (c);\n", encoding="utf-8")
    warm = run_check(tmp_path, "--dir", str(directory), "--cache", str(cache))
    cold = run_check(tmp_path, "--dir", str(directory), "--cache", "off")
    assert (warm.stdout, warm.returncode) == (cold.stdout, cold.returncode)
    assert "0003_more.sql" in warm.stdout


def test_cache_off_writes_nothing(tmp_path: Path) -> None:
    directory = migrations(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    off = run_check(tmp_path, "--dir", str(directory), "--cache", "off")
    assert off.returncode == 1, off.stderr
    assert list(cache.iterdir()) == []
    on = run_check(tmp_path, "--dir", str(directory), "--cache", str(cache))
    assert (on.stdout, on.returncode) == (off.stdout, off.returncode)
    assert len(list(cache.iterdir())) == 1


def test_relative_cache_flag_is_relative_to_the_working_directory(tmp_path: Path) -> None:
    directory = migrations(tmp_path)
    result = run_check(tmp_path, "--dir", str(directory), "--cache", "ci-cache")
    assert result.returncode == 1, result.stderr
    assert [p.name.startswith("check-") for p in (tmp_path / "ci-cache").iterdir()] == [True]


def test_empty_cache_flag_is_an_error_naming_the_flag(tmp_path: Path) -> None:
    directory = migrations(tmp_path)
    result = run_check(tmp_path, "--dir", str(directory), "--cache", "")
    assert result.returncode == 2
    assert '"error":"--cache: must not be empty"' in result.stdout
