"""The VOLATILE functions PostgreSQL ships, by name, whether an expression calls one, and
which volatile functions migrations create (``created_volatile``, for ``plan``). Pure.

A column default calling a volatile function is computed for every existing row, so ADD COLUMN
rewrites the table (tablecmds.c ATExecAddColumn: ``contain_volatile_functions`` on the default
sets AT_REWRITE_DEFAULT_VAL). The one list: the runner's lock model (``locks``, what ``plan``
shows) and the linter (``lint.volatility``, what ``check`` reports) both read it.

How the list is made: from PostgreSQL 15's catalog,

    SELECT DISTINCT proname FROM pg_proc
    WHERE pronamespace = 'pg_catalog'::regnamespace AND prokind = 'f' AND provolatile = 'v'
    ORDER BY 1;

plus the volatile functions PostgreSQL 16 to 18 added (read the same way from 18's catalog:
array_sample, pg_sync_replication_slots, random_normal, uuidv4, uuidv7, ...) and those of
common extensions (pgcrypto's gen_random_bytes and gen_salt; uuid-ossp's generators). A name
is listed when any of its overloads is volatile. nextval is volatile (a serial column's default):
adding a column with it rewrites the table. Stable functions (now, statement_timestamp,
txid_current) are not listed: their value is computed once and stored in the catalog.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from typing import Any

from pglast import ast, enums

from .parsed import walk

VOLATILE_FUNCTIONS = frozenset(
    {
        "RI_FKey_cascade_del",
        "RI_FKey_cascade_upd",
        "RI_FKey_check_ins",
        "RI_FKey_check_upd",
        "RI_FKey_noaction_del",
        "RI_FKey_noaction_upd",
        "RI_FKey_restrict_del",
        "RI_FKey_restrict_upd",
        "RI_FKey_setdefault_del",
        "RI_FKey_setdefault_upd",
        "RI_FKey_setnull_del",
        "RI_FKey_setnull_upd",
        "amvalidate",
        "array_sample",
        "array_shuffle",
        "bernoulli",
        "binary_upgrade_add_sub_rel_state",
        "binary_upgrade_create_empty_extension",
        "binary_upgrade_logical_slot_has_caught_up",
        "binary_upgrade_replorigin_advance",
        "binary_upgrade_set_missing_value",
        "binary_upgrade_set_next_array_pg_type_oid",
        "binary_upgrade_set_next_heap_pg_class_oid",
        "binary_upgrade_set_next_heap_relfilenode",
        "binary_upgrade_set_next_index_pg_class_oid",
        "binary_upgrade_set_next_index_relfilenode",
        "binary_upgrade_set_next_multirange_array_pg_type_oid",
        "binary_upgrade_set_next_multirange_pg_type_oid",
        "binary_upgrade_set_next_pg_authid_oid",
        "binary_upgrade_set_next_pg_enum_oid",
        "binary_upgrade_set_next_pg_tablespace_oid",
        "binary_upgrade_set_next_pg_type_oid",
        "binary_upgrade_set_next_toast_pg_class_oid",
        "binary_upgrade_set_next_toast_relfilenode",
        "binary_upgrade_set_record_init_privs",
        "brin_desummarize_range",
        "brin_summarize_new_values",
        "brin_summarize_range",
        "brinhandler",
        "bthandler",
        "clock_timestamp",
        "current_query",
        "currtid2",
        "currval",
        "cursor_to_xml",
        "cursor_to_xmlschema",
        "dsnowball_init",
        "dsnowball_lexize",
        "gen_random_bytes",
        "gen_random_uuid",
        "gen_salt",
        "gin_clean_pending_list",
        "ginhandler",
        "gisthandler",
        "hashhandler",
        "heap_tableam_handler",
        "lastval",
        "lo_close",
        "lo_creat",
        "lo_create",
        "lo_export",
        "lo_from_bytea",
        "lo_get",
        "lo_import",
        "lo_lseek",
        "lo_lseek64",
        "lo_open",
        "lo_put",
        "lo_tell",
        "lo_tell64",
        "lo_truncate",
        "lo_truncate64",
        "lo_unlink",
        "loread",
        "lowrite",
        "nextval",
        "pg_advisory_lock",
        "pg_advisory_lock_shared",
        "pg_advisory_unlock",
        "pg_advisory_unlock_all",
        "pg_advisory_unlock_shared",
        "pg_advisory_xact_lock",
        "pg_advisory_xact_lock_shared",
        "pg_available_wal_summaries",
        "pg_backup_start",
        "pg_backup_stop",
        "pg_blocking_pids",
        "pg_cancel_backend",
        "pg_clear_attribute_stats",
        "pg_clear_relation_stats",
        "pg_collation_actual_version",
        "pg_control_checkpoint",
        "pg_control_init",
        "pg_control_recovery",
        "pg_control_system",
        "pg_copy_logical_replication_slot",
        "pg_copy_physical_replication_slot",
        "pg_create_logical_replication_slot",
        "pg_create_physical_replication_slot",
        "pg_create_restore_point",
        "pg_current_logfile",
        "pg_current_wal_flush_lsn",
        "pg_current_wal_insert_lsn",
        "pg_current_wal_lsn",
        "pg_database_collation_actual_version",
        "pg_database_size",
        "pg_drop_replication_slot",
        "pg_export_snapshot",
        "pg_extension_config_dump",
        "pg_get_aios",
        "pg_get_backend_memory_contexts",
        "pg_get_loaded_modules",
        "pg_get_multixact_members",
        "pg_get_sequence_data",
        "pg_get_shmem_allocations",
        "pg_get_shmem_allocations_numa",
        "pg_get_wait_events",
        "pg_get_wal_replay_pause_state",
        "pg_get_wal_resource_managers",
        "pg_get_wal_summarizer_state",
        "pg_hba_file_rules",
        "pg_ident_file_mappings",
        "pg_import_system_collations",
        "pg_indexes_size",
        "pg_is_in_recovery",
        "pg_is_wal_replay_paused",
        "pg_isolation_test_session_is_blocked",
        "pg_jit_available",
        "pg_last_committed_xact",
        "pg_last_wal_receive_lsn",
        "pg_last_wal_replay_lsn",
        "pg_last_xact_replay_timestamp",
        "pg_lock_status",
        "pg_log_backend_memory_contexts",
        "pg_log_standby_snapshot",
        "pg_logical_emit_message",
        "pg_logical_slot_get_binary_changes",
        "pg_logical_slot_get_changes",
        "pg_logical_slot_peek_binary_changes",
        "pg_logical_slot_peek_changes",
        "pg_ls_archive_statusdir",
        "pg_ls_dir",
        "pg_ls_logdir",
        "pg_ls_logicalmapdir",
        "pg_ls_logicalsnapdir",
        "pg_ls_replslotdir",
        "pg_ls_summariesdir",
        "pg_ls_tmpdir",
        "pg_ls_waldir",
        "pg_nextoid",
        "pg_notification_queue_usage",
        "pg_notify",
        "pg_partition_ancestors",
        "pg_partition_tree",
        "pg_prepared_xact",
        "pg_promote",
        "pg_read_binary_file",
        "pg_read_file",
        "pg_read_file_old",
        "pg_relation_size",
        "pg_reload_conf",
        "pg_replication_origin_advance",
        "pg_replication_origin_create",
        "pg_replication_origin_drop",
        "pg_replication_origin_progress",
        "pg_replication_origin_session_is_setup",
        "pg_replication_origin_session_progress",
        "pg_replication_origin_session_reset",
        "pg_replication_origin_session_setup",
        "pg_replication_origin_xact_reset",
        "pg_replication_origin_xact_setup",
        "pg_replication_slot_advance",
        "pg_restore_attribute_stats",
        "pg_restore_relation_stats",
        "pg_rotate_logfile",
        "pg_rotate_logfile_old",
        "pg_safe_snapshot_blocking_pids",
        "pg_sequence_last_value",
        "pg_show_all_file_settings",
        "pg_show_replication_origin_status",
        "pg_sleep",
        "pg_sleep_for",
        "pg_sleep_until",
        "pg_stat_clear_snapshot",
        "pg_stat_file",
        "pg_stat_force_next_flush",
        "pg_stat_get_backend_io",
        "pg_stat_get_backend_wal",
        "pg_stat_get_io",
        "pg_stat_get_recovery_prefetch",
        "pg_stat_get_xact_blocks_fetched",
        "pg_stat_get_xact_blocks_hit",
        "pg_stat_get_xact_function_calls",
        "pg_stat_get_xact_function_self_time",
        "pg_stat_get_xact_function_total_time",
        "pg_stat_get_xact_numscans",
        "pg_stat_get_xact_tuples_deleted",
        "pg_stat_get_xact_tuples_fetched",
        "pg_stat_get_xact_tuples_hot_updated",
        "pg_stat_get_xact_tuples_inserted",
        "pg_stat_get_xact_tuples_newpage_updated",
        "pg_stat_get_xact_tuples_returned",
        "pg_stat_get_xact_tuples_updated",
        "pg_stat_have_stats",
        "pg_stat_reset",
        "pg_stat_reset_backend_stats",
        "pg_stat_reset_replication_slot",
        "pg_stat_reset_shared",
        "pg_stat_reset_single_function_counters",
        "pg_stat_reset_single_table_counters",
        "pg_stat_reset_slru",
        "pg_stat_reset_subscription_stats",
        "pg_stop_making_pinned_objects",
        "pg_switch_wal",
        "pg_sync_replication_slots",
        "pg_table_size",
        "pg_tablespace_size",
        "pg_terminate_backend",
        "pg_total_relation_size",
        "pg_try_advisory_lock",
        "pg_try_advisory_lock_shared",
        "pg_try_advisory_xact_lock",
        "pg_try_advisory_xact_lock_shared",
        "pg_wal_replay_pause",
        "pg_wal_replay_resume",
        "pg_wal_summary_contents",
        "pg_xact_commit_timestamp",
        "pg_xact_commit_timestamp_origin",
        "pg_xact_status",
        "plpgsql_call_handler",
        "plpgsql_inline_handler",
        "plpgsql_validator",
        "query_to_xml",
        "query_to_xml_and_xmlschema",
        "query_to_xmlschema",
        "random",
        "random_normal",
        "set_config",
        "setseed",
        "setval",
        "spghandler",
        "suppress_redundant_updates_trigger",
        "system",
        "timeofday",
        "ts_rewrite",
        "ts_stat",
        "tsvector_update_trigger",
        "tsvector_update_trigger_column",
        "txid_status",
        "unique_key_recheck",
        "uuid_generate_v1",
        "uuid_generate_v1mc",
        "uuid_generate_v4",
        "uuidv4",
        "uuidv7",
    }
)


def volatile_call(expr: Any, also_volatile: Callable[[str], bool] | None = None) -> str | None:
    """The name of the first volatile function ``expr`` calls, or None: a built-in one (see
    ``VOLATILE_FUNCTIONS``) or one ``also_volatile`` says is volatile (the linter's catalog of
    the functions the migrations created). Names are compared as the parser folded them."""
    for node in walk(expr):
        if isinstance(node, ast.FuncCall) and node.funcname:
            funcname: Any = node.funcname
            name = str(funcname[-1].sval)
            if name in VOLATILE_FUNCTIONS or (also_volatile is not None and also_volatile(name)):
                return name
    return None


def volatile_default(expr: Any, created_volatile: Set[str] = frozenset()) -> bool:
    """True when the column default ``expr`` is volatile, so ADD COLUMN rewrites the table: it
    calls a built-in volatile function or one named in ``created_volatile`` (the functions the
    migrations created VOLATILE, see ``created_volatile``)."""
    known = created_volatile.__contains__ if created_volatile else None
    return volatile_call(expr, known) is not None


def created_volatile(trees: Iterable[Any], known: Set[str] = frozenset()) -> frozenset[str]:
    """The names of the volatile functions the migrations created: ``known`` after the
    statements ``trees`` (pglast nodes, in order). CREATE [OR REPLACE] FUNCTION adds a name
    declared VOLATILE or declaring nothing (VOLATILE is the default: CREATE FUNCTION page) and
    drops one declared STABLE or IMMUTABLE; ALTER FUNCTION does the same when it changes the
    volatility; DROP FUNCTION drops the name. Overloads are not told apart, and a LANGUAGE sql
    function the planner inlines is judged by what it declares, not by the expression it is
    inlined as (the linter's finer reading): the answer errs on the side of a rewrite."""
    names = set(known)
    for tree in trees:
        if isinstance(tree, ast.CreateFunctionStmt) and tree.funcname and not tree.is_procedure:
            _set_volatility(names, str(tree.funcname[-1].sval), tree.options, "volatile")
        elif isinstance(tree, ast.AlterFunctionStmt) and tree.func and tree.func.objname:
            _set_volatility(names, str(tree.func.objname[-1].sval), tree.actions, None)
        elif isinstance(tree, ast.DropStmt) and tree.removeType == enums.ObjectType.OBJECT_FUNCTION:
            for obj in tree.objects or ():
                if isinstance(obj, ast.ObjectWithArgs) and obj.objname:
                    names.discard(str(obj.objname[-1].sval))
    return frozenset(names)


def _set_volatility(names: set[str], name: str, options: Any, default: str | None) -> None:
    """Add ``name`` to ``names`` or drop it as the ``volatility`` option in ``options`` says
    (``default`` when it says nothing; None: leave ``names`` as they are)."""
    said = default
    for option in options or ():
        if isinstance(option, ast.DefElem) and option.defname == "volatility":
            said = str(getattr(option.arg, "sval", "")).lower()
    if said == "volatile":
        names.add(name)
    elif said is not None:
        names.discard(name)
