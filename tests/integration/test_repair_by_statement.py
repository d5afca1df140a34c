"""Issue 21: repair, up and status compare an edited applied step with the statements it ran,
as the journal records them (one checksum per statement), not with one checksum per step.
Each case failed on main 2ba832f, which knew only the step's checksum: SQL that never ran
accepted as applied (the INSERT into ``hits`` never happens), a statement that ran run again
(``acc.n`` counted twice), or a harmless edit of a step of more than 60 statements refused.
Real server, through the CLI; the effects are counted."""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.support.runner import journal_rows, run, write_migrations

TABLES = (
    "CREATE TABLE acc (id int PRIMARY KEY, n int);\nINSERT INTO acc VALUES (1, 100);\n"
    "CREATE TABLE hits (id serial PRIMARY KEY, what text);\n"
)
A = "UPDATE acc SET n = n + 10;\n"
B = "UPDATE acc SET n = n + 1;\n"
C = "UPDATE acc SET n = n * 2;\n"
NEW = "INSERT INTO hits (what) VALUES ('never ran');\n"
START, END = "-- safemigrate: group-start\n", "-- safemigrate: group-end\n"


def _group(*statements: str) -> str:
    return START + "".join(statements) + END


def _facts(dsn: str) -> tuple[int, int]:
    """acc.n, and how many rows hits has."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT (SELECT n FROM acc), (SELECT count(*) FROM hits)").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _applied(dsn: str, tmp_path: Path, text: str) -> tuple[Path, tuple[str, ...]]:
    directory = write_migrations(tmp_path / "m", {"0001_t.sql": TABLES, "0002_x.sql": text})
    args = ("--dir", str(directory), "--dsn", dsn)
    first = run("up", *args)
    assert first.exit_code == 0, first.output
    return directory, args


def _journal(dsn: str) -> list[tuple[object, ...]]:
    """(version, step, state, checksum) of every journal row."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(
            "SELECT version, step, state, checksum FROM safemigrate_history ORDER BY 1, 2"
        ).fetchall()


def _refused(args: tuple[str, ...], dsn: str, words: str, *, rerun: bool = False) -> None:
    """repair (with --accept-edited, its dry run too) refuses, exit 2; up refuses, exit 5,
    and status shows it; nothing is recorded or run. The effects are judged first: what main
    did wrong shows as a count (a statement run again, an accepted one that never ran)."""
    before, facts = _journal(dsn), _facts(dsn)
    repairs = [run("repair", *args, "--accept-edited", *dry) for dry in (("--dry-run",), ())]
    up = run("up", *args)
    status = run("status", *args)
    assert _facts(dsn) == facts, "a statement ran again, or one accepted never ran"
    assert _journal(dsn) == before, "the journal records as applied a text that never ran"
    for refused in repairs:
        assert refused.exit_code == 2, refused.output
        assert words in refused.stderr, refused.stderr
        assert ("up would run them again" in refused.stderr) is rerun, refused.stderr
        assert "Traceback" not in refused.output
    assert up.exit_code == 5, up.output
    # up names the first problem; a rerun's hint names where the text is now.
    assert ("take it out of" if rerun else words) in up.stderr, up.stderr
    assert status.exit_code == 5 and words in status.output, status.output


def _accepted(args: tuple[str, ...], dsn: str, words: str) -> None:
    """up and plain repair refuse, saying ``words``; --accept-edited accepts, saying them
    too; then nothing runs again."""
    facts = _facts(dsn)
    up = run("up", *args)
    assert up.exit_code == 5 and words in up.stderr, up.output
    assert "--accept-edited" in up.stderr
    assert run("repair", *args).exit_code == 2
    dry = run("repair", *args, "--accept-edited", "--dry-run")
    assert dry.exit_code == 0 and "accept the current text" in dry.stdout, dry.output
    status = run("status", *args)
    assert words in status.output, status.output
    assert words in dry.stdout, dry.stdout
    accepted = run("repair", *args, "--accept-edited")
    assert accepted.exit_code == 0, accepted.output
    assert words in accepted.stdout, accepted.stdout  # said so where it is accepted
    again = run("up", *args)
    assert again.exit_code == 0 and "nothing to apply" in again.stdout, again.output
    assert _facts(dsn) == facts


def test_reordered_with_a_statement_put_between_is_refused(db_dsn: str, tmp_path: Path) -> None:
    directory, args = _applied(db_dsn, tmp_path, _group(A, B))
    (directory / "0002_x.sql").write_text(_group(B, NEW, A))
    # main: no selection of [B; NEW; A] in order has [A; B]'s checksum: --accept-edited
    # recorded the INSERT as applied, and it never ran.
    _refused(args, db_dsn, "SQL was added inside it: line 3 `INSERT INTO hits")
    assert _facts(db_dsn) == (111, 0)


def test_an_edit_and_a_statement_added_in_one_step_is_refused(db_dsn: str, tmp_path: Path) -> None:
    directory, args = _applied(db_dsn, tmp_path, _group(A, B))
    (directory / "0002_x.sql").write_text(_group(A, B.replace("+ 1", "+ (1)"), NEW))
    _refused(args, db_dsn, "SQL was added inside it: line 4 `INSERT INTO hits")
    assert _facts(db_dsn) == (111, 0)


def test_a_statement_removed_is_accepted_with_accept_edited_saying_so(
    db_dsn: str, tmp_path: Path
) -> None:
    directory, args = _applied(db_dsn, tmp_path, _group(A, B, C))
    (directory / "0002_x.sql").write_text(_group(A, C))
    _accepted(args, db_dsn, "statement 2 of the 3 it ran is no longer in it (it ran")
    assert _facts(db_dsn) == (222, 0)


def test_statements_reordered_are_accepted_with_accept_edited_saying_so(
    db_dsn: str, tmp_path: Path
) -> None:
    directory, args = _applied(db_dsn, tmp_path, _group(A, B, C))
    (directory / "0002_x.sql").write_text(_group(C, A, B))
    _accepted(args, db_dsn, "the statements that ran are all there, in another order")
    assert _facts(db_dsn) == (222, 0)


def test_applied_steps_grouped_into_one_are_accepted_and_not_run_again(
    db_dsn: str, tmp_path: Path
) -> None:
    """main refused it, calling B (which ran as step 2) SQL added that never ran."""
    directory, args = _applied(db_dsn, tmp_path, A + B)
    (directory / "0002_x.sql").write_text(_group(A, B))
    _accepted(args, db_dsn, "line 3 `UPDATE acc SET n = n + 1` ran as step 2")
    assert _facts(db_dsn) == (111, 0)
    assert [r for r in journal_rows(db_dsn) if r[0] == 2] == [(2, 0, "applied")]


def test_an_applied_file_merged_into_another_is_accepted_and_not_run_again(
    db_dsn: str, tmp_path: Path
) -> None:
    """0003 [B] merged into 0002 [A] and its file gone: main called B SQL added that never
    ran; B ran, as 0003."""
    directory, args = _applied(db_dsn, tmp_path, A)
    (directory / "0003_y.sql").write_text(B)
    assert run("up", *args).exit_code == 0
    (directory / "0003_y.sql").unlink()
    (directory / "0002_x.sql").write_text(_group(A, B))
    status = run("status", *args)
    assert "0003_y.sql: applied, but the file is gone; what it ran is in 0002_x.sql step 1" in (
        status.output
    )
    _accepted(args, db_dsn, "line 3 `UPDATE acc SET n = n + 1` ran as 0003_y.sql step 1")
    assert _facts(db_dsn) == (111, 0)
    assert [r[:2] for r in journal_rows(db_dsn) if r[0] > 1] == [(2, 0)]


def test_a_statement_split_into_a_later_file_is_refused(db_dsn: str, tmp_path: Path) -> None:
    """[A; B] applied; A kept in place, B moved to a new file with another new one between:
    not consecutive statements, so main accepted [A] and up ran B again (n 112)."""
    directory, args = _applied(db_dsn, tmp_path, _group(A, B))
    (directory / "0002_x.sql").write_text(A)
    (directory / "0003_other.sql").write_text(NEW)
    (directory / "0004_b.sql").write_text(B)
    _refused(args, db_dsn, "0004_b.sql step 1 (line 1), which is not applied", rerun=True)
    assert _facts(db_dsn) == (111, 0)


def test_group_markers_removed_is_told_a_split(db_dsn: str, tmp_path: Path) -> None:
    """[A; B] applied as one step, its markers removed: B is step 2, which would run. main
    refused it as a split it could only guess ("may have split")."""
    directory, args = _applied(db_dsn, tmp_path, _group(A, B))
    (directory / "0002_x.sql").write_text(A + B)
    _refused(
        args,
        db_dsn,
        "statements it ran are now step 2 (line 2), which would run: the edit split the "
        "applied step",
    )
    assert _facts(db_dsn) == (111, 0)


def test_a_gone_step_reordered_into_a_new_file_is_refused(db_dsn: str, tmp_path: Path) -> None:
    """[A; B] applied; its file gone and [B; A] in a new one: main forgot it and up ran both
    again (n 122)."""
    directory, args = _applied(db_dsn, tmp_path, _group(A, B))
    (directory / "0002_x.sql").unlink()
    (directory / "0005_moved.sql").write_text(_group(B, A))
    before = _journal(db_dsn)
    repairs = [run("repair", *args, *options) for options in ((), ("--accept-edited",))]
    up = run("up", *args)
    assert _facts(db_dsn) == (111, 0), "0002's statements ran again"
    assert _journal(db_dsn) == before
    for refused in repairs:
        assert refused.exit_code == 2, refused.output
        assert "0005_moved.sql step 1 (line 2), which is not applied" in refused.stderr
        assert "up would run them again" in refused.stderr
    assert up.exit_code == 5, up.output


def _inserts(count: int) -> list[str]:
    return [f"INSERT INTO hits (what) VALUES ('{i}');\n" for i in range(count)]


def test_a_step_of_more_than_60_statements_is_compared_statement_by_statement(
    db_dsn: str, tmp_path: Path
) -> None:
    many = _inserts(75)
    directory, args = _applied(db_dsn, tmp_path, _group(*many))
    assert _facts(db_dsn) == (100, 75)
    # One statement added among them: refused, named (main: "too long to compare").
    (directory / "0002_x.sql").write_text(_group(*many[:50], A, *many[50:]))
    _refused(args, db_dsn, "SQL was added inside it: line 52 `UPDATE acc SET n = n + 10`")
    # A keyword's case edited: accepted (main refused it as too long to compare).
    edited = [*many[:10], many[10].replace("INSERT", "insert"), *many[11:]]
    (directory / "0002_x.sql").write_text(_group(*edited))
    _accepted(args, db_dsn, "line 12 `insert INTO hits (what) VALUES ('10')` is not statement 11")
    assert _facts(db_dsn) == (100, 75)
