"""Property tests: hostile and broken input never crashes the library.

Whatever a migration file, a migrations directory, a duration, a directive, a config file, an
environment variable or a flag holds, the library either accepts it or raises a
SafemigrateError whose exit_code is 2 (bad input) and whose message is one line: never
another exception (which the CLI would show as a traceback with exit 1).

Runs are derandomized (the same examples every time, so CI is repeatable); set
``SAFEMIGRATE_HYPOTHESIS_EXPLORE=1`` to draw new ones.

The fixed-example tests at the end pin inputs that once crashed the library (an unclosed
statement, quoted newlines, huge exponents, numbers past Python's digit limit).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import hypothesis.errors
import pglast
import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from safemigrate.core.durations import UNITS_MS, parse_duration
from safemigrate.core.errors import ExitCode, SafemigrateError
from safemigrate.core.model import TxMode
from safemigrate.lint.walker import lint_text
from safemigrate.planning.migrations import load_migrations
from safemigrate.planning.safer_forms import build_steps, parse_file
from safemigrate.settings.config import KEYS, Settings, load_settings
from safemigrate.source import FILENAME_PATTERN

T = TypeVar("T")

PROPERTIES = settings(
    max_examples=200,
    deadline=None,
    database=None,
    derandomize=not os.environ.get("SAFEMIGRATE_HYPOTHESIS_EXPLORE"),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def outcome(call: Callable[[], T]) -> T | SafemigrateError:
    """The result of ``call()``, or the SafemigrateError it raised, checked to be bad input.

    Any other exception propagates and fails the property.
    """
    try:
        result = call()
    except SafemigrateError as err:
        _event(f"bad input: {type(err).__name__}")
        assert err.exit_code == ExitCode.BAD_INPUT, (err.exit_code, err.message)
        assert err.message and err.message.strip(), "an empty message"
        assert "\n" not in err.message and "\r" not in err.message, err.message
        return err
    _event("accepted")
    return result


def _event(value: str) -> None:
    # hypothesis records events only inside a @given test; fixed-example tests call outcome()
    # too.
    with contextlib.suppress(hypothesis.errors.InvalidArgument):
        event(value)


# ------------------------------------------------------------------------------------------
# Parse errors, for the properties below


def _pglast_error(text: str) -> pglast.parser.ParseError | None:
    try:
        pglast.parse_sql(text)
    except pglast.parser.ParseError as err:
        return err
    return None


def hits_known_sql_bug(text: str) -> bool:
    """No known bug is left to assume away (kept so the properties read the same)."""
    return False


# ------------------------------------------------------------------------------------------
# Migration file contents

WORDS = [
    "SELECT 1",
    "SELECT",
    "1",
    ";",
    "(",
    ")",
    ",",
    "t",
    "a",
    '"Weird ""name"""',
    "'it''s'",
    "E'\\n'",
    "$$",
    "$tag$ body; $tag$",
    "--",
    "/*",
    "*/",
    "/* a comment; */",
    "-- a comment;",
    "BEGIN",
    "START TRANSACTION",
    "COMMIT",
    "END",
    "ROLLBACK",
    "ABORT",
    "COMMIT AND CHAIN",
    "SAVEPOINT s",
    "RELEASE SAVEPOINT s",
    "PREPARE TRANSACTION 'x'",
    "COMMIT PREPARED 'x'",
    "CREATE TABLE t (id int PRIMARY KEY, a int)",
    "CREATE TABLE IF NOT EXISTS t (a int)",
    "CREATE TABLE u AS SELECT 1 AS x",
    "CREATE INDEX ON t (a)",
    "CREATE INDEX t_a ON t (a) WHERE a > 0",
    "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_a ON t (lower(a::text))",
    "CREATE INDEX ON p (a)",
    "DROP INDEX t_a",
    "DROP INDEX CONCURRENTLY IF EXISTS t_a, t_b",
    "REINDEX INDEX CONCURRENTLY t_a",
    "REINDEX TABLE t",
    "VACUUM t",
    "VACUUM FULL",
    "ALTER TABLE t ADD COLUMN c int",
    "ALTER TABLE t ALTER COLUMN a SET NOT NULL",
    "ALTER TABLE p DETACH PARTITION p1 CONCURRENTLY",
    "ALTER TYPE e ADD VALUE 'x'",
    "ALTER SYSTEM SET work_mem = '1MB'",
    "CREATE DATABASE d",
    "SET timezone = 'UTC'",
    "SET LOCAL lock_timeout = '1s'",
    "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
    "LOCK TABLE t",
    "UPDATE t SET a = 1",
    "DELETE FROM t",
    "DO $$ BEGIN PERFORM 1; END $$",
    "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$",
    "COPY t FROM STDIN",
    "\\",
    "\ufeff",
    "\x00",
    "é",
    "\U0001d518",
]
DIRECTIVE_WORDS = [
    "group-start",
    "group-end",
    "no-retry",
    "lock-timeout=1s",
    "lock-timeout=0",
    "lock-timeout=forever",
    "statement-timeout=0",
    "statement-timeout=250ms",
    "max-attempts=3",
    "max-attempts=0",
    "max-attempts=1001",
    "max-attempts=x",
    "allow rename -- a reason",
    "allow",
    "please-be-careful",
    "lock-timeout",
    "=",
    "",
]


@st.composite
def directive_lines(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(DIRECTIVE_WORDS), max_size=3))
    prefix = draw(st.sampled_from(["-- safemigrate: ", "--safemigrate:", "-- safemigrate:", "  "]))
    return prefix + " ".join(words)


sql_ish = st.lists(
    st.one_of(st.sampled_from(WORDS), directive_lines(), st.text(max_size=8)),
    max_size=30,
).flatmap(
    lambda parts: st.lists(
        st.sampled_from([" ", "\n", "", ";\n", "\r\n", "\t"]),
        min_size=len(parts),
        max_size=len(parts),
    ).map(lambda seps: "".join(p + s for p, s in zip(parts, seps, strict=True)))
)


#: Statements that are fine on their own.
STATEMENTS = [
    w
    for w in WORDS
    if len(w) > 8
    and w.startswith(
        ("CREATE", "ALTER", "DROP", "REINDEX", "VACUUM", "SET ", "LOCK", "UPDATE", "DO")
    )
    and "TRANSACTION" not in w
]
#: Mostly whole statements, each ended by a semicolon, with directives and noise between them.
plausible_sql = st.lists(
    st.one_of(
        st.sampled_from(STATEMENTS).map(lambda s: s + ";\n"),
        st.sampled_from(STATEMENTS).map(lambda s: s + ";\n"),
        st.sampled_from(STATEMENTS).map(lambda s: "BEGIN;\n" + s + ";\nCOMMIT;\n"),
        st.sampled_from(["-- safemigrate: group-start\n", "-- safemigrate: group-end\n"]),
        directive_lines().map(lambda s: s + "\n"),
        st.sampled_from(WORDS).map(lambda s: s + " "),
    ),
    min_size=1,
    max_size=12,
).map("".join)


def check_steps(text: str) -> None:
    result = outcome(lambda: build_steps("m/0001_x.sql", text))
    if isinstance(result, SafemigrateError):
        assert result.message.startswith("m/0001_x.sql"), result.message
        return
    assert result, "no steps, and no error"
    assert [s.index for s in result] == list(range(len(result)))
    for step in result:
        # Only an empty migration (a file without statements) has a step without statements,
        # and then it is its only step.
        assert step.statements or (result == [step] and step.empty)
        for statement in step.statements:
            assert statement.text in text
        if step.mode is TxMode.AUTOCOMMIT:
            assert len(step.statements) == 1
        options = step.options
        assert options.lock_timeout_ms is None or options.lock_timeout_ms > 0
        assert options.max_attempts is None or 1 <= options.max_attempts <= 1000
    # The same text always gives the same steps (checksums are what drift detection compares).
    again = build_steps("m/0001_x.sql", text)
    assert [s.checksum for s in again] == [s.checksum for s in result]


@PROPERTIES
@given(st.one_of(sql_ish, plausible_sql))
@example("CREATE INDEX ON t (a);\n-- safemigrate: group-start\nSELECT 1;\n")
@example("BEGIN;\nCREATE INDEX CONCURRENTLY i ON t (a);\nCOMMIT;\n")
def test_sql_ish_migration_text_is_accepted_or_bad_input(text: str) -> None:
    assume(not hits_known_sql_bug(text))
    check_steps(text)


@PROPERTIES
@given(st.one_of(sql_ish, plausible_sql))
@example("-- safemigrate: bogus\nCOMMIT;\nBEGIN;\nVACUUM t;\n")
def test_runner_and_linter_read_a_file_the_same_way(text: str) -> None:
    """The runner raises the parse's first problem; the linter reports each one (or, for a
    statement that cannot run in a block, its rule does) and is bad input exactly when the
    runner refuses the file for another reason."""
    assume(not hits_known_sql_bug(text))
    parsed = parse_file("0001_x.sql", text)
    result = outcome(lambda: build_steps("0001_x.sql", text))
    if isinstance(result, SafemigrateError):
        assert parsed.problems and result.message == parsed.problems[0].error().message
    else:
        assert parsed.problems == () and result == list(parsed.steps)
    report = lint_text("0001_x.sql", text)
    refusals = [p for p in parsed.problems if p.kind != "non-transactional-in-block"]
    invalid = [f for f in report.findings if f.rule == "invalid-migration-file"]
    assert sorted((f.line, f.message) for f in invalid) == sorted(
        {(p.line or 1, p.message) for p in refusals}
    )
    assert report.bad_input == bool(refusals)
    lines = {f.line for f in report.findings if f.rule == "non-transactional-in-transaction"}
    assert {p.line for p in parsed.problems if p.kind == "non-transactional-in-block"} <= lines


@PROPERTIES
@given(st.text(max_size=200))
def test_any_unicode_migration_text_is_accepted_or_bad_input(text: str) -> None:
    assume(not hits_known_sql_bug(text))
    check_steps(text)


@PROPERTIES
@given(st.lists(directive_lines(), min_size=1, max_size=3), st.sampled_from(WORDS[:1] + WORDS[30:]))
def test_random_directives_are_accepted_or_bad_input(lines: list[str], statement: str) -> None:
    text = "\n".join([*lines, statement + ";", ""])
    assume(not hits_known_sql_bug(text))
    check_steps(text)


# ------------------------------------------------------------------------------------------
# Migration directories: file names and raw bytes

NAME_CHARS = st.characters(
    exclude_categories=["Cs"], exclude_characters="/\x00\n\r", max_codepoint=0x1F600
)
file_names = st.one_of(
    st.from_regex(r"\A[0-9]{0,22}_?[A-Za-z0-9_.\- ]{0,12}\.(sql|SQL|Sql|txt)\Z"),
    st.text(NAME_CHARS, min_size=1, max_size=20).map(lambda s: s + ".sql"),
    st.text(NAME_CHARS, min_size=1, max_size=20),
).filter(lambda n: n not in (".", "..") and len(n.encode()) < 200)
contents = st.one_of(
    st.binary(max_size=80),
    sql_ish.map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"SELECT 1;\n", b"\xef\xbb\xbfSELECT 1;", b"SELECT '\xff';", b""]),
)


@PROPERTIES
@given(st.lists(st.tuples(file_names, contents), max_size=5))
def test_any_migrations_directory_is_accepted_or_bad_input(files: list[tuple[str, bytes]]) -> None:
    for _, data in files:
        with_text = data.decode("utf-8", "replace")
        assume(not hits_known_sql_bug(with_text.removeprefix("\ufeff")))
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        for name, data in files:
            (directory / name).write_bytes(data)
        result = outcome(lambda: load_migrations(directory))
        if isinstance(result, SafemigrateError):
            return
        versions = [m.version for m in result]
        assert versions == sorted(set(versions))
        for migration in result:
            assert FILENAME_PATTERN.match(migration.path.name)
            assert migration.steps


# ------------------------------------------------------------------------------------------
# Durations

durations_text = st.one_of(
    st.text(max_size=20),
    st.from_regex(
        r"\A\s*-?[0-9]{0,12}(\.[0-9]{0,6})?([eE][+-]?[0-9]{1,3})?\s*(ms|s|min|h|d|us|m|)\s*\Z"
    ),
)


@PROPERTIES
@given(st.one_of(durations_text, st.integers(), st.floats(), st.booleans(), st.none()))
def test_any_duration_is_a_number_of_milliseconds_or_bad_input(value: Any) -> None:
    result = outcome(lambda: parse_duration(value, key="--lock-timeout"))
    if isinstance(result, SafemigrateError):
        assert result.message.startswith("--lock-timeout"), result.message
        return
    assert isinstance(result, int)
    assert 0 <= result <= 2**31 - 1


@PROPERTIES
@given(st.integers(0, 10**7), st.sampled_from(sorted(UNITS_MS)))
def test_a_whole_number_and_a_unit_give_exactly_that_many_milliseconds(
    number: int, unit: str
) -> None:
    expected = number * UNITS_MS[unit]
    result = outcome(lambda: parse_duration(f"{number}{unit}", key="k"))
    if expected > 2**31 - 1:
        assert isinstance(result, SafemigrateError)
    else:
        assert result == expected


# ------------------------------------------------------------------------------------------
# Configuration: files, environment, flags

CONNECTION_KEYS = ["dsn", "password", "database_url", "url"]
config_keys = st.sampled_from([*KEYS, *CONNECTION_KEYS, "lock_timout", "Lock_Timeout", ""])
_DURATION_VALUES = st.sampled_from(
    ['"2s"', '"500ms"', '"0"', '"1min"', '"15min"', '"1h"', '"30s"', '"10ms"', '"1d"', "3", "0"]
)


def _quoted(values: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return values.map(lambda s: json.dumps(s, ensure_ascii=False))


#: Values of the right shape for each key (most valid, some just out of range).
PLAUSIBLE: dict[str, st.SearchStrategy[str]] = {
    **{key: _DURATION_VALUES for key in KEYS if key.endswith(("timeout", "backoff_initial"))},
    "backoff_initial": _DURATION_VALUES,
    "backoff_max": _DURATION_VALUES,
    "deadline": _DURATION_VALUES,
    "wait_for_lock": _DURATION_VALUES,
    "cancel_blockers_grace": _DURATION_VALUES,
    "max_attempts": st.integers(-2, 1002).map(str),
    "pg_version": st.integers(7, 32).map(str),
    "blocker_query_length": st.integers(5, 10_005).map(str),
    **{
        key: st.sampled_from(["true", "false", '"true"'])
        for key in ("allow_out_of_order", "lock_precheck", "redact_queries")
    },
    "cancel_blockers_dry_run": st.sampled_from(["true", "false"]),
    "concurrent_indexes": st.sampled_from(['"rewrite"', '"require"', '"off"', '"maybe"']),
    "version_style": st.sampled_from(['"sequence"', '"timestamp"', '"uuid"']),
    "journal_schema": _quoted(st.text(max_size=70)),
    "journal_table": _quoted(st.text(max_size=70)),
    "application_name": _quoted(st.text(max_size=70)),
    "cancel_blockers": st.sampled_from(
        ['"off"', '"idle-in-transaction:5s"', '"any:1min"', '"any"', '"sometimes:1s"']
    ),
    "cancel_blockers_only": st.sampled_from(['["app", "role"]', "[]", "[1]", '"a,b"']),
    "dir": st.sampled_from(['"migrations"', '"../elsewhere"', '""', '"a\\u0000b"']),
}
config_pairs = config_keys.flatmap(
    lambda key: st.tuples(
        st.just(key),
        st.one_of(PLAUSIBLE[key], PLAUSIBLE[key], PLAUSIBLE[key], toml_values)
        if key in PLAUSIBLE
        else toml_values,
    )
)
toml_scalars = st.one_of(
    st.text(max_size=12).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.sampled_from(['"2s"', '"0"', '"rewrite"', '"idle-in-transaction:5s"', '"public"']),
    st.integers(-(10**12), 10**12).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.booleans().map(lambda b: str(b).lower()),
    st.sampled_from(["nan", "inf", "1979-05-27", "'literal'", '"""multi\nline"""']),
)
toml_values: st.SearchStrategy[Any] = st.recursive(
    toml_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(inner, max_size=2).map(
            lambda items: "{" + ", ".join(f"k{i} = {v}" for i, v in enumerate(items)) + "}"
        ),
    ),
    max_leaves=4,
)
SECRET = "pw-Zq7-never-shown"
EMPTY_KEY = '""'


def check_settings(result: Settings | SafemigrateError) -> None:
    if isinstance(result, SafemigrateError):
        assert SECRET not in result.message, result.message
        return
    assert result.lock_timeout_ms > 0
    assert result.concurrent_lock_timeout_ms > 0
    assert 1 <= result.max_attempts <= 1000
    assert result.backoff_max_ms >= result.backoff_initial_ms
    assert 1 <= len(result.application_name) <= 63


@PROPERTIES
@given(
    st.lists(config_pairs, max_size=4),
    st.sampled_from(["safemigrate.toml", "pyproject.toml", "--config"]),
    st.sampled_from([False, False, False, True]),
)
def test_any_config_file_gives_valid_settings_or_bad_input(
    pairs: list[tuple[str, str]], where: str, with_secret: bool
) -> None:
    lines = [f"{key or EMPTY_KEY} = {value}" for key, value in pairs]
    if with_secret:
        lines.append(f'password = "{SECRET}"')
    body = "\n".join(lines) + "\n"
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        if where == "pyproject.toml":
            (cwd / where).write_text("[tool.safemigrate]\n" + body, encoding="utf-8")
            result = outcome(lambda: load_settings(cwd=cwd, environ={}))
        elif where == "--config":
            (cwd / "other.toml").write_text(body, encoding="utf-8")
            result = outcome(
                lambda: load_settings(cwd=cwd, config_file=Path("other.toml"), environ={})
            )
        else:
            (cwd / where).write_text(body, encoding="utf-8")
            result = outcome(lambda: load_settings(cwd=cwd, environ={}))
        check_settings(result)


@PROPERTIES
@given(st.binary(max_size=120))
def test_a_config_file_of_random_bytes_gives_settings_or_bad_input(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        (cwd / "safemigrate.toml").write_bytes(data)
        check_settings(outcome(lambda: load_settings(cwd=cwd, environ={})))


env_values = st.one_of(
    st.text(max_size=15),
    st.sampled_from(["1s", "0", "-1s", "true", "no", "1000", "1001", " 5 ", "a,b,,c", SECRET]),
)


@PROPERTIES
@given(
    st.dictionaries(st.sampled_from(sorted(KEYS)), env_values, max_size=3),
    st.dictionaries(
        st.sampled_from([*sorted(KEYS), "bogus"]),
        st.one_of(env_values, st.integers(-5, 10**6), st.booleans(), st.none()),
        max_size=3,
    ),
)
def test_any_environment_and_flags_give_valid_settings_or_bad_input(
    env: dict[str, str], flags: dict[str, Any]
) -> None:
    environ = {"SAFEMIGRATE_" + key.upper(): value for key, value in env.items()}
    assume(all("\x00" not in v for v in environ.values()))
    with tempfile.TemporaryDirectory() as folder:
        result = outcome(lambda: load_settings(cwd=Path(folder), environ=environ, overrides=flags))
    if isinstance(result, SafemigrateError):
        # The key at fault is named: an environment variable or a flag.
        assert result.message.startswith(("SAFEMIGRATE_", "--")), result.message
        return
    check_settings(result)


# ------------------------------------------------------------------------------------------
# Inputs that once crashed the library with a traceback instead of a clean exit 2

BIG = "9" * 5000


@pytest.mark.parametrize(
    "text", ["CREATE TABLE t (id int", "SELECT 1;\n(\n", "savepoint"], ids=["paren", "open", "kw"]
)
@pytest.mark.parametrize("function", ["build_steps", "lint_text"])
def test_sql_ending_inside_a_statement_is_bad_input(function: str, text: str) -> None:
    if function == "build_steps":
        err = outcome(lambda: build_steps("0001_x.sql", text))
        assert isinstance(err, SafemigrateError)
    else:
        report = lint_text("0001_x.sql", text)
        assert report is not None


@pytest.mark.parametrize(
    "files",
    [
        {"0001_a.sql": b"/* never closed\nSELECT 1;\n"},
        {"0001_a.sql": b"SELECT 'never closed\n;\n"},
        {"0001_a\nb.sql": b"SELECT 1;\n"},
    ],
    ids=["comment", "string", "file-name"],
)
def test_error_messages_about_files_are_one_line(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        for name, data in files.items():
            (directory / name).write_bytes(data)
        assert isinstance(outcome(lambda: load_migrations(directory)), SafemigrateError)


@pytest.mark.parametrize("text", ["1e999999999s", "1e400000000ms", "5E+999999s"])
def test_a_duration_with_a_huge_exponent_is_bad_input(text: str) -> None:
    assert isinstance(outcome(lambda: parse_duration(text, key="--lock-timeout")), SafemigrateError)


@pytest.mark.parametrize(
    "where", ["toml", "env-max-attempts", "env-pg-version", "directive", "duration-int"]
)
def test_a_number_with_5000_digits_is_bad_input(where: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        if where == "toml":
            (cwd / "safemigrate.toml").write_text(f"max_attempts = {BIG}\n")
            result: object = outcome(lambda: load_settings(cwd=cwd, environ={}))
        elif where == "env-max-attempts":
            env = {"SAFEMIGRATE_MAX_ATTEMPTS": BIG}
            result = outcome(lambda: load_settings(cwd=cwd, environ=env))
        elif where == "env-pg-version":
            env = {"SAFEMIGRATE_PG_VERSION": BIG}
            result = outcome(lambda: load_settings(cwd=cwd, environ=env))
        elif where == "directive":
            text = f"-- safemigrate: max-attempts={BIG}\nSELECT 1;\n"
            result = outcome(lambda: build_steps("0001_x.sql", text))
        else:
            result = outcome(lambda: parse_duration(int(BIG[:4000]) ** 2, key="lock_timeout"))
    assert isinstance(result, SafemigrateError)
