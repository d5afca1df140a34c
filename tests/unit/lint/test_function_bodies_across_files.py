"""A function created in an earlier file is judged where a later file calls it, fires it or
binds it (issue 21 G5, the first half: bodies across files). The lint kept bodies per file, so
`SELECT f()` in 0002 ran f's `set_config('lock_timeout', '0', true)` unjudged."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.api.check_command import check
from safemigrate.core.errors import ExitCode, MigrationFileError
from safemigrate.lint.directory import lint_directory
from safemigrate.lint.findings import Finding
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.pending import pending_steps
from safemigrate.planning.timeout_guard import refuse_unguarding
from safemigrate.settings.config import Settings

from .support import write

_OFF = (
    "CREATE FUNCTION lt_off() RETURNS void LANGUAGE plpgsql AS\n"
    "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); END $$;\n"
)
_HARMLESS = (
    "CREATE OR REPLACE FUNCTION lt_off() RETURNS void LANGUAGE plpgsql AS\n"
    "$$ BEGIN RAISE NOTICE 'fine'; END $$;\n"
)
_TRIGGER_OFF = (
    "CREATE TABLE t (id int PRIMARY KEY);\n"
    "CREATE FUNCTION t_audit() RETURNS trigger LANGUAGE plpgsql AS\n"
    "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); RETURN NEW; END $$;\n"
)


def _directory(tmp_path: Path, files: dict[str, str]) -> Path:
    directory = tmp_path / "m"
    directory.mkdir(exist_ok=True)
    for name, text in files.items():
        write(directory, name, text)
    return directory


def _guard(directory: Path, rule: str = "timeout-guard-off") -> list[Finding]:
    return [f for f in lint_directory(directory).findings if f.rule == rule]


def _where(findings: list[Finding]) -> list[tuple[str, int]]:
    return [(Path(f.file).name, f.line) for f in findings]


@pytest.mark.parametrize(
    "use",
    [
        "SELECT lt_off();\n",
        "DO $$ BEGIN PERFORM lt_off(); END $$;\n",
        "CREATE FUNCTION wrap() RETURNS void LANGUAGE sql AS $$ SELECT lt_off() $$;\n"
        "SELECT wrap();\n",
    ],
    ids=["call", "do-block", "through-another"],
)
def test_a_call_in_a_later_file_judges_the_body_an_earlier_file_created(
    tmp_path: Path, use: str
) -> None:
    directory = _directory(tmp_path, {"0001_f.sql": _OFF, "0002_use.sql": use})
    found = _guard(directory)
    assert _where(found) == [("0002_use.sql", len(use.splitlines()))]
    assert found[0].severity == "error"
    assert "lock_timeout to 0" in found[0].message
    assert "0001_f.sql:1" in found[0].message  # where the body came from


def test_a_procedure_from_an_earlier_file_is_judged_at_its_call(tmp_path: Path) -> None:
    procedure = "CREATE PROCEDURE p_off() LANGUAGE sql AS $$ SET LOCAL lock_timeout = 0 $$;\n"
    directory = _directory(tmp_path, {"0001_p.sql": procedure, "0002_c.sql": "CALL p_off();\n"})
    assert _where(_guard(directory)) == [("0002_c.sql", 1)]


def test_a_trigger_from_earlier_files_is_judged_at_a_later_write(tmp_path: Path) -> None:
    files = {
        "0001_fn.sql": _TRIGGER_OFF,
        "0002_trigger.sql": (
            "CREATE TRIGGER t_audit BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION t_audit();\n"
        ),
        "0003_write.sql": "INSERT INTO t VALUES (1);\n",
    }
    assert _where(_guard(_directory(tmp_path, files))) == [("0003_write.sql", 1)]


@pytest.mark.parametrize(
    ("bind", "line"),
    [
        ("CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION et_off();\n", 1),
        ("CREATE AGGREGATE agg(int) (SFUNC = int4pl, STYPE = int, FINALFUNC = et_off);\n", 1),
    ],
    ids=["event-trigger", "aggregate"],
)
def test_a_binding_in_a_later_file_judges_the_earlier_body(
    tmp_path: Path, bind: str, line: int
) -> None:
    body = (
        "CREATE FUNCTION et_off() RETURNS event_trigger LANGUAGE plpgsql AS\n"
        "$$ BEGIN PERFORM set_config('lock_timeout', '0', true); END $$;\n"
    )
    found = _guard(_directory(tmp_path, {"0001_f.sql": body, "0002_bind.sql": bind}))
    assert _where(found) == [("0002_bind.sql", line)]
    assert "has PostgreSQL call et_off()" in found[0].message
    assert "0001_f.sql:1" in found[0].message and "lock_timeout to 0" in found[0].message


def test_an_event_trigger_on_a_harmless_earlier_function_is_accepted(tmp_path: Path) -> None:
    # Before: its body was "not in the migrations" (another file) and the CREATE was refused.
    body = (
        "CREATE FUNCTION et_ok() RETURNS event_trigger LANGUAGE plpgsql AS\n"
        "$$ BEGIN RAISE NOTICE 'ddl'; END $$;\n"
    )
    bind = "CREATE EVENT TRIGGER et ON ddl_command_start EXECUTE FUNCTION et_ok();\n"
    assert _guard(_directory(tmp_path, {"0001_f.sql": body, "0002_bind.sql": bind})) == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"0001_f.sql": _OFF, "0002_r.sql": _HARMLESS, "0003_c.sql": "SELECT lt_off();\n"}, []),
        (
            {
                "0001_f.sql": _HARMLESS.replace("OR REPLACE ", ""),
                "0002_r.sql": _OFF.replace("CREATE", "CREATE OR REPLACE"),
                "0003_c.sql": "SELECT lt_off();\n",
            },
            [("0003_c.sql", 1)],
        ),
    ],
    ids=["replaced-by-harmless", "replaced-by-harmful"],
)
def test_the_newest_create_or_replace_is_the_body_judged(
    tmp_path: Path, files: dict[str, str], expected: list[tuple[str, int]]
) -> None:
    found = _guard(_directory(tmp_path, files))
    assert _where(found) == expected
    assert all("0002_r.sql:1" in f.message for f in found)


def test_an_alter_function_set_in_a_later_file_is_judged_at_the_next_call(
    tmp_path: Path,
) -> None:
    files = {
        "0001_f.sql": _HARMLESS.replace("OR REPLACE ", ""),
        "0002_alter.sql": "ALTER FUNCTION lt_off() SET lock_timeout = 0;\n",
        "0003_call.sql": "SELECT lt_off();\n",
    }
    assert _where(_guard(_directory(tmp_path, files))) == [("0003_call.sql", 1)]


def test_a_cached_check_gives_the_same_finding_and_an_edit_of_the_earlier_file_counts(
    tmp_path: Path,
) -> None:
    directory = _directory(tmp_path, {"0001_f.sql": _OFF})
    settings = Settings(dir=directory, check_cache=tmp_path / "cache")
    check(settings)  # the cache now holds 0001's findings and the schema after it
    write(directory, "0002_use.sql", "SELECT lt_off();\n")
    cold = Settings(dir=directory, check_cache="off")
    warm = check(settings)  # 0002 alone judged, on the saved schema
    assert warm == check(cold)
    assert [(Path(f.file).name, f.rule) for f in warm.findings] == [
        ("0002_use.sql", "timeout-guard-off")
    ]
    write(directory, "0001_f.sql", _HARMLESS.replace("OR REPLACE ", ""))
    assert check(settings).findings == [] == check(cold).findings


def test_up_refuses_a_call_of_an_earlier_pending_files_function(tmp_path: Path) -> None:
    directory = _directory(tmp_path, {"0001_f.sql": _OFF, "0002_use.sql": "SELECT lt_off();\n"})
    planned = pending_steps(load_migrations(directory), [], target=None)
    with pytest.raises(MigrationFileError) as caught:
        refuse_unguarding(planned, Settings(dir=directory))
    assert caught.value.exit_code == ExitCode.BAD_INPUT
    assert caught.value.path is not None and caught.value.path.endswith("0002_use.sql")
    assert caught.value.line == 1
