"""Watcher.complete_needs: the relations a step locks without naming them, asked of the
monitor session in one look-up, only when there is something to ask and a pre-check to use it."""

from __future__ import annotations

from safemigrate.core.model import CatalogLock, LockMode, LockNeed, QualifiedName, Via
from safemigrate.run.watcher import Watcher
from safemigrate.settings.config import Settings

from .fakes import FakeMonitor

RUNNER_PID = 100
INDEX = QualifiedName(None, "t_idx")
TABLE = QualifiedName(None, "t")
DROP_INDEX = LockNeed(INDEX, LockMode.ACCESS_EXCLUSIVE)
ITS_TABLE = CatalogLock(Via.INDEX_TABLE, INDEX, LockMode.ACCESS_EXCLUSIVE)


def watcher(monitor: FakeMonitor | None, settings: Settings | None = None) -> Watcher:
    return Watcher(monitor, settings or Settings(), RUNNER_PID, lambda event: None)


def test_the_catalogs_answers_join_the_needs_in_one_look_up() -> None:
    monitor = FakeMonitor(catalog=[LockNeed(TABLE, LockMode.ACCESS_EXCLUSIVE)])
    needs = watcher(monitor).complete_needs([DROP_INDEX], [ITS_TABLE])
    assert needs == [DROP_INDEX, LockNeed(TABLE, LockMode.ACCESS_EXCLUSIVE)]
    assert monitor.called("catalog_locks") == [((ITS_TABLE,),)]


def test_a_relation_found_twice_keeps_its_strongest_lock() -> None:
    monitor = FakeMonitor(catalog=[LockNeed(TABLE, LockMode.ACCESS_EXCLUSIVE)])
    named = LockNeed(TABLE, LockMode.SHARE_ROW_EXCLUSIVE, scans=True)
    needs = watcher(monitor).complete_needs([named], [ITS_TABLE])
    assert needs == [LockNeed(TABLE, LockMode.ACCESS_EXCLUSIVE, scans=True)]


def test_nothing_to_look_up_no_monitor_or_no_precheck_costs_no_round_trip() -> None:
    monitor = FakeMonitor(catalog=[LockNeed(TABLE, LockMode.ACCESS_EXCLUSIVE)])
    assert watcher(monitor).complete_needs([DROP_INDEX], []) == [DROP_INDEX]
    off = Settings(lock_precheck=False)
    assert watcher(monitor, off).complete_needs([DROP_INDEX], [ITS_TABLE]) == [DROP_INDEX]
    assert monitor.calls == []
    assert watcher(None).complete_needs([DROP_INDEX], [ITS_TABLE]) == [DROP_INDEX]


def test_a_failed_look_up_leaves_the_needs_as_they_were() -> None:
    """Like the pre-check itself, the look-up is an optimisation: the lock timeout still
    guards the step."""
    monitor = FakeMonitor(failing={"catalog_locks"})
    assert watcher(monitor).complete_needs([DROP_INDEX], [ITS_TABLE]) == [DROP_INDEX]


def test_locks_that_block_no_writes_are_not_looked_up() -> None:
    """The pre-check only looks at write-blocking locks: VALIDATE's ROW SHARE on the referenced
    table is not worth a round trip."""
    monitor = FakeMonitor(catalog=[LockNeed(TABLE, LockMode.ROW_SHARE)])
    weak = CatalogLock(Via.CONSTRAINT_REFERENCED, TABLE, LockMode.ROW_SHARE, "fk")
    validate = LockNeed(TABLE, LockMode.SHARE_UPDATE_EXCLUSIVE)
    assert watcher(monitor).complete_needs([validate], [weak]) == [validate]
    assert monitor.calls == []
