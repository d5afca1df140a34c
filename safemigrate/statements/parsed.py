"""What a parsed statement is, from PostgreSQL's own parse tree (pglast). Pure, no I/O.

One understanding of SQL serves the runner: whether a statement can run in a transaction
block, which tables it creates, and how a plain CREATE INDEX becomes CONCURRENTLY.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from copy import deepcopy
from typing import Any

import pglast
from pglast import ast, enums, parser
from pglast.stream import RawStream

from ..core.model import IndexBuild, IndexDrop, QualifiedName, Statement

_TX = enums.TransactionStmtKind

#: Statements PostgreSQL refuses inside a transaction block whatever their options.
_ALWAYS_NON_TRANSACTIONAL = (
    ast.CreatedbStmt,
    ast.DropdbStmt,
    ast.AlterSystemStmt,
    ast.CreateTableSpaceStmt,
    ast.DropTableSpaceStmt,
    ast.CreateSubscriptionStmt,
    ast.DropSubscriptionStmt,
)


def walk(node: Any, *, skip: tuple[type, ...] = ()) -> Iterator[Any]:
    """Every pglast node in the tree of ``node`` (depth first), ``node`` included; the
    children of a node of a type in ``skip`` are not entered."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Node):
            yield current
            if isinstance(current, skip):
                continue
            kind = type(current)
            for attr in _BRANCHES.get(kind) or _branches(kind):
                value = getattr(current, attr)
                if isinstance(value, ast.Node | tuple | list):
                    stack.append(value)
        elif isinstance(current, tuple | list):
            stack.extend(reversed(current))


#: The C types of pglast's node attributes that hold a value, never a node or a list: a
#: flag, a number, a character, a string (pglast's enums are the others).
_LEAF_TYPES = frozenset(
    {
        "bool",
        "char",
        "char*",
        "AclMode",
        "AttrNumber",
        "Index",
        "ParseLoc",
        "RelFileNumber",
        "SubTransactionId",
        "bits32",
        "int",
        "int16",
        "int32",
        "long",
        "uint32",
        "uint64",
        "Cardinality",
        "Cost",
    }
)
#: Per node class, the attributes ``walk`` enters (see ``_branches``).
_BRANCHES: dict[type, tuple[str, ...]] = {}


def _branches(kind: type) -> tuple[str, ...]:
    """The attributes of nodes of class ``kind`` that may hold a node or a list, in pglast's
    order: not a flag, number, string or enum (pglast's ``__setattr__`` refuses a node there).

    Issue 26: a statement's tree is walked several times (the client_encoding refusal, the
    linter's calls and reads), and reading every attribute of every node was most of each
    walk's time; most attributes are such values (a Constraint has 34, 10 may hold nodes)."""
    slots: Any = getattr(kind, "__slots__", ())
    if not isinstance(slots, dict):  # pragma: no cover - every node class has typed slots
        found = tuple(slots)
    else:
        found = tuple(
            name for name, info in slots.items() if not _is_leaf(str(getattr(info, "c_type", info)))
        )
    _BRANCHES[kind] = found
    return found


def _is_leaf(c_type: str) -> bool:
    return c_type in _LEAF_TYPES or isinstance(getattr(enums, c_type, None), type)


def tree_of(statement: Statement) -> Any | None:
    """The parse tree of ``statement``'s text: the one the file's parse built, else (a
    statement made without the parser) parsed now; None when the text is not one statement
    PostgreSQL's parser reads."""
    if statement.tree is not None:
        return statement.tree
    try:
        parsed = pglast.parse_sql(statement.text)
    except parser.ParseError:
        return None
    return parsed[0].stmt if len(parsed) == 1 else None


def qualified(range_var: Any) -> QualifiedName:
    """The QualifiedName of a pglast ``RangeVar`` (names are already case-folded by the parser)."""
    return QualifiedName(range_var.schemaname or None, range_var.relname)


def is_non_transactional(node: Any) -> bool:
    """True when PostgreSQL refuses to run ``node`` inside a transaction block, by the forms
    this module knows (a conditional refusal such as CREATE SUBSCRIPTION's slot included);
    statements.transaction_block adds the reference table's rows."""
    if isinstance(node, _ALWAYS_NON_TRANSACTIONAL):
        return True
    if isinstance(node, ast.IndexStmt):
        return bool(node.concurrent)
    if isinstance(node, ast.DropStmt):
        return bool(node.concurrent)
    if isinstance(node, ast.ReindexStmt):
        # REINDEX page: "REINDEX SCHEMA/DATABASE/SYSTEM cannot be executed inside a
        # transaction block", nor any REINDEX ... CONCURRENTLY (indexcmds.c ExecReindex,
        # PreventInTransactionBlock; SQLSTATE 25001).
        whole = node.kind in (
            enums.ReindexObjectType.REINDEX_OBJECT_SCHEMA,
            enums.ReindexObjectType.REINDEX_OBJECT_SYSTEM,
            enums.ReindexObjectType.REINDEX_OBJECT_DATABASE,
        )
        return whole or any(p.defname == "concurrently" for p in node.params or ())
    if isinstance(node, ast.VacuumStmt):
        return bool(node.is_vacuumcmd)
    if isinstance(node, ast.ClusterStmt):
        # CLUSTER without a table reclusters every table and refuses a transaction block.
        return node.relation is None
    if isinstance(node, ast.DiscardStmt):
        # DISCARD page: "DISCARD ALL cannot be executed inside a transaction block" (25001).
        return node.target == enums.DiscardMode.DISCARD_ALL
    if isinstance(node, ast.AlterTableStmt):
        return any(
            isinstance(cmd, ast.AlterTableCmd)
            and cmd.subtype == enums.AlterTableType.AT_DetachPartition
            and isinstance(cmd.def_, ast.PartitionCmd)
            and bool(cmd.def_.concurrent)
            for cmd in node.cmds or ()
        )
    return False


def transaction_kind(node: Any) -> str | None:
    """For a transaction-control statement: begin, commit, rollback, savepoint or prepared."""
    if not isinstance(node, ast.TransactionStmt):
        return None
    kind = node.kind
    if kind in (_TX.TRANS_STMT_BEGIN, _TX.TRANS_STMT_START):
        return "begin"
    if kind == _TX.TRANS_STMT_COMMIT:
        return "commit-and-chain" if node.chain else "commit"
    if kind == _TX.TRANS_STMT_ROLLBACK:
        return "rollback"
    if kind in (_TX.TRANS_STMT_SAVEPOINT, _TX.TRANS_STMT_RELEASE, _TX.TRANS_STMT_ROLLBACK_TO):
        return "savepoint"
    return "prepared"


def created_table(node: Any) -> QualifiedName | None:
    """The table a CREATE TABLE / CREATE TABLE AS / SELECT INTO statement creates, if any."""
    if isinstance(node, ast.CreateStmt):
        # IF NOT EXISTS may meet a table the application already uses: not "new".
        return None if node.if_not_exists else qualified(node.relation)
    if isinstance(node, ast.CreateTableAsStmt) and node.into is not None:
        if node.if_not_exists:
            return None
        return qualified(node.into.rel)
    if isinstance(node, ast.SelectStmt) and node.intoClause is not None:
        return qualified(node.intoClause.rel)
    return None


def _unnamed_plain_copy(node: Any, relation: Any) -> Any:
    """A copy of CREATE INDEX ``node`` without name, CONCURRENTLY or IF NOT EXISTS, on
    ``relation``."""
    # A copy of the tree, not a parse of its text again: the copy is changed here and by the
    # definition's normalisation, and the statement's own tree must stay as it was parsed.
    copy: Any = deepcopy(node)
    copy.idxname = None
    copy.concurrent = False
    copy.if_not_exists = False
    copy.relation = relation
    return copy


def index_definition(node: Any) -> str:
    """A canonical text of an index's definition, without its name, table or options.

    Used to recognise an existing index (valid or invalid) as the one a statement builds: both
    the statement and ``pg_get_indexdef()`` output go through the same normalisation.
    """
    return _definition(_unnamed_plain_copy(node, _definition_table()))


def _definition_table() -> Any:
    """The table an index definition is written on (``index_definition``)."""
    return ast.RangeVar(relname="_", inh=True, relpersistence="p")


def _definition(copy: Any) -> str:
    """``index_definition`` of the unnamed plain copy ``copy`` (changed in place)."""
    copy.relation = _definition_table()
    copy.accessMethod = copy.accessMethod or "btree"
    for option in copy.options or ():
        # PostgreSQL stores reloptions as text and pg_get_indexdef() quotes numbers
        # (fillfactor='70'); a bare option is stored as true.
        if option.arg is None:
            option.arg = ast.String(sval="true")
        elif isinstance(option.arg, ast.Integer):
            option.arg = ast.String(sval=str(option.arg.ival))
        elif isinstance(option.arg, ast.Float):
            option.arg = ast.String(sval=option.arg.fval)
    return str(RawStream()(copy))


#: The temporary table an index definition is tried on (see db.indexes.server_definition).
PROBE_TABLE = "_safemigrate_probe"


def _probe_table() -> Any:
    """The probe table as a statement names it (``probe_statement``)."""
    return ast.RangeVar(relname=PROBE_TABLE, inh=True, relpersistence="t")


def probe_statement(node: Any) -> str:
    """``node`` (a CREATE INDEX) rewritten to build a plain, unnamed index on the probe table."""
    return str(RawStream()(_unnamed_plain_copy(node, _probe_table())))


def index_build(node: Any) -> IndexBuild:
    """The IndexBuild description of a CREATE INDEX statement."""
    # One copy of the statement (a deparse and a parse) for both texts: the probe first,
    # before the definition's normalisation changes the copy.
    copy = _unnamed_plain_copy(node, _probe_table())
    probe_sql = str(RawStream()(copy))
    return IndexBuild(
        table=qualified(node.relation),
        name=node.idxname or None,
        definition=_definition(copy),
        if_not_exists=bool(node.if_not_exists),
        probe_sql=probe_sql,
    )


def index_drop(node: Any) -> IndexDrop | None:
    """The IndexDrop description of a DROP INDEX statement, None for other DROPs."""
    if not isinstance(node, ast.DropStmt) or node.removeType != enums.ObjectType.OBJECT_INDEX:
        return None
    names = []
    for obj in node.objects or ():
        parts = [p.sval for p in obj]
        schema = parts[-2] if len(parts) >= 2 else None
        names.append(QualifiedName(schema, parts[-1]))
    return IndexDrop(names=tuple(names), if_exists=bool(node.missing_ok))


def add_concurrently(text: str) -> str:
    """Rewrite ``CREATE [UNIQUE] INDEX ...`` as ``CREATE [UNIQUE] INDEX CONCURRENTLY ...``.

    The keyword is inserted after the INDEX token found by PostgreSQL's own scanner, so the rest
    of the author's text (comments, spacing, quoting) is kept exactly.
    """
    return concurrent_rewrite(text)[0]


def concurrent_rewrite(text: str) -> tuple[str, Any]:
    """``add_concurrently``'s text and its parse tree: the parse that checks the rewrite is
    the one tree of the rewritten statement (its locks are read from it)."""
    for token in parser.scan(text):
        if token.name == "INDEX":
            rewritten = f"{text[: token.end + 1]} CONCURRENTLY{text[token.end + 1 :]}"
            break
    else:  # pragma: no cover - an IndexStmt always has an INDEX token
        raise ValueError("no INDEX keyword in a CREATE INDEX statement")
    check = pglast.parse_sql(rewritten)
    if len(check) != 1 or not getattr(check[0].stmt, "concurrent", False):
        raise ValueError("rewriting to CONCURRENTLY did not give a concurrent index build")
    return rewritten, check[0].stmt


@functools.lru_cache(maxsize=4096)
def definition_of_indexdef(indexdef: str) -> str | None:
    """The canonical definition (see index_definition) of a ``pg_get_indexdef()`` text."""
    node = one_index_statement(indexdef)
    return None if node is None else index_definition(node)


def one_index_statement(text: str) -> Any | None:
    """The CREATE INDEX tree of ``text`` (``pg_get_indexdef()`` output, a recipe's part), or
    None when it is not exactly one CREATE INDEX statement."""
    try:
        parsed = pglast.parse_sql(text)
    except pglast.parser.ParseError:
        return None
    if len(parsed) != 1 or not isinstance(parsed[0].stmt, ast.IndexStmt):
        return None
    return parsed[0].stmt


def client_copy(node: Any) -> str | None:
    """``FROM STDIN`` or ``TO STDOUT`` for a COPY whose rows come from or go to the client
    (what psql feeds from the lines after it, or prints); None for any other statement,
    a COPY from or to a server file or program included."""
    if not isinstance(node, ast.CopyStmt) or node.filename is not None:
        return None
    return "FROM STDIN" if node.is_from else "TO STDOUT"
