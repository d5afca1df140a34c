"""timeout-guard-off: a migration sets lock_timeout or statement_timeout to 0 or above a ceiling.

The runner refuses such a statement in a pending step too (exit 2) unless an allow comment with
a reason names this rule (see ``safemigrate.planning.timeout_guard``), so this module is where both
the linter and the runner learn what a statement does to the two timeouts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ...core.durations import format_exact_duration
from ...core.model import QualifiedName
from ...statements import locks
from ...statements import parsed as sqlinfo
from ..context import TEMP_SCHEMA, StatementContext, walk
from ..findings import Cost, Hit, hit, make_rule
from ..search_path import is_unknown
from ..timeouts import GUARDED, TimeoutChange, guc_ms, of_function, timeout_changes

__all__ = ["GUARDED", "RULE", "TimeoutChange", "check", "guc_ms", "refusal", "timeout_changes"]

DOC = """
Catches: (an error) a statement that sets `lock_timeout` to 0 (no limit), above the ceiling
`max_lock_timeout` (default 10s) or back to the server's default; the same for
`statement_timeout` against `max_statement_timeout` (default 4h; a project that sets it to 0 has
no ceiling, and lifting statement_timeout to 0 is then only a warning). The statements judged:
- `SET`, `SET SESSION`, `SET LOCAL` of either setting to 0 or above its ceiling, and
  `SET ... TO DEFAULT`, `RESET lock_timeout`, `RESET statement_timeout`, `RESET ALL`;
- `set_config('lock_timeout' | 'statement_timeout', value, is_local)` anywhere in a statement,
  DO blocks included, and in the body of a function or procedure the file or an earlier
  file creates (PL/pgSQL or LANGUAGE sql: `AS $$...$$`, `BEGIN ATOMIC`, `RETURN`; the newest
  `CREATE OR REPLACE` is the body), judged where it is called
  (`SELECT f()`, `CALL p()`, through another such function) or fired as a trigger by a write
  to its table; a `SET` in such a body the same way (`||` of literals counts as a constant);
  a NULL value resets the setting (back to the default); a name or value only known at run
  time may be 0 and is refused;
- a write to `pg_settings` (`UPDATE pg_settings SET setting = '0' WHERE name = 'lock_timeout'`,
  in a DO block too: its update rule calls `set_config(name, setting, false)`), judged the
  same; a name or value that is not a constant is refused;
- the `-- safemigrate: lock-timeout=DUR` directive, as `SET LOCAL lock_timeout`: above
  `max_lock_timeout` it needs the allow comment (or a higher ceiling in the config; on a
  CONCURRENTLY or other autocommit step, which the runner itself gives
  `concurrent_lock_timeout`, default 5min, the ceiling is the higher of the two), and it is
  accepted where the SET LOCAL would be (a fresh database, a block that only touches new
  tables); 0, or a value that is 0 once rounded to whole milliseconds, is refused where the
  directive is read;
- the `-- safemigrate: statement-timeout=DUR` directive, as `SET LOCAL statement_timeout`:
  above `max_statement_timeout`, or 0, it needs the allow comment (a value that is 0 only once
  rounded to whole milliseconds, such as `0.4ms`, is refused where the directive is read);
- a call of a function or procedure whose own `SET lock_timeout` / `SET statement_timeout`
  clause (`CREATE FUNCTION ... SET`, `CREATE PROCEDURE ... SET`, `ALTER FUNCTION ... SET`)
  does the same: the call runs under the function's setting, whatever the caller set (the
  functions the migrations create, and with a database those it already holds, from
  `pg_proc.proconfig`); and a `CREATE TRIGGER` whose function has such a clause (every later
  write to the table runs it); with a database, also a write (`INSERT`, `UPDATE`, `DELETE`,
  `MERGE`, `COPY ... FROM`, `TRUNCATE`, in a CTE too) to an existing table whose enabled
  trigger for that event, CHECK constraint, column default or column's domain CHECK (its
  partitions' and children's too, and those of the tables its cascading foreign keys, its
  rules or a view's base reach) calls such a function;
- a `CREATE OPERATOR` (`FUNCTION =`, `PROCEDURE =`, `RESTRICT =`, `JOIN =`), `CREATE
  AGGREGATE` (`SFUNC =`, `FINALFUNC =` and the other support functions), `CREATE CAST ...
  WITH FUNCTION`, `CREATE EVENT TRIGGER ... EXECUTE FUNCTION`, `CREATE TYPE` (`INPUT`,
  `OUTPUT`, `RECEIVE`, `SEND`, `TYPMOD_IN`, `TYPMOD_OUT`, `ANALYZE`, `SUBSCRIPT`; a range's
  `SUBTYPE_DIFF`, `CANONICAL`), `CREATE OPERATOR CLASS ... FUNCTION n` or `ALTER OPERATOR
  FAMILY ... ADD FUNCTION n` binding a function whose body
  (one the file or an earlier one creates) or SET clause does any of the above: PostgreSQL
  calls it later without its name being written (an event trigger on every later DDL, in
  this run and later ones), so the finding is reported at that CREATE; a `CREATE EVENT
  TRIGGER` whose function is not in the migrations (nor, with a database, one of its PL/pgSQL
  or LANGUAGE sql routines: its body unknown) is refused too, unless allowed with a reason;
- with a database (`up`, `plan --dsn`), the same for the routines it already holds
  (PL/pgSQL and LANGUAGE sql in user schemas, read from `pg_proc`: `prosrc`, `prolang`,
  `proconfig`, as `pg_get_functiondef` gives them): a call resolves as the server resolves
  it, through the search_path the step runs under (pg_catalog first, then the session's
  `"$user", public` or the path the migrations set; a routine with a built-in's name and
  argument types is the built-in), a write to an existing table runs its enabled triggers'
  functions, and a `CREATE EVENT TRIGGER` or `CREATE OPERATOR` binding one is judged by its
  body; and a statement that fires an enabled event trigger of the database
  (`pg_event_trigger`, decided by its event and `WHEN TAG` list from the manual's Event
  Trigger Firing Matrix, taken wide: every DROP and ALTER for `sql_drop`, every ALTER TABLE
  for `table_rewrite`) is judged by that trigger's function body and SET clause, at the
  statement; what else a step reaches there is judged the same way, as the statements it
  runs: the rules (not a view's ON SELECT) and the DEFAULT / GENERATED expressions of a table
  it writes, the query of a view it reads, the function of an operator it uses, the
  functions of an expression index of a table it writes (on INSERT and UPDATE), a DISABLEd
  trigger or event trigger once a pending `ALTER TABLE ... ENABLE TRIGGER` or `ALTER EVENT
  TRIGGER ... ENABLE` has enabled it (every table, view or operator of the name counts,
  whatever the event or argument types); without a database (`check`) a call of a function
  the files do not create is not judged: its body is not known;
- `ALTER ROLE ... SET`, `ALTER DATABASE ... SET`, `ALTER SYSTEM SET` of either setting to 0 or
  above its ceiling (they change the default of every later session, the applications' too);
  for `ALTER SYSTEM` also `SET ... TO DEFAULT`, `RESET` and `RESET ALL`: the server's own
  default, which every new session falls back to once the configuration is reloaded
  (`pg_reload_conf()` in the migration or a reload made outside it), goes back to
  postgresql.conf's value or the built-in 0 (no limit). ALTER SYSTEM cannot run in a
  transaction block: safemigrate runs it alone, in autocommit mode.

Values are judged as the server stores them, not as written: PostgreSQL reads a timeout as
whole milliseconds, rounding half to even, so `'100us'`, `0.5` and `'0.0004s'` are 0 on the
server (no limit at all), `'0x10'` is 16ms and `'010'` 8ms (guc.c parse_int and
convert_to_base_unit).

Why it hurts: safemigrate runs every step under a lock timeout and a statement timeout so that a
step waiting for a lock cannot stall the application's queries queued behind it. A statement
that switches them off (or back to a server default that is usually 0) removes that guard for
the rest of its step, silently; a very long lock timeout does the same in slow motion.

`safemigrate up` refuses such a statement (an error finding) in a pending step before applying
anything (exit 2), whatever `lint_gate` says, unless it is allowed with a reason. Where nothing
can be stalled it is accepted:
- a `SET LOCAL` (or `set_config(..., true)`) inside a BEGIN/COMMIT block or group whose other
  statements, before it as after it (the earlier ones' locks are held until COMMIT), only write
  or alter tables created earlier in the run (or in the same block), read existing ones at
  most (not `FOR UPDATE` / `FOR SHARE`: a locking read holds the rows until COMMIT), and
  call no user function: a warning. Not when a table written
  has a trigger or a rule, a foreign key to or from a table that existed, or a default, check
  or generated column calling a user function, nor when the database has an event trigger:
  each write then runs user code or locks or writes an existing table. `check` knows the tables
  created earlier in the same file; `up` those created by every earlier pending step;
- on a fresh database (nothing of its own, no journal: see docs/lint-gate.md, "A fresh
  database"), any statement_timeout a migration sets and a long lock_timeout are accepted by
  `up` (`check` still reports them).
lock_timeout set to 0 or back to its default is refused in every case: the lock timeout guard
itself always stays.

Why statement_timeout has no ceiling by default: it bounds the work a step does once it holds
its locks, and real migration sets lift it on purpose for a backfill (langfuse's
`backfill_evaluator_v2` does `SET LOCAL statement_timeout = 0`); lock_timeout is the guard that
keeps the application's queries from queueing behind a waiting step, and is always enforced.

Instead: give the step the timeouts it needs with a directive, which keeps the runner's guard:
`-- safemigrate: lock-timeout=5s` or `-- safemigrate: statement-timeout=1h` on the line before
the statement. If the setting really must change (a role's default for the application, say),
allow it with the reason:
`-- safemigrate: allow timeout-guard-off -- app role default agreed with the DBA team`.

Applies to: every PostgreSQL version (lock_timeout from 9.3).
Source: PostgreSQL docs, 20.11.2 Statement Behavior (lock_timeout, statement_timeout: 0 turns
the timeout off), 19.1.2 Parameter Names and Values (units; "a value with a fractional part
is rounded"), SET, CREATE FUNCTION (SET clause: "the specified configuration parameter ... set
to the specified value when the function is entered"), ALTER ROLE and ALTER DATABASE.
"""

RULE = make_rule(
    "timeout-guard-off",
    "error",
    "lock_timeout (or a capped statement_timeout) set to 0, above its ceiling, or to default",
    DOC,
)


def refusal(
    change: TimeoutChange,
    max_lock_ms: int,
    max_statement_ms: int,
    lock_key: str = "max_lock_timeout",
) -> str | None:
    """Why ``change`` switches the guard off or stretches it past its ceiling; None if fine.

    A ``max_statement_ms`` of 0 is no ceiling: any statement_timeout is fine (see
    :func:`unbounded_statement_timeout` for the warning ``check`` gives then). ``lock_key``
    names the setting ``max_lock_ms`` comes from, for the message.
    """
    if change.setting == "statement_timeout" and max_statement_ms == 0:
        return None
    if change.unknown:
        return (
            f"{change.how} sets {change.setting} to a value known only when it runs (its "
            "name or value is not a constant), which may be 0 (no limit)"
        )
    if change.value_ms is None:
        return (
            f"{change.how} puts {change.setting} back to the server's default, which is "
            "usually 0 (no limit)"
        )
    if change.value_ms == 0:
        written = change.written.strip("'")
        if written and written != "0":
            return (
                f"{change.how} sets {change.setting} to {change.written}, which the server "
                "rounds to 0 (whole milliseconds): no limit at all"
            )
        return f"{change.how} sets {change.setting} to 0: no limit at all"
    ceiling, key = (
        (max_lock_ms, lock_key)
        if change.setting == "lock_timeout"
        else (max_statement_ms, "max_statement_timeout")
    )
    if change.value_ms > ceiling:
        return (
            f"{change.how} sets {change.setting} to {format_exact_duration(change.value_ms)}, "
            f"above {key} ({format_exact_duration(ceiling)})"
        )
    return None


def unbounded_statement_timeout(change: TimeoutChange) -> str | None:
    """Why ``change`` lifts statement_timeout when no ceiling is configured; None otherwise."""
    if change.setting != "statement_timeout" or (change.value_ms or 0) != 0:
        return None
    return (
        f"{change.how} lifts statement_timeout for the rest of the step (allowed: no "
        "max_statement_timeout is set)"
    )


_HINT = (
    "give the step its timeout with -- safemigrate: lock-timeout=DUR (or "
    "statement-timeout=DUR); if the setting must change, allow it with the reason"
)


_SYSTEM_HINT = (
    "leave the server's defaults to its configuration and give the step its timeout with "
    "-- safemigrate: lock-timeout=DUR (or statement-timeout=DUR); if the default must "
    "change, allow it with the reason"
)


#: The statements whose own kind may change a timeout; any other only through set_config()
#: or a call of a function with its own timeouts.
_SETTING_NODES = (
    ast.VariableSetStmt,
    ast.AlterRoleSetStmt,
    ast.AlterDatabaseSetStmt,
    ast.AlterSystemStmt,
)


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    functions = ctx.state.catalog.function_timeouts
    directives = _directive_changes(ctx)
    if (
        # Cheap first: walking every statement's tree costs a large history dearly.
        ctx.text
        and not functions
        and not directives
        and not isinstance(node, _SETTING_NODES)
        and "set_config" not in ctx.text.lower()
        and "pg_settings" not in ctx.text.lower()
    ):
        return
    for change in [*directives, *timeout_changes(node, functions), *_write_changes(node, ctx)]:
        lock_ms, lock_key = _lock_ceiling(change, ctx)
        why = refusal(change, lock_ms, ctx.ceilings.statement_ms, lock_key)
        if why is None:
            lifted = ctx.ceilings.statement_ms == 0 and unbounded_statement_timeout(change)
            if lifted:
                yield hit(
                    RULE,
                    f"{lifted}: the step may hold its locks for as long as it runs",
                    "give the step its timeout with -- safemigrate: statement-timeout=DUR; set "
                    "max_statement_timeout to have the runner refuse this",
                    severity="warning",
                )
            continue
        if (
            change.scope == "transaction"
            and not change.switches_off_lock_timeout
            and _rest_is_new(node, ctx)
        ):
            yield hit(
                RULE,
                f"{why}, but the rest of {ctx.tx.describe()} only writes or alters tables "
                "created earlier in this run (no application uses them yet): accepted",
                "give the step its timeout with -- safemigrate: statement-timeout=DUR "
                "(or lock-timeout=DUR) instead, so it stays guarded",
                severity="warning",
            )
            continue
        # lock_timeout switched off, and a role's or database's default, are refused even on
        # a fresh database: the lock timeout guard itself stays, and a default outlives the
        # run. The rest is harmless where nothing can be stalled (the gate's fresh database).
        relaxable = change.scope != "default" and not change.switches_off_lock_timeout
        directive = change.how.startswith(DIRECTIVE)
        if change.how.startswith("ALTER SYSTEM"):
            yield hit(
                RULE,
                f"{why}: every new session falls back to it once the configuration is "
                "reloaded (pg_reload_conf(), or a reload made outside the run), the "
                "applications' and the runner's reconnections too",
                _SYSTEM_HINT,
            )
            continue
        yield hit(
            RULE,
            f"{why}: it {'lifts' if directive else 'removes'} the guard safemigrate runs "
            "every step under",
            _DIRECTIVE_HINT if directive else _HINT,
            cost=Cost("timeout") if relaxable else None,
        )


#: How a step's own directive is named in messages.
DIRECTIVE = "the directive"


def _lock_ceiling(change: TimeoutChange, ctx: StatementContext) -> tuple[int, str]:
    """The ceiling of ``change``'s lock_timeout and the setting it comes from. A directive on
    a step the runner gives ``concurrent_lock_timeout`` (a CONCURRENTLY or other autocommit
    statement, not a constraint recipe: planning.shapes' WAITS_LONG) may go as high as that:
    the runner's own judgement of how long such a step may wait (issue 21)."""
    ceilings = ctx.ceilings
    statement = ctx.statement
    waits_long = (
        statement is not None
        and statement.non_transactional
        and statement.constraint_rewrite is None
    )
    if (
        waits_long
        and change.how.startswith(DIRECTIVE)
        and ceilings.concurrent_lock_ms > ceilings.lock_ms
    ):
        return ceilings.concurrent_lock_ms, "concurrent_lock_timeout"
    return ceilings.lock_ms, "max_lock_timeout"


_DIRECTIVE_HINT = (
    "give the step a timeout within the ceiling; if it really needs longer, allow it with "
    "the reason (or raise the ceiling in the config)"
)


def _directive_changes(ctx: StatementContext) -> list[TimeoutChange]:
    """The timeouts the step's ``lock-timeout=`` and ``statement-timeout=`` directives give it,
    judged like ``SET LOCAL lock_timeout`` / ``SET LOCAL statement_timeout`` against
    max_lock_timeout / max_statement_timeout (issue 21: one judgement for every way a
    migration sets its timeouts; review21c F8: a directive above the ceiling passed
    unjudged). The value judged is the one the runner sends, in whole milliseconds; a
    statement-timeout of 0 (none) is judged as the SQL's 0 is. A lock-timeout of 0, and any
    value that is 0 only once rounded, is refused where the directive is read."""
    options = ctx.step_options
    if options is None:
        return []
    changes: list[TimeoutChange] = []
    for setting, key, value_ms in (
        ("lock_timeout", "lock-timeout", options.lock_timeout_ms),
        ("statement_timeout", "statement-timeout", options.statement_timeout_ms),
    ):
        if value_ms is None:
            continue
        how = f"{DIRECTIVE} {key}={format_exact_duration(value_ms) if value_ms else 0}"
        changes.append(TimeoutChange(setting, value_ms, how, str(value_ms), "transaction"))
    return changes


#: pg_trigger.tgtype's event bits (catalog/pg_trigger.h TRIGGER_TYPE_*).
_INSERT, _DELETE, _UPDATE, _TRUNCATE = 4, 8, 16, 32


def _writes(node: Any) -> Iterator[tuple[Any, int, str]]:
    """The tables ``node`` writes (CTEs too), each with the events it fires and a verb."""
    for child in walk(node):
        if isinstance(child, ast.InsertStmt):
            upsert = child.onConflictClause is not None and child.onConflictClause.action == 2
            yield child.relation, _INSERT | (_UPDATE if upsert else 0), "INSERT INTO"
        elif isinstance(child, ast.UpdateStmt):
            yield child.relation, _UPDATE, "UPDATE"
        elif isinstance(child, ast.DeleteStmt):
            yield child.relation, _DELETE, "DELETE FROM"
        elif isinstance(child, ast.MergeStmt):
            yield child.relation, _INSERT | _UPDATE | _DELETE, "MERGE INTO"
        elif isinstance(child, ast.CopyStmt) and child.is_from and child.relation is not None:
            yield child.relation, _INSERT, "COPY"
        elif isinstance(child, ast.TruncateStmt):
            for relation in child.relations or ():
                yield relation, _TRUNCATE, "TRUNCATE"


def _write_changes(node: Any, ctx: StatementContext) -> list[TimeoutChange]:
    """The timeouts a write to an existing table runs under through what the write fires on
    it, its partitions and children: a trigger, a CHECK, a default, a domain's CHECK calling
    a function with its own SET clause (issue 20 review F3, triggers on existing tables;
    CREATE FUNCTION docs, SET clause). A table the run created has none of the live ones
    (a trigger the run creates is judged at its CREATE TRIGGER); under a search_path the gate
    cannot know, every table of the name may be the one written."""
    state = ctx.state
    uses_of = state.catalog.write_functions
    functions = state.catalog.function_timeouts
    if not uses_of or not functions:
        return []
    changes: list[TimeoutChange] = []
    for relation, events, verb in _writes(node):
        if relation is None or relation.relpersistence == "t":
            continue
        table = state.table(relation)
        if state.is_new(table):
            continue
        if is_unknown(table.schema):
            candidates = [t for t in uses_of if t.name == table.name]
        else:
            candidates = [table]
        for candidate in candidates:
            for fired, what, function in uses_of.get(candidate, ()):
                if fired & events:
                    how = (
                        f"{verb} {relation.relname} runs its {what}: {function}(), whose SET clause"
                    )
                    changes += of_function(function, functions, how)
    return changes


#: Statements whose effects the parse cannot tell: whatever they lock is unknown.
_OPAQUE = (ast.DoStmt, ast.CallStmt, ast.ExecuteStmt)
#: Statements that make later writes run user code or write other tables: a trigger, a rule,
#: an event trigger (issue 20 review F3).
_ACTING = (ast.CreateTrigStmt, ast.RuleStmt, ast.CreateEventTrigStmt)


def _rest_is_new(node: Any, ctx: StatementContext) -> bool:
    """True when a transaction-scoped timeout change inside a block (BEGIN/COMMIT or a
    group) can stall nobody: every statement of the block, before it as after it, writes,
    alters or locks only tables created earlier in the run (or earlier in the block), reads
    existing ones at most, and runs nothing the parse cannot see into (DO, CALL, EXECUTE, a
    user function). The earlier ones count because their locks are held until COMMIT: an
    ALTER of an existing table before ``SET LOCAL statement_timeout = 0`` and a long
    statement held the app off the table for as long as it ran (issue 21, review 21i E7)."""
    if ctx.following is None or ctx.preceding is None or not ctx.tx.is_block or ctx.in_do:
        return False
    if ctx.state.event_triggers:
        return False  # an event trigger runs user code on DDL (issue 20 review F3)
    if not all(_held_only_on_new(statement, ctx) for statement in ctx.preceding):
        return False
    created: set[QualifiedName] = set()
    rest = ctx.following if isinstance(node, ast.VariableSetStmt) else (node, *ctx.following)
    return all(_only_new(statement, ctx, created) for statement in rest)


def _held_only_on_new(statement: Any, ctx: StatementContext) -> bool:
    """True when an earlier statement of the block holds more than ACCESS SHARE only on
    tables new in the run (the file state already holds what the block created)."""
    if isinstance(statement, ast.VariableSetStmt):
        return True
    return _only_new(statement, ctx, set())


def _only_new(statement: Any, ctx: StatementContext, created: set[QualifiedName]) -> bool:
    """True when ``statement`` locks more than ACCESS SHARE only on new tables; the tables it
    creates are added to ``created``."""
    if isinstance(statement, (*_OPAQUE, *_ACTING)) or ctx.calls_user_function(statement):
        return False
    if any(isinstance(n, ast.SelectStmt) and n.lockingClause for n in walk(statement)):
        # SELECT ... FOR UPDATE / SHARE locks the rows it reads until COMMIT (explicit
        # locking docs, "Row-Level Locks"): an application's write of one waits for the
        # block however long it runs (issue 21, review 21i E7's neighbour).
        return False
    made = sqlinfo.created_table(statement)
    if made is not None:
        temp = _temporary(statement)
        created.add(QualifiedName(TEMP_SCHEMA, made.name) if temp else ctx.state.resolve(made))
    for need in locks.lock_needs(statement):
        relation = need.relation
        if relation.schema is None and QualifiedName(TEMP_SCHEMA, relation.name) in created:
            continue
        resolved = ctx.state.resolve(relation)
        if resolved in ctx.state.acting_tables:
            return False  # a write to it runs a trigger, a rule or a cascade (F3)
        if resolved.schema != TEMP_SCHEMA and not (
            resolved in created or ctx.state.is_new(resolved)
        ):
            return False
    return True


def _temporary(statement: Any) -> bool:
    target = statement.relation if isinstance(statement, ast.CreateStmt) else None
    if isinstance(statement, ast.CreateTableAsStmt) and statement.into is not None:
        target = statement.into.rel
    return target is not None and target.relpersistence == "t"
