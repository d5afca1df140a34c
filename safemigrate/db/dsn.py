"""Where the DSN comes from, and how it is shown without its password."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from urllib.parse import unquote

import psycopg
from psycopg.conninfo import conninfo_to_dict

from ..errors import BadInputError

#: Shown instead of a secret.
MASK = "********"


#: Where a DSN may come from when ``require_dsn`` is on, in order.
DSN_VARIABLES = ("SAFEMIGRATE_DSN", "DATABASE_URL")
#: libpq's variables that name a server, a database, a user or a service. An environment that
#: sets one of them has chosen its database; PGPASSWORD, PGSSLMODE and the like choose nothing.
LIBPQ_TARGET_VARIABLES = ("PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE")
#: The source named when libpq's PG* variables supply the connection.
LIBPQ_SOURCE = "libpq's PG* environment variables"


def resolve_dsn(
    flag: str | None, environ: Mapping[str, str], *, require_dsn: bool = False
) -> tuple[str, str]:
    """The DSN and where it came from: --dsn, SAFEMIGRATE_DSN, DATABASE_URL, else libpq's PG*
    variables.

    Never libpq's built-in defaults alone (the local socket, the OS user's database): when
    nothing names a database the run is refused (exit 2), since a run nobody pointed anywhere
    must not apply migrations to whatever database happens to answer. With ``require_dsn`` the
    PG* variables do not count either. An empty ``--dsn`` (an unset shell variable in
    ``--dsn "$DSN"``) is refused rather than skipped.
    """
    if flag is not None:
        if not flag.strip():
            raise BadInputError("--dsn: is empty; give a connection string or a postgresql:// URL")
        return flag, "--dsn"
    for name in DSN_VARIABLES:
        if environ.get(name, "").strip():
            return environ[name], name
    if require_dsn:
        raise BadInputError(
            "no database given, and require_dsn is on: pass --dsn, or set SAFEMIGRATE_DSN or "
            "DATABASE_URL (libpq's PG* variables and defaults are not used)"
        )
    if not any(environ.get(name) for name in LIBPQ_TARGET_VARIABLES):
        raise BadInputError(
            "no database given: pass --dsn, or set SAFEMIGRATE_DSN, DATABASE_URL or libpq's "
            "PGHOST/PGDATABASE; safemigrate does not fall back to libpq's built-in defaults"
        )
    return "", LIBPQ_SOURCE


def parse_dsn(dsn: str, source: str) -> dict[str, str]:
    """The DSN's parameters; a DSN libpq cannot parse is bad input naming its source."""
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as err:
        message = explain_parse_error(str(err).splitlines()[0])
        message = redact(message, secrets_of(dsn))
        raise BadInputError(f"{source}: invalid connection string: {message}") from None
    return {k: str(v) for k, v in params.items() if v is not None}


def explain_parse_error(message: str) -> str:
    """libpq's complaint about a connection string, without the text it quotes.

    libpq quotes the token it could not read, which may be (part of) a password, so no quoted
    token is repeated: the message keeps only libpq's own syntax (``"="``, ``"]"``) and names
    of libpq keywords, and says what a connection string looks like.
    """
    message = message.strip().removesuffix(" in connection info string")
    if message.startswith('missing "=" after'):
        return f'missing "=" after a word; {EXPECTED_FORMS}'
    for prefix, what in (
        ("invalid connection option", "unknown connection option"),
        ("invalid URI query parameter", "unknown URI query parameter"),
    ):
        if message.startswith(prefix):
            return f"{what}{_suggestion(_quoted(message))}; {EXPECTED_FORMS}"
    if message.startswith("invalid percent-encoded token"):
        return "invalid percent-encoding in the URL (a % must be followed by two hex digits)"
    kept = _QUOTED.sub(lambda m: m.group(0) if m.group(1) in _SYNTAX_TOKENS else "", message)
    return " ".join(kept.replace(" :", ":").split()).rstrip(": ") or "cannot be parsed"


#: How a valid connection string looks, for messages.
EXPECTED_FORMS = "expected key=value pairs (host=... dbname=...) or a postgresql:// URL"
_QUOTED = re.compile(r'"([^"]*)"')
# Quoted by libpq as syntax, never user text.
_SYNTAX_TOKENS = frozenset({"=", "]"})


def _quoted(message: str) -> str:
    found = _QUOTED.search(message)
    return found.group(1) if found else ""


def _suggestion(word: str) -> str:
    """`` (did you mean "host"?)`` when ``word`` is close to a libpq keyword; the word itself
    is never shown."""
    keywords = [k.keyword.decode() for k in psycopg.pq.Conninfo.get_defaults()]
    close = difflib.get_close_matches(word.lower(), keywords, n=1, cutoff=0.75)
    return f' (did you mean "{close[0]}"?)' if close else ""


def secrets_of(dsn: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """Every string that must never be printed: the DSN's password, PGPASSWORD, the raw DSN."""
    found = []
    try:
        password = conninfo_to_dict(dsn).get("password")
    except psycopg.ProgrammingError:
        password = None
        # An unparseable DSN may still hold a password; never echo any of it, nor the
        # password-looking parts libpq might quote on their own.
        if dsn:
            found.append(dsn)
            found += _password_candidates(dsn)
    if password:
        found.append(str(password))
    if environ is not None and environ.get("PGPASSWORD"):
        found.append(environ["PGPASSWORD"])
    return found


def _password_candidates(dsn: str) -> list[str]:
    """What looks like a password in a DSN libpq cannot parse: URL userinfo, password=."""
    found = []
    if "://" in dsn:
        userinfo = dsn.split("://", 1)[1].split("@", 1)
        if len(userinfo) == 2 and ":" in userinfo[0]:
            secret = userinfo[0].split(":", 1)[1]
            found += [secret, unquote(secret)]
        query = dsn.split("?", 1)[1] if "?" in dsn else ""
        for item in query.split("&"):
            key, _, value = item.partition("=")
            if key == "password" and value:
                found += [value, unquote(value)]
    for word in dsn.split():
        key, _, value = word.partition("=")
        if key == "password" and value:
            found += [value, value.strip("'")]
    return [f for f in found if f]


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced by a mask, longest first."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret:
            text = text.replace(secret, MASK)
    return text


def describe(params: Mapping[str, str]) -> str:
    """A password-free description of the target, e.g. ``postgres@db.example:5432/shop``."""
    user = params.get("user", "")
    host = params.get("host", "") or "local socket"
    port = params.get("port", "")
    dbname = params.get("dbname", "")
    where = f"{host}:{port}" if port else host
    return f"{user + '@' if user else ''}{where}/{dbname}"
