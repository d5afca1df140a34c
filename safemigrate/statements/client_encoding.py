"""Statements that would change the session's client_encoding away from UTF8. Pure: facts from
PostgreSQL's own parse tree (pglast), no I/O.

The runner reads every migration file as UTF-8 and connects with ``client_encoding=UTF8`` (a
connection parameter, so an ``ALTER ROLE/DATABASE ... SET client_encoding`` does not reach
it). A migration that switches the encoding makes the server read the runner's later text
(the next steps, the journal rows) in another encoding and the runner read the server's
replies in it: ``SQL_ASCII`` turns every text value into bytes, ``LATIN1`` cannot carry a
character outside Latin-1. pg_dump writes ``SET client_encoding = '...'`` at the top of a
dump in the dumped database's encoding, so such files are common; ``'UTF8'`` (and its
aliases) is accepted, any other value refused before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pglast import ast, enums
from pglast.stream import RawStream

from ..lint.context import walk
from ..lint.plpgsql import (
    do_block_sql,
    function_body_sql,
    function_body_static_sql,
    parsed_queries,
)

#: The setting's name as PostgreSQL stores it (SET NAMES is SET client_encoding).
SETTING = "client_encoding"
#: The spellings of UTF-8 the server accepts, as pg_char_to_encoding compares them (lower
#: case, without non-alphanumerics; src/common/encnames.c: "utf8", "unicode").
_UTF8 = frozenset({"utf8", "unicode"})


#: set_config's parameter names, by position (a call may name them: ``setting_name => ...``).
_SET_CONFIG_PARAMETERS = ("setting_name", "new_value", "is_local")


@dataclass(frozen=True)
class EncodingChange:
    """A statement's part that may set client_encoding away from UTF8."""

    #: The part, as written (``set_config(...)``, ``SET NAMES ...``), and where it is.
    text: str
    #: True when it is a set_config whose setting name is known only when it runs: it may be
    #: client_encoding, or lock_timeout (switching the timeout guard off), or anything.
    name_unknown: bool = False


def _is_utf8(value: str) -> bool:
    return "".join(c for c in value.lower() if c.isalnum()) in _UTF8


def _constant(node: Any) -> str | None:
    """The text of a string or identifier constant (``'LATIN1'``, ``latin1``), else None."""
    while isinstance(node, ast.TypeCast):
        node = node.arg
    if isinstance(node, ast.A_Const) and isinstance(node.val, ast.String):
        return str(node.val.sval)
    return None


def _set_statement(node: ast.VariableSetStmt) -> EncodingChange | None:
    if str(node.name or "").lower() != SETTING or node.kind != enums.VariableSetKind.VAR_SET_VALUE:
        # DEFAULT and RESET go back to the connection's value: UTF8.
        return None
    values = [_constant(arg) for arg in node.args or ()]
    if len(values) == 1 and values[0] is not None and _is_utf8(values[0]):
        return None
    return EncodingChange(str(RawStream()(node)))


def _arguments(node: ast.FuncCall) -> list[Any] | None:
    """set_config's three arguments in its parameters' order, named ones (``setting_name =>
    'x'``) included; None when the call does not give exactly those three."""
    args: list[Any] = [None, None, None]
    given = tuple(node.args or ())
    if len(given) != 3:
        return None
    for position, arg in enumerate(given):
        if isinstance(arg, ast.NamedArgExpr):
            if arg.name not in _SET_CONFIG_PARAMETERS:
                return None
            position, arg = _SET_CONFIG_PARAMETERS.index(str(arg.name)), arg.arg
        args[position] = arg
    return args if all(a is not None for a in args) else None


def _set_config(node: ast.FuncCall) -> EncodingChange | None:
    names = [str(part.sval).lower() for part in node.funcname or ()]
    if names not in (["set_config"], ["pg_catalog", "set_config"]):
        return None
    args = _arguments(node)
    if args is None:
        return None
    name = _constant(args[0])
    if name is not None and name.lower() != SETTING:
        return None
    value = _constant(args[1])
    if name is not None and value is not None and _is_utf8(value):
        return None
    # A name or value known only when it runs could be client_encoding to anything.
    return EncodingChange(str(RawStream()(node)), name_unknown=name is None)


def _in_body(texts: list[str], where: str) -> EncodingChange | None:
    for node, text in parsed_queries(texts):
        found = encoding_change(node, text)
        if found is not None:
            return EncodingChange(f"{found.text} {where}", found.name_unknown)
    return None


def encoding_change(node: Any, text: str) -> EncodingChange | None:
    """The part of the statement ``node`` (its source ``text``) that sets client_encoding to
    something other than UTF8, directly, through set_config, inside a DO block or in the body
    of a function or procedure it creates; None when it leaves the encoding alone."""
    if isinstance(node, ast.DoStmt):
        return _in_body(do_block_sql(text), "inside a DO block")
    if isinstance(node, ast.CreateFunctionStmt):
        # A function's own SET client_encoding clause is undone when it returns (the server
        # restores proconfig's settings on exit); its body's changes are not.
        body = function_body_static_sql(text, node) or function_body_sql(text)
        return _in_body(body, "in the body of the function it creates")
    if isinstance(node, ast.VariableSetStmt):
        return _set_statement(node)
    # A SET inside ALTER ROLE/DATABASE/SYSTEM or ALTER FUNCTION is a default for other
    # sessions or calls: the runner's connection parameter and the function's exit undo it.
    for sub in walk(node):
        found = _set_config(sub) if isinstance(sub, ast.FuncCall) else None
        if found is not None:
            return found
    return None


def refusal(change: EncodingChange) -> tuple[str, str]:
    """The one-line message and hint of the refusal of ``change``: for a setting name known
    only when it runs, what that name may switch off (issue 21 review21i: the encoding's
    message alone did not say what was wrong)."""
    if change.name_unknown:
        return (
            f"{change.text}: its setting name is not a constant, so it is known only when it "
            "runs: it may be lock_timeout or statement_timeout, which would switch the "
            "runner's timeout guard off, or client_encoding, which safemigrate keeps UTF8",
            "name the setting with a string constant (set_config('app.tenant', ..., ...)), "
            "one call per setting",
        )
    return (
        f"{change.text}: safemigrate reads migration files as UTF-8 and keeps the session's "
        "client_encoding UTF8; another encoding would change how the server reads the text "
        "that follows and how the runner reads the server's replies",
        "remove the statement (pg_dump writes it for a database in another encoding); if the "
        "file's text is in another encoding, convert the file to UTF-8 first",
    )
