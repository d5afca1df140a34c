"""Reading a migration directory: file names, versions, statements, directives and steps.

Statements are split and recognised with pglast (PostgreSQL's own parser); the original text of
every statement is kept. Every problem is a MigrationFileError naming the file and line.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pglast
from pglast import parser

from . import statements as sqlinfo
from .durations import parse_duration
from .errors import ConfigError, MigrationFileError
from .locks import lock_needs
from .model import Migration, QualifiedName, Statement, Step, StepOptions, TxMode

ConcurrentIndexes = Literal["rewrite", "require", "off"]

# File names are not SQL; a pattern is the right tool for them (SQL itself only goes to pglast).
FILENAME_PATTERN = re.compile(r"^(?P<version>[0-9]+)_(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)\.sql$")
#: The comment prefix of a directive.
DIRECTIVE_PREFIX = "safemigrate:"
#: The most digits a version may have: it is stored as a PostgreSQL bigint.
MAX_VERSION_DIGITS = 18


@dataclass(frozen=True)
class MigrationFile:
    """A migration file found in the directory, before its SQL is read."""

    version: int
    version_text: str
    name: str
    path: Path


def discover(directory: Path) -> list[MigrationFile]:
    """The migration files of ``directory``, ordered by version.

    Files not ending in ``.sql`` and hidden files are ignored; a ``.sql`` file whose name does not
    match ``<version>_<name>.sql`` and two files with the same version are errors.
    """
    if not directory.is_dir():
        raise MigrationFileError(str(directory), "migrations directory does not exist")
    found: dict[int, MigrationFile] = {}
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or path.suffix.lower() != ".sql" or path.is_dir():
            continue
        match = FILENAME_PATTERN.match(path.name)
        if match is None:
            raise MigrationFileError(
                str(path),
                "file name does not match <version>_<name>.sql",
                hint="version is digits (0001 or 20261129120000); name is letters, digits, _ . -",
            )
        version_text = match["version"]
        if len(version_text.lstrip("0")) > MAX_VERSION_DIGITS:
            raise MigrationFileError(
                str(path), f"version has more than {MAX_VERSION_DIGITS} significant digits"
            )
        version = int(version_text)
        if version in found:
            raise MigrationFileError(
                str(path), f"duplicate version {version}: also used by {found[version].path.name}"
            )
        found[version] = MigrationFile(version, version_text, match["name"], path)
    return [found[v] for v in sorted(found)]


def load_migrations(
    directory: Path, *, concurrent_indexes: ConcurrentIndexes = "rewrite"
) -> list[Migration]:
    """Discover and parse every migration in ``directory``, ordered by version."""
    return [parse_migration(f, concurrent_indexes=concurrent_indexes) for f in discover(directory)]


def read_sql(path: Path) -> str:
    """The text of a migration file; not UTF-8 is an error naming the line."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise MigrationFileError(str(path), f"cannot read: {err.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise MigrationFileError(
            str(path), f"not UTF-8 (byte 0x{data[err.start]:02x})", line=line
        ) from None
    return text.removeprefix("\ufeff")


def parse_migration(
    file: MigrationFile, *, concurrent_indexes: ConcurrentIndexes = "rewrite"
) -> Migration:
    """Parse one migration file into steps."""
    text = read_sql(file.path)
    steps = build_steps(str(file.path), text, concurrent_indexes=concurrent_indexes)
    return Migration(file.version, file.version_text, file.name, file.path, tuple(steps))


def one_line(message: str, limit: int = 200) -> str:
    """``message`` on one line, cut to ``limit`` characters (parse errors quote the input)."""
    flat = " ".join(message.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of character ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


@dataclass
class _Directive:
    offset: int
    line: int
    group: Literal["start", "end"] | None = None
    options: dict[str, Any] = field(default_factory=dict)


def parse_directive(path: str, line: int, body: str) -> _Directive:
    """Parse the words after ``-- safemigrate:``."""
    directive = _Directive(offset=0, line=line)
    words = body.split()
    if not words:
        raise MigrationFileError(path, "empty safemigrate directive", line=line)
    for word in words:
        key, has_value, value = word.partition("=")
        where = f"{path}:{line}: directive {key}"
        try:
            if key in ("group-start", "group-end") and not has_value:
                if directive.group is not None:
                    raise MigrationFileError(path, "one group directive per line", line=line)
                directive.group = "start" if key == "group-start" else "end"
            elif key == "no-retry" and not has_value:
                directive.options["no_retry"] = True
            elif key in ("lock-timeout", "statement-timeout") and has_value:
                ms = parse_duration(value, key=where)
                if key == "lock-timeout" and ms == 0:
                    raise MigrationFileError(
                        path,
                        "lock-timeout=0 would wait forever; the runner always keeps a lock timeout",
                        line=line,
                    )
                directive.options[key.replace("-", "_") + "_ms"] = ms
            elif key == "max-attempts" and has_value:
                if (
                    not (value.isascii() and value.isdigit())
                    or len(value) > 4
                    or not 1 <= int(value) <= 1000
                ):
                    raise MigrationFileError(
                        path,
                        f"max-attempts must be a whole number from 1 to 1000, got {value!r}",
                        line=line,
                    )
                directive.options["max_attempts"] = int(value)
            else:
                raise MigrationFileError(
                    path,
                    f"unknown safemigrate directive {word!r}",
                    line=line,
                    hint="known: group-start, group-end, no-retry, lock-timeout=DUR, "
                    "statement-timeout=DUR, max-attempts=N, allow RULE -- reason",
                )
        except ConfigError as err:
            message = err.message.removeprefix(f"{path}:{line}: ")
            raise MigrationFileError(path, message, line=line) from None
    return directive


def find_directives(path: str, text: str, tokens: Iterable[Any]) -> list[_Directive]:
    """Every ``-- safemigrate:`` comment of the file, in order."""
    found = []
    for token in tokens:
        if token.name != "SQL_COMMENT":
            continue
        body = text[token.start : token.end + 1][2:].strip()
        if not body.startswith(DIRECTIVE_PREFIX):
            continue
        words = body[len(DIRECTIVE_PREFIX) :].split(None, 1)
        if words and words[0] == "allow":
            continue  # `-- safemigrate: allow RULE -- reason`: read by `safemigrate check`
        line, column = line_col(text, token.start)
        if text[token.start - column + 1 : token.start].strip():
            raise MigrationFileError(
                path,
                "a safemigrate directive must be on its own line before a statement",
                line=line,
            )
        directive = parse_directive(path, line, body[len(DIRECTIVE_PREFIX) :])
        directive.offset = token.start
        found.append(directive)
    return found


def _inside(mode: TxMode) -> str:
    return "an explicit BEGIN/COMMIT block" if mode is TxMode.EXPLICIT else "a group"


@dataclass
class _Open:
    """A group or explicit block being collected."""

    mode: TxMode
    line: int
    options: StepOptions
    statements: list[Statement] = field(default_factory=list)


def _options(values: dict[str, Any]) -> StepOptions:
    return StepOptions(**values) if values else StepOptions()


def build_steps(
    path: str, text: str, *, concurrent_indexes: ConcurrentIndexes = "rewrite"
) -> list[Step]:
    """Split ``text`` into statements with pglast and group them into steps."""
    try:
        raw = pglast.parse_sql(text)
        slices = parser.split(text, only_slices=True)
        tokens = parser.scan(text)
    except pglast.parser.ParseError as err:
        message = err.args[0] if err.args else "syntax error"
        location = err.args[1] if len(err.args) > 1 else None
        # No location means the error is at the end of the input (e.g. an unclosed paren).
        offset = len(text) if location is None else max(0, min(int(location), len(text)))
        line, _ = line_col(text, offset)
        raise MigrationFileError(
            path, f"SQL does not parse: {one_line(str(message))}", line=line
        ) from None
    if len(raw) != len(slices):  # pragma: no cover - both come from the same parser
        raise MigrationFileError(path, "statement splitting disagrees with the parser")
    directives = find_directives(path, text, tokens)
    spans = [(s.start, s.stop) for s in slices]
    for directive in directives:
        for start, stop in spans:
            if start < directive.offset < stop:
                raise MigrationFileError(
                    path,
                    "a safemigrate directive must be on its own line before a statement",
                    line=directive.line,
                )

    # Walk statements and directives in file order.
    events: list[tuple[int, Any]] = [(d.offset, d) for d in directives]
    events += [(s.start, (s, r.stmt)) for s, r in zip(slices, raw, strict=True)]
    events.sort(key=lambda e: e[0])

    steps: list[Step] = []
    pending: dict[str, Any] = {}
    pending_line = 0
    open_: _Open | None = None
    created: set[QualifiedName] = set()

    def emit(mode: TxMode, stmts: list[Statement], options: StepOptions) -> None:
        steps.append(Step(len(steps), tuple(stmts), mode, options))

    for _, item in events:
        if isinstance(item, _Directive):
            if item.group == "start":
                if open_ is not None:
                    raise MigrationFileError(
                        path, f"group-start inside {_inside(open_.mode)}", line=item.line
                    )
                values = {**pending, **item.options}
                open_ = _Open(TxMode.GROUP, item.line, _options(values))
                pending = {}
            elif item.group == "end":
                if open_ is None or open_.mode is not TxMode.GROUP:
                    raise MigrationFileError(path, "group-end without group-start", line=item.line)
                if not open_.statements:
                    raise MigrationFileError(path, "empty group", line=item.line)
                if pending or item.options:
                    raise MigrationFileError(
                        path,
                        "step options must come before the statements they apply to",
                        line=item.line,
                    )
                emit(TxMode.GROUP, open_.statements, open_.options)
                open_ = None
            else:
                if open_ is not None and open_.statements:
                    raise MigrationFileError(
                        path,
                        f"step options inside {_inside(open_.mode)} must come before its start",
                        line=item.line,
                    )
                for key in item.options:
                    if key in pending:
                        raise MigrationFileError(path, f"{key} given twice", line=item.line)
                if open_ is not None:
                    open_.options = _options({**_as_dict(open_.options), **item.options})
                else:
                    pending.update(item.options)
                    pending_line = item.line
            continue

        span, node = item
        stmt_text = text[span]
        line, column = line_col(text, span.start)
        kind = type(node).__name__
        tx = sqlinfo.transaction_kind(node)
        statement = Statement(
            stmt_text, line, column, kind, non_transactional=sqlinfo.is_non_transactional(node)
        )
        if tx == "begin":
            if open_ is not None:
                raise MigrationFileError(path, f"BEGIN inside {_inside(open_.mode)}", line=line)
            open_ = _Open(TxMode.EXPLICIT, line, _options(pending), [statement])
            pending = {}
            continue
        if tx in ("commit", "commit-and-chain"):
            if open_ is None or open_.mode is not TxMode.EXPLICIT:
                raise MigrationFileError(path, "COMMIT without a matching BEGIN", line=line)
            if tx == "commit-and-chain":
                raise MigrationFileError(path, "COMMIT AND CHAIN is not supported", line=line)
            open_.statements.append(statement)
            emit(TxMode.EXPLICIT, open_.statements, open_.options)
            open_ = None
            continue
        if tx == "rollback":
            raise MigrationFileError(
                path,
                "ROLLBACK in a migration file is not supported",
                line=line,
                hint="a step that must not apply should not be in the file",
            )
        if tx == "prepared":
            raise MigrationFileError(path, "two-phase commit is not supported", line=line)
        if tx == "savepoint" and open_ is None:
            raise MigrationFileError(
                path, "SAVEPOINT outside a BEGIN/COMMIT block or group", line=line
            )

        if kind == "IndexStmt" and not node.concurrent:
            statement = _plain_index(path, statement, node, created, open_, concurrent_indexes)
        elif statement.non_transactional and kind == "IndexStmt":
            statement = _replace(statement, index_build=sqlinfo.index_build(node))
        elif statement.non_transactional and kind == "DropStmt":
            statement = _replace(statement, index_drop=sqlinfo.index_drop(node))
        table = sqlinfo.created_table(node)
        if table is not None:
            created.add(table)
        run_node = node
        if statement.rewritten is not None:
            run_node = pglast.parse_sql(statement.rewritten)[0].stmt
        statement = _replace(
            statement,
            locks=tuple(lock_needs(run_node)),
            # SET TRANSACTION only concerns the current transaction.
            session_setting=kind == "VariableSetStmt"
            and not node.is_local
            and node.name not in ("TRANSACTION", "TRANSACTION SNAPSHOT"),
        )

        if statement.non_transactional:
            if open_ is not None:
                raise MigrationFileError(
                    path,
                    f"{statement.summary!r} cannot run inside a transaction block "
                    f"({_inside(open_.mode)} started at line {open_.line})",
                    line=line,
                    hint="move it out of the BEGIN/COMMIT block or group into its own step",
                )
            emit(TxMode.AUTOCOMMIT, [statement], _options(pending))
            pending = {}
        elif open_ is not None:
            open_.statements.append(statement)
        else:
            emit(TxMode.OWN, [statement], _options(pending))
            pending = {}

    if open_ is not None:
        what = "BEGIN" if open_.mode is TxMode.EXPLICIT else "group-start"
        closer = "COMMIT" if open_.mode is TxMode.EXPLICIT else "group-end"
        raise MigrationFileError(path, f"{what} has no matching {closer}", line=open_.line)
    if pending:
        raise MigrationFileError(path, "directive applies to no statement", line=pending_line)
    if not steps:
        raise MigrationFileError(path, "no SQL statements in the file")
    return steps


def _as_dict(options: StepOptions) -> dict[str, Any]:
    defaults = StepOptions()
    return {
        k: getattr(options, k)
        for k in ("lock_timeout_ms", "statement_timeout_ms", "max_attempts", "no_retry")
        if getattr(options, k) != getattr(defaults, k)
    }


def _replace(statement: Statement, **changes: Any) -> Statement:
    return dataclasses.replace(statement, **changes)


def _same_table(a: QualifiedName, b: QualifiedName) -> bool:
    # An unqualified name resolves through the default search_path, i.e. to public.
    return a.name == b.name and (a.schema or "public") == (b.schema or "public")


def _plain_index(
    path: str,
    statement: Statement,
    node: Any,
    created: set[QualifiedName],
    open_: _Open | None,
    policy: ConcurrentIndexes,
) -> Statement:
    """Decide what happens to a plain CREATE INDEX under the ``concurrent_indexes`` policy."""
    table = sqlinfo.qualified(node.relation)
    if policy == "off" or any(_same_table(table, c) for c in created):
        # A table created earlier in the same migration is empty and unseen by the application.
        return statement
    if open_ is not None:
        if policy == "require":
            raise MigrationFileError(
                path,
                f"plain CREATE INDEX on existing table {table} inside {_inside(open_.mode)} "
                'cannot be built CONCURRENTLY (concurrent_indexes = "require")',
                line=statement.line,
                hint="move the index out of the transaction block and write CONCURRENTLY",
            )
        return _replace(
            statement,
            notes=(
                f"not rewritten to CONCURRENTLY: inside {_inside(open_.mode)}; "
                f"it blocks writes to {table} while it builds",
            ),
        )
    if policy == "require":
        raise MigrationFileError(
            path,
            f"plain CREATE INDEX on existing table {table} blocks writes while it builds "
            '(concurrent_indexes = "require")',
            line=statement.line,
            hint="write CREATE INDEX CONCURRENTLY",
        )
    return _replace(
        statement,
        rewritten=sqlinfo.add_concurrently(statement.text),
        non_transactional=True,
        index_build=sqlinfo.index_build(node),
        notes=(f"rewritten to CREATE INDEX CONCURRENTLY: {table} existed before this migration",),
    )
