"""Linting one migration file: statements, their transactions, the rules, suppression.

How a file is read:

1. safemigrate.planning.safer_forms.parse_file reads it once, as the runner does, and
   leniently: every statement with its transaction (its own step, a BEGIN/COMMIT block, a
   group) and the runner's view of it (``Statement.rewritten`` for a plain CREATE INDEX it
   runs CONCURRENTLY), the allow comments, and every reason the runner would refuse the
   file. Each such reason is an ``invalid-migration-file`` finding (bad input), except a
   statement that cannot run in a transaction block written inside one: the
   ``non-transactional-in-transaction`` rule reports that. When the runner would refuse the
   file, the rules still run, without its view of the statements
   (``StatementContext.statement`` is None).
2. Each statement goes through every rule, then its effects are recorded in the file state
   (tables created, constraints validated, enum values added). A DO block's PL/pgSQL
   statements are linted the same way, in the DO block's transaction, located at the DO
   statement. A CREATE FUNCTION / PROCEDURE body (PL/pgSQL or LANGUAGE sql, the
   SQL-standard BEGIN ATOMIC and RETURN forms too), created in the file or an earlier one
   (the catalog carries them), is linted the same way where the file calls the function,
   directly or through another, or fires it as a trigger by a write; a function a CREATE
   OPERATOR / AGGREGATE / CAST / EVENT TRIGGER / TYPE / OPERATOR CLASS binds (PostgreSQL
   calls it with no call written) gives that CREATE its timeout-guard-off and run-lock-release hits.
3. Allow comments remove the findings they name from the statement right after them.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pglast
from pglast import ast
from pglast.enums import ObjectType

from ..core.errors import MigrationFileError
from ..core.model import DEFAULT_PG_VERSION, QualifiedName, StepOptions
from ..planning.safer_forms import parse_file
from ..source import (
    ConcurrentIndexes,
    FileProblem,
    ParsedFile,
    ParsedStatement,
    name_problem,
    read_sql,
    split_sql,
)
from ..statements.bound_functions import bound_functions
from ..statements.session_state import written_tables
from .allow import Allow, find_allows
from .called_functions import IN_DATABASE, of_schema, resolve
from .catalog import Catalog
from .context import FileState, StatementContext, Transaction, show, walk
from .event_triggers import command_tag, fires
from .findings import Cost, CostFacts, Finding, Hit, Rule, TableSize, hit
from .live_reach import read_views, used_operators, written_sql
from .options import TimeoutCeilings
from .plpgsql import do_block_sql, do_language, function_body_queries
from .rules import CHECKS, SUPPRESSIBLE, run_lock_release, self_termination, timeout_guard_off
from .rules.meta import (
    ALLOW_WITHOUT_REASON,
    EMPTY_MIGRATION,
    INVALID_MIGRATION_FILE,
    UNKNOWN_RULE_IN_ALLOW,
    UNUSED_ALLOW,
)
from .search_path import end_of_transaction
from .state import record
from .timeouts import function_settings, of_function

_META_IDS = frozenset(
    r.id
    for r in (
        INVALID_MIGRATION_FILE,
        UNKNOWN_RULE_IN_ALLOW,
        UNUSED_ALLOW,
        ALLOW_WITHOUT_REASON,
        EMPTY_MIGRATION,
    )
)

_REFUSED = "safemigrate refuses this file before applying anything (exit 2)"
_SYNTAX_HINT = "fix the syntax; safemigrate refuses a file that does not parse (exit 2)"


@dataclass(frozen=True)
class FileResult:
    """The findings of one file, and whether the file is bad input (the runner refuses it)."""

    findings: list[Finding]
    bad_input: bool


def _meta(path: str, rule: Rule, line: int, column: int, message: str, hint: str) -> Finding:
    return Finding(path, line, column, rule.id, rule.severity, message, hint)


def invalid_file(path: str, err: MigrationFileError) -> Finding:
    """The invalid-migration-file finding of a MigrationFileError from safemigrate.source."""
    message = err.message
    for prefix in (f"{err.path}:{err.line}: ", f"{err.path}: "):
        if message.startswith(prefix):
            message = message[len(prefix) :]
            break
    return _meta(path, INVALID_MIGRATION_FILE, err.line or 1, 1, message, err.hint or _REFUSED)


def problem_finding(problem: FileProblem) -> Finding:
    """The invalid-migration-file finding of a problem the parse found."""
    hint = _SYNTAX_HINT if problem.kind == "syntax" else problem.hint or _REFUSED
    line = problem.line or 1
    return _meta(problem.path, INVALID_MIGRATION_FILE, line, problem.column, problem.message, hint)


def _run_rules(node: Any, ctx: StatementContext) -> list[Hit]:
    hits: list[Hit] = []
    for check in CHECKS:
        hits.extend(check(node, ctx))
    return hits


def _statements_of(sql: str) -> list[tuple[Any, str]]:
    """The statements of a piece of PL/pgSQL's SQL with their texts; empty when it does not
    parse."""
    try:
        return [(node, sql[span]) for node, span in split_sql(sql)]
    except pglast.parser.ParseError:
        return []


def _lint_embedded(
    queries: list[str], base: StatementContext, line: int, seen: frozenset[str] = frozenset()
) -> list[Hit]:
    """The hits of the SQL a DO block or a called function runs (its transaction: the block
    the statement is in, else its own), and of the functions that SQL calls or fires in turn
    (``seen``: the functions already being linted, so recursion ends)."""
    tx = base.tx if base.tx.is_block else Transaction("do", line)
    hits: list[Hit] = []
    for query in queries:
        for node, text in _statements_of(query):
            if isinstance(node, ast.TransactionStmt):
                continue
            ctx = StatementContext(
                path=base.path,
                pg_version=base.pg_version,
                concurrent_indexes=base.concurrent_indexes,
                state=base.state,
                tx=tx,
                statement=None,
                steps_known=base.steps_known,
                text=text,
                in_do=True,
                line=line,
                ceilings=base.ceilings,
                safe_rewrites=base.safe_rewrites,
            )
            hits.extend(_run_rules(node, ctx))
            hits.extend(_lint_calls_of(node, ctx, line, seen))
            record(node, ctx)
    return hits


def _lint_do_block(stmt: ParsedStatement, base: StatementContext) -> list[Hit]:
    """The hits of the statements a DO block runs."""
    if do_language(stmt.node) != "plpgsql":
        return []
    return _lint_embedded(do_block_sql(stmt.text), base, stmt.line)


def _called_functions(node: Any, base: StatementContext) -> list[str]:
    """The keys (in ``state.functions``) of the functions whose bodies ``node`` runs: those
    it calls, and those it fires as triggers of the tables it writes (issue 21 review21d F1):
    the migrations' (this file's and earlier ones'), else, against a database, its own
    (lint.called_functions resolves the name as the server would)."""
    state = base.state
    if not state.functions or isinstance(node, ast.CreateFunctionStmt):
        return []
    keys: list[str] = []
    calls = [node.funccall] if isinstance(node, ast.CallStmt) else walk(node)
    for call in calls:
        if isinstance(call, ast.FuncCall):
            funcname: Any = call.funcname
            keys += resolve([str(part.sval) for part in funcname], state)
    if state.trigger_functions or state.catalog.write_functions:
        for table in sorted(written_tables(node)):
            for name in state.trigger_functions.get(table, []):
                keys += resolve([name], state)
            keys += _live_write_functions(table, state)
    return [k for k in dict.fromkeys(keys) if k in state.functions]


def _live_write_functions(table: str, state: FileState) -> list[str]:
    """The database's routines a write to ``table`` (lower-case, no schema) runs: its
    enabled triggers', CHECKs', defaults' (Catalog.write_functions), whatever the event and
    in whichever schema a table of the name is, unless the run created the table. A routine
    the migrations replace (CREATE OR REPLACE) runs its newest body, as a live event
    trigger's does: before, a default's function given a body that switched lock_timeout off
    by a pending file was judged by its old body (issue 21, review 21i E16)."""
    uses_of = state.catalog.write_functions
    if not uses_of or state.is_new(state.resolve(QualifiedName(None, table))):
        return []
    keys: list[str] = []
    for candidate, uses in uses_of.items():
        if candidate.name.lower() == table:
            for _events, _what, function in uses:
                if function in state.functions:
                    keys.append(function)
                else:
                    keys += state.catalog.live_functions.get(function, ())
    return keys


def _lint_calls_of(
    node: Any, base: StatementContext, line: int, seen: frozenset[str] = frozenset()
) -> list[Hit]:
    """The hits of the statements run by functions ``node`` calls or fires, directly or
    through one another: their bodies are judged as the same statements written at the
    call; one created elsewhere (an earlier file, the database) is named in the message."""
    keys = [k for k in _called_functions(node, base) if k not in seen]
    here = [k for k in keys if _origin_elsewhere(k, base) is None]
    queries = [q for k in here for q in function_body_queries(base.state.functions[k])]
    hits = _lint_embedded(queries, base, line, seen | set(keys)) if queries else []
    for key in keys:
        origin = _origin_elsewhere(key, base)
        if origin is None:
            continue
        queries = function_body_queries(base.state.functions[key])
        how = f"calling {_shown(key)}() ({origin}), which runs"
        for found in _lint_embedded(queries, base, line, seen | set(keys)):
            hits.append(replace(found, message=f"{how}: {found.message}"))
    return hits + _lint_reached(node, base, line, seen | set(keys))


def _lint_reached(
    node: Any, base: StatementContext, line: int, seen: frozenset[str] = frozenset()
) -> list[Hit]:
    """The hits of what ``node`` reaches in the database besides the routines it calls
    (lint.live_reach, issue 21 review21g G1/G4): the rules and defaults of the tables it
    writes and the queries of the views it reads, judged as the statements they run; the
    operators it uses, as calls of their functions (bodies and SET clauses). Only the guard
    rules' hits: the rest of what they run is the database's business, not the step's."""
    state = base.state
    catalog = state.catalog
    if not (catalog.written_sql or catalog.view_sql or catalog.operator_functions):
        return []
    hits: list[Hit] = []
    reached = [*written_sql(written_tables(node), state), *read_views(node, catalog)]
    for key, sql in reached:
        if key in seen:
            continue
        how = f"it runs {sql.what}, which runs"
        for found in _lint_embedded(list(sql.queries), base, line, seen | {key}):
            if found.rule in _GUARD_RULES:
                hits.append(replace(found, message=f"{how}: {found.message}"))
    for symbol, function in dict.fromkeys(used_operators(node, catalog)):
        how = f"its operator {symbol} calls the database's {function}()"
        name = function.partition(".")[2]
        hits += _set_clause_hits(name, how, base)
        keys = [name] if name in state.functions else of_schema(function, state)
        for key in keys:
            if key in seen:
                continue
            queries = function_body_queries(state.functions[key])
            for found in _lint_embedded(queries, base, line, seen | {key}):
                if found.rule in _GUARD_RULES:
                    hits.append(replace(found, message=f"{how}, which runs: {found.message}"))
    return hits


def _shown(key: str) -> str:
    """A function's key as a message names it (no overload suffix)."""
    return key.partition("/")[0]


def _origin_elsewhere(key: str, base: StatementContext) -> str | None:
    """Where function ``key`` was created when not in the file being linted (``created at
    file:line``, ``already in the database``); None when the file itself created it (or
    nothing says where)."""
    origin = base.state.function_origins.get(key)
    if origin is None or origin.startswith(f"{Path(base.path).name}:"):
        return None
    if origin == IN_DATABASE:
        return "already in the database, created outside the migrations"
    return f"created at {origin}"


def _lint_calls(stmt: ParsedStatement, base: StatementContext) -> list[Hit]:
    """The hits of the statements run by functions the statement calls or fires."""
    return _lint_calls_of(stmt.node, base, stmt.line)


#: The rules whose findings a bound function's body gives the CREATE that binds it.
_GUARD_RULES = frozenset(
    {timeout_guard_off.RULE.id, run_lock_release.RULE.id, self_termination.RULE.id}
)


_EVENT_TRIGGER_HINT = (
    "create the event trigger's function in the same file, without changing the timeouts; "
    "if it is known to be harmless, allow it with the reason"
)


def _lint_bound(stmt: ParsedStatement, ctx: StatementContext) -> list[Hit]:
    """The timeout-guard-off and run-lock-release findings of the functions a CREATE
    OPERATOR / AGGREGATE / CAST / EVENT TRIGGER / TYPE / OPERATOR CLASS (and ALTER OPERATOR
    FAMILY ... ADD FUNCTION) binds, reported at that CREATE: PostgreSQL
    calls them later without their names being written (an operator, an aggregate or a cast
    in an expression, an event trigger on every later DDL of this and later runs), so no
    call is there to judge. An event trigger's function whose body the files do not hold
    may do anything on every later DDL: refused too."""
    what, names = bound_functions(stmt.node)
    hits: list[Hit] = []
    for name in dict.fromkeys(names):
        how = f"{what} has PostgreSQL call {name}()"
        hits += _set_clause_hits(name, how, ctx)
        keys = resolve([name], ctx.state)
        for key in keys:
            origin = _origin_elsewhere(key, ctx)
            called = (
                how if origin is None else f"{what} has PostgreSQL call {_shown(key)}() ({origin})"
            )
            hits += _guard_hits_of_body(key, called, stmt, ctx)
        if not keys and isinstance(stmt.node, ast.CreateEventTrigStmt):
            hits.append(
                hit(
                    timeout_guard_off.RULE,
                    f"{how} on every later DDL (this run's and later runs'), and its body is "
                    "not in the migrations: it may switch lock_timeout off",
                    _EVENT_TRIGGER_HINT,
                )
            )
    return hits


def _lint_rebound(stmt: ParsedStatement, ctx: StatementContext) -> list[Hit]:
    """The guard findings of an ``ALTER FUNCTION / PROCEDURE / ROUTINE ... SET`` of a
    guarded setting, or a ``CREATE OR REPLACE FUNCTION``, given to a function that an object
    an earlier statement of the migrations made has PostgreSQL call with no call written
    (a trigger, a DEFAULT, a view's query, an event trigger, an operator: Catalog.bindings),
    reported at that statement (judged after it is recorded: with the new SET clauses and
    body). Every later use runs the function as it is now, and none of them writes its name,
    so none is judged as a call: a write that fired the trigger waited 8.7 s behind a holder
    with no lock timeout, exit 0 (issue 21, review 21i E16). The same judgement as at the
    CREATE that binds a function which already has them (``_lint_bound``, CREATE TRIGGER)."""
    node = stmt.node
    bindings = ctx.state.catalog.bindings
    if not bindings:
        return []
    if isinstance(node, ast.AlterFunctionStmt):
        routine = node.func
        if routine is None or not routine.objname or not function_settings(node.actions):
            return []
        name, verb = (
            str(routine.objname[-1].sval),
            _ALTER_VERBS.get(node.objtype or ObjectType.OBJECT_FUNCTION, "ALTER"),
        )
    elif isinstance(node, ast.CreateFunctionStmt) and node.replace and node.funcname:
        name = str(node.funcname[-1].sval)
        verb = "CREATE OR REPLACE " + ("PROCEDURE" if node.is_procedure else "FUNCTION")
    else:
        return []
    what = bindings.get(name)
    if what is None:
        return []
    how = f"{verb} {name}(): PostgreSQL calls it for {what}, with no call written"
    hits = _set_clause_hits(name, how, ctx, _REBOUND_HINT)
    if isinstance(node, ast.CreateFunctionStmt):
        for key in resolve([name], ctx.state):
            hits += _guard_hits_of_body(key, how, stmt, ctx)
    return hits


#: How an ALTER FUNCTION / PROCEDURE / ROUTINE is named in messages, by its object type.
_ALTER_VERBS = {
    ObjectType.OBJECT_FUNCTION: "ALTER FUNCTION",
    ObjectType.OBJECT_PROCEDURE: "ALTER PROCEDURE",
    ObjectType.OBJECT_ROUTINE: "ALTER ROUTINE",
}


_REBOUND_HINT = (
    "leave lock_timeout and statement_timeout out of the function's SET clauses and body "
    "(give the steps their timeouts with -- safemigrate: lock-timeout=DUR); if the setting "
    "must change, allow it with the reason"
)


def _set_clause_hits(
    name: str, how: str, ctx: StatementContext, hint: str | None = None
) -> list[Hit]:
    """The timeout-guard-off hits of function ``name``'s own SET clauses, which PostgreSQL
    calls with no call written (``how`` says through what; ``hint``: what to do instead,
    by default bind another function)."""
    hits: list[Hit] = []
    functions = ctx.state.catalog.function_timeouts
    for change in of_function(name, functions, how + ", whose SET clause"):
        why = timeout_guard_off.refusal(change, ctx.ceilings.lock_ms, ctx.ceilings.statement_ms)
        if why is not None:
            hits.append(
                hit(
                    timeout_guard_off.RULE,
                    f"{why}: it removes the guard safemigrate runs every step under",
                    hint or _BOUND_HINT,
                )
            )
    return hits


def _guard_hits_of_body(
    key: str, how: str, stmt: ParsedStatement, ctx: StatementContext
) -> list[Hit]:
    """The guard rules' hits of the body of function ``key`` run where ``stmt`` is, each
    message saying how it runs (``how``)."""
    queries = function_body_queries(ctx.state.functions[key])
    return [
        replace(found, message=f"{how}, which runs: {found.message}")
        for found in _lint_embedded(queries, ctx, stmt.line, frozenset({key}))
        if found.rule in _GUARD_RULES
    ]


def _lint_event_triggers(stmt: ParsedStatement, ctx: StatementContext) -> list[Hit]:
    """The guard findings of the database's enabled event triggers ``stmt`` fires (see
    lint.event_triggers): PostgreSQL runs their functions inside the statement, before or
    after its work, so a body that switches lock_timeout off leaves the statement's own lock
    wait unguarded. The migrations' newest body of the function, if they replace it, else
    the database's; the function's SET clauses too."""
    hits: list[Hit] = []
    for trigger in ctx.state.catalog.live_event_triggers:
        if not fires(trigger, stmt.node):
            continue
        tag = command_tag(stmt.node) or "this DDL statement"
        how = (
            f"{tag} fires the database's event trigger {trigger.name} ({trigger.event}), "
            f"which calls {trigger.function}()"
        )
        name = trigger.function.partition(".")[2]
        hits += _set_clause_hits(name, how, ctx)
        keys = [name] if name in ctx.state.functions else of_schema(trigger.function, ctx.state)
        for key in keys:
            hits += _guard_hits_of_body(key, how, stmt, ctx)
    return hits


_BOUND_HINT = (
    "bind a function that leaves lock_timeout and statement_timeout alone; if the setting "
    "must change, allow it with the reason"
)


def transactions_of(statements: tuple[ParsedStatement, ...]) -> list[Transaction]:
    """The linter's Transaction of each statement: one per block, shared by its statements."""
    blocks: dict[int, Transaction] = {}
    result = []
    for stmt in statements:
        if stmt.block is None:
            result.append(Transaction("own", stmt.line))
            continue
        tx = blocks.get(stmt.block.number)
        if tx is None:
            tx = blocks[stmt.block.number] = Transaction(stmt.block.kind, stmt.block.line)
        result.append(tx)
    return result


def lint_text(
    path: str,
    text: str,
    *,
    pg_version: int = DEFAULT_PG_VERSION,
    concurrent_indexes: ConcurrentIndexes | str = "rewrite",
    ceilings: TimeoutCeilings | None = None,
    safe_rewrites: str = "rewrite",
    catalog: Catalog | None = None,
    parsed: ParsedFile | None = None,
) -> FileResult:
    """Lint the SQL ``text`` of the migration file ``path`` (used in findings only).

    ``catalog`` is the schema earlier files built (lint_directory passes one along the
    directory); it is updated with what this file does. ``parsed``: ``text`` as the runner
    already read it (``planning.migrations.RunnerReading.linted``), so it is not parsed again.
    """
    if parsed is None:
        # The runner's view is always taken under "rewrite": the rules judge the lint's own
        # concurrent_indexes and safe_rewrites policies themselves.
        # No runner facts (locks, session changes, index definitions): no rule reads them.
        parsed = parse_file(path, text, concurrent_indexes="rewrite", runner_facts=False)
    refusals = [p for p in parsed.problems if p.kind != "non-transactional-in-block"]
    findings = [problem_finding(p) for p in refusals]
    steps_known = not refusals
    if steps_known and not parsed.statements:
        findings.append(
            _meta(
                path,
                EMPTY_MIGRATION,
                1,
                1,
                "no SQL statements: applied as an empty migration (recorded, nothing run)",
                "write the migration's SQL before it is applied anywhere, or delete the file",
            )
        )

    shared = catalog if catalog is not None else Catalog()
    state = FileState(
        catalog=shared,
        not_null_proven=shared.not_null_proven,
        search_path_schema=shared.search_path_schema,
        search_path=shared.search_path,
        # The bodies and triggers of the functions earlier files created are called, fired
        # and bound in this one as if created here (issue 21 G5).
        functions=shared.function_bodies,
        function_origins=shared.function_origins,
        trigger_functions=shared.trigger_functions,
    )
    if shared.live:
        # Against a database, the run's pending files are one run: what an earlier one
        # created is as new as what this file created (no application knows it yet).
        state.created_tables = shared.run_created_tables
        state.created_columns = shared.run_created_columns
        state.created_indexes = shared.run_created_indexes
        state.created_views = shared.run_created_views
        state.acting_tables = shared.run_acting_tables
        state.event_triggers = shared.event_triggers
    hits_of: list[list[Hit]] = []
    transactions = transactions_of(parsed.statements)
    for index, (stmt, tx) in enumerate(zip(parsed.statements, transactions, strict=True)):
        ctx = StatementContext(
            path=path,
            pg_version=pg_version,
            concurrent_indexes=concurrent_indexes,
            state=state,
            tx=tx,
            statement=stmt.statement if steps_known else None,
            steps_known=steps_known,
            text=stmt.text,
            line=stmt.line,
            ceilings=ceilings or TimeoutCeilings(),
            safe_rewrites=safe_rewrites,
            following=_following(parsed.statements, transactions, index),
            preceding=_preceding(parsed.statements, transactions, index),
            step_options=_step_options(parsed, stmt) if steps_known else None,
        )
        # A SET LOCAL search_path (or role) is over once a statement of another transaction
        # runs: that statement's rules already resolve without it (issue 20 review F2).
        end_of_transaction(state, tx.id)
        hits = _with_facts(_run_rules(stmt.node, ctx), state)
        hits.extend(_with_facts(_lint_calls(stmt, ctx), state))
        hits.extend(_with_facts(_lint_bound(stmt, ctx), state))
        hits.extend(_with_facts(_lint_event_triggers(stmt, ctx), state))
        record(stmt.node, ctx)
        hits.extend(_with_facts(_lint_rebound(stmt, ctx), state))
        if isinstance(stmt.node, ast.DoStmt):
            hits.extend(_with_facts(_lint_do_block(stmt, ctx), state))
        hits_of.append(hits)

    # The runner's session keeps the search_path for the next file (lint.search_path).
    end_of_transaction(state, None)
    shared.event_triggers = shared.event_triggers or (shared.live and state.event_triggers)
    shared.search_path_schema = state.search_path_schema
    shared.search_path = state.search_path
    allows = find_allows(parsed.allows)
    findings.extend(_apply_allows(path, parsed.statements, hits_of, allows))
    findings = list(dict.fromkeys(findings))
    findings.sort(key=lambda f: (f.line, f.column))
    return FileResult(findings, bool(refusals))


def _step_options(parsed: ParsedFile, stmt: ParsedStatement) -> StepOptions | None:
    """The directives of the step ``stmt`` starts; None when it starts none."""
    if stmt.step is None:
        return None
    step = parsed.steps[stmt.step]
    return step.options if step.statements and step.statements[0] is stmt.statement else None


def _following(
    statements: tuple[ParsedStatement, ...], transactions: list[Transaction], index: int
) -> tuple[Any, ...]:
    """The parse trees of the statements after statement ``index`` in its transaction (none
    for a statement that is its own step: its transaction ends with it)."""
    tx = transactions[index]
    if not tx.is_block:
        return ()
    later = zip(statements[index + 1 :], transactions[index + 1 :], strict=True)
    return tuple(s.node for s, t in later if t is tx)


def _preceding(
    statements: tuple[ParsedStatement, ...], transactions: list[Transaction], index: int
) -> tuple[Any, ...]:
    """The parse trees of the statements before statement ``index`` in its transaction."""
    tx = transactions[index]
    if not tx.is_block:
        return ()
    earlier = zip(statements[:index], transactions[:index], strict=True)
    return tuple(s.node for s, t in earlier if t is tx)


def _with_facts(hits: list[Hit], state: FileState) -> list[Hit]:
    """``hits`` with the live catalog's sizes on their costs (as the schema is at this
    statement: a table renamed earlier in the run keeps its size, one created in it has
    none); unchanged without a live catalog, where nothing is known of sizes."""
    catalog = state.catalog
    if not catalog.live:
        return hits
    return [h if h.cost is None else replace(h, facts=cost_facts(h.cost, state)) for h in hits]


def cost_facts(cost: Cost, state: FileState) -> CostFacts:
    """The sizes at the start of the run of the tables ``cost`` grows with (0 for a table
    created earlier in the run; unknown for one the live catalog does not hold)."""
    if cost.tables is None:
        return CostFacts(cost.kind)
    sizes: list[TableSize] = []
    for table in dict.fromkeys(cost.tables):
        size = state.catalog.sizes.get(table)
        if size is None and table in state.created_tables:
            # As the migration writes it: the schema only when not the current one.
            plain = table.schema == state.search_path_schema
            shown = show(QualifiedName(None, table.name) if plain else table)
            size = TableSize(shown, 0, 0, 0.0, new=True)
        if size is None:
            return CostFacts(cost.kind)
        sizes.append(size)
    return CostFacts(cost.kind, tuple(sizes))


def _apply_allows(
    path: str, stmts: tuple[ParsedStatement, ...], hits_of: list[list[Hit]], allows: list[Allow]
) -> list[Finding]:
    """The statements' findings after suppression, plus the allow directives' own findings."""
    findings: list[Finding] = []
    statement_starts = [s.start for s in stmts]
    attached: dict[int, list[Allow]] = {}
    for allow in allows:

        def report(rule: Rule, message: str, hint: str, allow: Allow = allow) -> None:
            findings.append(_meta(path, rule, allow.line, allow.column, message, hint))

        for rule_id in allow.rule_ids:
            if rule_id not in SUPPRESSIBLE:
                what = "cannot be suppressed" if rule_id in _META_IDS else "is not a rule"
                report(
                    UNKNOWN_RULE_IN_ALLOW,
                    f"allow names {rule_id!r}, which {what}: it suppresses nothing",
                    "use the id of a statement rule (safemigrate check --explain RULE)",
                )
        if not allow.rule_ids:
            report(
                UNKNOWN_RULE_IN_ALLOW,
                "allow names no rule: it suppresses nothing",
                "write -- safemigrate: allow <rule-id> -- <reason>",
            )
        if not allow.reason:
            report(
                ALLOW_WITHOUT_REASON,
                "allow without a reason suppresses nothing",
                "say why it is safe: -- safemigrate: allow <rule-id> -- <reason>",
            )
            continue
        index = bisect_right(statement_starts, allow.start)
        inside = index > 0 and stmts[index - 1].stop > allow.start
        if not allow.own_line or inside or index == len(stmts):
            where = (
                "is not on its own line"
                if not allow.own_line
                else "is inside a statement"
                if inside
                else "is not followed by a statement"
            )
            if any(r in SUPPRESSIBLE for r in allow.rule_ids):
                report(
                    UNUSED_ALLOW,
                    f"allow {where}: it suppresses nothing",
                    "put it on its own line in the comments directly before the statement",
                )
            continue
        attached.setdefault(index, []).append(allow)

    for index, (stmt, hits) in enumerate(zip(stmts, hits_of, strict=True)):
        allowed = attached.get(index, [])
        for h in hits:
            by = [a for a in allowed if h.rule in a.rule_ids]
            for allow in by:
                allow.used.add(h.rule)
            if not by or not h.suppressible:
                message = h.message
                if by:
                    message += " (an allow comment cannot suppress this)"
                findings.append(
                    Finding(
                        path, stmt.line, stmt.column, h.rule, h.severity, message, h.hint, h.facts
                    )
                )
    for allowed in attached.values():
        for allow in allowed:
            for rule_id in allow.rule_ids:
                if rule_id in SUPPRESSIBLE and rule_id not in allow.used:
                    findings.append(
                        _meta(
                            path,
                            UNUSED_ALLOW,
                            allow.line,
                            allow.column,
                            f"allow {rule_id} suppresses nothing: the rule does not fire on "
                            "the next statement",
                            "remove the allow, or move it directly before the statement it "
                            "is about",
                        )
                    )
    return findings


def lint_file(
    path: Path,
    *,
    pg_version: int = DEFAULT_PG_VERSION,
    concurrent_indexes: ConcurrentIndexes | str = "rewrite",
    check_file_name: bool = True,
    ceilings: TimeoutCeilings | None = None,
    safe_rewrites: str = "rewrite",
    catalog: Catalog | None = None,
) -> FileResult:
    """Lint the migration file ``path``, and its name unless ``check_file_name`` is False.

    A badly named file is bad input (the runner refuses the directory), but its SQL is still
    linted.
    """
    misnamed = name_problem(path) if check_file_name else None
    before = [problem_finding(misnamed)] if misnamed is not None else []
    try:
        text = read_sql(path)
    except MigrationFileError as err:
        return FileResult([*before, invalid_file(str(path), err)], True)
    result = lint_text(
        str(path),
        text,
        pg_version=pg_version,
        concurrent_indexes=concurrent_indexes,
        ceilings=ceilings,
        safe_rewrites=safe_rewrites,
        catalog=catalog,
    )
    return FileResult([*before, *result.findings], result.bad_input or misnamed is not None)
