"""Step checksums: what drift detection compares. Pure, no I/O.

Three checksums of a step's statements (each statement's text exactly as written in the file,
without its semicolon), SHA-256 hex digests over the statements each followed by a NUL byte:

- :func:`token_checksum`: of each statement's tokens, as PostgreSQL's own scanner (pglast)
  cuts them: every token but comments, each with its exact text (keywords as written, string
  constants and quoted names with every character inside them, ``$$`` bodies whole). Blanks
  and comments between tokens do not count, so a statement reindented, rewrapped or given one
  more space is the same statement (review21c F4), and two statements that differ in any
  token are not. A continued string constant (``'one, '`` newline ``'two'``), which the
  scanner returns as one token spanning the blanks, newlines and ``--`` comments between its
  pieces, counts as its pieces only (see :func:`continued_pieces`). A COPY's data lines count
  as written, except that a text-format block whose every line ends in CR LF counts as if it
  ended in LF: the server reads both as the same rows (see :func:`copy_data_lines`). New
  journal rows store this one.
- :func:`legacy_token_checksum`: the token checksum as this release first wrote it (a
  continued constant's whole span, data lines byte for byte), still accepted.

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

A step matches a journal row when the row's checksum equals any of the four
(:func:`matches`), so rows written by earlier releases keep matching their unchanged files
(their layout can only be compared as they recorded it: bytes, or bytes without trailing
blanks).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from itertools import zip_longest
from typing import Any

#: Scanner tokens whose text carries no meaning: blanks inside them may go.
_COMMENTS = frozenset({"SQL_COMMENT", "C_COMMENT"})
#: What counts as a blank at the end of a line (CR only before LF: a lone CR is kept).
_BLANKS = " \t\r"


def _feed(digest: Any, text: str) -> None:
    """One statement's text into a checksum being made: the text, then a NUL byte."""
    digest.update(text.encode())
    digest.update(b"\x00")


def _digest(texts: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for text in texts:
        _feed(digest, text)
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
    """The texts of ``text``'s tokens other than comments, in order, a continued string
    constant as its pieces (see :func:`continued_pieces`); None when it does not scan."""
    found = _scanned(text)
    return None if found is None else [_joined(token) for token in found]


def _scanned(text: str) -> list[str] | None:
    """The exact texts of ``text``'s tokens other than comments, as the scanner spans them."""
    from pglast import parser

    try:
        scanned = parser.scan(text)
    except parser.ParseError:
        return None
    return [text[t.start : t.end + 1] for t in scanned if t.name not in _COMMENTS]


#: What may stand between two pieces of a continued constant (scan.l's quotecontinue: blanks
#: with at least one newline, and ``--`` comments).
_BETWEEN = frozenset(" \t\n\r\f\v")


def continued_pieces(token: str) -> list[str] | None:
    """The quoted pieces of a string constant token, each exactly as written (the first with
    its ``E``/``U&``/``B``/``X`` prefix); None when ``token`` is not a quoted constant (or not
    one this reads: then it counts whole).

    PostgreSQL joins ``'a'`` and ``'b'`` separated by blanks holding a newline (and ``--``
    comments) into one constant ``'ab'``, and its scanner returns the whole span as one token.
    The pieces keep their prefix's rules: in an ``E''`` constant a backslash escapes the next
    character, in every other a quote is doubled. Dollar quotes never continue.
    """
    head = token[:2].upper()
    first = 2 if head == "U&" else 1 if head[:1] in "EBX" and head[1:] == "'" else 0
    backslash = head[:1] == "E"
    pieces: list[str] = []
    start = position = first
    size = len(token)
    while True:
        if position >= size or token[position] != "'":
            return None
        position += 1
        while True:
            if position >= size:
                return None
            char = token[position]
            if backslash and char == "\\":
                position += 2
            elif char != "'":
                position += 1
            elif token.startswith("''", position):
                position += 2
            else:
                break
        position += 1
        pieces.append(token[0 if not pieces else start : position])
        if position == size:
            return pieces
        while position < size and token[position] != "'":
            if token.startswith("--", position):
                position = token.find("\n", position)
                if position < 0:
                    return None
            elif token[position] in _BETWEEN:
                position += 1
            else:
                return None
        start = position


def _joined(token: str) -> str:
    """A continued constant as its pieces, one newline between them (the shortest spelling
    PostgreSQL reads as the same constant: a plain concatenation ``'a''b'`` would be the
    one-piece ``a'b``); any other token as written."""
    if "\n" not in token or token[-1:] != "'":
        return token
    pieces = continued_pieces(token)
    return token if pieces is None else "\n".join(pieces)


def copy_data_lines(statement: str, data: str) -> str:
    """What a COPY's data lines count as: ``data`` with the CR of each CR LF line end removed
    when every line (the ``\\.`` line too) ends in CR LF and the COPY is in text format;
    else ``data`` as written.

    The server takes the line end of a text-format COPY from its first line and strips it
    from every line (a lone LF after CR LF, or a CR after LF, is an error: "literal newline /
    carriage return found in data"), so a block converted from LF to CR LF (git's autocrlf)
    loads the same rows. Not in CSV, where a quoted value may hold the line end itself.
    """
    lines = data.split("\n")
    if not data or not all(line.endswith("\r") for line in lines):
        return data
    if not _text_format_copy(statement):
        return data
    return "\n".join(line[:-1] for line in lines)


def _text_format_copy(statement: str) -> bool:
    """True when ``statement`` is one COPY in text format (no FORMAT option, or text)."""
    import pglast

    try:
        parsed = pglast.parse_sql(statement)
    except pglast.parser.ParseError:
        return False
    copy = parsed[0].stmt if len(parsed) == 1 else None
    if type(copy).__name__ != "CopyStmt":
        return False
    options: Iterable[Any] = getattr(copy, "options", None) or ()
    for option in options:
        if option.defname == "format" and str(getattr(option.arg, "sval", "")).lower() != "text":
            return False
    return True


def _token_text(found: list[str] | None, text: str) -> str:
    """What a token checksum digests of one statement: each token's length and text (the
    length keeps ``ab`` apart from ``a b``); the text as written when it does not scan."""
    if found is None:
        return "unscanned:" + text
    return "".join(f"{len(token)}:{token}" for token in found)


def token_checksums(texts: Iterable[str], verbatim: Iterable[str] = ()) -> tuple[str, str]:
    """The :func:`token_checksum` and the :func:`legacy_token_checksum` of the statements,
    from one scan of each."""
    token, legacy, _ = token_checksums_each(texts, verbatim)
    return token, legacy


def token_checksums_each(
    texts: Iterable[str], verbatim: Iterable[str] = ()
) -> tuple[str, str, tuple[str, ...]]:
    """:func:`token_checksums`, and the :func:`token_checksum` of each statement as a step of
    its own (:func:`statement_checksums`), from one scan of each."""
    texts, verbatim = list(texts), list(verbatim)
    current: list[str] = []
    legacy: list[str] = []
    data: list[str] = []
    for text, lines in zip_longest(texts, verbatim, fillvalue=""):
        scanned = _scanned(text)
        joined = None if scanned is None else [_joined(token) for token in scanned]
        current.append(_token_text(joined, text))
        legacy.append(_token_text(scanned, text))
        data.append(copy_data_lines(text, lines) if lines else lines)
    return (
        _digest(_with_verbatim(current, data)),
        _digest(_with_verbatim(legacy, verbatim)),
        tuple(_digest(_with_verbatim([c], [d])) for c, d in zip(current, data, strict=True)),
    )


def token_checksum(texts: Iterable[str], verbatim: Iterable[str] = ()) -> str:
    """SHA-256 of the statements' tokens (see :func:`tokens`): what new rows store. Each is
    followed by its ``verbatim`` part: the data lines of a COPY ... FROM STDIN, which are
    data, not tokens (a tab at the end of a line is an empty last column), as written but for
    CR LF line ends of a text-format block (see :func:`copy_data_lines`)."""
    return token_checksums(texts, verbatim)[0]


def legacy_token_checksum(texts: Iterable[str], verbatim: Iterable[str] = ()) -> str:
    """The token checksum as this release first wrote it: a continued constant's span whole
    (blanks and comments between its pieces included), data lines as written. Accepted, so
    that rows written then keep matching their unchanged files."""
    return token_checksums(texts, verbatim)[1]


def normalized_checksum(texts: Iterable[str], verbatim: Iterable[str] = ()) -> str:
    """SHA-256 of the statements' normalized texts (see :func:`normalize`), each followed by
    its ``verbatim`` part, not normalized: what rows written before token checksums hold."""
    return _digest(_with_verbatim((normalize(text) for text in texts), verbatim))


def all_checksums(texts: Iterable[str], verbatim: Iterable[str] = ()) -> tuple[str, str, str, str]:
    """The token, normalized, raw and legacy token checksums of ``texts`` (with their
    ``verbatim`` parts): any of them may be stored."""
    texts, verbatim = list(texts), list(verbatim)
    token, legacy = token_checksums(texts, verbatim)
    return (
        token,
        normalized_checksum(texts, verbatim),
        raw_checksum(texts, verbatim),
        legacy,
    )


def statement_checksums(texts: Iterable[str], verbatim: Iterable[str] = ()) -> tuple[str, ...]:
    """The :func:`token_checksum` of each statement as a step of its own, in order: what a
    journal row records of the statements of its step, so that an edited step is compared
    with what ran statement by statement (``planning.edited_in_place``)."""
    pairs = zip_longest(list(texts), list(verbatim), fillvalue="")
    return tuple(token_checksum([text], [data]) for text, data in pairs)


def statement_units(text: str, verbatim: str = "") -> tuple[str, str, str, str]:
    """What the token, normalized, raw and legacy token checksums each digest of one statement
    (with its ``verbatim`` part): :func:`digest` of one kind's units of some statements is
    that kind's checksum of them, so that the checksums of many selections of a step's
    statements are made without scanning a statement twice (``planning.matching``)."""
    scanned = _scanned(text)
    joined = None if scanned is None else [_joined(token) for token in scanned]
    data = copy_data_lines(text, verbatim) if verbatim else verbatim
    return (
        next(_with_verbatim([_token_text(joined, text)], [data])),
        next(_with_verbatim([normalize(text)], [verbatim])),
        next(_with_verbatim([text], [verbatim])),
        next(_with_verbatim([_token_text(scanned, text)], [verbatim])),
    )


def digest(units: Iterable[str]) -> str:
    """The checksum of statements from their :func:`statement_units` of one kind."""
    return _digest(units)


def prefix_digests(
    units: Iterable[str],
    *,
    before: str | None = None,
    after: str | None = None,
    shortest: int = 1,
) -> Iterator[str]:
    """The checksum of each prefix of ``units`` (one kind's :func:`statement_units` of
    consecutive statements) of ``shortest`` units or more, shortest first, in one pass over
    them; ``before`` and ``after`` (one statement's units of that kind, such as a block's
    BEGIN and COMMIT) stand before and after every prefix when given."""
    running = hashlib.sha256()
    if before is not None:
        _feed(running, before)
    closing = None if after is None else after.encode() + b"\x00"
    for length, unit in enumerate(units, start=1):
        running.update(unit.encode() + b"\x00")
        if length < shortest:
            continue
        if closing is None:
            yield running.hexdigest()
            continue
        closed = running.copy()
        closed.update(closing)
        yield closed.hexdigest()


def matches(stored: str, texts: Iterable[str], verbatim: Iterable[str] = ()) -> bool:
    """True when a journal row's checksum is the token, normalized, raw or legacy token
    checksum of ``texts`` (with their ``verbatim`` parts)."""
    return stored in all_checksums(texts, verbatim)
