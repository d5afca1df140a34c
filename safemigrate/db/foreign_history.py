"""Another tool's history table: read and adopted into our journal, then kept up to date.

The tables, as each tool creates them on PostgreSQL (the tests build them the same way):

- dbmate: ``schema_migrations (version varchar(128) PRIMARY KEY)``, one row per applied file;
- golang-migrate: ``schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT
  NULL)``, one row: the last version applied, dirty when it failed half-way;
- sqlx: ``_sqlx_migrations (version bigint PRIMARY KEY, description text, installed_on
  timestamptz, success boolean, checksum bytea, execution_time bigint)``;
- diesel: ``__diesel_schema_migrations (version varchar(50) PRIMARY KEY, run_on timestamp)``;
- Flyway: ``flyway_schema_history (installed_rank int PRIMARY KEY, version varchar(50),
  description varchar(200), type varchar(20), script varchar(1000), checksum int, installed_by
  varchar(100), installed_on timestamp, execution_time int, success boolean)``: one row per
  run script in ``installed_rank`` order; ``BASELINE`` rows stand for every version up to
  theirs, ``UNDO_SQL`` and ``DELETE`` rows take a version back, repeatables have no version;
- yoyo: ``_yoyo_migration (migration_hash varchar(64) PRIMARY KEY, migration_id varchar(255),
  applied_at_utc timestamp)`` (its ``_yoyo_log`` is a log of every apply and rollback; the
  applied set is ``_yoyo_migration``'s);
- Prisma: ``_prisma_migrations (id varchar(36) PRIMARY KEY, checksum varchar(64) NOT NULL,
  finished_at timestamptz, migration_name varchar(255) NOT NULL, logs text, rolled_back_at
  timestamptz, started_at timestamptz NOT NULL DEFAULT now(), applied_steps_count integer NOT
  NULL DEFAULT 0)``: one row per attempt of a migration (prisma-engines, apply_migrations.rs).
  A row with ``rolled_back_at`` set is no longer applied (``prisma migrate resolve
  --rolled-back``: deploy applies it again); one without it is applied once ``finished_at`` is
  set, failed while it is NULL (deploy refuses to go on, P3009).

With ``tool_history = "write"`` the table is written only as its tool writes it, row by row,
in the transaction of each migration's last step (:func:`tool_rows`) and to catch up what the
journal has and the table lacks (:func:`catch_up`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from psycopg import sql

from ..core.errors import BadInputError, DriftError, LockNotAcquiredError, MigrationFileError
from ..core.model import JournalEntry, Migration
from ..planning.adoption import (
    CHECKSUMS,
    AdoptionError,
    ForeignHistory,
    ForeignRow,
    adopted_entries,
    applied_ids,
    applied_versions,
    checksum_drift,
    fits,
    refuse_unadopted,
    unrecorded,
    yoyo_hash,
)
from ..planning.pending import Repair, RepairAction
from ..settings.config import Settings
from ..source import MigrationFile, discover, scan_directory
from ..source.layouts import VERSION_OF, resolve
from ..source.layouts.flyway import origin_of
from .journal import TOOL_ROWS, JournalTable, family_table
from .session import ServerError, Session

if TYPE_CHECKING:
    # The step runner (and the policy and recipes it loads) only for writing: status reads.
    from . import steps as dbsteps

#: The state of the stand-in entries of forgotten versions while adopting (never returned).
FORGOTTEN = "forgotten"

#: Each tool's table and the query of its rows: (id, ok, checksum hex or NULL).
_TABLES: dict[str, tuple[str, str]] = {
    "dbmate": ("schema_migrations", "SELECT version::text, true, NULL FROM {} ORDER BY version"),
    "golang-migrate": (
        "schema_migrations",
        "SELECT version::text, NOT dirty, NULL FROM {} WHERE version >= 0",
    ),
    "sqlx": (
        "_sqlx_migrations",
        "SELECT version::text, success, encode(checksum, 'hex') FROM {} ORDER BY version",
    ),
    "diesel": (
        "__diesel_schema_migrations",
        "SELECT version::text, true, NULL FROM {} ORDER BY version",
    ),
    "yoyo": (
        "_yoyo_migration",
        "SELECT migration_id, true, migration_hash FROM {} ORDER BY migration_id",
    ),
    "flyway": (
        "flyway_schema_history",
        "SELECT version, success, checksum::text, type FROM {} "
        "WHERE version IS NOT NULL ORDER BY installed_rank",
    ),
    "prisma": (
        "_prisma_migrations",
        "SELECT migration_name, finished_at IS NOT NULL, checksum FROM {} "
        "WHERE rolled_back_at IS NULL ORDER BY migration_name, started_at",
    ),
}


#: The columns each tool's table has and its query reads: a table with the tool's name but
#: without them is another table that merely has that name (an application's own
#: ``schema_migrations``), not that tool's history, and is left alone.
_COLUMNS: dict[str, frozenset[str]] = {
    "dbmate": frozenset({"version"}),
    "golang-migrate": frozenset({"version", "dirty"}),
    "sqlx": frozenset({"version", "success", "checksum"}),
    "diesel": frozenset({"version"}),
    "yoyo": frozenset({"migration_hash", "migration_id"}),
    "flyway": frozenset({"installed_rank", "version", "success", "checksum", "type"}),
    "prisma": frozenset({"id", "checksum", "finished_at", "migration_name", "rolled_back_at"}),
}


def _columns(session: Session, regclass: str) -> set[str]:
    rows = session.rows(
        sql.SQL(
            "SELECT attname FROM pg_attribute WHERE attrelid = {}::regclass "
            "AND attnum > 0 AND NOT attisdropped"
        ).format(sql.Literal(regclass))
    )
    return {str(r[0]) for r in rows}


def configured(settings: Settings, layout: str | None = None) -> dict[str, tuple[str | None, str]]:
    """The layout's tool's table, when ``tool_history_table`` names it (issue 22 review F9:
    dbmate's ``--migrations-table``, yoyo's ``migration_table``, golang-migrate's
    ``x-migrations-table``); ``layout``: the resolved layout (default: the setting's)."""
    layout = layout or settings.layout
    if settings.tool_history_table is None or layout not in _TABLES:
        return {}
    return {layout: settings.tool_history_table}


def read_all(
    session: Session, tables: dict[str, tuple[str | None, str]] | None = None
) -> list[ForeignHistory]:
    """Every other tool's history table on the search_path, each read as its tool's
    (``schema_migrations`` is golang-migrate's when it has a ``dirty`` column, else dbmate's);
    ``tables``: a tool's table under another name (:func:`configured`), looked at instead."""
    tables = tables or {}
    given = {
        tool: session.render(sql.Identifier(*[p for p in named if p is not None]))
        for tool, named in tables.items()
    }
    names = list(dict.fromkeys(name for name, _ in _TABLES.values()))
    names += [name for name in given.values() if name not in names]
    # One round trip for every candidate (most databases have none of them).
    found = session.rows(
        sql.SQL(
            "SELECT t.name, n.nspname, c.relname FROM unnest({}::text[]) AS t(name) "
            "JOIN pg_class c ON c.oid = to_regclass(t.name) "
            "JOIN pg_namespace n ON n.oid = c.relnamespace"
        ).format(sql.Literal(names))
    )
    histories = []
    for table, schema, relname in found:
        where = (str(schema), str(relname))
        told = [t for t, rendered in given.items() if rendered == table]
        named: tuple[str | None, str] | None = None
        if told:
            tool, named = told[0], tables[told[0]]
        else:
            tools = [t for t, (default, _) in _TABLES.items() if default == table]
            if len(tools) > 1:
                has_dirty = "dirty" in _columns(session, session.render(sql.Identifier(*where)))
                tools = ["golang-migrate" if has_dirty else "dbmate"]
            tool = tools[0]
            if tool in tables:
                continue  # that tool was told another table (tool_history_table)
        history = read(session, tool, named)
        if history is not None:
            histories.append(history)
    return histories


def read(
    session: Session, tool: str, named: tuple[str | None, str] | None = None
) -> ForeignHistory | None:
    """``tool``'s history table as found on the search_path (or the table ``named`` by the
    ``tool_history_table`` setting), or None when there is none."""
    if tool not in _TABLES:
        return None
    table, query = _TABLES[tool]
    if named is not None:
        # Quoted as typed: the setting names the table exactly (dbmate quotes it too).
        table = session.render(sql.Identifier(*[p for p in named if p is not None]))
    found = session.rows(
        sql.SQL(
            "SELECT n.nspname, c.relname FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass({})"
        ).format(sql.Literal(table))
    )
    if not found:
        # A fresh database has none yet, under any name; one holding relations is refused by
        # refuse_missing_history.
        return None
    ident = sql.Identifier(str(found[0][0]), str(found[0][1]))
    regclass = f"{found[0][0]}.{found[0][1]}"
    columns = _columns(session, session.render(ident))
    if not _COLUMNS["dbmate" if tool == "golang-migrate" else tool] <= columns:
        # Issue 22 review F2: not the tool's history (it lacks the columns the tool creates),
        # only a table with its name.
        return None
    has_dirty = "dirty" in columns
    if tool in ("dbmate", "golang-migrate") and has_dirty != (tool == "golang-migrate"):
        other = "golang-migrate" if has_dirty else "dbmate"
        raise BadInputError(
            f"{regclass} has {other}'s columns, but the layout is {tool}",
            hint=f'set layout = "{other}"',
        )
    try:
        rows = session.rows(sql.SQL(query).format(ident))
    except ServerError as err:
        if err.sqlstate != "55P03":
            raise
        raise _locked(session, tool, regclass, err) from None
    where = (str(found[0][0]), str(found[0][1]))
    if tool == "flyway":
        return replace(_flyway(regclass, rows), where=where)
    return ForeignHistory(
        tool,
        regclass,
        tuple(ForeignRow(str(r[0]), bool(r[1]), r[2]) for r in rows),
        up_to_last=tool == "golang-migrate",
        where=where,
    )


def _locked(session: Session, tool: str, regclass: str, err: ServerError) -> LockNotAcquiredError:
    """Reading ``tool``'s history ``regclass`` timed out on a lock (issue 22 review F8): the
    error names the table and the sessions holding a lock on it, not the journal."""
    holders = session.rows(
        sql.SQL(
            "SELECT l.pid, coalesce(a.application_name, ''), l.mode FROM pg_locks l "
            "LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.granted "
            "AND l.relation = {}::regclass AND l.pid <> pg_backend_pid() ORDER BY l.pid"
        ).format(sql.Literal(regclass))
    )
    who = ", ".join(f"pid {pid} '{name}' ({mode})" for pid, name, mode in holders[:3])
    pids = [int(pid) for pid, _, _ in holders[:3]]
    end = "; ".join(f"SELECT pg_terminate_backend({pid})" for pid in pids)
    return LockNotAcquiredError(
        f"reading {tool}'s history {regclass}: {err.message}"
        + (f"; held by {who}" if who else "")
        + "; nothing was written",
        hint=(f"end it ({end}) or let it finish, " if end else "find who holds it in pg_locks, ")
        + "then rerun; or give the runner's own statements longer with --lock-timeout",
    )


@dataclass(frozen=True)
class Adoption:
    """What the journal plus another tool's history say is applied."""

    #: The journal's entries, then those adopted from ``history``.
    entries: list[JournalEntry]
    #: The layout the directory is read with (``auto`` resolved, by the database too).
    layout: str
    #: The history adopted from (the layout's tool's table), if there is one.
    history: ForeignHistory | None = None
    #: The entries of ``entries`` that only ``history`` knows (not yet in the journal).
    adopted: list[JournalEntry] = field(default_factory=list)


def forgotten_versions(session: Session, settings: Settings) -> set[int]:
    """The versions ``safemigrate repair`` forgot (its repair log, when there is one) that the
    journal no longer holds: never adopted again from another tool's table, whose row for them
    stays (issue 22 review F5: a migration the tool applied whose file is gone; also one
    forgotten so that ``up`` runs its new SQL, which tool_history = "write" recorded there)."""
    from .repairs import log_table

    log = log_table(JournalTable(settings.journal_schema, settings.journal_table))
    exists = session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(sql.Literal(session.render(log.ident)))
    )
    if not exists:
        return set()
    rows = session.rows(
        sql.SQL("SELECT DISTINCT version FROM {} WHERE action = 'forget'").format(log.ident)
    )
    return {int(str(r[0])) for r in rows}


def _version_of(settings: Settings, tool: str) -> Callable[[str], int | None]:
    """The version ``tool``'s history id stands for (VERSION_OF); for Prisma, whose folders
    may share a timestamp, the version the scan of the directory gave the folder so named
    (source/layouts/prisma.py), else as if none shared it (a folder that is gone)."""
    static = VERSION_OF[tool]
    if tool != "prisma":
        return static
    by_id = {f.origin_id: f.version for f in _tool_files(settings, tool) or ()}
    return lambda origin_id: by_id.get(origin_id, static(origin_id))


def _tool_files(settings: Settings, tool: str) -> list[MigrationFile] | None:
    """The directory read ``tool``'s way, or None when that tool would not read it cleanly."""
    try:
        scan = scan_directory(settings.dir, tool)
    except (MigrationFileError, BadInputError):
        return None
    return None if scan.problems or scan.misnamed else scan.files


def adoption(
    session: Session,
    settings: Settings,
    migrations: Sequence[Migration],
    entries: Sequence[JournalEntry],
) -> Adoption:
    """The journal's entries plus those adopted from the layout's tool's history.

    Whatever the layout, another tool's history that records migrations of the directory the
    journal does not know is never ignored: it is adopted when it is the layout's tool's, or
    when the layout is ``auto`` and the history plainly is this directory's read that tool's
    way (a yoyo project whose files are named ``0001_step1.sql``); otherwise AdoptionError
    (exit 2) names the table and the setting. Raises AdoptionError for a failed or dirty
    migration in the adopted history, DriftError for a file whose text differs from what the
    tool recorded.
    """
    layout = resolve(settings.dir, settings.layout)
    if settings.tool_history_table is not None and layout not in _TABLES:
        raise BadInputError(
            f"tool_history_table is set, but the layout is {layout}: it names another "
            "tool's history table",
            hint="set the layout of that tool's directory, or unset tool_history_table",
        )
    histories = read_all(session, configured(settings, layout))
    if histories:
        # What repair forgot counts as known: the journal's decision, not the tool's row.
        known = {e.version for e in entries}
        forgotten = forgotten_versions(session, settings) - known
        entries = [
            *entries,
            *(JournalEntry(v, "", 0, "", FORGOTTEN) for v in sorted(forgotten)),
        ]
    own = read(session, layout, settings.tool_history_table) if layout in _TABLES else None
    detected = None
    if settings.layout == "auto" and layout == "safemigrate":
        detected = layout
        candidates = []
        for history in histories:
            tool_files = _tool_files(settings, history.tool)
            if tool_files is not None and fits(history, tool_files, len(migrations)):
                candidates.append(history)
        if len(candidates) == 1:
            own, layout = candidates[0], candidates[0].tool
    on_disk = [MigrationFile(m.version, m.version_text, m.name, m.path) for m in migrations]
    for history in histories:
        if own is not None and history.table == own.table:
            continue
        refuse_unadopted(
            history,
            unrecorded(history, _version_of(settings, history.tool), on_disk, entries),
            str(settings.dir),
            settings.layout if detected is None else layout,
            detected,
        )
    journal = [e for e in entries if e.state != FORGOTTEN]
    if own is None:
        if layout in _TABLES and not journal and migrations:
            refuse_missing_history(session, settings, layout)
        return Adoption(journal, layout)
    history = own
    refuse_rolled_back(session, settings, history, migrations, journal)
    files = discover(settings.dir, layout)
    _refuse_finished_by_tool(history, files, migrations, journal, _version_of(settings, layout))
    if history.tool == "yoyo":
        refuse_shared_versions(history, files, str(settings.dir))
    adopted = adopted_entries(history, files, migrations, entries, _version_of(settings, layout))
    known = {e.version for e in entries}
    drift = checksum_drift(history, files, known)
    if drift:
        more = f" (and {len(drift) - 1} more)" if len(drift) > 1 else ""
        raise DriftError(
            f"{drift[0]}{more}",
            hint="restore the applied text (changes go in a new migration)",
        )
    return Adoption([*journal, *adopted], layout, history, adopted)


def _refuse_finished_by_tool(
    history: ForeignHistory,
    files: Sequence[MigrationFile],
    migrations: Sequence[Migration],
    journal: Sequence[JournalEntry],
    version_of: Callable[[str], int | None],
) -> None:
    """Refuse (DriftError, exit 5) a migration the journal holds as partially applied that the
    tool's table records as applied (issue 22 review F1): safemigrate records it there only
    with its last step, so the tool itself ran it after safemigrate started it, whole, and the
    database may hold its first steps twice. Finishing it would run its last steps again."""
    rows: dict[int, list[JournalEntry]] = {}
    for entry in journal:
        rows.setdefault(entry.version, []).append(entry)
    by_hash = {yoyo_hash(f.origin_id): f.origin_id for f in files}
    recorded = set()
    for row in history.rows:
        origin_id = (
            by_hash.get(row.checksum or "", row.origin_id)
            if history.tool == "yoyo"
            else row.origin_id
        )
        version = version_of(origin_id)
        if version is not None and row.ok:  # a failed or dirty one is refused as such
            recorded.add(version)
    for migration in migrations:
        entries = rows.get(migration.version)
        if not entries or migration.version not in recorded:
            continue
        done = {e.step for e in entries if e.done}
        if all(step.index in done for step in migration.steps):
            continue
        raise DriftError(
            f"{migration.filename}: {history.table} records it as applied by "
            f"{history.tool}, but the journal has {len(done)} of its {len(migration.steps)} "
            f"steps: {history.tool} ran it whole after safemigrate started it (the database "
            "may hold its first steps twice), or steps were added to it after it was "
            "applied; nothing was run",
            hint=f"check what the database holds of {migration.filename} and fix it by hand, "
            f"then record it as applied: `safemigrate baseline {migration.version_text}` "
            "(records its remaining steps, and those of earlier migrations, without running "
            "them); added steps belong in a new migration",
        )


#: How each tool is told to keep its history elsewhere, for refuse_missing_history's hint.
_RENAMED = {
    "dbmate": " (--migrations-table, DBMATE_MIGRATIONS_TABLE)",
    "yoyo": " (schema= in its URL, which safemigrate reads too; migration_table in yoyo.ini)",
    "golang-migrate": " (x-migrations-table in its URL)",
    "flyway": " (flyway.table, flyway.defaultSchema)",
    "sqlx": "",
    "diesel": "",
    "prisma": " (?schema= in its URL, which safemigrate reads too)",
}


def refuse_missing_history(session: Session, settings: Settings, layout: str) -> None:
    """Refuse (exit 2) to apply a tool's directory from scratch to a database that holds
    relations of its own while neither the journal nor the tool's history table is there:
    the tool most likely applied them under a history table of another name or schema
    (issue 22 review F9), and up would apply everything again."""
    journal = settings.journal_table
    found = session.rows(
        sql.SQL(
            "SELECT n.nspname, c.relname FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') "
            "AND n.nspname <> 'information_schema' AND NOT starts_with(n.nspname, 'pg_') "
            # An extension's own tables (PostGIS's spatial_ref_sys) are not the application's.
            "AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass "
            "AND d.objid = c.oid AND d.deptype = 'e') "
            # The journal and the tables beside it (<journal_table>_repairs, ...).
            "AND NOT (n.nspname = {} AND (c.relname = {} OR starts_with(c.relname, {}))) "
            "ORDER BY 1, 2 LIMIT 4"
        ).format(
            sql.Literal(settings.journal_schema), sql.Literal(journal), sql.Literal(journal + "_")
        )
    )
    if not found:
        return
    shown = ", ".join(f"{schema}.{name}" for schema, name in found[:3])
    more = " and more" if len(found) > 3 else ""
    default, _ = _TABLES[layout]
    table = default
    if settings.tool_history_table is not None:
        where = table = ".".join(p for p in settings.tool_history_table if p is not None)
        looked = f"{where} (tool_history_table) does not exist"
    else:
        looked = f"no {default} is on the search_path"
        # The tool's table under its default name in a schema off the search_path.
        elsewhere = session.rows(
            sql.SQL(
                "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE c.relname = {} AND c.relkind IN ('r', 'p') ORDER BY 1 LIMIT 1"
            ).format(sql.Literal(default))
        )
        if elsewhere:
            other = sql.Identifier(str(elsewhere[0][0]), default)
            tool = "dbmate" if layout == "golang-migrate" else layout
            if _COLUMNS[tool] <= _columns(session, session.render(other)):
                looked += f" (there is {elsewhere[0][0]}.{default})"
            else:
                # Issue 22 review F2: a table with the name only is not the tool's history.
                looked = (
                    f"{elsewhere[0][0]}.{default} is not {layout}'s history table (it lacks "
                    f"the columns {layout} creates)"
                )
    raise AdoptionError(
        f"the layout is {layout}, but {looked} and the journal is empty, while the database "
        f"already holds {shown}{more}: up would apply every migration of {settings.dir} from "
        "scratch; nothing was run",
        hint=f"if {layout} keeps its history under another name or schema"
        f'{_RENAMED.get(layout, "")}, set tool_history_table = "schema.table" (config or '
        "SAFEMIGRATE_TOOL_HISTORY_TABLE); if these migrations never ran here, create "
        f"{layout}'s history table ({table}, as {layout} creates it) empty first",
    )


def refuse_applied_elsewhere(
    session: Session,
    settings: Settings,
    migrations: Sequence[Migration],
    entries: Sequence[JournalEntry],
) -> None:
    """Refuse (exit 2) to apply safemigrate's own directory from its first migration while the
    journal is empty and the database already holds a relation the first migrations create
    with a plain CREATE (planning.applied_elsewhere): they were applied without safemigrate,
    and up would run the steps before that CREATE again, then fail on it with 42P07 (review
    21h D2). What refuse_missing_history is to the tool layouts; a fresh database, and one
    holding only other relations, apply as before."""
    if entries or not migrations:
        return
    from ..planning.applied_elsewhere import first_creates

    creates = first_creates(migrations)
    if not creates:
        return
    # One round trip. A CREATE fails on any relation of the name (index and sequence too) in
    # the schema it creates in: the one written, else the first existing schema of the
    # search_path, current_schema() (this session's path is the first step's).
    found = session.rows(
        sql.SQL(
            "SELECT t.i, n.nspname, c.relname "
            "FROM unnest({}::text[], {}::text[]) WITH ORDINALITY AS t(s, name, i) "
            "JOIN pg_namespace n ON n.nspname = coalesce(t.s, current_schema()) "
            "JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = t.name "
            "ORDER BY t.i LIMIT 4"
        ).format(
            sql.Literal([c.relation.schema for c in creates]),
            sql.Literal([c.relation.name for c in creates]),
        )
    )
    if not found:
        return
    first = creates[int(str(found[0][0])) - 1]
    shown = ", ".join(f"{schema}.{name}" for _, schema, name in found[:3])
    more = " and more" if len(found) > 3 else ""
    raise AdoptionError(
        f"the journal is empty, while the database already holds {shown}{more}, which the "
        f"migrations create ({first.filename}:{first.line} creates {found[0][1]}.{found[0][2]}): "
        f"up would apply every migration of {settings.dir} from scratch, running again what "
        "was applied without safemigrate and failing there (42P07); nothing was run",
        hint="if the migrations up to some version were applied here by other means (psql, "
        "another tool), record them as applied first: `safemigrate baseline VERSION` (the "
        "last one applied), then up applies the rest; if that relation is another "
        "application's, give these migrations a schema or database of their own",
    )


def with_adopted(
    session: Session,
    settings: Settings,
    migrations: Sequence[Migration],
    entries: Sequence[JournalEntry],
) -> list[JournalEntry]:
    """The journal's entries plus those adopted from another tool's history (see adoption)."""
    return adoption(session, settings, migrations, entries).entries


def tool_rows(
    history: ForeignHistory, settings: Settings, migrations: Sequence[Migration]
) -> dbsteps.AlsoApplied:
    """What records each migration in ``history``'s table as its tool records it, keyed by the
    migration's version and last step: written in the transaction of that step's journal row,
    so that the old tool sees applied exactly what the journal does (a teammate's ``dbmate up``
    then finds nothing to do). Empty when ``tool_history`` is ``leave``."""
    if settings.tool_history != "write" or history.where is None:
        return {}
    table = sql.Identifier(*history.where)
    files = {f.version: f for f in discover(settings.dir, history.tool)}
    rows: dict[tuple[int, int], sql.Composed] = {}
    for migration in migrations:
        file = files.get(migration.version)
        if file is None:
            continue
        last = max(len(migration.steps) - 1, 0)
        rows[(migration.version, last)] = sql.SQL("{}; {}").format(
            _tool_row(history.tool, table, file),
            _mark(settings, history, [(migration.version, file.origin_id)]),
        )
    return rows


def _marks_table(settings: Settings) -> sql.Identifier:
    """The table of the journal's family that lists the tool rows safemigrate saw or wrote:
    ``<journal_table>_tool_rows``."""
    journal = JournalTable(settings.journal_schema, settings.journal_table)
    return family_table(journal, TOOL_ROWS).ident


def _mark(
    settings: Settings, history: ForeignHistory, rows: Sequence[tuple[int, str]]
) -> sql.Composed:
    """Record that ``history``'s table holds these (version, tool id) rows while the journal
    has them applied: a row that disappears later was taken away by the tool (a rollback)."""
    return sql.SQL(
        "INSERT INTO {} (tool_table, version, origin_id) VALUES {} ON CONFLICT DO NOTHING"
    ).format(
        _marks_table(settings),
        sql.SQL(", ").join(
            sql.SQL("({}, {}, {})").format(
                sql.Literal(history.table), sql.Literal(v), sql.Literal(i)
            )
            for v, i in rows
        ),
    )


def _marked(session: Session, settings: Settings, history: ForeignHistory) -> dict[int, str]:
    """The versions (and tool ids) recorded in the marks table for ``history``'s table."""
    table = _marks_table(settings)
    exists = session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(sql.Literal(session.render(table)))
    )
    if not exists:
        return {}
    rows = session.rows(
        sql.SQL("SELECT version, origin_id FROM {} WHERE tool_table = {}").format(
            table, sql.Literal(history.table)
        )
    )
    return {int(str(r[0])): str(r[1]) for r in rows}


def rolled_back(
    session: Session,
    settings: Settings,
    history: ForeignHistory,
    migrations: Sequence[Migration],
    entries: Sequence[JournalEntry],
) -> dict[int, str]:
    """The migrations the journal has applied that the old tool rolled back since (``yoyo
    rollback``, ``dbmate rollback``, ``migrate down``): their row in the tool's table is gone,
    and safemigrate saw or wrote that row (``<journal>_tool_rows``), or, for yoyo, its own log
    has a rollback of it later than the journal's row (a row safemigrate never listed: written
    by yoyo before the switch, or under ``tool_history = "leave"``). Version -> the tool's id.
    """
    done = {e.version for e in entries if e.done}
    gone: dict[int, str] = {}
    marked = _marked(session, settings, history)
    if marked:
        recorded = applied_versions(
            history,
            _version_of(settings, history.tool),
            [*(m.version for m in migrations), *marked],
        )
        gone = {v: i for v, i in marked.items() if v in done and v not in recorded}
    if history.tool == "yoyo" and history.where is not None:
        logged = _rolled_back_in_yoyo_log(session, settings, history, history.where, done)
        gone = {**logged, **gone}
    return dict(sorted(gone.items()))


def _rolled_back_in_yoyo_log(
    session: Session,
    settings: Settings,
    history: ForeignHistory,
    where: tuple[str, str],
    done: set[int],
) -> dict[int, str]:
    """The applied versions (``done``) whose row is gone from ``_yoyo_migration`` and that
    yoyo's own log, ``_yoyo_log`` beside it, shows rolled back later than the journal's row
    (issue 22 review F13). dbmate and the others keep no such log. Version -> yoyo's id."""
    files = discover(settings.dir, history.tool)
    present = applied_versions(history, VERSION_OF["yoyo"], (f.version for f in files))
    candidates = [f for f in files if f.version in done and f.version not in present]
    log = sql.Identifier(where[0], "_yoyo_log")
    if not candidates or not session.scalar(
        sql.SQL("SELECT to_regclass({}) IS NOT NULL").format(sql.Literal(session.render(log)))
    ):
        return {}
    table = JournalTable(settings.journal_schema, settings.journal_table)
    found = {}
    for file in candidates:
        if session.scalar(
            sql.SQL(
                "SELECT EXISTS (SELECT FROM {} WHERE migration_id = {} AND operation = "
                "'rollback' AND created_at_utc > (SELECT timezone('UTC', max(applied_at)) "
                "FROM {} WHERE version = {}))"
            ).format(log, sql.Literal(file.origin_id), table.ident, sql.Literal(file.version))
        ):
            found[file.version] = file.origin_id
    return found


def rolled_back_repairs(
    session: Session,
    settings: Settings,
    migrations: Sequence[Migration],
    entries: Sequence[JournalEntry],
) -> list[Repair]:
    """``repair``'s part of a rollback by the old tool (see rolled_back): the journal forgets
    the rolled-back migrations, so that the next ``up`` applies them again."""
    layout = resolve(settings.dir, settings.layout)
    history = read(session, layout, settings.tool_history_table) if layout in _TABLES else None
    if history is None:
        return []
    gone = rolled_back(session, settings, history, migrations, entries)
    files = {m.version: m.filename for m in migrations}
    return [
        Repair(
            RepairAction.FORGET,
            e.version,
            e.name,
            e.step,
            e.checksum,
            files[e.version],
            reason=f"{history.tool} rolled it back: {history.table} no longer records it",
        )
        for e in entries
        # A gone file's rows are forgotten by repair's own rule.
        if e.version in gone and e.version in files
    ]


def refuse_shared_versions(
    history: ForeignHistory, files: Sequence[MigrationFile], directory: str
) -> None:
    """Refuse (exit 2) a yoyo row that names no file while its version is another file's or
    row's (issue 22 review F7): a file yoyo applied and someone renamed (or two ids of one day,
    one renamed to fit) would be counted as the other migration and its file run again."""
    version_of = VERSION_OF[history.tool]
    ids = applied_ids(history, files, version_of)
    by_id = {f.origin_id for f in files}
    taken: dict[int, list[str]] = {}
    for origin_id in ids:
        if (version := version_of(origin_id)) is not None:
            taken.setdefault(version, []).append(origin_id)
    for f in files:
        if f.origin_id not in ids:
            taken.setdefault(f.version, []).append(f.origin_id)
    lost = [
        i
        for i in ids
        if i not in by_id and (v := version_of(i)) is not None and len(taken.get(v, [])) > 1
    ]
    if not lost:
        return
    first = lost[0]
    other = next(i for i in taken[version_of(first) or 0] if i != first)
    more = f" (and {len(lost) - 1} more: {', '.join(lost[1:4])})" if len(lost) > 1 else ""
    raise AdoptionError(
        f"{history.table} records {first}{more} as applied, which names no file of "
        f"{directory}, and its version is {other}'s too: safemigrate would count one for the "
        "other and run a migration yoyo applied again; nothing was run",
        hint="yoyo's id is the whole file name: give the file its yoyo name back (a renamed "
        "file is a new migration to yoyo); ids that differ only after the date and number "
        "(two `yoyo new` on one day) cannot be switched yet: keep applying them with yoyo",
    )


def refuse_rolled_back(
    session: Session,
    settings: Settings,
    history: ForeignHistory,
    migrations: Sequence[Migration],
    entries: Sequence[JournalEntry],
) -> None:
    """Refuse (exit 5) while the old tool has rolled back a migration the journal holds
    applied (issue 22 review F13, see rolled_back): writing its row back would make both
    histories claim a schema the database no longer has."""
    gone = rolled_back(session, settings, history, migrations, entries)
    if not gone:
        return
    files = {m.version: m.filename for m in migrations}
    names = [files.get(v, i) for v, i in gone.items()]
    more = f" (and {len(names) - 1} more: {', '.join(names[1:4])})" if len(names) > 1 else ""
    # yoyo's own log names rollbacks of rows safemigrate never saw too.
    seen = "safemigrate saw it recorded there" + (
        " or yoyo's log records the rollback" if history.tool == "yoyo" else ""
    )
    raise DriftError(
        f"{names[0]}{more}: applied, but {history.tool} has rolled it back since: "
        f"{history.table} no longer records it, though {seen}; nothing was run",
        hint="to keep the rollback, `safemigrate repair` forgets it in the journal (the next "
        f"up applies it again, or delete the file first); to undo it, apply it again with "
        f"{history.tool}, which records it again",
    )


def _tool_row(tool: str, table: sql.Identifier, file: MigrationFile) -> sql.Composed:
    """The row ``tool`` writes in its history ``table`` when it has applied ``file`` (from each
    tool's source; the tables as this module's docstring describes them). A row already there
    is left as it is."""
    origin = sql.Literal(file.origin_id)
    if tool in ("dbmate", "diesel"):
        return sql.SQL("INSERT INTO {} (version) VALUES ({}) ON CONFLICT DO NOTHING").format(
            table, origin
        )
    if tool == "yoyo":
        return sql.SQL(
            "INSERT INTO {} (migration_hash, migration_id, applied_at_utc) "
            "VALUES ({}, {}, timezone('UTC', now())) ON CONFLICT DO NOTHING"
        ).format(table, sql.Literal(yoyo_hash(file.origin_id)), origin)
    if tool == "sqlx":
        return sql.SQL(
            "INSERT INTO {} (version, description, success, checksum, execution_time) "
            "VALUES ({}, {}, true, decode({}, 'hex'), 0) ON CONFLICT DO NOTHING"
        ).format(
            table,
            sql.Literal(int(file.origin_id)),
            sql.Literal(file.name.replace("_", " ")),
            sql.Literal(CHECKSUMS["sqlx"](file.path.read_bytes())),
        )
    if tool == "prisma":
        # As migrate deploy records a migration it applied (apply_migrations.rs: started,
        # one successful step, finished), unless a row not rolled back already says so.
        name = sql.Literal(file.origin_id)
        return sql.SQL(
            "INSERT INTO {} (id, checksum, finished_at, migration_name, logs, rolled_back_at, "
            "started_at, applied_steps_count) SELECT {}, {}, clock_timestamp(), {}, NULL, NULL, "
            "now(), 1 WHERE NOT EXISTS (SELECT FROM {} WHERE migration_name = {} "
            "AND rolled_back_at IS NULL)"
        ).format(
            table,
            sql.Literal(str(uuid.uuid4())),
            sql.Literal(CHECKSUMS["prisma"](file.path.read_bytes())),
            name,
            table,
            name,
        )
    if tool == "golang-migrate":
        # One row: the last version applied (never moved back by an out-of-order one).
        version = sql.Literal(int(file.origin_id))
        return sql.SQL(
            "WITH old AS (DELETE FROM {} RETURNING version) INSERT INTO {} (version, dirty) "
            "SELECT greatest({}, coalesce(max(version), {})), false FROM old"
        ).format(table, table, version, version)
    # Flyway: the next installed_rank, the version as its file writes it (1_1 is 1.1).
    version = sql.Literal(file.path.name[1:].split("__", 1)[0].replace("_", "."))
    return sql.SQL(
        "INSERT INTO {} (installed_rank, version, description, type, script, checksum, "
        "installed_by, execution_time, success) SELECT (SELECT coalesce(max(installed_rank), 0) "
        "+ 1 FROM {}), {}, {}, 'SQL', {}, {}, current_user, 0, true "
        "WHERE NOT EXISTS (SELECT FROM {} WHERE version = {} AND success)"
    ).format(
        table,
        table,
        version,
        sql.Literal(file.name.replace("_", " ")),
        sql.Literal(file.path.name),
        sql.Literal(int(CHECKSUMS["flyway"](file.path.read_bytes()))),
        table,
        version,
    )


def record(
    session: Session,
    journal: JournalTable,
    entries: Sequence[JournalEntry],
    timeouts: dbsteps.Timeouts,
) -> None:
    """Write adopted entries to the journal in one transaction (insert-only: a row that is
    already there stops it with a unique violation)."""
    adopted = [e for e in entries if e.application_name and e.state == "baseline"]
    if not adopted:
        return
    rows = sql.SQL(", ").join(
        sql.SQL("({}, {}, {}, {}, 'baseline', {})").format(
            sql.Literal(e.version),
            sql.Literal(e.name),
            sql.Literal(e.step),
            sql.Literal(e.checksum),
            sql.Literal(e.application_name),
        )
        for e in adopted
    )
    statement = sql.SQL(
        "INSERT INTO {} (version, name, step, checksum, state, application_name) VALUES {}"
    ).format(journal.ident, rows)
    from . import steps as dbsteps

    dbsteps.run_in_transaction(session, [], timeouts, statement)


def adopt(
    session: Session,
    journal: JournalTable,
    settings: Settings,
    migrations: Sequence[Migration],
    journal_entries: Sequence[JournalEntry],
) -> Adoption:
    """Record in the journal what the tool applied and the journal does not know; returns the
    adoption (its ``adopted`` entries are those written). The caller holds the run lock and
    has ensured the journal."""
    from . import steps as dbsteps

    found = adoption(session, settings, migrations, journal_entries)
    timeouts = dbsteps.Timeouts(settings.lock_timeout_ms, settings.statement_timeout_ms)
    record(session, journal, found.adopted, timeouts)
    if found.history is not None and tool_rows(found.history, settings, migrations):
        _create_marks(session, settings, timeouts)
        caught = catch_up(session, found.history, settings, migrations, found.entries, timeouts)
        _mark_agreed(session, settings, found, migrations, caught, timeouts)
    return found


def mark_adopted(
    session: Session,
    settings: Settings,
    found: Adoption,
    migrations: Sequence[Migration],
    timeouts: dbsteps.Timeouts,
) -> None:
    """After ``adopt`` recorded ``found``: list the adopted rows as seen in the tool's table
    (see _mark), so that a rollback before the next ``up`` is drift too, not back-filled."""
    if found.history is not None and tool_rows(found.history, settings, migrations):
        _create_marks(session, settings, timeouts)
        _mark_agreed(session, settings, found, migrations, [], timeouts)


def _create_marks(session: Session, settings: Settings, timeouts: dbsteps.Timeouts) -> None:
    """The marks table (see _mark), beside the journal, created with the first tool row."""
    statement = sql.SQL(
        "CREATE TABLE IF NOT EXISTS {} (tool_table text NOT NULL, version bigint NOT NULL, "
        "origin_id text NOT NULL, marked_at timestamptz NOT NULL DEFAULT clock_timestamp(), "
        "PRIMARY KEY (tool_table, version))"
    ).format(_marks_table(settings))
    from . import steps as dbsteps

    dbsteps.run_in_transaction(session, [], timeouts, statement)


def _mark_agreed(
    session: Session,
    settings: Settings,
    found: Adoption,
    migrations: Sequence[Migration],
    caught: Sequence[int],
    timeouts: dbsteps.Timeouts,
) -> None:
    """Mark every migration both the journal and the tool's table now hold applied."""
    history = found.history
    assert history is not None
    files = {f.version: f.origin_id for f in discover(settings.dir, history.tool)}
    done = {e.version for e in found.entries if e.done}
    recorded = applied_versions(history, _version_of(settings, history.tool), files) | set(caught)
    agreed = [(v, files[v]) for v in sorted(done & recorded) if v in files]
    if agreed:
        from . import steps as dbsteps

        dbsteps.run_in_transaction(session, [], timeouts, _mark(settings, history, agreed))


def catch_up(
    session: Session,
    history: ForeignHistory,
    settings: Settings,
    migrations: Sequence[Migration],
    entries: Sequence[JournalEntry],
    timeouts: dbsteps.Timeouts,
) -> list[int]:
    """Record in the tool's table, in one transaction, every migration the journal has fully
    applied that the table lacks (applied by an earlier release, or while tool_history was
    ``leave``); returns their versions. Nothing with ``tool_history = "leave"``."""
    rows = tool_rows(history, settings, migrations)
    if not rows:
        return []
    recorded = applied_versions(
        history, _version_of(settings, history.tool), (m.version for m in migrations)
    )
    done = {(e.version, e.step) for e in entries if e.done}
    missing = [
        m
        for m in migrations
        if m.version not in recorded
        and all((m.version, step.index) in done for step in m.steps)
        and (m.steps or (m.version, 0) in done)
    ]
    statements = [rows[(m.version, max(len(m.steps) - 1, 0))] for m in missing]
    if statements:
        from . import steps as dbsteps

        dbsteps.run_in_transaction(session, [], timeouts, sql.SQL("; ").join(statements))
    return [m.version for m in missing]


def _flyway(table: str, rows: Sequence[tuple[object, ...]]) -> ForeignHistory:
    """Flyway's history replayed in rank order: what is applied now, and its baseline."""
    applied: dict[str, ForeignRow] = {}
    baseline: str | None = None
    for version, success, checksum, kind in rows:
        origin_id = origin_of(str(version))
        if kind == "BASELINE":
            baseline = origin_id
        elif kind in ("DELETE",) or str(kind).startswith("UNDO"):
            applied.pop(origin_id, None)
        else:
            applied[origin_id] = ForeignRow(
                origin_id, bool(success), None if checksum is None else str(checksum)
            )
    return ForeignHistory("flyway", table, tuple(applied.values()), baseline=baseline)
