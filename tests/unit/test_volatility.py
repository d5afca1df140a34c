"""One list of volatile functions, read by the runner's lock model and by the linter.

PostgreSQL 15, tablecmds.c ATExecAddColumn: a default for which ``contain_volatile_functions``
is true sets AT_REWRITE_DEFAULT_VAL, so ADD COLUMN rewrites the table; a non-volatile default
is evaluated once and stored in the catalog (ALTER TABLE page, Notes). ``plan`` shows the lock
model's answer, ``check`` the linter's: they must not disagree.
"""

from __future__ import annotations

from pathlib import Path

import pglast
import pytest

from safemigrate.core.model import QualifiedName
from safemigrate.lint import volatility as lint_volatility
from safemigrate.statements import volatility
from safemigrate.statements.locks import default_rewrites, lock_needs
from tests.support.runner import run, write_migrations


def _add_column_rewrites(default: str) -> bool:
    node = pglast.parse_sql(f"ALTER TABLE t ADD COLUMN x float DEFAULT {default}")[0].stmt
    return any(need.rewrites for need in lock_needs(node))


@pytest.mark.parametrize(
    "default",
    ["random()", "random_normal()", "gen_random_uuid()", "clock_timestamp()", "nextval('s')"],
)
def test_a_volatile_default_rewrites_the_table(default: str) -> None:
    """pg_proc.provolatile = 'v' for each (random_normal from PostgreSQL 16; nextval is the
    serial columns' default)."""
    assert _add_column_rewrites(default)


@pytest.mark.parametrize("default", ["now()", "statement_timestamp()", "txid_current()", "1"])
def test_a_stable_or_constant_default_does_not_rewrite(default: str) -> None:
    """now, statement_timestamp and txid_current are STABLE: evaluated once."""
    assert not _add_column_rewrites(default)


def test_the_linter_reads_the_same_list() -> None:
    assert vars(lint_volatility)["VOLATILE_FUNCTIONS"] is volatility.VOLATILE_FUNCTIONS
    for name in ("random_normal", "gen_random_uuid", "clock_timestamp", "nextval"):
        node = pglast.parse_sql(f"SELECT {name}()")[0].stmt
        assert lint_volatility.volatile_call(node) == name


def test_the_list_names_only_functions_postgresql_or_its_extensions_ship() -> None:
    """The runner's old list had a name no PostgreSQL ships; txid_current is STABLE."""
    assert "statement_timestamp_random" not in volatility.VOLATILE_FUNCTIONS
    assert "txid_current" not in volatility.VOLATILE_FUNCTIONS


def test_a_function_the_caller_knows_is_volatile_counts() -> None:
    node = pglast.parse_sql("SELECT coalesce(new_token(), 'x')")[0].stmt
    assert volatility.volatile_call(node) is None
    assert volatility.volatile_call(node, lambda name: name == "new_token") == "new_token"


def test_plan_and_check_agree_that_a_random_normal_default_rewrites(tmp_path: Path) -> None:
    """Issue 23's bar: ``plan``'s lock line and ``check``'s finding say the same."""
    directory = write_migrations(
        tmp_path / "migrations",
        {
            "0001_t.sql": "CREATE TABLE t (id int);\n",
            "0002_x.sql": "ALTER TABLE t ADD COLUMN x float DEFAULT random_normal();\n",
        },
    )
    plan = run("plan", "--dir", str(directory), cwd=tmp_path)
    check = run("check", "--dir", str(directory), cwd=tmp_path)
    lock_line = next(line for line in plan.stdout.splitlines() if "lock:" in line)
    assert "ACCESS EXCLUSIVE on t" in lock_line
    assert "rewrite" in lock_line
    assert "add-column-volatile-default" in check.stdout
    assert "rewrites the whole table" in check.stdout


def _trees(sql: str) -> list[object]:
    return [raw.stmt for raw in pglast.parse_sql(sql)]


def test_a_default_calling_a_created_volatile_function_is_volatile() -> None:
    """CREATE FUNCTION page: VOLATILE is the default; STABLE and IMMUTABLE are not volatile,
    and ALTER FUNCTION or DROP FUNCTION change what a later default calls."""
    created = volatility.created_volatile(
        _trees(
            "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$BEGIN RETURN 1; END$$;"
            "CREATE FUNCTION g() RETURNS int LANGUAGE sql VOLATILE AS 'SELECT 1';"
            "CREATE FUNCTION h() RETURNS int LANGUAGE sql STABLE AS 'SELECT 1';"
            "CREATE FUNCTION k() RETURNS int LANGUAGE sql AS 'SELECT 1';"
            "ALTER FUNCTION k() IMMUTABLE;"
            "CREATE FUNCTION d() RETURNS int LANGUAGE sql AS 'SELECT 1';"
            "DROP FUNCTION d();"
        )
    )
    assert created == {"f", "g"}
    default = pglast.parse_sql("SELECT coalesce(f(), 0)")[0].stmt
    assert volatility.volatile_default(default, created)
    assert not volatility.volatile_default(default)
    assert not volatility.volatile_default(pglast.parse_sql("SELECT h()")[0].stmt, created)


def test_a_created_volatile_default_rewrites_the_table() -> None:
    node = pglast.parse_sql("ALTER TABLE t ADD COLUMN x int DEFAULT f()")[0].stmt
    assert default_rewrites(node, {"f"}) == {QualifiedName(None, "t")}
    assert default_rewrites(node, set()) == set()


def test_plan_and_check_agree_that_a_created_volatile_default_rewrites(tmp_path: Path) -> None:
    """Issue 23: a function the migrations created with no volatility clause is VOLATILE, so
    both ``plan``'s lock line and ``check`` say the table is rewritten."""
    directory = write_migrations(
        tmp_path / "migrations",
        {
            "0001_t.sql": (
                "CREATE TABLE t (id int);\n"
                "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$BEGIN RETURN 1; END$$;\n"
            ),
            "0002_x.sql": "ALTER TABLE t ADD COLUMN x int DEFAULT f();\n",
        },
    )
    plan = run("plan", "--dir", str(directory), cwd=tmp_path)
    check = run("check", "--dir", str(directory), cwd=tmp_path)
    lock_lines = [line for line in plan.stdout.splitlines() if "lock:" in line]
    assert "rewrite" in lock_lines[-1]
    assert "ACCESS EXCLUSIVE on t" in lock_lines[-1]
    assert "add-column-volatile-default" in check.stdout
