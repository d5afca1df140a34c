"""What ``status`` prints as text: the journal line, the switch from another tool, the table.

Apart from ``output.py`` (which renders ``up``'s events and imports every event class), so
that ``status`` loads neither (issue 26: its time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..planning.pending import MigrationStatus, State
from .plain import paint, plural

if TYPE_CHECKING:
    from ..core.events import HistoryAdopted


def switch_text(event: HistoryAdopted, *, journal_exists: bool = False) -> str:
    """The switch from another tool, said once: what was (or, in ``status``, will be) recorded,
    and whether the tool's own history is written from then on (tool_history). With
    ``journal_exists`` (``status`` after the switch) it is what the tool applied since."""
    span = event.first if event.count == 1 else f"{event.first} to {event.last}"
    what = f"{plural(event.count, 'migration')} {event.tool} applied ({span})"
    them = "it" if event.count == 1 else "them"
    if journal_exists and not event.recorded:
        # Issue 22 review F12: not the switch any more, nor the first up.
        return (
            f"{event.tool} applied {plural(event.count, 'migration')} the journal does not "
            f"know yet ({span}, read from {event.table}): the next `safemigrate up` (or "
            f"`adopt`) records {them} in the journal {event.journal} as baseline, without "
            f"running {them}"
        )
    if event.recorded:
        head = (
            f"switched from {event.tool}: recorded the {what} in the journal "
            f"{event.journal} as baseline, not run (read from {event.table})"
        )
    else:
        head = (
            f"switch from {event.tool}: the first `safemigrate up` (or `adopt`) records the "
            f"{what} in the journal {event.journal} as baseline, without running {them} "
            f"(read from {event.table})"
        )
    if event.tool_history_written:
        return (
            f"{head}; every migration safemigrate applies is recorded in {event.table} too, so "
            f"{event.tool} finds nothing to apply: retire {event.tool} from the deploy anyway "
            '(tool_history = "write")'
        )
    return (
        f'{head}; safemigrate does not write {event.table} (tool_history = "leave"): retire '
        f"{event.tool} now, since it would run again every migration safemigrate applies"
    )


def journal_text(journal: str, exists: bool, switch: HistoryAdopted | None) -> list[str]:
    """What ``status`` says of the journal: its name, or, before it exists, what will make it
    (and what the switch from another tool will record in it)."""
    lines = [f"journal {journal}" if exists else f"journal {journal}: not created yet"]
    if switch is not None:
        lines.append(switch_text(switch, journal_exists=exists))
    elif not exists:
        lines[0] += " (the first `safemigrate up` creates it)"
    return lines


_STATE_COLOUR = {
    State.APPLIED: "green",
    State.PARTIAL: "yellow",
    State.PENDING: "cyan",
    State.DRIFTED: "red",
    State.MISSING: "red",
    State.INVALID: "red",
}


def status_text(migrations: list[MigrationStatus], colour: bool = False) -> list[str]:
    """The ``status`` table: one line per migration."""
    if not migrations:
        return ["no migrations"]
    width = max(len(m.filename) for m in migrations)
    lines = []
    for m in migrations:
        state = paint(f"{m.state.value:<8}", _STATE_COLOUR[m.state], colour)
        steps = f"step{'s' if m.steps_total != 1 else ''}"
        # A file that does not parse has no steps to count.
        total = "?" if m.state is State.INVALID else str(m.steps_total)
        lines.append(f"{m.filename:<{width}}  {state}  {m.steps_applied}/{total} {steps}")
        lines += [f"    {problem}" for problem in m.problems]
    counts: dict[str, int] = {}
    for m in migrations:
        counts[m.state.value] = counts.get(m.state.value, 0) + 1
    lines.append(", ".join(f"{n} {state}" for state, n in counts.items()))
    return lines
