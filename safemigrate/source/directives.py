"""``-- safemigrate: ...`` comments: step options, groups and the linter's allow comments.

A directive stands on its own line before a statement. The runner reads group-start, group-end,
no-retry, lock-timeout=DUR, statement-timeout=DUR, max-attempts=N, ``no-rewrite reason``
(run the next statement as written: no CONCURRENTLY, no constraint recipe) and the batching
words batch-size=N, batch-pause=DUR, max-replica-lag=DUR; ``allow RULE -- reason``
is the linter's (safemigrate.lint.allow) and the runner passes over it. Every comment is read
leniently: a bad one gives a FileProblem and reading goes on.

There is one spelling, ``-- safemigrate:`` in lower case in a ``--`` comment. A comment that
only looks like one (``-- SafeMigrate:``, ``-- safemigrate :``, ``/* safemigrate: ... */``,
``-- safemigrate group-start`` without the colon, ``-- safemigrates: batch-size=N``,
``-- safe-migrate: ...``) is refused with the spelling to use rather than ignored: ignored, its
batch-size, lock-timeout or group would silently not apply (issue 21, reviews 21f F5, 21h D3).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core.durations import parse_duration
from ..core.errors import ConfigError

#: The comment prefix of a directive.
DIRECTIVE_PREFIX = "safemigrate:"
#: The first word of the linter's suppression comment, ``-- safemigrate: allow RULE -- reason``.
ALLOW_WORD = "allow"

GROUP_WORDS = ("group-start", "group-end")
#: ``-- safemigrate: no-rewrite reason``: the next statement runs exactly as written.
NO_REWRITE = "no-rewrite"

_KNOWN = (
    "known: group-start, group-end, no-retry, lock-timeout=DUR, statement-timeout=DUR, "
    "max-attempts=N, no-rewrite reason, batch-size=N, batch-pause=DUR, max-replica-lag=DUR, "
    "allow RULE -- reason"
)
#: The largest batch-size: a batch is meant to be a short transaction.
MAX_BATCH_SIZE = 1_000_000
_OWN_LINE = "a safemigrate directive must be on its own line before a statement"
_WORD = "safemigrate"
#: How ``_WORD`` is also written by hand, as ``may_hold_directive`` looks for it.
_WORD_SPELLINGS = (_WORD, "safe-migrate", "safe_migrate")
#: The user's spelling of each step option, by its StepOptions field name.
OPTION_WORDS = {
    "no_retry": "no-retry",
    "no_rewrite": NO_REWRITE,
    "lock_timeout_ms": "lock-timeout",
    "statement_timeout_ms": "statement-timeout",
    "max_attempts": "max-attempts",
    "batch_size": "batch-size",
    "batch_pause_ms": "batch-pause",
    "max_replica_lag_ms": "max-replica-lag",
}
#: The words a directive can begin with: a comment naming safemigrate that is followed by one
#: of them is meant as a directive, whatever else it misspells.
_DIRECTIVE_WORDS = frozenset((*GROUP_WORDS, *OPTION_WORDS.values(), ALLOW_WORD))


@dataclass
class Directive:
    """One runner directive of a file, in file order."""

    offset: int
    line: int
    #: The group words it applies, in order: one at most when valid; when invalid, every group
    #: word it names, so that the statements after it still get the transaction meant.
    groups: tuple[str, ...] = ()
    #: Step options (StepOptions field names); empty when the directive is invalid.
    options: dict[str, Any] = field(default_factory=dict)
    valid: bool = True


@dataclass(frozen=True)
class AllowComment:
    """Where a ``-- safemigrate: allow ...`` comment is, and what follows the word ``allow``."""

    #: Character offsets of the comment in the file (``end`` exclusive).
    start: int
    end: int
    line: int
    column: int
    body: str
    #: True when nothing but blanks precedes the comment on its line.
    own_line: bool


@dataclass(frozen=True)
class DirectiveProblem:
    """Why a directive comment is refused (the reader adds the file)."""

    line: int
    message: str
    hint: str | None = None


class _Invalid(Exception):
    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def directive_body(comment: str) -> str | None:
    """For the text of a ``--`` comment, what follows ``safemigrate:``; None for other comments."""
    body = comment[2:].strip()
    if not body.startswith(DIRECTIVE_PREFIX):
        return None
    return body[len(DIRECTIVE_PREFIX) :]


def may_hold_directive(text: str) -> bool:
    """False when no comment of ``text`` can be a directive or look like one (a quick test
    before a full read)."""
    folded = text.casefold()
    return any(spelling in folded for spelling in _WORD_SPELLINGS)


def look_alike(comment: str) -> str | None:
    """For the text of a comment (``--`` or ``/* */``) that reads as a directive but is not
    one, the words meant as the directive; None for a directive and for every other comment.

    It reads as one when its first word is ``safemigrate`` in any case followed by a colon
    (blanks allowed between them), or when that word, or a near spelling of it
    (``safemigrates``, ``safe-migrate``, ``safe_migrate``), with or without a colon, is
    followed by a directive word (``group-start``, ``batch-size=1000``, ...). Prose such as
    ``-- safemigrate runs this file`` stays a comment.
    """
    block = comment.startswith("/*")
    inner = comment[2:-2] if block else comment[2:]
    head = inner.strip()
    if not block and head.startswith(DIRECTIVE_PREFIX):
        return None
    name, colon, after = head.partition(":")
    name = name.strip()
    if colon and _near_word(name):
        words = after.split()
        if name.casefold() == _WORD or (words and _directive_word(words[0])):
            return " ".join(words)
    first, *rest = head.split(None, 1) or [""]
    if rest and _near_word(first) and _directive_word(rest[0].split()[0]):
        # No colon: ``-- safemigrate group-start``.
        return " ".join(rest[0].split())
    return None


def _near_word(word: str) -> bool:
    """True for ``safemigrate`` in any case and for its near spellings (``safemigrates``,
    ``safe-migrate``, ``safe_migrate``)."""
    folded = word.casefold()
    if folded[4:5] in ("-", "_"):
        folded = folded[:4] + folded[5:]
    return folded in (_WORD, _WORD + "s")


def _directive_word(word: str) -> bool:
    """True when ``word`` begins a directive (``group-start``, ``batch-size=1000``, ...)."""
    return word.partition("=")[0].casefold() in _DIRECTIVE_WORDS


def look_alike_problem(line: int, comment: str, words: str) -> DirectiveProblem:
    """The refusal of a comment that looks like a directive (``look_alike``), with the
    spelling that is read."""
    kind = "in a block comment" if comment.startswith("/*") else "not written `-- safemigrate:`"
    return DirectiveProblem(
        line,
        f"this comment looks like a safemigrate directive but is {kind}, so it would be "
        f"ignored: write `-- safemigrate: {words}` (lower case, a -- comment on its own line "
        "before the statement), or reword the comment",
    )


def allow_body(comment: str) -> str | None:
    """For the text of a ``--`` comment, what follows ``safemigrate: allow``; None when the
    comment is not an allow comment."""
    body = directive_body(comment)
    if body is None:
        return None
    words = body.split(None, 1)
    if not words or words[0] != ALLOW_WORD:
        return None
    return words[1] if len(words) > 1 else ""


def parse_directive(line: int, body: str) -> Directive:
    """The Directive of the words after ``-- safemigrate:`` (offset 0); raises _Invalid."""
    directive = Directive(offset=0, line=line)
    group: str | None = None
    words = body.split()
    if not words:
        raise _Invalid("empty safemigrate directive")
    if words[0] == NO_REWRITE:
        # The rest of the line is the author's reason, free text.
        directive.options["no_rewrite"] = True
        return directive
    seen: set[str] = set()
    for word in words:
        key, has_value, value = word.partition("=")
        if key in seen and key in OPTION_WORDS.values():
            # As on two lines: the same option twice is refused, not the last one kept.
            raise _Invalid(f"{key} given twice")
        seen.add(key)
        if key in GROUP_WORDS and not has_value:
            if group is not None:
                raise _Invalid("one group directive per line")
            group = key
        elif key == "no-retry" and not has_value:
            directive.options["no_retry"] = True
        elif key in ("lock-timeout", "statement-timeout") and has_value:
            ms = _duration(value, key)
            if key == "lock-timeout" and ms == 0:
                if not _is_zero(value):
                    # Whole milliseconds, as the server keeps them: 0.4ms is 0, no limit.
                    raise _Invalid(
                        f"lock-timeout={value} is 0 in whole milliseconds, which would wait "
                        "forever; the runner always keeps a lock timeout (at least 1ms)"
                    )
                raise _Invalid(
                    "lock-timeout=0 would wait forever; the runner always keeps a lock timeout"
                )
            if ms == 0 and not _is_zero(value):
                # Whole milliseconds, as the server keeps them: 0.4ms would silently be no
                # statement timeout at all (issue 21 review21c F8).
                raise _Invalid(
                    f"statement-timeout={value} is 0 in whole milliseconds, which is no "
                    "statement timeout at all; write statement-timeout=0 for none, or at "
                    "least 1ms"
                )
            directive.options[key.replace("-", "_") + "_ms"] = ms
        elif key == "max-attempts" and has_value:
            if (
                not (value.isascii() and value.isdigit())
                or len(value) > 4
                or not 1 <= int(value) <= 1000
            ):
                raise _Invalid(f"max-attempts must be a whole number from 1 to 1000, got {value!r}")
            directive.options["max_attempts"] = int(value)
        elif key == "batch-size" and has_value:
            if (
                not (value.isascii() and value.isdigit())
                or len(value) > 7
                or not 1 <= int(value) <= MAX_BATCH_SIZE
            ):
                raise _Invalid(
                    f"batch-size must be a whole number from 1 to {MAX_BATCH_SIZE:,}, got {value!r}"
                )
            directive.options["batch_size"] = int(value)
        elif key in ("batch-pause", "max-replica-lag") and has_value:
            directive.options[key.replace("-", "_") + "_ms"] = _duration(value, key)
        else:
            raise _Invalid(f"unknown safemigrate directive {word!r}", hint=_KNOWN)
    directive.groups = (group,) if group is not None else ()
    return directive


def _is_zero(value: str) -> bool:
    """True when the duration ``value`` is written as zero (``0``, ``0s``, ``0.0ms``)."""
    number = value.strip().rstrip("abcdefghijklmnopqrstuvwxyz").strip()
    return bool(number) and set(number) <= {"0", "."} and "0" in number


def _duration(value: str, key: str) -> int:
    try:
        return parse_duration(value, key=f"directive {key}")
    except ConfigError as err:
        raise _Invalid(err.message) from None


def read_comments(
    text: str, tokens: Iterable[Any], starts: list[int]
) -> tuple[list[Directive], list[AllowComment], list[DirectiveProblem]]:
    """The directives and allow comments among ``tokens`` (pglast scanner tokens of ``text``),
    in file order, and the problems of the directives.

    ``starts`` are the offsets where lines begin, for line numbers.
    """
    directives: list[Directive] = []
    allows: list[AllowComment] = []
    problems: list[DirectiveProblem] = []
    for token in tokens:
        if token.name not in ("SQL_COMMENT", "C_COMMENT"):
            continue
        comment = text[token.start : token.end + 1]
        line = bisect_right(starts, token.start)
        alike = look_alike(comment)
        if alike is not None:
            problems.append(look_alike_problem(line, comment, alike))
            continue
        body = directive_body(comment) if token.name == "SQL_COMMENT" else None
        if body is None:
            continue
        line_start = starts[line - 1]
        own_line = not text[line_start : token.start].strip()
        words = body.split(None, 1)
        if words and words[0] == ALLOW_WORD:
            allow = words[1] if len(words) > 1 else ""
            column = token.start - line_start + 1
            allows.append(AllowComment(token.start, token.end + 1, line, column, allow, own_line))
            continue
        try:
            if not own_line:
                raise _Invalid(_OWN_LINE)
            directive = parse_directive(line, body)
        except _Invalid as err:
            problems.append(DirectiveProblem(line, err.message, err.hint))
            named = body.split()
            directive = Directive(
                line=line, groups=tuple(w for w in GROUP_WORDS if w in named), valid=False, offset=0
            )
        directive.offset = token.start
        directives.append(directive)
    return directives, allows, problems


def invalid_inside(directive: Directive) -> DirectiveProblem:
    """The problem of a directive written inside a statement (it is then invalid)."""
    directive.valid = False
    directive.options = {}
    return DirectiveProblem(directive.line, _OWN_LINE)
