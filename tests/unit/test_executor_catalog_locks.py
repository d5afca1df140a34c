"""The executor completes a step's locks from the catalog once, before its first attempt, and
the pre-check of every attempt looks at the completed set; steps with nothing to look up pay
no round trip."""

from __future__ import annotations

from safemigrate.core.model import CatalogLock, LockMode, LockNeed, QualifiedName, Via

from .test_executor import LOCK_TIMEOUT, FakeWatcher, blocker, harness, planned

TABLE = LockNeed(QualifiedName(None, "t"), LockMode.ACCESS_EXCLUSIVE)


def test_the_indexs_table_is_prechecked_on_every_attempt_after_one_look_up() -> None:
    watcher = FakeWatcher(holders=[[blocker(77, "pg_dump")]])
    watcher.found = [TABLE]
    h = harness([LOCK_TIMEOUT], watcher=watcher)
    h.run(planned("DROP INDEX t_idx;\n"))
    assert watcher.completed == [
        (CatalogLock(Via.INDEX_TABLE, QualifiedName(None, "t_idx"), LockMode.ACCESS_EXCLUSIVE),)
    ]
    # Three attempts: refused by the pre-check, a lock timeout, applied; each pre-checked t.
    assert len(watcher.prechecked) == 3
    assert all(TABLE in needs for needs, _ in watcher.prechecked)


def test_a_step_with_nothing_to_look_up_is_not_completed() -> None:
    watcher = FakeWatcher()
    h = harness(watcher=watcher)
    h.run(planned("UPDATE t SET a = 1 WHERE id = 1;\n"))
    assert watcher.completed == []
    assert [needs for needs, _ in watcher.prechecked] == [
        (LockNeed(QualifiedName(None, "t"), LockMode.ROW_EXCLUSIVE),)
    ]
