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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..core import checksums
from ..core.model import Migration, Step


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


class Texts:
    """The directory's steps that would run (no applied row covers them), by text.

    ``covered``: the places whose step the journal records as applied (under its own version,
    or under the version of a file renamed to it); every other step is one ``up`` would run.
    """

    def __init__(self, migrations: Sequence[Migration], covered: Iterable[tuple[int, int]]):
        done = set(covered)
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


#: How many statements from an edited step on are searched for its recorded text: past this the
#: search (every run of consecutive statements) is not made, and the caller refuses.
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
