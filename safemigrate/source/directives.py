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

import functools
import unicodedata
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
#: Pieces of ``_WORD`` of which any spelling a hand might give it keeps one, as
#: ``may_hold_directive`` looks for them: ``safemigarte``, ``sfaemigrate``, ``safe migrate``,
#: a look-alike letter in place of the ``s``.
_WORD_PIECES = ("safe", "afem", "femi", "emig")
#: How far (letters added, dropped, changed or swapped) a word may be from ``safemigrate`` and
#: still be read as a hand's spelling of it: ``safemigrat``, ``safemigarte``, ``safemigrates``.
_NEAR_DISTANCE = 2
#: Letters of other scripts that print as the Latin letters of ``safemigrate`` (Cyrillic and
#: Greek): a comment written with one is meant as the word.
_LOOK_ALIKE_LETTERS = str.maketrans(
    {
        "\u0430": "a",
        "\u0435": "e",
        "\u0456": "i",
        "\u0455": "s",
        "\u0442": "t",
        "\u0261": "g",
        "\u03b1": "a",
        "\u03b5": "e",
        "\u03b9": "i",
        "\u0131": "i",
    }
)
#: What may stand between the word and the directive's words in a look-alike: ``:`` and the
#: characters a hand puts in its place.
_SEPARATORS = ":;="
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
    return any(piece in folded for piece in _WORD_PIECES)


# Issue 26: a history repeats its comments (langfuse's 434 files hold 1,292, 480 of them
# different: ``-- CreateIndex`` 215 times), and each reading is a normalisation and an edit
# distance per head: each comment is read once per run.
@functools.lru_cache(maxsize=4096)
def look_alike(comment: str) -> str | None:
    """For the text of a comment (``--`` or ``/* */``) that reads as a directive but is not
    one, the words meant as the directive; None for a directive and for every other comment.

    It reads as one when a head of the comment (after its dashes for ``--``; for a block
    comment, each line after its leading ``*`` and each nested ``/*``) begins with the word
    ``safemigrate`` in any case followed by a colon (blanks allowed between them), or with that
    word or a hand's spelling of it (``safemigrates``, ``safe-migrate``, ``safe migrate``,
    ``safemigarte``, a look-alike letter, a zero-width character), with or without a colon,
    ``;`` or ``=``, followed by a directive word (``group-start``, ``batch-size=1000``, ...).
    Prose such as ``-- safemigrate runs this file`` stays a comment.
    """
    if comment.startswith("/*"):
        inner = comment[2:-2]
        heads: list[str] = []
        for piece in inner.split("/*"):
            # A nested comment's words end at its own ``*/``.
            lines = [line.strip().lstrip("*").strip() for line in piece.split("*/")[0].splitlines()]
            # From each line to the comment's end: the words may go on on the next line.
            heads.extend(" ".join(lines[start:]) for start in range(len(lines)))
    else:
        dashes = comment.lstrip("-")
        if len(comment) - len(dashes) == 2 and dashes.strip().startswith(DIRECTIVE_PREFIX):
            return None
        heads = [dashes.strip()]
    for head in heads:
        words = _look_alike_words(head)
        if words is not None:
            return words
    return None


def _look_alike_words(head: str) -> str | None:
    """The directive's words when ``head`` begins as a look-alike does (see ``look_alike``)."""
    text = "".join(
        char for char in unicodedata.normalize("NFKC", head) if unicodedata.category(char) != "Cf"
    )
    split = text.split()
    if not split:
        return None
    # The word as one token, or as two (``safe migrate``).
    for taken in (1, 2):
        if len(split) < taken:
            break
        name = "".join(split[:taken])
        rest = split[taken:]
        separator = ""
        for mark in _SEPARATORS:
            before, found, after = name.partition(mark)
            if found:
                name, separator = before, mark
                rest = [after, *rest] if after else rest
                break
        if not separator and rest and rest[0][:1] in _SEPARATORS:
            separator = rest[0][0]
            rest = [rest[0][1:], *rest[1:]] if rest[0][1:] else rest[1:]
        if not name[:1].isalpha() or not _near_word(name):
            # ``-- -- safemigrate: ...`` is a directive switched off, not a look-alike.
            continue
        # One word spelled right in another case with a colon is meant as the directive
        # whatever follows; split in two (`` * Safe migrate: yes``) it may be prose, so only
        # a directive word after it makes it one.
        exact = taken == 1 and name.casefold() == _WORD
        if (exact and separator == ":") or (rest and _directive_word(rest[0])):
            return " ".join(rest)
    return None


@functools.lru_cache(maxsize=4096)
def _near_word(word: str) -> bool:
    """True for ``safemigrate`` in any case and for a hand's spelling of it (``safemigrates``,
    ``safe-migrate``, ``safe_migrate``, at most ``_NEAR_DISTANCE`` edits away, look-alike
    letters read as the letters they print as)."""
    folded = word.casefold().translate(_LOOK_ALIKE_LETTERS).replace("-", "").replace("_", "")
    if not folded.isalpha() or abs(len(folded) - len(_WORD)) > _NEAR_DISTANCE:
        return False
    return _edits(folded, _WORD) <= _NEAR_DISTANCE


def _edits(a: str, b: str) -> int:
    """Letters added, dropped, changed or swapped with the next one to make ``a`` into ``b``
    (the optimal string alignment distance)."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[len(a)][len(b)]


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
    if contradicting(directive.options):
        raise _Invalid(CONTRADICTION)
    directive.groups = (group,) if group is not None else ()
    return directive


#: Why no-retry and max-attempts are refused together.
CONTRADICTION = (
    "no-retry and max-attempts contradict each other (no-retry is one attempt): keep one"
)


def contradicting(options: dict[str, Any]) -> bool:
    """True when step ``options`` (StepOptions field names) ask for no retry and for a number
    of attempts at once: one of them would be silently dropped."""
    return bool(options.get("no_retry")) and "max_attempts" in options


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
