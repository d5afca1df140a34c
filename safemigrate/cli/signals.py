"""SIGTERM taken as Ctrl-C by the commands that write."""

from __future__ import annotations

import signal
from types import FrameType


def interrupt_on_sigterm() -> None:
    """From now on SIGTERM raises KeyboardInterrupt in the main thread, as Ctrl-C does."""
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)


def _terminate_as_interrupt(signum: int, frame: FrameType | None) -> None:
    # SIGTERM takes the same path as Ctrl-C: psycopg cancels the running statement on the
    # server, the step rolls back, and the run lock is released before exiting.
    raise KeyboardInterrupt
