"""sequence-max-lowered: an ALTER SEQUENCE that lowers the sequence's largest value (``AS`` a
smaller integer type, or ``MAXVALUE``) below what its current value may be: PostgreSQL
refuses it when the value is past the new maximum, which only the data can tell."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pglast import ast

from ...core.model import summarize
from ..context import StatementContext, show
from ..findings import Hit, hit, make_rule
from ..schema_objects import DEFAULT_SEQUENCE_TYPE, INTEGER_MAX, Sequence, option_integer
from ..types import column_type

DOC = """
Catches: `ALTER SEQUENCE ... AS smallint | integer` of a sequence of a larger type (a serial
or identity column's own sequence too), or `ALTER SEQUENCE ... MAXVALUE n` below its current
maximum, without a `RESTART` at or below the new maximum. `AS` a smaller type also lowers
MAXVALUE to the new type's largest value when MAXVALUE was the old type's (sequence.c
init_params). An explicit `MAXVALUE` beyond the new type, or `RESTART WITH` a value above the
new maximum, is always refused.

Why it hurts: PostgreSQL refuses the statement when the sequence's current value is above the
new maximum ("RESTART value (150021) cannot be greater than MAXVALUE (32767)", SQLSTATE
22023; sequence.c init_params checks the current value against the new bounds), and the
migration stops there. A sequence that has handed out 150 000 ids cannot become a smallint.
Without a database `check` cannot see the value: it judges a sequence the history does not
show as a bigint one, and an existing sequence as one that may have gone past the new maximum
(as it judges every existing table large). With a database (`plan --dsn`, `up`), the
sequence's `last_value` decides: a value within the new range passes, one past it is named.

Applies to: every PostgreSQL version (AS came with 10).
Source: PostgreSQL docs, ALTER SEQUENCE (AS data_type: "the sequence's minimum and maximum
values are changed ... if they were at the limits of the old type"; MAXVALUE; RESTART);
src/backend/commands/sequence.c init_params.

Instead: check the value first (`SELECT last_value FROM the_sequence`); keep the larger type
while the values need it. When the sequence really is to start over, say so in the same
statement: `ALTER SEQUENCE s AS integer RESTART WITH 1` (only if no row keeps the old values).
"""

RULE = make_rule(
    "sequence-max-lowered",
    "error",
    "ALTER SEQUENCE lowering its maximum below a value it may have reached",
    DOC,
)

#: What PostgreSQL answers (invalid_parameter_value), and where.
_SQLSTATE = "22023"
_SOURCE = "sequence.c init_params"


def _option(node: Any, name: str) -> Any:
    for option in node.options or ():
        if isinstance(option, ast.DefElem) and option.defname == name:
            return option
    return None


def check(node: Any, ctx: StatementContext) -> Iterator[Hit]:
    if not isinstance(node, ast.AlterSeqStmt) or node.sequence is None:
        return
    name = ctx.table(node.sequence)
    known = ctx.state.catalog.objects.sequences.get(name)
    sequence = known or Sequence()
    old_type = sequence.type or DEFAULT_SEQUENCE_TYPE
    old_max = sequence.max_value if sequence.max_value is not None else INTEGER_MAX[old_type]
    as_option = _option(node, "as")
    written = column_type(as_option.arg) if as_option is not None else None
    new_type = written.name if written is not None and written.name in INTEGER_MAX else old_type
    max_option = _option(node, "maxvalue")
    given_max = option_integer(max_option.arg) if max_option is not None else None
    text = summarize(ctx.text)
    if given_max is not None and given_max > INTEGER_MAX[new_type]:
        yield _refused(
            text,
            f"MAXVALUE ({given_max}) is out of range for sequence data type {new_type}",
            "give a MAXVALUE the type holds, or keep the larger type",
        )
        return
    if given_max is not None:
        new_max = given_max
    elif sequence.max_value is None or sequence.max_value > INTEGER_MAX[new_type]:
        # AS moves a maximum at the old type's limit to the new type's; an explicit one
        # beyond the new type is refused like a MAXVALUE written here.
        if sequence.max_value is not None and new_type != old_type:
            yield _refused(
                text,
                f"its MAXVALUE ({sequence.max_value}) is out of range for {new_type}",
                "lower MAXVALUE in the same statement, or keep the larger type",
            )
            return
        new_max = INTEGER_MAX[new_type]
    else:
        new_max = sequence.max_value
    if new_max >= old_max:
        return
    restart = _option(node, "restart")
    if restart is not None:
        value = option_integer(restart.arg)
        if value is not None and value > new_max:
            yield _refused(
                text,
                f"RESTART value ({value}) cannot be greater than MAXVALUE ({new_max})",
                "restart at a value within the new range",
            )
        return  # restarted within the range: the current value no longer counts
    if known is not None and known.table is not None and ctx.state.is_new(known.table):
        return  # its table was created in the run: it handed out nothing yet
    if ctx.state.catalog.live:
        if known is None or known.last_value is None or known.last_value <= new_max:
            return  # not in the database yet (made by the run), never used, or in range
        yield _refused(
            text,
            f"its current value ({known.last_value}) is greater than the new MAXVALUE ({new_max})",
            "keep the larger type while the values need it",
        )
        return
    yield hit(
        RULE,
        f"{text!r}: lowers the largest value of sequence {show(name)} to {new_max} "
        f"({new_type}): PostgreSQL refuses it (SQLSTATE {_SQLSTATE}, {_SOURCE}) if the "
        f"sequence is already past {new_max}, and the migration stops; check cannot see the "
        f"value (SELECT last_value FROM {show(name)}; with a database, plan --dsn and up read it)",
        "check last_value first and keep the larger type while the values need it",
    )


def _refused(text: str, what: str, hint: str) -> Hit:
    return hit(
        RULE,
        f"{text!r}: {what}: PostgreSQL refuses it (SQLSTATE {_SQLSTATE}, {_SOURCE}) and the "
        "migration stops",
        hint,
    )
