"""Running a constraint recipe (see ``rewrites``) part by part, resumable from the catalog.

Journal: a ``started`` row before the first part; the closing parts (VALIDATE of a foreign key
or check; SET NOT NULL and the helper's DROP; ADD CONSTRAINT ... USING INDEX) run in one
transaction with the ``applied`` row, so "applied" and "the constraint exists" commit together.
Between parts the catalog says where a recipe stopped: a rerun finds its NOT VALID constraint
(goes on with VALIDATE), its helper check (goes on from there) or its index (an invalid one is
dropped and rebuilt). A failure other than a lock timeout (rows that violate the constraint,
duplicates) removes what the recipe added and raises the server's error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from psycopg import sql

from .. import rewrites
from ..model import ConstraintRewrite, QualifiedName
from ..policy import Timeouts
from ..retry import is_retryable
from .session import ServerError, Session
from .step_timeouts import (
    guard_error,
    guard_sql,
    reset_session_timeouts,
    set_session_timeouts,
)

__all__ = ["run_constraint_recipe"]


@dataclass(frozen=True)
class _Table:
    oid: int
    namespace: int


def _literal_table(session: Session, table: QualifiedName) -> sql.Literal:
    parts = [table.schema, table.name] if table.schema else [table.name]
    return sql.Literal(session.render(sql.Identifier(*parts)))


def _ident(table: QualifiedName) -> sql.Identifier:
    return sql.Identifier(table.schema, table.name) if table.schema else sql.Identifier(table.name)


def _table(session: Session, table: QualifiedName) -> _Table | None:
    rows = session.rows(
        sql.SQL(
            "SELECT oid::bigint, relnamespace::bigint FROM pg_class WHERE oid = to_regclass({})"
        ).format(_literal_table(session, table))
    )
    return _Table(int(rows[0][0]), int(rows[0][1])) if rows else None


def _constraints(
    session: Session, namespace: int, names: Sequence[str]
) -> dict[str, tuple[int, str, bool]]:
    """conname -> (conrelid, contype, convalidated) of the constraints called ``names``."""
    rows = session.rows(
        sql.SQL(
            "SELECT conname::text, conrelid::bigint, contype::text, convalidated "
            "FROM pg_constraint WHERE connamespace = {} AND conname = ANY({})"
        ).format(sql.Literal(namespace), sql.Literal(list(names)))
    )
    return {str(r[0]): (int(r[1]), str(r[2]), bool(r[3])) for r in rows}


@dataclass(frozen=True)
class _Relation:
    on_table: bool
    is_index: bool
    valid: bool
    constraint: bool


def _relations(
    session: Session, namespace: int, table_oid: int, names: Sequence[str]
) -> dict[str, _Relation]:
    """relname -> what it is, for the relations called ``names`` in the namespace."""
    rows = session.rows(
        sql.SQL(
            "SELECT c.relname::text, i.indrelid IS NOT DISTINCT FROM {}::oid, c.relkind = 'i', "
            "coalesce(i.indisvalid, false), "
            "EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid) "
            "FROM pg_class c LEFT JOIN pg_index i ON i.indexrelid = c.oid "
            "WHERE c.relnamespace = {} AND c.relname = ANY({})"
        ).format(sql.Literal(table_oid), sql.Literal(namespace), sql.Literal(list(names)))
    )
    return {str(r[0]): _Relation(bool(r[1]), bool(r[2]), bool(r[3]), bool(r[4])) for r in rows}


def _not_null_columns(session: Session, table_oid: int, columns: Sequence[str]) -> set[str]:
    rows = session.rows(
        sql.SQL(
            "SELECT attname::text FROM pg_attribute WHERE attrelid = {} AND attname = ANY({}) "
            "AND attnotnull AND NOT attisdropped"
        ).format(sql.Literal(table_oid), sql.Literal(list(columns)))
    )
    return {str(r[0]) for r in rows}


def choose_name(
    session: Session, rewrite: ConstraintRewrite, table: _Table, *, resume: bool
) -> str:
    """The name PostgreSQL would give the plain statement now (ChooseConstraintName for a
    foreign key or check: the first candidate no constraint of the schema has;
    ChooseRelationName for a unique or primary key: no relation nor constraint has it). On a
    resumed run, the candidate the interrupted run had started with (its NOT VALID
    constraint, its index not yet attached) is that name."""
    candidates = rewrites.name_candidates(rewrite)
    constraints = _constraints(session, table.namespace, candidates)
    by_index = rewrite.kind in ("unique", "primary_key")
    relations = _relations(session, table.namespace, table.oid, candidates) if by_index else {}
    contype = "f" if rewrite.kind == "foreign_key" else "c"
    for name in candidates:
        con = constraints.get(name)
        rel = relations.get(name)
        if resume:
            mine = (
                not by_index
                and con is not None
                and (con[0], con[1], con[2]) == (table.oid, contype, False)
            ) or (
                by_index
                and rel is not None
                and rel.on_table
                and rel.is_index
                and not rel.constraint
            )
            if mine:
                return name
        if con is None and rel is None:
            return name
    # Every candidate taken (or the author's name taken): the server says why.
    return candidates[0]


@dataclass(frozen=True)
class _Parts:
    """Runs the parts of one recipe on the session, telling ``on_part`` of each; each part and
    the closing transaction goes after the step's guard, in the same round trip."""

    session: Session
    on_part: PartSink
    timeouts: Timeouts

    def _guarded(self, err: ServerError) -> BaseException:
        # A failed guard is a typed error, not a ServerError: the recipe's clean-up never
        # runs for it (a run that lost the run lock must not touch what another run does).
        return guard_error(self.session, err, self.timeouts) or err

    def _send(self, text: str) -> None:
        """The guard and ``text`` in one round trip."""
        guard = sql.SQL("{};\n").format(guard_sql(self.session, self.timeouts))
        try:
            self.session.run_sql_between(guard, text, sql.Composed([]))
        except ServerError as err:
            raise self._guarded(err) from None

    def run(self, part: rewrites.RecipePart) -> None:
        """One part in its own transaction (or none: CREATE INDEX CONCURRENTLY)."""
        self.on_part(part)
        if not part.concurrent:
            self._send(part.sql)
            return
        # CONCURRENTLY refuses a multi-statement query string (an implicit transaction
        # block): its guard goes first, alone.
        try:
            self.session.execute(guard_sql(self.session, self.timeouts))
        except ServerError as err:
            raise self._guarded(err) from None
        self.session.run_sql(part.sql)

    def final(self, parts: Sequence[rewrites.RecipePart], applied: sql.Composed) -> None:
        """The closing parts and the applied journal row, in one transaction; each part after
        the guard, and the row too when there is no part."""
        session = self.session
        session.execute(sql.SQL("BEGIN"))
        try:
            for part in parts:
                self.on_part(part)
                self._send(part.sql)
            record = sql.SQL("{}; COMMIT").format(applied)
            if not parts:
                record = sql.SQL("{}; {}").format(guard_sql(session, self.timeouts), record)
            try:
                session.execute(record)
            except ServerError as err:
                raise self._guarded(err) from None
        except BaseException:
            session.rollback_quietly()
            raise


def _drop_constraint(session: Session, table: QualifiedName, name: str) -> None:
    session.execute(
        sql.SQL("ALTER TABLE {} DROP CONSTRAINT IF EXISTS {}").format(
            _ident(table), sql.Identifier(name)
        )
    )


def _drop_index(session: Session, table: QualifiedName, name: str) -> None:
    index = sql.Identifier(table.schema, name) if table.schema else sql.Identifier(name)
    session.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(index))


def _clean_up(session: Session, table: QualifiedName, added: Sequence[tuple[str, str]]) -> None:
    """Remove what the recipe added (``added``: ("constraint" | "index", name)), after a
    failure that a retry will not cure."""
    session.rollback_quietly()
    try:
        for what, name in reversed(added):
            if what == "constraint":
                _drop_constraint(session, table, name)
            else:
                _drop_index(session, table, name)
    except ServerError:
        # A rerun resumes from the catalog and meets the same failure, or finishes.
        pass


def _helpers(
    steps: _Parts,
    rewrite: ConstraintRewrite,
    table: _Table,
    columns: Sequence[str],
    added: list[tuple[str, str]],
    *,
    resume: bool,
) -> None:
    """The helper CHECK (col IS NOT NULL) of each column: added NOT VALID, then validated."""
    names = [rewrites.helper_name(rewrite.table, c) for c in columns]
    existing = _constraints(steps.session, table.namespace, names)
    for column, helper in zip(columns, names, strict=True):
        add, validate = rewrites.helper_parts(rewrite, column)
        state = existing.get(helper)
        ours = resume and state is not None and state[0] == table.oid and state[1] == "c"
        if not ours:
            steps.run(add)
        added.append(("constraint", helper))
        if not (ours and state is not None and state[2]):
            steps.run(validate)


#: Runs the author's statement in a guarded transaction with the applied journal row.
PlainRunner = Callable[[str], None]
#: Told of each part just before it runs.
PartSink = Callable[[rewrites.RecipePart], None]


def _ignore_part(part: rewrites.RecipePart) -> None:
    """The part sink when nobody listens."""


def run_constraint_recipe(
    session: Session,
    rewrite: ConstraintRewrite,
    plain: str,
    timeouts: Timeouts,
    *,
    started: sql.Composed,
    applied: sql.Composed,
    resume: bool,
    run_plain: PlainRunner,
    on_part: PartSink | None = None,
    cancelled_to_yield: Callable[[], bool] | None = None,
) -> str | None:
    """Run ``rewrite``'s recipe under session-level ``timeouts``; see the module docstring.

    ``resume``: an earlier run or attempt may have done some parts (the catalog says which).
    ``cancelled_to_yield`` says whether a cancelled part was cancelled to yield the queue (then
    nothing is cleaned up).
    Where the recipe cannot run (not an ordinary table, a server older than 12 for the NOT
    NULL recipes, a missing table whose error the plain statement gives) ``run_plain`` runs
    the author's statement, after ``on_part`` is told so. Returns None (nothing was skipped).
    """
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
            (on_part or _ignore_part)(rewrites.plain_part(plain, reason))
            reset_session_timeouts(session)
            run_plain(plain)
            return None
        # The NOT NULL recipe names only its helper check, after the table and column.
        name = (
            ""
            if rewrite.kind == "not_null"
            else choose_name(session, rewrite, table, resume=resume)
        )
        session.execute(started)
        added: list[tuple[str, str]] = []
        try:
            steps = _Parts(session, on_part or _ignore_part, timeouts)
            _recipe(steps, rewrite, table, name, applied, added, resume=resume)
        except ServerError as error:
            # A part cancelled to yield the lock queue only ever waited for its lock: what the
            # recipe made stays, and the next attempt resumes from the catalog.
            yielded = cancelled_to_yield is not None and cancelled_to_yield()
            if not is_retryable(error.sqlstate) and not yielded:
                _clean_up(session, rewrite.table, added)
            raise
        return None
    finally:
        reset_session_timeouts(session)


def _recipe(
    steps: _Parts,
    rewrite: ConstraintRewrite,
    table: _Table,
    name: str,
    applied: sql.Composed,
    added: list[tuple[str, str]],
    *,
    resume: bool,
) -> None:
    """The parts not done yet, in order; ``added`` collects what belongs to the recipe."""
    session = steps.session
    if rewrite.kind in ("foreign_key", "check"):
        add, validate = rewrites.recipe_parts(rewrite, name)
        con = _constraints(session, table.namespace, [name]).get(name)
        contype = "f" if rewrite.kind == "foreign_key" else "c"
        # Only a NOT VALID one: the closing transaction validates it and journals the step
        # together, so a valid constraint of that name was never left by this recipe.
        ours = resume and con is not None and con == (table.oid, contype, False)
        if not ours:
            # A name taken by someone else fails here, with the plain statement's error.
            steps.run(add)
        added.append(("constraint", name))
        steps.final([validate], applied)
        return
    if rewrite.kind == "not_null":
        column = rewrite.columns[0]
        if column in _not_null_columns(session, table.oid, [column]) and not resume:
            # Already NOT NULL: the plain statement does nothing either.
            steps.final([], applied)
            return
        _helpers(steps, rewrite, table, [column], added, resume=resume)
        steps.final(rewrites.closing_not_null(rewrite, column), applied)
        return
    relation = _relations(session, table.namespace, table.oid, [name]).get(name)
    ours = (
        resume
        and relation is not None
        and relation.on_table
        and relation.is_index
        and not relation.constraint
    )
    if ours and relation is not None and not relation.valid:
        # An interrupted CONCURRENTLY build leaves an invalid index: drop it, build again.
        _drop_index(session, rewrite.table, name)
        ours = False
        relation = None
    if not ours:
        if relation is None:
            added.append(("index", name))
        # A name taken by someone else fails here, with the plain statement's error.
        steps.run(rewrites.index_part(rewrite, name))
    else:
        added.append(("index", name))
    keys = rewrite.columns[: rewrite.key_count]
    nullable: list[str] = []
    if rewrite.kind == "primary_key":
        done = _not_null_columns(session, table.oid, keys)
        nullable = [c for c in keys if c not in done]
        _helpers(steps, rewrite, table, nullable, added, resume=resume)
    parts = rewrites.recipe_parts(rewrite, name, nullable)
    steps.final([p for p in parts if p.final], applied)
