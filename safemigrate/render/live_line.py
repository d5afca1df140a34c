"""The one-line live status a terminal shows during ``up``: the step, its attempt or polite
wait, its progress and its blocker, made to fit the terminal's width without losing the
blocker's pid."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.durations import format_duration
from ..core.events import (
    AttemptFailed,
    AttemptStarted,
    BatchProgress,
    Blocker,
    Event,
    IndexProgress,
    ReplicaLagWait,
    RunFailed,
    RunFinished,
    StepApplied,
    StepStarted,
    StepYielded,
    WaitingForHolders,
)
from .output import batch_progress_text, index_progress_text


class LiveStatus:
    """The state behind the one-line live status a terminal shows during ``up``."""

    def __init__(self) -> None:
        self.step: StepStarted | None = None
        self.attempt: AttemptStarted | None = None
        self.attempt_began = 0.0
        self.step_began = 0.0
        self.blocker: Blocker | None = None
        #: "blocked by" (the step waited in the queue) or "held by" (the pre-check saw it).
        self.blocker_label = "blocked by"
        #: The polite wait under way (after a pre-check back-off or a yield), and its start.
        self.waiting: WaitingForHolders | None = None
        self.waiting_began = 0.0
        self.index: IndexProgress | None = None
        self.batch: BatchProgress | ReplicaLagWait | None = None

    def update(self, event: Event, now: float) -> None:
        """Take in an event that arrived at monotonic time ``now``."""
        if isinstance(event, StepStarted):
            self.step, self.step_began, self.blocker, self.index = event, now, None, None
            self.batch, self.waiting = None, None
        elif isinstance(event, AttemptStarted):
            self.attempt, self.attempt_began, self.waiting = event, now, None
        elif isinstance(event, AttemptFailed) and event.blockers:
            self.blocker = event.blockers[0]
            self.blocker_label = "held by" if event.precheck else "blocked by"
        elif isinstance(event, StepYielded) and event.holders:
            self.blocker, self.blocker_label = event.holders[0], "held by"
        elif isinstance(event, WaitingForHolders):
            self.waiting, self.waiting_began = event, now
            if event.holders:
                self.blocker, self.blocker_label = event.holders[0], "held by"
        elif isinstance(event, IndexProgress):
            self.index = event
        elif isinstance(event, (BatchProgress, ReplicaLagWait)):
            self.batch = event
        elif isinstance(event, (StepApplied, RunFinished, RunFailed)):
            self.step = None

    def line(self, now: float, width: int | None = None) -> str | None:
        """The status line at time ``now``, None when no step runs; with ``width``, at most
        that many characters, shortened so that the blocker's pid is never lost: its query
        first, then its state, the file's name, the elapsed time, its application_name."""
        step = self.step
        if step is None:
            return None
        ref = step.ref
        position = f"[{step.n}/{step.total}]"
        where = f"step {ref.step}/{ref.steps}"
        elapsed = format_duration((now - self.step_began) * 1000)
        waits: list[tuple[str, str]] = []
        attempt = self.attempt
        if attempt is not None and attempt.ref == ref:
            waited = (now - self.attempt_began) * 1000
            if self.waiting is not None and self.waiting.ref == ref:
                polite = format_duration(
                    self.waiting.polite_wait_ms + (now - self.waiting_began) * 1000
                )
                budget = format_duration(self.waiting.lock_wait_budget_ms)
                waits.append(
                    (
                        f"waiting politely {polite} of {budget} (not an attempt)",
                        f"polite {polite}/{budget}",
                    )
                )
            elif attempt.failures or attempt.attempt > 1 or waited > 500:
                # Attempts in the manual's sense: max_attempts counts the failed ones only.
                number = f"{attempt.failures + 1}/{attempt.max_attempts}"
                waits.append((f"attempt {number}", f"attempt {number}"))
                lock = format_duration(min(waited, attempt.lock_timeout_ms))
                timeout = format_duration(attempt.lock_timeout_ms)
                waits.append((f"lock wait {lock} of {timeout}", f"{lock}/{timeout}"))
        extra: list[str] = []
        if self.index is not None and self.index.ref == ref:
            extra.append(index_progress_text(self.index))
        batch = self.batch
        if isinstance(batch, BatchProgress) and batch.ref == ref:
            extra.append(batch_progress_text(batch))
        elif isinstance(batch, ReplicaLagWait) and batch.ref == ref:
            extra.append(f"waiting for standby {batch.standby} ({format_duration(batch.lag_ms)})")
        return _fit_status(position, ref.file, where, elapsed, waits, extra, self._who(), width)

    def _who(self) -> tuple[str, str, str, str] | None:
        """The blocker shown: label and pid, application_name, state and age, query."""
        blocker = self.blocker
        if blocker is None:
            return None
        state = blocker.state or ""
        if blocker.xact_age_ms is not None:
            state += f"{' ' if state else ''}{format_duration(blocker.xact_age_ms)}"
        app = f"'{blocker.application_name}'" if blocker.application_name else ""
        query = " ".join((blocker.query or "").split())
        return (f"{self.blocker_label} pid {blocker.pid}", app, state, query)


#: The fewest characters a shortened query or file name keeps (less says nothing).
_SHORTEST = 12


def _shorten(text: str, room: int, *, middle: bool = False) -> str:
    """``text`` in at most ``room`` characters, ``...`` where it was cut (in the middle for a
    file name, whose end tells most)."""
    if len(text) <= room:
        return text
    if room <= 3:
        return text[:room]
    if middle:
        tail = (room - 3) // 2
        return text[: room - 3 - tail] + "..." + text[len(text) - tail :]
    return text[: room - 3] + "..."


@dataclass
class _LiveLine:
    """The parts of the live line while it is made to fit (see _fit_status); ``waits`` are
    (long, compact) forms, shown compact once ``compact`` is set."""

    position: str
    file: str
    where: str
    elapsed: str
    waits: list[tuple[str, str]]
    extra: str
    pid: str
    app: str
    state: str
    query: str
    compact: bool = False

    def render(self) -> str:
        """The line as it stands: position, file and step; elapsed; waits; blocker; extra."""
        items = [" ".join(p for p in (self.position, self.file, self.where) if p)]
        if self.elapsed:
            items.append(self.elapsed)
        items += [short if self.compact else long for long, short in self.waits]
        if self.pid:
            blocker = " ".join(p for p in (self.pid, self.app) if p)
            if self.state:
                blocker += f" ({self.state})"
            if self.query:
                blocker += f": {self.query}"
            items.append(blocker)
        if self.extra:
            items.append(self.extra)
        return " | ".join(items)

    def shrink(self, name: str, floor: int, width: int, *, middle: bool = False) -> None:
        """Shorten part ``name`` by what the line is too long for ``width``, to no fewer than
        ``floor`` characters."""
        text = getattr(self, name)
        assert isinstance(text, str)
        room = len(text) - (len(self.render()) - width)
        setattr(self, name, _shorten(text, max(room, floor), middle=middle))

    def drop(self, *names: str) -> None:
        """Leave parts ``names`` out of the line."""
        for name in names:
            setattr(self, name, [] if name == "waits" else "")


def _fit_status(
    position: str,
    file: str,
    where: str,
    elapsed: str,
    waits: list[tuple[str, str]],
    extra: list[str],
    who: tuple[str, str, str, str] | None,
    width: int | None,
) -> str:
    """The live line from its parts, made to fit ``width`` (see LiveStatus.line). ``waits``
    are (long, compact) forms."""
    pid, app, state, query = who if who is not None else ("", "", "", "")
    line = _LiveLine(
        position, file, where, elapsed, waits, " | ".join(extra), pid, app, state, query
    )
    if width is None or len(line.render()) <= width:
        return line.render()
    _shorten_line(line, width)
    return _last_resorts(line, file, width)


def _shorten_line(line: _LiveLine, width: int) -> None:
    """Shorten or drop the line's parts, in order, each only while the line is still too long
    for ``width``: the blocker's query first, the pid never (docs/blockers.md, Live progress)."""
    reductions: list[Callable[[], None]] = [
        lambda: line.shrink("query", 2 * _SHORTEST, width),
        lambda: line.shrink("file", 2 * _SHORTEST, width, middle=True),
        lambda: line.shrink("query", _SHORTEST, width),
        lambda: line.drop("query"),
        lambda: line.shrink("extra", _SHORTEST, width),
        lambda: setattr(line, "compact", True),
        lambda: line.drop("state"),
        lambda: line.shrink("file", _SHORTEST, width, middle=True),
        lambda: line.drop("elapsed"),
        lambda: line.drop("app"),
        lambda: line.drop("file", "where", "extra"),
        lambda: line.drop("waits"),
    ]
    for reduce in reductions:
        if len(line.render()) <= width:
            break
        reduce()


def _last_resorts(line: _LiveLine, file: str, width: int) -> str:
    """The shortened line, given back what room is left of the file's name (``file`` whole);
    narrower than anything else, the pid alone, else the line cut at ``width``."""
    spare = width - len(line.render())
    if spare > 0 and line.file and line.file != file:
        # A later step freed room: give the file's name back as much of it as fits.
        line.file = _shorten(file, len(line.file) + spare, middle=True)
    if len(line.render()) <= width:
        return line.render()
    if line.pid:
        # Narrower than anything else: the pid alone.
        number = line.pid.rsplit(" ", 1)[-1]
        return f"pid {number}" if width >= len(number) + 4 else number[:width]
    return line.render()[:width]
