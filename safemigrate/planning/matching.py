"""Where a recorded text is in the directory now: journal rows against the current steps by
their statements' tokens, wherever they are (issue 21 review D2, D3, D5; review21c F4: blanks
and comments between tokens do not count, see ``checksums``). Pure, no I/O.

Every row the runner keeps about a step -- applied, ``started``, batch progress, a recipe's
record -- names a place (version, step) and the checksum of the text it ran. Files are
edited: a step's text can move to another position (SQL inserted above it), to another file
(a migration split or merged, a file renamed to a new version). :class:`Texts` answers one
question for ``status``, ``up`` and ``repair`` alike: which steps that would run now hold a
recorded text. A text found there must not be forgotten (up would run it again) nor left
behind (a started step would start over); it is followed there, or refused.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..core import checksums
from ..core.model import Migration, Statement, Step, TxMode
from ..lint.plpgsql import do_block_sql


@dataclass(frozen=True)
class Place:
    """A step of a file on disk."""

    migration: Migration
    step: Step

    @property
    def key(self) -> tuple[int, int]:
        return (self.migration.version, self.step.index)

    @property
    def where(self) -> str:
        """``0003_x.sql step 1 (line 2)``."""
        return f"{self.migration.filename} step {self.step.index + 1} (line {self.step.line})"


def statement_checksums(step: Step) -> set[str]:
    """The checksums each statement of a step of several would have as a step of its own."""
    if len(step.statements) < 2:
        return set()
    found: set[str] = set()
    for statement in step.statements:
        found.update(checksums.all_checksums([statement.text], [statement.copy_data]))
    return found


#: Statements that apply nothing: run again, they change nothing that ran.
UNAPPLIED = frozenset({"TransactionStmt", "VariableSetStmt"})

#: A block's BEGIN and COMMIT as most files spell them: tried around every run of statements,
#: with the spellings of the directory's own blocks.
_BLOCK_SPELLINGS = (("BEGIN", "COMMIT"), ("begin", "commit"))


@dataclass(frozen=True)
class _Said:
    """A statement of the directory, in the order up runs them."""

    place: Place
    statement: Statement
    #: True when its step is one up would run.
    pending: bool


def _said(migrations: Sequence[Migration], done: set[tuple[int, int]]) -> list[_Said]:
    """Every statement of the directory in the order up runs them, a block's own BEGIN and
    COMMIT left out (they are tried around each run instead, :data:`_BLOCK_SPELLINGS`)."""
    out: list[_Said] = []
    for migration in sorted(migrations, key=lambda m: m.version):
        for step in migration.steps:
            place = Place(migration, step)
            statements = step.statements
            if step.mode is TxMode.EXPLICIT and len(statements) > 2:
                statements = statements[1:-1]
            pending = (migration.version, step.index) not in done
            out += [_Said(place, statement, pending) for statement in statements]
    return out


def _blocks(migrations: Sequence[Migration]) -> list[tuple[str, str]]:
    """The texts of a BEGIN and a COMMIT as the directory's blocks spell them, and as most
    files do."""
    found = dict.fromkeys(_BLOCK_SPELLINGS)
    for migration in migrations:
        for step in migration.steps:
            if step.mode is TxMode.EXPLICIT and len(step.statements) > 2:
                found[(step.statements[0].text, step.statements[-1].text)] = None
    return list(found)


def _holds(statement: Statement, checksum: str, wanted: set[str]) -> bool:
    """True when ``statement`` (its token checksum ``checksum``) runs one of ``wanted``: is
    one, or is a DO block whose body runs one (as far as it can be read)."""
    if statement.kind in UNAPPLIED:
        return False
    if checksum in wanted:
        return True
    if statement.kind != "DoStmt":
        return False
    return any(checksums.token_checksum([text]) in wanted for text in do_block_sql(statement.text))


class Texts:
    """The directory's steps that would run (no applied row covers them), by text.

    ``covered``: the places whose step the journal records as applied (under its own version,
    or under the version of a file renamed to it); every other step is one ``up`` would run.
    """

    def __init__(self, migrations: Sequence[Migration], covered: Iterable[tuple[int, int]]):
        done = set(covered)
        self._migrations = migrations
        self._done = done
        self.steps: dict[str, list[Place]] = {}
        self.statements: dict[str, list[Place]] = {}
        for migration in migrations:
            for step in migration.steps:
                if (migration.version, step.index) in done or step.empty:
                    continue
                place = Place(migration, step)
                for checksum in step.checksums:
                    self.steps.setdefault(checksum, []).append(place)
                for checksum in statement_checksums(step):
                    self.statements.setdefault(checksum, []).append(place)

    def pending(self, checksum: str, *, statements: bool = True) -> list[Place]:
        """The steps that would run holding ``checksum`` as their text (or, with
        ``statements``, as the text of one of their statements)."""
        if checksum == checksums.EMPTY:
            return []
        found = list(self.steps.get(checksum, []))
        if statements:
            found += [p for p in self.statements.get(checksum, []) if p not in found]
        return found

    def holding(self, wanted: Iterable[str]) -> list[Place]:
        """The steps that would run with one of ``wanted`` (the token checksums of statements
        that ran, as the journal records them) among their statements, in the order up runs
        them (a DO block as the statements its body runs, too). A transaction's BEGIN or
        COMMIT and a SET do not count: running them again changes nothing (they are not
        applied, only in force in the step's transaction or session)."""
        wanted = set(wanted)
        if not wanted:
            return []
        found: list[Place] = []
        for migration in sorted(self._migrations, key=lambda m: m.version):
            for step in migration.steps:
                if (migration.version, step.index) in self._done or step.empty:
                    continue
                pairs = zip(step.statements, step.statement_checksums, strict=True)
                if any(_holds(s, c, wanted) for s, c in pairs):
                    found.append(Place(migration, step))
        return found

    def runs(self, wanted: Iterable[str]) -> dict[str, list[Place]]:
        """Each of ``wanted`` (applied steps' recorded texts) that is the text of consecutive
        statements of the directory, in the order up runs them, at least one of them in a step
        that would run: the steps up would run it in (review21g P1: an applied group or block
        split into new files, its statements merged into another step, a group's remainder
        left in its edited place with the rest moved out). Runs of up to
        :data:`MAX_SEARCHED_STATEMENTS` statements are tried, bare and inside a BEGIN and
        COMMIT (a block's own BEGIN and COMMIT are not among the statements), so a block
        split into groups or plain files, and a group split into blocks, are found alike.

        What one checksum per applied step cannot show: its statements reordered, others put
        between them, or one of them removed; rows that record their statements are searched
        statement by statement too (:meth:`holding`)."""
        wanted = set(wanted) - {checksums.EMPTY}
        said = _said(self._migrations, self._done)
        pending = [i for i, s in enumerate(said) if s.pending]
        if not wanted or not pending:
            return {}
        blocks = [
            (checksums.statement_units(begin), checksums.statement_units(commit))
            for begin, commit in _blocks(self._migrations)
        ]
        units: dict[int, tuple[str, str, str, str]] = {}
        longest = MAX_SEARCHED_STATEMENTS
        starts = sorted({i for p in pending for i in range(max(0, p - longest + 1), p + 1)})
        found: dict[str, list[Place]] = {}
        for start in starts:
            first = pending[bisect_left(pending, start)]  # a run must reach it
            window = range(start, min(len(said), start + longest))
            for i in window:
                if i not in units:
                    units[i] = checksums.statement_units(
                        said[i].statement.text, said[i].statement.copy_data
                    )
            # The four kinds' units often agree: each distinct sequence is hashed once.
            kinds: dict[tuple[str, ...], set[int]] = {}
            for kind in range(4):
                kinds.setdefault(tuple(units[i][kind] for i in window), set()).add(kind)
            for sequence, of in kinds.items():
                around: list[tuple[str | None, str | None]] = [(None, None)]
                around += [(b[k], c[k]) for b, c in blocks for k in sorted(of)]
                for before, after in dict.fromkeys(around):
                    digests = checksums.prefix_digests(
                        sequence, before=before, after=after, shortest=first - start + 1
                    )
                    for end, digest in enumerate(digests, start=first):
                        if digest in wanted and digest not in found:
                            places = {s.place.key: s.place for s in said[start : end + 1]}
                            found[digest] = [p for k, p in places.items() if k not in self._done]
        return found


#: How many statements from an edited step on are searched for its recorded text, for a row
#: with only its step checksum: past this the search (every run of consecutive statements) is
#: not made, and the caller refuses. Also the longest run :meth:`Texts.runs` tries. Rows that
#: record their statements have no such bound (:meth:`Texts.holding`).
MAX_SEARCHED_STATEMENTS = 60


@dataclass(frozen=True)
class Found:
    """Where a step's recorded text is now: consecutive statements spanning steps
    ``first_step`` to ``last_step`` (0-based indexes of the migration's steps)."""

    first_step: int
    last_step: int
    #: The line of its first statement.
    line: int


def searchable(steps: Sequence[Step]) -> bool:
    """True when :func:`recorded_text_in` searches ``steps`` (few enough statements)."""
    return sum(len(step.statements) for step in steps) <= MAX_SEARCHED_STATEMENTS


def recorded_text_in(checksum: str, steps: Sequence[Step]) -> Found | None:
    """Where ``checksum`` (an applied step's recorded text) is the text of consecutive
    statements of ``steps`` (the edited step, then the steps after it that would run); None
    when it is nowhere there. Found within the first step alone, statements were added around
    the applied text (they never ran); found across later steps, the step was split (group
    markers or BEGIN/COMMIT removed) and those steps would run its text again. Every run of
    consecutive statements is tried: see :func:`searchable` for the bound."""
    flat = [(step.index, statement) for step in steps for statement in step.statements]
    for start in range(len(flat)):
        for end in range(start + 1, len(flat) + 1):
            run = [statement for _, statement in flat[start:end]]
            texts = [s.text for s in run]
            if checksums.matches(checksum, texts, [s.copy_data for s in run]):
                return Found(flat[start][0], flat[end - 1][0], run[0].line)
    return None
