"""Settings for a run: defaults, then a config file, then the environment, then flags.

Each later source overrides the earlier ones key by key:

1. the defaults of :class:`Settings`;
2. a config file: ``--config FILE``, else ``safemigrate.toml`` in the working directory, else
   the ``[tool.safemigrate]`` table of ``pyproject.toml`` in the working directory;
3. ``SAFEMIGRATE_<KEY>`` environment variables, for the keys in :data:`KEYS` only;
4. values given as command-line flags (``overrides``).

Every bad key or value raises :class:`~safemigrate.core.errors.ConfigError` with a one-line message
that starts with where the value came from: the file, the environment variable or the flag.
The database connection string is deliberately not a setting, so no secret ever passes through
this module; it must not import psycopg or click.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, get_args

from ..core.durations import format_duration, parse_duration
from ..core.errors import ConfigError
from ..core.model import DEFAULT_PG_VERSION, ConcurrentIndexes, SafeRewrites
from ..core.sizes import parse_size

VersionStyle = Literal["sequence", "timestamp"]
#: What up, plan and rehearse do with lint findings on pending steps (see safemigrate.gate).
LintGate = Literal["off", "warn", "error"]
#: How the migrations directory is laid out: safemigrate's own, another tool's, or detected.
Layout = Literal[
    "safemigrate", "auto", "dbmate", "yoyo", "golang-migrate", "sqlx", "diesel", "flyway", "prisma"
]


#: After the switch from another tool: keep recording applied migrations in its history table
#: (``write``), or leave that table as the switch found it (``leave``).
ToolHistory = Literal["write", "leave"]

CancelKind = Literal["idle-in-transaction", "any"]
#: The check_cache values that are not a directory.
CheckCacheMode = Literal["auto", "off"]


@dataclass(frozen=True)
class CancelRule:
    """The ``cancel_blockers`` setting: which root blockers are candidates at all.

    ``idle-in-transaction:DUR`` touches only sessions idle in a transaction for longer than DUR;
    ``any:DUR`` also touches active queries running for longer than DUR (explicit opt-in).
    """

    kind: CancelKind
    min_age_ms: int

    def __str__(self) -> str:
        return f"{self.kind}:{format_duration(self.min_age_ms)}"


def parse_cancel_rule(text: str, *, where: str) -> CancelRule | None:
    """Parse ``off``, ``idle-in-transaction:DUR`` or ``any:DUR``; None for off.

    ``where`` names the value's source (file key, variable or flag) in the error.
    """
    value = text.strip()
    if value == "off":
        return None
    kind, sep, duration = value.partition(":")
    if kind not in ("idle-in-transaction", "any") or not sep:
        raise ConfigError(
            f"{where}: must be 'off', 'idle-in-transaction:DURATION' or 'any:DURATION', "
            f"not {value[:40]!r}"
        )
    min_age_ms = parse_duration(duration, key=where)
    return CancelRule("any" if kind == "any" else "idle-in-transaction", min_age_ms)


def allow_list(raw: Sequence[str]) -> tuple[str, ...]:
    """Normalise an allow-list of application names or roles: stripped, sorted, no blanks."""
    return tuple(sorted({item.strip() for item in raw if item.strip()}))


@dataclass(frozen=True)
class Settings:
    """The settings of one run. Durations are whole milliseconds.

    :func:`load_settings` builds and validates these; a ``Settings`` built directly is not
    validated. ``load_settings`` returns ``dir`` already joined to the directory it is relative
    to (the config file's directory, or the working directory).
    """

    dir: Path = Path("migrations")
    # The runner never runs a step without a lock timeout, hence > 0.
    lock_timeout_ms: int = 2_000
    # 0 = no statement timeout.
    statement_timeout_ms: int = 900_000
    # For CREATE/DROP INDEX CONCURRENTLY and the like; > 0.
    concurrent_lock_timeout_ms: int = 300_000
    # 0 = no statement timeout.
    concurrent_statement_timeout_ms: int = 14_400_000
    max_attempts: int = 10
    backoff_initial_ms: int = 500
    backoff_max_ms: int = 30_000
    # For the whole run; None = no deadline.
    deadline_ms: int | None = None
    # How long to wait for another run's run lock; 0 = fail at once.
    wait_for_lock_ms: int = 0
    allow_out_of_order: bool = False
    concurrent_indexes: ConcurrentIndexes = "rewrite"
    safe_rewrites: SafeRewrites = "rewrite"
    journal_schema: str = "public"
    journal_table: str = "safemigrate_history"
    application_name: str = "safemigrate"
    version_style: VersionStyle = "sequence"
    # Another tool's directory read in place, and its history table adopted (source/layouts).
    layout: Layout = "safemigrate"
    # Every migration applied is also recorded in the adopted tool's history table, in the
    # transaction of its last step, so that the old tool finds nothing to apply ("leave": no).
    tool_history: ToolHistory = "write"
    # The layout's tool's history table when the tool keeps it under another name or schema
    # (dbmate --migrations-table, yoyo's schema=, golang-migrate's x-migrations-table):
    # (schema, table), schema None = found on the search_path. None = the tool's default name.
    tool_history_table: tuple[str | None, str] | None = None
    # Check pg_locks before a step that would block writes; back off instead of queueing
    # behind a transaction that already held the table longer than the lock timeout.
    lock_precheck: bool = True
    # A holder counts as long once its transaction is older than this or the lock timeout,
    # whichever is shorter: the runner waits for young transactions, not for long ones.
    lock_precheck_age_ms: int = 500
    # While a step waits for its lock and someone queues behind it, the step cancels its own
    # statement after this long and lets the queue through (see blockers/queue.py); 0 = never.
    yield_after_ms: int = 50
    # How long one step may wait politely (pre-check back-offs, yields, waits for holders)
    # before it gives up; lock timeouts and deadlocks are counted by max_attempts instead.
    lock_wait_budget_ms: int = 600_000
    redact_queries: bool = False
    blocker_query_length: int = 200
    # "idle-in-transaction:DUR" or "any:DUR" parsed; None = "off".
    cancel_blockers: CancelRule | None = None
    cancel_blockers_only: tuple[str, ...] = ()
    cancel_blockers_grace_ms: int = 5_000
    cancel_blockers_dry_run: bool = False
    # How long to keep trying to reconnect after the connection is lost mid-run; 0 = never.
    reconnect_timeout_ms: int = 30_000
    # The statement timeout of the runner's own statements (journal, run lock, catalog reads);
    # their lock timeout is lock_timeout. > 0.
    housekeeping_timeout_ms: int = 30_000
    # The highest lock_timeout a migration may set itself (SET, set_config, ALTER ROLE/DATABASE
    # ... SET) without an allow comment; 0 and RESET are always refused. > 0.
    max_lock_timeout_ms: int = 10_000
    # The same for statement_timeout; 0 = no ceiling (0 and RESET allowed, check warns).
    max_statement_timeout_ms: int = 14_400_000
    # The PostgreSQL major version lint rules assume (check, plan, the lint gate).
    pg_version: int = DEFAULT_PG_VERSION
    # Connect only to a database named by --dsn, SAFEMIGRATE_DSN or DATABASE_URL, never through
    # libpq's PG* variables. Off by default: PG* variables name a database deliberately too.
    require_dsn: bool = False
    # Refuse to apply while an unsuppressed error finding is on a pending step (see gate.py).
    lint_gate: LintGate = "error"
    # Migrations up to this version are never judged by the lint gate (an adopted history run
    # on a fresh database); None = every pending migration is judged.
    lint_gate_after: int | None = None
    # What applied steps of migrations up to this version kept in their session (a temporary
    # table, a setting changed out of sight, ...) is not refused when a new session lacks it:
    # the operator accepted that later steps run without it. None = every such loss refuses.
    accept_lost_session_state: int | None = None
    # With a database, a lock-cost finding on an existing table smaller than this (heap and
    # TOAST, plus its indexes for a rewrite) does not block: its lock is held for
    # milliseconds. 0 = every existing table is judged as large. See gate.py.
    gate_small_table_bytes: int = 8 * 1024 * 1024
    # Before each batch of a batched step, wait while a standby's replay lags more; 0 = no limit.
    max_replica_lag_ms: int = 0
    # Where check keeps its results between runs (lint/cache.py): "auto" (the user's cache
    # directory), "off", or a directory.
    check_cache: Path | CheckCacheMode = "auto"
    # Which file the settings came from; None if none. Not a key.
    config_file: Path | None = None
    # What a person should know about how the settings were read (an unknown SAFEMIGRATE_*
    # variable, ignored); the CLI prints each on stderr. Not a key.
    warnings: tuple[str, ...] = ()


#: Every configuration key, with its one-line description: the meaning column of
#: docs/configuration.md, which tools/docs_reference.py generates from it (see key_facts).
KEYS: Mapping[str, str] = MappingProxyType(
    {
        "dir": "Directory of the migration files (relative to the config file).",
        "lock_timeout": "How long a step waits for a lock before it is retried (> 0).",
        "statement_timeout": "Longest a step may run (0 = no limit).",
        "concurrent_lock_timeout": "Lock timeout of CONCURRENTLY and other autocommit steps.",
        "concurrent_statement_timeout": "Statement timeout of those steps (0 = none).",
        "max_attempts": (
            "Attempts per step on lock timeout, deadlock or lost connection (1 to 1000)."
        ),
        "backoff_initial": "Pause before the first retry; doubles each retry.",
        "backoff_max": "Longest pause between retries (at least backoff_initial).",
        "deadline": "Time limit of the whole run (none = no limit).",
        "wait_for_lock": "How long to wait for another run's run lock (0 = exit 3 at once).",
        "allow_out_of_order": "Apply pending migrations older than the newest applied one.",
        "concurrent_indexes": "`rewrite`, `require` or `off` (see CREATE INDEX).",
        "safe_rewrites": (
            "`rewrite`, `require` or `off`: plain ADD FOREIGN KEY / CHECK / UNIQUE / PRIMARY KEY "
            "and SET NOT NULL (see Constraints); with `rewrite`, a plain ALTER COLUMN TYPE the "
            "lint gate would refuse (a rewrite of a large table) runs as the online type change "
            "(see Column type changes)."
        ),
        "journal_schema": "Schema of the journal table.",
        "journal_table": "Name of the journal table.",
        "application_name": "How the run's connection shows in `pg_stat_activity`.",
        "version_style": "`safemigrate new` numbering: `sequence` or `timestamp`.",
        "layout": (
            "Another tool's directory and history: `flyway`, `golang-migrate`, `dbmate`, `sqlx`, "
            "`diesel`, `yoyo`, `prisma`, or `auto` (see Coming from another tool)."
        ),
        "tool_history": (
            "After the switch from another tool, record each migration applied in its history "
            "table too, so the tool finds nothing to apply (`write`), or never write it (`leave`) "
            "(see Coming from another tool)."
        ),
        "tool_history_table": (
            "The layout's tool's history table, `[schema.]table`, when it is not the tool's "
            "default name on the search_path (dbmate `--migrations-table`, golang-migrate "
            '`x-migrations-table`, yoyo `migration_table`); under `layout = "dbmate"` also read '
            "from `DBMATE_MIGRATIONS_TABLE` (see Coming from another tool)."
        ),
        "lock_precheck": "Do not queue behind long transactions holding conflicting locks.",
        "lock_precheck_age": "A holder is long once older than this or the lock timeout.",
        "yield_after": (
            "A waiting step with sessions queued behind it yields after this (0 = never)."
        ),
        "lock_wait_budget": "Longest one step waits politely (pre-check back-offs, yields).",
        "redact_queries": "Show blockers' queries with literals replaced by `$n`.",
        "blocker_query_length": "Longest blocker query shown (10 to 10000).",
        "cancel_blockers": "`off`, `idle-in-transaction:DUR` or `any:DUR`.",
        "cancel_blockers_only": (
            "The application_names or roles the policy may touch (empty = any)."
        ),
        "cancel_blockers_grace": "How long after the cancel before terminating.",
        "cancel_blockers_dry_run": "Report what the policy would do, touch nothing.",
        "pg_version": (
            "PostgreSQL major version `check` and `plan` (without `--dsn`) assume; against a "
            "database, the lint gate uses the server's."
        ),
        "lint_gate": (
            "Lint findings on pending steps: `error` refuses to apply (exit 7), `warn` shows them, "
            "`off` (see The lint gate)."
        ),
        "lint_gate_after": (
            "Migrations up to this version are not judged by the lint gate while they are pending "
            "in order (history from before adoption); one that arrives late is judged."
        ),
        "accept_lost_session_state": (
            "Session-lived state (a temporary table, a setting changed in a `DO` block or a "
            "function, ...) that applied steps of migrations up to this version made is accepted "
            "as lost: steps that could depend on it run on a new session instead of being refused, "
            "and their session settings a new session cannot replay are left out (see Lost "
            "connections); a version that is no migration making session state is bad input."
        ),
        "gate_small_table": (
            "With a database, an error finding about lock cost on existing tables smaller than "
            "this does not block (see The lint gate); `0` judges every table as large; sizes are "
            "written `512kB`, `8MB`, `1GB`."
        ),
        "reconnect_timeout": (
            "How long `up` keeps reconnecting after a lost connection (0 = exit 6 at once)."
        ),
        "require_dsn": (
            "Connect only to a database named by `--dsn`, `SAFEMIGRATE_DSN` or `DATABASE_URL`, "
            "never through `PG*` variables (with nothing at all naming a database every command "
            "refuses anyway)."
        ),
        "max_replica_lag": (
            "Batched steps wait before a batch while a standby's replay lags more than this (0 = "
            "no limit; `max-replica-lag=DUR` overrides)."
        ),
        "housekeeping_timeout": (
            "Statement timeout of the runner's own statements (journal, run lock, reads); their "
            "lock timeout is `lock_timeout`."
        ),
        "max_lock_timeout": (
            "Highest `lock_timeout` a migration may set itself without `allow timeout-guard-off` "
            "(0 is always refused); a `lock-timeout=` directive on a CONCURRENTLY step may go "
            "up to `concurrent_lock_timeout` when that is higher."
        ),
        "max_statement_timeout": (
            "The same for `statement_timeout` (0 in a migration is refused too); `0` here = no "
            "ceiling (then lifting it is a `check` warning)."
        ),
        "check_cache": (
            "Where `check` keeps its results between runs: `auto` (`$XDG_CACHE_HOME/safemigrate`, "
            "else `~/.cache/safemigrate`), `off`, or a directory (relative to the config file)."
        ),
    }
)

_POSITIVE_DURATIONS = frozenset(
    {
        "lock_timeout",
        "concurrent_lock_timeout",
        "backoff_initial",
        "backoff_max",
        "deadline",
        "cancel_blockers_grace",
        "lock_precheck_age",
        "lock_wait_budget",
        "housekeeping_timeout",
        "max_lock_timeout",
    }
)
_BOOLEANS = frozenset(
    {
        "allow_out_of_order",
        "lock_precheck",
        "redact_queries",
        "cancel_blockers_dry_run",
        "require_dsn",
    }
)
_DURATIONS = _POSITIVE_DURATIONS | {
    "statement_timeout",
    "concurrent_statement_timeout",
    "wait_for_lock",
    "cancel_blockers_grace",
    "reconnect_timeout",
    "lock_precheck_age",
    "max_replica_lag",
    "yield_after",
    "lock_wait_budget",
    "max_statement_timeout",
}
#: Sizes in bytes (sizes.parse_size).
_SIZES = frozenset({"gate_small_table"})
# Settings field of each key: durations and sizes carry their unit in the field name.
_FIELDS: Mapping[str, str] = MappingProxyType(
    {
        key: f"{key}_ms" if key in _DURATIONS else f"{key}_bytes" if key in _SIZES else key
        for key in KEYS
    }
)
_ENUMS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "concurrent_indexes": get_args(ConcurrentIndexes),
        "safe_rewrites": get_args(SafeRewrites),
        "version_style": get_args(VersionStyle),
        "layout": get_args(Layout),
        "tool_history": get_args(ToolHistory),
        "lint_gate": get_args(LintGate),
    }
)
_IDENTIFIERS = frozenset({"journal_schema", "journal_table"})

# Keys people may try for the connection. They get a pointer to the real sources instead of a
# spelling suggestion, and (like every unknown key) their value is never shown.
_CONNECTION_KEYS = frozenset(
    {
        "dsn",
        "password",
        "passwd",
        "pgpassword",
        "database_url",
        "db_url",
        "url",
        "uri",
        "conninfo",
        "connection",
        "connection_string",
    }
)

#: Keys of the config table that hold the fleet's targets, not settings (see targets.py).
TARGET_TABLE_KEYS = frozenset({"target", "targets"})

_ENV_PREFIX = "SAFEMIGRATE_"
#: The keys whose flag is not ``--`` and the key with dashes, so errors name the flag typed.
_FLAGS: Mapping[str, str] = MappingProxyType({"check_cache": "--cache"})
_MAX_ATTEMPTS = 1000
_TRUE_WORDS = frozenset({"true", "1", "yes"})
_FALSE_WORDS = frozenset({"false", "0", "no"})
# PostgreSQL's NAMEDATALEN - 1: longer names are silently truncated by the server.
_MAX_NAME_BYTES = 63


def find_config_file(cwd: Path) -> Path | None:
    """Return the config file to use in ``cwd``, or None.

    That is ``safemigrate.toml`` if it exists, else ``pyproject.toml`` if it has a
    ``[tool.safemigrate]`` table. A ``pyproject.toml`` that cannot be read or parsed is an error
    rather than ignored, since it may hold the settings.
    """
    own = cwd / "safemigrate.toml"
    if own.is_file():
        return own
    pyproject = cwd / "pyproject.toml"
    if pyproject.is_file():
        tool = _read_toml(pyproject, pyproject.name).get("tool")
        if isinstance(tool, dict) and "safemigrate" in tool:
            return pyproject
    return None


def load_settings(
    *,
    cwd: Path,
    config_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, object] | None = None,
) -> Settings:
    """Return the validated settings from the defaults, a config file, the environment and flags.

    ``config_file`` is the ``--config`` file (relative to ``cwd``); when None,
    :func:`find_config_file` picks one. ``environ`` defaults to ``os.environ``. ``overrides``
    maps keys to flag values (strings as typed, or bools and ints); None values are ignored.
    Raises :class:`ConfigError` for any unknown key or bad value.
    """
    if environ is None:
        environ = os.environ
    values: dict[str, Any] = {}
    # Where each key's value came from, for the cross-key check.
    origins: dict[str, str] = {}

    if config_file is not None:
        path: Path | None = cwd / config_file
        display = str(config_file)
    else:
        path = find_config_file(cwd)
        display = path.name if path is not None else ""
    if path is not None:
        prefix, table = _config_table(path, display)
        for key, raw in table.items():
            if key in TARGET_TABLE_KEYS:
                continue  # the fleet's targets: read by safemigrate.targets
            if key not in KEYS:
                raise _unknown_key(prefix, key)
            where = f"{prefix}: {key}"
            values[_FIELDS[key]] = _parse(key, raw, where=where, from_text=False, base=path.parent)
            origins[key] = where

    warnings = _unknown_variables(environ)
    for key in KEYS:
        var = _ENV_PREFIX + key.upper()
        if var in environ:
            raw_env = environ[var]
            if raw_env == "":
                raise ConfigError(f"{var}: is set but empty; unset it to use the default")
            values[_FIELDS[key]] = _parse(key, raw_env, where=var, from_text=True, base=cwd)
            origins[key] = var

    for key, raw in (overrides or {}).items():
        if raw is None:
            continue
        flag = _FLAGS.get(key, "--" + key.replace("_", "-"))
        if key not in KEYS:
            raise ConfigError(f"{flag}: not a configuration setting")
        values[_FIELDS[key]] = _parse(key, raw, where=flag, from_text=True, base=cwd)
        origins[key] = flag

    # dbmate's own variable for its --migrations-table, where the deploy still sets it.
    dbmate_table = environ.get("DBMATE_MIGRATIONS_TABLE", "")
    if dbmate_table and "tool_history_table" not in origins and values.get("layout") == "dbmate":
        values["tool_history_table"] = _parse_qualified(
            dbmate_table, "DBMATE_MIGRATIONS_TABLE", True
        )
    # The default directory is relative to where safemigrate runs, not to the config file.
    values.setdefault("dir", cwd / Settings.dir)
    settings = Settings(**values, config_file=path, warnings=warnings)
    _check_backoff(settings, origins)
    return settings


#: SAFEMIGRATE_* variables that are not settings but are read: the DSN, rehearse's server
#: binaries (throwaway/bindirs.py), and the test suite's (SAFEMIGRATE_TEST_*).
_OTHER_VARIABLES = frozenset({"SAFEMIGRATE_DSN", "SAFEMIGRATE_PG_BINDIR"})
_TEST_PREFIX = "SAFEMIGRATE_TEST_"
#: How close a variable's name must be to a real one to be taken for its misspelling.
_MISSPELT_CUTOFF = 0.85


def _unknown_variables(environ: Mapping[str, str]) -> tuple[str, ...]:
    """Warnings for SAFEMIGRATE_* variables that name no setting; raises ConfigError for one
    that is a misspelling of a setting's (or SAFEMIGRATE_DSN), which would otherwise be
    silently ignored. Values are never shown (a variable may hold a DSN)."""
    known = {_ENV_PREFIX + key.upper() for key in KEYS} | _OTHER_VARIABLES
    found = []
    for var in sorted(environ):
        if not var.startswith(_ENV_PREFIX) or var in known or var.startswith(_TEST_PREFIX):
            continue
        import difflib  # only an unknown variable needs it

        # The names after the prefix: the shared prefix would make every name look close.
        suffix = var.removeprefix(_ENV_PREFIX).upper()
        suffixes = {k.removeprefix(_ENV_PREFIX): k for k in known}
        matches = difflib.get_close_matches(suffix, suffixes, cutoff=_MISSPELT_CUTOFF)
        close = [suffixes[m] for m in matches] or [
            k for s, k in suffixes.items() if sorted(s) == sorted(suffix)
        ]
        if close:
            raise ConfigError(
                f"{var}: not a safemigrate variable (did you mean {close[0]}?); rename or unset it"
            )
        found.append(f"{var} is not a safemigrate setting: ignored")
    return tuple(found)


def _read_toml(path: Path, display: str) -> dict[str, Any]:
    """Return the parsed TOML document at ``path``; ``display`` names it in errors."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{display}: config file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{display}: is a directory, not a config file") from None
    except PermissionError:
        raise ConfigError(f"{display}: cannot read config file: permission denied") from None
    except OSError as exc:
        raise ConfigError(f"{display}: cannot read config file: {exc.strerror or exc}") from None
    try:
        # utf-8-sig: some Windows editors still start UTF-8 files with a byte order mark.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{display}: not UTF-8 text (invalid byte on line {line})") from None
    try:
        if sys.version_info >= (3, 11):
            import tomllib  # imported here: most runs have no config file
        else:
            # tomli is a dependency on 3.10 only, so it may be absent where mypy runs.
            import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
        document: dict[str, Any] = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer past Python's digit limit
        # tomllib's message ends with "(at line N, column M)"; keep it on one line.
        message = " ".join(str(exc).split())
        raise ConfigError(f"{display}: invalid TOML: {message}") from None
    return document


def _config_table(path: Path, display: str) -> tuple[str, dict[str, Any]]:
    """Return the error prefix and the settings table of the config file at ``path``."""
    document = _read_toml(path, display)
    if path.name != "pyproject.toml":
        return display, document
    tool = document.get("tool")
    table = tool.get("safemigrate") if isinstance(tool, dict) else None
    if table is None:
        # Only reachable with --config: discovery skips such a pyproject.toml. Saying so
        # catches a misspelt table name instead of silently running on the defaults.
        raise ConfigError(f"{display}: has no [tool.safemigrate] table")
    prefix = f"{display} [tool.safemigrate]"
    if not isinstance(table, dict):
        raise ConfigError(f"{prefix}: must be a table, not {_describe(table)}")
    return prefix, table


def _unknown_key(prefix: str, key: str) -> ConfigError:
    """Return the error for an unknown key in a config file; its value is never shown."""
    normal = key.lower().replace("-", "_")
    if normal in _CONNECTION_KEYS:
        return ConfigError(
            f"{prefix}: key {key!r} is unknown; the database connection is never read from a "
            "config file: use --dsn, SAFEMIGRATE_DSN or DATABASE_URL"
        )
    import difflib  # only an unknown key needs it

    close = difflib.get_close_matches(normal, KEYS, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ConfigError(f"{prefix}: key {key!r} is unknown{hint}")


def _parse(key: str, raw: object, *, where: str, from_text: bool, base: Path) -> object:
    """Return the Settings value for ``key`` from ``raw``, or raise naming ``where``.

    ``from_text`` is true for the environment and flags, whose values may be strings for
    integer and boolean keys; TOML values must have the right type. A relative ``dir`` is
    joined to ``base``.
    """
    if key in _DURATIONS:
        return _parse_duration(key, raw, where)
    if key in _SIZES:
        return parse_size(raw, key=where)
    if key == "dir":
        return _parse_dir(raw, where, base)
    if key == "check_cache":
        if raw in ("auto", "off"):
            return raw
        return _parse_dir(raw, where, base)
    if key == "max_attempts":
        return _parse_attempts(raw, where, from_text)
    if key in _BOOLEANS:
        return _parse_bool(raw, where, from_text)
    if key == "pg_version":
        return _parse_int(raw, where, from_text, 9, 30)
    if key in ("lint_gate_after", "accept_lost_session_state"):
        return _parse_version(raw, where)
    if key == "blocker_query_length":
        return _parse_int(raw, where, from_text, 10, 10_000)
    if key == "cancel_blockers":
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: must be a string, not {_describe(raw, from_text)}")
        return parse_cancel_rule(raw, where=where)
    if key == "cancel_blockers_only":
        return _parse_names(raw, where, from_text)
    if key in _ENUMS:
        allowed = _ENUMS[key]
        if isinstance(raw, str) and raw in allowed:
            return raw
        choices = ", ".join(repr(choice) for choice in allowed)
        if isinstance(raw, str):
            import difflib  # only a bad value needs it

            close = difflib.get_close_matches(raw.strip().lower(), allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{where}: must be one of {choices}, not {_show(raw)}{hint}")
        raise ConfigError(f"{where}: must be one of {choices}, not {_describe(raw, from_text)}")
    if key in _IDENTIFIERS:
        return _parse_identifier(raw, where, from_text)
    if key == "tool_history_table":
        return _parse_qualified(raw, where, from_text)
    if key == "application_name":
        return _parse_application_name(raw, where, from_text)
    raise AssertionError(f"no parser for key {key!r}")  # pragma: no cover


def _parse_duration(key: str, raw: object, where: str) -> int:
    """Return a duration in milliseconds, checking the key's lower bound."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise ConfigError(
            f"{where}: must be a duration such as '2s' or '500ms', not {_describe(raw)}"
        )
    ms = parse_duration(raw, key=where)
    if ms == 0 and key in _POSITIVE_DURATIONS:
        if key == "deadline":
            raise ConfigError(f"{where}: must be greater than 0 (leave it unset for no deadline)")
        if key in {"lock_timeout", "concurrent_lock_timeout"}:
            raise ConfigError(
                f"{where}: must be greater than 0; the runner never runs a step without a "
                "lock timeout"
            )
        raise ConfigError(f"{where}: must be greater than 0")
    return ms


def _parse_version(raw: object, where: str) -> int:
    """A migration version: an integer, or its digits as a string (``"0042"`` keeps the
    padding TOML integers cannot have)."""
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
        return raw
    if isinstance(raw, str) and raw.strip().isdigit() and len(raw.strip()) <= 30:
        return int(raw.strip())
    raise ConfigError(
        f'{where}: must be a migration version such as 42 or "0042", not {_describe(raw)}'
    )


def _require_text(text: str, where: str) -> None:
    """Refuse an empty string, and one with a NUL (no path or name the server or the OS
    takes has one)."""
    if text == "":
        raise ConfigError(f"{where}: must not be empty")
    if "\0" in text:
        raise ConfigError(f"{where}: must not contain a NUL character")


def _parse_dir(raw: object, where: str, base: Path) -> Path:
    """Return the migrations directory, joined to ``base`` when relative."""
    # Flags may hand over a Path rather than the string typed.
    text = os.fspath(raw) if isinstance(raw, os.PathLike) else raw
    if not isinstance(text, str):
        raise ConfigError(f"{where}: must be a directory path (a string), not {_describe(raw)}")
    _require_text(text, where)
    return base / text


def _parse_int(raw: object, where: str, from_text: bool, low: int, high: int) -> int:
    """Return an integer from ``low`` to ``high``."""
    value: int | None = None
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif (
        from_text
        and isinstance(raw, str)
        and raw.strip().isascii()
        and raw.strip().isdigit()
        and len(raw.strip()) <= 9
    ):
        value = int(raw)
    if value is None or not low <= value <= high:
        shown = str(value) if value is not None else _describe(raw, from_text)
        raise ConfigError(f"{where}: must be an integer from {low} to {high}, not {shown}")
    return value


def _parse_names(raw: object, where: str, from_text: bool) -> tuple[str, ...]:
    """Return a list of names: a TOML array of strings, or comma-separated text."""
    if from_text and isinstance(raw, str):
        items: list[object] = list(raw.split(","))
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        raise ConfigError(f"{where}: must be a list of names, not {_describe(raw, from_text)}")
    if not all(isinstance(item, str) for item in items):
        raise ConfigError(f"{where}: every entry must be a string")
    return allow_list([str(item) for item in items])


def _parse_attempts(raw: object, where: str, from_text: bool) -> int:
    """Return max_attempts, an integer from 1 to 1000."""
    value: int | None = None
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif from_text and isinstance(raw, str) and re.fullmatch(r"\s*[0-9]{1,9}\s*", raw):
        value = int(raw)
    if value is None or not 1 <= value <= _MAX_ATTEMPTS:
        shown = str(value) if value is not None else _describe(raw, from_text)
        raise ConfigError(f"{where}: must be an integer from 1 to {_MAX_ATTEMPTS}, not {shown}")
    return value


def _parse_bool(raw: object, where: str, from_text: bool) -> bool:
    """Return a boolean; text accepts true/false, 1/0 and yes/no in any case."""
    if isinstance(raw, bool):
        return raw
    if from_text and isinstance(raw, str):
        word = raw.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        raise ConfigError(
            f"{where}: must be true or false (or 1/0, yes/no), not {_describe(raw, from_text)}"
        )
    raise ConfigError(f"{where}: must be true or false, not {_describe(raw, from_text)}")


def _parse_identifier(raw: object, where: str, from_text: bool) -> str:
    """Return a PostgreSQL identifier: non-empty, at most 63 bytes of UTF-8, no NUL."""
    if not isinstance(raw, str):
        raise ConfigError(f"{where}: must be a string, not {_describe(raw, from_text)}")
    _require_text(raw, where)
    size = len(raw.encode("utf-8"))
    if size > _MAX_NAME_BYTES:
        # The server would silently truncate it and so use a different table.
        raise ConfigError(
            f"{where}: {_show(raw)} is {size} bytes long; PostgreSQL names are at most "
            f"{_MAX_NAME_BYTES} bytes"
        )
    return raw


def _parse_qualified(raw: object, where: str, from_text: bool) -> tuple[str | None, str]:
    """Return ``[schema.]table`` as (schema or None, table), each a PostgreSQL identifier."""
    if not isinstance(raw, str):
        raise ConfigError(f"{where}: must be a string, not {_describe(raw, from_text)}")
    parts = raw.split(".")
    if len(parts) > 2:
        raise ConfigError(f"{where}: must be table or schema.table, not {_show(raw)}")
    for part in parts:
        _parse_identifier(part, where, from_text)
    return (parts[0], parts[1]) if len(parts) == 2 else (None, parts[0])


def _parse_application_name(raw: object, where: str, from_text: bool) -> str:
    """Return an application_name: 1 to 63 printable ASCII characters."""
    if not isinstance(raw, str):
        raise ConfigError(f"{where}: must be a string, not {_describe(raw, from_text)}")
    # PostgreSQL truncates longer names and replaces other characters with '?', so the name
    # seen in pg_stat_activity would not be the one configured.
    if not 1 <= len(raw) <= _MAX_NAME_BYTES or not all(" " <= char <= "~" for char in raw):
        raise ConfigError(
            f"{where}: must be 1 to {_MAX_NAME_BYTES} printable ASCII characters, not {_show(raw)}"
        )
    return raw


def _check_backoff(settings: Settings, origins: Mapping[str, str]) -> None:
    """Raise unless backoff_max >= backoff_initial, naming backoff_max's source if it was set."""
    if settings.backoff_max_ms >= settings.backoff_initial_ms:
        return
    initial = format_duration(settings.backoff_initial_ms)
    maximum = format_duration(settings.backoff_max_ms)
    if "backoff_max" in origins:
        raise ConfigError(
            f"{origins['backoff_max']}: {maximum} is less than backoff_initial ({initial}, "
            f"from {origins.get('backoff_initial', 'the default')})"
        )
    raise ConfigError(
        f"{origins['backoff_initial']}: {initial} is more than backoff_max ({maximum}, the default)"
    )


def _describe(value: object, from_text: bool = False) -> str:
    """Describe a bad value for an error: its TOML type and, for scalars, the value."""
    if from_text and isinstance(value, str):
        return _show(value)
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string ({_show(value)})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a float ({value})"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return f"a {type(value).__name__}"


def _show(text: str) -> str:
    """Quote ``text`` on one line, shortened so a long value cannot swamp the message."""
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def config_document(path: Path) -> tuple[str, dict[str, Any]]:
    """The error prefix and the settings table of the config file at ``path`` (its
    ``[tool.safemigrate]`` table for a pyproject.toml); the file's name shows in errors."""
    return _config_table(path, path.name)


def read_toml(path: Path, display: str) -> dict[str, Any]:
    """The TOML document at ``path``; unreadable or invalid files raise ConfigError naming
    ``display``."""
    return _read_toml(path, display)


def with_overrides(
    settings: Settings, table: Mapping[str, object], *, prefix: str, base: Path
) -> Settings:
    """``settings`` with the keys of ``table`` (a target's own settings) applied over them,
    each validated as in a config file: an unknown key or a bad value raises ConfigError
    naming ``prefix`` and the key. A relative ``dir`` is joined to ``base``."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key, raw in table.items():
        if key not in KEYS:
            raise _unknown_key(prefix, key)
        where = f"{prefix}: {key}"
        values[_FIELDS[key]] = _parse(key, raw, where=where, from_text=False, base=base)
        origins[key] = where
    updated = replace(settings, **values)
    _check_backoff(updated, origins)
    return updated


def parse_identifier(raw: object, where: str) -> str:
    """A PostgreSQL name from a TOML value (a schema), or ConfigError naming ``where``."""
    return _parse_identifier(raw, where, False)


@dataclass(frozen=True)
class KeyFacts:
    """What the configuration reference says of one key: the table of docs/configuration.md
    is generated from these (tools/docs_reference.py), so it cannot drift from the parser."""

    key: str
    #: What a value is, as a person writes it: ``duration``, ``boolean``, the choices, ...
    kind: str
    #: The default as it would be written in the config file (``none`` when unset).
    default: str
    #: The environment variable that sets it.
    variable: str
    #: The one-line description of :data:`KEYS`.
    description: str


def key_facts() -> tuple[KeyFacts, ...]:
    """Every key of :data:`KEYS`, in its order, with its kind, default and variable."""
    defaults = Settings()
    return tuple(
        KeyFacts(
            key,
            _kind(key),
            _default_text(key, getattr(defaults, _FIELDS[key])),
            _ENV_PREFIX + key.upper(),
            description,
        )
        for key, description in KEYS.items()
    )


def _kind(key: str) -> str:
    """What a value of ``key`` is, in the words of the configuration reference."""
    if key in _POSITIVE_DURATIONS:
        return "duration, > 0"
    if key in _DURATIONS:
        return "duration"
    if key in _SIZES:
        return "size"
    if key in _BOOLEANS:
        return "boolean"
    if key in _ENUMS:
        return ", ".join(_ENUMS[key])
    if key in _IDENTIFIERS:
        return "PostgreSQL name"
    kinds = {
        "dir": "directory",
        "check_cache": "auto, off or a directory",
        "max_attempts": f"integer, 1 to {_MAX_ATTEMPTS}",
        "pg_version": "integer, 9 to 30",
        "blocker_query_length": "integer, 10 to 10000",
        "lint_gate_after": "migration version",
        "accept_lost_session_state": "migration version",
        "cancel_blockers": "off, idle-in-transaction:DUR or any:DUR",
        "cancel_blockers_only": "list of names",
        "tool_history_table": "[schema.]table",
        "application_name": "string",
    }
    return kinds[key]


def _default_text(key: str, value: object) -> str:
    """The default ``value`` of ``key`` as it would be written in a config file."""
    if value is None:
        return "off" if key == "cancel_blockers" else "none"
    if isinstance(value, bool):
        return str(value).lower()
    if key in _DURATIONS and isinstance(value, int):
        return format_duration(value) if value else "0"
    if key in _SIZES and isinstance(value, int):
        from ..core.sizes import format_size

        return format_size(value).replace(" ", "")
    if isinstance(value, tuple):
        return "[" + ", ".join(str(item) for item in value) + "]"
    return str(value)
