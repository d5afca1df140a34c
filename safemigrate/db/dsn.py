"""Where the DSN comes from, and how it is shown without its password."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import unquote

import psycopg
from psycopg.conninfo import conninfo_to_dict

from ..errors import BadInputError

#: Shown instead of a secret.
MASK = "********"


def resolve_dsn(flag: str | None, environ: Mapping[str, str]) -> tuple[str, str]:
    """The DSN and where it came from: --dsn, SAFEMIGRATE_DSN, DATABASE_URL, or libpq defaults."""
    if flag:
        return flag, "--dsn"
    for name in ("SAFEMIGRATE_DSN", "DATABASE_URL"):
        if environ.get(name):
            return environ[name], name
    return "", "libpq defaults (PG* environment variables)"


def parse_dsn(dsn: str, source: str) -> dict[str, str]:
    """The DSN's parameters; a DSN libpq cannot parse is bad input naming its source."""
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as err:
        message = str(err).splitlines()[0]
        # libpq quotes the token it could not read, which may be (part of) a password.
        message = message.split('"')[0].rstrip(": ") if '"' in message else message
        message = redact(message, secrets_of(dsn))
        raise BadInputError(f"{source}: invalid connection string: {message}") from None
    return {k: str(v) for k, v in params.items() if v is not None}


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
