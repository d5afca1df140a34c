"""The runner's view of a migration file: the file as ``source`` reads it, with the form of
each plain statement that has a safer one decided under the settings (``policy``): CONCURRENTLY,
its constraint recipe, in batches, or as written with a note; or refused, a problem of the file
at the place the reading met it. Pure, no I/O.

``source.parse.read_file`` reads the facts once; this module decides, and changes only what the
decision changes: the statement (its run text, locks, notes), its step's mode and options.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..core.model import (
    ConcurrentIndexes,
    ConstraintRewrite,
    LockMode,
    LockNeed,
    SafeRewrites,
    Statement,
    Step,
    StepOptions,
    TxMode,
    merge_needs,
)
from ..source.parse import ParsedFile, ParsedStatement, read_file
from ..source.plain_statements import SaferCandidate
from ..source.scanning import FileProblem
from ..statements import parsed as sqlinfo
from ..statements import recipes
from ..statements.locks import statement_locks
from ..statements.type_change import TypeChange
from .policy import SaferForm, batch_form, constraint_recipe, index_form, type_change_form


def parse_file(
    path: str,
    text: str,
    *,
    concurrent_indexes: ConcurrentIndexes = "rewrite",
    safe_rewrites: SafeRewrites = "rewrite",
    runner_facts: bool = True,
) -> ParsedFile:
    """Read ``text`` (``source.parse.read_file``) and decide its safer forms (``decide``)."""
    return decide(
        read_file(path, text, runner_facts=runner_facts),
        concurrent_indexes=concurrent_indexes,
        safe_rewrites=safe_rewrites,
    )


def build_steps(
    path: str,
    text: str,
    *,
    concurrent_indexes: ConcurrentIndexes = "rewrite",
    safe_rewrites: SafeRewrites = "rewrite",
) -> list[Step]:
    """The steps the runner makes of ``text``; raises the file's first MigrationFileError."""
    parsed = parse_file(
        path, text, concurrent_indexes=concurrent_indexes, safe_rewrites=safe_rewrites
    )
    parsed.raise_first()
    return list(parsed.steps)


@dataclasses.dataclass
class _Decided:
    """A candidate's decision: the statement it runs as, and what its step becomes."""

    statement: Statement
    #: The step's new mode (a statement run CONCURRENTLY or as its recipe), else None.
    mode: TxMode | None = None
    #: True when the batch options no longer apply (nothing to batch).
    unbatched: bool = False


def decide(
    parsed: ParsedFile,
    *,
    concurrent_indexes: ConcurrentIndexes = "rewrite",
    safe_rewrites: SafeRewrites = "rewrite",
) -> ParsedFile:
    """``parsed`` with every candidate's form decided: the statements, steps and problems the
    runner takes (a file without candidates comes back as it is)."""
    if not any(member.candidate is not None for member in parsed.statements):
        return parsed
    problems = list(parsed.problems)
    refused = 0
    members: list[ParsedStatement] = []
    steps: dict[int, tuple[TxMode | None, bool]] = {}
    for member in parsed.statements:
        candidate = member.candidate
        if candidate is None:
            members.append(member)
            continue
        chosen = _form(candidate, concurrent_indexes, safe_rewrites)
        if chosen.refusal is not None:
            problem = FileProblem(parsed.path, member.line, chosen.refusal, chosen.hint)
            problems.insert(candidate.problem_at + refused, problem)
            refused += 1
            members.append(member)
            continue
        decided = _apply(member, candidate, chosen, parsed.runner_facts)
        if decided is None:
            members.append(member)
            continue
        context = "autocommit" if decided.mode is not None else member.context
        members.append(dataclasses.replace(member, statement=decided.statement, context=context))
        if member.step is not None and (decided.mode is not None or decided.unbatched):
            steps[member.step] = (decided.mode, decided.unbatched)
    return dataclasses.replace(
        parsed,
        statements=tuple(members),
        steps=_steps(parsed.steps, members, steps),
        problems=tuple(problems),
    )


def _form(
    candidate: SaferCandidate, concurrent_indexes: ConcurrentIndexes, safe_rewrites: SafeRewrites
) -> SaferForm:
    """The policy's decision on ``candidate`` under the settings."""
    if candidate.kind == "index":
        return index_form(concurrent_indexes, candidate.plain)
    if candidate.kind == "constraint":
        assert candidate.recipe is not None
        return constraint_recipe(safe_rewrites, candidate.plain, candidate.recipe)
    if candidate.kind == "type_change":
        return type_change_form(safe_rewrites, candidate.plain)
    return batch_form(candidate.plain)


def _apply(
    member: ParsedStatement, candidate: SaferCandidate, chosen: SaferForm, runner_facts: bool
) -> _Decided | None:
    """What ``chosen`` makes of ``member``; None when it runs as written without a note."""
    statement = member.statement
    if candidate.kind == "batch":
        if chosen.run_as == "batched":
            return _Decided(dataclasses.replace(statement, batch=candidate.batch))
        notes = (chosen.note,) if chosen.note else ()
        return _Decided(dataclasses.replace(statement, notes=notes), unbatched=True)
    if chosen.note is None:
        return None
    notes = (chosen.note,)
    recipe = candidate.recipe
    if chosen.run_as == "recipe" and isinstance(recipe, ConstraintRewrite):
        changed = dataclasses.replace(
            statement, non_transactional=True, constraint_rewrite=recipe, notes=notes
        )
        if runner_facts:
            changed = dataclasses.replace(changed, locks=recipe_locks(recipe))
        return _Decided(changed, mode=TxMode.RECIPE)
    if chosen.run_as == "concurrently":
        changed = _concurrently(statement, member.node, notes, runner_facts)
        return _Decided(changed, mode=TxMode.AUTOCOMMIT)
    if chosen.run_as == "online" and candidate.type_change is not None:
        changed = dataclasses.replace(
            statement, non_transactional=True, online_type_change=True, notes=notes
        )
        if runner_facts:
            changed = dataclasses.replace(changed, locks=type_change_locks(candidate.type_change))
        return _Decided(changed, mode=TxMode.ONLINE_TYPE)
    return _Decided(dataclasses.replace(statement, notes=notes))


def _concurrently(
    statement: Statement, node: Any, notes: tuple[str, ...], runner_facts: bool
) -> Statement:
    """A plain CREATE INDEX run as CREATE INDEX CONCURRENTLY: the rewritten text and, for the
    runner, the index build and the locks of the rewritten statement (from the tree the
    rewrite's own check parsed: its text is parsed once)."""
    rewritten, tree = sqlinfo.concurrent_rewrite(statement.text)
    changed = dataclasses.replace(
        statement, rewritten=rewritten, non_transactional=True, notes=notes
    )
    if not runner_facts:
        return changed
    locks, catalog_locks = statement_locks(tree)
    return dataclasses.replace(
        changed,
        index_build=sqlinfo.index_build(node),
        locks=tuple(locks),
        catalog_locks=tuple(catalog_locks),
    )


def recipe_locks(recipe: ConstraintRewrite) -> tuple[LockNeed, ...]:
    """The locks of a recipe's parts, strongest per relation (what the pre-check looks at)."""
    parts = recipes.recipe_parts(recipe, recipes.planned_name(recipe))
    # The scans run under the weaker locks of the VALIDATE and the CONCURRENTLY build: a
    # write-blocking lock here is only held for a moment.
    return tuple(
        dataclasses.replace(need, scans=need.scans and not need.mode.blocks_writes)
        for need in merge_needs(recipes.iter_locks(parts))
    )


def type_change_locks(change: TypeChange) -> tuple[LockNeed, ...]:
    """The lock the online type change takes on its table, strongest first: ACCESS EXCLUSIVE
    for a moment (expand, each ADD CHECK NOT VALID, the swap); it never rewrites and scans
    only under weaker locks (the backfill, CONCURRENTLY, VALIDATE)."""
    return (LockNeed(change.table, LockMode.ACCESS_EXCLUSIVE),)


def _steps(
    steps: tuple[Step, ...],
    members: list[ParsedStatement],
    changed: dict[int, tuple[TxMode | None, bool]],
) -> tuple[Step, ...]:
    """``steps`` with each step's statements the decided ones, and the mode or options a
    decision changed."""
    statements: dict[int, list[Statement]] = {}
    for member in members:
        if member.step is not None:
            statements.setdefault(member.step, []).append(member.statement)
    out = []
    for step in steps:
        decided = tuple(statements.get(step.index, ()))
        same = len(decided) == len(step.statements) and all(
            a is b for a, b in zip(decided, step.statements, strict=True)
        )
        if same and step.index not in changed:
            out.append(step)
            continue
        mode, unbatched = changed.get(step.index, (None, False))
        options = _unbatched(step.options) if unbatched else step.options
        # The online type change keeps the step as read: the run takes it back where the
        # live catalog shows the plain statement would not block (planning.online_type).
        written = step if mode is TxMode.ONLINE_TYPE else None
        out.append(Step(step.index, decided, mode or step.mode, options, as_written=written))
    return tuple(out)


def _unbatched(options: StepOptions) -> StepOptions:
    """``options`` without the batch options."""
    return dataclasses.replace(
        options, batch_size=None, batch_pause_ms=None, max_replica_lag_ms=None
    )
