"""check's result cache (safemigrate.infra.lint_cache, check.py, lint_directory's memo).

The cache only ever saves time: every test compares what a cached run says with what a run
without the cache says, and counts what was judged again. No database is needed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import safemigrate.api.check_command
import safemigrate.infra.lint_cache
import safemigrate.lint.directory
from safemigrate.api.check_command import check
from safemigrate.core.model import QualifiedName
from safemigrate.infra.lint_cache import FORMAT
from safemigrate.lint.catalog import LIVE_FIELDS, Catalog, Column
from safemigrate.lint.directory import lint_directory
from safemigrate.lint.findings import LintReport
from safemigrate.lint.memo import FileMemo
from safemigrate.lint.walker import FileResult, lint_text
from safemigrate.settings.config import Settings

from .support import write

CREATE_NULLABLE = "CREATE TABLE t (id int PRIMARY KEY, c int);\n"
CREATE_NOT_NULL = "CREATE TABLE t (id int PRIMARY KEY, c int NOT NULL);\n"
SET_NOT_NULL = "ALTER TABLE t ALTER COLUMN c SET NOT NULL;\n"
PROVE_NOT_NULL = (
    "ALTER TABLE t ADD CONSTRAINT c_nn CHECK (c IS NOT NULL) NOT VALID;\n"
    "ALTER TABLE t VALIDATE CONSTRAINT c_nn;\n"
)
ADD_UNCHECKED = "ALTER TABLE t ADD COLUMN d int;\n"


# Helpers


def migrations(tmp_path: Path, files: dict[str, str]) -> Path:
    """A migrations directory under ``tmp_path`` holding ``files`` (name -> SQL), settled."""
    directory = tmp_path / "migrations"
    directory.mkdir(exist_ok=True)
    for name, text in files.items():
        write(directory, name, text)
    settle(directory)
    return directory


def settle(directory: Path) -> None:
    """Date every file under ``directory`` an hour back (their change time stays now: the
    module's fixture shortens the racy window so a report on them is kept whole)."""
    hour_ago = time.time() - 3600
    for path in directory.rglob("*"):
        if path.is_file():
            os.utime(path, (hour_ago, hour_ago))


#: The real racy window (lint.cache.RACY_NS), for the test of the rule itself.
REAL_RACY_NS = safemigrate.infra.lint_cache.RACY_NS


@pytest.fixture(autouse=True)
def _no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files these tests write changed a moment ago, and a change time cannot be dated back:
    without this, no whole report made in a test would be kept (see the racy test below)."""
    monkeypatch.setattr(safemigrate.infra.lint_cache, "RACY_NS", 0)


def cached(directory: Path, cache: Path, **changes: Any) -> Settings:
    """Settings that check ``directory`` with its results kept in ``cache``."""
    return dataclasses.replace(Settings(dir=directory, check_cache=cache), **changes)


def warm_cache(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Settings]:
    """``migrations`` of ``files``, checked once with the cache in ``tmp_path / "cache"``: the
    directory and the settings, the cache holding its report."""
    directory = migrations(tmp_path, files)
    settings = cached(directory, tmp_path / "cache")
    check(settings)
    return directory, settings


def uncached(settings: Settings) -> Settings:
    """The same settings with the cache off: the reference every cached run must equal."""
    return dataclasses.replace(settings, check_cache="off")


def cache_files(cache: Path) -> list[Path]:
    """The cache files in ``cache``, sorted."""
    return sorted(cache.glob("check-*.json")) if cache.is_dir() else []


def only_cache_file(cache: Path) -> Path:
    """The one cache file in ``cache``."""
    files = cache_files(cache)
    assert len(files) == 1, files
    return files[0]


def forbid_linting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any real lint fail the test: what follows must be answered from the cache."""

    def refuse(*args: object, **kwargs: object) -> LintReport:
        raise AssertionError("linted although the cache holds the answer")

    monkeypatch.setattr(safemigrate.api.check_command, "_lint", refuse)


def count_judged(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths lint_directory judges from now on (calls of its lint_text), in order."""
    judged: list[str] = []

    def counting(path: str, *args: Any, **kwargs: Any) -> FileResult:
        judged.append(Path(path).name)
        return lint_text(path, *args, **kwargs)

    monkeypatch.setattr(safemigrate.lint.directory, "lint_text", counting)
    return judged


def rules_by_file(report: LintReport) -> list[tuple[str, str]]:
    """(file name, rule) of each finding, in order."""
    return [(Path(f.file).name, f.rule) for f in report.findings]


# An unchanged directory


def test_unchanged_directory_is_answered_from_the_cache_without_linting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": SET_NOT_NULL})
    settings = cached(directory, tmp_path / "cache")
    first = check(settings)
    assert first == check(uncached(settings))
    assert rules_by_file(first) == [("0002_b.sql", "set-not-null")]
    forbid_linting(monkeypatch)
    assert check(settings) == first
    assert check(settings) == first


def test_unchanged_directory_with_a_new_non_migration_file_judges_nothing_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": SET_NOT_NULL})
    settings = cached(directory, tmp_path / "cache")
    first = check(settings)
    write(directory, "README.md", "notes\n")
    cold = check(uncached(settings))
    judged = count_judged(monkeypatch)
    assert check(settings) == first == cold
    assert judged == []


# A directory that gained a file


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        (CREATE_NOT_NULL, []),
        (CREATE_NULLABLE, [("0002_b.sql", "set-not-null")]),
    ],
    ids=["column-created-not-null", "column-created-nullable"],
)
def test_gained_file_alone_is_judged_on_the_schema_the_history_built(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    history: str,
    expected: list[tuple[str, str]],
) -> None:
    directory, settings = warm_cache(tmp_path, {"0001_a.sql": history})
    write(directory, "0002_b.sql", SET_NOT_NULL)
    judged = count_judged(monkeypatch)
    report = check(settings)
    assert judged == ["0002_b.sql"]
    assert rules_by_file(report) == expected
    cold = check(uncached(settings))
    assert report == cold
    assert (report.findings, report.files, report.bad_input) == (
        cold.findings,
        cold.files,
        cold.bad_input,
    )


def test_gained_files_over_several_runs_keep_judging_only_the_new_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, settings = warm_cache(tmp_path, {"0001_a.sql": CREATE_NULLABLE})
    judged = count_judged(monkeypatch)
    write(directory, "0002_b.sql", PROVE_NOT_NULL)
    assert check(settings) == check(uncached(settings))
    write(directory, "0003_c.sql", SET_NOT_NULL)
    report = check(settings)
    # The uncached runs judge every file; the cached ones only the file each run added.
    assert judged == ["0002_b.sql", "0001_a.sql", "0002_b.sql", "0003_c.sql"]
    assert report == check(uncached(settings))
    assert rules_by_file(report) == []  # 0002's validated check, saved in the schema, proves it


def test_gained_file_after_a_file_with_findings_keeps_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, settings = warm_cache(
        tmp_path,
        {
            "0001_a.sql": CREATE_NULLABLE + "INSERT INTO t VALUES (1, 1);\n",
            "0002_b.sql": SET_NOT_NULL + "CREATE INDEX t_c ON t (c);\n",
        },
    )
    write(directory, "0003_c.sql", "CREATE INDEX t_id ON t (id);\nDROP TABLE t;\n")
    judged = count_judged(monkeypatch)
    report = check(settings)
    assert judged == ["0003_c.sql"]
    cold = check(uncached(settings))
    assert report == cold
    assert len({f.file for f in report.findings}) == 2  # findings from old and new files


def test_gained_file_in_another_tools_layout_is_judged_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = migrations(
        tmp_path,
        {
            "20240101000000_create.sql": f"-- migrate:up\n{CREATE_NULLABLE}"
            "-- migrate:down\nDROP TABLE t;\n",
        },
    )
    settings = cached(directory, tmp_path / "cache", layout="dbmate")
    check(settings)
    write(
        directory,
        "20240102000000_tighten.sql",
        f"-- migrate:up\n{SET_NOT_NULL}-- migrate:down\nALTER TABLE t ALTER c DROP NOT NULL;\n",
    )
    judged = count_judged(monkeypatch)
    report = check(settings)
    assert judged == ["20240102000000_tighten.sql"]
    assert rules_by_file(report) == [("20240102000000_tighten.sql", "set-not-null")]
    assert report == check(uncached(settings))


# An edited file


@pytest.mark.parametrize(
    ("middle_before", "middle_after"),
    [(PROVE_NOT_NULL, ADD_UNCHECKED), (ADD_UNCHECKED, PROVE_NOT_NULL)],
    ids=["proof-removed", "proof-added"],
)
def test_edited_middle_file_gives_the_uncached_result(
    tmp_path: Path, middle_before: str, middle_after: str
) -> None:
    directory = migrations(
        tmp_path,
        {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": middle_before, "0003_c.sql": SET_NOT_NULL},
    )
    settings = cached(directory, tmp_path / "cache")
    before = check(settings)
    assert before == check(uncached(settings))
    write(directory, "0002_b.sql", middle_after)
    after = check(settings)
    assert after == check(uncached(settings))
    assert after != before  # the edit changed 0003's verdict: nothing stale was served


def test_edited_first_file_then_gained_file_gives_the_uncached_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, settings = warm_cache(
        tmp_path, {"0001_a.sql": CREATE_NOT_NULL, "0002_b.sql": ADD_UNCHECKED}
    )
    write(directory, "0001_a.sql", CREATE_NULLABLE)
    write(directory, "0003_c.sql", SET_NOT_NULL)
    judged = count_judged(monkeypatch)
    report = check(settings)
    assert judged == ["0001_a.sql", "0002_b.sql", "0003_c.sql"]
    assert rules_by_file(report) == [("0003_c.sql", "set-not-null")]
    assert report == check(uncached(settings))


def test_removed_last_file_then_gained_file_gives_the_uncached_result(tmp_path: Path) -> None:
    directory, settings = warm_cache(
        tmp_path,
        {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": PROVE_NOT_NULL, "0003_c.sql": SET_NOT_NULL},
    )
    (directory / "0003_c.sql").unlink()
    (directory / "0002_b.sql").unlink()
    assert check(settings) == check(uncached(settings))
    write(directory, "0002_b.sql", SET_NOT_NULL)
    report = check(settings)
    assert rules_by_file(report) == [("0002_b.sql", "set-not-null")]
    assert report == check(uncached(settings))


def test_empty_directory_is_checked_with_the_cache_on(tmp_path: Path) -> None:
    directory = migrations(tmp_path, {})
    settings = cached(directory, tmp_path / "cache")
    cold = check(uncached(settings))
    assert check(settings) == cold
    assert check(settings) == cold
    write(directory, "0001_a.sql", CREATE_NULLABLE)
    assert check(settings) == check(uncached(settings))


# Settings that change a verdict


@pytest.mark.parametrize(
    "change",
    [
        {"pg_version": 11},
        {"safe_rewrites": "off"},
        {"max_lock_timeout_ms": 3_000},
        {"concurrent_indexes": "require"},
        {"layout": "auto"},
    ],
    ids=lambda change: next(iter(change)),
)
def test_verdict_changing_setting_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: dict[str, Any]
) -> None:
    _, settings = warm_cache(
        tmp_path,
        {
            "0001_a.sql": CREATE_NULLABLE + "CREATE INDEX t_c ON t (c);\n",
            "0002_b.sql": SET_NOT_NULL + "SET lock_timeout = '5s';\nCREATE INDEX t_id ON t (id);\n",
        },
    )
    judged = count_judged(monkeypatch)
    changed = dataclasses.replace(settings, **change)
    report = check(changed)
    assert judged == ["0001_a.sql", "0002_b.sql"]
    assert report == check(uncached(changed))
    if change != {"layout": "auto"}:  # auto reads this directory as the native layout
        assert report != check(uncached(settings))


def test_verdict_changing_setting_is_a_miss_for_a_gained_file_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, settings = warm_cache(
        tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": PROVE_NOT_NULL}
    )
    write(directory, "0003_c.sql", SET_NOT_NULL)
    old_server = dataclasses.replace(settings, pg_version=11)
    report = check(old_server)
    # Before PostgreSQL 12 a validated check does not skip the scan.
    assert rules_by_file(report) == [("0003_c.sql", "set-not-null")]
    assert report == check(uncached(old_server))
    assert check(settings) == check(uncached(settings))


# A corrupt or unwritable cache


def _with(**changes: Any) -> Callable[[dict[str, Any]], bytes]:
    """A cache file's bytes: the valid one with ``changes``."""
    return lambda raw: json.dumps(dict(raw, **changes)).encode()


def _as_is(content: bytes) -> Callable[[dict[str, Any]], bytes]:
    """A cache file's bytes: ``content`` whatever the valid one was."""
    return lambda raw: content


#: Cache file contents that must be ignored, made from the valid file's data.
GARBAGE: dict[str, Callable[[dict[str, Any]], bytes]] = {
    "empty": _as_is(b""),
    "not-json": _as_is(b"not json at all"),
    "cut-short": lambda raw: json.dumps(raw).encode()[:40],
    "not-utf8": _as_is(b'{"format": 1, "code": "\xff"}'),
    "array": _as_is(b"[1, 2, 3]"),
    "string": _as_is(b'"a string"'),
    "null": _as_is(b"null"),
    "empty-object": _as_is(b"{}"),
    "nested-too-deep": _as_is(b"[" * 100_000),
    "wrong-format": _with(format=FORMAT + 1),
    "other-code": _with(code="other code"),
    "bad-finding": _with(report={"findings": [["x"]], "bad_input": False, "files": []}),
    "bad-severity": _with(
        report={"findings": [["f", 1, 1, "r", "fatal", "m", "h"]], "bad_input": True, "files": []}
    ),
    "report-not-an-object": _with(report=[1]),
    "bad-chain": _with(fingerprint="stale", chain=[["key", [["too", "short"]], False]]),
    "chain-not-a-list": _with(fingerprint="stale", chain=7),
}


@pytest.mark.parametrize("kind", sorted(GARBAGE))
def test_corrupt_cache_file_is_ignored_and_rewritten(tmp_path: Path, kind: str) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": SET_NOT_NULL})
    cache = tmp_path / "cache"
    settings = cached(directory, cache)
    cold = check(uncached(settings))
    check(settings)
    path = only_cache_file(cache)
    good = json.loads(path.read_text(encoding="utf-8"))
    path.write_bytes(GARBAGE[kind](good))
    assert check(settings) == cold
    assert json.loads(path.read_text(encoding="utf-8")) == good  # written again, as it was
    assert check(settings) == cold


def test_corrupt_saved_schema_is_ignored_for_a_gained_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NOT_NULL})
    cache = tmp_path / "cache"
    settings = cached(directory, cache)
    check(settings)
    path = only_cache_file(cache)
    raw = json.loads(path.read_text(encoding="utf-8"))
    for broken in ({"tables": 5}, {}, {**raw["catalog"], "indexes": [[1, 2, 3]]}):
        path.write_text(json.dumps(dict(raw, catalog=broken)), encoding="utf-8")
        write(directory, "0002_b.sql", SET_NOT_NULL)
        judged = count_judged(monkeypatch)
        report = check(settings)
        assert judged == ["0001_a.sql", "0002_b.sql"]  # judged from the start again
        assert report == check(uncached(settings))
        (directory / "0002_b.sql").unlink()


def test_cache_file_that_is_a_directory_does_not_fail_the_check(tmp_path: Path) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": SET_NOT_NULL})
    cache = tmp_path / "cache"
    settings = cached(directory, cache)
    check(settings)
    path = only_cache_file(cache)
    path.unlink()
    path.mkdir()
    cold = check(uncached(settings))
    assert check(settings) == cold
    assert check(settings) == cold
    assert [p.name for p in cache.iterdir()] == [path.name]  # no temporary file left behind


@pytest.mark.parametrize("where", ["file-in-place", "file-above"])
def test_unwritable_cache_directory_does_not_fail_the_check(tmp_path: Path, where: str) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": SET_NOT_NULL})
    blocker = write(tmp_path, "not-a-directory", "")
    cache = blocker if where == "file-in-place" else blocker / "cache"
    settings = cached(directory, cache)
    cold = check(uncached(settings))
    assert check(settings) == cold
    assert check(settings) == cold
    assert blocker.read_text(encoding="utf-8") == ""


# A change of code


def test_change_of_code_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory, settings = warm_cache(tmp_path, {"0001_a.sql": CREATE_NULLABLE})
    write(directory, "0002_b.sql", SET_NOT_NULL)
    settle(directory)
    check(settings)  # per-file level now holds both files
    monkeypatch.setattr(
        safemigrate.api.check_command, "code_fingerprint", lambda: "another version"
    )
    judged = count_judged(monkeypatch)
    report = check(settings)
    assert judged == ["0001_a.sql", "0002_b.sql"]  # neither level is reused
    assert report == check(uncached(settings))
    forbid_linting(monkeypatch)
    assert check(settings) == report  # and the new code's result is kept


def test_code_fingerprint_changes_when_a_code_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "site" / "pglast"
    package.mkdir(parents=True)
    module = write(package, "__init__.py", "")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    before = safemigrate.infra.lint_cache.code_fingerprint()
    assert safemigrate.infra.lint_cache.code_fingerprint() == before
    write(package, "__pycache__", "")  # bytecode is not code
    assert safemigrate.infra.lint_cache.code_fingerprint() == before
    module.write_text("VERSION = 2\n", encoding="utf-8")
    assert safemigrate.infra.lint_cache.code_fingerprint() != before


# Where the cache goes


def test_cache_off_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": SET_NOT_NULL})
    before = sorted(tmp_path.rglob("*"))
    settings = dataclasses.replace(Settings(dir=directory), check_cache="off")
    check(settings)
    check(settings, [directory / "0001_a.sql"])
    assert sorted(tmp_path.rglob("*")) == before
    assert not home.exists()


def test_auto_writes_into_the_user_cache_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE})
    check(Settings(dir=directory))
    assert len(cache_files(home / "safemigrate")) == 1


def test_directory_value_writes_check_files_there(tmp_path: Path) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE})
    cache = tmp_path / "deep" / "cache"
    check(cached(directory, cache))
    check(cached(directory, cache), [directory / "0001_a.sql"])
    assert sorted(cache.iterdir()) == cache_files(cache)
    # check FILE is judged with its directory (issue 22 item 2): the directory's entry.
    assert len(cache_files(cache)) == 1
    assert all(p.name.startswith("check-") and p.suffix == ".json" for p in cache.iterdir())


def test_pruning_keeps_the_most_recently_written_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(safemigrate.infra.lint_cache, "MAX_FILES", 3)
    cache = tmp_path / "cache"
    written: list[Path] = []
    for number in range(6):
        directory = tmp_path / f"project{number}"
        directory.mkdir()
        write(directory, "0001_a.sql", CREATE_NULLABLE)
        # Age what is there, so the order does not hang on the clock's resolution.
        for age, path in enumerate(reversed(written), start=1):
            if path.exists():
                os.utime(path, (path.stat().st_atime, path.stat().st_mtime - age))
        check(cached(directory, cache))
        new = set(cache_files(cache)) - set(written)
        assert len(new) == 1
        written.extend(new)
        assert len(cache_files(cache)) <= 3
    assert cache_files(cache) == sorted(written[-3:])


# The saved schema


CATALOG_FILES = {
    "0001_schema.sql": "CREATE SCHEMA app;\n",
    "0002_orders.sql": (
        'CREATE TABLE app."Orders" (id bigint PRIMARY KEY, "Total" numeric(10,2) NOT NULL,\n'
        '  tags text[], note varchar(20), CONSTRAINT "Positive" CHECK ("Total" > 0));\n'
    ),
    "0003_events.sql": (
        "CREATE TABLE archive (id int) USING heap2;\n"
        "CREATE TABLE events (id int, at timestamptz, kind text) PARTITION BY RANGE (at);\n"
        "CREATE TABLE events_default PARTITION OF events DEFAULT;\n"
    ),
    "0004_index.sql": (
        'CREATE INDEX CONCURRENTLY "Orders_Total" ON app."Orders" ("Total", id);\n'
        'CREATE INDEX CONCURRENTLY "Orders_note" ON app."Orders" (lower(note));\n'
    ),
    "0005_checks.sql": (
        'ALTER TABLE app."Orders" ADD CONSTRAINT note_len CHECK (length(note) < 10) NOT VALID;\n'
        'ALTER TABLE app."Orders" ADD CONSTRAINT note_nn CHECK (note IS NOT NULL) NOT VALID;\n'
    ),
    "0006_people.sql": (
        'CREATE TABLE "People" (id int, "Name" text);\n'
        'ALTER TABLE "People" ADD CONSTRAINT name_nn CHECK ("Name" IS NOT NULL) NOT VALID;\n'
    ),
    "0007_validate.sql": 'ALTER TABLE "People" VALIDATE CONSTRAINT name_nn;\n',
    "0008_set_not_null.sql": 'ALTER TABLE "People" ALTER COLUMN "Name" SET NOT NULL;\n',
    "0009_types.sql": (
        "CREATE DOMAIN app.label AS varchar(40) CHECK (VALUE <> '');\n"
        "CREATE FUNCTION pick() RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN 'x'; END $$;\n"
        "CREATE FUNCTION fixed() RETURNS text LANGUAGE sql AS $$ SELECT 'x'::text $$;\n"
        "ALTER FUNCTION fixed() SET statement_timeout = '1h';\n"
        # The search_path the next file starts with, and a function that may change it
        # (issue 20 review F2).
        "CREATE FUNCTION to_app() RETURNS void LANGUAGE plpgsql AS "
        "$$ BEGIN PERFORM set_config('search_path', 'app', false); END $$;\n"
        # A trigger whose function a later file's write fires (issue 21 G5).
        'CREATE TRIGGER people_pick BEFORE INSERT ON "People" FOR EACH ROW '
        "EXECUTE FUNCTION pick();\n"
        "SET search_path = app, public;\n"
    ),
}


def catalog_of(directory: Path) -> Catalog:
    """The schema the files of ``directory`` build, as lint_directory passes it along."""
    catalog = Catalog()
    for path in sorted(directory.glob("*.sql")):
        lint_text(str(path), path.read_text(encoding="utf-8"), catalog=catalog)
    return catalog


def test_catalog_json_round_trip_keeps_every_field(tmp_path: Path) -> None:
    catalog = catalog_of(migrations(tmp_path, CATALOG_FILES))
    for item in dataclasses.fields(Catalog):
        # A live database's sizes and the run's creations are never cached.
        if item.name != "search_path_schema" and item.name not in LIVE_FIELDS:
            assert getattr(catalog, item.name), f"{item.name} is empty: the test misses it"
    orders = QualifiedName("app", "Orders")
    assert orders in catalog.tables and orders in catalog.checks
    tags = catalog.tables[orders]["tags"].type
    assert tags is not None and tags.array and not tags.typmods
    catalog.tables[orders]["unknown"] = Column(None)  # a type the history did not show
    catalog.search_path_schema = "App Schema"
    through_text = json.loads(json.dumps(catalog.to_json()))
    assert Catalog.from_json(through_text) == catalog
    assert Catalog.from_json(Catalog().to_json()) == Catalog()


def test_saved_schema_is_the_one_the_last_file_left(tmp_path: Path) -> None:
    directory = migrations(tmp_path, CATALOG_FILES)
    memo = FileMemo("seed")
    lint_directory(directory, memo=memo)
    assert memo.catalog is not None
    assert memo.catalog_key == memo.chain[-1][0]
    saved = Catalog.from_json(json.loads(json.dumps(memo.catalog)))
    assert saved == catalog_of(directory)


def test_gained_file_on_the_saved_schema_matches_the_uncached_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, settings = warm_cache(tmp_path, CATALOG_FILES)
    write(
        directory,
        "0010_more.sql",
        'ALTER TABLE app."Orders" VALIDATE CONSTRAINT note_nn;\n'
        'ALTER TABLE app."Orders" ALTER COLUMN note SET NOT NULL;\n'
        'ALTER TABLE app."Orders" ALTER COLUMN "Total" TYPE numeric(12,2);\n'
        'ALTER TABLE "People" ALTER COLUMN "Name" SET NOT NULL;\n'
        "CREATE TABLE events_2024 (id int, at timestamptz, kind text);\n"
        "ALTER TABLE events ATTACH PARTITION events_2024\n"
        "  FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');\n"
        'DROP INDEX app."Orders_Total";\n',
    )
    judged = count_judged(monkeypatch)
    report = check(settings)
    assert judged == ["0010_more.sql"]
    assert report == check(uncached(settings))
    assert report.findings  # the file has findings that depend on the saved schema


# Files given by name


def test_named_files_are_answered_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": SET_NOT_NULL})
    files = [directory / "0001_a.sql", directory / "0002_b.sql"]
    settings = cached(directory, tmp_path / "cache")
    first = check(settings, files)
    assert first == check(uncached(settings), files)
    with monkeypatch.context() as patch:
        forbid_linting(patch)
        assert check(settings, files) == first
    write(directory, "0002_b.sql", "DROP TABLE t;\n")
    edited = check(settings, files)
    assert edited == check(uncached(settings), files)
    assert edited != first
    # The directory itself has its own entry: naming files does not answer for it.
    assert check(settings) == check(uncached(settings))


def test_named_files_are_reported_as_spelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": "DROP TABLE t;\n"})
    settings = cached(directory, tmp_path / "cache")
    monkeypatch.chdir(tmp_path)
    absolute = check(settings, [directory / "0001_a.sql"])
    relative = check(settings, [Path("migrations/0001_a.sql")])
    assert relative == check(uncached(settings), [Path("migrations/0001_a.sql")])
    assert [f.file for f in relative.findings] == ["migrations/0001_a.sql"]
    assert [f.file for f in absolute.findings] == [str(directory / "0001_a.sql")]


def test_named_file_that_is_missing_then_created_is_a_miss(tmp_path: Path) -> None:
    directory = migrations(tmp_path, {})
    path = directory / "0001_a.sql"
    settings = cached(directory, tmp_path / "cache")
    missing = check(settings, [path])
    assert missing == check(uncached(settings), [path])
    assert missing.bad_input
    write(directory, "0001_a.sql", "DROP TABLE t;\n")
    assert check(settings, [path]) == check(uncached(settings), [path])
    assert not check(settings, [path]).bad_input


# Bad input


BAD_DIRECTORIES: dict[str, dict[str, str]] = {
    "misnamed": {"0001_a.sql": CREATE_NULLABLE, "add_things.sql": "DROP TABLE t;\n"},
    "parse-error": {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": "CREATE TABLE (;\n"},
    "duplicate-version": {"0001_a.sql": CREATE_NULLABLE, "0001_b.sql": SET_NOT_NULL},
    "not-utf8": {"0001_a.sql": CREATE_NULLABLE},
}


@pytest.mark.parametrize("kind", sorted(BAD_DIRECTORIES))
def test_bad_input_directory_gives_the_same_report_cached_as_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    directory = migrations(tmp_path, BAD_DIRECTORIES[kind])
    if kind == "not-utf8":
        (directory / "0002_b.sql").write_bytes(b"SELECT '\xff';\n")
        settle(directory)
    settings = cached(directory, tmp_path / "cache")
    cold = check(uncached(settings))
    assert cold.bad_input and cold.exit_code == 2
    assert check(settings) == cold
    with monkeypatch.context() as patch:
        forbid_linting(patch)
        warm = check(settings)
    assert warm == cold and warm.exit_code == 2
    write(directory, "0009_z.sql", SET_NOT_NULL)
    assert check(settings) == check(uncached(settings))


# The cache file itself


def test_cache_file_is_json_with_the_format_and_no_temporary_files(tmp_path: Path) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": SET_NOT_NULL})
    cache = tmp_path / "cache"
    check(cached(directory, cache))
    raw = json.loads(only_cache_file(cache).read_text(encoding="utf-8"))
    assert raw["format"] == FORMAT
    assert len(raw["chain"]) == 2
    assert raw["catalog_key"] == raw["chain"][-1][0]
    assert [p.name for p in cache.iterdir() if not p.name.startswith("check-")] == []


def test_any_sequence_of_edits_matches_the_uncached_results(tmp_path: Path) -> None:
    directory = migrations(tmp_path, {})
    settings = cached(directory, tmp_path / "cache")
    # (file, new text or None to remove it), one check after each.
    edits: list[tuple[str, str | None]] = [
        ("0001_a.sql", CREATE_NULLABLE),
        ("0002_b.sql", PROVE_NOT_NULL),
        ("0003_c.sql", SET_NOT_NULL),
        ("0002_b.sql", ADD_UNCHECKED),
        ("0003_c.sql", None),
        ("0003_c.sql", SET_NOT_NULL),
        ("0001_a.sql", CREATE_NOT_NULL),
        ("0004_d.sql", "DROP TABLE t;\n"),
        ("0004_d.sql", None),
        ("0002_b.sql", PROVE_NOT_NULL),
    ]
    for name, text in edits:
        if text is None:
            (directory / name).unlink()
        else:
            write(directory, name, text)
        assert check(settings) == check(uncached(settings)), (name, text)


# What the whole-report level does not trust


def test_a_pipe_in_the_directory_is_not_opened_and_nothing_blocks(tmp_path: Path) -> None:
    import threading

    directory = migrations(tmp_path, {"0001_a.sql": "SELECT 1;\n"})
    os.mkfifo(directory / ".pipe")
    results: list[object] = []
    worker = threading.Thread(
        target=lambda: results.append(safemigrate.infra.lint_cache.fingerprint([directory])),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "the fingerprint blocked on the pipe"
    assert results == [None]  # no whole-report answer for such a directory
    settings = cached(directory, tmp_path / "cache")
    assert check(settings) == check(uncached(settings))


def test_a_link_to_a_directory_disables_the_whole_report_level(tmp_path: Path) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": "SELECT 1;\n"})
    (directory / "elsewhere").symlink_to(tmp_path.anchor, target_is_directory=True)
    assert safemigrate.infra.lint_cache.fingerprint([directory]) is None
    linked_file = tmp_path / "outside.sql"
    linked_file.write_text("SELECT 2;\n", encoding="utf-8")
    (tmp_path / "plain").mkdir()
    plain = migrations(tmp_path / "plain", {"0001_a.sql": "SELECT 1;\n"})
    (plain / "0002_b.sql").symlink_to(linked_file)
    assert safemigrate.infra.lint_cache.fingerprint([plain]) is not None


def test_a_write_that_keeps_size_and_modification_time_is_still_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE, "0002_b.sql": "SELECT 1;\n"})
    settings = cached(directory, tmp_path / "cache")
    first = check(settings)
    target = directory / "0002_b.sql"
    status = target.stat()
    # Same size, and the modification time put back: only the change time tells.
    target.write_text("SELECT 2;\n", encoding="utf-8")
    os.utime(target, ns=(status.st_atime_ns, status.st_mtime_ns))
    cold = check(uncached(settings))
    judged = count_judged(monkeypatch)
    assert check(settings) == cold
    assert "0002_b.sql" in judged  # not answered from the whole report: the edit is judged
    assert first.files == cold.files


def test_a_report_on_files_changed_just_now_is_not_kept_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(safemigrate.infra.lint_cache, "RACY_NS", REAL_RACY_NS)
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE})
    write(directory, "0002_b.sql", SET_NOT_NULL)  # not settled: changed just now
    settings = cached(directory, tmp_path / "cache")
    first = check(settings)
    judged = count_judged(monkeypatch)
    assert check(settings) == first
    assert judged == []  # the per-file level answered: nothing parsed again
    assert json.loads(only_cache_file(tmp_path / "cache").read_text())["report"] is None


def test_an_undecodable_directory_name_is_checked_with_the_cache(tmp_path: Path) -> None:
    odd = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/h\xe9"))
    odd.mkdir()
    (odd / "0001_a.sql").write_text("ALTER TABLE t RENAME TO u;\n", encoding="utf-8")
    settings = cached(odd, tmp_path / "cache")
    first = check(settings)
    assert first == check(uncached(settings))
    assert check(settings) == first  # answered from the cache, same report


def test_a_file_whose_modification_time_was_set_back_is_still_racy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The racy window looks at the change time too: cp -p, rsync -t or touch -d date the
    modification time back, not the change time."""
    monkeypatch.setattr(safemigrate.infra.lint_cache, "RACY_NS", REAL_RACY_NS)
    directory = migrations(tmp_path, {"0001_a.sql": CREATE_NULLABLE})
    fingerprint = safemigrate.infra.lint_cache.fingerprint([directory])
    assert fingerprint is not None
    assert fingerprint.racy(time.time_ns())  # settled: mtime an hour back, ctime now
