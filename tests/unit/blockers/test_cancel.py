"""The cancel policy: parsing ``cancel_blockers`` and who is eligible for a cancel."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from safemigrate.blockers.cancel import CancelPolicy, eligible
from safemigrate.core.errors import ConfigError
from safemigrate.core.model import Blocker
from safemigrate.settings.config import (
    CancelRule,
    Settings,
    allow_list,
    load_settings,
    parse_cancel_rule,
)

from .fakes import idle_session

IDLE_30S = CancelPolicy(CancelRule("idle-in-transaction", 30_000))
ANY_30S = CancelPolicy(CancelRule("any", 30_000))


def session(**changes: object) -> Blocker:
    """A session idle in a transaction for 40 s, as the monitor reports it."""
    return idle_session(**changes)


# -- parsing cancel_blockers ---------------------------------------------------------------


@pytest.mark.parametrize("text", ["off", " off ", "off\n"])
def test_off_is_no_rule(text: str) -> None:
    assert parse_cancel_rule(text, where="--cancel-blockers") is None


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("idle-in-transaction:30s", CancelRule("idle-in-transaction", 30_000)),
        (" any:1min ", CancelRule("any", 60_000)),
        ("idle-in-transaction:0", CancelRule("idle-in-transaction", 0)),
    ],
)
def test_a_rule_is_parsed_with_its_age(text: str, rule: CancelRule) -> None:
    assert parse_cancel_rule(text, where="--cancel-blockers") == rule


@pytest.mark.parametrize("text", ["sometimes", "idle-in-transaction", "idle:5s", "any 5s", ""])
def test_an_unknown_rule_names_the_three_forms(text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_cancel_rule(text, where="--cancel-blockers")
    assert caught.value.message == (
        "--cancel-blockers: must be 'off', 'idle-in-transaction:DURATION' or 'any:DURATION', "
        f"not {text.strip()!r}"
    )


def test_a_bad_age_is_a_duration_error_naming_the_source() -> None:
    with pytest.raises(ConfigError, match=r"^SAFEMIGRATE_CANCEL_BLOCKERS: 'forever' is not a"):
        parse_cancel_rule("any:forever", where="SAFEMIGRATE_CANCEL_BLOCKERS")


def test_a_long_bad_value_is_shortened_in_the_error() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_cancel_rule("x" * 100, where="k")
    assert caught.value.message.endswith(f"not {'x' * 40!r}")


def test_rule_and_policy_print_as_typed() -> None:
    assert str(CancelRule("idle-in-transaction", 30_000)) == "idle-in-transaction:30s"
    assert str(CancelPolicy(CancelRule("any", 90_000), dry_run=True)) == "any:1min 30s"


# -- the settings carry the parsed policy ----------------------------------------------------


def test_settings_without_a_rule_have_no_policy() -> None:
    settings = Settings(cancel_blockers_only=("etl",), cancel_blockers_dry_run=True)
    assert CancelPolicy.of(settings) is None


def test_settings_make_the_policy_of_the_four_keys(tmp_path: Path) -> None:
    (tmp_path / "safemigrate.toml").write_text(
        'cancel_blockers = "idle-in-transaction:30s"\n'
        'cancel_blockers_only = [" worker", "etl", "worker"]\n'
        'cancel_blockers_grace = "2s"\n'
    )
    settings = load_settings(
        cwd=tmp_path, environ={}, overrides={"cancel_blockers_dry_run": "true"}
    )
    assert settings.cancel_blockers == CancelRule("idle-in-transaction", 30_000)
    assert CancelPolicy.of(settings) == CancelPolicy(
        CancelRule("idle-in-transaction", 30_000), ("etl", "worker"), 2_000, True
    )


def test_off_in_the_settings_is_no_rule(tmp_path: Path) -> None:
    settings = load_settings(cwd=tmp_path, environ={"SAFEMIGRATE_CANCEL_BLOCKERS": "off"})
    assert settings.cancel_blockers is None
    assert CancelPolicy.of(settings) is None


def test_a_non_string_rule_in_toml_is_refused(tmp_path: Path) -> None:
    (tmp_path / "safemigrate.toml").write_text("cancel_blockers = 30\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(cwd=tmp_path, environ={})
    assert caught.value.message == (
        "safemigrate.toml: cancel_blockers: must be a string, not an integer (30)"
    )


def test_allow_list_is_stripped_sorted_and_without_blanks() -> None:
    assert allow_list([" worker", "etl", "", "  ", "worker "]) == ("etl", "worker")
    assert allow_list([]) == ()


# -- eligible --------------------------------------------------------------------------------


def test_idle_in_transaction_longer_than_the_age_is_eligible() -> None:
    assert eligible(IDLE_30S, session()) == "idle in transaction for 40s"


def test_an_aborted_transaction_left_idle_counts_as_idle_in_transaction() -> None:
    blocker = session(state="idle in transaction (aborted)")
    assert eligible(IDLE_30S, blocker) == "idle in transaction for 40s"


def test_idle_in_transaction_exactly_the_age_is_eligible() -> None:
    assert eligible(IDLE_30S, session(state_age_ms=30_000.0)) == "idle in transaction for 30s"


def test_idle_in_transaction_younger_than_the_age_is_left_alone() -> None:
    assert eligible(IDLE_30S, session(state_age_ms=29_999.0)) is None
    # The transaction's own age does not count: only how long it has been idle.
    assert eligible(IDLE_30S, session(state_age_ms=1_000.0, xact_age_ms=600_000.0)) is None


def test_an_unknown_state_age_counts_as_zero() -> None:
    assert eligible(IDLE_30S, session(state_age_ms=None)) is None
    zero = CancelPolicy(CancelRule("idle-in-transaction", 0))
    assert eligible(zero, session(state_age_ms=None)) == "idle in transaction for 0s"


def test_an_active_query_is_left_alone_by_the_idle_rule() -> None:
    assert eligible(IDLE_30S, session(state="active", state_age_ms=600_000.0)) is None


def test_an_old_active_query_is_eligible_under_the_any_rule() -> None:
    blocker = session(state="active", state_age_ms=45_400.0)
    assert eligible(ANY_30S, blocker) == "active query running for 45s"


def test_a_young_active_query_is_left_alone_under_the_any_rule() -> None:
    assert eligible(ANY_30S, session(state="active", state_age_ms=29_000.0)) is None


def test_the_any_rule_still_takes_idle_in_transaction_sessions() -> None:
    assert eligible(ANY_30S, session()) == "idle in transaction for 40s"


@pytest.mark.parametrize(
    "state", ["idle", "fastpath function call", "disabled", "starting", "", None]
)
@pytest.mark.parametrize("policy", [IDLE_30S, ANY_30S])
def test_other_states_are_never_eligible(policy: CancelPolicy, state: str | None) -> None:
    assert eligible(policy, session(state=state, state_age_ms=600_000.0)) is None


def test_an_empty_allow_list_allows_everyone() -> None:
    assert eligible(IDLE_30S, session(application_name="", user=None)) is not None


def test_the_allow_list_matches_the_application_name() -> None:
    policy = dataclasses.replace(IDLE_30S, only=("report-job",))
    assert eligible(policy, session()) == "idle in transaction for 40s"


def test_the_allow_list_matches_the_user() -> None:
    policy = dataclasses.replace(IDLE_30S, only=("bob",))
    assert eligible(policy, session(application_name="psql")) == "idle in transaction for 40s"


def test_a_session_outside_the_allow_list_is_left_alone() -> None:
    policy = dataclasses.replace(ANY_30S, only=("etl", "worker"))
    assert eligible(policy, session()) is None
    assert eligible(policy, session(application_name="", user=None)) is None
    assert eligible(policy, session(state="active")) is None


@pytest.mark.parametrize("policy", [IDLE_30S, ANY_30S])
def test_the_runners_own_sessions_are_never_eligible(policy: CancelPolicy) -> None:
    own = (7, 8)
    assert eligible(policy, session(pid=7), own_pids=own) is None
    assert eligible(policy, session(pid=8, state="active"), own_pids=own) is None
    assert eligible(policy, session(pid=42), own_pids=own) is not None


def test_dry_run_does_not_change_who_is_eligible() -> None:
    # A dry run reports what the policy would do: the same sessions, touched by nobody.
    dry = dataclasses.replace(IDLE_30S, dry_run=True)
    assert eligible(dry, session()) == eligible(IDLE_30S, session())
    assert eligible(dry, session(state_age_ms=1.0)) is None
