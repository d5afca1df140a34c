"""Relations "created in this run", checked as the run goes (issue 20 review F4).

The lint gate judges a relation that did not exist when the run started, and that an earlier
pending step creates, as new: nothing about its lock cost blocks. That holds only if the run
really creates it. Another session may create it first, between the gate's catalog read and
the creating step (a ``CREATE TABLE IF NOT EXISTS`` then skips it and the later steps rewrite
the other session's table), or drop and create it again afterwards. So, before every step of
a run whose gate judged with ``lint_gate = "error"``:

- the relations the previous step was to create must be its own: each one that exists has a
  ``pg_class`` row written by the step's transaction (its ``xmin`` is the ``xmin`` of the
  step's journal row, written in the same transaction), or is one an earlier step of the run
  created (an ``IF NOT EXISTS`` met it); its oid is recorded;
- every relation recorded so far must still be the one the run created (same oid under its
  name; one the run dropped since is forgotten);
- the relations this step is to create must not exist yet (in the schema the CREATE puts
  them).

Otherwise the run stops before the step (exit 7, LintGateError): every later judgement that
took the relation for new is void. One query per step, under the session's housekeeping
timeouts, only while the run has such relations. Left: the moment between the last check and
the CREATE statement itself inside one step (milliseconds; a plain CREATE TABLE then fails, an
``IF NOT EXISTS`` in the same step as its later statements is not caught).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from psycopg import sql

from ..core.errors import LintGateError
from ..core.model import QualifiedName
from ..planning.pending import PlannedStep
from .journal import JournalTable
from .session import Session

Key = tuple[int, int]

_HINT = (
    "another session created or replaced it while the run went on; the lint gate's judgement "
    "of the later steps took it for new. Rerun: the gate then judges it as it is (by size)"
)


class CreatedInRun:
    """The check before each step (see the module's doc); ``before(item)`` raises."""

    def __init__(
        self,
        session: Session,
        journal: JournalTable,
        creates: Mapping[Key, Sequence[QualifiedName]],
    ) -> None:
        self.session = session
        self.journal = journal
        self.creates = dict(creates)
        #: The relations the run created: qualified name text -> oid.
        self.recorded: dict[str, int] = {}
        self.previous: PlannedStep | None = None

    def before(self, item: PlannedStep) -> None:
        """Check the previous step's creations, the recorded ones and this step's."""
        previous, self.previous = self.previous, item
        done = self._creations(previous)
        coming = self._creations(item)
        if not done and not coming and not self.recorded:
            return
        self._check_done(previous, done)
        self._check_recorded(item)
        self._check_coming(item, coming)

    def _creations(self, item: PlannedStep | None) -> Sequence[QualifiedName]:
        if item is None:
            return ()
        return self.creates.get((item.migration.version, item.step.index), ())

    def _check_done(self, previous: PlannedStep | None, done: Sequence[QualifiedName]) -> None:
        if previous is None or not done:
            return
        query = sql.SQL(
            "SELECT r.name, c.oid::bigint, format('%%I.%%I', n.nspname, c.relname), "
            "c.xmin::text = (SELECT j.xmin::text FROM {journal} j "
            "WHERE j.version = %s AND j.step = %s) "
            "FROM unnest(%s::text[], %s::text[]) AS r(schema, name) "
            "JOIN pg_class c ON c.oid = to_regclass("
            "format('%%I.%%I', coalesce(r.schema, current_schema()), r.name)) "
            "JOIN pg_namespace n ON n.oid = c.relnamespace"
        ).format(journal=self.journal.ident)
        rows = self.session.rows(
            query,
            [
                previous.migration.version,
                previous.step.index,
                [n.schema for n in done],
                [n.name for n in done],
            ],
        )
        for name, oid, qualified, ours in rows:
            if not ours and self.recorded.get(str(qualified)) != int(oid):
                raise LintGateError(
                    f"{previous.migration.filename} (step {previous.step.index + 1}) was to "
                    f"create {name}, but {qualified} is not the one it created (it existed "
                    "already: another session created it during the run); stopped before "
                    "the next step, which the lint gate judged with it as new",
                    hint=_HINT,
                )
            self.recorded[str(qualified)] = int(oid)

    def _check_recorded(self, item: PlannedStep) -> None:
        if not self.recorded:
            return
        names = list(self.recorded)
        query = sql.SQL(
            "SELECT r.name, to_regclass(r.name)::oid::bigint "
            "FROM unnest(%s::text[], %s::bigint[]) AS r(name, oid) "
            "WHERE to_regclass(r.name) IS NULL OR to_regclass(r.name)::oid::bigint <> r.oid"
        )
        for name, oid in self.session.rows(query, [names, [self.recorded[n] for n in names]]):
            if oid is None:
                del self.recorded[name]  # dropped since (by the run: a later CREATE is new)
                continue
            raise LintGateError(
                f"{item.migration.filename} (step {item.step.index + 1}) not run: {name} is no "
                "longer the relation this run created (dropped and created again by another "
                "session), and the lint gate judged this step with it as new",
                hint=_HINT,
            )

    def _check_coming(self, item: PlannedStep, coming: Sequence[QualifiedName]) -> None:
        if not coming:
            return
        query = sql.SQL(
            "SELECT r.name, format('%%I.%%I', n.nspname, c.relname), c.oid::bigint "
            "FROM unnest(%s::text[], %s::text[]) AS r(schema, name) "
            "JOIN pg_class c ON c.oid = to_regclass("
            "format('%%I.%%I', coalesce(r.schema, current_schema()), r.name)) "
            "JOIN pg_namespace n ON n.oid = c.relnamespace"
        )
        rows = self.session.rows(query, [[n.schema for n in coming], [n.name for n in coming]])
        for name, qualified, oid in rows:
            if self.recorded.get(str(qualified)) == int(oid):
                continue  # the run's own, from an earlier step (IF NOT EXISTS meets it)
            raise LintGateError(
                f"{item.migration.filename} (step {item.step.index + 1}) not run: it was to "
                f"create {name}, which did not exist when the run started, but {qualified} "
                "exists now (another session created it); the lint gate judged the steps "
                "after it with it as new",
                hint=_HINT,
            )
