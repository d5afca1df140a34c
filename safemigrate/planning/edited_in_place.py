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

Rows written since the journal records the statements each step ran (issue 21) are compared
with those instead (:func:`compare`): one by one, by checksum, with no bound and whatever
their order, so that a statement beyond what ran is told apart from an edit of one that ran,
a removed one and a reordering. The step checksum search above is for the rows written before.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from ..core import checksums
from ..core.model import Statement, Step, TxMode, summarize
from ..lint.plpgsql import do_block_sql

#: Past this many statements (a DO block's body counted) an edited step whose row has only its
#: step checksum is not searched: the selections tried grow with its cube, and the step is
#: refused instead (a row with its statements recorded has no bound: :func:`compare`).
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
    #: What each kind of checksum digests of it (``checksums.statement_units``), for the
    #: search of a recorded step checksum; empty where statements are compared by their own
    #: checksums (:func:`compare`), which need no units.
    units: tuple[str, ...] = ()
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


# What the journal records of each statement since issue 21: an edited step compared with the
# statements that ran, one by one, whatever their order and however many.

#: How a block's BEGIN and COMMIT are most often spelt: removed (a block made a group), they
#: are not counted among the statements that ran and are gone.
_BLOCK_ENDS = frozenset(
    checksums.token_checksum([text])
    for text in ("BEGIN", "COMMIT", "begin", "commit", "START TRANSACTION", "END")
)


@dataclass(frozen=True)
class Ran:
    """One applied step's current statements against the statements it ran (its row's
    recorded ones, and those of the migration's other applied steps that were changed)."""

    #: What it sends now beyond what ran: more statements than ran at their place, which
    #: never ran (SQL added inside it).
    added: tuple[Sent, ...] = ()
    #: What it sends now in the place of a statement that ran (its 1-based position among
    #: the statements that ran): an edit of that statement, the operator's to vouch for.
    edited: tuple[tuple[Sent, int], ...] = ()
    #: 1-based positions, among the statements it ran, of those it no longer has, none in
    #: their place (they ran: the database keeps their effect).
    removed: tuple[int, ...] = ()
    #: How many statements it ran (a block's BEGIN and COMMIT not counted).
    count: int = 0
    #: The statements it kept are the ones it ran, in another order.
    reordered: bool = False
    #: What it sends now that ran as another applied step that was changed too (steps
    #: grouped into one, a gone file's merged in): each with that step (``step 2``,
    #: ``0003_y.sql step 1``).
    moved_in: tuple[tuple[Sent, str], ...] = ()

    def detail(self) -> str:
        """What changed besides SQL added, for people: ``line 4 `...` is an edit of statement
        2 of the 3 it ran; ...``; empty when nothing is worth naming."""
        parts: list[str] = []
        if self.reordered:
            parts.append("the statements that ran are all there, in another order")
        for sent, step in self.moved_in[:1]:
            more = f" (and {len(self.moved_in) - 1} more)" if len(self.moved_in) > 1 else ""
            parts.append(f"line {sent.statement.line} `{summarize(sent.text)}`{more} ran as {step}")
        for sent, position in self.edited[:1]:
            more = f" (and {len(self.edited) - 1} more)" if len(self.edited) > 1 else ""
            parts.append(
                f"line {sent.statement.line} `{summarize(sent.text)}`{more} is not statement "
                f"{position} of the {self.count} it ran as it ran"
            )
        if self.removed:
            which = ", ".join(str(i) for i in self.removed)
            noun = "statement" if len(self.removed) == 1 else "statements"
            verb = "is" if len(self.removed) == 1 else "are"
            parts.append(
                f"{noun} {which} of the {self.count} it ran {verb} no longer in it (it ran: "
                "the database keeps its effect)"
            )
        return "; ".join(parts)


#: A journal row's place: (version, 0-based step).
Key = tuple[int, int]


@dataclass(frozen=True)
class Compared:
    """Changed applied rows against the statements they ran, by (version, step)."""

    #: Each changed applied row whose step is still in its file: what the step sends against
    #: what ran.
    ran: dict[Key, Ran]
    #: Each changed applied row: the steps now holding statements it ran (grouped into another
    #: step, merged into another file), as ``step 1`` in its own file, else
    #: ``0002_x.sql step 1``.
    moved_out: dict[Key, tuple[str, ...]]
    #: Each changed applied row: the checksums of the statements it ran that no step compared
    #: holds now as they ran (removed, edited, or moved to a step that would run, where ``up``
    #: would run them again: searched there even when an edit stands in their place).
    unplaced: dict[Key, tuple[str, ...]]
    #: Every row compared.
    rows: frozenset[Key] = frozenset()


def _kept_statements(step: Step) -> list[tuple[Statement, str]]:
    """The statements of ``step`` with their checksums, a block's own BEGIN and COMMIT left
    out (added or removed alone they change nothing)."""
    pairs = list(zip(step.statements, step.statement_checksums, strict=True))
    if step.mode is TxMode.EXPLICIT and len(pairs) >= 2:
        pairs = pairs[1:-1]
    return pairs


@dataclass
class _Item:
    """One statement a changed step sends now, and what ran of it."""

    sent: Sent
    checksum: str
    #: Its 1-based position among the statements its own row ran, when it is one of them.
    own: int | None = None
    #: The other row it ran as, when it ran there.
    other: Key | None = None


class _Recorded:
    """The statements each changed row ran, each consumed once by a statement sent now."""

    def __init__(self, rows: dict[Key, tuple[str, ...]]):
        self.counts: dict[Key, int] = {}
        self.left: dict[Key, dict[str, list[int]]] = {}
        self.kept: dict[Key, list[str]] = {}
        for key, recorded in rows.items():
            kept = [c for c in recorded if c not in _BLOCK_ENDS]
            self.counts[key] = len(kept)
            self.kept[key] = kept
            mine: dict[str, list[int]] = {}
            for position, checksum in enumerate(kept, start=1):
                mine.setdefault(checksum, []).append(position)
            self.left[key] = mine
        #: The rows that ran each checksum, in order.
        self.holders: dict[str, list[Key]] = {}
        for key in sorted(self.left):
            for checksum in self.left[key]:
                self.holders.setdefault(checksum, []).append(key)

    def take(self, key: Key, checksum: str) -> int | None:
        """One statement row ``key`` ran with ``checksum``, consumed: its position."""
        found = self.left[key].get(checksum)
        return found.pop(0) if found else None

    def take_elsewhere(self, key: Key, checksum: str) -> Key | None:
        """The first other row that ran ``checksum`` (of the same file first), that statement
        consumed."""
        others = sorted(self.holders.get(checksum, ()), key=lambda k: (k[0] != key[0], k))
        for other in others:
            if other != key and self.take(other, checksum) is not None:
                return other
        return None

    def positions_left(self, key: Key) -> list[int]:
        return sorted(p for found in self.left[key].values() for p in found)

    def take_position(self, key: Key, position: int) -> None:
        """Consume the statement at ``position`` of row ``key`` (one left, not taken yet)."""
        self.left[key][self.kept[key][position - 1]].remove(position)


def _items(step: Step, key: Key, recorded: _Recorded) -> list[_Item]:
    """What ``step`` (the place of changed row ``key``) sends, each matched with what ran:
    its own row's statements first; then (for those left) the other rows'; a DO block that did
    not run as such as the statements its body runs, when they can be read."""
    items: list[_Item] = []
    for statement, checksum in _kept_statements(step):
        sent = Sent(statement, statement.text)
        items.append(_Item(sent, checksum, own=recorded.take(key, checksum)))
    out: list[_Item] = []
    for item in items:
        if item.own is not None:
            out.append(item)
            continue
        item.other = recorded.take_elsewhere(key, item.checksum)
        statement = item.sent.statement
        body = do_block_sql(statement.text) if statement.kind == "DoStmt" else []
        if item.other is not None or not body:
            out.append(item)
            continue
        for text in body:
            inner = checksums.token_checksum([text])
            sent = Sent(statement, text, in_do_block=True)
            found = _Item(sent, inner, own=recorded.take(key, inner))
            if found.own is None:
                found.other = recorded.take_elsewhere(key, inner)
            out.append(found)
    return out


def _paired(
    items: list[_Item], left: list[int], count: int
) -> tuple[list[Sent], list[tuple[Sent, int]], list[int]]:
    """The statements sent now that ran nowhere against the positions of the row's own
    statements no statement sent now is: paired by place (an unmatched statement between two
    that ran stands for an unmatched one that ran between them: an edit), the rest added
    (sent now, beyond what ran there) or removed (ran, nothing in their place)."""
    anchors = [i.own for i in items if i.own is not None]
    lone = [i for i in items if i.own is None and i.other is None]
    added: list[Sent] = []
    edited: list[tuple[Sent, int]] = []
    if anchors != sorted(anchors):
        # Reordered: no place to go by; pair them in order.
        for item, position in zip(lone, left, strict=False):
            edited.append((item.sent, position))
        added = [i.sent for i in lone[len(left) :]]
        return added, edited, left[len(lone) :]
    removed: list[int] = []
    before = 0
    run: list[_Item] = []

    def close(after: int) -> None:
        # ``left`` is sorted: the positions between the two that ran around the run.
        gap = left[bisect_right(left, before) : bisect_left(left, after)]
        edited.extend((item.sent, position) for item, position in zip(run, gap, strict=False))
        added.extend(item.sent for item in run[len(gap) :])
        removed.extend(gap[len(run) :])
        run.clear()

    for item in items:
        if item.own is not None:
            close(item.own)
            before = item.own
        elif item.other is None:
            run.append(item)
    close(count + 1)
    return added, edited, removed


def compare(
    rows: dict[Key, tuple[str, ...]],
    steps: Mapping[int, Sequence[Step]],
    files: Mapping[int, str] | None = None,
) -> Compared:
    """Changed applied rows ((version, 0-based step) -> the checksums of the statements each
    ran) against the current ``steps`` of each version (none for a file gone): which
    statements of each step ran there, ran as another of these rows (of its own file first),
    stand in the place of one that ran (an edit), or are beyond what ran (added: they never
    ran); which statements that ran no step holds. ``files``: each version's file name, to
    name a step of another file. No bound on the statements compared: each is looked up by
    its checksum."""
    recorded = _Recorded(rows)
    places = [k for k in sorted(rows) if k[1] < len(steps.get(k[0], ()))]
    items = {key: _items(steps[key[0]][key[1]], key, recorded) for key in places}

    def label(key: Key, of: Key) -> str:
        """``key``'s step as seen from row ``of``'s file."""
        if key[0] == of[0] or files is None or key[0] not in files:
            return f"step {key[1] + 1}"
        return f"{files[key[0]]} step {key[1] + 1}"

    moved_out: dict[Key, list[str]] = {}
    ran: dict[Key, Ran] = {}
    for key in places:
        for item in items[key]:
            if item.other is not None:
                found = moved_out.setdefault(item.other, [])
                if label(key, item.other) not in found:
                    found.append(label(key, item.other))
    # What ran that is not there now as it ran: removed, moved, or with another statement in
    # its place. Taken before the edits are paired, so that a statement that ran and now
    # stands in a step that would run is found there even when something else took its place
    # (review21i E10: a block's tail moved to a new file and a statement added in its stead).
    unplaced = {
        key: tuple(c for c, found in recorded.left[key].items() for _ in found) for key in rows
    }
    for key in places:
        mine = items[key]
        count = recorded.counts[key]
        added, edited, removed = _paired(mine, recorded.positions_left(key), count)
        for _, position in edited:
            recorded.take_position(key, position)
        anchors = [i.own for i in mine if i.own is not None]
        ran[key] = Ran(
            added=tuple(added),
            edited=tuple(edited),
            removed=tuple(removed),
            count=count,
            reordered=anchors != sorted(anchors),
            moved_in=tuple((i.sent, label(i.other, key)) for i in mine if i.other is not None),
        )
    return Compared(
        ran,
        {k: tuple(v) for k, v in moved_out.items()},
        {k: u for k, u in unplaced.items() if u},
        frozenset(rows),
    )


def added_statements_problem(filename: str, step: Step, ran: Ran) -> str:
    """``0002_x.sql step 1 (line 1): applied, but SQL was added inside it: line 3 `CREATE
    TABLE log (id int)` never ran``, with what else changed."""
    where = f"{filename} step {step.index + 1} (line {step.line})"
    first = ran.added[0]
    inside = " (in its DO block)" if first.in_do_block else ""
    more = f" (and {len(ran.added) - 1} more)" if len(ran.added) > 1 else ""
    rest = ran.detail()
    return (
        f"{where}: applied, but SQL was added inside it: line {first.statement.line}{inside} "
        f"`{summarize(first.text)}`{more} never ran" + (f"; {rest}" if rest else "")
    )
