"""Other tools' directories read in place: names, order, versions, up parts, markers, notes."""

from __future__ import annotations

import datetime as dt
import zlib
from pathlib import Path

import pytest

from safemigrate.core.errors import MigrationFileError
from safemigrate.core.model import JournalEntry
from safemigrate.planning.adoption import (
    AdoptionError,
    ForeignHistory,
    ForeignRow,
    adopted_entries,
    applied_ids,
    checksum_drift,
    yoyo_hash,
)
from safemigrate.planning.migrations import load_migrations
from safemigrate.source import discover, scan_directory
from safemigrate.source.layouts import VERSION_OF, detect, new_files
from safemigrate.source.layouts import flyway as flyway_layout
from safemigrate.source.layouts.common import DOWN_IGNORED
from tests.support.runner import write_migrations

NOW = dt.datetime(2026, 12, 1, 12, 0, 0, tzinfo=dt.timezone.utc)


def _write(directory: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (directory / relative).parent.mkdir(parents=True, exist_ok=True)
        (directory / relative).write_text(text)
    return directory


# -- dbmate --------------------------------------------------------------------------------------


def test_dbmate_runs_the_up_block_only_with_the_files_line_numbers(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {
            "20260101120000_users.sql": """
                -- a comment before the block is allowed
                -- migrate:up
                CREATE TABLE users (id int);

                -- migrate:down
                DROP TABLE users;
            """,
        },
    )
    (migration,) = load_migrations(directory, layout="dbmate")
    assert migration.version == 20260101120000
    assert migration.name == "users"
    assert [s.statements[0].text for s in migration.steps] == ["CREATE TABLE users (id int)"]
    assert migration.steps[0].line == 3
    (file,) = discover(directory, "dbmate")
    assert file.origin_id == "20260101120000"
    assert DOWN_IGNORED in file.notes


def test_dbmate_transaction_false_is_noted(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {"1_index.sql": "-- migrate:up transaction:false\nCREATE INDEX CONCURRENTLY i ON t (a);\n"},
    )
    (file,) = discover(directory, "dbmate")
    assert any("transaction:false" in note for note in file.notes)
    (migration,) = load_migrations(directory, layout="dbmate")
    assert migration.steps[0].mode.value == "autocommit"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("CREATE TABLE t (a int);\n", "no '-- migrate:up' line"),
        ("CREATE TABLE x (a int);\n-- migrate:up\nSELECT 1;\n", "a statement precedes"),
        ("-- migrate:down\nSELECT 1;\n-- migrate:up\nSELECT 2;\n", "comes before"),
    ],
)
def test_dbmate_refuses_what_dbmate_refuses(tmp_path: Path, text: str, message: str) -> None:
    directory = write_migrations(tmp_path, {"1_x.sql": text})
    with pytest.raises(MigrationFileError, match=message):
        discover(directory, "dbmate")


def test_dbmate_passes_over_files_without_a_leading_version(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path, {"schema.sql": "CREATE TABLE t (a int);\n", "2_x.sql": "-- migrate:up\n"}
    )
    assert [f.path.name for f in discover(directory, "dbmate")] == ["2_x.sql"]


# -- yoyo ----------------------------------------------------------------------------------------


def test_yoyo_ids_versions_and_rollback_files(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {
            "0001.create-users.sql": "CREATE TABLE users (id int);\n",
            "0001.create-users.rollback.sql": "DROP TABLE users;\n",
            "20261201_01_AbCdE-add-name.sql": (
                "-- add a name\n-- depends: 0001.create-users\n"
                "ALTER TABLE users ADD COLUMN name text;\n"
            ),
        },
    )
    files = discover(directory, "yoyo")
    assert [(f.version, f.version_text, f.name, f.origin_id) for f in files] == [
        (1, "0001", "create-users", "0001.create-users"),
        (2026120101, "2026120101", "AbCdE-add-name", "20261201_01_AbCdE-add-name"),
    ]
    assert DOWN_IGNORED in files[0].notes
    assert VERSION_OF["yoyo"]("20261201_01_AbCdE-add-name") == 2026120101
    assert yoyo_hash("0001.create-users") == yoyo_hash("0001.create-users")  # stable
    assert len(yoyo_hash("x")) == 64


def test_yoyo_transactional_false_header(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {"0001.idx.sql": "-- transactional: false\nCREATE INDEX CONCURRENTLY i ON t (a);\n"},
    )
    (file,) = discover(directory, "yoyo")
    assert any("-- transactional: false" in note for note in file.notes)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"0001.a.sql": "-- depends: 0002.b\nSELECT 1;\n", "0002.b.sql": "SELECT 2;\n"},
            "comes later",
        ),
        ({"0001.a.sql": "-- depends: 0000.gone\nSELECT 1;\n"}, "unknown migration 0000.gone"),
        ({"0001.a.py": "steps = []\n"}, "a Python migration cannot be run"),
        ({"create-users.sql": "SELECT 1;\n"}, "does not start with digits"),
    ],
)
def test_yoyo_refusals(tmp_path: Path, files: dict[str, str], message: str) -> None:
    directory = write_migrations(tmp_path, files)
    with pytest.raises(MigrationFileError, match=message):
        discover(directory, "yoyo")


# -- golang-migrate, sqlx, diesel ---------------------------------------------------------------


def test_golang_migrate_up_files_in_version_order(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {
            "10_later.up.sql": "SELECT 10;\n",
            "10_later.down.sql": "SELECT -10;\n",
            "9_earlier.up.sql": "SELECT 9;\n",
        },
    )
    files = discover(directory, "golang-migrate")
    assert [(f.version, f.name) for f in files] == [(9, "earlier"), (10, "later")]
    assert DOWN_IGNORED in files[1].notes and DOWN_IGNORED not in files[0].notes


def test_golang_migrate_duplicate_versions_are_refused(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path, {"1_a.up.sql": "SELECT 1;\n", "01_b.up.sql": "SELECT 1;\n"}
    )
    with pytest.raises(MigrationFileError, match="duplicate version 1"):
        discover(directory, "golang-migrate")


def test_sqlx_simple_and_reversible_files_and_no_transaction(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {
            "20260101000001_users.sql": "CREATE TABLE users (id int);\n",
            "20260101000002_index.up.sql": (
                "-- no-transaction\nCREATE INDEX CONCURRENTLY i ON users (id);\n"
            ),
            "20260101000002_index.down.sql": "DROP INDEX i;\n",
        },
    )
    files = discover(directory, "sqlx")
    assert [(f.version, f.name) for f in files] == [
        (20260101000001, "users"),
        (20260101000002, "index"),
    ]
    assert any("-- no-transaction" in n for n in files[1].notes)
    assert DOWN_IGNORED in files[1].notes


def test_diesel_folders(tmp_path: Path) -> None:
    directory = _write(
        tmp_path,
        {
            "00000000000000_diesel_initial_setup/up.sql": "SELECT 0;\n",
            "2026-12-01-120000_users/up.sql": "CREATE TABLE users (id int);\n",
            "2026-12-01-120000_users/down.sql": "DROP TABLE users;\n",
            "2026-12-01-120000_users/metadata.toml": "run_in_transaction = false\n",
            "README.md": "not a migration\n",
        },
    )
    files = discover(directory, "diesel")
    assert [(f.version, f.name, f.origin_id) for f in files] == [
        (0, "diesel_initial_setup", "00000000000000"),
        (20261201120000, "users", "20261201120000"),
    ]
    assert any("run_in_transaction = false" in n for n in files[1].notes)
    assert VERSION_OF["diesel"]("2026-12-01-120000") == 20261201120000


def test_a_diesel_folder_without_up_sql_is_a_problem(tmp_path: Path) -> None:
    directory = _write(tmp_path, {"2026-12-01-120000_users/down.sql": "SELECT 1;\n"})
    assert "no up.sql" in scan_directory(directory, "diesel").problems[0].message


# -- Flyway --------------------------------------------------------------------------------------


def test_flyway_versions_compare_as_numbers_part_by_part(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {
            "V1__a.sql": "SELECT 1;\n",
            "V1_10__d.sql": "SELECT 1;\n",
            "V1.2__c.sql": "SELECT 1;\n",
            "V1_1__b.sql": "SELECT 1;\n",
            "V2__e.sql": "SELECT 1;\n",
            "R__view.sql": "SELECT 1;\n",
            "U1__undo.sql": "SELECT 1;\n",
        },
    )
    files = discover(directory, "flyway")
    assert [f.path.name for f in files] == [
        "V1__a.sql",
        "V1_1__b.sql",
        "V1.2__c.sql",
        "V1_10__d.sql",
        "V2__e.sql",
    ]
    assert [f.version_text for f in files] == ["1", "1.1", "1.2", "1.10", "2"]
    assert flyway_layout.parts("1.0") == flyway_layout.parts("1") == (1,)
    assert VERSION_OF["flyway"]("1.10") == files[3].version


def test_flyway_equal_versions_are_duplicates(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path, {"V1__a.sql": "SELECT 1;\n", "V1_0__b.sql": "SELECT 1;\n"}
    )
    with pytest.raises(MigrationFileError, match="duplicate version"):
        discover(directory, "flyway")


def test_flyway_versions_that_do_not_fit_are_refused(tmp_path: Path) -> None:
    directory = write_migrations(tmp_path, {"V1_2_3_4__a.sql": "SELECT 1;\n"})
    with pytest.raises(MigrationFileError, match="does not fit"):
        discover(directory, "flyway")


def test_flyway_checksum_is_crc32_of_the_lines_signed() -> None:
    lines = ["CREATE TABLE t (", "  id int", ");"]
    crc = 0
    for line in lines:
        crc = zlib.crc32(line.encode(), crc)
    expected = crc - (1 << 32) if crc >= 1 << 31 else crc
    for ending in ("\n", "\r\n", "\r"):
        data = ending.join(lines).encode() + ending.encode()
        assert flyway_layout.checksum(data) == str(expected)
    assert flyway_layout.checksum("\ufeff".encode() + b"x") == flyway_layout.checksum(b"x")
    assert flyway_layout.checksum(b"") == "0"


def test_flyway_execute_in_transaction_false_is_noted(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {"V1__idx.sql": "SELECT 1;\n", "V1__idx.sql.conf": "executeInTransaction=false\n"},
    )
    (file,) = discover(directory, "flyway")
    assert any("executeInTransaction=false" in n for n in file.notes)


# -- detection, new ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "layout"),
    [
        ({"0001_a.sql": "SELECT 1;\n"}, "safemigrate"),
        ({"1_a.sql": "-- migrate:up\nSELECT 1;\n"}, "dbmate"),
        ({"0001.a.sql": "-- depends:\nSELECT 1;\n"}, "yoyo"),
        ({"0001.a.sql": "SELECT 1;\n", "0001.a.rollback.sql": ""}, "yoyo"),
        ({"1_a.up.sql": "SELECT 1;\n"}, "golang-migrate"),
        ({"1_a.sql": "-- no-transaction\nSELECT 1;\n"}, "sqlx"),
        ({"2026-01-01-000000_a/up.sql": "SELECT 1;\n"}, "diesel"),
        ({"V1__a.sql": "SELECT 1;\n"}, "flyway"),
    ],
)
def test_detect(tmp_path: Path, files: dict[str, str], layout: str) -> None:
    assert detect(_write(tmp_path, files)) == layout


@pytest.mark.parametrize(
    ("layout", "files", "expected"),
    [
        ("dbmate", {}, ["20261201120000_add_x.sql"]),
        ("golang-migrate", {"7_a.up.sql": ""}, ["8_add_x.up.sql", "8_add_x.down.sql"]),
        ("sqlx", {}, ["20261201120000_add_x.sql"]),
        ("diesel", {}, ["2026-12-01-120000_add_x/up.sql", "2026-12-01-120000_add_x/down.sql"]),
        ("yoyo", {"0003.a.sql": "SELECT 1;\n"}, ["0004.add_x.sql"]),
        ("flyway", {"V1_2__a.sql": ""}, ["V2__add_x.sql"]),
    ],
)
def test_new_files_follow_the_tool(
    tmp_path: Path, layout: str, files: dict[str, str], expected: list[str]
) -> None:
    _write(tmp_path, files)
    existing = discover(tmp_path, layout)
    written = new_files(layout, existing, "add_x", NOW)
    assert list(written) == expected
    if layout == "yoyo":
        assert "-- depends: 0003.a" in written["0004.add_x.sql"]
    if layout == "dbmate":
        assert written[expected[0]].startswith("-- migrate:up")


# -- adoption (pure) -----------------------------------------------------------------------------


def test_adopted_entries_cover_every_step_of_each_applied_file(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {
            "1_a.sql": "-- migrate:up\nSELECT 1;\nSELECT 2;\n",
            "2_b.sql": "-- migrate:up\nSELECT 3;\n",
            "3_c.sql": "-- migrate:up\nSELECT 4;\n",
        },
    )
    files = discover(directory, "dbmate")
    migrations = load_migrations(directory, layout="dbmate")
    history = ForeignHistory(
        "dbmate", "public.schema_migrations", (ForeignRow("1"), ForeignRow("2"))
    )
    entries = adopted_entries(history, files, migrations, [], VERSION_OF["dbmate"])
    assert [(e.version, e.step, e.state) for e in entries] == [
        (1, 0, "baseline"),
        (1, 1, "baseline"),
        (2, 0, "baseline"),
    ]
    assert {e.application_name for e in entries} == {"adopted from dbmate public.schema_migrations"}
    assert entries[0].checksum == migrations[0].steps[0].checksum
    # What the journal already knows is not adopted again.
    known = [JournalEntry(1, "a", 0, "x"), JournalEntry(1, "a", 1, "y")]
    assert [
        e.version for e in adopted_entries(history, files, migrations, known, VERSION_OF["dbmate"])
    ] == [2]


def test_an_applied_id_without_a_file_shows_as_gone(tmp_path: Path) -> None:
    directory = write_migrations(tmp_path, {"2_b.sql": "-- migrate:up\nSELECT 3;\n"})
    files = discover(directory, "dbmate")
    history = ForeignHistory("dbmate", "schema_migrations", (ForeignRow("1"),))
    (entry,) = adopted_entries(
        history, files, load_migrations(directory, layout="dbmate"), [], VERSION_OF["dbmate"]
    )
    assert (entry.version, entry.name) == (1, "1")


def test_golang_migrate_counts_every_version_up_to_the_last(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path,
        {"1_a.up.sql": "SELECT 1;\n", "2_b.up.sql": "SELECT 1;\n", "3_c.up.sql": "SELECT 1;\n"},
    )
    history = ForeignHistory(
        "golang-migrate", "schema_migrations", (ForeignRow("2"),), up_to_last=True
    )
    assert applied_ids(history, discover(directory, "golang-migrate")) == ["1", "2"]


def test_a_dirty_or_failed_history_is_refused(tmp_path: Path) -> None:
    history = ForeignHistory(
        "golang-migrate", "public.schema_migrations", (ForeignRow("2", ok=False),), up_to_last=True
    )
    with pytest.raises(AdoptionError, match="records migration 2 as dirty") as raised:
        adopted_entries(history, [], [], [], VERSION_OF["golang-migrate"])
    assert raised.value.exit_code == 2


def test_sqlx_checksums_are_compared(tmp_path: Path) -> None:
    import hashlib

    directory = write_migrations(tmp_path, {"1_a.sql": "SELECT 1;\n", "2_b.sql": "SELECT 2;\n"})
    files = discover(directory, "sqlx")
    good = hashlib.sha384(b"SELECT 1;\n").hexdigest()
    history = ForeignHistory(
        "sqlx", "_sqlx_migrations", (ForeignRow("1", checksum=good), ForeignRow("2", checksum="00"))
    )
    assert checksum_drift(history, files, set()) == [
        "2_b.sql: applied by sqlx, but its text has changed since (checksum in _sqlx_migrations "
        "differs)"
    ]
    assert checksum_drift(history, files, {2}) == []


def test_another_tools_directory_is_not_read_as_safemigrates_own(tmp_path: Path) -> None:
    from safemigrate import api
    from safemigrate.core.errors import BadInputError
    from safemigrate.settings.config import load_settings

    directory = write_migrations(
        tmp_path / "m", {"1_a.sql": "-- migrate:up\nSELECT 1;\n-- migrate:down\nSELECT 2;\n"}
    )
    settings = load_settings(cwd=tmp_path, environ={}, overrides={"dir": directory})
    with pytest.raises(BadInputError, match="looks like a dbmate migrations directory") as raised:
        api.plan(settings)
    assert 'set layout = "dbmate"' in str(raised.value.hint)
    adopted = load_settings(
        cwd=tmp_path, environ={}, overrides={"dir": directory, "layout": "auto"}
    )
    report = api.plan(adopted)
    (step,) = report.steps
    assert "layout: dbmate (detected)" in report.notes
    assert step.sql == "SELECT 1"  # the down part is not planned


def test_check_lints_only_the_up_parts(tmp_path: Path) -> None:
    from safemigrate import api
    from safemigrate.settings.config import load_settings

    directory = write_migrations(
        tmp_path / "m",
        {
            "1_a.sql": "-- migrate:up\nCREATE TABLE a (id int);\n-- migrate:down\nDROP TABLE a;\n",
            "2_b.sql": "-- migrate:up\nDROP TABLE a;\n-- migrate:down\nCREATE TABLE a (id int);\n",
        },
    )
    settings = load_settings(
        cwd=tmp_path, environ={}, overrides={"dir": directory, "layout": "dbmate"}
    )
    report = api.check(settings)
    files_with_findings = {Path(f.file).name for f in report.findings}
    assert files_with_findings == {"2_b.sql"}, report.findings
    assert all(f.line == 2 for f in report.findings)


def test_yoyo_rows_are_matched_by_migration_hash(tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path, {"0001.a.sql": "SELECT 1;\n", "0002.b.sql": "SELECT 1;\n"}
    )
    files = discover(directory, "yoyo")
    # yoyo/migrations.py get_migration_hash: sha256 of the id; the id column is only informative.
    history = ForeignHistory(
        "yoyo", "_yoyo_migration", (ForeignRow("renamed", checksum=yoyo_hash("0001.a")),)
    )
    assert applied_ids(history, files) == ["0001.a"]


def test_the_lint_gate_judges_up_parts_only(tmp_path: Path) -> None:
    from safemigrate.planning.gate import lint_pending
    from safemigrate.planning.pending import pending_steps
    from safemigrate.settings.config import load_settings

    directory = write_migrations(
        tmp_path / "m",
        {"1_a.sql": "-- migrate:up\nCREATE TABLE a (id int);\n-- migrate:down\nDROP TABLE a;\n"},
    )
    settings = load_settings(
        cwd=tmp_path, environ={}, overrides={"dir": directory, "layout": "dbmate"}
    )
    planned = pending_steps(load_migrations(directory, layout="dbmate"), [])
    assert lint_pending(planned, settings) == []


def test_target_takes_a_flyway_version_as_written(tmp_path: Path) -> None:
    from safemigrate.planning.pending import resolve_target

    directory = write_migrations(
        tmp_path, {"V1__a.sql": "SELECT 1;\n", "V1_1__b.sql": "SELECT 1;\n"}
    )
    migrations = load_migrations(directory, layout="flyway")
    assert resolve_target(migrations, "1.1") == migrations[1].version
    assert resolve_target(migrations, "1") == migrations[0].version
