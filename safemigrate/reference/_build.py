"""Short constructors the family modules write their rows with. Pure.

Every family module imports this vocabulary whole (``from .._build import *``: the lock modes,
the targets, the constructors), so that a family's own names are the only ones it spells out.
"""

from __future__ import annotations

from typing import Any

from pglast import ast, enums

from .model import (
    ALL_VERSIONS,
    DataChange,
    Effect,
    Example,
    Fact,
    Field,
    Key,
    Lock,
    LockMode,
    Probe,
    Rejection,
    Row,
    Source,
    Target,
    Transaction,
    Versions,
)

AS = LockMode.ACCESS_SHARE
RS = LockMode.ROW_SHARE
RE = LockMode.ROW_EXCLUSIVE
SUE = LockMode.SHARE_UPDATE_EXCLUSIVE
SH = LockMode.SHARE
SRE = LockMode.SHARE_ROW_EXCLUSIVE
EX = LockMode.EXCLUSIVE
AE = LockMode.ACCESS_EXCLUSIVE

N = Target.NAMED
OTHER = Target.OTHER_NAMED
IDX = Target.INDEX_NAMED
ITAB = Target.INDEX_TABLE
OWNER = Target.SEQUENCE_OWNER
SEQS = Target.OWNED_SEQUENCES
INDEXES = Target.INDEXES
REF = Target.REFERENCED
REFING = Target.REFERENCING
PARENT = Target.PARENT
PARTS = Target.PARTITIONS
DEFAULT = Target.DEFAULT_PARTITION
USERS = Target.TYPE_USERS
VQ = Target.VIEW_QUERY
CASC = Target.CASCADE
MOVED = Target.MOVED
TYPE_REL = Target.TYPE_RELATION

AT = enums.AlterTableType
OT = enums.ObjectType
CT = enums.ConstrType

#: The subcommands that enable or disable triggers (ALTER TABLE and ALTER FOREIGN TABLE).
TRIGGER_SWITCHES = (
    AT.AT_EnableTrig,
    AT.AT_EnableAlwaysTrig,
    AT.AT_EnableReplicaTrig,
    AT.AT_DisableTrig,
    AT.AT_EnableTrigAll,
    AT.AT_DisableTrigAll,
    AT.AT_EnableTrigUser,
    AT.AT_DisableTrigUser,
)

ANY_TX = Transaction.ANY
NO_BLOCK = Transaction.NOT_IN_BLOCK
CONTROL = Transaction.CONTROL

YES = Fact(Effect.YES)
NO = Fact()

ALONE = Probe.ALONE
SESSION = Probe.SESSION
ROLLED_BACK = Probe.ROLLED_BACK
REFUSED = Probe.REFUSED_IN_BLOCK


def f(path: str, equals: Any, *, negate: bool = False) -> Field:
    """A field test (see :class:`Field`)."""
    return Field(path, equals, negate)


def not_(path: str, equals: Any) -> Field:
    """A field test that passes when no reached value equals ``equals``."""
    return Field(path, equals, negate=True)


def stmt(node: Any, *fields: Field) -> Key:
    """The key of a top-level statement."""
    return Key(node, tuple(fields))


def alter(objtype: Any, subtype: Any, *fields: Field) -> Key:
    """The key of a subcommand of ALTER TABLE/INDEX/VIEW/... (objtype says which)."""
    return Key(
        ast.AlterTableCmd,
        (Field("subtype", subtype), *fields),
        within=Key(ast.AlterTableStmt, (Field("objtype", objtype),)),
    )


def part(node: Any, within: Key, *fields: Field) -> Key:
    """The key of a part (a constraint, a WITH query) inside ``within``."""
    return Key(node, tuple(fields), within=within)


def lock(target: Target, mode: LockMode, when: str = "") -> Lock:
    """A lock on role ``target``."""
    return Lock(target, mode, when)


def named(mode: LockMode) -> Lock:
    """A lock on the named relation."""
    return Lock(N, mode)


def doc(page: str, part: str = "") -> Source:
    """A page of the manual (``sql-altertable``), ``.html`` added."""
    return Source(page if page.endswith(".html") else page + ".html", part)


def code(path: str, function: str) -> Source:
    """A function in PostgreSQL's source (path from the top of the tree)."""
    return Source(path, function)


def tablecmds(function: str) -> Source:
    return code("src/backend/commands/tablecmds.c", function)


LOCK_LEVEL = tablecmds("AlterTableGetLockLevel")
EXPLICIT_LOCKING = doc("explicit-locking", "13.3.1 Table-Level Locks")


def depends(when: str, *on: Target) -> Fact:
    """An effect only the catalog or the data can decide."""
    return Fact(Effect.DEPENDS, on or (N,), when)


def does(*on: Target) -> Fact:
    """An effect on the relations of ``on`` (default: the named one)."""
    return Fact(Effect.YES, on or (N,))


def reject(sqlstate: str, when: str, versions: Versions = ALL_VERSIONS) -> Rejection:
    return Rejection(sqlstate, when, versions)


def ex(
    sql: str,
    on: dict[str, Target] | None = None,
    *,
    setup: tuple[str, ...] = (),
    error: str | None = None,
    scans: bool | None = None,
    rewrites: bool | None = None,
    builds: bool | None = None,
    probe: Probe | None = None,
    versions: Versions = ALL_VERSIONS,
) -> Example:
    """An example; ``on`` maps each relation it touches to its role."""
    return Example(
        sql,
        tuple((on or {}).items()),
        setup,
        error,
        scans,
        rewrites,
        builds,
        probe,
        versions,
    )


def since(version: int) -> Versions:
    return Versions(since=version)


def until(version: int) -> Versions:
    return Versions(until=version)


def between(first: int, last: int) -> Versions:
    return Versions(first, last)


def row(
    id: str,
    command: str,
    form: str,
    key: Key,
    locks: tuple[Lock, ...] | list[Lock],
    sources: tuple[Source, ...] | list[Source],
    examples: tuple[Example, ...] | list[Example],
    *,
    scans: Fact = NO,
    rewrites: Fact = NO,
    builds: Fact = NO,
    data: DataChange = DataChange.NONE,
    rejects: tuple[Rejection, ...] | list[Rejection] = (),
    transaction: Transaction = ANY_TX,
    versions: Versions = ALL_VERSIONS,
    note: str = "",
    also: tuple[str, ...] = (),
) -> Row:
    """A row (lists accepted for readability)."""
    return Row(
        id=id,
        command=command,
        form=form,
        key=key,
        locks=tuple(locks),
        sources=tuple(sources),
        examples=tuple(examples),
        scans=scans,
        rewrites=rewrites,
        builds=builds,
        data=data,
        rejects=tuple(rejects),
        transaction=transaction,
        versions=versions,
        note=note,
        also=also,
    )
