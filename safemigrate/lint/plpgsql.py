"""The SQL a DO block runs, from pglast's PL/pgSQL parse tree.

A DO block's statements run when the migration runs (unlike a CREATE FUNCTION body), inside the
DO statement's transaction, so they are linted like the file's own statements.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pglast
from pglast import ast
from pglast.stream import RawStream


def do_language(node: Any) -> str:
    """The language of a DO statement (plpgsql unless LANGUAGE says otherwise)."""
    for arg in node.args or ():
        if isinstance(arg, ast.DefElem) and arg.defname == "language":
            value: Any = arg.arg
            return str(value.sval).lower()
    return "plpgsql"


#: What stands for a value only known at run time in a ``format()`` argument: an identifier
#: no migration creates, so rules treat the relation as an existing one.
DYNAMIC_NAME = "dynamic_name"


def _quote_ident(name: str) -> str:
    if name.isidentifier() and name == name.lower():
        return name
    return '"' + name.replace('"', '""') + '"'


def _format(template: str, args: list[str | None]) -> str | None:
    """What ``format(template, args...)`` gives; unknown arguments become placeholders."""
    out: list[str] = []
    index = 0
    position = 0
    while index < len(template):
        char = template[index]
        if char != "%":
            out.append(char)
            index += 1
            continue
        if index + 1 >= len(template):
            return None
        spec = template[index + 1]
        index += 2
        if spec == "%":
            out.append("%")
            continue
        if spec not in "IsL":
            return None  # positional or width specifiers: not worth guessing
        value = args[position] if position < len(args) else None
        position += 1
        if spec == "I":
            out.append(_quote_ident(value) if value is not None else DYNAMIC_NAME)
        elif spec == "L":
            out.append("'" + (value or "").replace("'", "''") + "'")
        else:
            out.append(value if value is not None else DYNAMIC_NAME)
    return "".join(out)


def _constant(node: Any) -> str | None:
    """The text of a constant string expression: a literal, ``||`` of constants, or
    ``format()`` with a constant format (unknown arguments as placeholders)."""
    if isinstance(node, ast.A_Const) and isinstance(node.val, ast.String):
        return str(node.val.sval)
    if isinstance(node, ast.TypeCast):
        return _constant(node.arg)
    if isinstance(node, ast.A_Expr) and node.name and str(node.name[-1].sval) == "||":
        left, right = _constant(node.lexpr), _constant(node.rexpr)
        return None if left is None or right is None else left + right
    funcname: Any = getattr(node, "funcname", None) or ()
    if isinstance(node, ast.FuncCall) and funcname and str(funcname[-1].sval) == "format":
        args: Any = node.args or ()
        template = _constant(args[0]) if args else None
        if template is None:
            return None
        return _format(template, [_constant(a) for a in args[1:]])
    return None


def _string_literal(expression: str) -> str | None:
    """The SQL text of an EXECUTE's expression when it is knowable without running it: a
    string literal, a concatenation of literals, or ``format()`` with a constant format."""
    try:
        parsed = pglast.parse_sql(f"SELECT {expression}")
    except pglast.parser.ParseError:
        return None
    if len(parsed) != 1:
        return None
    stmt = parsed[0].stmt
    targets: Any = getattr(stmt, "targetList", None) or ()
    if len(targets) != 1 or getattr(stmt, "fromClause", None):
        return None
    return _constant(targets[0].val)


def _queries(tree: Any) -> Iterator[str]:
    """The SQL a PL/pgSQL tree runs, in order: its SQL statements, PERFORMs and constant
    EXECUTEs, and every expression (assignments, conditions, loop bounds, RETURN, RAISE
    arguments) as a SELECT of it: each is a query PostgreSQL runs, set_config() in any of them
    changes a setting."""
    if isinstance(tree, list):
        for item in tree:
            yield from _queries(item)
        return
    if not isinstance(tree, dict):
        return
    for key, value in tree.items():
        if key == "PLpgSQL_stmt_execsql":
            query = value.get("sqlstmt", {}).get("PLpgSQL_expr", {}).get("query")
            if isinstance(query, str):
                yield query
            continue
        if key == "PLpgSQL_stmt_dynexecute":
            query = value.get("query", {}).get("PLpgSQL_expr", {}).get("query")
            literal = _string_literal(query) if isinstance(query, str) else None
            if literal is not None:
                yield literal
            yield from _queries(value.get("params"))
            continue
        if key == "PLpgSQL_expr":
            sql = _expression_sql(value)
            if sql is not None:
                yield sql
            continue
        yield from _queries(value)


#: PL/pgSQL's parse modes (parser.h RawParseMode) of an expression that is an assignment.
_ASSIGNMENT_MODES = frozenset({3, 4, 5})
#: Its mode for a bare expression (conditions, loop bounds, RETURN, RAISE arguments).
_EXPRESSION_MODE = 2


def _expression_sql(expr: Any) -> str | None:
    """A PL/pgSQL expression as the query PostgreSQL runs for it: a SQL statement as it is
    (PERFORM, FOR ... IN query), an expression as ``SELECT expr``, an assignment's right-hand
    side likewise (found with PostgreSQL's scanner: after the first := or = outside
    brackets)."""
    query = expr.get("query") if isinstance(expr, dict) else None
    if not isinstance(query, str):
        return None
    mode = expr.get("parseMode", 0)
    if mode == _EXPRESSION_MODE:
        return f"SELECT {query}"
    if mode in _ASSIGNMENT_MODES:
        try:
            tokens = pglast.parser.scan(query)
        except pglast.parser.ParseError:
            return None
        depth = 0
        for token in tokens:
            if token.name in ("ASCII_40", "ASCII_91"):
                depth += 1
            elif token.name in ("ASCII_41", "ASCII_93"):
                depth -= 1
            elif depth == 0 and token.name in ("COLON_EQUALS", "ASCII_61"):
                return f"SELECT {query[token.end + 1 :]}"
        return None
    return query


def parsed_queries(queries: Iterable[str]) -> Iterator[tuple[Any, str]]:
    """The tree of each statement of ``queries`` (what a DO block or a function body runs,
    each query parsed alone), with the query it is in; a query that does not parse gives
    none (its text alone cannot say what it does)."""
    for query in queries:
        try:
            parsed = pglast.parse_sql(query)
        except pglast.parser.ParseError:
            continue
        for raw in parsed:
            yield raw.stmt, query


def do_block_sql(statement_text: str) -> list[str]:
    """The SQL statements a PL/pgSQL DO statement runs (empty when it cannot be parsed).

    Only statements that pglast can see are returned: plain SQL statements and ``EXECUTE`` of a
    constant string, of ``||`` of constants, or of ``format()`` with a constant format string
    (arguments known only at run time stand as the placeholder name ``dynamic_name``). SQL
    built from variables alone is not known statically.
    """
    try:
        functions = pglast.parse_plpgsql(statement_text)
    except (pglast.parser.ParseError, ValueError):
        return []
    return list(_queries(functions))


def _dynamic(tree: Any) -> bool:
    """True when a PL/pgSQL tree runs SQL known only at run time: an EXECUTE of a string no
    constant gives (or a ``format()`` with an argument known only then), FOR ... IN EXECUTE,
    OPEN ... FOR EXECUTE, RETURN QUERY EXECUTE."""
    if isinstance(tree, list):
        return any(_dynamic(item) for item in tree)
    if not isinstance(tree, dict):
        return False
    for key, value in tree.items():
        if key == "PLpgSQL_stmt_dynexecute":
            query = value.get("query", {}).get("PLpgSQL_expr", {}).get("query")
            literal = _string_literal(query) if isinstance(query, str) else None
            if literal is None or DYNAMIC_NAME in literal:
                return True
        elif key == "PLpgSQL_stmt_dynfors" or (isinstance(value, dict) and "dynquery" in value):
            return True
        if _dynamic(value):
            return True
    return False


def do_block_static_sql(statement_text: str, node: Any = None) -> list[str] | None:
    """do_block_sql of a PL/pgSQL DO statement when it shows every statement the block runs;
    None when it cannot be parsed, is in another language, or runs SQL known only at run
    time (see _dynamic). ``node``: the statement's parse tree when the caller has it."""
    try:
        functions = pglast.parse_plpgsql(statement_text)
    except (pglast.parser.ParseError, ValueError):
        return None
    if node is None:
        try:
            node = pglast.parse_sql(statement_text)[0].stmt
        except (pglast.parser.ParseError, IndexError):
            return None
    if not isinstance(node, ast.DoStmt) or do_language(node) != "plpgsql":
        return None
    if _dynamic(functions):
        return None
    return list(_queries(functions))


def function_body_static_sql(create_text: str, node: Any = None) -> list[str] | None:
    """The SQL statements a CREATE FUNCTION / PROCEDURE runs when called, when every one is
    known: a PL/pgSQL body without SQL built at run time (see _dynamic), or a LANGUAGE sql
    body that parses; None otherwise (another language, dynamic SQL). ``node``: the parse
    tree of ``create_text`` when the caller has it (else it is parsed here)."""
    if node is None:
        try:
            node = pglast.parse_sql(create_text)[0].stmt
        except (pglast.parser.ParseError, IndexError):
            return None
    language = "sql"
    body: str | None = None
    for option in node.options or ():
        if not isinstance(option, ast.DefElem):
            continue
        arg: Any = option.arg
        if option.defname == "language":
            language = str(arg.sval).lower()
        elif option.defname == "as" and arg:
            body = str(getattr(arg[0], "sval", ""))
    if language == "sql":
        if body is None:  # a SQL-standard body (BEGIN ATOMIC ... END, RETURN ...)
            return None
        try:
            return [
                body[r.stmt_location or 0 : (r.stmt_location or 0) + (r.stmt_len or len(body))]
                for r in pglast.parse_sql(body)
            ]
        except pglast.parser.ParseError:
            return None
    if language != "plpgsql":
        return None
    try:
        functions = pglast.parse_plpgsql(create_text)
    except (pglast.parser.ParseError, ValueError):
        return None
    if _dynamic(functions):
        return None
    return list(_queries(functions))


def function_body_sql(create_text: str) -> list[str]:
    """The SQL statements a PL/pgSQL CREATE FUNCTION / PROCEDURE runs when called."""
    return do_block_sql(create_text)


def _standard_body_sql(node: Any) -> list[str]:
    """The statements of a SQL-standard body (``BEGIN ATOMIC ... END``, ``RETURN expr``), as
    SQL texts: a RETURN runs as ``SELECT expr``."""
    body: Any = getattr(node, "sql_body", None)
    if body is None:
        return []
    if isinstance(body, ast.ReturnStmt):
        value: Any = body.returnval
        return [f"SELECT {RawStream()(value)}"] if value is not None else []
    statements: list[Any] = []
    for part in body if isinstance(body, tuple | list) else (body,):
        statements += list(part) if isinstance(part, tuple | list) else [part]
    return [RawStream()(s) for s in statements if isinstance(s, ast.Node)]


def function_body_queries(create_text: str, node: Any = None) -> list[str]:
    """The SQL statements a CREATE FUNCTION / PROCEDURE runs when called, as far as the parse
    shows them: a PL/pgSQL body's (as function_body_sql reads them), a LANGUAGE sql body's
    (``AS $$...$$`` as function_body_static_sql reads it, or the SQL-standard ``BEGIN ATOMIC``
    and ``RETURN`` forms); empty for another language or a body that does not parse."""
    if node is None:
        try:
            node = pglast.parse_sql(create_text)[0].stmt
        except (pglast.parser.ParseError, IndexError):
            return []
    if not isinstance(node, ast.CreateFunctionStmt):
        return []
    language = "sql"
    for option in node.options or ():
        if isinstance(option, ast.DefElem) and option.defname == "language":
            arg: Any = option.arg
            language = str(arg.sval).lower()
    if language == "plpgsql":
        return function_body_sql(create_text)
    if language != "sql":
        return []
    if getattr(node, "sql_body", None) is not None:
        return _standard_body_sql(node)
    return function_body_static_sql(create_text, node) or []
