"""The linter's data: severities, findings, rules and the report. Frozen, no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]

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


def hit(rule: Rule, message: str, hint: str, severity: Severity | None = None) -> Hit:
    """A Hit of ``rule``, with the rule's severity unless ``severity`` is given."""
    return Hit(rule.id, severity or rule.severity, message, hint)


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
