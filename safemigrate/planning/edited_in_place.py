"""An applied step edited in its place, statement by statement against the text it ran with:
the statements added inside it, which never ran (issue 21, review21f F1). Pure, no I/O.

The journal keeps one checksum per applied step, of its statements in order. When that
checksum is the checksum of some of the statements the edited step now sends, with others
left out, those others were added inside the step (a group or a BEGIN/COMMIT block wrapped
around the applied statement with a new one in it, a step merged with a new statement, a
DO block whose body runs the applied statement and more): accepting the current text would
record them as applied while up never runs them. A DO block counts as the statements its body
runs (as far as they are written in it: ``lint.plpgsql.do_block_sql``). Only a BEGIN and
COMMIT added around the applied text change nothing that runs.

What the checksum cannot show: a statement added together with an edit of an applied one in
the same step (no selection of the statements has the recorded checksum then), and a
statement removed. Those stay ``--accept-edited``'s judgement, the operator's word that the
edit changes nothing that ran.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from ..core import checksums
from ..core.model import Statement, Step, TxMode, summarize
from ..lint.plpgsql import do_block_sql

#: Past this many statements (a DO block's body counted) an edited step is not searched: the
#: selections tried grow with its cube, and an applied step is refused instead.
MAX_STATEMENTS = 60
#: Up to this many statements every selection is tried; past it, the runs of consecutive
#: statements kept or left out, and any one or two statements left out.
_EVERY_SELECTION = 12

#: How to go on when SQL was added inside an applied step.
HINT = (
    "move the added SQL into a new migration (`safemigrate new NAME`) and restore the applied "
    "step as it ran"
)


@dataclass(frozen=True)
class Sent:
    """One statement the edited step sends: a statement of the file, or one its DO block's
    body runs."""

    #: The statement of the file it is, or is in.
    statement: Statement
    #: Its text.
    text: str
    #: What each kind of checksum digests of it (``checksums.statement_units``).
    units: tuple[str, str, str, str]
    in_do_block: bool = False


def _sent(step: Step, *, bodies: bool) -> list[Sent]:
    """What ``step`` sends, statement by statement; with ``bodies``, a DO block as the
    statements its body runs (as itself when none can be read)."""
    out: list[Sent] = []
    for statement in step.statements:
        body = do_block_sql(statement.text) if bodies and statement.kind == "DoStmt" else []
        if not body:
            units = checksums.statement_units(statement.text, statement.copy_data)
            out.append(Sent(statement, statement.text, units))
        for text in body:
            out.append(Sent(statement, text, checksums.statement_units(text), in_do_block=True))
    return out


def _selections(count: int) -> Iterator[tuple[int, ...]]:
    """Indexes of proper, non-empty selections of ``count`` statements, in order, fewest left
    out first (every one up to ``_EVERY_SELECTION``, else the likely shapes of an insert)."""
    everything = range(count)
    if count <= _EVERY_SELECTION:
        for out in range(1, count):
            for left in combinations(everything, out):
                yield tuple(i for i in everything if i not in left)
        return
    for left_out in (1, 2):
        for left in combinations(everything, left_out):
            yield tuple(i for i in everything if i not in left)
    for start in range(count):
        for end in range(start + 1, count + 1):
            if end - start < count:
                yield tuple(range(start, end))  # kept: added before and after it
                yield tuple(i for i in everything if not start <= i < end)  # added in a run


def _kept(checksum: str, sent: Sequence[Sent]) -> tuple[int, ...] | None:
    """The indexes of the statements whose checksum together is ``checksum``, when that is a
    proper selection of ``sent``; None when there is none."""
    for kept in _selections(len(sent)):
        for kind in range(4):
            if checksums.digest(sent[i].units[kind] for i in kept) == checksum:
                return kept
    return None


def _wrapper(step: Step, added: Sequence[Sent]) -> bool:
    """True when all that was added is the BEGIN and COMMIT of an explicit block."""
    ends = (step.statements[0], step.statements[-1])
    return step.mode is TxMode.EXPLICIT and all(s.statement in ends for s in added)


def added_inside(checksum: str, step: Step) -> tuple[Sent, ...] | None:
    """The statements ``step`` sends that its recorded text (``checksum``) does not hold,
    when that text is the text of the others; None when it is not (or only a BEGIN/COMMIT was
    added). ValueError past :data:`MAX_STATEMENTS`."""
    statements = step.statements
    if checksum == checksums.EMPTY or not statements:
        return None
    if len(statements) == 1 and statements[0].kind != "DoStmt":
        return None
    for bodies in (False, True):
        sent = _sent(step, bodies=bodies)
        if bodies and len(sent) == len(step.statements):
            return None  # no DO block with statements to read
        if len(sent) > MAX_STATEMENTS:
            raise ValueError(len(sent))
        if len(sent) < 2:
            continue
        kept = _kept(checksum, sent)
        if kept is not None:
            added = tuple(s for i, s in enumerate(sent) if i not in kept)
            return None if _wrapper(step, added) else added
    return None


def added_problem(filename: str, step: Step, checksum: str) -> str | None:
    """What is wrong with ``step`` of ``filename``, applied with ``checksum``, when SQL was
    added inside it (or it is too long to tell): ``0002_x.sql step 1 (line 1): applied, but
    SQL was added inside it: line 3 `CREATE TABLE log (id int)` never ran``; None when not."""
    where = f"{filename} step {step.index + 1} (line {step.line})"
    try:
        added = added_inside(checksum, step)
    except ValueError as count:
        return (
            f"{where}: applied, but its text has changed and it sends {count} statements, more "
            f"than the {MAX_STATEMENTS} repair compares with what ran: SQL added inside it "
            "cannot be ruled out"
        )
    if not added:
        return None
    # A block's BEGIN and COMMIT added around the new SQL are not worth naming.
    shown = [s for s in added if not _wrapper(step, [s])] or list(added)
    first = shown[0]
    inside = " (in its DO block)" if first.in_do_block else ""
    more = f" (and {len(shown) - 1} more)" if len(shown) > 1 else ""
    return (
        f"{where}: applied, but SQL was added inside it: line {first.statement.line}{inside} "
        f"`{summarize(first.text)}`{more} never ran; the applied text is still there"
    )
