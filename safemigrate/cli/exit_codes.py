"""Exit codes: what each one means in the ``--help`` epilogs, and the one mapping from how a
command ended (an error it raised, a code it returned) to the process's exit code and the line
said about it. Commands return or raise; only the group exits (``group.CommandGroup``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from ..core.errors import ExitCode, SafemigrateError

#: What each exit code means, for the ``--help`` epilogs: ExitCode's own text, the one the
#: docs' tables start from.
CODE_TEXT: dict[int, str] = {int(code): code.meaning for code in ExitCode}


def exit_codes_epilog(meanings: dict[int, str]) -> str:
    """An ``Exit codes:`` epilog listing only the codes of ``meanings``, in its order; an empty
    meaning takes the usual text of the code."""
    lines = ["\b", "Exit codes:"]
    for code, meaning in meanings.items():
        lines.append(f"{code:>3}  {meaning or CODE_TEXT[code]}")
    return "\n".join(lines)


#: Every code, for ``safemigrate --help``.
EXIT_CODES = exit_codes_epilog(dict.fromkeys(CODE_TEXT, ""))
UP_EXIT_CODES = exit_codes_epilog(
    {
        **dict.fromkeys(CODE_TEXT, ""),
        1: "a step failed with an SQL error, or needs session state a new session lost",
        2: "bad input: migration file, configuration, flag or DSN; a step released the run lock",
        3: "the run lock is held by another run, or this run lost it, or another live session "
        "is building an invalid index the step would drop",
        6: "the database could not be reached, or the connection was lost (for longer than "
        "reconnect_timeout, or max_attempts times while one step ran) or is unsafe",
    }
)
STATUS_EXIT_CODES = exit_codes_epilog(
    {
        0: "",
        1: "--exit-code: some migration is pending or partial",
        2: "",
        5: "",
        6: "",
        130: "interrupted (Ctrl-C)",
    }
)
NEW_EXIT_CODES = exit_codes_epilog(
    {
        0: "",
        2: "bad input: migration name or configuration, or the file already exists",
        130: "interrupted (Ctrl-C)",
    }
)
BASELINE_EXIT_CODES = exit_codes_epilog(
    {
        0: "",
        1: "writing the journal failed with an SQL error",
        2: "bad input: unknown version, migration file, configuration or DSN",
        3: "",
        5: "",
        6: "",
        130: "interrupted (Ctrl-C)",
    }
)
ABANDON_EXIT_CODES = exit_codes_epilog(
    {
        0: "the interrupted online type change was removed",
        1: "removing it failed with an SQL error",
        2: "bad input: unknown version, no interrupted online type change in it, migration "
        "file, configuration or DSN",
        3: "",
        5: "",
        6: "",
        130: "interrupted (Ctrl-C)",
    }
)
ADOPT_EXIT_CODES = exit_codes_epilog(
    {
        0: "recorded, or nothing to adopt",
        1: "writing the journal failed with an SQL error",
        2: "bad input: the other tool's history records a failed or dirty migration; migration "
        "file, configuration or DSN",
        3: "",
        5: "a file changed since the other tool applied it (its checksum differs), or one it "
        "applied is gone (restore it, or forget it with `safemigrate repair`), or it ran one "
        "the journal holds as partially applied",
        6: "",
        130: "interrupted (Ctrl-C)",
    }
)
PLAN_EXIT_CODES = exit_codes_epilog(
    {
        0: "the plan was shown (also when the lint gate would refuse: it says so)",
        2: "bad input: migration file, configuration or flag; with --dsn, out-of-order "
        "migrations or the DSN",
        5: "with --dsn: drift",
        6: "with --dsn: the database could not be reached",
        130: "interrupted (Ctrl-C)",
    }
)
CHECK_EXIT_CODES = exit_codes_epilog(
    {
        0: "no error finding",
        1: "an error-severity finding is not suppressed",
        2: "bad input: a file cannot be read, parsed or named as the runner requires",
        130: "interrupted (Ctrl-C)",
    }
)
REPAIR_EXIT_CODES = exit_codes_epilog(
    {
        0: "repaired, or nothing to repair (--dry-run: shown, nothing changed)",
        1: "writing the journal or the repair log failed with an SQL error",
        2: "bad input: migration file, configuration, DSN; an ambiguous rename or an empty "
        "directory; drift repair refuses (SQL inserted among applied steps; an applied text "
        "now in a step that would run; an edited step without --accept-edited; an edited "
        "started batch without --forget-batches)",
        3: "",
        6: "",
        130: "interrupted (Ctrl-C)",
    }
)
REHEARSE_EXIT_CODES = exit_codes_epilog(
    {
        0: "every migration applied, and a second run applied nothing",
        1: "a step failed, a second run applied steps, or the server could not be started",
        2: "",
        4: "",
        6: "the throwaway server could not be reached",
        7: "",
        130: "",
    }
)


@dataclass(frozen=True)
class ExitStatus:
    """How the process ends: its exit code, and the one line said about it on stderr (none
    when the output already says it all)."""

    code: int
    message: str | None = None


#: What a command returns: nothing (it succeeded), its exit code, or an exit code with its line.
Returned: TypeAlias = ExitStatus | int | None

#: The line said on stderr when Ctrl-C or SIGTERM ends a command.
INTERRUPTED = "interrupted"


def exit_status(outcome: Returned | SafemigrateError | KeyboardInterrupt) -> ExitStatus:
    """The exit code and line of a command that returned ``outcome`` or raised it.

    A typed error exits with its ``ExitCode`` and says its message; Ctrl-C (and SIGTERM, which
    the commands that write turn into it) exits 130.
    """
    if isinstance(outcome, ExitStatus):
        return outcome
    if isinstance(outcome, SafemigrateError):
        return ExitStatus(int(outcome.exit_code), f"error: {outcome.message}")
    if isinstance(outcome, KeyboardInterrupt):
        return ExitStatus(int(ExitCode.INTERRUPTED), INTERRUPTED)
    return ExitStatus(int(outcome or ExitCode.OK))
