"""``-- safemigrate: allow <rule-id>[, <rule-id>...] -- <reason>`` suppression comments.

An allow comment stands on its own line in the comment lines directly before a statement (only
comments and blank lines between them) and suppresses the named rules' findings on that
statement; for a DO block, on the statements inside it. The runner itself ignores these comments
(see ``strip_allow_directives`` for how the linter hides them from source.build_steps until
source.parse_directive accepts them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pglast import parser

from ..source import DIRECTIVE_PREFIX

ALLOW_WORD = "allow"
_SEPARATOR = re.compile(r"[\s,]+")


@dataclass
class Allow:
    """One allow comment of a file."""

    #: Character offsets of the comment in the file (``end`` exclusive).
    start: int
    end: int
    line: int
    column: int
    rule_ids: tuple[str, ...]
    reason: str
    #: True when nothing but blanks precedes the comment on its line.
    own_line: bool
    #: The rule ids that suppressed at least one finding.
    used: set[str] = field(default_factory=set)


def allow_body(comment: str) -> str | None:
    """For the text of a ``--`` comment, what follows ``safemigrate: allow``; None when the
    comment is not an allow directive."""
    body = comment[2:].strip()
    if not body.startswith(DIRECTIVE_PREFIX):
        return None
    words = body[len(DIRECTIVE_PREFIX) :].split(None, 1)
    if not words or words[0] != ALLOW_WORD:
        return None
    return words[1] if len(words) > 1 else ""


def is_allow_comment(comment: str) -> bool:
    """True for the text of a ``-- safemigrate: allow ...`` comment."""
    return allow_body(comment) is not None


def find_allows(text: str, tokens: Iterable[Any], starts: list[int]) -> list[Allow]:
    """The allow comments among ``tokens`` (pglast scanner tokens of ``text``).

    ``starts`` are the offsets where lines begin (``starts[0] == 0``), for line numbers.
    """
    from bisect import bisect_right

    found = []
    for token in tokens:
        if token.name != "SQL_COMMENT":
            continue
        comment = text[token.start : token.end + 1]
        body = allow_body(comment)
        if body is None:
            continue
        ids_text, _, reason = body.partition("--")
        ids = tuple(i for i in _SEPARATOR.split(ids_text.strip()) if i)
        line = bisect_right(starts, token.start)
        line_start = starts[line - 1]
        found.append(
            Allow(
                start=token.start,
                end=token.end + 1,
                line=line,
                column=token.start - line_start + 1,
                rule_ids=ids,
                reason=reason.strip(),
                own_line=not text[line_start : token.start].strip(),
            )
        )
    return found


def blank_out(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with the characters of ``spans`` replaced by spaces (newlines kept), so that
    every offset, line and column stays where it was."""
    chars = list(text)
    for start, end in spans:
        for i in range(start, end):
            if chars[i] not in "\r\n":
                chars[i] = " "
    return "".join(chars)


def strip_allow_directives(text: str) -> str:
    """``text`` with every ``-- safemigrate: allow ...`` comment blanked out (same offsets).

    source.build_steps rejects unknown directives; until it ignores allow directives itself,
    the linter gives it this text. Text that does not scan is returned unchanged.
    """
    try:
        tokens = parser.scan(text)
    except parser.ParseError:
        return text
    spans = [
        (t.start, t.end + 1)
        for t in tokens
        if t.name == "SQL_COMMENT" and is_allow_comment(text[t.start : t.end + 1])
    ]
    return blank_out(text, spans) if spans else text
