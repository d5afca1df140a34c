"""``check FILE...`` names each finding's file as it was given (api/check_command.py), each
path resolved once however many findings and files there are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from safemigrate.api.check_command import check
from safemigrate.settings.config import Settings

DROP = "DROP TABLE t;\n"


def directory(tmp_path: Path) -> Path:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_create.sql").write_text("CREATE TABLE t (id int);\n")
    (folder / "0002_drop.sql").write_text(DROP)
    (folder / "0003_drop_again.sql").write_text("DROP TABLE IF EXISTS t;\n")
    return folder


def test_findings_name_files_as_given_the_first_spelling_of_a_file_given_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = directory(tmp_path)
    monkeypatch.chdir(tmp_path)
    relative = Path("migrations/./0002_drop.sql")
    absolute = folder / "0002_drop.sql"
    report = check(Settings(dir=folder, check_cache="off"), [relative, absolute])
    assert report.findings
    assert {f.file for f in report.findings} == {str(relative)}
    assert report.files == (str(relative), str(absolute))


def test_a_file_given_through_a_symlinked_directory_is_named_as_given(tmp_path: Path) -> None:
    folder = directory(tmp_path)
    link = tmp_path / "link"
    os.symlink(folder, link)
    given = [link / "0002_drop.sql", folder / "0003_drop_again.sql"]
    report = check(Settings(dir=folder, check_cache="off"), given)
    named = {f.file for f in report.findings}
    assert str(given[0]) in named
    assert named <= {str(p) for p in given}
    whole = check(Settings(dir=folder, check_cache="off"))
    assert len(report.findings) == len(
        [f for f in whole.findings if Path(f.file).name in {p.name for p in given}]
    )


def test_a_missing_given_file_is_bad_input(tmp_path: Path) -> None:
    folder = directory(tmp_path)
    report = check(Settings(dir=folder, check_cache="off"), [folder / "0009_nope.sql"])
    assert report.bad_input
    assert [f.file for f in report.findings] == [str(folder / "0009_nope.sql")]
