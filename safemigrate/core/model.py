"""The data safemigrate works on: migrations, their steps and statements, and the server sessions
around a step (who blocks it, what it waits for). Frozen, no I/O."""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from . import checksums

#: The PostgreSQL major version the lint rules and plans assume when neither the config nor a
#: server says otherwise (the settings' ``pg_version`` default, the linter's default).
DEFAULT_PG_VERSION = 17
#: What happens to a plain CREATE INDEX (``concurrent_indexes``): made CONCURRENTLY, refused,
#: or run as written.
ConcurrentIndexes = Literal["rewrite", "require", "off"]
#: What happens to the plain constraint statements that have a non-blocking recipe
#: (``safe_rewrites``).
SafeRewrites = Literal["rewrite", "require", "off"]


class TxMode(enum.Enum):
    """How a step is run."""

    #: One statement in its own transaction, under SET LOCAL timeouts.
    OWN = "own transaction"
    #: Consecutive statements grouped by ``-- safemigrate: group-start`` / ``group-end``.
    GROUP = "grouped"
    #: An explicit ``BEGIN; ... COMMIT;`` block from the file, run as the author wrote it.
    EXPLICIT = "explicit block"
    #: A statement that cannot run in a transaction block (e.g. CREATE INDEX CONCURRENTLY).
    AUTOCOMMIT = "autocommit"
    #: A plain constraint statement run as its non-blocking recipe: parts in autocommit mode,
    #: the closing ones in a transaction with the journal row.
    RECIPE = "constraint recipe"
    #: A plain ``ALTER COLUMN ... TYPE`` run as the online type change: its phases in
    #: autocommit mode and short transactions, resumed from its record (run/type_change.py).
    ONLINE_TYPE = "online type change"

    @property
    def shown(self) -> str:
        """The mode as events and ``plan`` show it: a recipe is shown as autocommit (what its
        first parts run in), as it always has been; so is the online type change."""
        if self is TxMode.RECIPE or self is TxMode.ONLINE_TYPE:
            return TxMode.AUTOCOMMIT.value
        return str(self.value)


@dataclass(frozen=True)
class QualifiedName:
    """A relation name as PostgreSQL resolves it: already case-folded, schema optional."""

    schema: str | None
    name: str

    def __str__(self) -> str:
        return f"{self.schema}.{self.name}" if self.schema else self.name


class LockMode(enum.IntEnum):
    """PostgreSQL's table lock modes, weakest first."""

    ACCESS_SHARE = 1
    ROW_SHARE = 2
    ROW_EXCLUSIVE = 3
    SHARE_UPDATE_EXCLUSIVE = 4
    SHARE = 5
    SHARE_ROW_EXCLUSIVE = 6
    EXCLUSIVE = 7
    ACCESS_EXCLUSIVE = 8

    @property
    def pg_name(self) -> str:
        """The name ``pg_locks.mode`` uses, e.g. ``AccessExclusiveLock``."""
        return "".join(part.capitalize() for part in self.name.split("_")) + "Lock"

    @property
    def sql_name(self) -> str:
        """The name in SQL, e.g. ``ACCESS EXCLUSIVE``."""
        return self.name.replace("_", " ")

    def conflicts_with(self, other: LockMode) -> bool:
        """True when a lock in this mode and one in ``other`` cannot be held together."""
        return other in CONFLICTS[self]

    @property
    def blocks_reads(self) -> bool:
        """True when waiting for or holding this lock stalls plain SELECTs."""
        return self.conflicts_with(LockMode.ACCESS_SHARE)

    @property
    def blocks_writes(self) -> bool:
        """True when waiting for or holding this lock stalls INSERT/UPDATE/DELETE."""
        return self.conflicts_with(LockMode.ROW_EXCLUSIVE)


_M = LockMode
#: The conflict table of the PostgreSQL documentation ("Conflicting Lock Modes").
CONFLICTS: dict[LockMode, frozenset[LockMode]] = {
    _M.ACCESS_SHARE: frozenset({_M.ACCESS_EXCLUSIVE}),
    _M.ROW_SHARE: frozenset({_M.EXCLUSIVE, _M.ACCESS_EXCLUSIVE}),
    _M.ROW_EXCLUSIVE: frozenset(
        {_M.SHARE, _M.SHARE_ROW_EXCLUSIVE, _M.EXCLUSIVE, _M.ACCESS_EXCLUSIVE}
    ),
    _M.SHARE_UPDATE_EXCLUSIVE: frozenset(
        {
            _M.SHARE_UPDATE_EXCLUSIVE,
            _M.SHARE,
            _M.SHARE_ROW_EXCLUSIVE,
            _M.EXCLUSIVE,
            _M.ACCESS_EXCLUSIVE,
        }
    ),
    _M.SHARE: frozenset(
        {
            _M.ROW_EXCLUSIVE,
            _M.SHARE_UPDATE_EXCLUSIVE,
            _M.SHARE_ROW_EXCLUSIVE,
            _M.EXCLUSIVE,
            _M.ACCESS_EXCLUSIVE,
        }
    ),
    _M.SHARE_ROW_EXCLUSIVE: frozenset(
        {
            _M.ROW_EXCLUSIVE,
            _M.SHARE_UPDATE_EXCLUSIVE,
            _M.SHARE,
            _M.SHARE_ROW_EXCLUSIVE,
            _M.EXCLUSIVE,
            _M.ACCESS_EXCLUSIVE,
        }
    ),
    _M.EXCLUSIVE: frozenset(set(LockMode) - {_M.ACCESS_SHARE}),
    _M.ACCESS_EXCLUSIVE: frozenset(LockMode),
}


@dataclass(frozen=True)
class LockNeed:
    """A lock a statement takes on one relation, and what it does to that relation."""

    relation: QualifiedName
    mode: LockMode
    rewrites: bool = False
    scans: bool = False


class Via(enum.Enum):
    """How the catalog leads from a relation a statement names to one it also locks."""

    #: The table of the index ``relation``.
    INDEX_TABLE = "index_table"
    #: The tables ``relation``'s foreign keys reference.
    REFERENCED = "referenced"
    #: The tables whose foreign keys reference ``relation``.
    REFERENCING = "referencing"
    #: The table foreign key ``detail`` of ``relation`` references.
    CONSTRAINT_REFERENCED = "constraint_referenced"
    #: The other side of every foreign key of ``relation`` that uses column ``detail`` (its
    #: referenced table) or references it (the referencing table).
    COLUMN_FOREIGN_KEYS = "column_foreign_keys"
    #: The partitioned table ``relation`` is a partition of.
    PARENT = "parent"
    #: The default partition of the partitioned table ``relation``.
    DEFAULT_PARTITION = "default_partition"
    #: The default partition of the parent of partition ``relation`` (not ``relation`` itself).
    SIBLING_DEFAULT_PARTITION = "sibling_default_partition"
    #: Every partition or inheritance child of ``relation``, at any depth.
    CHILDREN = "children"


@dataclass(frozen=True)
class CatalogLock:
    """A lock a statement takes on relations only the catalog can name: ``mode`` on every
    relation found from ``relation`` by ``via`` (e.g. DROP INDEX: the index's table)."""

    via: Via
    relation: QualifiedName
    mode: LockMode
    #: A constraint or column name, for the ``via`` kinds that need one.
    detail: str | None = None
    scans: bool = False


def merge_needs(needs: Iterable[LockNeed]) -> list[LockNeed]:
    """One need per relation: the strongest mode, rewrites/scans if any command does."""
    merged: dict[QualifiedName, LockNeed] = {}
    for need in needs:
        old = merged.get(need.relation)
        if old is None:
            merged[need.relation] = need
        else:
            merged[need.relation] = LockNeed(
                need.relation,
                max(old.mode, need.mode),
                old.rewrites or need.rewrites,
                old.scans or need.scans,
            )
    return list(merged.values())


@dataclass(frozen=True)
class IndexBuild:
    """What the runner needs to know to build an index CONCURRENTLY and clean up after it."""

    table: QualifiedName
    #: The index name, or None when PostgreSQL chooses it.
    name: str | None
    #: The index definition with names removed, to compare with existing indexes.
    definition: str
    if_not_exists: bool
    #: The same CREATE INDEX on the probe table ``_safemigrate_probe`` (see db.indexes), so
    #: that the server itself can say how it would write this index's definition.
    probe_sql: str = ""


@dataclass(frozen=True)
class IndexDrop:
    """The indexes a DROP INDEX CONCURRENTLY removes."""

    names: tuple[QualifiedName, ...]
    if_exists: bool


#: The four constraint statements the runner runs as a non-blocking recipe (see ``rewrites``).
RECIPE_KINDS = ("foreign_key", "check", "not_null", "unique", "primary_key")


@dataclass(frozen=True)
class ConstraintRewrite:
    """A plain constraint statement the runner applies as its non-blocking recipe.

    The texts are pglast deparses of the author's own nodes; the db layer resolves the name
    PostgreSQL would have chosen (``name`` None) against the catalog and asks
    ``rewrites.recipe_parts`` for the SQL of each part.
    """

    #: One of RECIPE_KINDS.
    kind: str
    table: QualifiedName
    #: The author's statement (``rewrites.recipe_parts`` builds the parts from its nodes).
    source: str
    #: The constraint (or, for not_null, the column) name the author gave; None when PostgreSQL
    #: chooses it.
    name: str | None
    #: For not_null the column; for unique/primary_key the key columns then INCLUDE columns;
    #: for foreign_key the referencing columns.
    columns: tuple[str, ...] = ()
    #: The constraint clause without its name, deparsed, e.g. ``FOREIGN KEY (a) REFERENCES r (id)``.
    definition: str = ""
    #: makeObjectName's name2 and label for the name PostgreSQL would choose.
    name_addition: str | None = None
    name_label: str = ""
    #: The referenced table of a foreign key.
    referenced: QualifiedName | None = None
    #: Key columns of a unique/primary key (the rest of ``columns`` are INCLUDE columns).
    key_count: int = 0
    nulls_not_distinct: bool = False
    deferrable: bool = False
    initially_deferred: bool = False
    #: A CHECK whose name depends on the table's columns (a bare name that is the table's: the
    #: column of that name if there is one, else the whole row): what its column references
    #: resolve to, for ``rewrites.check_name_addition`` against the catalog; else empty.
    check_references: tuple[tuple[str, str], ...] = ()
    #: The parse tree of ``source`` (read only, not compared): the recipe's parts are built
    #: from it without parsing the text again. None when made without the parser.
    tree: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class BatchTarget:
    """The table an UPDATE/DELETE marked ``batch-size=N`` changes, and how it names it."""

    table: QualifiedName
    #: The name the statement's own clauses use for the table: its alias, else its name.
    refname: str
    #: The columns an UPDATE assigns (empty for a DELETE).
    assigned: tuple[str, ...]


# -- the session state a statement changes (see session_state) ----------------------------

# The kinds of what lives in a session and a new session cannot get back.
TEMPORARY = "temporary"
PREPARED = "prepared statement"
LISTENING = "LISTEN"
CURSOR = "cursor WITH HOLD"
ADVISORY = "session advisory lock"
UNKNOWN = "unknown setting"
KINDS = (TEMPORARY, PREPARED, LISTENING, CURSOR, ADVISORY, UNKNOWN)
#: A setting's default for new sessions changed (ALTER ROLE / DATABASE ... SET or RESET): the
#: session that ran it keeps its value, a new one starts with the new default. Not in KINDS:
#: DISCARD ALL and RESET go back to the old session's defaults, which a new one lacks.
DEFAULTS = "session default changed"


@dataclass(frozen=True)
class Setting:
    """A change of settings a new session can make again: running ``sql`` makes it."""

    #: What it changes: a setting's name (lower case), ROLE, AUTHORIZATION, ALL (RESET ALL),
    #: or ``load FILE``.
    target: str
    sql: str
    #: True when it puts the setting back to its default (RESET, SET ... TO DEFAULT, SET ROLE
    #: NONE): a new session already has that for a role.
    resets: bool = False
    #: Where the statement that made it is, for people: ``0002_x.sql:3`` (set by SessionState).
    where: str = field(default="", compare=False)
    #: The version of the migration whose step made it (set by SessionState).
    version: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Kept:
    """Something that lives as long as the session, which a new session does not have."""

    kind: str
    #: Its name (a relation, prepared statement, cursor or channel name; an advisory lock's
    #: arguments; a setting); None when the parse tree cannot say.
    name: str | None
    #: For people, e.g. ``temporary table tmp_prices``.
    what: str
    #: Where it was made, for people: ``0260_add_prices.sql:27`` (set by SessionState).
    where: str = ""
    #: The version of the migration whose step made it (set by SessionState).
    version: int | None = None
    #: For a changed default of new sessions (DEFAULTS): the (role, database) whose sessions
    #: it reaches; a None part is every role or database, an empty role the runner's own
    #: (CURRENT_USER, SESSION_USER). None: every session.
    applies_to: tuple[str | None, str | None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Ended:
    """The end of something kept: DROP of a temporary table, DEALLOCATE, UNLISTEN, CLOSE,
    DISCARD, an advisory unlock. ``name`` None ends every one of the kind."""

    kind: str
    name: str | None


@dataclass(frozen=True)
class Savepoint:
    """SAVEPOINT, RELEASE or ROLLBACK TO inside an explicit block: a rollback to a savepoint
    undoes the session changes made since it."""

    action: str
    name: str


SessionChange = Setting | Kept | Ended | Savepoint


@dataclass(frozen=True)
class Statement:
    """One top-level SQL statement of a migration file."""

    #: The statement exactly as written in the file (no trailing semicolon).
    text: str
    #: 1-based line and column of its first character in the file.
    line: int
    column: int
    #: The name of its parse tree node, e.g. ``IndexStmt``.
    kind: str
    #: True when it runs as a step of its own outside a transaction block: PostgreSQL refuses
    #: it in one, or the runner runs it as CONCURRENTLY or as a constraint recipe.
    non_transactional: bool = False
    #: The text the runner executes, when it differs from ``text`` (e.g. CONCURRENTLY added).
    rewritten: str | None = None
    #: Set for CREATE INDEX CONCURRENTLY (written so or rewritten).
    index_build: IndexBuild | None = None
    #: Set for DROP INDEX CONCURRENTLY.
    index_drop: IndexDrop | None = None
    #: Set for a plain constraint statement the runner applies as its recipe.
    constraint_rewrite: ConstraintRewrite | None = None
    #: True for a plain ``ALTER COLUMN ... TYPE`` the runner applies as the online type change.
    online_type_change: bool = False
    #: Notes for the operator, e.g. why a plain CREATE INDEX was not rewritten.
    notes: tuple[str, ...] = ()
    #: The table locks the statement the runner executes takes (see locks.lock_needs).
    locks: tuple[LockNeed, ...] = ()
    #: The locks on relations the statement does not name, to be found in the catalog.
    catalog_locks: tuple[CatalogLock, ...] = ()
    #: What it changes in its session for the statements after it (session_state.changes_of):
    #: settings (SET, RESET, set_config(..., false) ...) and what lives as long as the session.
    session_changes: tuple[SessionChange, ...] = ()
    #: Set for an UPDATE/DELETE the runner executes in key-range batches (``batch-size=N``).
    batch: BatchTarget | None = None
    #: The parse tree of ``text`` (a pglast node) as the file's parse built it, so that nothing
    #: parses the text again (``statements.tree_of``); not compared. None for a statement
    #: made without the parser. Read only: the tree is shared, never changed.
    tree: Any = field(default=None, compare=False, repr=False)
    #: ``FROM STDIN`` or ``TO STDOUT`` for a COPY whose rows come from or go to the client: the
    #: runner cannot run it (a pending one is refused), an applied one is only recorded.
    client_copy: str | None = None
    #: The data lines after a ``COPY ... FROM STDIN`` exactly as written (through the ``\.``
    #: line): not SQL, but part of the step's checksum.
    copy_data: str = ""

    @property
    def run_text(self) -> str:
        """The SQL the runner sends to the server for this statement."""
        return self.rewritten if self.rewritten is not None else self.text

    @property
    def summary(self) -> str:
        """The first words of the statement, on one line, for logs."""
        return summarize(self.run_text)


#: How a line break or tab inside a token (a string constant, a quoted name) is shown.
_SHOWN = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t"})


def flatten(sql: str) -> str:
    """``sql`` on one line: blanks and comments between tokens become one space, and every
    token keeps its text, its blanks included (line breaks and tabs shown as ``\\n``,
    ``\\t``), so that two statements that differ show differently (review21c F4: blanks
    inside a string constant were collapsed like the blanks between tokens)."""
    spans = checksums.token_spans(sql)
    if spans is None:
        return " ".join(sql.split())
    out: list[str] = []
    end = 0
    for start, stop in spans:
        if out and start > end:
            out.append(" ")
        out.append(sql[start:stop].translate(_SHOWN))
        end = stop
    return "".join(out)


def summarize(sql: str, limit: int = 60) -> str:
    """``sql`` on one line (:func:`flatten`), cut to about ``limit`` characters."""
    flat = flatten(sql)
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


#: What logs show for the step of an empty (comment-only) migration.
EMPTY_SUMMARY = "(empty migration: no SQL, recorded as applied)"


@dataclass(frozen=True)
class StepOptions:
    """Per-step overrides set with ``-- safemigrate:`` directives; None means the run's setting."""

    lock_timeout_ms: int | None = None
    statement_timeout_ms: int | None = None
    max_attempts: int | None = None
    no_retry: bool = False
    #: ``batch-size=N``: run the step's UPDATE/DELETE in batches of N keys.
    batch_size: int | None = None
    #: ``batch-pause=DUR``: pause between batches.
    batch_pause_ms: int | None = None
    #: ``max-replica-lag=DUR``: wait before a batch while a standby's replay lags more.
    max_replica_lag_ms: int | None = None
    #: ``-- safemigrate: no-rewrite``: run the statement as written (no CONCURRENTLY, no recipe).
    no_rewrite: bool = False


@dataclass(frozen=True)
class Step:
    """The unit the runner applies and journals: one transaction, or one autocommit statement."""

    #: 0-based position of the step in its migration.
    index: int
    statements: tuple[Statement, ...]
    mode: TxMode
    options: StepOptions = field(default_factory=StepOptions)
    #: An online type change's step as read, before the policy chose that form: what runs
    #: when the live catalog shows the plain statement would not block (planning.online_type).
    as_written: Step | None = field(default=None, compare=False, repr=False)

    @property
    def line(self) -> int:
        """The line of the step's first statement (1 for an empty migration's step)."""
        return self.statements[0].line if self.statements else 1

    @property
    def last_line(self) -> int:
        """The line the step's last statement ends on."""
        if not self.statements:
            return 1
        last = self.statements[-1]
        return last.line + last.text.count("\n")

    @property
    def empty(self) -> bool:
        """True for the one step of an empty migration: a file with only comments, recorded
        as applied so that status shows it applied."""
        return not self.statements

    @functools.cached_property
    def checksum(self) -> str:
        """The token checksum of the statements: what new journal rows store.

        See :mod:`safemigrate.core.checksums` (blanks and comments between tokens do not
        count); drift detection also accepts :attr:`normalized_checksum` and
        :attr:`raw_checksum`, what journals of earlier releases hold, and the token checksum
        as this release first wrote it. A COPY's data lines count as written (CR LF line ends
        of a text-format block as LF).
        """
        return self._token_checksums[0]

    @functools.cached_property
    def _token_checksums(self) -> tuple[str, str, tuple[str, ...]]:
        """The token checksum, the legacy token checksum and each statement's token checksum,
        from one scan."""
        return checksums.token_checksums_each(
            (s.text for s in self.statements), verbatim=[s.copy_data for s in self.statements]
        )

    @functools.cached_property
    def normalized_checksum(self) -> str:
        """The statements' text without trailing blanks (the checksum releases before token
        checksums stored)."""
        return checksums.normalized_checksum(
            (s.text for s in self.statements), verbatim=[s.copy_data for s in self.statements]
        )

    @functools.cached_property
    def checksums(self) -> frozenset[str]:
        """Every checksum a journal row of this step's text may hold (token, normalized, raw,
        and the token checksum before continued constants and CR LF data lines were read)."""
        return frozenset(
            (self.checksum, self.normalized_checksum, self.raw_checksum, self._token_checksums[1])
        )

    @functools.cached_property
    def statement_checksums(self) -> tuple[str, ...]:
        """The token checksum of each statement as a step of its own, in order: what a new
        journal row records of the statements that ran (``checksums.statement_checksums``)."""
        return self._token_checksums[2]

    @functools.cached_property
    def raw_checksum(self) -> str:
        """SHA-256 of the statements' text exactly as written (the previous release's checksum)."""
        return checksums.raw_checksum(
            (s.text for s in self.statements), verbatim=[s.copy_data for s in self.statements]
        )

    @property
    def summary(self) -> str:
        """The first words of the step's first meaningful statement."""
        if self.empty:
            return EMPTY_SUMMARY
        statements = self.statements
        if self.mode is TxMode.EXPLICIT and len(statements) > 2:
            statements = statements[1:]
        return summarize(statements[0].run_text)

    @property
    def locks(self) -> tuple[LockNeed, ...]:
        """The table locks of all the step's statements, strongest per relation."""
        return tuple(merge_needs(need for s in self.statements for need in s.locks))

    @property
    def catalog_locks(self) -> tuple[CatalogLock, ...]:
        """The locks of the step's statements that only the catalog can resolve."""
        return tuple(lock for s in self.statements for lock in s.catalog_locks)

    @property
    def rewritten(self) -> bool:
        """True when the runner executes a text that differs from the file's."""
        return any(s.rewritten is not None for s in self.statements)


@dataclass(frozen=True)
class Migration:
    """One migration file: ``<version>_<name>.sql``."""

    version: int
    #: The version as written in the file name (e.g. ``0001``).
    version_text: str
    name: str
    path: Path
    steps: tuple[Step, ...]
    #: What the runner's loader read of the file (``planning.migrations.RunnerReading``: its
    #: text and parsed statements), kept so that the lint gate judges that reading instead of
    #: parsing the text again; None for a migration read otherwise (``status``'s plain
    #: reading, one built by hand). Typed loosely: the reading's types are planning's and
    #: source's, above this vocabulary. Not compared.
    reading: object | None = field(default=None, compare=False, repr=False)

    @property
    def filename(self) -> str:
        """The file's base name (with its folder for diesel's ``<version>_<name>/up.sql`` and
        Prisma's ``<version>_<name>/migration.sql``)."""
        if self.path.name in ("up.sql", "migration.sql"):
            return f"{self.path.parent.name}/{self.path.name}"
        return self.path.name


@dataclass(frozen=True)
class JournalEntry:
    """One row of the journal table: a step that was applied (or, for autocommit steps, started)."""

    version: int
    name: str
    step: int
    #: The step's checksum when it was recorded: the normalized one (``Step.checksum``), or in
    #: rows written by releases before it, the normalized or raw one; all match
    #: (``Step.checksums``).
    checksum: str
    #: ``applied``, ``baseline`` (recorded without running) or ``started`` (autocommit step begun).
    state: str = "applied"
    applied_at: str | None = None
    duration_ms: float | None = None
    attempts: int | None = None
    applied_by: str | None = None
    application_name: str | None = None
    #: The token checksum of each statement the step ran, in order (``Step.statement_checksums``),
    #: for rows ``applied`` or ``baseline`` since the journal has them; None for a row written
    #: before (or by a release that does not write them): only ``checksum`` is known of it.
    statements: tuple[str, ...] | None = field(default=None, compare=False)

    @property
    def done(self) -> bool:
        """True when the step counts as applied."""
        return self.state in ("applied", "baseline")


@dataclass(frozen=True)
class StepProgress:
    """The batches of a batched step not applied yet, as its progress rows record them: those
    one text of the step (``checksum``) committed."""

    version: int
    step: int
    #: The checksum of the step's text the batches ran with.
    checksum: str
    batches: int
    #: The last batch's last key (text per key column).
    last_key: tuple[str, ...]
    #: Rows the batches changed.
    changed: int
    #: When the last of them committed, as the server prints it.
    done_at: str

    def describe(self) -> str:
        """What they did, for people: ``20 batches (keys up to 20000, 20,000 rows changed)``."""
        key = ", ".join(self.last_key)
        return (
            f"{self.batches} batch{'es' if self.batches != 1 else ''} (keys up to {key}, "
            f"{self.changed:,} rows changed, the last at {self.done_at})"
        )


# -- sessions around a step, as the monitor session sees them -----------------------------------
# Filled in by safemigrate.db.activity, shaped for reports and judged by safemigrate.blockers,
# carried in events as is.


@dataclass(frozen=True)
class Blocker:
    """A session that blocks a step (a root of the blocking chain, or a long lock holder), as
    pg_stat_activity shows it."""

    pid: int
    application_name: str
    user: str | None
    client_addr: str | None
    state: str | None
    xact_age_ms: float | None
    state_age_ms: float | None
    wait_event: str | None
    #: The lock mode(s) it holds on the step's table.
    lock_mode: str | None
    #: Its query; in events cut to blocker_query_length, or its shape with --redact-queries.
    query: str | None
    #: When its transaction started, as the server prints it (microseconds, time zone): with
    #: the pid, which transaction was sampled, so the cancel policy signals only that one.
    xact_start: str | None = None
    #: Its transaction id, if one was assigned when sampled.
    backend_xid: str | None = None

    def describe(self) -> str:
        """One line for people."""
        app = f"'{self.application_name}'" if self.application_name else "(no application_name)"
        parts = [f"pid {self.pid} {app}"]
        if self.user:
            parts.append(f"user {self.user}")
        parts.append(f"from {self.client_addr or 'local socket'}")
        what = [self.state or "unknown state"]
        if self.xact_age_ms is not None:
            what.append(f"transaction {self.xact_age_ms / 1000:.1f}s old")
        if self.state_age_ms is not None:
            what.append(f"in this state {self.state_age_ms / 1000:.1f}s")
        if self.wait_event:
            what.append(f"waiting on {self.wait_event}")
        if self.lock_mode:
            what.append(f"holds {self.lock_mode}")
        text = f"{', '.join(parts)}: {', '.join(what)}"
        return f"{text}; query: {self.query}" if self.query else text


@dataclass(frozen=True)
class WaitingFor:
    """The runner's own waiting backend and the lock it waits for, as pg_locks shows it."""

    pid: int
    locktype: str
    relation: str | None
    mode: str
    waiting_ms: float | None

    def describe(self) -> str:
        """One line for people."""
        on = f" on {self.relation}" if self.relation else f" ({self.locktype})"
        since = f" for {self.waiting_ms / 1000:.1f}s" if self.waiting_ms is not None else ""
        return f"runner pid {self.pid} waits for {self.mode}{on}{since}"


@dataclass(frozen=True)
class Sample:
    """Who blocked the runner's backend at one moment (empty when nobody did or nobody looked)."""

    #: The root blockers of the pg_blocking_pids() chains (or the long lock holders).
    blockers: tuple[Blocker, ...] = ()
    #: What the runner's own backend waited for.
    waiting: WaitingFor | None = None
    #: Every pid on a blocking chain, roots included, for the operator's own monitoring.
    chain: tuple[int, ...] = ()


@dataclass(frozen=True)
class IndexBuildProgress:
    """A row of pg_stat_progress_create_index."""

    phase: str
    blocks_done: int
    blocks_total: int
    tuples_done: int
    tuples_total: int
    lockers_done: int
    lockers_total: int
    current_locker_pid: int | None


@dataclass(frozen=True)
class QueuedLock:
    """Another session's lock on the relation a step waits for, as pg_locks shows it."""

    pid: int
    #: pg_locks.mode, e.g. ``AccessShareLock``.
    mode: str
    granted: bool
    #: Its transaction (pg_locks.virtualtransaction): a new transaction of the same pid is
    #: another holder.
    transaction: str
    #: For a waiting request: True when it began waiting after the step's own request (PG 14+
    #: pg_locks.waitstart); None when the server cannot say.
    behind: bool | None


@dataclass(frozen=True)
class LockQueue:
    """The relation (or row) lock a backend waits for, and every other session's lock on it."""

    relation_oid: int
    relation: str
    #: The mode the backend waits for (pg_locks.mode).
    mode: str
    #: How long it has waited (PG 14+), None when the server cannot say.
    waited_ms: float | None
    others: tuple[QueuedLock, ...]
    #: pg_locks.locktype of the request: ``relation``, or ``transactionid`` / ``tuple`` for a
    #: row lock (then ``relation`` is the row's table and ``others`` the transaction the row
    #: waits for: nobody queues on a row behind the step, they wait for its transaction).
    locktype: str = "relation"


@dataclass(frozen=True)
class HeldLock:
    """One transaction's granted lock on one relation: what a polite wait waits to see go."""

    relation_oid: int
    pid: int
    transaction: str
    mode: str
