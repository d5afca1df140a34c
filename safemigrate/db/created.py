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
took the relation for new is void. One query per step (issue 26: the three checks took a
round trip each), only while the run has such relations.

Where it is sent (issue 26). After a step of one statement in a transaction (``db.steps``'
one round trip), the query is that step's: it goes in the step's round trip, after its
journal row, before its COMMIT (:meth:`CreatedInRun.after`), and :meth:`before` judges its
rows before the next step exactly as it judges its own query's, raising there. It runs as
the runner, under the step's timeouts; an error in it rolls the step back like one in the
journal row. The query is sent on its own (under the session's housekeeping timeouts) before
the run's first step, after a step of another shape, and after a round trip that did not
answer (a reconnection).

Left: the moment between the check and the CREATE statement itself (milliseconds; a plain
CREATE TABLE then fails, an ``IF NOT EXISTS`` in the same step as its later statements is not
caught): from the check's reply to the step's statement when the query is its own, from before
the previous step's COMMIT to the step's statement when it is sent in that step's round trip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg import sql

from ..core.errors import LintGateError
from ..core.model import QualifiedName
from ..planning.pending import PlannedStep
from .journal import JournalTable
from .session import Session

Key = tuple[int, int]
Rows = list[tuple[Any, ...]]

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
        order: Sequence[PlannedStep] = (),
    ) -> None:
        self.session = session
        self.journal = journal
        self.creates = dict(creates)
        #: Each planned step of the run (``order``) by its key, with the step after it.
        self._steps: dict[Key, tuple[PlannedStep, PlannedStep | None]] = {
            _key(p): (p, order[i + 1] if i + 1 < len(order) else None) for i, p in enumerate(order)
        }
        #: The relations the run created: qualified name text -> oid.
        self.recorded: dict[str, int] = {}
        #: The recorded relations' names and oids as SQL literal lists (``'public.t', ...``
        #: and ``16384, ...``), each literal rendered once and appended as it is recorded:
        #: every step sends them all (issue 26: rendering them again for every step was most
        #: of a step's own time). None when a relation was forgotten or recorded again since:
        #: then they are rendered anew.
        self._rendered: tuple[str, str] | None = ("", "")
        self.previous: PlannedStep | None = None
        #: The query's rows as a step's own round trip answered them (see ``after``): for
        #: which step they were sent (the previous one), which step they check the creations
        #: of (the next), and the recorded relations they were composed with.
        self._answered: tuple[Key, Key, dict[str, int], Rows] | None = None

    def before(self, item: PlannedStep) -> None:
        """Check the previous step's creations, the recorded ones and this step's: one query
        (issue 26: three round trips per step before, the recorded relations' names resolved
        three times each), or its rows as the previous step's round trip answered them."""
        previous, self.previous = self.previous, item
        answered, self._answered = self._answered, None
        if (
            previous is not None
            and answered is not None
            and answered[:2] == (_key(previous), _key(item))
        ):
            self._judge(previous, item, answered[2], answered[3])
            return
        query = self._query(previous, item)
        if query is not None:
            self._judge(previous, item, query[0], self.session.rows(query[1]))

    def after(self, version: int, step: int) -> Checked | None:
        """The query that :meth:`before` the step after (``version``, ``step``) would send,
        for that step's round trip to carry after its journal row, before its COMMIT (tagged:
        its first column is named with the session's marker, Session.run_sql_between); None
        when there is nothing to check, or no planned step comes after it."""
        item, coming = self._steps.get((version, step), (None, None))
        if item is None or coming is None:
            return None
        query = self._query(item, coming)
        if query is None:
            return None
        recorded, union = query
        tag = f"{self.session.marker} created"
        tagged = sql.SQL(
            "SELECT q.part AS {}, q.name, q.oid, q.qualified, q.ours "
            "FROM ({}) AS q(part, name, oid, qualified, ours) ORDER BY 1"
        ).format(sql.Identifier(tag), union)
        return Checked(self, (_key(item), _key(coming)), recorded, tagged, tag)

    def _query(
        self, previous: PlannedStep | None, item: PlannedStep
    ) -> tuple[dict[str, int], sql.Composed] | None:
        """The recorded relations as the query sees them, and the query; None when there is
        nothing to check."""
        done = self._creations(previous)
        coming = self._creations(item)
        if not done and not coming and not self.recorded:
            return None
        parts: list[sql.Composable] = []
        if previous is not None and done:
            parts.append(self._done_sql(previous, done))
        # Those recorded before this query: the previous step's, recorded from the first part,
        # are checked by it against the same catalog.
        recorded = dict(self.recorded)
        if recorded:
            parts.append(self._recorded_sql())
        if coming:
            parts.append(_coming_sql(coming))
        return recorded, sql.SQL(" UNION ALL ").join(parts) + sql.SQL(" ORDER BY 1")

    def _answer(self, steps: tuple[Key, Key], recorded: dict[str, int], rows: Rows) -> None:
        self._answered = (steps[0], steps[1], recorded, rows)

    def _judge(
        self, previous: PlannedStep | None, item: PlannedStep, recorded: dict[str, int], rows: Rows
    ) -> None:
        """The verdicts of the query's rows (raises LintGateError)."""
        for part, name, oid, qualified, ours in rows:
            if part == 0:
                assert previous is not None
                self._check_done(previous, name, oid, qualified, ours)
            elif part == 1:
                self._check_recorded(item, name, oid, recorded[name])
            else:
                self._check_coming(item, name, oid, qualified)

    def _creations(self, item: PlannedStep | None) -> Sequence[QualifiedName]:
        if item is None:
            return ()
        return self.creates.get((item.migration.version, item.step.index), ())

    def _done_sql(self, previous: PlannedStep, done: Sequence[QualifiedName]) -> sql.Composed:
        """Each relation the previous step was to create that exists, and whether its
        ``pg_class`` row was written by the step's transaction (the journal row's)."""
        return sql.SQL(
            "(SELECT 0, r.name, c.oid::bigint, format('%I.%I', n.nspname, c.relname), "
            "c.xmin::text = (SELECT j.xmin::text FROM {journal} j "
            "WHERE j.version = {version} AND j.step = {step}) "
            "FROM unnest({schemas}::text[], {names}::text[]) AS r(schema, name) "
            "JOIN pg_class c ON c.oid = to_regclass("
            "format('%I.%I', coalesce(r.schema, current_schema()), r.name)) "
            "JOIN pg_namespace n ON n.oid = c.relnamespace)"
        ).format(
            journal=self.journal.ident,
            version=sql.Literal(previous.migration.version),
            step=sql.Literal(previous.step.index),
            schemas=sql.Literal([n.schema for n in done]),
            names=sql.Literal([n.name for n in done]),
        )

    def _check_done(
        self, previous: PlannedStep, name: str, oid: int, qualified: str, ours: bool
    ) -> None:
        if not ours and self.recorded.get(str(qualified)) != int(oid):
            raise LintGateError(
                f"{previous.migration.filename} (step {previous.step.index + 1}) was to "
                f"create {name}, but {qualified} is not the one it created (it existed "
                "already: another session created it during the run); stopped before "
                "the next step, which the lint gate judged with it as new",
                hint=_HINT,
            )
        self._record(str(qualified), int(oid))

    def _record(self, name: str, oid: int) -> None:
        known = self.recorded.get(name)
        self.recorded[name] = oid
        if known is not None:
            if known != oid:
                self._rendered = None
            return
        if self._rendered is not None:
            names, oids = self._rendered
            name_sql = self.session.render(sql.Literal(name))
            oid_sql = self.session.render(sql.Literal(oid))
            self._rendered = (
                f"{names}, {name_sql}" if names else name_sql,
                f"{oids}, {oid_sql}" if oids else oid_sql,
            )

    def _forget(self, name: str) -> None:
        if self.recorded.pop(name, None) is not None:
            self._rendered = None

    def _recorded_sql(self) -> sql.Composed:
        """Each recorded relation that is not, under its name, the one the run created, with
        what its name is now (None: gone). Found by oid (its ``pg_class`` row gone, or under
        another name): the names of the relations still intact are not resolved again."""
        if self._rendered is None:
            recorded = self.recorded
            self._rendered = (
                ", ".join(self.session.render(sql.Literal(n)) for n in recorded),
                ", ".join(self.session.render(sql.Literal(o)) for o in recorded.values()),
            )
        names, oids = self._rendered
        return sql.SQL(
            "(SELECT 1, r.name, to_regclass(r.name)::oid::bigint, NULL::text, NULL::boolean "
            "FROM unnest(ARRAY[{names}]::text[], ARRAY[{oids}]::bigint[]) AS r(name, oid) "
            "LEFT JOIN pg_class c ON c.oid = r.oid::oid "
            "LEFT JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.oid IS NULL OR format('%I.%I', n.nspname, c.relname) <> r.name)"
        ).format(
            # Literals rendered by psycopg above, one per relation, joined.
            names=sql.SQL(names),
            oids=sql.SQL(oids),
        )

    def _check_recorded(self, item: PlannedStep, name: str, oid: int | None, ours: int) -> None:
        if oid is None:
            self._forget(name)  # dropped since (by the run: a later CREATE is new)
            return
        if int(oid) == ours:
            return
        raise LintGateError(
            f"{item.migration.filename} (step {item.step.index + 1}) not run: {name} is no "
            "longer the relation this run created (dropped and created again by another "
            "session), and the lint gate judged this step with it as new",
            hint=_HINT,
        )

    def _check_coming(self, item: PlannedStep, name: str, oid: int, qualified: str) -> None:
        if self.recorded.get(str(qualified)) == int(oid):
            return  # the run's own, from an earlier step (IF NOT EXISTS meets it)
        raise LintGateError(
            f"{item.migration.filename} (step {item.step.index + 1}) not run: it was to "
            f"create {name}, which did not exist when the run started, but {qualified} "
            "exists now (another session created it); the lint gate judged the steps "
            "after it with it as new",
            hint=_HINT,
        )


@dataclass(frozen=True)
class Checked:
    """The check's query as a step's round trip carries it (``CreatedInRun.after``)."""

    check: CreatedInRun
    #: The step that carries it, and the one whose creations it checks.
    steps: tuple[Key, Key]
    recorded: dict[str, int]
    #: Sent after the step's journal row, before its COMMIT; its rows are tagged ``tag``.
    query: sql.Composed
    tag: str

    def took(self, answers: Mapping[str, Rows]) -> None:
        """The step committed; ``answers`` are its round trip's tagged rows."""
        rows = answers.get(self.tag)
        if rows is not None:
            self.check._answer(self.steps, self.recorded, rows)


def _key(item: PlannedStep) -> Key:
    return (item.migration.version, item.step.index)


def _coming_sql(coming: Sequence[QualifiedName]) -> sql.Composed:
    """Each relation the step is to create that exists already."""
    return sql.SQL(
        "(SELECT 2, r.name, c.oid::bigint, format('%I.%I', n.nspname, c.relname), "
        "NULL::boolean "
        "FROM unnest({schemas}::text[], {names}::text[]) AS r(schema, name) "
        "JOIN pg_class c ON c.oid = to_regclass("
        "format('%I.%I', coalesce(r.schema, current_schema()), r.name)) "
        "JOIN pg_namespace n ON n.oid = c.relnamespace)"
    ).format(
        schemas=sql.Literal([n.schema for n in coming]), names=sql.Literal([n.name for n in coming])
    )
