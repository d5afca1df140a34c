"""Helpers for the linter tests: lint SQL text and look at the findings."""

from __future__ import annotations

from pathlib import Path

from safemigrate.lint import Finding
from safemigrate.lint.walker import lint_text

LANGFUSE = Path(__file__).resolve().parents[3].parent / "shared/corpora/langfuse/migrations"


def lint(
    sql: str, *, pg_version: int = 16, policy: str = "rewrite", safe_rewrites: str = "rewrite"
) -> list[Finding]:
    """The findings of ``sql`` as the file ``0001_test.sql``."""
    return lint_text(
        "0001_test.sql",
        sql,
        pg_version=pg_version,
        concurrent_indexes=policy,
        safe_rewrites=safe_rewrites,
    ).findings


def rules(sql: str, *, pg_version: int = 16, policy: str = "rewrite") -> list[str]:
    """The rule ids of the findings of ``sql``, in order."""
    return [f.rule for f in lint(sql, pg_version=pg_version, policy=policy)]


def only(
    sql: str,
    rule: str,
    *,
    pg_version: int = 16,
    policy: str = "rewrite",
    safe_rewrites: str = "rewrite",
) -> list[Finding]:
    """The findings of ``sql`` for ``rule``."""
    findings = lint(sql, pg_version=pg_version, policy=policy, safe_rewrites=safe_rewrites)
    return [f for f in findings if f.rule == rule]


def write(directory: Path, name: str, text: str) -> Path:
    """Write a migration file as UTF-8 and return its path."""
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path
