"""A fake of the clock and sleep the runner takes injected, for the tests without waits."""

from __future__ import annotations


class FakeClock:
    """A monotonic clock that moves only when slept on (or moved by a test through
    ``now_s``): call it, or its ``now``, where the code takes a clock; its ``sleep`` records
    each sleep."""

    def __init__(self, start: float = 0.0) -> None:
        self.now_s = start
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now_s

    def now(self) -> float:
        return self.now_s

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now_s += seconds
