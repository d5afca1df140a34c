"""One lenient reading of a migration file's SQL: statements, transactions, steps and problems.

read_file splits the text with pglast (PostgreSQL's own parser), keeps the original text of
every statement, reads the ``-- safemigrate:`` comments, and works out which transaction each
statement runs in (its own, an explicit BEGIN/COMMIT block, a group, or autocommit) and which
steps it makes of them as written. Facts only: of a plain statement with a safer form (a plain
CREATE INDEX, a plain constraint statement, an UPDATE marked for batches) it says what it is
(``plain_statements``), and ``planning.safer_forms`` decides under the settings how it runs.
Every reason the file is refused is a FileProblem, and reading goes on after one, so the linter
reports them all; the runner raises the first as a MigrationFileError.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Literal

import pglast
from pglast import parser

from ..core.model import QualifiedName, Statement, Step, StepOptions, TxMode
from ..statements import batches, client_encoding, session_state, transaction_block
from ..statements import parsed as sqlinfo
from ..statements import recipes as rewrites
from ..statements.locks import statement_locks
from ..statements.type_change import TypeChange, recognise_type_change
from .copy_data import blank_copy_data, client_copy_refusal
from .directives import (
    CONTRADICTION,
    OPTION_WORDS,
    AllowComment,
    Directive,
    contradicting,
    invalid_inside,
    read_comments,
)
from .plain_statements import PlainStatement, SaferCandidate, constraint_form
from .positions import line_starts, position
from .scanning import FileProblem, ProblemKind

#: Where a statement runs: its own step, an explicit BEGIN/COMMIT block, a group, or alone in
#: autocommit mode (a statement PostgreSQL refuses in a transaction block).
TransactionContext = Literal["own", "explicit", "group", "autocommit"]


@dataclass(frozen=True)
class Block:
    """An explicit BEGIN/COMMIT block or a ``group-start``/``group-end`` group of a file."""

    #: The block's number in the file (0 for the first), so that blocks compare by identity.
    number: int
    kind: Literal["explicit", "group"]
    #: The line of its BEGIN or group-start.
    line: int


@dataclass
class ParsedStatement:
    """One statement of a file, as written and as the runner sees it."""

    #: pglast's parse tree of the statement.
    node: Any
    #: Character offsets of the statement in the file (``stop`` exclusive).
    start: int
    stop: int
    line: int
    column: int
    #: The runner's view: rewritten text, locks, non-transactional, notes.
    statement: Statement
    context: TransactionContext
    #: The block it is in (context explicit or group), else None.
    block: Block | None
    #: The index of its step in ParsedFile.steps; None when a problem kept it out of any step.
    step: int | None = None
    #: A plain statement with a safer form: what its decision needs (planning.safer_forms).
    candidate: SaferCandidate | None = None

    @property
    def text(self) -> str:
        """The statement's text as written."""
        return self.statement.text


@dataclass(frozen=True)
class ParsedFile:
    """Everything read from one migration file's text; ``problems`` empty when the runner
    accepts it (then ``steps`` are the steps it runs, once ``planning.safer_forms`` has decided
    the safer forms)."""

    path: str
    statements: tuple[ParsedStatement, ...]
    steps: tuple[Step, ...]
    allows: tuple[AllowComment, ...]
    problems: tuple[FileProblem, ...]
    #: False when read without what only the runner reads (see read_file).
    runner_facts: bool = True

    def raise_first(self) -> None:
        """Raise the first problem, the one the runner reports, as a MigrationFileError.

        A client COPY is not one: its step is refused only when it is to run."""
        for problem in self.problems:
            if problem.kind != "client-copy":
                raise problem.error()


def one_line(message: str, limit: int = 200) -> str:
    """``message`` on one line, cut to ``limit`` characters (parse errors quote the input)."""
    flat = " ".join(message.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def split_sql(text: str) -> list[tuple[Any, slice]]:
    """Each statement of ``text``: its parse tree and where it is. Raises pglast's ParseError."""
    raw = pglast.parse_sql(text)
    slices = parser.split(text, only_slices=True)
    if len(raw) != len(slices):  # pragma: no cover - both come from the same parser
        raise pglast.parser.ParseError("statement splitting disagrees with the parser")
    return [(r.stmt, s) for r, s in zip(raw, slices, strict=True)]


def read_file(path: str, text: str, *, runner_facts: bool = True) -> ParsedFile:
    """Read the migration file ``path`` whose SQL is ``text``, collecting every problem.

    Problems come in the order the runner meets them: the SQL does not parse (then nothing
    else is read); bad directive comments; directives inside statements; then, in file order,
    what the statements and directives make of the transactions and steps.

    ``runner_facts`` False (the linter, whose rules read none of them) leaves out what only
    the runner reads of a statement: its locks, its session changes and the index builds'
    definitions (each a deparse and a parse of the statement). The steps, their modes and
    the problems are the same.

    The statements with a safer form are read as written: their candidates say what
    ``planning.safer_forms`` needs to decide how they run.
    """
    starts = line_starts(text)
    nul = text.find("\0")
    if nul >= 0:
        # PostgreSQL's parser reads a C string: it would stop at the NUL and never see the
        # rest of the file (psql sends the whole text).
        line, column = position(starts, nul)
        problem = FileProblem(
            path,
            line,
            "NUL byte in the SQL: the parser would ignore everything after it",
            hint="remove it (a file saved as UTF-16 has one after every character: save it "
            "as UTF-8)",
            column=column,
        )
        return ParsedFile(path, (), (), (), (problem,), runner_facts)
    # The rows after a COPY ... FROM STDIN are data, not SQL: the parser reads blanks there.
    blanked = blank_copy_data(text)
    try:
        split = split_sql(blanked.sql)
        tokens = parser.scan(blanked.sql)
    except pglast.parser.ParseError as err:
        message = err.args[0] if err.args else "syntax error"
        location = err.args[1] if len(err.args) > 1 else None
        # No location means the error is at the end of the input (e.g. an unclosed paren).
        offset = len(text) if location is None else max(0, min(int(location), len(text)))
        copy = _copy_data(path, blanked.sql, starts, offset)
        line, column = position(starts, offset)
        problem = copy or FileProblem(
            path,
            line,
            f"SQL does not parse: {one_line(str(message))}",
            column=column,
            kind="syntax",
        )
        if copy is not None:
            # Nothing parses after it, so no step is known: the file is refused whole.
            problem = dataclasses.replace(copy, kind="file")
        return ParsedFile(path, (), (), (), (problem,), runner_facts)

    directives, allows, directive_problems = read_comments(blanked.sql, tokens, starts)
    problems = [FileProblem(path, p.line, p.message, p.hint) for p in directive_problems]
    statement_starts = [s.start for _, s in split]
    for directive in directives:
        index = bisect_right(statement_starts, directive.offset)
        if directive.valid and index > 0 and split[index - 1][1].stop > directive.offset:
            inside = invalid_inside(directive)
            problems.append(FileProblem(path, inside.line, inside.message))

    walk = _Walk(path, text, starts, problems, runner_facts)
    walk.copy_data = blanked.data
    # Statements and directives in file order (no comment starts where a statement does).
    events: list[tuple[int, Directive | tuple[Any, slice]]] = [(d.offset, d) for d in directives]
    events += [(s.start, (node, s)) for node, s in split]
    events.sort(key=lambda e: e[0])
    for _, event in events:
        if isinstance(event, Directive):
            walk.directive(event)
        else:
            walk.statement(*event)
    walk.finish()
    return ParsedFile(
        path,
        tuple(walk.parsed),
        tuple(walk.steps),
        tuple(allows),
        tuple(walk.problems),
        runner_facts,
    )


def _client_copy_problem(path: str, node: Any, line: int) -> FileProblem | None:
    """The refusal of a COPY that reads from or writes to the client, else None."""
    direction = sqlinfo.client_copy(node)
    return None if direction is None else client_copy_problem(path, direction, line)


def client_copy_problem(path: str, direction: str, line: int) -> FileProblem:
    """The refusal of a COPY at ``line`` whose rows come from the client (``direction``
    ``FROM STDIN``) or go to it (``TO STDOUT``)."""
    message, hint = client_copy_refusal(direction)
    return FileProblem(path, line, message, hint=hint, kind="client-copy")


def _copy_data(path: str, text: str, starts: list[int], offset: int) -> FileProblem | None:
    """The COPY ... FROM STDIN refusal when the text stops parsing right after one (the data
    lines of a pg_dump file), else None."""
    try:
        before = split_sql(text[:offset])
    except pglast.parser.ParseError:
        return None
    if not before:
        return None
    node, span = before[-1]
    return _client_copy_problem(path, node, position(starts, span.start)[0])


#: The step options that batch a statement (see ``batches``).
_BATCH_KEYS = ("batch_size", "batch_pause_ms", "max_replica_lag_ms")


def _inside(mode: TxMode) -> str:
    return "an explicit BEGIN/COMMIT block" if mode is TxMode.EXPLICIT else "a group"


def _options(values: dict[str, Any]) -> StepOptions:
    return StepOptions(**values) if values else StepOptions()


def _as_dict(options: StepOptions) -> dict[str, Any]:
    defaults = StepOptions()
    return {
        k: getattr(options, k)
        for k in (
            "lock_timeout_ms",
            "statement_timeout_ms",
            "max_attempts",
            "no_retry",
            "no_rewrite",
        )
        if getattr(options, k) != getattr(defaults, k)
    }


@dataclass
class _Open:
    """A group or explicit block being collected."""

    mode: TxMode
    block: Block
    options: StepOptions
    members: list[ParsedStatement] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.block.line


@dataclass
class _Walk:
    """The walk over a file's statements and directives in file order.

    A problem is recorded and the walk goes on as the linter reads the file: a misplaced BEGIN,
    COMMIT or group directive is passed over (the statement stays where it is), a statement
    that cannot run in a block stays in it, a bad directive still opens or closes the group it
    names but sets no option.
    """

    path: str
    text: str
    #: The file's line_starts.
    starts: list[int]
    problems: list[FileProblem]
    #: False: leave out what only the runner reads (see parse_file).
    runner_facts: bool = True
    parsed: list[ParsedStatement] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    #: The step options of directives waiting for their statement, and the line of the last.
    pending: dict[str, Any] = field(default_factory=dict)
    pending_line: int = 0
    open: _Open | None = None
    blocks: int = 0
    #: The tables created so far in the file.
    created: set[QualifiedName] = field(default_factory=set)
    #: Where each COPY ... FROM STDIN's data lines are (copy_data.BlankedText.data).
    copy_data: dict[int, slice] = field(default_factory=dict)

    def problem(
        self, line: int | None, message: str, hint: str | None = None, kind: ProblemKind = "file"
    ) -> None:
        self.problems.append(FileProblem(self.path, line, message, hint, kind=kind))

    def emit(self, mode: TxMode, members: list[ParsedStatement], options: StepOptions) -> None:
        for member in members:
            member.step = len(self.steps)
        statements = tuple(m.statement for m in members)
        self.steps.append(Step(len(self.steps), statements, mode, options))

    def start_block(self, mode: TxMode, line: int, options: StepOptions) -> _Open:
        kind: Literal["explicit", "group"] = "explicit" if mode is TxMode.EXPLICIT else "group"
        self.blocks += 1
        self.open = _Open(mode, Block(self.blocks - 1, kind, line), options)
        return self.open

    # Directives.

    def directive(self, directive: Directive) -> None:
        for group in directive.groups:
            if group == "group-start":
                self.group_start(directive)
            else:
                self.group_end(directive)
        if not directive.groups and directive.valid:
            self.step_options(directive)

    def refuse_batch_in_block(self, mode: TxMode, options: dict[str, Any], line: int) -> bool:
        """Record the problem of batch options given to a BEGIN/COMMIT block or a group; True
        when there was one."""
        if not any(key in options for key in _BATCH_KEYS):
            return False
        self.problem(
            line,
            f"batch-size cannot apply to {_inside(mode)}: each batch is its own transaction",
            hint="put the batch-size directive right before an UPDATE or DELETE outside any "
            "BEGIN/COMMIT block or group",
        )
        return True

    def group_start(self, directive: Directive) -> None:
        if self.open is not None:
            if directive.valid:  # an invalid directive has its problem already
                self.problem(directive.line, f"group-start inside {_inside(self.open.mode)}")
            return
        self.refuse_twice(directive, self.pending)
        self.refuse_batch_in_block(TxMode.GROUP, self.pending | directive.options, directive.line)
        self.start_block(TxMode.GROUP, directive.line, _options(self.pending | directive.options))
        self.pending = {}

    def group_end(self, directive: Directive) -> None:
        open_ = self.open
        if open_ is None or open_.mode is not TxMode.GROUP:
            if directive.valid:  # an invalid directive has its problem already
                self.problem(directive.line, "group-end without group-start")
            return
        self.open = None
        if not open_.members:
            if directive.valid:
                self.problem(directive.line, "empty group")
            return
        if self.pending or directive.options:
            self.problem(
                directive.line, "step options must come before the statements they apply to"
            )
        self.emit(TxMode.GROUP, open_.members, open_.options)

    def refuse_twice(self, directive: Directive, given: dict[str, Any]) -> None:
        """The problem of an option of ``directive`` already ``given`` by an earlier line for
        the same step, or contradicting one (no-retry beside max-attempts)."""
        twice = [key for key in directive.options if key in given]
        if twice:
            self.problem(directive.line, f"{OPTION_WORDS[twice[0]]} given twice")
        elif contradicting(given | directive.options):
            self.problem(directive.line, CONTRADICTION)

    def step_options(self, directive: Directive) -> None:
        open_ = self.open
        if open_ is not None and self.refuse_batch_in_block(
            open_.mode, directive.options, directive.line
        ):
            return
        if open_ is not None and open_.members:
            self.problem(
                directive.line,
                f"step options inside {_inside(open_.mode)} must come before its start",
            )
            return
        if open_ is not None:
            # The group-start line's own options count: given again below it, one is lost.
            self.refuse_twice(directive, _as_dict(open_.options))
        else:
            self.refuse_twice(directive, self.pending)
        if open_ is not None:
            open_.options = _options(_as_dict(open_.options) | directive.options)
        else:
            self.pending.update(directive.options)
            self.pending_line = directive.line

    # Statements.

    def statement(self, node: Any, span: slice) -> None:
        line, column = position(self.starts, span.start)
        text = self.text[span]
        statement = Statement(
            text,
            line,
            column,
            type(node).__name__,
            non_transactional=transaction_block.refuses_a_block(node),
            session_changes=session_state.changes_of(node, text) if self.runner_facts else (),
            tree=node,
            client_copy=sqlinfo.client_copy(node),
            copy_data=self.text[self.copy_data.get(span.stop, slice(0, 0))],
        )
        member = ParsedStatement(node, span.start, span.stop, line, column, statement, "own", None)
        self.parsed.append(member)
        copy = _client_copy_problem(self.path, node, line)
        if copy is not None:
            self.problems.append(copy)
        encoding = client_encoding.encoding_change(node, text)
        if encoding is not None:
            message, hint = client_encoding.refusal(encoding)
            self.problems.append(FileProblem(self.path, line, message, hint=hint))
        if not self.transaction_control(member):
            self.ordinary(member)

    def join(self, member: ParsedStatement, open_: _Open) -> None:
        member.context = open_.block.kind
        member.block = open_.block
        open_.members.append(member)

    def transaction_control(self, member: ParsedStatement) -> bool:
        """Handle a BEGIN or COMMIT that opens or closes a block; False for other statements
        (a misplaced BEGIN or COMMIT, after its problem, is then an ordinary statement)."""
        tx = sqlinfo.transaction_kind(member.node)
        line = member.line
        open_ = self.open
        if tx == "begin":
            if open_ is not None:
                self.problem(line, f"BEGIN inside {_inside(open_.mode)}")
                return False
            self.refuse_batch_in_block(TxMode.EXPLICIT, self.pending, self.pending_line)
            self.pending = {k: v for k, v in self.pending.items() if k not in _BATCH_KEYS}
            self.join(member, self.start_block(TxMode.EXPLICIT, line, _options(self.pending)))
            self.pending = {}
            return True
        if tx in ("commit", "commit-and-chain"):
            if open_ is None or open_.mode is not TxMode.EXPLICIT:
                self.problem(line, "COMMIT without a matching BEGIN")
                return False
            if tx == "commit-and-chain":
                self.problem(line, "COMMIT AND CHAIN is not supported")
            self.join(member, open_)
            self.emit(TxMode.EXPLICIT, open_.members, open_.options)
            self.open = None
            return True
        if tx == "rollback":
            self.problem(
                line,
                "ROLLBACK in a migration file is not supported",
                hint="a step that must not apply should not be in the file",
            )
        elif tx == "prepared":
            self.problem(line, "two-phase commit is not supported")
        elif tx == "savepoint" and open_ is None:
            self.problem(line, "SAVEPOINT outside a BEGIN/COMMIT block or group")
        return False

    def ordinary(self, member: ParsedStatement) -> None:
        node = member.node
        statement = member.statement
        kind = statement.kind
        if kind == "IndexStmt" and not node.concurrent:
            member.candidate = self.plain_index(node)
        elif kind == "AlterTableStmt":
            member.candidate = self.plain_constraint(statement, node)
        elif statement.non_transactional and kind == "IndexStmt" and self.runner_facts:
            statement = dataclasses.replace(statement, index_build=sqlinfo.index_build(node))
        elif statement.non_transactional and kind == "DropStmt":
            statement = dataclasses.replace(statement, index_drop=sqlinfo.index_drop(node))
        table = sqlinfo.created_table(node)
        if table is not None:
            self.created.add(table)
        if self.runner_facts:
            statement = self.with_locks(statement, node)
        member.statement = statement

        open_ = self.open
        if open_ is not None:
            if statement.non_transactional:
                self.problem(
                    member.line,
                    f"{statement.summary!r} cannot run inside a transaction block "
                    f"({_inside(open_.mode)} started at line {open_.line})",
                    hint="move it out of the BEGIN/COMMIT block or group into its own step",
                    kind="non-transactional-in-block",
                )
            self.join(member, open_)
            return
        if any(key in self.pending for key in _BATCH_KEYS):
            self.batched(member)
        if statement.non_transactional:
            member.context = "autocommit"
            self.emit(TxMode.AUTOCOMMIT, [member], _options(self.pending))
        else:
            self.emit(TxMode.OWN, [member], _options(self.pending))
        self.pending = {}

    def with_locks(self, statement: Statement, node: Any) -> Statement:
        """``statement`` with the locks of its text as written (a safer form's are decided
        with it, in planning.safer_forms)."""
        locks, catalog_locks = statement_locks(node)
        return dataclasses.replace(
            statement, locks=tuple(locks), catalog_locks=tuple(catalog_locks)
        )

    def batched(self, member: ParsedStatement) -> None:
        """The statement marked ``batch-size=N``: a refusal is a problem, else its batch
        target is its candidate (policy decides whether it runs in batches)."""
        line = self.pending_line
        if "batch_size" not in self.pending:
            self.problem(line, "batch-pause and max-replica-lag apply only with batch-size=N")
            return
        candidate = member.candidate
        if candidate is not None and candidate.kind == "type_change":
            # The online type change's backfill runs in these batches.
            return
        refusal = batches.batch_refusal(member.node)
        if refusal is not None:
            self.problem(member.line, f"batch-size: {refusal}")
            return
        target = batches.batch_target(member.node)
        member.candidate = SaferCandidate(
            "batch", self.plain("batch", target.table), batch=target, problem_at=len(self.problems)
        )

    def opted_out(self) -> bool:
        """True when a ``-- safemigrate: no-rewrite`` directive precedes the statement."""
        open_ = self.open
        if open_ is not None and open_.options.no_rewrite:
            return True
        return bool(self.pending.get("no_rewrite"))

    def plain(self, form: str, table: QualifiedName) -> PlainStatement:
        """What the runner's policy decides a plain statement's form on."""
        open_ = self.open
        return PlainStatement(
            form,
            table,
            created_here=any(_same_table(table, c) for c in self.created),
            opted_out=self.opted_out(),
            inside=_inside(open_.mode) if open_ is not None else None,
        )

    def plain_constraint(self, statement: Statement, node: Any) -> SaferCandidate | None:
        """The candidate of a plain constraint statement (a recipe, or why it has none)."""
        found = rewrites.recognise(node, statement.text)
        if found is None:
            change = recognise_type_change(node, statement.text)
            if not isinstance(change, TypeChange):
                # No type change, or a form the online recipe does not take: as written.
                return None
            plain = self.plain("ALTER COLUMN TYPE", change.table)
            return SaferCandidate(
                "type_change", plain, type_change=change, problem_at=len(self.problems)
            )
        form = constraint_form(found) if not isinstance(found, str) else "constraint"
        plain = self.plain(form, sqlinfo.qualified(node.relation))
        return SaferCandidate("constraint", plain, recipe=found, problem_at=len(self.problems))

    def plain_index(self, node: Any) -> SaferCandidate:
        """The candidate of a plain CREATE INDEX (CONCURRENTLY)."""
        plain = self.plain("CREATE INDEX", sqlinfo.qualified(node.relation))
        return SaferCandidate("index", plain, problem_at=len(self.problems))

    def finish(self) -> None:
        open_ = self.open
        if open_ is not None:
            what = "BEGIN" if open_.mode is TxMode.EXPLICIT else "group-start"
            closer = "COMMIT" if open_.mode is TxMode.EXPLICIT else "group-end"
            self.problem(open_.line, f"{what} has no matching {closer}")
        if self.pending:
            self.problem(self.pending_line, "directive applies to no statement")
        if not self.parsed and not self.steps:
            # A file with only comments (a placeholder, a new file before its SQL) is an empty
            # migration: one step without statements, recorded as applied.
            self.steps.append(Step(0, (), TxMode.OWN))


def _same_table(a: QualifiedName, b: QualifiedName) -> bool:
    # An unqualified name resolves through the default search_path, i.e. to public.
    return a.name == b.name and (a.schema or "public") == (b.schema or "public")
