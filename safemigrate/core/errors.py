"""The exception tree: every error safemigrate raises carries its process exit code.

Library callers catch these classes; the CLI maps ``exit_code`` to the process status in one
place. Messages are one line, name the file, line or key at fault, and never contain a password.
"""

from __future__ import annotations

import enum


def _escape_controls(text: str) -> str:
    """``text`` with control characters (newlines included) written as escapes."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class ExitCode(enum.IntEnum):
    """Process exit codes, listed in the README, docs/exit-codes.md and ``safemigrate --help``.

    Each member is its code and what the code means, the one source of every text about it:
    ``meaning`` is true of every command that returns the code (the ``--help`` epilogs say it
    when a command has nothing more exact), ``full_meaning`` adds the cases only some commands
    meet (the docs' exit-code tables, which tools/docs_reference.py generates from it).
    """

    meaning: str
    full_meaning: str

    def __new__(cls, code: int, meaning: str, more: str = "") -> ExitCode:
        member = int.__new__(cls, code)
        member._value_ = code
        member.meaning = " ".join(meaning.split())
        # ``more`` starts with its own punctuation, so the full text reads as one sentence.
        member.full_meaning = " ".join((meaning + more).split())
        return member

    OK = 0, "success"
    STEP_FAILED = (
        1,
        "a step failed with an SQL error",
        """, or could depend on session state a new session lost, or a new session cannot replay a
        session setting of an applied step (see Lost connections) (for `status --exit-code`:
        something is pending or partial)""",
    )
    BAD_INPUT = (
        2,
        "bad input: migration file, configuration, flag or DSN",
        "; out-of-order migration; a step released the run lock (rolled back)",
    )
    RUN_LOCK_HELD = (
        3,
        "the run lock is held by another run",
        """, or this run lost it (nothing of the next step ran), or an invalid index the step
        would drop as a leftover is being built by another live session""",
    )
    LOCK_NOT_ACQUIRED = (
        4,
        "a lock could not be acquired within the attempts, the lock-wait budget or the deadline",
    )
    DRIFT = (
        5,
        """drift: an applied step was edited, or an applied migration's file is gone, or a started
        batched step was edited after some of its batches ran""",
        """, or another tool's history records as applied a migration the journal holds as
        partially applied""",
    )
    CONNECTION = (
        6,
        "the database could not be reached, or the connection was lost or is unsafe",
        """ (lost: for longer than `reconnect_timeout`, or `max_attempts` times while one step
        ran; unsafe: it cannot keep a session (transaction pooling), or it is a standby)""",
    )
    LINT_GATE = (
        7,
        """refused by the lint gate: an error finding on a pending step is not suppressed with a
        reason; nothing was written""",
    )
    INTERRUPTED = (
        130,
        """interrupted by Ctrl-C or SIGTERM: the running statement was cancelled, its step rolled
        back, the run lock released""",
    )


class SafemigrateError(Exception):
    """Base class of every error safemigrate raises on purpose."""

    exit_code: ExitCode = ExitCode.STEP_FAILED

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        # One line, whatever the input quoted in it (a file name with a newline, say).
        message = _escape_controls(message)
        super().__init__(message)
        self.message = message
        self.hint = _escape_controls(hint) if hint is not None else None

    def __str__(self) -> str:
        return self.message


class BadInputError(SafemigrateError):
    """Bad input: a migration file, a configuration key, a flag or a DSN (exit 2)."""

    exit_code = ExitCode.BAD_INPUT


class ConfigError(BadInputError):
    """A configuration file, environment variable or flag has an unknown key or a bad value."""


class MigrationFileError(BadInputError):
    """A migration file is misnamed, unreadable, not UTF-8, or does not parse."""

    def __init__(
        self, path: str, message: str, *, line: int | None = None, hint: str | None = None
    ) -> None:
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}", hint=hint)
        self.path = path
        self.line = line


class OutOfOrderError(BadInputError):
    """A pending migration is older than the newest applied one."""


class StepFailedError(SafemigrateError):
    """A step failed with an SQL error that is not retried (exit 1)."""

    exit_code = ExitCode.STEP_FAILED

    def __init__(
        self,
        message: str,
        *,
        sqlstate: str | None = None,
        detail: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.sqlstate = sqlstate
        self.detail = detail


class StepRefusedError(StepFailedError):
    """What an earlier run left of a step forbids running it now; nothing of the step ran
    (exit 1). The db layer raises it without the step's place; the executor adds it."""

    def located(self, where: str) -> StepRefusedError:
        """The same refusal, its message prefixed with the step's ``file:line (step N)``."""
        return type(self)(f"{where}: {self.message}", hint=self.hint)


class SessionStateLostError(StepFailedError):
    """A step could depend on session state (a temporary table, a prepared statement, ...)
    that the session it would run on cannot have: a reconnection or a new run (exit 1)."""


class RunLockHeldError(SafemigrateError):
    """Another run holds the run lock on this journal (exit 3)."""

    exit_code = ExitCode.RUN_LOCK_HELD


class IndexBuildInProgressError(RunLockHeldError):
    """An invalid index the run would drop as an interrupted build's leftover is being built
    by another live backend (another run, or a run whose lock a migration released): it is
    not a leftover, and the run stops before touching it (exit 3)."""


class RunLockLostError(SafemigrateError):
    """This run's session no longer holds the run lock, so it stopped before its next step or
    part: a statement released it (exit 3)."""

    exit_code = ExitCode.RUN_LOCK_HELD


class LockNotAcquiredError(SafemigrateError):
    """A step could not get its lock within its attempts or the run's deadline (exit 4)."""

    exit_code = ExitCode.LOCK_NOT_ACQUIRED


class DriftError(SafemigrateError):
    """An applied step's text changed, or an applied migration's file is gone (exit 5)."""

    exit_code = ExitCode.DRIFT


class EditedStartedStepError(StepRefusedError, DriftError):
    """A step an earlier run partly applied (batches committed) has another text now (exit 5)."""

    exit_code = ExitCode.DRIFT


class ConnectionFailedError(SafemigrateError):
    """The database could not be reached, or the connection was lost mid-run (exit 6)."""

    exit_code = ExitCode.CONNECTION

    def __init__(self, message: str, *, hint: str | None = None, mid_run: bool = False) -> None:
        super().__init__(message, hint=hint)
        #: True when the connection was lost during a run (the runner may reconnect).
        self.mid_run = mid_run


class UnsafeConnectionError(SafemigrateError):
    """The connection cannot keep a session (e.g. a transaction-pooling proxy) (exit 6)."""

    exit_code = ExitCode.CONNECTION


class LintGateError(SafemigrateError):
    """The lint gate refused the run: an error finding on a pending step (exit 7)."""

    exit_code = ExitCode.LINT_GATE


class InterruptedRunError(SafemigrateError):
    """The run was interrupted by SIGINT or SIGTERM; the current step was cancelled (exit 130)."""

    exit_code = ExitCode.INTERRUPTED
