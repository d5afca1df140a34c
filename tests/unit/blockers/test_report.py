"""How blockers appear in events: query cut or redacted, ages rounded."""

from __future__ import annotations

from safemigrate.blockers.report import cut, redact_query, reported_blocker, reported_sample
from safemigrate.core.model import Blocker, Sample, WaitingFor

RAW = Blocker(
    pid=42,
    application_name="report-job",
    user="bob",
    client_addr=None,
    state="idle in transaction",
    xact_age_ms=41_500.04321,
    state_age_ms=None,
    wait_event="ClientRead",
    lock_mode="AccessShareLock",
    query="SELECT *\n  FROM customers\n WHERE email = 'ann@example.com'",
)


def test_cut_flattens_whitespace_and_keeps_short_queries() -> None:
    assert cut("SELECT 1\n\t FROM t", 200) == "SELECT 1 FROM t"
    assert cut(None, 10) is None


def test_cut_shortens_long_queries_to_the_limit() -> None:
    assert cut("SELECT abcdefghij", 10) == "SELECT ..."
    assert len(cut("x" * 500, 200) or "") == 200
    assert cut("SELECT 1", 2) == "..."


def test_redaction_replaces_literals_with_placeholders() -> None:
    assert redact_query("SELECT * FROM t WHERE email = 'ann@example.com' AND id = 7") == (
        "SELECT * FROM t WHERE email = $1 AND id = $2"
    )
    assert redact_query(None) is None


def test_a_query_that_does_not_parse_is_hidden_completely() -> None:
    assert redact_query("SELECT * FROM t WHERE email = 'ann@exa") == (
        "(query hidden: --redact-queries)"
    )


def test_a_reported_blocker_has_rounded_ages_and_a_cut_query() -> None:
    shown = reported_blocker(RAW, redact=False, query_length=30)
    assert shown.xact_age_ms == 41_500.0
    assert shown.state_age_ms is None
    assert shown.query == "SELECT * FROM customers WHE..."
    assert (shown.pid, shown.application_name, shown.lock_mode) == (
        42,
        "report-job",
        "AccessShareLock",
    )


def test_a_reported_blocker_is_redacted_before_it_is_cut() -> None:
    shown = reported_blocker(RAW, redact=True, query_length=200)
    assert shown.query == "SELECT * FROM customers WHERE email = $1"


def test_a_reported_sample_rounds_the_wait_and_keeps_the_chain() -> None:
    raw = Sample((RAW,), WaitingFor(7, "relation", "t", "AccessExclusiveLock", 1_799.96), (42, 43))
    shown = reported_sample(raw, redact=False, query_length=200)
    assert shown.waiting == WaitingFor(7, "relation", "t", "AccessExclusiveLock", 1_800.0)
    assert shown.blockers == (reported_blocker(RAW, redact=False, query_length=200),)
    assert shown.chain == (42, 43)
    assert reported_sample(Sample(), redact=True, query_length=10) == Sample()
