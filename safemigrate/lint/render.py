"""Rendering a LintReport: readable text, JSON, GitHub Actions workflow annotations."""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import groupby
from pathlib import Path

from .findings import LintReport, Severity

_COLOURS: dict[str, str] = {"error": "31", "warning": "33", "info": "36"}
_GITHUB: dict[str, str] = {"error": "error", "warning": "warning", "info": "notice"}


def _paint(text: str, code: str, colour: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if colour else text


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render_text(report: LintReport, colour: bool) -> list[str]:
    """The findings grouped by file, one block per finding, then a summary line."""
    lines: list[str] = []
    for file, group in groupby(report.findings, key=lambda f: f.file):
        if lines:
            lines.append("")
        lines.append(_paint(file, "1", colour))
        for f in group:
            severity = _paint(f"{f.severity:<7}", _COLOURS[f.severity], colour)
            lines.append(f"  {f.line}:{f.column}  {severity}  {f.message}  [{f.rule}]")
            lines.append(f"      hint: {f.hint}")
    counts: dict[Severity, int] = {"error": 0, "warning": 0, "info": 0}
    for f in report.findings:
        counts[f.severity] += 1
    files = len(report.files)
    checked = f"{_count(files, 'file')} checked" if files else "checked"
    if not report.findings:
        summary = f"{checked}: no findings"
    else:
        parts = [_count(counts["error"], "error"), _count(counts["warning"], "warning")]
        if counts["info"]:
            parts.append(_count(counts["info"], "note"))
        summary = f"{checked}: {', '.join(parts)}"
    if report.bad_input:
        summary += " (some input is invalid: safemigrate would refuse it)"
    if lines:
        lines.append("")
    lines.append(summary)
    return lines


def render_json(report: LintReport) -> str:
    """``{"findings": [{"file", "line", "column", "rule", "severity", "message", "hint"}]}``."""
    return json.dumps({"findings": [f.to_dict() for f in report.findings]}, indent=2)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation_path(file: str, cwd: Path, roots: Sequence[Path]) -> str:
    """``file`` (as a finding names it, relative to ``cwd`` or absolute) relative to the first
    of ``roots`` that holds it, with ``/``; absolute when none does. GitHub places an
    annotation only for a path relative to the repository."""
    path = Path(file)
    absolute = (path if path.is_absolute() else cwd / path).resolve()
    for root in roots:
        try:
            return absolute.relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
    return str(absolute)


def render_github(
    report: LintReport, *, cwd: Path | None = None, roots: Sequence[Path] = ()
) -> list[str]:
    """One GitHub Actions workflow command per finding:
    ``::error file=F,line=L,col=C,title=RULE::message (hint)`` (warning: ``::warning``,
    info: ``::notice``). With ``roots`` (the repository: ``GITHUB_WORKSPACE``, then the
    current directory), each file is named relative to the first that holds it."""
    here = cwd or Path.cwd()
    return [
        f"::{_GITHUB[f.severity]} "
        f"file={_escape_property(annotation_path(f.file, here, roots) if roots else f.file)},"
        f"line={f.line},"
        f"col={f.column},title={_escape_property(f.rule)}::"
        f"{_escape_data(f'{f.message} ({f.hint})')}"
        for f in report.findings
    ]
