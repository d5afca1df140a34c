"""The lint gate: what ``up``, ``plan`` and ``rehearse`` do with lint findings on pending steps.

Only pending steps are judged: applied and baselined steps (and the applied steps of a partially
applied migration) are never linted again, so adopting an existing set with ``baseline`` never
blocks on its history. Each pending migration's file is linted whole (so a table created earlier
in the file counts as new), and each finding is given to the step whose lines hold it; the allow
comments in the lines before a statement belong to that statement's step.

With ``lint_gate = "error"`` (the default) a run is refused (exit 7, nothing written) while an
error-severity finding on a pending step blocks and is not suppressed by ``-- safemigrate: allow
RULE -- reason``. Findings about allow comments themselves (an allow without a reason, an unused
one) are shown but never block: they do not make a statement unsafe, and the statement's own
finding still blocks as long as the allow does not suppress it. ``warn`` shows the findings and
applies; ``off`` does not lint (the guard below still does). Statements the runner rewrites
safely (a plain CREATE INDEX with ``concurrent_indexes = "rewrite"``) are warnings, not errors,
exactly as in ``check``.

Against a database (``run.connection.server_settings``, ``db.live_schema.lint_catalog``)
every pending step is judged against the database as it will be when the step runs:

- the pending files are linted in order on top of the live schema, as one run: a relation that
  did not exist when the run started and that an earlier pending step creates is new to every
  application, so the rules about existing tables do not apply to it (nor to its columns,
  indexes and constraints), as they do not to a table created earlier in the same file; nor
  once an existing table is attached or inherited below it (FileState.is_new). Names resolve
  with the search_path the step runs with (lint.search_path), the applied history's too;
- an error finding about lock cost (a rewrite, a scan, an index build: ``Finding.cost``) on
  existing tables smaller than ``gate_small_table`` (heap and TOAST, plus the indexes for a
  rewrite; partitions and children summed; sizes from the catalog when the run started) does
  not block: the lock is held for milliseconds. The message says the size it judged by;
- on a fresh database (``db.bootstrap``: nothing of its own, no journal) no finding about lock
  cost blocks, and a migration's own statement_timeout (or a long lock_timeout) is accepted by
  the timeout guard: nothing there can be stalled.

Findings about correctness (a statement PostgreSQL will refuse, a rename or drop of something
that existed when the run started) keep their severity everywhere. Without a database (``plan``
without ``--dsn``, and ``check``) nothing of this applies: the files are judged as if every
table existed and were large.

The guard (``timeout-guard-off``, ``run-lock-release``, ``self-termination``): a pending
statement that switches the runner's timeouts off, releases its run lock or ends or cancels the
runner's own backend is refused before anything is applied (exit 2), whatever ``lint_gate``
says, unless allowed with a reason where the rule allows that.

``lint_gate_after`` exempts the migrations up to that version while they are pending in
order (the history a fresh database is built from, CI, a new developer), like
strong_migrations' ``start_after``; a migration at or below it that arrives after newer ones
were applied (``allow_out_of_order``) is judged like any new one. Pure apart from reading the
migration files: no database, no click.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import LintGateError, MigrationFileError
from ..core.events import GateFinding, LintFindings
from ..core.model import QualifiedName, TxMode
from ..core.sizes import format_size
from ..lint import Finding, lint_directory, lint_paths
from ..lint.catalog import Catalog
from ..lint.findings import CostFacts
from ..lint.options import timeout_ceilings
from ..lint.rules import run_lock_release, self_termination, timeout_guard_off
from ..lint.rules.meta import META_RULES
from ..settings.config import Settings
from ..source.layouts import resolve as resolve_layout
from ..statements import read_only
from .migrations import RunnerReading
from .pending import PlannedStep

if TYPE_CHECKING:
    from ..source import ParsedFile

#: Rules about the files and allow comments themselves: shown, never blocking.
NON_BLOCKING_RULES = frozenset(rule.id for rule in META_RULES)
#: The guard's rules: their error findings refuse a run (exit 2) whatever lint_gate says.
GUARD_RULES = frozenset(
    {timeout_guard_off.RULE.id, run_lock_release.RULE.id, self_termination.RULE.id}
)
#: Words of a statement that may trip a guard rule (lower case): a pending set without any is
#: not linted for the guard alone (lint_gate = "off"), which keeps such runs fast. EXECUTE
#: too: dynamic SQL whose text the lint cannot know (``'SET LOCAL lock' || '_timeout = 0'``)
#: names no other word, and the guard refuses it whatever lint_gate says (issue 21 G3).
_GUARD_WORDS = (
    "lock_timeout",
    "statement_timeout",
    "set_config",
    "pg_settings",
    "reset",
    "advisory_unlock",
    "pg_backend_pid",
    "execute",
)
_GUARD_KINDS = frozenset(
    {"DiscardStmt", "AlterRoleSetStmt", "AlterDatabaseSetStmt", "AlterSystemStmt"}
)
#: Costs that grow with the tables' size (a brief strong lock or a lifted timeout does not).
_SIZED = frozenset({"rewrite", "scan", "index build"})


@dataclass(frozen=True)
class GateContext:
    """What the gate knows of the database besides its schema (nothing without one)."""

    #: The run bootstraps a fresh database (db.bootstrap): nothing there can be in use.
    fresh: bool = False
    #: gate_small_table: lock-cost findings on existing tables below this do not block (0:
    #: never; without a database there are no sizes anyway).
    small_table_bytes: int = 0
    #: The run resumes a bootstrap an earlier run began (db.bootstrap): the database was
    #: fresh then, so every relation in it now was created by that bootstrap's steps and is
    #: judged as created in this run, as the run that began it judged it (issue 20 review F7),
    #: unless it holds gate_small_table or more by now: then its size decides, as on a
    #: database in use (review F5).
    resumed: bool = False
    #: The pending online type change steps by (version, step index): None where the recipe
    #: can carry the change by the live catalog, else why not (run/type_change.py). A step
    #: not here (no database, a table made earlier in the run) is judged as written.
    online_type: Mapping[tuple[int, int], str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Judgement:
    """How the gate judged one finding."""

    blocking: bool
    #: Why an error finding about a statement does not block here; None otherwise.
    not_blocking_because: str | None = None
    #: The size it was judged by (``acct: 100 rows, 16 kB``), when sizes were known.
    size: str | None = None


def describe_sizes(facts: CostFacts) -> str | None:
    """``acct: 100 rows, 16 kB`` (the tables a cost grows with, summed), None when unknown;
    the bytes are those the cost reads: heap and TOAST, plus the indexes for a rewrite."""
    if facts.sizes is None:
        return None
    sizes = facts.sizes
    bytes_ = judged_bytes(facts)
    first = sizes[0].table
    others = len(sizes) - 1
    name = f"{first} and {others} partition{'s' if others != 1 else ''}" if others else first
    if all(s.rows is not None for s in sizes):
        count = round(sum(s.rows or 0 for s in sizes))
        return f"{name}: {count:,} row{'s' if count != 1 else ''}, {format_size(bytes_)}"
    return f"{name}: {format_size(bytes_)}, never analyzed (no row count)"


def judged_bytes(facts: CostFacts) -> int:
    """The bytes a cost grows with: the heap and TOAST it reads, and for a rewrite the
    indexes it rebuilds too."""
    sizes = facts.sizes or ()
    return sum(s.bytes + (s.index_bytes if facts.kind == "rewrite" else 0) for s in sizes)


def judgement(finding: Finding, context: GateContext | None = None) -> Judgement:
    """How the gate judges ``finding``: an error about a statement blocks, unless it is about
    lock cost and the database makes that cost nil (fresh) or milliseconds (small tables).

    Suppressed findings never reach here: the linter drops a finding whose statement carries an
    allow comment naming its rule with a reason.
    """
    if finding.severity != "error" or finding.rule in NON_BLOCKING_RULES:
        return Judgement(False)
    facts = finding.cost
    if facts is None:
        return Judgement(True)
    context = context or GateContext()
    size = describe_sizes(facts)
    if context.fresh and not _filled_since(facts, context):
        why = (
            "fresh database: no session can be stalled by it yet"
            if facts.kind == "timeout"
            else "fresh database: nothing in it can be in use yet"
        )
        return Judgement(False, why, size)
    if facts.kind not in _SIZED or facts.sizes is None:
        return Judgement(True, None, size)
    if all(s.new for s in facts.sizes):
        return Judgement(False, "created earlier in this run: no application uses it yet", size)
    limit = context.small_table_bytes
    if judged_bytes(facts) < limit:
        return Judgement(
            False,
            f"{size}: the {facts.kind} holds its lock for milliseconds (below "
            f"gate_small_table, {format_size(limit)})",
            size,
        )
    return Judgement(True, None, size)


def _filled_since(facts: CostFacts, context: GateContext) -> bool:
    """True on a resumed bootstrap when the cost grows with tables that hold, at the rerun's
    start, gate_small_table or more: something filled them since the bootstrap began (issue 20
    review F5), so "nothing to protect" no longer holds and their size decides."""
    if not context.resumed or facts.kind not in _SIZED or facts.sizes is None:
        return False
    return context.small_table_bytes > 0 and judged_bytes(facts) >= context.small_table_bytes


def blocks(finding: Finding, context: GateContext | None = None) -> bool:
    """True when ``finding`` makes ``lint_gate = "error"`` refuse (see :func:`judgement`)."""
    return judgement(finding, context).blocking


@dataclass(frozen=True)
class GateVerdict:
    """The lint gate's judgement of a run's pending steps."""

    #: The lint_gate setting: off, warn or error.
    mode: str
    #: Every finding on a pending step, in run order.
    findings: tuple[GateFinding, ...]
    #: The judged migrations in run order, as (version, version as its file writes it): what
    #: ``--target`` could apply before the first blocking finding.
    pending: tuple[tuple[int, str], ...] = ()

    @property
    def blocking(self) -> tuple[GateFinding, ...]:
        """The findings that refuse the run when the gate is ``error``."""
        return tuple(f for f in self.findings if f.blocking)

    @property
    def refuses(self) -> bool:
        """True when the gate refuses to apply anything."""
        return self.mode == "error" and bool(self.blocking)

    def event(self) -> LintFindings:
        """The ``lint_findings`` event of this verdict."""
        return LintFindings(self.mode, self.refuses, self.findings)

    def error(self) -> LintGateError:
        """The refusal (exit 7), naming the first blocking finding and the ways out: the safe
        form, an allow comment, ``--target`` for the migrations before it, lint_gate."""
        first = self.blocking[0]
        count = len(self.blocking)
        more = f" (and {count - 1} more)" if count > 1 else ""
        size = f" ({first.size})" if first.size else ""
        return LintGateError(
            f"the lint gate refused the run: {first.file}:{first.line} step "
            f"{first.step}/{first.steps} [{first.rule}] {first.message}{size}{more}; "
            "nothing was applied",
            hint=f"make the statement safe (safemigrate check --explain {first.rule}), or, if it "
            f"is safe here, put '-- safemigrate: allow {first.rule} -- <reason>' on the line "
            f"before it;{self._target_hint(first.version)} "
            'lint_gate = "warn" (--lint-gate warn) applies with findings shown',
        )

    def _target_hint(self, version: int) -> str:
        """`` safemigrate up --target V applies the N pending migrations before it first;``
        when pending migrations come before the one refused (empty otherwise)."""
        versions = [v for v, _ in self.pending]
        if version not in versions:
            return ""
        before = [text for _, text in self.pending[: versions.index(version)]]
        if not before:
            return ""
        count = len(before)
        return (
            f" safemigrate up --target {before[-1]} applies the {count} pending "
            f"migration{'s' if count != 1 else ''} before it first;"
        )


def _owner(planned: Sequence[PlannedStep], migration_path: Path, line: int) -> PlannedStep | None:
    """The pending step of the file at ``migration_path`` whose lines hold ``line``.

    A step owns its statements' lines and the lines between the previous step and it (the
    comments before a statement); a finding in an applied step's lines has no owner.
    """
    for item in planned:
        if item.migration.path != migration_path:
            continue
        steps = item.migration.steps
        index = item.step.index
        # An empty migration's one step owns the whole file.
        end = item.step.last_line if item.step.statements else line
        begin = steps[index - 1].last_line + 1 if index > 0 else 1
        if begin <= line <= end:
            return item
    return None


#: Why the gate lets a rewriting type change through: the runner never runs the rewrite.
ONLINE_TYPE_CHANGE = (
    "runs as the online type change (shadow column, backfill in batches, swap): ACCESS "
    "EXCLUSIVE only for moments"
)


def runs_online(owner: PlannedStep, finding: Finding) -> bool:
    """True for the ``column-type-change`` finding of a step the policy gave the online type
    change's form (safer_forms: ``safe_rewrites = "rewrite"``, an existing table, outside any
    block, no ``no-rewrite``). It runs online only where this finding blocks and the live
    catalog says the recipe can carry it (GateContext.online_type); otherwise as written."""
    return finding.rule == "column-type-change" and owner.step.mode is TxMode.ONLINE_TYPE


def relieved_steps(verdict: GateVerdict) -> frozenset[tuple[int, int]]:
    """The steps, by (version, step index), whose blocking finding the online type change
    relieves: the ones that run online (every other such step runs as written)."""
    return frozenset(
        (f.version, f.step - 1)
        for f in verdict.findings
        if f.not_blocking_because == ONLINE_TYPE_CHANGE
    )


def judge(
    planned: Sequence[PlannedStep],
    findings: Sequence[Finding],
    mode: str,
    context: GateContext | None = None,
) -> GateVerdict:
    """The verdict on ``planned`` steps given the lint ``findings`` of their files."""
    by_name = {str(p.migration.path): p.migration.path for p in planned}
    by_name.update({p.migration.filename: p.migration.path for p in planned})
    order = {(p.migration.version, p.step.index): n for n, p in enumerate(planned)}
    judged: list[tuple[int, int, GateFinding]] = []
    for finding in findings:
        path = by_name.get(finding.file)
        owner = _owner(planned, path, finding.line) if path is not None else None
        if owner is None:
            continue
        verdict_of = judgement(finding, context)
        message = finding.message
        if verdict_of.blocking and runs_online(owner, finding) and context is not None:
            key = (owner.migration.version, owner.step.index)
            if key in context.online_type and context.online_type[key] is None:
                verdict_of = Judgement(False, ONLINE_TYPE_CHANGE, verdict_of.size)
            elif context.online_type.get(key) is not None:
                # It blocks as written: say why it cannot run online instead.
                message = f"{message} (not run online: {context.online_type[key]})"
        judged.append(
            (
                order[(owner.migration.version, owner.step.index)],
                finding.line,
                GateFinding(
                    version=owner.migration.version,
                    file=owner.migration.filename,
                    step=owner.step.index + 1,
                    steps=len(owner.migration.steps),
                    line=finding.line,
                    column=finding.column,
                    rule=finding.rule,
                    severity=finding.severity,
                    message=message,
                    hint=finding.hint,
                    blocking=verdict_of.blocking,
                    size=verdict_of.size,
                    not_blocking_because=verdict_of.not_blocking_because,
                ),
            )
        )
    judged.sort(key=lambda j: (j[0], j[1]))
    versions = {p.migration.version: p.migration.version_text for p in planned}
    return GateVerdict(mode, tuple(j[2] for j in judged), tuple(versions.items()))


def lint_pending(
    planned: Sequence[PlannedStep], settings: Settings, catalog: Catalog | None = None
) -> list[Finding]:
    """The lint findings of the files of ``planned`` steps.

    Without a database each file is judged after the directory's earlier files (as ``check``
    judges it: against the schema the history built). With ``catalog``, the live database's
    schema, the pending files alone are judged in order on top of it: the applied ones are
    already in it and are not replayed. A file the runner's loader read (``Migration.reading``)
    is judged from that reading, not parsed again.
    """
    paths = list({p.migration.path: None for p in planned})
    if not paths:
        return []
    ceilings = timeout_ceilings(settings)
    wanted = {str(Path(p).resolve()) for p in paths}
    history = lint_directory(
        settings.dir,
        pg_version=settings.pg_version,
        concurrent_indexes=settings.concurrent_indexes,
        ceilings=ceilings,
        safe_rewrites=settings.safe_rewrites,
        # Another tool's files: their up parts, read with the tool's rules.
        layout=resolve_layout(settings.dir, settings.layout),
        catalog=catalog,
        only=None if catalog is None else paths,
        read=runner_reads(planned),
    )
    if wanted <= {str(Path(f).resolve()) for f in history.files}:
        return [f for f in history.findings if str(Path(f.file).resolve()) in wanted]
    # Files outside the directory (a library caller's own list): each judged alone.
    report = lint_paths(
        paths,
        pg_version=settings.pg_version,
        concurrent_indexes=settings.concurrent_indexes,
        ceilings=ceilings,
        safe_rewrites=settings.safe_rewrites,
    )
    return list(report.findings)


def runner_reads(planned: Sequence[PlannedStep]) -> dict[tuple[str, str], ParsedFile]:
    """The files of ``planned`` as the runner's loader read them, by (path, text), as the
    linter reads them (``RunnerReading.linted``): ``lint_directory`` lints a file whose text is
    still that one from this reading instead of parsing it again."""
    read: dict[tuple[str, str], ParsedFile] = {}
    for p in planned:
        reading = p.migration.reading
        if not isinstance(reading, RunnerReading):
            continue  # read otherwise (a library caller's Migration): the linter reads it
        key = (str(p.migration.path), reading.text)
        if key not in read:
            read[key] = reading.linted()
    return read


def resumed_bootstrap(catalog: Catalog | None, context: GateContext | None) -> Catalog | None:
    """``catalog`` with, on a resumed bootstrap, every relation it holds counted as created
    in the run (see GateContext.resumed)."""
    if catalog is not None and context is not None and context.fresh and context.resumed:
        limit = context.small_table_bytes
        catalog.run_created_tables.update(
            table
            for table in catalog.tables
            if (size := catalog.sizes.get(table)) is not None
            and (limit == 0 or size.bytes + size.index_bytes < limit)
        )
    return catalog


def judged_steps(planned: Sequence[PlannedStep], settings: Settings) -> list[PlannedStep]:
    """The planned steps the gate judges: all of them, except migrations up to
    ``lint_gate_after`` that are pending in order (the history a fresh database is built
    from). One that arrived late, after newer migrations were applied, is judged: the
    setting means the history from before the gate was adopted, never a new file."""
    after = settings.lint_gate_after
    return [p for p in planned if after is None or p.migration.version > after or p.late]


def decide(
    planned: Sequence[PlannedStep],
    findings: Sequence[Finding],
    settings: Settings,
    context: GateContext | None = None,
) -> GateVerdict:
    """The verdict on ``planned`` given their files' ``findings``, under the settings."""
    if settings.lint_gate == "off":
        return GateVerdict("off", ())
    return judge(judged_steps(planned, settings), findings, settings.lint_gate, context)


def verdict(
    planned: Sequence[PlannedStep],
    settings: Settings,
    catalog: Callable[[], Catalog] | None = None,
    context: GateContext | None = None,
    *,
    findings: Sequence[Finding] | None = None,
) -> GateVerdict:
    """The gate's verdict on ``planned`` under the settings' lint_gate (no lint when off).

    ``findings``: the run's one lint of the pending files (``lint_pending``), when the caller
    has it, so the guard and the gate judge the same findings and nothing lints twice; else
    they are linted here. ``catalog`` reads the live schema to judge against; it is called
    only when there is something to lint. Every pending file is linted (those
    ``lint_gate_after`` exempts build the schema the later ones are judged on); only the
    judged steps' findings count.
    """
    if settings.lint_gate == "off":
        return GateVerdict("off", ())
    if not judged_steps(planned, settings):
        return GateVerdict(settings.lint_gate, ())
    if findings is None:
        live = resumed_bootstrap(catalog() if catalog is not None else None, context)
        findings = lint_pending(planned, settings, live)
    return decide(planned, findings, settings, context)


# -- created in this run, checked as the run goes (issue 20 review F4) -----------------------

_CREATING_KINDS = frozenset({"CreateStmt", "CreateTableAsStmt", "SelectStmt"})


def created_relations(
    planned: Sequence[PlannedStep], catalog: Catalog
) -> dict[tuple[int, int], tuple[QualifiedName, ...]]:
    """The relations each pending step creates (CREATE TABLE [IF NOT EXISTS], CREATE TABLE
    AS, CREATE MATERIALIZED VIEW, SELECT INTO; not temporary ones) that the live ``catalog``
    did not hold when the run started: the ones the gate judged as new to every application.
    Names as written (schema None: the step's current schema), by (version, step index)."""
    import pglast

    from ..statements.parsed import tree_of

    found: dict[tuple[int, int], tuple[QualifiedName, ...]] = {}
    for p in planned:
        names: list[QualifiedName] = []
        for statement in p.step.statements:
            if statement.kind not in _CREATING_KINDS:
                continue
            node = tree_of(statement)
            rel: Any = None
            if isinstance(node, pglast.ast.CreateStmt):
                rel = node.relation
            elif isinstance(node, pglast.ast.CreateTableAsStmt) and node.into is not None:
                rel = node.into.rel
            elif isinstance(node, pglast.ast.SelectStmt) and node.intoClause is not None:
                rel = node.intoClause.rel
            if rel is None or rel.relpersistence == "t":
                continue
            name = QualifiedName(rel.schemaname or None, str(rel.relname))
            if QualifiedName(name.schema or catalog.search_path_schema, name.name) in (
                catalog.tables
            ):
                continue  # it existed at the start: never judged as new
            names.append(name)
        if names:
            found[(p.migration.version, p.step.index)] = tuple(names)
    return found


# -- the guard -------------------------------------------------------------------------------


def may_trip_guard(
    planned: Sequence[PlannedStep], function_timeouts: Mapping[str, object] | None = None
) -> bool:
    """True when some pending statement may trip a guard rule, so that the files must be linted for
    the guard even with lint_gate = "off": it names a guarded setting, an advisory unlock or
    pg_backend_pid(), or is a DISCARD / ALTER ROLE or DATABASE ... SET, or the database holds a
    function with its own timeout (``function_timeouts``) that a statement may call."""
    if function_timeouts:
        return True
    for p in planned:
        options = p.step.options
        if options.statement_timeout_ms is not None or options.lock_timeout_ms is not None:
            return True  # a lock-timeout= or statement-timeout= directive above its ceiling

        for statement in p.step.statements:
            if statement.kind in _GUARD_KINDS:
                return True
            text = statement.text.lower()
            if any(word in text for word in _GUARD_WORDS):
                return True
    return False


def guard_error(
    planned: Sequence[PlannedStep],
    findings: Sequence[Finding],
    context: GateContext | None = None,
) -> MigrationFileError | None:
    """The refusal (exit 2, file:line) of the first pending statement a guard rule finds that
    switches the runner's timeouts off, releases its run lock or ends or cancels the runner's own
    backend, and that blocks here (see :func:`judgement`); None when there is none. Whatever
    lint_gate says."""
    guarded = [f for f in findings if f.rule in GUARD_RULES]
    judged = judge(planned, guarded, "error", context)
    if not judged.blocking:
        return None
    path_of = {p.migration.filename: p.migration.path for p in planned}
    first = judged.blocking[0]
    hint = first.hint
    if first.rule == timeout_guard_off.RULE.id or "allow it with the reason" in hint:
        hint = f"{hint} (-- safemigrate: allow {first.rule} -- <reason>)"
    return MigrationFileError(
        str(path_of.get(first.file, first.file)),
        f"refused: {first.message}",
        line=first.line,
        hint=hint,
    )


def judge_run(
    planned: Sequence[PlannedStep],
    settings: Settings,
    catalog: Callable[[], Catalog] | None = None,
    context: GateContext | None = None,
    *,
    function_timeouts: Callable[[], Mapping[str, object]] | None = None,
) -> GateVerdict:
    """The guard, then the gate, on a run's pending steps, from one lint of their files.

    Raises the guard's MigrationFileError (exit 2) whatever lint_gate says; returns the
    gate's verdict (raising its refusal is the caller's business, after showing the
    findings). ``catalog`` reads the live schema, ``function_timeouts`` only the routines
    with their own timeouts (enough to know whether the guard needs a lint when the gate is
    off).
    """
    if not planned:
        return GateVerdict(settings.lint_gate, ())
    # A read-only transaction cannot hold the step's journal row (issue 21 review21f F3).
    read_only.refuse_read_only([(p.migration, p.step) for p in planned])
    gate_on = settings.lint_gate != "off" and bool(judged_steps(planned, settings))
    probe = function_timeouts() if function_timeouts is not None and not gate_on else None
    if not gate_on and not may_trip_guard(planned, probe):
        return GateVerdict(settings.lint_gate, ())
    live = catalog() if catalog is not None else None
    findings = lint_pending(planned, settings, resumed_bootstrap(live, context))
    refusal = guard_error(planned, findings, context)
    if refusal is not None:
        raise refusal
    if settings.lint_gate == "off":
        return GateVerdict("off", ())
    return decide(planned, findings, settings, context)
