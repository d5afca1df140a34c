"""The names PostgreSQL gives the objects a statement does not name. Pure.

Written once, for the recipes (which must give a constraint the name the plain statement would
have given it) and for the linter (which must know the name a CHECK constraint got). From
PostgreSQL's source: ``makeObjectName`` (src/backend/commands/indexcmds.c) builds
``name1_name2_label`` cut to NAMEDATALEN - 1 bytes; ``ChooseConstraintName``
(src/backend/catalog/pg_constraint.c) and ``ChooseRelationName`` (indexcmds.c, which
``ChooseIndexName`` calls) try the label, then label1, label2, ... until the name is free.
"""

from __future__ import annotations

from collections.abc import Collection

#: PostgreSQL's NAMEDATALEN: identifiers are at most NAMEDATALEN - 1 bytes.
NAMEDATALEN = 64


def _clip(text: str, nbytes: int) -> str:
    """The longest prefix of ``text`` of at most ``nbytes`` UTF-8 bytes (pg_mbcliplen)."""
    raw = text.encode()[:nbytes]
    return raw.decode(errors="ignore")


def make_object_name(name1: str, name2: str | None, label: str | None) -> str:
    """PostgreSQL's makeObjectName: ``name1_name2_label`` cut to NAMEDATALEN - 1 bytes.

    The longer of name1 and name2 is shortened first, one byte at a time, and each is then
    clipped to a character boundary, exactly as the server does.
    """
    name1_bytes = len(name1.encode())
    name2_bytes = len(name2.encode()) if name2 is not None else 0
    overhead = (len(label.encode()) + 1 if label else 0) + (1 if name2 is not None else 0)
    available = NAMEDATALEN - 1 - overhead
    while name1_bytes + name2_bytes > available:
        if name1_bytes > name2_bytes:
            name1_bytes -= 1
        else:
            name2_bytes -= 1
    result = _clip(name1, name1_bytes)
    if name2 is not None:
        result += "_" + _clip(name2, name2_bytes)
    if label:
        result += "_" + label
    return result


def name_candidates(name1: str, name2: str | None, label: str, count: int = 20) -> list[str]:
    """The first ``count`` names ChooseConstraintName / ChooseRelationName try, in order:
    with ``label``, then ``label1``, ``label2``, ..."""
    labels = [label] + [f"{label}{n}" for n in range(1, count)]
    return [make_object_name(name1, name2, numbered) for numbered in labels]


def choose_name(name1: str, name2: str | None, label: str, taken: Collection[str]) -> str:
    """The name ChooseConstraintName picks: the first candidate not in ``taken``."""
    name, number = make_object_name(name1, name2, label), 0
    while name in taken:
        number += 1
        name = make_object_name(name1, name2, f"{label}{number}")
    return name
