"""Static checks of migration files, without a database (``safemigrate check``).

Each file is read with the runner's own reader (safemigrate.source), so the linter knows the
statements, steps and transaction modes the runner would use, and each statement is checked by
the rules in ``safemigrate.lint.rules``. A table counts as existing (rules apply to it) unless it
is created earlier in the same migration file.

``LintReport.bad_input`` is True when some file could not be read, parsed or named as the
runner requires (finding ``invalid-migration-file``): the CLI exits 2 for that, 1 for other
error findings, 0 otherwise (``LintReport.exit_code``).

Importing this package loads only the findings and options: the parser and the rules are
imported on first use, so a check answered from its cache (``lint.cache``) never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.lazy_names import LazyNames
from .findings import Finding, LintReport, Rule, Severity
from .options import TimeoutCeilings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .directory import lint_directory as lint_directory
    from .directory import lint_paths as lint_paths

    #: Every rule, by id.
    RULES: Mapping[str, Rule]

__all__ = [
    "RULES",
    "Finding",
    "LintReport",
    "Rule",
    "Severity",
    "TimeoutCeilings",
    "explain",
    "lint_directory",
    "lint_paths",
]

#: Names imported on first use, and the module of each.
_LAZY = {"RULES": "rules", "lint_directory": "directory", "lint_paths": "directory"}
_load = LazyNames(__name__, globals(), {name: (module, name) for name, module in _LAZY.items()})


def __getattr__(name: str) -> Any:
    """Import the rules or the directory linter on first use (PEP 562)."""
    return _load(name)


def explain(rule_id: str) -> str:
    """The ``--explain`` text of a rule: what it catches, why it hurts, the safe alternative.

    Raises KeyError for an unknown id.
    """
    from .rules import RULES as rules

    return rules[rule_id].doc
