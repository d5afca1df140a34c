"""The linter's data: severities, findings, rules and the report. Frozen, no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    # Annotations only: check answered from its cache imports no more than this module.
    from ..core.model import QualifiedName

Severity = Literal["error", "warning", "info"]

#: What a finding about locks costs: the work PostgreSQL does while it holds the lock (a
#: ``rewrite`` of the table and its indexes, a ``scan`` to check rows, an ``index build``),
#: ``lock`` for a strong lock that is brief once granted, ``timeout`` for a migration that
#: lifts a timeout of the runner's (only a fresh database makes that harmless).
CostKind = Literal["rewrite", "scan", "index build", "lock", "timeout"]


@dataclass(frozen=True)
class Cost:
    """Why a finding is about lock cost rather than correctness, and the tables that cost
    grows with (their sizes, partitions and children included, decide how long the lock is
    held). ``tables`` is None when the cost does not grow with a few tables' size (a schema,
    a database, every column of a domain type)."""

    kind: CostKind
    tables: tuple[QualifiedName, ...] | None = None


@dataclass(frozen=True)
class TableSize:
    """One table's size in the live catalog when the run started (for the lint gate)."""

    #: The table as SQL writes it.
    table: str
    #: pg_table_size: the heap and its TOAST table.
    bytes: int
    #: pg_indexes_size: every index of the table (a rewrite rebuilds them all).
    index_bytes: int
    #: The planner's estimate (pg_class.reltuples); None when never vacuumed or analyzed.
    rows: float | None
    #: True for a table created earlier in the run (no size at its start: empty, unseen).
    new: bool = False


@dataclass(frozen=True)
class CostFacts:
    """A lock-cost finding's cost, with the sizes the live catalog gives its tables."""

    kind: CostKind
    #: The sizes of the tables the cost grows with at the start of the run (a table created
    #: earlier in the run has size 0); None when the size is not known (not a table's cost,
    #: or a table the live catalog does not hold). Always None without a database.
    sizes: tuple[TableSize, ...] | None = None


#: Sort order of severities, most severe first.
SEVERITY_RANK: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Finding:
    """One problem found in one migration file."""

    file: str
    #: 1-based line and column of the statement (or comment, or file) the finding is about.
    line: int
    column: int
    rule: str
    severity: Severity
    #: What the statement does to production.
    message: str
    #: The safe alternative.
    hint: str
    #: Set for a finding about lock cost rather than correctness (the lint gate may find it
    #: harmless: a fresh database, a small table); None for a correctness finding.
    cost: CostFacts | None = None

    def to_dict(self) -> dict[str, object]:
        """The finding as a JSON-ready dict (keys: file, line, column, rule, severity, message,
        hint)."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
        }


#: The end of the ``--explain`` text of every rule whose errors can be about lock cost.
WITH_A_DATABASE = """
With a database (`up`, `up --dry-run`, `plan --dsn`, `rehearse`, the fleet) the gate judges
this against the database as it is. A table an earlier pending step of the same run creates
is new (as one created earlier in the same file is): nothing is reported about it. An error
about lock cost (a rewrite, a scan, an index build) does not block on existing tables smaller
than `gate_small_table` (default 8MB: heap and TOAST, plus the indexes for a rewrite,
partitions and children summed, sizes from the catalog when the run starts; the message says
the size it judged by), nor anywhere on a fresh database (nothing of its own, no journal).
`check`, without a database, judges every table as existing and large. Unqualified names
resolve with the search_path the step runs with (one set in an earlier file included); after
one the linter cannot know (set in a DO block or a function), as existing and large.
"""


@dataclass(frozen=True)
class Rule:
    """A lint rule: a stable kebab-case id, its usual severity, a one-line summary and the
    ``--explain`` text."""

    id: str
    #: The usual severity; a rule may report a lower one for a milder case (see its doc).
    severity: Severity
    summary: str
    #: The ``safemigrate check --explain RULE`` text: what it catches, why it hurts, the safe
    #: alternative.
    doc: str


def make_rule(rule_id: str, severity: Severity, summary: str, doc: str) -> Rule:
    """A Rule whose doc starts with a title line naming the id, severity and summary."""
    title = f"{rule_id} ({severity}): {summary}"
    return Rule(rule_id, severity, summary, f"{title}\n\n{doc.strip()}\n")


@dataclass(frozen=True)
class Hit:
    """What a rule reports about a statement; the walker adds file, line and column."""

    rule: str
    severity: Severity
    message: str
    hint: str
    #: What the finding costs when it is about locks (None: about correctness).
    cost: Cost | None = None
    #: False when no allow comment can suppress the finding (the run lock released).
    suppressible: bool = True
    #: The cost with the live catalog's sizes, added by the walker against a database.
    facts: CostFacts | None = None


def hit(
    rule: Rule,
    message: str,
    hint: str,
    severity: Severity | None = None,
    *,
    cost: Cost | None = None,
    suppressible: bool = True,
) -> Hit:
    """A Hit of ``rule``, with the rule's severity unless ``severity`` is given; ``cost`` for
    a finding about lock cost (see Cost)."""
    return Hit(rule.id, severity or rule.severity, message, hint, cost, suppressible)


@dataclass(frozen=True)
class LintReport:
    """The findings of a check, and whether some input could not be read, parsed or named.

    ``bad_input`` is the runner's exit 2 ("bad input"): a file the runner would refuse before
    applying anything. Other error findings are unsafe but runnable statements (exit 1).
    """

    findings: list[Finding]
    bad_input: bool
    #: The files that were checked, in order (for summaries).
    files: tuple[str, ...] = ()

    @property
    def errors(self) -> list[Finding]:
        """The findings of severity error."""
        return [f for f in self.findings if f.severity == "error"]

    @property
    def exit_code(self) -> int:
        """2 when some input was bad, else 1 when there is an error finding, else 0."""
        if self.bad_input:
            return 2
        return 1 if self.errors else 0
