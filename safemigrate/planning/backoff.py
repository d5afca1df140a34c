"""The retry policy for steps that lose a lock race: exponential backoff with jitter.

Pure logic: the random source is injected, so tests pick it instead of sleeping.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

#: SQLSTATEs that mean "try again later": lock_not_available and deadlock_detected.
RETRYABLE_SQLSTATES = frozenset({"55P03", "40P01"})


def is_retryable(sqlstate: str | None) -> bool:
    """True for errors a fresh attempt of the same step can get past."""
    return sqlstate in RETRYABLE_SQLSTATES


@dataclass(frozen=True)
class Backoff:
    """Waits between attempts: ``initial * 2**(n-1)``, capped at ``maximum``, with jitter.

    The jitter draws each wait uniformly from [50%, 100%] of the exponential value, so that two
    runners (or a runner and a retrying application) that collided once do not collide again in
    lockstep, while the worst case stays predictable.
    """

    initial_ms: int
    maximum_ms: int
    rand: Callable[[], float] = random.random

    def ceiling_ms(self, failed_attempts: int) -> int:
        """The longest wait after ``failed_attempts`` failures (1 for the first failure)."""
        exponent = max(0, failed_attempts - 1)
        # Cap the exponent before shifting so a large attempt count does not build a huge int.
        return min(self.maximum_ms, self.initial_ms << min(exponent, 40))

    def wait_ms(self, failed_attempts: int) -> int:
        """The wait before the next attempt, after ``failed_attempts`` failures."""
        ceiling = self.ceiling_ms(failed_attempts)
        return round(ceiling * (0.5 + 0.5 * self.rand()))

    def worst_case_ms(self, attempts: int, lock_timeout_ms: int) -> int:
        """The longest a step can take to give up: every attempt waits its full lock timeout,
        every pause between attempts is at its ceiling."""
        pauses = sum(self.ceiling_ms(n) for n in range(1, attempts))
        return attempts * lock_timeout_ms + pauses
