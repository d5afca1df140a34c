"""The runner's lock model (``locks``) and the reference table of PostgreSQL's commands
(``safemigrate.reference``, checked against a real server) say the same lock for the relation a
statement names: one table of which statement takes which lock, where both know the statement.

The storage-parameter lists and the serial types are shared objects; the test catches a row or
a branch of ``locks`` that drifts from the other.
"""

from __future__ import annotations

import pglast

from safemigrate.core.model import LockMode
from safemigrate.reference import ROWS, lookup
from safemigrate.reference.families import alter_relations, alter_table
from safemigrate.reference.model import Example, Row, Target
from safemigrate.statements import locks

#: Where the lock model is deliberately stronger than the server: REINDEX TABLE takes SHARE on
#: the table but ACCESS EXCLUSIVE on each of its indexes, and every query plans with all the
#: table's indexes, so for a waiting query the table is as good as ACCESS EXCLUSIVE locked.
DELIBERATE = {"reindex.table"}


def _reference_mode(node: object) -> LockMode | None:
    modes = [
        mode
        for match in lookup.matches(node)
        if match.row is not None
        and (mode := match.row.lock_on(Target.NAMED)) is not None
        and mode > LockMode.ACCESS_SHARE
    ]
    return max(modes, default=None)


def _compared(row: Row, example: Example) -> tuple[LockMode, LockMode] | None:
    """(the reference's mode, the lock model's) on the named relation, when both know it."""
    try:
        statements = pglast.parse_sql(example.sql)
    except pglast.parser.ParseError:
        return None  # a placeholder the probe fills in ({database})
    if len(statements) != 1:
        return None
    node = statements[0].stmt
    expected = _reference_mode(node)
    named = set(example.names(Target.NAMED))
    ours = [need.mode for need in locks.lock_needs(node) if need.relation.name in named]
    if expected is None or not ours:
        return None
    return expected, max(ours)


def test_the_lock_model_and_the_reference_agree_on_the_named_relation() -> None:
    compared = 0
    disagreeing = []
    for row in ROWS:
        if row.id in DELIBERATE:
            continue
        for example in row.examples:
            if example.error is not None or (modes := _compared(row, example)) is None:
                continue
            compared += 1
            if modes[0] != modes[1]:
                disagreeing.append((row.id, example.sql, modes[0].sql_name, modes[1].sql_name))
    assert disagreeing == []
    assert compared > 200  # the comparison covers the bulk of the table


def test_the_reference_reads_the_lock_models_lists() -> None:
    assert alter_table.TABLE_AE_OPTIONS is locks.TABLE_ACCESS_EXCLUSIVE_OPTIONS
    assert alter_relations.INDEX_AE_OPTIONS is locks.INDEX_ACCESS_EXCLUSIVE_OPTIONS
    assert alter_table._SERIALS is locks.SERIAL_TYPES
