"""A search_path whose first schemas may not exist puts an unqualified CREATE in pg_temp
(issue 21, review 21i E14).

``public.tt`` (1 row) exists; the migrations ``SET search_path = nosuchschema, pg_temp,
public`` and ``CREATE TABLE tt``: PostgreSQL creates in the path's first schema that exists,
skipping missing ones (``recomputeNamespacePath`` in src/backend/catalog/namespace.c), so tt
is temporary, as psql's one session shows. Before, only ``"$user"`` was taken as possibly
missing: on a new session the step reading tt read public.tt, exit 0. Now a schema not known
to exist (pg_catalog, public, or one the migrations create) counts as possibly missing, and
the step is refused (exit 1) as for any lost temporary table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.helpers import refused
from tests.fixtures_db import ConnectFactory
from tests.support.runner import run, write_migrations

SET = "SET search_path = nosuchschema, pg_temp, public;\n"
MAKE = "CREATE TABLE tt (id int);\nINSERT INTO tt VALUES (5), (6);\n"
USE = "INSERT INTO base SELECT count(*) + 100 FROM tt;\n"
#: The files, the target of the first run, the refused step and where tt was made.
CASES = {
    "one_file": ({"0001_temp.sql": SET + MAKE, "0002_use.sql": USE}, "0001", "0002_use.sql:1"),
    "across_files": (
        {"0001_path.sql": SET, "0002_temp.sql": MAKE, "0003_use.sql": USE},
        "0002",
        "0003_use.sql:1",
    ),
}


@pytest.mark.parametrize("form", sorted(CASES))
def test_issue_21_e14_a_missing_first_schema_puts_the_create_in_pg_temp(
    form: str, tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    conn = connect()
    conn.execute("CREATE TABLE base (n bigint)")
    conn.execute("CREATE TABLE public.tt (id int); INSERT INTO public.tt VALUES (1)")
    files, target, step = CASES[form]
    directory = write_migrations(tmp_path / "m", files)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn, "--format", "json")
    assert run(*args, "--target", target).exit_code == 0
    failed = refused(run(*args))
    assert failed["error"].startswith(f"{step} (step 1): not run: it could depend on ")
    assert "temporary table tt (made at " in failed["error"]
    assert conn.execute("SELECT count(*) FROM base").fetchone() == (0,)


def test_issue_21_e14_a_schema_the_migrations_create_comes_first(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory
) -> None:
    """A schema the migrations made exists: the CREATE goes there, nothing is temporary."""
    conn = connect()
    files = {
        "0001_temp.sql": "CREATE SCHEMA app;\nSET search_path = app, pg_temp, public;\n" + MAKE,
        "0002_use.sql": "INSERT INTO app.tt SELECT count(*) + 100 FROM tt;\n",
    }
    directory = write_migrations(tmp_path / "m", files)
    args = ("up", "--dir", str(directory), "--dsn", db_dsn)
    assert run(*args, "--target", "0001").exit_code == 0
    second = run(*args)
    assert second.exit_code == 0, second.output
    assert conn.execute("SELECT count(*) FROM app.tt").fetchone() == (3,)
