"""``-- safemigrate: allow <rule-id>[, <rule-id>...] -- <reason>`` suppression comments.

An allow comment stands on its own line in the comment lines directly before a statement (only
comments and blank lines between them) and suppresses the named rules' findings on that
statement; for a DO block, on the statements inside it. The runner passes over these comments;
safemigrate.source.read_file finds them (ParsedFile.allows) and this module reads what they
say.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..source import AllowComment
from ..source.directives import allow_body

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


def is_allow_comment(comment: str) -> bool:
    """True for the text of a ``-- safemigrate: allow ...`` comment."""
    return allow_body(comment) is not None


def find_allows(comments: Iterable[AllowComment]) -> list[Allow]:
    """The rule ids and reason of each allow comment found by the parse."""
    found = []
    for comment in comments:
        ids_text, _, reason = comment.body.partition("--")
        found.append(
            Allow(
                start=comment.start,
                end=comment.end,
                line=comment.line,
                column=comment.column,
                rule_ids=tuple(i for i in _SEPARATOR.split(ids_text.strip()) if i),
                reason=reason.strip(),
                own_line=comment.own_line,
            )
        )
    return found
