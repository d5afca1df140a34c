"""Running the reference table's examples on a real server and reading what the server did.

The example schema (``safemigrate.reference.schema``) is built once in a template database;
the rolled-back examples run in one copy of it, each in a transaction that is rolled back, and
the examples that cannot run in a transaction block each get a fresh copy. What is read:

- locks: ``pg_locks`` of the session just before the rollback, the relation locks the statement
  added (setup's are subtracted), strongest mode per relation that existed before;
- rewrites: a table's or materialized view's ``relfilenode`` changed;
- index builds: an index of an existing table is new or has a new ``relfilenode`` while its
  table was not rewritten;
- scans: ``pg_stat_xact_user_tables.seq_scan`` grew (the transaction's own counters);
- row changes: ``n_tup_ins``/``n_tup_upd``/``n_tup_del`` of the same view;
- the SQLSTATE of an error.

``compare`` turns a row, one of its examples and an observation into a list of disagreements.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

from safemigrate.core.model import LockMode
from safemigrate.reference import schema
from safemigrate.reference.model import (
    DataChange,
    Effect,
    Example,
    Fact,
    Probe,
    Row,
    Target,
    Transaction,
)

#: pg_locks.mode -> LockMode.
MODES = {mode.pg_name: mode for mode in LockMode}
#: Relation kinds whose rewrite counts (tables, materialized views).
_HEAP_KINDS = ("r", "m")
#: How long an example may wait for a lock before the probe gives up on it (a safety net for
#: a wrong fixture, never a measurement).
_LOCK_TIMEOUT = "20s"
#: How long the ALONE probe waits for the statement to queue behind the blocker.
_QUEUE_WAIT_S = 30.0


@dataclass(frozen=True)
class Relation:
    """A relation of the example database before any example ran."""

    oid: int
    name: str
    kind: str
    relfilenode: int
    #: For an index: its table's oid.
    table: int | None


@dataclass
class Baseline:
    """The relations of the example database, by oid and by name, and the row counts."""

    by_oid: dict[int, Relation]
    rows: dict[str, int]

    @property
    def by_name(self) -> dict[str, Relation]:
        return {r.name: r for r in self.by_oid.values()}


@dataclass
class Observation:
    """What the server did for one example."""

    error: str | None = None
    error_text: str = ""
    locks: dict[str, LockMode] = field(default_factory=dict)
    rewritten: set[str] = field(default_factory=set)
    built: set[str] = field(default_factory=set)
    scanned: set[str] = field(default_factory=set)
    inserted: dict[str, int] = field(default_factory=dict)
    changed: dict[str, int] = field(default_factory=dict)
    #: For the ALONE probe: the relations it was held back on, and the mode it asked for.
    waited: dict[str, LockMode] = field(default_factory=dict)
    blocked: set[str] = field(default_factory=set)
    #: What was not read (the ALONE and SESSION probes read less).
    unread: set[str] = field(default_factory=set)
    #: The strongest lock held on each relation before the statement (setup's).
    held_before: dict[str, LockMode] = field(default_factory=dict)


def substitute(text: str, database: str, new_database: str = "") -> str:
    """An example's SQL with the placeholders of ``schema`` filled in."""
    return text.replace(schema.DATABASE, database).replace(
        schema.NEW_DATABASE, new_database or f"sm_ref_new_{uuid.uuid4().hex[:8]}"
    )


def _quoted(name: str) -> sql.Composable:
    return sql.Identifier(name)


def build_template(admin_dsn: str, dsn_of: Any, name: str) -> None:
    """Create database ``name`` holding the example schema and its rows."""
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(_quoted(name)))
    with psycopg.connect(dsn_of(name), autocommit=True) as conn:
        conn.execute(schema.ROLE_SETUP)
        version = conn.info.server_version // 10000
        extra = [s for since, more in schema.SCHEMA_SINCE.items() if version >= since for s in more]
        with conn.transaction():
            for statement in (*schema.SCHEMA, *extra):
                conn.execute(statement)
        for statement in schema.AFTER:
            conn.execute(statement)


def drop_database(admin_dsn: str, dsn_of: Any, name: str) -> None:
    """Drop database ``name`` (its example subscription first)."""
    with suppress(psycopg.Error), psycopg.connect(dsn_of(name), autocommit=True) as conn:
        for statement in schema.TEARDOWN:
            conn.execute(statement)
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(_quoted(name)))


def copy_database(admin_dsn: str, template: str, name: str) -> None:
    """Create database ``name`` as a copy of ``template``."""
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(_quoted(name), _quoted(template))
        )


_RELATIONS = """
SELECT c.oid, CASE WHEN n.nspname = 'public' THEN c.relname ELSE n.nspname || '.' || c.relname END,
       c.relkind, c.relfilenode, i.indrelid
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_index i ON i.indexrelid = c.oid
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
"""


def read_baseline(conn: psycopg.Connection[Any]) -> Baseline:
    """The relations of ``conn``'s database and the row count of each table."""
    by_oid = {
        oid: Relation(oid, name, kind, node, table)
        for oid, name, kind, node, table in conn.execute(_RELATIONS).fetchall()
    }
    rows: dict[str, int] = {}
    for relation in by_oid.values():
        if relation.kind in _HEAP_KINDS:
            query = sql.SQL("SELECT count(*) FROM ONLY {}").format(
                sql.Identifier(*relation.name.split("."))
            )
            rows[relation.name] = conn.execute(query).fetchone()[0]  # type: ignore[index]
    return Baseline(by_oid, rows)


_LOCKS = """
SELECT relation::int, mode FROM pg_locks
WHERE pid = pg_backend_pid() AND locktype = 'relation' AND granted
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""
_COUNTERS = """
SELECT relid::int, seq_scan, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_xact_user_tables
"""


def _locks(conn: psycopg.Connection[Any]) -> set[tuple[int, str]]:
    return {(oid, mode) for oid, mode in conn.execute(_LOCKS).fetchall()}


def _counters(conn: psycopg.Connection[Any]) -> dict[int, tuple[int, int, int, int]]:
    return {
        oid: (scans or 0, ins or 0, upd or 0, dele or 0)
        for oid, scans, ins, upd, dele in conn.execute(_COUNTERS).fetchall()
    }


def _filenodes(conn: psycopg.Connection[Any]) -> dict[int, int]:
    return dict(conn.execute("SELECT oid::int, relfilenode::int FROM pg_class").fetchall())


def _indexes(conn: psycopg.Connection[Any]) -> dict[int, int]:
    """index oid -> table oid, for every index with storage (a partitioned table's index has
    none: nothing is built for it)."""
    return dict(
        conn.execute(
            "SELECT i.indexrelid::int, i.indrelid::int FROM pg_index i"
            " JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relkind = 'i'"
        ).fetchall()
    )


def _storage_effects(
    baseline: Baseline, filenodes: dict[int, int], indexes: dict[int, int], obs: Observation
) -> None:
    """Rewrites and index builds, from relfilenodes and indexes read after the statement."""
    rewritten_oids = set()
    for relation in baseline.by_oid.values():
        node = filenodes.get(relation.oid)
        if relation.kind in _HEAP_KINDS and node is not None and node != relation.relfilenode:
            obs.rewritten.add(relation.name)
            rewritten_oids.add(relation.oid)
    for index, table in indexes.items():
        if table not in baseline.by_oid or table in rewritten_oids:
            continue
        old = baseline.by_oid.get(index)
        if old is None or filenodes.get(index) != old.relfilenode:
            obs.built.add(baseline.by_oid[table].name)


def _ran(conn: psycopg.Connection[Any], statement: str, obs: Observation) -> bool:
    """Run ``statement``; on a server error, record it in ``obs`` and return False."""
    try:
        conn.execute(statement)
    except psycopg.Error as exc:
        obs.error = exc.sqlstate
        obs.error_text = str(exc).splitlines()[0] if str(exc) else ""
        return False
    return True


def probe_rolled_back(
    conn: psycopg.Connection[Any], baseline: Baseline, statement: str, setup: Sequence[str] = ()
) -> Observation:
    """Run ``statement`` (after ``setup``) in a transaction on ``conn``, read what it did,
    and roll back."""
    obs = Observation()
    conn.execute("BEGIN")
    try:
        conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(_LOCK_TIMEOUT)))
        for statement_before in setup:
            try:
                conn.execute(statement_before)
            except psycopg.Error as exc:
                obs.error = "setup"
                obs.error_text = f"setup {statement_before!r} failed: {exc}"
                return obs
        locks_before = _locks(conn)
        for oid, mode_name in locks_before:
            relation = baseline.by_oid.get(oid)
            if relation is not None and mode_name in MODES:
                held = obs.held_before.get(relation.name, LockMode.ACCESS_SHARE)
                obs.held_before[relation.name] = max(held, MODES[mode_name])
        counters_before = _counters(conn)
        if not _ran(conn, statement, obs):
            return obs
        added = _locks(conn) - locks_before
        for oid, mode_name in added:
            relation = baseline.by_oid.get(oid)
            if relation is None or mode_name not in MODES:
                continue
            mode = MODES[mode_name]
            if mode > obs.locks.get(relation.name, LockMode.ACCESS_SHARE) or (
                relation.name not in obs.locks
            ):
                obs.locks[relation.name] = mode
        counters_after = _counters(conn)
        for oid, after in counters_after.items():
            relation = baseline.by_oid.get(oid)
            if relation is None:
                continue
            before = counters_before.get(oid, (0, 0, 0, 0))
            scans, ins, upd, dele = (a - b for a, b in zip(after, before, strict=True))
            if scans > 0:
                obs.scanned.add(relation.name)
            if ins:
                obs.inserted[relation.name] = ins
            if upd + dele:
                obs.changed[relation.name] = upd + dele
        _storage_effects(baseline, _filenodes(conn), _indexes(conn), obs)
        return obs
    finally:
        conn.execute("ROLLBACK")
        # Prepared statements outlive the transaction; the next example starts clean.
        conn.execute("DEALLOCATE ALL")


def probe_session(dsn: str, statement: str, setup: Sequence[str] = ()) -> Observation:
    """Run ``setup`` then ``statement`` on a fresh autocommit session, as written (transaction
    control), and read the relation locks the session holds afterwards."""
    obs = Observation(unread={"scans", "rewrites", "builds", "data"})
    with psycopg.connect(dsn, autocommit=True) as conn:
        baseline_oids = {oid for (oid,) in conn.execute("SELECT oid::int FROM pg_class")}
        for statement_before in setup:
            conn.execute(statement_before)
        if not _ran(conn, statement, obs):
            return obs
        names: dict[int, str] = dict(
            conn.execute(
                "SELECT oid::int, relname FROM pg_class WHERE relnamespace = 'public'::regnamespace"
            ).fetchall()
        )
        for oid, mode_name in _locks(conn):
            if oid in baseline_oids and oid in names and mode_name in MODES:
                held = obs.locks.get(names[oid], LockMode.ACCESS_SHARE)
                obs.locks[names[oid]] = max(MODES[mode_name], held)
    return obs


def refused_in_block(conn: psycopg.Connection[Any], statement: str) -> str | None:
    """The SQLSTATE of ``statement`` run inside a transaction block (then rolled back)."""
    conn.execute("BEGIN")
    try:
        conn.execute(statement)
    except psycopg.Error as exc:
        return exc.sqlstate
    finally:
        conn.execute("ROLLBACK")
    return None


@contextmanager
def _blocker(dsn: str, relation: str, mode: LockMode) -> Iterator[psycopg.Connection[Any]]:
    """A session holding ``mode`` on ``relation`` until the block ends."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("BEGIN")
        conn.execute(
            sql.SQL("LOCK TABLE {} IN {} MODE").format(
                sql.Identifier(*relation.split(".")), sql.SQL(mode.sql_name)
            )
        )
        try:
            yield conn
        finally:
            conn.execute("ROLLBACK")


def _waits(watch: psycopg.Connection[Any], pid: int) -> list[tuple[int | None, str]]:
    """The lock requests backend ``pid`` waits on: (relation oid or None, mode)."""
    rows = watch.execute(
        "SELECT relation::int, mode FROM pg_locks WHERE pid = %s AND NOT granted", (pid,)
    ).fetchall()
    return [(oid, mode) for oid, mode in rows]


def probe_alone(
    dsn: str,
    statement: str,
    blocked_on: str | None,
    setup: Sequence[str] = (),
    held: LockMode = LockMode.EXCLUSIVE,
) -> Observation:
    """Run ``statement`` alone (autocommit) on database ``dsn``, which it may change.

    With ``blocked_on``, a second session holds ``held`` on that relation first and the mode
    the statement queues for there, if it queues, is read from pg_locks; then the holder lets
    go. EXCLUSIVE lets only ACCESS SHARE (the name lookup many commands start with) through:
    the statement's first real request queues. ACCESS SHARE stops only ACCESS EXCLUSIVE: the
    statement queues if it ever asks for it (a second phase, as DETACH ... CONCURRENTLY's).
    Afterwards: relfilenodes and indexes (rewrites, builds)."""
    obs = Observation(unread={"scans", "data"})
    with psycopg.connect(dsn, autocommit=True) as conn, psycopg.connect(dsn, autocommit=True) as w:
        baseline = read_baseline(conn)
        for statement_before in setup:
            conn.execute(statement_before)
        pid = conn.info.backend_pid
        errors: list[psycopg.Error] = []

        def run() -> None:
            try:
                conn.execute(statement)
            except psycopg.Error as exc:
                errors.append(exc)

        if blocked_on is None:
            run()
        else:
            oid = baseline.by_name[blocked_on].oid
            with _blocker(dsn, blocked_on, held):
                worker = threading.Thread(target=run, daemon=True)
                worker.start()
                deadline = time.monotonic() + _QUEUE_WAIT_S
                while time.monotonic() < deadline and worker.is_alive():
                    waits = _waits(w, pid)
                    # Queued on the relation (its mode is the answer), or waiting for the
                    # holder's transaction itself (CONCURRENTLY waits out older transactions:
                    # no lock request on the relation to read): either way, let go.
                    for relation, mode in waits:
                        if relation == oid and mode in MODES:
                            obs.waited[blocked_on] = MODES[mode]
                    if waits:
                        break
                    time.sleep(0.02)
            worker.join(_QUEUE_WAIT_S * 4)
        if errors:
            obs.error = errors[0].sqlstate
            obs.error_text = str(errors[0]).splitlines()[0]
            return obs
        _storage_effects(baseline, _filenodes(w), _indexes(w), obs)
    return obs


def probe_kind(row: Row, example: Example) -> Probe:
    """How ``example`` of ``row`` is run."""
    if example.probe is not None:
        return example.probe
    if row.transaction is Transaction.NOT_IN_BLOCK:
        return Probe.ALONE
    if row.transaction is Transaction.CONTROL:
        return Probe.SESSION
    return Probe.ROLLED_BACK


def _stated(fact: Fact, stated: bool | None, what: str, problems: list[str]) -> bool:
    """Whether a row's effect happens in an example (DEPENDS: as the example says)."""
    if fact.effect is Effect.DEPENDS:
        if stated is None:
            problems.append(f"the row says {what} depends; the example must say whether it does")
            return False
        return stated
    return fact.effect is Effect.YES


def expected_locks(rows: Sequence[Row], example: Example) -> dict[str, LockMode]:
    """The strongest mode the rows of a statement say it takes on each relation."""
    expected: dict[str, LockMode] = {}
    for row in rows:
        for lock in row.locks:
            for name in example.names(lock.target):
                expected[name] = max(lock.mode, expected.get(name, LockMode.ACCESS_SHARE))
    return expected


def _effect_on(
    rows: Sequence[Row], example: Example, what: str, problems: list[str], unread: set[str]
) -> tuple[bool, set[str]]:
    """Whether any row does ``what`` (rewrites, builds, scans) here, and on which relations."""
    happens = False
    names: set[str] = set()
    for row in rows:
        fact: Fact = getattr(row, what)
        if _stated(fact, getattr(example, what), what, problems):
            happens = True
            names |= {n for t in fact.on for n in example.names(t)}
    if happens and not names and what not in unread:
        problems.append(f"the row says it {what}, the example names no relation in its roles")
    return happens, names


def compare(
    rows: Sequence[Row], example: Example, obs: Observation, baseline: Baseline
) -> list[str]:
    """Where the server (``obs``) and the rows of the example's statement disagree."""
    problems: list[str] = []
    if example.error is not None:
        if obs.error != example.error:
            problems.append(
                f"expected SQLSTATE {example.error}, got {obs.error or 'success'}"
                + (f" ({obs.error_text})" if obs.error_text else "")
            )
        if not any(r.sqlstate == example.error for row in rows for r in row.rejects):
            problems.append(f"the row lists no rejection with SQLSTATE {example.error}")
        return problems
    if obs.error is not None:
        return [f"failed with {obs.error}: {obs.error_text}"]
    expected = expected_locks(rows, example)
    kinds = {r.name: r.kind for r in baseline.by_oid.values()}
    if obs.blocked:
        for name in sorted(obs.blocked):
            want, got = expected.get(name), obs.waited.get(name)
            if got is None and (want is None or want is LockMode.ACCESS_SHARE):
                continue
            if want != got:
                problems.append(
                    f"queued for {got.sql_name if got else 'nothing'} on {name}, the row says "
                    f"{want.sql_name if want else 'none'}"
                )
    elif "locks" not in obs.unread:
        for name in sorted(set(expected) | set(obs.locks)):
            if name not in kinds:
                continue  # made by the example's setup: nobody else can see it
            # Indexes and composite types' relations count only where the example names them.
            if kinds.get(name) in ("i", "I", "c") and example.role_of(name) is None:
                continue
            want, got = expected.get(name), obs.locks.get(name)
            if want is not None and got is None and obs.held_before.get(name, 0) >= want:
                continue
            if want != got:
                problems.append(
                    f"lock on {name}: row says {want.sql_name if want else 'none'},"
                    f" server took {got.sql_name if got else 'none'}"
                )
    rewrites, rewritten = _effect_on(rows, example, "rewrites", problems, obs.unread)
    builds, built = _effect_on(rows, example, "builds", problems, obs.unread)
    scans, scanned = _effect_on(rows, example, "scans", problems, obs.unread)
    # Only relations with storage are rewritten or scanned (a partitioned table's partitions
    # are, not the table itself); an index built during a rewrite counts as the rewrite.
    rewritten = {n for n in rewritten if kinds.get(n) in _HEAP_KINDS}
    scanned = {n for n in scanned if kinds.get(n) in _HEAP_KINDS}
    built = {n for n in built if kinds.get(n) in _HEAP_KINDS}
    built -= rewritten
    if "rewrites" not in obs.unread and rewritten != obs.rewritten:
        problems.append(f"rewrites: row says {sorted(rewritten)}, server {sorted(obs.rewritten)}")
    if "builds" not in obs.unread and built != obs.built:
        problems.append(f"index builds: row says {sorted(built)}, server {sorted(obs.built)}")
    if "scans" not in obs.unread:
        missing = scanned - obs.scanned
        if missing:
            problems.append(f"scans: row says {sorted(scanned)}, server {sorted(obs.scanned)}")
        quiet = not (rewrites or builds or scans) and all(
            row.data is DataChange.NONE for row in rows
        )
        if quiet and obs.scanned:
            problems.append(f"scans: row says none, server scanned {sorted(obs.scanned)}")
    if "data" not in obs.unread:
        changing = [row for row in rows if row.data is not DataChange.NONE]
        for row in changing or rows[:1]:
            problems += _compare_data(row, example, obs, baseline)
    return problems


def _compare_data(row: Row, example: Example, obs: Observation, baseline: Baseline) -> list[str]:
    named = [n for t in (Target.NAMED, Target.PARTITIONS) for n in example.names(t)]
    changed = sum(obs.changed.get(n, 0) for n in named)
    inserted = sum(obs.inserted.get(n, 0) for n in named)
    rows = sum(baseline.rows.get(n, 0) for n in named)
    kind = row.data
    if kind is DataChange.NONE:
        if obs.changed:
            return [f"changes no rows, says the row; the server changed {obs.changed}"]
        return []
    if kind is DataChange.EVERY_ROW and changed < rows:
        return [f"changes every row ({rows}), says the row; the server changed {changed}"]
    if kind is DataChange.MATCHED_ROWS and not 0 < changed < rows:
        return [f"changes the matched rows, says the row; the server changed {changed}/{rows}"]
    if kind is DataChange.NEW_ROWS and (changed or not inserted):
        return [f"inserts only, says the row; the server inserted {inserted}, changed {changed}"]
    return []


class ProbeSession:
    """The example schema on one server, and the examples run on it one at a time."""

    def __init__(self, admin_dsn: str, dsn_of: Any, version: int) -> None:
        """Build the template and the rolled-back examples' copy on the server."""
        self.admin_dsn = admin_dsn
        self.dsn_of = dsn_of
        self.version = version
        tag = uuid.uuid4().hex[:10]
        self.template = f"sm_ref_tmpl_{tag}"
        self.main = f"sm_ref_main_{tag}"
        self._copies: list[str] = []
        build_template(admin_dsn, dsn_of, self.template)
        copy_database(admin_dsn, self.template, self.main)
        # No automatic prepared statements: the examples DEALLOCATE ALL.
        self.conn = psycopg.connect(dsn_of(self.main), autocommit=True, prepare_threshold=None)
        for statement in schema.PER_DATABASE:
            self.conn.execute(statement)
        self.baseline = read_baseline(self.conn)

    def close(self) -> None:
        """Drop every database made."""
        self.conn.close()
        for name in [self.main, *self._copies, self.template]:
            with suppress(psycopg.Error):
                drop_database(self.admin_dsn, self.dsn_of, name)

    def _copy(self) -> str:
        name = f"sm_ref_copy_{uuid.uuid4().hex[:12]}"
        copy_database(self.admin_dsn, self.template, name)
        self._copies.append(name)
        return name

    def _drop_copy(self, name: str) -> None:
        with suppress(psycopg.Error):
            drop_database(self.admin_dsn, self.dsn_of, name)
        self._copies.remove(name)

    def observe(self, row: Row, example: Example) -> list[Observation]:
        """Run ``example`` of ``row`` the way its probe says; one observation per run."""
        kind = probe_kind(row, example)
        # A database the example creates gets a name of its own, dropped with the copies.
        new_database = f"sm_ref_new_{uuid.uuid4().hex[:12]}"
        if schema.NEW_DATABASE in " ".join((example.sql, *example.setup)):
            self._copies.append(new_database)
        statement = substitute(example.sql, self.main, new_database)
        setup = [substitute(s, self.main, new_database) for s in example.setup]
        if kind is Probe.ROLLED_BACK:
            return [probe_rolled_back(self.conn, self.baseline, statement, setup)]
        if kind is Probe.SESSION:
            return [probe_session(self.dsn_of(self.main), statement, setup)]
        observations = []
        refused = refused_in_block(self.conn, statement)
        if kind is Probe.REFUSED_IN_BLOCK:
            if refused != "25001":
                return [Observation(error=refused or "none", error_text="in a transaction block")]
            return []
        if refused != "25001":
            observations.append(
                Observation(error=refused or "none", error_text="in a transaction block")
            )
            return observations
        lockable = [
            name
            for name, _ in example.on
            if self.baseline.by_name.get(name) is not None
            and self.baseline.by_name[name].kind in ("r", "p", "m", "v", "f", "S")
        ]
        if not lockable:
            return [self._alone(example, new_database, setup, None, LockMode.EXCLUSIVE)]
        merged = Observation(unread={"scans", "data"})
        for number, blocked_on in enumerate(lockable):
            first = self._alone(example, new_database, setup, blocked_on, LockMode.EXCLUSIVE)
            later = self._alone(example, new_database, setup, blocked_on, LockMode.ACCESS_SHARE)
            for obs in (first, later):
                if obs.error is not None:
                    return [obs]
            merged.blocked.add(blocked_on)
            modes = [m for m in (first.waited.get(blocked_on), later.waited.get(blocked_on)) if m]
            if modes:
                merged.waited[blocked_on] = max(modes)
            if number == 0:
                merged.rewritten, merged.built = first.rewritten, first.built
        return [merged]

    def _alone(
        self,
        example: Example,
        new_database: str,
        setup: Sequence[str],
        blocked_on: str | None,
        held: LockMode,
    ) -> Observation:
        """One ALONE run on a fresh copy of the database."""
        copy = self._copy()
        try:
            copied = substitute(example.sql, copy, new_database)
            return probe_alone(self.dsn_of(copy), copied, blocked_on, setup, held)
        finally:
            self._drop_copy(copy)

    def check(self, rows: Sequence[Row], primary: Row, example: Example) -> list[str]:
        """The disagreements between the server and ``rows`` (the rows of the example's
        statement, ``primary`` first) for ``example``."""
        problems: list[str] = []
        for obs in self.observe(primary, example):
            if obs.error_text == "in a transaction block":
                return [f"runs in a transaction block (SQLSTATE {obs.error}), the row says not"]
            problems += compare(rows, example, obs, self.baseline)
        return problems
