"""The things of the database a step may reach besides its routines, as the lint's catalog
holds them (db.live_functions reads them; lint.live_reach says where a step reaches them):
SQL the server runs when a step touches an object, and disabled triggers (issue 21
review21g G1/G4)."""

from __future__ import annotations

from dataclasses import dataclass

import pglast
from pglast import ast
from pglast.stream import RawStream


@dataclass(frozen=True)
class LiveSql:
    """SQL the database runs when a step touches one of its objects."""

    #: How messages name it: ``rule r on public.t2``, ``default of y on public.t5``,
    #: ``view public.v``.
    what: str
    #: The statements it runs (a default's expression as ``SELECT expr``).
    queries: tuple[str, ...]


@dataclass(frozen=True)
class DisabledTrigger:
    """A trigger of the database that is DISABLEd (pg_trigger.tgenabled ``D``)."""

    name: str
    #: What Catalog.write_functions holds for it once enabled: (events, what, function).
    use: tuple[int, str, str]


def rule_sql(what: str, definition: str) -> LiveSql:
    """A rule's actions as statements, from its ``pg_get_ruledef`` text (none when it does
    not parse, or the rule is DO INSTEAD NOTHING)."""
    try:
        rule = pglast.parse_sql(definition)[0].stmt
    except (pglast.parser.ParseError, IndexError):
        return LiveSql(what, ())
    actions = rule.actions if isinstance(rule, ast.RuleStmt) else ()
    return LiveSql(what, tuple(RawStream()(action) for action in actions or ()))


def expression_sql(what: str, expression: str) -> LiveSql:
    """A column default's or generated expression (``pg_get_expr``) as the statement that
    evaluates it."""
    return LiveSql(what, (f"SELECT {expression}",))
