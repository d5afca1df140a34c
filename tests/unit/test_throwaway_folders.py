"""Where clusters go and how orphaned ones are found, with fake folders: no server is started."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from safemigrate.infra.throwaway.folders import (
    DIR_PREFIX,
    owner_record,
    parse_owner_record,
    reap_orphaned_clusters,
    temp_root,
    write_owner_file,
)
from safemigrate.infra.throwaway.processes import pid_namespace


@pytest.fixture
def private_tmpdir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder of this test's own as $TMPDIR."""
    root = Path(tempfile.mkdtemp(prefix="safemigrate-test-root-")).resolve()
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", str(root))  # gettempdir() caches its answer.
    yield root
    shutil.rmtree(root)


def dead_pid() -> int:
    """The PID of a process that has exited (and been reaped)."""
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def fake_cluster(root: Path, owner: str) -> Path:
    """A cluster folder without a server, whose owner file says ``owner``."""
    folder = Path(tempfile.mkdtemp(prefix=DIR_PREFIX, dir=root))
    (folder / "data").mkdir()
    (folder / "owner").write_text(owner)
    return folder


def test_owner_record_round_trips() -> None:
    assert parse_owner_record(owner_record(4242, "pid:[4026531836]")) == (4242, "pid:[4026531836]")
    assert parse_owner_record(owner_record(7, "")) == (7, "")


def test_a_bad_owner_record_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_owner_record("someone else\n")


def test_write_owner_file_names_this_process(tmp_path: Path) -> None:
    write_owner_file(tmp_path)
    assert parse_owner_record((tmp_path / "owner").read_text()) == (os.getpid(), pid_namespace())


def test_temp_root_is_tmpdir_when_set(private_tmpdir: Path) -> None:
    assert temp_root() == private_tmpdir


def test_temp_root_without_tmpdir_is_ram_or_the_system_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TMPDIR", raising=False)
    assert temp_root() in (Path("/dev/shm"), Path(tempfile.gettempdir()))


def test_only_clusters_of_dead_owners_in_our_namespace_are_reaped(private_tmpdir: Path) -> None:
    orphan = fake_cluster(private_tmpdir, owner_record(dead_pid(), pid_namespace()))
    ours = fake_cluster(private_tmpdir, owner_record(os.getpid(), pid_namespace()))
    elsewhere = fake_cluster(private_tmpdir, owner_record(dead_pid(), "pid:[elsewhere]"))
    garbled = fake_cluster(private_tmpdir, "not an owner\n")
    unrelated = private_tmpdir / "someone-else-pg-1"
    unrelated.mkdir()
    reap_orphaned_clusters()
    assert not orphan.exists()
    assert ours.is_dir() and elsewhere.is_dir() and garbled.is_dir() and unrelated.is_dir()


def test_a_live_process_in_an_orphaned_cluster_that_is_not_its_postmaster_is_spared(
    private_tmpdir: Path,
) -> None:
    orphan = fake_cluster(private_tmpdir, owner_record(dead_pid(), pid_namespace()))
    # Its postmaster.pid names a live process that runs elsewhere, as a recycled PID would.
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (orphan / "data" / "postmaster.pid").write_text(f"{stranger.pid}\n")
        reap_orphaned_clusters()
        assert orphan.is_dir()
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()
