"""The labelled corpus (tests/lint_corpus): ``check`` gives each case its documented verdict.

Each case is labelled from PostgreSQL's documentation or source (its ``-- doc:`` line), never
from the linter's output; ``bench/lint_corpus.py`` reports precision and recall in
docs/lint-accuracy.md.
"""

from __future__ import annotations

import pytest

from bench.harness.lint_cases import Case, correct, judge, load_cases

CASES = load_cases()


def test_the_corpus_is_large_and_balanced() -> None:
    unsafe = sum(1 for c in CASES if c.unsafe)
    assert len(CASES) >= 120
    assert 0.4 <= unsafe / len(CASES) <= 0.6


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_gives_the_documented_verdict(case: Case) -> None:
    if case.xfail:
        pytest.xfail(case.xfail)
    verdict = judge(case)
    label = f"unsafe {case.expected_rule}" if case.unsafe else "safe"
    assert correct(case, verdict), f"{case.name}: expected {label} ({case.doc}), got {verdict}"
