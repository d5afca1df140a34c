"""Which OS user runs the server programs, and what it can reach: no server is started here."""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from safemigrate.infra.throwaway import server_user as module
from safemigrate.infra.throwaway.errors import ThrowawayServerError
from safemigrate.infra.throwaway.server_user import (
    READ,
    SEARCH,
    WRITE,
    RunAs,
    blocked_for,
    server_user,
    server_user_or_none,
)

# Neither us nor in any of our groups, so only the "other" bits apply to it.
STRANGER = RunAs("stranger", uid=os.geteuid() + 12345, gid=os.getegid() + 12345, groups=())


def fake_stat(mode: int, uid: int = 0, gid: int = 0) -> os.stat_result:
    """A stat result with only mode, uid and gid filled in."""
    return os.stat_result((mode, 0, 0, 0, uid, gid, 0, 0, 0, 0))


@pytest.mark.parametrize(
    ("mode", "uid", "gid", "bits", "expected"),
    [
        (0o700, 1000, 0, READ | WRITE | SEARCH, True),  # Owner bits for the owner.
        (0o070, 1000, 0, SEARCH, False),  # The owner does not get the group's bits.
        (0o070, 0, 2000, READ | SEARCH, True),  # Group bits through a supplementary group.
        (0o750, 0, 0, SEARCH, False),  # Neither owner nor group: the other bits.
        (0o751, 0, 0, SEARCH, True),
        (0o751, 0, 0, READ | SEARCH, False),
    ],
)
def test_permits_reads_the_bits_that_apply_to_the_user(
    mode: int, uid: int, gid: int, bits: int, expected: bool
) -> None:
    user = RunAs("user", uid=1000, gid=1000, groups=(1000, 2000))
    assert module._permits(fake_stat(mode, uid, gid), user, bits) is expected


def test_nothing_blocks_when_the_programs_run_as_ourselves(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o700)
    assert blocked_for(locked, None, READ | WRITE | SEARCH) is None


@pytest.fixture
def reachable_dir() -> Iterator[Path]:
    """A temporary folder anyone can search (tmp_path's parents may be 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="safemigrate-test-")).resolve()
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def test_blocked_for_names_the_first_folder_in_the_way(reachable_dir: Path) -> None:
    for folder in reachable_dir.parents:
        if not folder.stat().st_mode & 0o001:
            pytest.skip(f"{folder} is not searchable by others: the check would stop there")
    outer = reachable_dir / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    program = inner / "initdb"
    program.write_text("")
    outer.chmod(0o755)
    inner.chmod(0o700)
    program.chmod(0o755)
    assert blocked_for(program, STRANGER, SEARCH) == inner
    inner.chmod(0o711)
    assert blocked_for(program, STRANGER, SEARCH) is None
    assert blocked_for(inner, STRANGER, READ | WRITE | SEARCH) == inner
    assert blocked_for(outer / "missing", STRANGER, SEARCH) == outer / "missing"


def test_an_ordinary_user_runs_the_programs_as_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert server_user() is None


def test_root_without_postgres_or_nobody_cannot_run_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_such_user(name: str) -> pwd.struct_passwd:
        raise KeyError(name)

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(pwd, "getpwnam", no_such_user)
    with pytest.raises(ThrowawayServerError, match="neither a 'postgres' nor a 'nobody'") as caught:
        server_user()
    assert caught.value.hint is not None and "useradd" in caught.value.hint
    assert server_user_or_none() is None


def test_root_prefers_the_postgres_user(monkeypatch: pytest.MonkeyPatch) -> None:
    def only_postgres(name: str) -> pwd.struct_passwd:
        if name != "postgres":
            raise KeyError(name)
        return pwd.struct_passwd(("postgres", "x", 4321, 4322, "", "/", "/bin/false"))

    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(pwd, "getpwnam", only_postgres)
    monkeypatch.setattr(os, "getgrouplist", lambda name, gid: [gid, 99])
    assert server_user() == RunAs("postgres", 4321, 4322, (4322, 99))
