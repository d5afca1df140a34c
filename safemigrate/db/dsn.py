"""Where the DSN comes from, and how it is shown without its password."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

import psycopg
from psycopg.conninfo import conninfo_to_dict

from ..core.errors import BadInputError

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


def parse_dsn(dsn: str, source: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The DSN's parameters; a DSN libpq cannot parse, or a value libpq would refuse only when
    connecting (a port that is not a number, an unknown sslmode: bad input, not a connection
    failure), is bad input naming its source and the parameter. ``environ``'s PG* variables
    are checked the same way where the DSN leaves the parameter to them."""
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as err:
        message = explain_parse_error(str(err).splitlines()[0])
        message = redact(message, secrets_of(dsn))
        raise BadInputError(f"{source}: invalid connection string: {message}") from None
    except UnicodeDecodeError:
        # psycopg decodes libpq's parsed values as UTF-8 (a URL's %ff).
        raise BadInputError(
            f"{source}: invalid connection string: a percent-encoded value is not UTF-8 text"
        ) from None
    found = {k: str(v) for k, v in params.items() if v is not None}
    for key, value in found.items():
        _check_value(key, value, f"{source}: {key}")
    for key, variable in _ENV_OF.items():
        if key not in found and environ is not None and environ.get(variable):
            _check_value(key, environ[variable], variable)
    return found


#: libpq's options whose values it checks only when connecting, with the values it accepts
#: (libpq's fe-connect.c); None: a non-negative integer (a list of them for port).
_CHOICES: Mapping[str, tuple[str, ...] | None] = {
    "port": None,
    "connect_timeout": None,
    "keepalives": None,
    "keepalives_idle": None,
    "keepalives_interval": None,
    "keepalives_count": None,
    "sslmode": ("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
    "gssencmode": ("disable", "prefer", "require"),
    "channel_binding": ("disable", "prefer", "require"),
    "target_session_attrs": (
        "any",
        "read-write",
        "read-only",
        "primary",
        "standby",
        "prefer-standby",
    ),
    "load_balance_hosts": ("disable", "random"),
    "sslnegotiation": ("postgres", "direct"),
}
#: The PG* variable libpq reads for each of those options.
_ENV_OF: Mapping[str, str] = {
    "port": "PGPORT",
    "connect_timeout": "PGCONNECT_TIMEOUT",
    "sslmode": "PGSSLMODE",
    "gssencmode": "PGGSSENCMODE",
    "channel_binding": "PGCHANNELBINDING",
    "target_session_attrs": "PGTARGETSESSIONATTRS",
    "load_balance_hosts": "PGLOADBALANCEHOSTS",
}


def _check_value(key: str, value: str, where: str) -> None:
    """Refuse (exit 2) a value of ``key`` that libpq would refuse when connecting."""
    if key not in _CHOICES:
        return
    choices = _CHOICES[key]
    shown = value if len(value) <= 40 else value[:37] + "..."
    if choices is None:
        items = value.split(",") if key == "port" else [value]
        for item in items:
            item = item.strip()
            if item == "" and key == "port":
                continue  # an empty entry of a host list takes the default port
            if not item.isdigit() or (key == "port" and not 0 < int(item) < 65536):
                what = "a port number (1 to 65535)" if key == "port" else "a whole number"
                raise BadInputError(f"{where}: must be {what}, not {shown!r}")
        return
    if value not in choices:
        raise BadInputError(f"{where}: must be one of {', '.join(choices)}; not {shown!r}")


def normalize(dsn: str, source: str) -> str:
    """The DSN in libpq's own form: the URLs other tools write are mapped (docs/connecting.md,
    "Other tools' connection strings"); key=value strings and libpq URLs are returned unchanged.

    - ``postgresql+psycopg://``, ``postgresql+psycopg2://``, ``postgresql+asyncpg://`` ...
      (SQLAlchemy, yoyo): the driver part is dropped;
    - ``jdbc:postgresql://`` (Flyway, Liquibase): ``jdbc:`` is dropped; its ``user``,
      ``password``, ``ssl=true`` (sslmode=require), ``sslmode``, ``sslcert``, ``sslkey``,
      ``sslrootcert``, ``ApplicationName``, ``connectTimeout`` and ``targetServerType`` map to
      libpq's, ``currentSchema`` to the search_path; libpq's own names pass; any other
      pgJDBC parameter is refused, named;
    - dbmate's and lib/pq's ``socket=DIR`` is libpq's ``host=DIR``; ``search_path`` (dbmate,
      golang-migrate) and ``schema`` (yoyo, Prisma) become ``options=-csearch_path=...``;
    - golang-migrate's ``x-multi-statement`` and ``x-multi-statement-max-size`` are dropped
      (safemigrate splits statements itself); its other ``x-`` parameters carry meaning
      safemigrate cannot honour from a URL and are refused, naming the parameter and the
      setting that does it.

    Any other parameter libpq does not know is refused by libpq (exit 2, naming it).
    """
    text = dsn.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        return dsn
    lowered = scheme.lower()
    jdbc = lowered == "jdbc:postgresql"
    base = lowered.removeprefix("jdbc:").split("+", 1)[0]
    if base not in ("postgresql", "postgres"):
        return dsn
    try:
        parts = urlsplit("postgresql://" + rest)
    except ValueError as err:
        # Issue 22 review F3: Python's URL parser, not libpq, refuses it; its message may quote
        # the host, never shown.
        raise BadInputError(f"{source}: invalid URL: {_url_problem(str(err))}") from None
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    query = []
    for key, value in pairs:
        query += _map_parameter(key, value, source, jdbc=jdbc)
    keywords = _keywords()
    for key, _ in query:
        if key not in keywords:
            # The parameter's name is shown (never its value): libpq's own message omits it.
            raise BadInputError(
                f"{source}: unknown URL query parameter {key[:40]!r}"
                f"{_suggestion(key)}; {EXPECTED_FORMS}"
            )
    if not jdbc and "+" not in lowered and query == pairs:
        return dsn
    encoded = urlencode(query, quote_via=quote, safe="/")
    return f"postgresql://{parts.netloc}{parts.path}" + (f"?{encoded}" if encoded else "")


def _url_problem(message: str) -> str:
    """What is wrong with a URL Python's ``urlsplit`` refused, without quoting any of it."""
    if "Invalid IPv6 URL" in message:
        return "an unmatched '[' or ']' in the host part (an IPv6 address is written [::1])"
    if "IPv4 or IPv6" in message:
        return "the host between '[' and ']' is not an IPv6 address"
    return f"it cannot be parsed; {EXPECTED_FORMS}"


def _keywords() -> set[str]:
    """Every connection option libpq knows."""
    return {k.keyword.decode() for k in psycopg.pq.Conninfo.get_defaults()}


#: golang-migrate's URL parameters that only change how it splits a file (safemigrate splits
#: with PostgreSQL's parser): dropped.
_DROPPED = frozenset({"x-multi-statement", "x-multi-statement-max-size"})
#: Other tools' URL parameters safemigrate refuses, with what to use instead.
_REFUSED: Mapping[str, str] = {
    "x-migrations-table": "name golang-migrate's history table with the tool_history_table "
    'setting instead (tool_history_table = "schema.table")',
    "x-migrations-table-quoted": "name golang-migrate's history table with the "
    'tool_history_table setting instead (tool_history_table = "schema.table")',
    "x-statement-timeout": "use --statement-timeout or statement_timeout",
    "x-lock-timeout": "use --lock-timeout or lock_timeout",
    "x-lock-strategy": "safemigrate takes its own run lock (pg_try_advisory_lock)",
    "x-advisory-lock-id": "safemigrate takes its own run lock (pg_try_advisory_lock)",
}
#: pgJDBC's names for libpq's options.
_JDBC: Mapping[str, str] = {
    "user": "user",
    "password": "password",
    "sslmode": "sslmode",
    "applicationname": "application_name",
    "connecttimeout": "connect_timeout",
    "sslcert": "sslcert",
    "sslkey": "sslkey",
    "sslrootcert": "sslrootcert",
    "targetservertype": "target_session_attrs",
}


def _map_parameter(key: str, value: str, source: str, *, jdbc: bool) -> list[tuple[str, str]]:
    """libpq's parameters for one URL parameter of another tool's (or itself)."""
    if key == "socket":
        return [("host", value)]
    # yoyo's schema= is its connection's search_path (yoyo/backends/core/postgresql.py:
    # SET search_path TO <schema>): its _yoyo_migration and its migrations' tables are there.
    if (
        key == "search_path"
        or (key == "schema" and not jdbc)
        or (jdbc and key.lower() == "currentschema")
    ):
        return [("options", f"-csearch_path={value.replace(' ', '')}")]
    if key in _DROPPED:
        return []
    if key.startswith("x-"):
        instead = _REFUSED.get(key, "it is golang-migrate's, not libpq's")
        raise BadInputError(
            f"{source}: URL parameter {key!r} is not supported: {instead}",
            hint="remove it from the URL"
            + (" and set tool_history_table" if key.startswith("x-migrations-table") else ""),
        )
    if jdbc:
        lowered = key.lower()
        if lowered == "ssl":
            return [("sslmode", "require")] if value.lower() in ("true", "") else []
        if lowered in _JDBC:
            mapped = _JDBC[lowered]
            if mapped == "target_session_attrs":
                value = {"master": "primary", "secondary": "standby"}.get(value, value)
            return [(mapped, value)]
        if key in _keywords():
            return [(key, value)]  # libpq's own name: meant for libpq
        raise BadInputError(
            f"{source}: JDBC parameter {key!r} has no libpq equivalent safemigrate maps",
            hint="mapped: user, password, ssl, sslmode, sslcert, sslkey, sslrootcert, "
            "ApplicationName, connectTimeout, currentSchema, targetServerType",
        )
    return [(key, value)]


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
    # Here, not at the top: only a bad DSN needs difflib, and every command imports this module.
    import difflib

    keywords = [k.keyword.decode() for k in psycopg.pq.Conninfo.get_defaults()]
    close = difflib.get_close_matches(word.lower(), keywords, n=1, cutoff=0.75)
    return f' (did you mean "{close[0]}"?)' if close else ""


def secrets_of(dsn: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """Every string that must never be printed: the DSN's password, PGPASSWORD, the raw DSN."""
    found = []
    try:
        password = conninfo_to_dict(dsn).get("password")
    except (psycopg.ProgrammingError, UnicodeDecodeError):
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
