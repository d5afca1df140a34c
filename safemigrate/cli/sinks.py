"""The live sinks: a run's events printed as they come, with the live status line(s) on a
terminal, and the target line printed as soon as a command is connected."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from .terminal import colour, terminal_width

if TYPE_CHECKING:
    from ..core.events import Event
    from ..core.reached import Target
    from ..render.live_line import LiveStatus

#: Off a terminal, at most one progress line this often (seconds).
PROGRESS_LINE_EVERY_S = 5.0
#: How long the end of a command waits for the live status line's thread.
STATUS_JOIN_TIMEOUT_S = 1.0


class LiveSink:
    """Prints events as they come, from the run's thread and the watcher's thread.

    On a terminal a status line is redrawn in place below the log; elsewhere progress events
    become plain lines, at most one every few seconds.
    """

    def __init__(self, fmt: str, *, live: bool, verbose: bool = False) -> None:
        from ..render.live_line import LiveStatus

        self.fmt = fmt
        self.live = live
        #: --verbose: every lint finding listed, not only the blocking ones.
        self.verbose = verbose
        self.colour = colour()
        self.status = LiveStatus()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_progress = 0.0
        self._drawn = False

    def __enter__(self) -> LiveSink:
        if self.live:
            self._thread = threading.Thread(target=self._tick, name="status", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            # Bounded: a terminal that stopped reading must not hold the command's exit.
            self._thread.join(STATUS_JOIN_TIMEOUT_S)
        with self._lock:
            self._clear()

    def __call__(self, event: Event) -> None:
        from ..render.output import event_json

        now = time.monotonic()
        with self._lock:
            if self.fmt == "json":
                click.echo(event_json(event))
                return
            lines = self._log_lines(event, now)
            if lines:
                self._clear()
                for line in lines:
                    click.echo(line)
            if lines is not None:
                self._draw(now)

    def _log_lines(self, event: Event, now: float) -> list[str] | None:
        """The log lines of ``event`` (its status taken in first), or None for a progress
        event that only the live line shows."""
        from ..core.events import BatchProgress, IndexProgress, StepProgress
        from ..render.output import event_text

        self.status.update(event, now)
        progress = isinstance(event, (StepProgress, IndexProgress)) or (
            isinstance(event, BatchProgress) and not event.finished
        )
        if progress and self._withhold_progress(now):
            return None
        return event_text(event, self.colour, verbose=self.verbose)

    def _withhold_progress(self, now: float) -> bool:
        """Whether a progress event stays off the log: on a terminal the live line shows it;
        elsewhere one line every PROGRESS_LINE_EVERY_S is enough."""
        if self.live or now - self._last_progress < PROGRESS_LINE_EVERY_S:
            return True
        self._last_progress = now
        return False

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
            with self._lock:
                self._draw(time.monotonic())

    def _draw(self, now: float) -> None:
        if not self.live:
            return
        width = terminal_width()
        # Fitted to the terminal by shortening, never by cutting off the blocker's pid.
        line = self.status.line(now, width)
        self._clear()
        if line:
            click.echo(line, nl=False)
            self._drawn = True

    def _clear(self) -> None:
        if self._drawn:
            click.echo("\r\x1b[K", nl=False)
            self._drawn = False


class FleetSink(LiveSink):
    """Prints the events of many targets as they come from their worker threads: each log
    line starts with ``[target]``; on a terminal one live line per running target is redrawn
    below the log."""

    def __init__(self, fmt: str, *, live: bool, verbose: bool = False) -> None:
        super().__init__(fmt, live=live, verbose=verbose)
        self.statuses: dict[str, LiveStatus] = {}
        self._drawn_lines = 0

    def _log_lines(self, event: Event, now: float) -> list[str] | None:
        from ..core.events import IndexProgress, StepProgress
        from ..render.fleet_report import TargetEvent, TargetFinished, TargetStarted
        from ..render.live_line import LiveStatus

        if not isinstance(event, TargetEvent):
            return super()._log_lines(event, now)
        inner = event.event
        if isinstance(inner, TargetStarted):
            self.statuses[event.target] = LiveStatus()
        elif isinstance(inner, TargetFinished):
            self.statuses.pop(event.target, None)
        else:
            self.statuses.setdefault(event.target, LiveStatus()).update(inner, now)
        if isinstance(inner, (StepProgress, IndexProgress)) and self._withhold_progress(now):
            return None
        lines = _target_lines(inner, self.colour, verbose=self.verbose)
        return [f"[{event.target}] {line}" for line in lines]

    def _draw(self, now: float) -> None:
        if not self.live:
            return
        width = terminal_width()
        lines = [
            f"{name}: {status.line(now, width - len(name) - 2) or 'connecting / between steps'}"[
                :width
            ]
            for name, status in self.statuses.items()
        ]
        self._clear()
        if lines:
            click.echo("\n".join(lines), nl=False)
            self._drawn_lines = len(lines)

    def _clear(self) -> None:
        if self._drawn_lines:
            # Erase the live lines: this one, then each line above it.
            click.echo("\r\x1b[K" + "\x1b[1A\x1b[K" * (self._drawn_lines - 1), nl=False)
            self._drawn_lines = 0


def _target_lines(event: Event, colour: bool, *, verbose: bool = False) -> list[str]:
    """The log lines of one target's event (a finished target gets one line)."""
    from ..core.durations import format_duration
    from ..render.fleet_report import TargetFinished
    from ..render.output import event_text

    if isinstance(event, TargetFinished):
        took = format_duration(round(event.duration_ms))
        if event.error is None:
            steps = f"{event.applied_steps} step{'s' if event.applied_steps != 1 else ''}"
            return [f"{event.state}: {steps} applied in {took}"]
        return [f"{event.state} (exit {event.exit_code}) after {took}"]
    return event_text(event, colour, verbose=verbose)


def target_printer(fmt: str, seen: list[Target] | None = None) -> Callable[[Event], None]:
    """An event sink that prints the target line as soon as the connection is made (text),
    so that a refusal (drift, a held run lock) still says which database it was; the target
    is also added to ``seen`` when given (for a command's JSON document)."""

    def connected(event: Event) -> None:
        from ..core.events import Connected
        from ..render.output import paint

        if not isinstance(event, Connected):
            return
        if seen is not None:
            seen.append(event.target)
        if fmt == "text":
            click.echo(paint(f"target: {event.target.describe()}", "bold", colour()))

    return connected
