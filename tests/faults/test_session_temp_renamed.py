"""A renamed temporary object is session state a new session lacks, by its new name (issue
21, review 21i E13).

``public.tt`` (1 row) exists; 0001 makes a temporary table, sequence or view and renames it
to the public one's name (``ALTER TABLE x RENAME TO tt``); 0002 reads ``tt``. psql, in one
session, reads the temporary one (PostgreSQL searches pg_temp first for relations: docs,
5.9.3 The Schema Search Path; a rename keeps the schema: RenameRelation in
src/backend/commands/tablecmds.c). Before, the tracker knew the object only by the name it
was made with: on a new session 0002 read public.tt, exit 0. Now the renamed object is kept
by its new name, so the step is refused (exit 1) as for any lost temporary object, and the
old name no longer counts as temporary.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.helpers import refused
from tests.fixtures_db import ConnectFactory
from tests.support.runner import run, write_migrations

#: The temporary object 0001 makes and renames, and what 0002 does with it; psql (one
#: session) reads the temporary one.
RENAMED = {
    "table": (
        "CREATE TEMP TABLE x (id int);\nINSERT INTO x VALUES (5), (6);\n"
        "ALTER TABLE x RENAME TO tt;\n",
        "INSERT INTO base SELECT count(*) + 100 FROM tt;\n",
        "temporary table tt (renamed from x)",
    ),
    "sequence": (
        "CREATE TEMP SEQUENCE x;\nALTER SEQUENCE x RENAME TO tt;\n",
        "INSERT INTO base SELECT nextval('tt');\n",
        "temporary sequence tt (renamed from x)",
    ),
    "view": (
        "CREATE TEMP VIEW x AS SELECT 1 AS id;\nALTER VIEW x RENAME TO tt;\n",
        "INSERT INTO base SELECT count(*) + 100 FROM tt;\n",
        "temporary view tt (renamed from x)",
    ),
}
#: The user's namesakes of each renamed object, made before the run.
NAMESAKES = {
    "table": "CREATE TABLE public.tt (id int); INSERT INTO public.tt VALUES (1)",
    "sequence": "CREATE SEQUENCE public.tt START 100",
    "view": "CREATE VIEW public.tt AS SELECT 1 AS id",
}


@pytest.mark.parametrize("form", sorted(RENAMED))
def test_issue_21_e13_a_renamed_temporary_object_is_lost_state_by_its_new_name(
    form: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    conn.execute("CREATE TABLE base (n bigint)")
    conn.execute(NAMESAKES[form])
    made, use, what = RENAMED[form]
    directory = write_migrations(tmp_path / "m", {"0001_temp.sql": made, "0002_use.sql": use})
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert run(*args, "--target", "0001").exit_code == 0
    failed = refused(run(*args))
    assert failed["error"].startswith("0002_use.sql:1 (step 1): not run: it could depend on ")
    assert f"{what} (made at 0001_temp.sql:1)" in failed["error"]
    assert conn.execute("SELECT count(*) FROM base").fetchone() == (0,)


def test_issue_21_e13_the_old_name_of_a_renamed_temporary_table_is_not_refused(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """After the rename the old name names no temporary object: a later step may make and
    use a table of that name on a new session."""
    conn = connect()
    made = "CREATE TEMP TABLE x (id int);\nALTER TABLE x RENAME TO tt;\n"
    use = "CREATE TABLE x (id int);\nINSERT INTO x VALUES (1);\n"
    directory = write_migrations(tmp_path / "m", {"0001_temp.sql": made, "0002_use.sql": use})
    args = ("up", "--dir", str(directory), "--dsn", db_dsn)
    assert run(*args, "--target", "0001").exit_code == 0
    second = run(*args)
    assert second.exit_code == 0, second.output
    assert conn.execute("SELECT count(*) FROM public.x").fetchone() == (1,)
