"""A migration file's steps as ``status`` compares them with the journal, read without the
full parse where the file is plain.

A journal row holds the checksum of its step's statements' texts (``checksums``), so ``status``
needs each file's statement split and where its steps begin and end: not the Python parse
trees, the locks, the session changes or the runner's policy that ``up`` reads
(``planning.safer_forms.parse_file``). For a *plain* file, every statement is its own
transactional step with no options and nothing to refuse, whatever the settings: no comment
that is or looks like a ``-- safemigrate:`` directive (no word ``safemigrate`` in any case), no
NUL byte, and every statement of a kind in :data:`PLAIN_KINDS`. Its steps are made here from
pglast's split and the node names of its JSON parse tree (``parse_sql_json``: no Python nodes
built). Any other file (a BEGIN/COMMIT block, a directive, a CREATE INDEX the policy may
rewrite, a syntax error...) is parsed as ``up`` parses it
(``planning.migrations.journal_migration`` chooses which).

Either way the steps, their texts, lines, kinds, modes and checksums are the full parse's
(``tests/unit/test_journal_steps.py`` holds the two readers to that); the statements made here
carry no tree, locks or session changes, which ``status`` does not read.
"""

from __future__ import annotations

import json

from pglast import parser

from ..core.model import Statement, Step, TxMode
from .directives import may_hold_directive
from .positions import line_starts, position

#: Parse tree node names of statements that ``parse_file`` makes into a step of their own,
#: in a transaction, with no note, rewrite or problem, when no directive is in the file: no
#: transaction control, no COPY, nothing PostgreSQL refuses in a transaction block, no plain
#: form the policy decides on (CREATE INDEX, ALTER TABLE), no batching. ``DropStmt`` is one
#: unless CONCURRENTLY (see :func:`_plain`).
PLAIN_KINDS = frozenset(
    {
        "AlterDomainStmt",
        "AlterEnumStmt",
        "AlterFunctionStmt",
        "AlterObjectSchemaStmt",
        "AlterOwnerStmt",
        "AlterSeqStmt",
        "CommentStmt",
        "CompositeTypeStmt",
        "CreateDomainStmt",
        "CreateEnumStmt",
        "CreateExtensionStmt",
        "CreateFunctionStmt",
        "CreatePolicyStmt",
        "CreateSchemaStmt",
        "CreateSeqStmt",
        "CreateStmt",
        "CreateTableAsStmt",
        "CreateTrigStmt",
        "DeleteStmt",
        "DoStmt",
        "DropStmt",
        "GrantStmt",
        "InsertStmt",
        "RenameStmt",
        "RuleStmt",
        "SelectStmt",
        "UpdateStmt",
        "ViewStmt",
    }
)


def _plain(tree: dict[str, object]) -> str | None:
    """The node name of one statement's JSON tree when it is a plain step, else None."""
    if len(tree) != 1:
        return None
    ((kind, fields),) = tree.items()
    if kind not in PLAIN_KINDS:
        return None
    if kind == "DropStmt" and isinstance(fields, dict) and fields.get("concurrent"):
        return None
    return kind


def plain_steps(text: str) -> tuple[Step, ...] | None:
    """The steps the full parse makes of ``text`` when the file is plain (see the module),
    else None (then only the full parse can tell)."""
    if may_hold_directive(text) or "\0" in text:
        return None
    try:
        slices = parser.split(text, only_slices=True)
        trees = json.loads(parser.parse_sql_json(text)).get("stmts", [])
    except parser.ParseError:
        return None
    if len(slices) != len(trees):  # pragma: no cover - both come from the same parser
        return None
    kinds = [_plain(t.get("stmt", {})) for t in trees]
    if not all(kinds):
        return None
    if not slices:
        # Only comments: an empty migration, one step without statements (as parse_file).
        return (Step(0, (), TxMode.OWN),)
    starts = line_starts(text)
    steps = []
    for index, (span, kind) in enumerate(zip(slices, kinds, strict=True)):
        line, column = position(starts, span.start)
        statement = Statement(text[span], line, column, str(kind))
        steps.append(Step(index, (statement,), TxMode.OWN))
    return tuple(steps)
