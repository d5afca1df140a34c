"""Finding and killing processes, with stand-in processes: no server is started here."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from safemigrate.infra.throwaway import processes
from safemigrate.infra.throwaway.processes import (
    is_postmaster_of,
    kill_processes_in,
    kill_tree,
    pid_alive,
    pid_namespace,
    read_pid_file,
    wait_gone,
)

HAS_PROC = Path("/proc/self/stat").is_file()
needs_proc = pytest.mark.skipif(not HAS_PROC, reason="needs Linux /proc")

# A parent that starts two children and waits: a stand-in for a postmaster and its backends.
PARENT_OF_TWO = (
    "import subprocess, sys, time\n"
    "kids = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])"
    " for _ in range(2)]\n"
    "print(' '.join(str(kid.pid) for kid in kids), flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.fixture
def sleeper(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process that sleeps in ``tmp_path``; killed afterwards if the test did not."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], cwd=tmp_path)
    yield process
    process.kill()
    process.wait()


def test_stat_fields_skip_a_command_name_with_spaces_and_parentheses() -> None:
    stat = "4242 (post (gres) x) S 17 4242 4242 0 -1"
    assert processes._stat_fields(stat)[:2] == ["S", "17"]


def test_pid_alive_tells_live_from_gone(sleeper: subprocess.Popen[bytes]) -> None:
    assert pid_alive(sleeper.pid)
    sleeper.kill()
    sleeper.wait()
    assert not pid_alive(sleeper.pid)


@needs_proc
def test_a_zombie_child_is_reaped_and_not_alive() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while pid_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not pid_alive(child.pid)
    child.wait()


def test_wait_gone_returns_the_survivors(sleeper: subprocess.Popen[bytes]) -> None:
    assert wait_gone([sleeper.pid], 0.05) == [sleeper.pid]
    sleeper.kill()
    assert wait_gone([sleeper.pid], 10) == []


@needs_proc
def test_kill_tree_kills_the_parent_and_its_children() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT_OF_TWO], stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        children = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(children) == 2 and all(pid_alive(pid) for pid in children)
        kill_tree(parent.pid)
        assert not pid_alive(parent.pid)
        assert wait_gone(children, 10) == []
    finally:
        parent.kill()
        parent.wait()


@needs_proc
def test_processes_left_in_a_folder_are_found_and_killed(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    assert processes._processes_in(tmp_path) == [sleeper.pid]
    assert processes._processes_in(tmp_path / "..") == []
    kill_processes_in(tmp_path)
    assert not pid_alive(sleeper.pid)


@needs_proc
def test_is_postmaster_of_compares_working_folders(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    assert is_postmaster_of(sleeper.pid, tmp_path) is True
    assert is_postmaster_of(sleeper.pid, tmp_path.parent) is False
    sleeper.kill()
    sleeper.wait()
    assert is_postmaster_of(sleeper.pid, tmp_path) is False


def test_read_pid_file_reads_the_first_line_or_gives_none(tmp_path: Path) -> None:
    (tmp_path / "postmaster.pid").write_text("4242\n/data\n1700000000\n5432\n")
    assert read_pid_file(tmp_path) == 4242
    (tmp_path / ".s.PGSQL.5432.lock").write_text(" 77 \n")
    assert read_pid_file(tmp_path, ".s.PGSQL.5432.lock") == 77
    (tmp_path / "garbage").write_text("not a pid\n")
    assert read_pid_file(tmp_path, "garbage") is None
    assert read_pid_file(tmp_path, "missing") is None


@needs_proc
def test_pid_namespace_is_known_on_linux() -> None:
    assert pid_namespace().startswith("pid:[")
