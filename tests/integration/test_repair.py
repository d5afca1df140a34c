"""`safemigrate repair` and drift as a user meets them, against a real PostgreSQL (issue 9)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import psycopg

from safemigrate.db.runlock import lock_keys
from safemigrate.planning.migrations import load_migrations
from tests.support.runner import EXAMPLE, journal_rows, run, write_migrations

EDITED = "0003_add_customer_loyalty_points.sql"


def used_example(db_dsn: str, tmp_path: Path) -> Path:
    """A copy of the example set, applied."""
    directory = tmp_path / "m"
    shutil.copytree(EXAMPLE, directory)
    applied = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert applied.exit_code == 0, applied.output
    return directory


def checksums(db_dsn: str) -> list[tuple[Any, ...]]:
    """(version, name, step, checksum) of every journal row."""
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        return conn.execute(
            "SELECT version, name, step, checksum FROM safemigrate_history ORDER BY 1, 3"
        ).fetchall()


def repair_log(db_dsn: str) -> list[dict[str, Any]]:
    """Every row of the repair log; empty when it does not exist."""
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        found = conn.execute("SELECT to_regclass('public.safemigrate_history_repairs')").fetchone()
        if found is None or found[0] is None:
            return []
        cursor = conn.execute("SELECT * FROM safemigrate_history_repairs ORDER BY id")
        names = [c.name for c in cursor.description or []]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def assert_clean(directory: Path, db_dsn: str) -> None:
    """status exits 0 with nothing pending, and up has nothing to apply."""
    status = run("status", "--dir", str(directory), "--dsn", db_dsn, "--exit-code")
    assert status.exit_code == 0, status.output
    assert "drifted" not in status.stdout and "missing" not in status.stdout
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 0, up.output
    assert "nothing to apply" in up.stdout


def test_repair_accepts_the_text_of_an_edited_file_when_asked(db_dsn: str, tmp_path: Path) -> None:
    directory = used_example(db_dsn, tmp_path)
    path = directory / EDITED
    path.write_text(path.read_text().replace("DEFAULT 0", "DEFAULT 1"))
    before = checksums(db_dsn)

    drift = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert drift.exit_code == 5
    assert "safemigrate repair --accept-edited` records the current text" in drift.stderr

    # The edited text never ran: repair records it only when told the edit changes nothing
    # that ran (issue 21 item 2).
    refused = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert refused.exit_code == 2, refused.output
    assert f"cannot repair without --accept-edited: {EDITED} step 1" in refused.stderr
    assert checksums(db_dsn) == before

    dry = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--dry-run", "--accept-edited")
    assert dry.exit_code == 0, dry.output
    assert f"{EDITED} step 1: accept the current text" in dry.stdout
    assert "nothing was changed" in dry.stdout
    assert checksums(db_dsn) == before
    assert repair_log(db_dsn) == []

    done = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--accept-edited")
    assert done.exit_code == 0, done.output
    assert f"{EDITED} step 1: accept the current text" in done.stdout
    assert "recorded in public.safemigrate_history_repairs" in done.stdout
    [new_step] = load_migrations(directory)[2].steps
    after = {(r[0], r[2]): r[3] for r in checksums(db_dsn)}
    assert after[(3, 0)] == new_step.checksum
    assert {k: v for k, v in after.items() if k != (3, 0)} == {
        (r[0], r[2]): r[3] for r in before if (r[0], r[2]) != (3, 0)
    }

    [logged] = repair_log(db_dsn)
    old = next(r[3] for r in before if (r[0], r[2]) == (3, 0))
    assert logged["action"] == "accept"
    assert (logged["version"], logged["step"], logged["name"]) == (
        3,
        0,
        "add_customer_loyalty_points",
    )
    assert (logged["old_checksum"], logged["new_checksum"]) == (old, new_step.checksum)
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        row = conn.execute("SELECT current_user").fetchone()
    assert row is not None
    assert logged["repaired_by"] == row[0]
    assert logged["application_name"] == "safemigrate"
    assert logged["client_os_user"] and logged["client_host"]
    assert logged["repaired_at"] is not None

    assert_clean(directory, db_dsn)
    again = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert again.exit_code == 0
    assert "nothing to repair" in again.stdout
    assert len(repair_log(db_dsn)) == 1


def test_whitespace_and_line_end_edits_are_not_drift(db_dsn: str, tmp_path: Path) -> None:
    directory = used_example(db_dsn, tmp_path)
    before = checksums(db_dsn)
    trigger = directory / "0009_order_total_trigger.sql"
    applied_trigger = trigger.read_bytes()
    for path in directory.glob("*.sql"):
        lines = path.read_text().splitlines()
        path.write_bytes("".join(f"{line}  \t\r\n" for line in lines).encode())
    # Blanks inside the trigger function's $$ body are part of the function's text: drift.
    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 5
    assert [line.split()[0] for line in status.stdout.splitlines() if " drifted " in line] == [
        trigger.name
    ]
    trigger.write_bytes(applied_trigger)
    assert_clean(directory, db_dsn)
    nothing = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert nothing.exit_code == 0, nothing.output
    assert "nothing to repair" in nothing.stdout
    assert checksums(db_dsn) == before


def test_repair_forgets_a_gone_file(db_dsn: str, tmp_path: Path) -> None:
    directory = used_example(db_dsn, tmp_path)
    (directory / "0009_order_total_trigger.sql").unlink()
    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 5
    assert "0009_order_total_trigger.sql: applied, but the file is gone" in status.stdout
    steps_of_9 = [r for r in journal_rows(db_dsn) if r[0] == 9]
    assert steps_of_9

    dry = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--dry-run", "--format", "json")
    assert dry.exit_code == 0, dry.output
    document = json.loads(dry.stdout)
    assert document["dry_run"] is True
    assert document["log"] == "public.safemigrate_history_repairs"
    assert [(r["action"], r["file"], r["step"]) for r in document["repairs"]] == [
        ("forget", "0009_order_total_trigger.sql", i + 1) for i in range(len(steps_of_9))
    ]
    assert [r for r in journal_rows(db_dsn) if r[0] == 9] == steps_of_9

    done = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["dry_run"] is False
    assert [r for r in journal_rows(db_dsn) if r[0] == 9] == []
    logged = repair_log(db_dsn)
    assert [(r["action"], r["version"], r["reason"]) for r in logged] == [
        ("forget", 9, "the file is gone")
    ] * len(steps_of_9)
    assert_clean(directory, db_dsn)


def test_repair_follows_a_rename_with_the_same_version(db_dsn: str, tmp_path: Path) -> None:
    directory = used_example(db_dsn, tmp_path)
    old = directory / "0010_customers_marketing_opt_in.sql"
    old.rename(directory / "0010_marketing_opt_in.sql")
    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 5
    assert "applied as 0010_customers_marketing_opt_in.sql, the file was renamed" in status.stdout
    up = run("up", "--dir", str(directory), "--dsn", db_dsn)
    assert up.exit_code == 5
    assert "follow the rename" in up.stderr
    assert "restore the applied text" not in up.stderr

    done = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert done.exit_code == 0, done.output
    assert "follow the rename to 0010_marketing_opt_in.sql" in done.stdout
    assert {r[1] for r in checksums(db_dsn) if r[0] == 10} == {"marketing_opt_in"}
    assert {(r["action"], r["new_version"], r["new_name"]) for r in repair_log(db_dsn)} == {
        ("rename", 10, "marketing_opt_in")
    }
    assert_clean(directory, db_dsn)


def test_repair_follows_a_rename_to_another_version(db_dsn: str, tmp_path: Path) -> None:
    directory = write_migrations(
        tmp_path / "m",
        {
            "0001_a.sql": "CREATE TABLE a (id int);\n",
            "0002_b.sql": "CREATE TABLE b (id int);\nCREATE TABLE b2 (id int);\n",
        },
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    (directory / "0002_b.sql").rename(directory / "0005_b_later.sql")

    status = run("status", "--dir", str(directory), "--dsn", db_dsn)
    assert status.exit_code == 5
    assert "0005_b_later.sql: applied as 0002_b.sql (same text), the file was renamed" in (
        status.stdout
    )
    dry = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "0002_b.sql step 1: follow the rename to 0005_b_later.sql" in dry.stdout
    assert [r[0] for r in journal_rows(db_dsn)] == [1, 2, 2]

    done = run("repair", "--dir", str(directory), "--dsn", db_dsn)
    assert done.exit_code == 0, done.output
    assert [(r[0], r[1], r[2]) for r in checksums(db_dsn)] == [
        (1, "a", 0),
        (5, "b_later", 0),
        (5, "b_later", 1),
    ]
    assert [(r["version"], r["new_version"]) for r in repair_log(db_dsn)] == [(2, 5), (2, 5)]
    assert_clean(directory, db_dsn)


def test_journal_of_the_previous_release_still_reads_as_applied(
    db_dsn: str, tmp_path: Path
) -> None:
    """The previous release stored the raw checksum: files with CRLF and trailing blanks."""
    directory = write_migrations(
        tmp_path / "m",
        {"0001_a.sql": "CREATE TABLE a (  \r\n  id int\r\n);\r\nSELECT 'x  \r\n';\r\n"},
    )
    assert run("up", "--dir", str(directory), "--dsn", db_dsn).exit_code == 0
    steps = load_migrations(directory)[0].steps
    # Outside the literal the blanks do not count; inside it they do (both checksums agree).
    assert steps[0].normalized_checksum != steps[0].raw_checksum
    assert steps[1].normalized_checksum == steps[1].raw_checksum
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        for step in steps:
            conn.execute(
                "UPDATE safemigrate_history SET checksum = %s WHERE version = 1 AND step = %s",
                [step.raw_checksum, step.index],
            )
    assert_clean(directory, db_dsn)
    lines = run("repair", "--dir", str(directory), "--dsn", db_dsn).stdout.splitlines()
    assert lines[0].startswith("target: ")
    assert lines[1].startswith("nothing to repair")


def test_repair_refuses_while_another_run_holds_the_run_lock(db_dsn: str, tmp_path: Path) -> None:
    directory = used_example(db_dsn, tmp_path)
    (directory / "0009_order_total_trigger.sql").unlink()
    before = journal_rows(db_dsn)
    with psycopg.connect(db_dsn, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s, %s)", lock_keys("public.safemigrate_history"))
        refused = run("repair", "--dir", str(directory), "--dsn", db_dsn)
        assert refused.exit_code == 3, refused.output
        assert "run lock" in refused.stderr
        # A dry run takes no lock.
        dry = run("repair", "--dir", str(directory), "--dsn", db_dsn, "--dry-run")
        assert dry.exit_code == 0, dry.output
    assert journal_rows(db_dsn) == before
    assert repair_log(db_dsn) == []


def test_repair_bad_input_and_connection_exit_codes(db_dsn: str, tmp_path: Path) -> None:
    missing = run("repair", "--dir", str(tmp_path / "nowhere"), "--dsn", db_dsn)
    assert missing.exit_code == 2
    unreachable = run(
        "repair",
        "--dir",
        str(EXAMPLE),
        "--dsn",
        "postgresql://nobody@127.0.0.1:1/x?connect_timeout=2",
    )
    assert unreachable.exit_code == 6, unreachable.output


def test_empty_directory_on_a_used_database_is_one_clear_refusal(
    db_dsn: str, tmp_path: Path
) -> None:
    used_example(db_dsn, tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    before = journal_rows(db_dsn)
    for command in ("status", "up", "repair", "plan"):
        result = run(command, "--dir", str(empty), "--dsn", db_dsn)
        assert result.exit_code == 2, (command, result.output)
        assert (
            f"no migration files in {empty} but the journal records 10 applied migrations: "
            "is --dir right?"
        ) in result.stderr
        assert "gone" not in result.output
    assert journal_rows(db_dsn) == before
