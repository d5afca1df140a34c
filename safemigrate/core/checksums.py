"""Step checksums: what drift detection compares. Pure, no I/O.

Three checksums of a step's statements (each statement's text exactly as written in the file,
without its semicolon), SHA-256 hex digests over the statements each followed by a NUL byte:

- :func:`token_checksum`: of each statement's tokens, as PostgreSQL's own scanner (pglast)
  cuts them: every token but comments, each with its exact text (keywords as written, string
  constants and quoted names with every character inside them, ``$$`` bodies whole). Blanks
  and comments between tokens do not count, so a statement reindented, rewrapped or given one
  more space is the same statement (review21c F4), and two statements that differ in any
  token are not. New journal rows store this one.

- :func:`raw_checksum`: of the texts as written. Journals written by safemigrate 0.x before
  normalized checksums hold this one.
- :func:`normalized_checksum`: of the texts with a carriage return before a line feed and
  spaces/tabs at the end of a line removed -- but only where that cannot change what the
  server sees: outside string literals (``'...'``, ``E'...'``, ``$$...$$`` bodies) and quoted
  identifiers (``"..."``), where such characters are part of a value or a name. Outside those
  tokens a line end is whitespace between tokens (or ends a ``--`` comment, which a CR or LF
  both end), so removing blanks before it leaves the token sequence the server parses
  unchanged. Rows written before token checksums hold this one.

Where a line end falls is decided with PostgreSQL's own scanner (pglast): every token other
than a comment protects the characters it spans. If the text does not scan, nothing is
normalized (the raw checksum is the normalized one): a checksum that sees too much only means
a drift report, never a missed change.

A step matches a journal row when the row's checksum equals any of the three
(:func:`matches`), so rows written by earlier releases keep matching their unchanged files
(their layout can only be compared as they recorded it: bytes, or bytes without trailing
blanks).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from itertools import zip_longest

#: Scanner tokens whose text carries no meaning: blanks inside them may go.
_COMMENTS = frozenset({"SQL_COMMENT", "C_COMMENT"})
#: What counts as a blank at the end of a line (CR only before LF: a lone CR is kept).
_BLANKS = " \t\r"


def _digest(texts: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode())
        digest.update(b"\x00")
    return digest.hexdigest()


#: The checksum of no statements: the step of an empty migration (a file with only comments).
EMPTY = hashlib.sha256().hexdigest()


def _with_verbatim(texts: Iterable[str], verbatim: Iterable[str]) -> Iterator[str]:
    """Each text followed by its verbatim part (a COPY's data lines; "" for most)."""
    pairs = zip_longest(texts, verbatim, fillvalue="")
    return (f"{text}\n{data}" if data else text for text, data in pairs)


def raw_checksum(texts: Iterable[str], verbatim: Iterable[str] = ()) -> str:
    """SHA-256 of the statements' texts exactly as written (the previous release's checksum),
    each followed by its ``verbatim`` part (the data lines of a COPY ... FROM STDIN)."""
    return _digest(_with_verbatim(texts, verbatim))


def token_spans(text: str) -> list[tuple[int, int]] | None:
    """Half-open character spans of ``text``'s tokens other than comments, in order; None
    when it does not scan."""
    return _protected(text)


def _protected(text: str) -> list[tuple[int, int]] | None:
    """Half-open character spans of the tokens whose every character is meaningful (every
    token but comments), in order; None when ``text`` does not scan."""
    # pglast is imported here, not at module level: the model imports this module, and the
    # CLI's start (--help, --version) must not load the parser.
    from pglast import parser

    try:
        tokens = parser.scan(text)
    except parser.ParseError:
        return None
    return [(token.start, token.end + 1) for token in tokens if token.name not in _COMMENTS]


def normalize(text: str) -> str:
    """``text`` without CR before LF and blanks at line ends, outside literals and quoted names.

    Returns ``text`` unchanged when it does not scan.
    """
    if "\n" not in text:
        return text
    spans = _protected(text)
    if spans is None:
        return text
    out: list[str] = []
    span = 0
    copied = 0
    for position, char in enumerate(text):
        if char != "\n":
            continue
        while span < len(spans) and spans[span][1] <= position:
            span += 1
        inside = span < len(spans) and spans[span][0] <= position
        if inside:
            continue
        line = text[copied:position]
        out.append(line.rstrip(_BLANKS))
        out.append("\n")
        copied = position + 1
    out.append(text[copied:])
    return "".join(out)


def tokens(text: str) -> list[str] | None:
    """The texts of ``text``'s tokens other than comments, in order; None when it does not
    scan."""
    from pglast import parser

    try:
        scanned = parser.scan(text)
    except parser.ParseError:
        return None
    return [text[t.start : t.end + 1] for t in scanned if t.name not in _COMMENTS]


def _token_text(text: str) -> str:
    """What :func:`token_checksum` digests of one statement: each token's length and text (the
    length keeps ``ab`` apart from ``a b``); the text as written when it does not scan."""
    found = tokens(text)
    if found is None:
        return "unscanned:" + text
    return "".join(f"{len(token)}:{token}" for token in found)


def token_checksum(texts: Iterable[str], verbatim: Iterable[str] = ()) -> str:
    """SHA-256 of the statements' tokens (see :func:`tokens`): what new rows store. Each is
    followed by its ``verbatim`` part as written: the data lines of a COPY ... FROM STDIN,
    which are data, not tokens (a tab at the end of a line is an empty last column)."""
    return _digest(_with_verbatim((_token_text(text) for text in texts), verbatim))


def normalized_checksum(texts: Iterable[str], verbatim: Iterable[str] = ()) -> str:
    """SHA-256 of the statements' normalized texts (see :func:`normalize`), each followed by
    its ``verbatim`` part, not normalized: what rows written before token checksums hold."""
    return _digest(_with_verbatim((normalize(text) for text in texts), verbatim))


def all_checksums(texts: Iterable[str], verbatim: Iterable[str] = ()) -> tuple[str, str, str]:
    """The token, normalized and raw checksums of ``texts`` (with their ``verbatim`` parts):
    any of them may be stored."""
    texts, verbatim = list(texts), list(verbatim)
    return (
        token_checksum(texts, verbatim),
        normalized_checksum(texts, verbatim),
        raw_checksum(texts, verbatim),
    )


def matches(stored: str, texts: Iterable[str], verbatim: Iterable[str] = ()) -> bool:
    """True when a journal row's checksum is the token, normalized or raw checksum of
    ``texts`` (with their ``verbatim`` parts)."""
    return stored in all_checksums(texts, verbatim)
