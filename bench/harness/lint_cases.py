"""Reading the labelled corpus (tests/lint_corpus/) and judging one case with ``check``.

Shared by the corpus test (tests/unit/lint/test_lint_corpus.py) and bench/lint_corpus.py.
Each ``NNN_name.sql`` file starts with comment lines:

    -- expect: safe                      (or: -- expect: unsafe RULE-ID)
    -- doc: where PostgreSQL's documentation (or source) says so
    -- pg-version: 11                     (optional; default 16)
    -- given: CREATE TABLE ...;           (any number: the schema earlier migrations built)
    -- xfail: why                         (optional: a known miss, counted as wrong)

Files named ``ba*`` and ``bb*`` are the blind sets: written by two writers who saw PostgreSQL's
documentation and source, a real PostgreSQL 15 server (each label verified on it: relfilenode,
pg_locks, scan counters) and the rules' ``--explain`` texts, but neither the linter's code nor
the other cases; they add a ``-- verified:`` line saying what the server showed.

The case is judged as ``check`` judges the second file of a directory whose first file holds
the ``given`` statements. The SQL is judged as written: ``concurrent_indexes`` and
``safe_rewrites`` are "off", so the runner's own rewrites do not count. A case is unsafe when
``check`` reports any finding of a statement rule (error or warning) on the case file.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness.processes import REPO
from safemigrate.lint import RULES, lint_directory
from safemigrate.lint.rules import SUPPRESSIBLE

CORPUS = REPO / "tests" / "lint_corpus"
DEFAULT_PG_VERSION = 16
#: File name prefixes of the blind sets.
BLIND_PREFIXES = ("ba", "bb", "bc", "bd", "be", "bf", "bg", "bh")


@dataclass(frozen=True)
class Case:
    """One labelled file of the corpus."""

    path: Path
    #: None for a safe case, else the rule that must report it.
    expected_rule: str | None
    doc: str
    pg_version: int
    given: tuple[str, ...]
    xfail: str | None
    text: str = field(repr=False)

    @property
    def name(self) -> str:
        """The file's name without .sql."""
        return self.path.stem

    @property
    def unsafe(self) -> bool:
        """True when the label says unsafe."""
        return self.expected_rule is not None

    @property
    def blind(self) -> bool:
        """True for a case of the blind sets (see the module's docstring)."""
        return self.name.startswith(BLIND_PREFIXES)


@dataclass(frozen=True)
class Verdict:
    """What ``check`` said about a case: the statement rules that reported it."""

    rules: tuple[str, ...]

    @property
    def unsafe(self) -> bool:
        """True when some statement rule reported the case."""
        return bool(self.rules)


def read_case(path: Path) -> Case:
    """The Case of one corpus file; ValueError when its header is malformed."""
    text = path.read_text(encoding="utf-8")
    expected: str | None = None
    seen_expect = False
    doc = ""
    pg_version = DEFAULT_PG_VERSION
    given: list[str] = []
    xfail: str | None = None
    for line in text.splitlines():
        if not line.startswith("-- "):
            break
        key, _, value = line[3:].partition(": ")
        value = value.strip()
        if key == "expect":
            seen_expect = True
            words = value.split()
            if words == ["safe"]:
                expected = None
            elif len(words) == 2 and words[0] == "unsafe" and words[1] in RULES:
                expected = words[1]
            else:
                raise ValueError(f"{path.name}: bad expect line {line!r}")
        elif key == "doc":
            doc = value
        elif key == "pg-version":
            pg_version = int(value)
        elif key == "given":
            given.append(value)
        elif key == "xfail":
            xfail = value
    if not seen_expect or not doc:
        raise ValueError(f"{path.name}: needs -- expect: and -- doc: lines")
    return Case(path, expected, doc, pg_version, tuple(given), xfail, text)


def load_cases() -> list[Case]:
    """Every case of the corpus, in file order."""
    return [read_case(p) for p in sorted(CORPUS.glob("*.sql"))]


def judge(case: Case) -> Verdict:
    """Run ``check`` on the case (after its ``given`` history) and collect the rules."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "0001_given.sql").write_text("\n".join(case.given) + "\n", encoding="utf-8")
        target = directory / "0002_case.sql"
        target.write_text(case.text, encoding="utf-8")
        report = lint_directory(
            directory,
            pg_version=case.pg_version,
            concurrent_indexes="off",
            safe_rewrites="off",
        )
    if report.bad_input:
        raise ValueError(f"{case.path.name}: check refuses the case or its history: {report}")
    rules = tuple(
        dict.fromkeys(
            f.rule for f in report.findings if f.file == str(target) and f.rule in SUPPRESSIBLE
        )
    )
    return Verdict(rules)


def correct(case: Case, verdict: Verdict) -> bool:
    """True when the verdict matches the label (an unsafe case: its rule reported it)."""
    if case.expected_rule is None:
        return not verdict.unsafe
    return case.expected_rule in verdict.rules
