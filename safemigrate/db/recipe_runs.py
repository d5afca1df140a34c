"""Running a constraint recipe (see ``rewrites``) part by part, resumable from its own record.

Journal: a ``started`` row before the first part; the closing parts (VALIDATE of a foreign key
or check; SET NOT NULL and the helper's DROP; ADD CONSTRAINT ... USING INDEX) run in one
transaction with the ``applied`` row, so "applied" and "the constraint exists" commit together.

Names: the recipe gives its constraint (or index) the name PostgreSQL would give the plain
statement, chosen against the catalog before the recipe's first part (a user's ``t_a_check``
makes it ``t_a_check1``, as psql would); its helper checks get names no constraint of the schema
has, numbered like ChooseConstraintName where two are cut to the same 63 bytes.

Ownership: each object the recipe creates is recorded in ``<journal>_recipes`` (see
``db.recipe_objects``) in the transaction that creates it, or, for a CONCURRENTLY build, just
before it. A rerun after an interruption, a retry after a lock timeout or a reconnect resumes
from that record: it reuses an object only when the record names it for this step and this
text and the catalog still has it (same oid), and otherwise chooses its names again. An index
recorded as about to be built (its oid not known yet) is taken as the recipe's only when it has
that name, backs no constraint and has exactly the definition the recipe intended
(``rewrites.index_shape`` of pg_get_indexdef): INVALID, as an interrupted build leaves it, or
VALID, as the backend of a killed run leaves it once it finished the build by itself (review21c
F6; a live build is waited for first); one of another definition is someone else's: never
attached nor dropped, the recipe takes the next free name (issue 21 review D1). The attach
re-checks, inside its transaction, that the constraint uses the index the record names. A
recorded index someone attached by hand as the constraint the step adds counts as done (D8).

A failure other than a lock timeout (rows that violate the constraint, duplicates) drops what
the record names, and nothing else, and raises the server's error. Objects recorded for an
earlier text of the step (edited since: it was not applied) are dropped before the current text
starts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pglast
from psycopg import sql

from ..core.errors import StepRefusedError
from ..core.model import ConstraintRewrite, QualifiedName
from ..planning.backoff import is_retryable
from ..planning.policy import Timeouts
from ..planning.shapes import StepRecord
from ..statements import parsed as sqlinfo
from ..statements import recipes as rewrites
from . import indexes as dbindex
from . import recipe_objects as objects
from .journal import JournalTable
from .session import ServerError, Session
from .step_timeouts import reset_session_timeouts, send_guarded, set_session_timeouts

__all__ = ["run_constraint_recipe"]

#: SQLSTATE duplicate_table: a CONCURRENTLY build whose name another relation took meanwhile.
DUPLICATE_TABLE = "42P07"


@dataclass(frozen=True)
class _Table:
    oid: int
    namespace: int
    #: The namespace's name.
    schema: str


def _literal_table(session: Session, table: QualifiedName) -> sql.Literal:
    parts = [table.schema, table.name] if table.schema else [table.name]
    return sql.Literal(session.render(sql.Identifier(*parts)))


def _table(session: Session, table: QualifiedName) -> _Table | None:
    rows = session.rows(
        sql.SQL(
            "SELECT c.oid::bigint, c.relnamespace::bigint, n.nspname::text FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass({})"
        ).format(_literal_table(session, table))
    )
    return _Table(int(rows[0][0]), int(rows[0][1]), str(rows[0][2])) if rows else None


#: "Which of these names exist": a constraint's or a relation's of a namespace, a column or
#: a NOT NULL column of a table. Their two ``{}`` are the owner's oid and the array of names.
_CONSTRAINT_NAMES = sql.SQL(
    "SELECT conname::text FROM pg_constraint WHERE connamespace = {} AND conname = ANY({})"
)
_RELATION_NAMES = sql.SQL(
    "SELECT relname::text FROM pg_class WHERE relnamespace = {} AND relname = ANY({})"
)
_COLUMNS = sql.SQL(
    "SELECT attname::text FROM pg_attribute WHERE attrelid = {} AND attname = ANY({}) "
    "AND attnum > 0 AND NOT attisdropped"
)
_NOT_NULL_COLUMNS = sql.SQL(
    "SELECT attname::text FROM pg_attribute WHERE attrelid = {} AND attname = ANY({}) "
    "AND attnotnull AND NOT attisdropped"
)


def _which(session: Session, query: sql.SQL, owner: int, names: Sequence[str]) -> set[str]:
    """Which of ``names`` the catalog ``query`` (one of those above) finds for ``owner``."""
    rows = session.rows(query.format(sql.Literal(owner), sql.Literal(list(names))))
    return {str(r[0]) for r in rows}


def choose_name(session: Session, rewrite: ConstraintRewrite, table: _Table) -> str:
    """The name PostgreSQL would give the plain statement now: for a foreign key or check
    (ChooseConstraintName) the first candidate no constraint of the schema has; for a unique
    or primary key (ChooseRelationName for a constraint's index) the first that no relation
    nor constraint of the schema has."""
    if rewrite.check_references:
        # A bare name that is the table's: its column if it has one, else the whole row.
        either = [name for kind, name in rewrite.check_references if kind == "either"]
        columns = _which(session, _COLUMNS, table.oid, either)
        addition = rewrites.check_name_addition(rewrite.check_references, columns)
        rewrite = dataclasses.replace(rewrite, name_addition=addition)
    candidates = rewrites.name_candidates(rewrite)
    taken = _which(session, _CONSTRAINT_NAMES, table.namespace, candidates)
    if rewrite.kind in ("unique", "primary_key"):
        taken |= _which(session, _RELATION_NAMES, table.namespace, candidates)
    # Every candidate taken (or the author's name taken): the server says why.
    return next((name for name in candidates if name not in taken), candidates[0])


def choose_helpers(
    session: Session, rewrite: ConstraintRewrite, table: _Table, columns: Sequence[str], name: str
) -> dict[str, str]:
    """column -> its helper CHECK's name: no constraint of the schema has it, nor the recipe's
    own constraint ``name``, nor the helper of an earlier column."""
    candidates = [
        c for column in columns for c in rewrites.helper_candidates(rewrite.table, column)
    ]
    taken = _which(session, _CONSTRAINT_NAMES, table.namespace, candidates) | {name}
    return rewrites.choose_helper_names(rewrite.table, columns, taken)


#: Told of each part just before it runs.
PartSink = Callable[[rewrites.RecipePart], None]
#: Runs the author's statement in a guarded transaction with the applied journal row.
PlainRunner = Callable[[str], None]


@dataclass
class _Ledger:
    """The recipe's record of what it created, checked against the catalog, and the parts
    that create and drop those objects."""

    session: Session
    journal: JournalTable
    record: StepRecord
    rewrite: ConstraintRewrite
    table: _Table
    on_part: PartSink
    #: The step's timeouts, which the guard before each part checks (see step_timeouts).
    timeouts: Timeouts
    #: The objects recorded for this step and text, in the order they were made.
    mine: list[objects.RecipeObject] = field(default_factory=list)

    # -- reading the record ----------------------------------------------------------------

    def load(self, *, started_before: bool) -> None:
        """Read the step's record; drop what an earlier text of the step made."""
        rows = objects.read(self.session, self.journal, self.record)
        if started_before and not any(r.kind == objects.STEP for r in rows):
            raise _unrecorded(self.record)
        for row in reversed(rows):
            if row.kind != objects.STEP and not self.record.same_text(row.checksum):
                self._made_by_earlier_text(row).drop(row, "made by an earlier text of this step")
        self.mine = [
            r for r in rows if r.kind != objects.STEP and self.record.same_text(r.checksum)
        ]

    def _made_by_earlier_text(self, row: objects.RecipeObject) -> _Ledger:
        """The ledger that judges and drops ``row``, made by an earlier text of the step: on
        the table that text named, which an edit may have changed (its index, even one only
        intended, is then still proven the recipe's on that table, and dropped there)."""
        made_on = _made_on(row.definition)
        if made_on is None or made_on == self.rewrite.table:
            return self
        table = _table(self.session, made_on)
        if table is None or table.oid == self.table.oid:
            return self
        earlier = dataclasses.replace(self.rewrite, table=made_on, source=row.definition)
        return dataclasses.replace(self, rewrite=earlier, table=table, mine=[])

    def find(self, kind: str, column: str = "") -> objects.RecipeObject | None:
        """The recorded object of ``kind`` (a helper: of ``column``) that the catalog still has;
        a record whose object is gone is forgotten."""
        for row in self.mine:
            if row.kind == kind and row.column == column:
                if self.state(row) is not None:
                    return row
                self.forget(row)
                return None
        return None

    def state(self, row: objects.RecipeObject) -> str | None:
        """What the catalog has of the recorded object, None when it is not the recipe's:

        - a constraint or helper (by its recorded oid): ``valid`` / ``not-valid``;
        - an index built (by its recorded oid, with the definition the recipe built):
          ``valid`` / ``not-valid`` while no constraint uses it; ``attached`` once it backs
          the constraint this step adds (finished by hand: issue 21 review D8), ``attached-
          other`` when it backs another one;
        - an index recorded as about to be built (no oid yet): the recipe's only when it has
          that name, is on the table, backs no constraint and has exactly the definition the
          recipe intended: ``not-valid`` when INVALID (an interrupted build leaves that),
          ``valid`` when VALID (the backend of a killed run finishes its CONCURRENTLY build by
          itself: review21c F6); one of another definition is someone else's that took the
          name meanwhile (issue 21 review D1). A user who builds an index of exactly that
          definition under exactly that name between the record and the rerun has it taken
          as the recipe's: the accepted price of not leaving a second unique index behind.
        """
        session = self.session
        if row.kind in (objects.CONSTRAINT, objects.HELPER):
            if row.oid is None:
                return None
            found = session.rows(
                sql.SQL(
                    "SELECT convalidated FROM pg_constraint WHERE oid = {} AND conname = {} "
                    "AND conrelid = {}"
                ).format(sql.Literal(row.oid), sql.Literal(row.name), sql.Literal(self.table.oid))
            )
            if not found:
                return None
            return "valid" if found[0][0] else "not-valid"
        built = row.state == objects.CREATED
        if built and row.oid is None:
            return None
        where = (
            sql.SQL("c.oid = {}").format(sql.Literal(row.oid))
            if built
            else sql.SQL("c.relnamespace = {} AND c.relname = {}").format(
                sql.Literal(self.table.namespace), sql.Literal(row.name)
            )
        )
        found = session.rows(
            sql.SQL(
                "SELECT c.relname::text, i.indisvalid, pg_get_indexdef(c.oid), k.conname::text, "
                "k.contype::text, k.condeferrable, k.condeferred "
                "FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "
                "LEFT JOIN pg_constraint k ON k.conindid = c.oid AND k.conrelid = i.indrelid "
                "WHERE {} AND i.indrelid = {}"
            ).format(where, sql.Literal(self.table.oid))
        )
        if not found:
            return None
        relname, valid, indexdef, conname, contype, deferrable, deferred = found[0]
        intended = rewrites.index_shape(row.definition)
        if intended is None or rewrites.index_shape(str(indexdef)) != intended:
            return None
        if conname is not None:
            if not built:
                return None
            rewrite = self.rewrite
            wanted = "p" if rewrite.kind == "primary_key" else "u"
            same = (
                self.record.same_text(row.checksum)
                and str(conname) == row.name
                and contype == wanted
                and bool(deferrable) == rewrite.deferrable
                and bool(deferred) == rewrite.initially_deferred
            )
            return "attached" if same else "attached-other"
        if str(relname) != row.name:
            return None  # renamed by someone: the recipe's drop and attach name it
        return "valid" if valid else "not-valid"

    def index_oid(self, row: objects.RecipeObject) -> int | None:
        """The oid of the recorded index: recorded once built, else the oid of the index of
        its name on the table (one recorded as about to be built)."""
        if row.oid is not None:
            return row.oid
        found = self.session.scalar(
            sql.SQL(
                "SELECT c.oid::bigint FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "
                "WHERE c.relnamespace = {} AND c.relname = {} AND i.indrelid = {}"
            ).format(
                sql.Literal(self.table.namespace),
                sql.Literal(row.name),
                sql.Literal(self.table.oid),
            )
        )
        return int(str(found)) if found is not None else None

    def attached_to(self, row: objects.RecipeObject) -> str:
        """The constraint the recorded index ``row`` backs (its state is ``attached-other``)."""
        return str(
            self.session.scalar(
                sql.SQL("SELECT conname::text FROM pg_constraint WHERE conindid = {}").format(
                    sql.Literal(row.oid)
                )
            )
        )

    def check_attached(self, name: str) -> None:
        """Inside the closing transaction, after ADD CONSTRAINT ... USING INDEX ``name``: the
        constraint uses the index this step recorded building, with the definition it built
        (someone could have replaced it between the recipe's look at the catalog and the
        attach, which takes the lock): else the transaction is rolled back."""
        row = next((r for r in self.mine if r.kind == objects.INDEX), None)
        indexdef = (
            self.session.scalar(
                sql.SQL(
                    "SELECT pg_get_indexdef(k.conindid) FROM pg_constraint k "
                    "WHERE k.conrelid = {} AND k.conname = {} AND k.conindid = {}"
                ).format(
                    sql.Literal(self.table.oid),
                    sql.Literal(name),
                    sql.Literal(row.oid if row is not None and row.oid is not None else 0),
                )
            )
            if row is not None
            else None
        )
        if (
            row is None
            or indexdef is None
            or rewrites.index_shape(str(indexdef)) != rewrites.index_shape(row.definition)
        ):
            raise StepRefusedError(
                f"the index {name} changed while the recipe attached it (it is not the one "
                "this step built); nothing was applied",
                hint="rerun: the recipe builds its index again under a free name",
            )

    # -- changing it -------------------------------------------------------------------------

    def forget(self, row: objects.RecipeObject) -> None:
        self.session.execute(objects.forget_sql(self.journal, self.record, row.kind, row.name))
        self.mine = [r for r in self.mine if (r.kind, r.name) != (row.kind, row.name)]

    def add_constraint(
        self, part: rewrites.RecipePart, kind: str, name: str, column: str = ""
    ) -> None:
        """Run an ADD ... NOT VALID part with the row that records its constraint, in one
        transaction: the constraint exists exactly when it is recorded."""
        recorded = objects.constraint_sql(
            self.journal, self.record, kind, name, column, self.table.oid, part.sql
        )
        self.on_part(part)
        session = self.session
        try:
            # A failed guard is a typed error, not a ServerError: the recipe's clean-up never
            # runs for it (a run that lost the run lock must not touch what another run does).
            send_guarded(
                session,
                self.timeouts,
                part.sql,
                opening=sql.SQL("BEGIN"),
                guard=True,
                exclusive=self.exclusive,
                closing=session.as_runner(sql.SQL("{}; COMMIT").format(recorded)),
            )
        except BaseException:
            session.rollback_quietly()
            raise
        self.reload()

    @property
    def exclusive(self) -> sql.Composed:
        """The statement that makes the recipe's record this transaction's (see
        recipe_objects.exclusive_sql)."""
        return objects.exclusive_sql(self.journal, self.record)

    def build_index(self, part: rewrites.RecipePart, name: str) -> None:
        """Record the index as about to be built, build it CONCURRENTLY, record it built."""
        session = self.session
        session.execute(objects.intended_sql(self.journal, self.record, name, part.sql))
        row = objects.RecipeObject(
            objects.INDEX, name, "", objects.INTENDED, None, self.record.checksum, part.sql
        )
        self.mine = [r for r in self.mine if (r.kind, r.name) != (row.kind, row.name)] + [row]
        try:
            self._send_alone(part)
        except ServerError as error:
            if error.sqlstate == DUPLICATE_TABLE:
                # Another relation took the name after it was chosen: not the recipe's.
                self.forget(row)
            raise
        self.record_built(name)

    def record_built(self, name: str) -> None:
        """Record the index ``name`` as built: its row gets the index's oid."""
        self.session.execute(objects.built_sql(self.journal, self.record, name, self.table.oid))
        self.reload()

    def drop(self, row: objects.RecipeObject, why: str) -> None:
        """Drop a recorded object if the catalog still has it, and forget its record."""
        if self.state(row) in ("valid", "not-valid"):
            # Never an index backing a constraint (attached by hand): only its record goes.
            index = row.kind == objects.INDEX
            self._send_alone(
                rewrites.drop_part(self.rewrite, index, row.name, why, self.table.schema)
            )
        self.forget(row)

    def _send_alone(self, part: rewrites.RecipePart) -> None:
        """Tell ``on_part`` of ``part``, then send it in a round trip of its own after the guard
        (a CREATE or DROP INDEX CONCURRENTLY refuses a multi-statement query string), with the
        record made the guard's transaction's."""
        self.on_part(part)
        send_guarded(
            self.session,
            self.timeouts,
            part.sql,
            guard=True,
            exclusive=self.exclusive,
            released=False,
            alone=True,
        )

    def reload(self) -> None:
        """Read the record again (the oids the server just wrote into it)."""
        self.mine = [
            r
            for r in objects.read(self.session, self.journal, self.record)
            if r.kind != objects.STEP and self.record.same_text(r.checksum)
        ]

    def clean_up(self) -> None:
        """After a failure a retry will not cure: drop what the recipe made (newest first)."""
        self.session.rollback_quietly()
        try:
            for row in reversed(list(self.mine)):
                self.drop(row, "the step failed")
        except ServerError:
            # The record stays: a rerun drops them, or resumes with them.
            pass

    @property
    def closing(self) -> sql.Composed:
        """What the closing transaction adds to the applied journal row: the record goes."""
        return objects.forget_step_sql(self.journal, self.record)


def _made_on(definition: str) -> QualifiedName | None:
    """The table the recorded SQL ``definition`` (an ADD ... NOT VALID, a CREATE UNIQUE
    INDEX CONCURRENTLY) made its object on; None when it does not say."""
    try:
        node: Any = pglast.parse_sql(definition)[0].stmt
    except (pglast.parser.ParseError, IndexError):
        return None
    relation = getattr(node, "relation", None)
    return None if relation is None else sqlinfo.qualified(relation)


def _unrecorded(record: StepRecord) -> StepRefusedError:
    return StepRefusedError(
        "an earlier run started this constraint recipe but left no record of what it created "
        "(a release before the record of recipe objects); nothing was run, nothing adopted",
        hint="drop what that run left on the table, if anything (a NOT VALID constraint, a "
        "..._not_null_safemigrate check, an index not attached to a constraint), then delete "
        f"the journal's 'started' row (version {record.version}, step {record.step}) and rerun",
    )


@dataclass(frozen=True)
class _Parts:
    """Runs the parts of one recipe on the session, telling ``on_part`` of each; each part and
    the closing transaction goes after the step's guard, in the same round trip."""

    session: Session
    on_part: PartSink
    timeouts: Timeouts
    #: The statement that makes the recipe's record the part's transaction's, after the guard.
    exclusive: sql.Composed = field(default_factory=lambda: sql.Composed([]))

    def _send(self, text: str, *, alone: bool = False) -> None:
        """The guard, ``text`` and the check that it did not release the run lock, in one
        round trip (``alone``: ``text`` in a round trip of its own between them): a part that
        released it (a VALIDATE calling a function that runs pg_advisory_unlock_all(), issue 21
        review21b F6) is rolled back with it."""
        send_guarded(
            self.session, self.timeouts, text, guard=True, exclusive=self.exclusive, alone=alone
        )

    def run(self, part: rewrites.RecipePart) -> None:
        """One part in its own transaction (or none: CREATE INDEX CONCURRENTLY, whose guard
        and check go alone: it refuses a multi-statement query string)."""
        self.on_part(part)
        self._send(part.sql, alone=part.concurrent)

    def final(
        self,
        parts: Sequence[rewrites.RecipePart],
        applied: sql.Composed,
        check: Callable[[], None] | None = None,
    ) -> None:
        """The closing parts and the applied journal row, in one transaction; each part after
        the guard, and the row too when there is no part; ``check``, run after the parts,
        raises to roll it back."""
        session = self.session
        session.execute(sql.SQL("BEGIN"))
        try:
            for part in parts:
                self.on_part(part)
                self._send(part.sql)
            if check is not None:
                check()
            # The guard goes with the journal row only when no part carried it.
            record = session.as_runner(sql.SQL("{}; COMMIT").format(applied))
            send_guarded(
                session,
                self.timeouts,
                guard=not parts,
                exclusive=self.exclusive,
                released=False,
                closing=record,
            )
        except BaseException:
            session.rollback_quietly()
            raise


def _ignore_part(part: rewrites.RecipePart) -> None:
    """The part sink when nobody listens."""


def run_constraint_recipe(
    session: Session,
    rewrite: ConstraintRewrite,
    plain: str,
    timeouts: Timeouts,
    *,
    journal: JournalTable,
    record: StepRecord,
    started: sql.Composed,
    applied: sql.Composed,
    started_before: bool,
    run_plain: PlainRunner,
    on_part: PartSink | None = None,
    cancelled_to_yield: Callable[[], bool] | None = None,
) -> str | None:
    """Run ``rewrite``'s recipe under session-level ``timeouts``; see the module docstring.

    ``started_before``: the journal had a ``started`` row for the step when the run began (an
    earlier run began it; its record says what it made). ``cancelled_to_yield`` says whether a
    cancelled part was cancelled to yield the queue (then nothing is cleaned up). Where the
    recipe cannot run (not an ordinary table, a server older than 12 for the NOT NULL recipes,
    a missing table whose error the plain statement gives) ``run_plain`` runs the author's
    statement, after ``on_part`` is told so. Returns None (nothing was skipped).
    """
    sink = on_part or _ignore_part
    set_session_timeouts(session, timeouts)
    try:
        table = _table(session, rewrite.table)
        relkind = (
            session.scalar(
                sql.SQL("SELECT relkind::text FROM pg_class WHERE oid = {}").format(
                    sql.Literal(table.oid)
                )
            )
            if table is not None
            else None
        )
        too_old = (
            rewrite.kind in ("not_null", "primary_key")
            and session.server_version < rewrites.NOT_NULL_RECIPE_MIN_VERSION
        )
        if table is None or relkind != "r" or too_old:
            if too_old:
                reason = "the NOT NULL recipe needs PostgreSQL 12 or later"
            elif table is None:
                reason = "no such table: the server says why"
            else:
                reason = "the recipe applies to ordinary tables only, not partitioned ones"
            sink(rewrites.plain_part(rewrite, plain, reason))
            reset_session_timeouts(session)
            run_plain(plain)
            return None
        objects.ensure(session, journal)
        ledger = _Ledger(session, journal, record, rewrite, table, sink, timeouts)
        steps = _Parts(session, sink, timeouts, ledger.exclusive)
        ledger.load(started_before=started_before)
        try:
            _recipe(steps, ledger, started, sql.SQL("{}; {}").format(applied, ledger.closing))
        except ServerError as error:
            # A part cancelled to yield the lock queue only ever waited for its lock: what the
            # recipe made stays, and the next attempt resumes from its record.
            yielded = cancelled_to_yield is not None and cancelled_to_yield()
            if not is_retryable(error.sqlstate) and not yielded:
                ledger.clean_up()
            raise
        return None
    finally:
        reset_session_timeouts(session)


def _begin(ledger: _Ledger, started: sql.Composed) -> None:
    """The ``started`` journal row and the record's step row, in one transaction."""
    begun = objects.begun_sql(ledger.journal, ledger.record, ledger.rewrite.source)
    ledger.session.execute(
        sql.SQL("BEGIN; {}; {}; {}; {}; COMMIT").format(
            ledger.exclusive, ledger.session.runner_identity, started, begun
        )
    )


def _recipe(steps: _Parts, ledger: _Ledger, started: sql.Composed, applied: sql.Composed) -> None:
    """The parts not done yet, in order."""
    rewrite = ledger.rewrite
    session = steps.session
    table = ledger.table
    if rewrite.kind in ("foreign_key", "check"):
        constraint = ledger.find(objects.CONSTRAINT)
        name = constraint.name if constraint else choose_name(session, rewrite, table)
        add, validate = rewrites.recipe_parts(rewrite, name)
        _begin(ledger, started)
        if constraint is None:
            # A name someone takes meanwhile fails here, with the plain statement's error.
            ledger.add_constraint(add, objects.CONSTRAINT, name)
        steps.final([validate], applied)
        return
    if rewrite.kind == "not_null":
        column = rewrite.columns[0]
        helper = ledger.find(objects.HELPER, column)
        _begin(ledger, started)
        if helper is None and column in _which(session, _NOT_NULL_COLUMNS, table.oid, [column]):
            # Already NOT NULL: the plain statement does nothing either.
            steps.final([], applied)
            return
        named = _helpers(steps, ledger, [column], "")
        steps.final(rewrites.closing_not_null(rewrite, column, named[column]), applied)
        return
    index = ledger.find(objects.INDEX)
    name = index.name if index else choose_name(session, rewrite, table)
    _begin(ledger, started)
    state = ledger.state(index) if index is not None else None
    if index is not None and state == "attached-other":
        raise StepRefusedError(
            f"an earlier run of this step built the index {index.name}, which now backs the "
            f"constraint {ledger.attached_to(index)}, not the one the step adds; nothing was run",
            hint="make the constraint what the step adds, or drop it and rerun (the recipe "
            "then builds its index again)",
        )
    if index is not None and state == "attached":
        # Finished by hand (ADD CONSTRAINT ... USING INDEX of the index the record names):
        # the step is done; only the helper checks a primary key recipe left go.
        leftover = [r for r in ledger.mine if r.kind == objects.HELPER]
        steps.final(
            [rewrites.drop_part(rewrite, False, r.name, "the step is done") for r in leftover],
            applied,
        )
        return
    if index is not None and state == "not-valid":
        oid = ledger.index_oid(index)
        # The backend of a killed run goes on with its build by itself (review21c F6): wait
        # for it (its build runs under the same statement_timeout, so the wait ends), then
        # look again: a finished build is the recipe's valid index.
        if oid is not None and dbindex.wait_for_live_build(
            session, oid, ledger.timeouts.statement_timeout_ms
        ):
            state = ledger.state(index)
            if state is None:
                ledger.forget(index)
                index, name = None, choose_name(session, rewrite, table)
    if index is not None and index.state == objects.INTENDED and state == "valid":
        # The killed run's build finished: the index is the recipe's (see state()); record
        # its oid, as the build would have, so that the attach checks it like any other.
        ledger.record_built(index.name)
    if index is not None and state == "not-valid":
        # An interrupted CONCURRENTLY build leaves its index invalid: drop it, build again;
        # unless another live backend is still building it (issue 21 review21b F3).
        oid = ledger.index_oid(index)
        if oid is not None:
            dbindex.refuse_live_build(session, oid, index.name)
        ledger.drop(index, "left invalid by an interrupted build")
        index = None
    if index is None:
        # A name someone takes meanwhile fails here, with the plain statement's error.
        ledger.build_index(rewrites.index_part(rewrite, name), name)
    keys = rewrite.columns[: rewrite.key_count]
    nullable: list[str] = []
    helpers: dict[str, str] = {}
    if rewrite.kind == "primary_key":
        done = _which(session, _NOT_NULL_COLUMNS, table.oid, keys)
        nullable = [c for c in keys if c not in done]
        helpers = _helpers(steps, ledger, nullable, name)
    parts = [p for p in rewrites.recipe_parts(rewrite, name, nullable, helpers) if p.final]
    # A helper of a column made NOT NULL meanwhile (by hand) goes too.
    for row in ledger.mine:
        if row.kind == objects.HELPER and row.column not in nullable:
            parts.append(rewrites.drop_part(rewrite, False, row.name, "its column is NOT NULL"))
    steps.final(parts, applied, lambda: ledger.check_attached(name))


def _helpers(steps: _Parts, ledger: _Ledger, columns: Sequence[str], name: str) -> dict[str, str]:
    """The helper CHECK (col IS NOT NULL) of each column: added NOT VALID (recorded), then
    validated; the ones recorded already are reused. Returns column -> helper name."""
    found = {c: ledger.find(objects.HELPER, c) for c in columns}
    todo = [c for c in columns if found[c] is None]
    chosen = choose_helpers(steps.session, ledger.rewrite, ledger.table, todo, name) if todo else {}
    names: dict[str, str] = {}
    for column in columns:
        row = found[column]
        helper = row.name if row is not None else chosen[column]
        names[column] = helper
        add, validate = rewrites.helper_parts(ledger.rewrite, column, helper)
        if row is None:
            ledger.add_constraint(add, objects.HELPER, helper, column)
        if row is None or ledger.state(row) != "valid":
            steps.run(validate)
    return names
