"""The fault-injection trials over whole corpora (bench/harness/trials.py), in CI-size runs.

Each trial applies a whole corpus while one kind of fault is injected at seeded random moments,
then checks the schema against the reference application, the journal, and that nothing is
left behind (the kinds and the checks are described in bench/harness/trials.py). These are a
few trials each; ``bench/chaos.py`` runs the same trials by the hundred and prints a table per
fault. A failing trial names its kind, corpus and seed;
``python bench/chaos.py --kinds KIND --corpora CORPUS --seed SEED --trials 1`` repeats it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.harness.processes import psql_binary
from bench.harness.trials import (
    CORPORA,
    Cluster,
    Corpus,
    concurrent_trial,
    corpus,
    corpus_available,
    kill9_trial,
    mixed_trial,
    reconnect_trial,
)
from tests.faults.helpers import own_throwaway
from tests.fixtures_db import PgServer

#: Each trial applies a whole corpus several times over (pytest -m "not slow" leaves them out).
pytestmark = pytest.mark.slow

# ------------------------------------------------------------------------------------------
# CI-size runs (bench/chaos.py runs the same trials by the hundred, for every kind and corpus;
# the deterministic reconnect, outage and PgBouncer tests are in their own modules)


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Cluster]:
    """A server of this module's own: restart and outage trials stop and start it."""
    for server in own_throwaway():
        yield Cluster.own(server)


def _needs(name: str) -> Corpus:
    # The reference application of every trial is psql's.
    if psql_binary() is None:
        pytest.skip("psql is not installed")
    if not corpus_available(name):
        pytest.skip(f"the {name} corpus is not here ({CORPORA[name]()})")
    return corpus(name)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kill_9_at_random_moments_of_the_example_then_reruns_give_the_reference(
    seed: int, pg_server: PgServer
) -> None:
    result = kill9_trial(Cluster.of(pg_server), _needs("example"), seed, kills=2)
    assert result.recovered, result.report()
    assert result.runs >= 2, result.report()


def test_kill_9_at_random_moments_of_langfuse_then_reruns_give_the_reference(
    pg_server: PgServer,
) -> None:
    result = kill9_trial(Cluster.of(pg_server), _needs("langfuse"), 1, kills=3)
    assert result.recovered, result.report()
    # A kill drawn at a time after start may come after a short last run has finished.
    assert result.landed >= 2, result.report()


def test_the_runner_reconnects_after_immediate_restarts_during_langfuse(
    own_cluster: Cluster,
) -> None:
    result = reconnect_trial(own_cluster, _needs("langfuse"), 1, kind="restart-immediate", faults=3)
    assert result.recovered, result.report()
    assert result.landed >= 2, result.report()


@pytest.mark.parametrize("wait", [False, True], ids=["exit-3", "wait-for-lock"])
def test_eight_runners_at_once_apply_each_step_exactly_once(
    wait: bool, pg_server: PgServer
) -> None:
    result = concurrent_trial(Cluster.of(pg_server), _needs("example"), 1, runners=8, wait=wait)
    assert result.recovered, result.report()


@pytest.mark.parametrize("seed", [1, 2])
def test_issue_21_faults_of_every_kind_across_recipes_batches_and_session_sets(
    seed: int, own_cluster: Cluster
) -> None:
    """The soak's CI-size run (bench/chaos.py --kinds mixed --corpora mixed runs hundreds)."""
    result = mixed_trial(own_cluster, _needs("mixed"), seed, faults=3)
    assert result.recovered, result.report()
    assert result.landed >= 1, result.report()
