"""The lint gate: what ``up``, ``plan`` and ``rehearse`` do with lint findings on pending steps.

Only pending steps are judged: applied and baselined steps (and the applied steps of a partially
applied migration) are never linted again, so adopting an existing set with ``baseline`` never
blocks on its history. Each pending migration's file is linted whole (so a table created earlier
in the file counts as new), and each finding is given to the step whose lines hold it; the allow
comments in the lines before a statement belong to that statement's step.

With ``lint_gate = "error"`` (the default) a run is refused (exit 7, nothing written) while an
error-severity finding on a pending step is not suppressed by ``-- safemigrate: allow RULE --
reason``. Findings about allow comments themselves (an allow without a reason, an unused one)
are shown but never block: they do not make a statement unsafe, and the statement's own finding
still blocks as long as the allow does not suppress it. ``warn`` shows the findings and applies;
``off`` does not lint. Migrations up to ``lint_gate_after`` are not judged (like
strong_migrations' ``start_after``): the history a project had before adopting the gate, when
it is run on a fresh database (CI, a new developer). Statements the runner rewrites safely (a
plain CREATE INDEX with ``concurrent_indexes = "rewrite"``) are warnings, not errors, exactly as
in ``check``.

Against a database the caller passes settings whose ``pg_version`` is the server's own major
version (``run.server_settings``) and the live schema (``db.schema.lint_catalog``): the
pending files are judged on top of the tables as they really are, not as the directory's
history would have built them. Pure apart from reading the migration files: no database, no
click.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .config import Settings
from .errors import LintGateError
from .events import GateFinding, LintFindings
from .lint import Finding, lint_directory, lint_paths
from .lint.catalog import Catalog
from .lint.options import timeout_ceilings
from .lint.rules.meta import META_RULES
from .pending import PlannedStep
from .source.layouts import resolve as resolve_layout

#: Rules about the files and allow comments themselves: shown, never blocking.
NON_BLOCKING_RULES = frozenset(rule.id for rule in META_RULES)


def blocks(finding: Finding) -> bool:
    """True when ``finding`` makes ``lint_gate = "error"`` refuse: an error about a statement.

    Suppressed findings never reach here: the linter drops a finding whose statement carries an
    allow comment naming its rule with a reason.
    """
    return finding.severity == "error" and finding.rule not in NON_BLOCKING_RULES


@dataclass(frozen=True)
class GateVerdict:
    """The lint gate's judgement of a run's pending steps."""

    #: The lint_gate setting: off, warn or error.
    mode: str
    #: Every finding on a pending step, in run order.
    findings: tuple[GateFinding, ...]

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
        """The refusal (exit 7), naming the first blocking finding and the ways out."""
        first = self.blocking[0]
        count = len(self.blocking)
        more = f" (and {count - 1} more)" if count > 1 else ""
        return LintGateError(
            f"the lint gate refused the run: {first.file}:{first.line} step "
            f"{first.step}/{first.steps} [{first.rule}] {first.message}{more}; "
            "nothing was applied",
            hint=f"make the statement safe (safemigrate check --explain {first.rule}), or, if it "
            f"is safe here, put '-- safemigrate: allow {first.rule} -- <reason>' on the line "
            'before it; lint_gate = "warn" (--lint-gate warn) applies with findings shown',
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


def judge(planned: Sequence[PlannedStep], findings: Sequence[Finding], mode: str) -> GateVerdict:
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
                    message=finding.message,
                    hint=finding.hint,
                    blocking=blocks(finding),
                ),
            )
        )
    judged.sort(key=lambda j: (j[0], j[1]))
    return GateVerdict(mode, tuple(j[2] for j in judged))


def lint_pending(
    planned: Sequence[PlannedStep], settings: Settings, catalog: Catalog | None = None
) -> list[Finding]:
    """The lint findings of the files of ``planned`` steps.

    Without a database each file is judged after the directory's earlier files (as ``check``
    judges it: against the schema the history built). With ``catalog``, the live database's
    schema, the pending files alone are judged in order on top of it: the applied ones are
    already in it and are not replayed.
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


def judged_steps(planned: Sequence[PlannedStep], settings: Settings) -> list[PlannedStep]:
    """The planned steps the gate judges: all of them, except migrations up to
    ``lint_gate_after`` (history adopted from before the gate, run on a fresh database)."""
    after = settings.lint_gate_after
    return [p for p in planned if after is None or p.migration.version > after]


def decide(
    planned: Sequence[PlannedStep], findings: Sequence[Finding], settings: Settings
) -> GateVerdict:
    """The verdict on ``planned`` given their files' ``findings``, under the settings."""
    if settings.lint_gate == "off":
        return GateVerdict("off", ())
    return judge(judged_steps(planned, settings), findings, settings.lint_gate)


def verdict(
    planned: Sequence[PlannedStep],
    settings: Settings,
    catalog: Callable[[], Catalog] | None = None,
) -> GateVerdict:
    """The gate's verdict on ``planned`` under the settings' lint_gate (no lint when off).

    ``catalog`` reads the live schema to judge against; it is called only when there is
    something to lint.
    """
    if settings.lint_gate == "off":
        return GateVerdict("off", ())
    judged = judged_steps(planned, settings)
    live = catalog() if catalog is not None and judged else None
    return judge(judged, lint_pending(judged, settings, live), settings.lint_gate)
