"""The lint rules: one module per rule, each with ``RULE``, ``DOC`` and ``check(node, ctx)``.

``check`` gets one parsed statement (a pglast node) and its StatementContext, before the
statement's effects are recorded in the file state, and yields Hits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ..context import StatementContext
from ..findings import Hit, Rule
from . import (
    add_column_not_null_without_default,
    add_column_rewrites,
    add_column_volatile_default,
    attach_partition,
    column_type_change,
    constraint_without_not_valid,
    detach_partition,
    drop_table_or_column,
    enum_value_used_in_same_transaction,
    lock_table,
    non_transactional_in_transaction,
    read_only_transaction,
    rejected_by_schema,
    rejected_by_server_version,
    rename,
    require_concurrent_index,
    require_concurrent_index_drop,
    require_concurrent_reindex,
    run_lock_release,
    scan_under_lock,
    self_termination,
    sequence_max_lowered,
    set_not_null,
    table_rewrite,
    timeout_guard_off,
    unbounded_data_change,
    unique_without_index,
    unknown_statement,
)
from .meta import META_RULES

Check = Callable[[Any, StatementContext], Iterable[Hit]]

_MODULES = (
    require_concurrent_index,
    require_concurrent_index_drop,
    require_concurrent_reindex,
    non_transactional_in_transaction,
    constraint_without_not_valid,
    set_not_null,
    column_type_change,
    add_column_volatile_default,
    add_column_rewrites,
    add_column_not_null_without_default,
    unique_without_index,
    attach_partition,
    detach_partition,
    rename,
    drop_table_or_column,
    table_rewrite,
    lock_table,
    unbounded_data_change,
    scan_under_lock,
    enum_value_used_in_same_transaction,
    timeout_guard_off,
    run_lock_release,
    self_termination,
    read_only_transaction,
    rejected_by_server_version,
    rejected_by_schema,
    sequence_max_lowered,
    unknown_statement,
)

#: The statement rules' checks, in the order their findings are listed for one statement.
CHECKS: tuple[Check, ...] = tuple(m.check for m in _MODULES)

#: Rules an allow directive may name.
SUPPRESSIBLE: frozenset[str] = frozenset(m.RULE.id for m in _MODULES)

#: Every rule, by id: the statement rules, then the file and allow-directive rules.
RULES: Mapping[str, Rule] = MappingProxyType(
    {rule.id: rule for rule in (*(m.RULE for m in _MODULES), *META_RULES)}
)
