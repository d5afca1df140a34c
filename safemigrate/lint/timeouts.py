"""What a statement does to lock_timeout and statement_timeout, judged as the server will.

One understanding serves the ``timeout-guard-off`` rule, the lint state (functions that carry
their own timeouts) and the runner's guard (``safemigrate.planning.timeout_guard``). Values are read
as PostgreSQL's GUC parser reads an integer millisecond setting (``guc.c`` ``parse_int`` and
``convert_to_base_unit``; docs 19.1.2 "Parameter Names and Values"): ``'100us'`` and ``0.5`` are
0 on the server, which means no timeout at all. Pure: no database.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pglast import ast
from pglast.enums import VariableSetKind

from ..statements import pg_settings_writes
from ..statements.pg_settings_writes import folded_string, is_null
from .context import walk

#: The settings the runner's guard consists of.
GUARDED = ("lock_timeout", "statement_timeout")

#: guc.c time_unit_conversion_table for a GUC_UNIT_MS setting, largest first: each unit's
#: size in milliseconds. A fractional value is first rounded to a whole number of the next
#: smaller unit ("30.1GB" to the nearest MB), then to whole milliseconds.
_UNITS_MS: tuple[tuple[str, float], ...] = (
    ("d", 1000 * 60 * 60 * 24),
    ("h", 1000 * 60 * 60),
    ("min", 1000 * 60),
    ("s", 1000),
    ("ms", 1),
    ("us", 1.0 / 1000),
)
#: guc.c MAX_UNIT_LEN: a unit longer than this is garbage.
_MAX_UNIT_LEN = 3
_INT_MAX = 2_147_483_647
#: strtol with base 0: optional sign, then hex (0x), octal (leading 0) or decimal digits.
_STRTOL = re.compile(r"[ \t\n\r\f\v]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
#: strtod's decimal form (hex floats, inf and nan are refused below or by the range check).
_STRTOD = re.compile(r"[ \t\n\r\f\v]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_SPACE = " \t\n\r\f\v"

Scope = Literal["transaction", "session", "function", "default"]


def guc_ms(value: str) -> int | None:
    """``value`` as PostgreSQL stores an integer setting whose unit is milliseconds
    (lock_timeout, statement_timeout), or None when the server would refuse it.

    As ``parse_int`` does: an integer (hex and octal too: ``'0x10'`` is 16, ``'010'`` is 8),
    or a decimal number when the integer stops at ``.``/``e``; spaces around the unit; a
    unit of ``_UNITS_MS`` (case-sensitive); the value rounded half to even (C ``rint``) to
    the next smaller unit and then to whole milliseconds; refused past int4 and below 0 (the
    settings' minimum).
    """
    match = _STRTOL.match(value)
    number: float
    end: int
    if match is not None and value[match.end() : match.end() + 1] not in (".", "e", "E"):
        digits = match.group(2)
        base = 16 if digits[:2].lower() == "0x" else 8 if digits[0] == "0" else 10
        number = float(int(digits, base) * (-1 if match.group(1) == "-" else 1))
        end = match.end()
    else:
        decimal = _STRTOD.match(value)
        if decimal is None:
            return None
        number, end = float(decimal.group(1)), decimal.end()
    rest = value[end:].lstrip(_SPACE)
    if rest:
        unit = rest.split(None, 1)[0] if rest[0] not in _SPACE else ""
        if len(unit) > _MAX_UNIT_LEN or rest[len(unit) :].strip(_SPACE):
            return None
        number = _to_ms(number, unit)
        if math.isnan(number):
            return None
    if math.isinf(number):
        return None
    rounded = round(number)  # Python rounds half to even, as C rint does by default
    if rounded > _INT_MAX or rounded < 0:
        return None
    return int(rounded)


def _to_ms(number: float, unit: str) -> float:
    """guc.c convert_to_base_unit for a millisecond setting; NaN for an unknown unit."""
    for index, (name, multiplier) in enumerate(_UNITS_MS):
        if name == unit:
            value = number * multiplier
            if index + 1 < len(_UNITS_MS):
                smaller = _UNITS_MS[index + 1][1]
                value = round(value / smaller) * smaller
            return value
    return math.nan


@dataclass(frozen=True)
class TimeoutChange:
    """What a statement does to one of the guarded settings."""

    #: The setting's name (for RESET ALL, both names joined with "and").
    setting: str
    #: The new value in milliseconds, as the server stores it; None when the value goes back
    #: to a default.
    value_ms: int | None
    #: How, for people: ``SET``, ``SET LOCAL``, ``RESET``, ``set_config()``, ``ALTER ROLE ...
    #: SET``, ``calling f(), whose SET clause``.
    how: str
    #: The value as written (``'100us'``, ``0.5``); empty for a default.
    written: str = ""
    #: How long the change lasts: to the end of the transaction (SET LOCAL, set_config(...,
    #: true)), the session (SET), while a function runs (its SET clause), or as the default
    #: of later sessions (ALTER ROLE / DATABASE / SYSTEM).
    scope: Scope = "session"
    #: True when the value (or the setting's name) is only known when the statement runs:
    #: set_config() or a write to pg_settings with arguments that are not constants.
    unknown: bool = False

    @property
    def shown(self) -> str:
        """The value for people, with the server's rounding when it changes what was written
        (``'100us' (0 on the server)``)."""
        if self.unknown:
            return "a value known only when it runs"
        if self.value_ms is None:
            return "default"
        plain = self.written.strip("'")
        if plain == str(self.value_ms):
            return plain
        return f"{self.written} ({self.value_ms}ms on the server)"

    @property
    def switches_off_lock_timeout(self) -> bool:
        """True when lock_timeout ends up 0 (no limit) or back at a default (usually 0): the
        guard the runner keeps in every case, on a fresh database too."""
        return "lock_timeout" in self.setting and (
            self.unknown or self.value_ms is None or self.value_ms == 0
        )


def _constant(node: Any) -> Any:
    """The A_Const value under ``node`` (through casts), or None."""
    while isinstance(node, ast.TypeCast):
        node = node.arg
    if isinstance(node, ast.A_Const) and not node.isnull:
        return node.val
    return None


def _text_of(value: Any) -> str | None:
    """A constant as the server's flatten_set_variable_args hands it to the GUC parser: an
    integer in decimal, a number as written, a string as it is."""
    if isinstance(value, ast.Integer):
        return str(int(value.ival or 0))
    if isinstance(value, ast.Float):
        return str(value.fval)
    if isinstance(value, ast.String):
        return str(value.sval)
    return None


def _written(value: Any) -> str:
    return f"'{value.sval}'" if isinstance(value, ast.String) else str(_text_of(value))


def _of_set(
    stmt: Any, *, how: str, scope: Scope, defaults_count: bool, reset: str = "RESET"
) -> Iterator[TimeoutChange]:
    """The changes of a VariableSetStmt (on its own, or inside ALTER ROLE/DATABASE/SYSTEM or
    a function's SET clause); ``reset`` is how its RESET is named for people."""
    kind = stmt.kind
    if kind == VariableSetKind.VAR_RESET_ALL:
        if defaults_count:
            yield TimeoutChange(" and ".join(GUARDED), None, f"{reset} ALL", scope=scope)
        return
    name = str(stmt.name or "").lower()
    if name not in GUARDED:
        return
    if kind in (VariableSetKind.VAR_RESET, VariableSetKind.VAR_SET_DEFAULT):
        if defaults_count:
            word = reset if kind == VariableSetKind.VAR_RESET else f"{how} ... TO DEFAULT"
            yield TimeoutChange(name, None, word, scope=scope)
        return
    if kind != VariableSetKind.VAR_SET_VALUE or not stmt.args or len(stmt.args) != 1:
        return
    constant = _constant(stmt.args[0])
    text = _text_of(constant) if constant is not None else None
    value_ms = guc_ms(text) if text is not None else None
    if value_ms is not None:
        yield TimeoutChange(name, value_ms, how, _written(constant), scope)


#: How ALTER SYSTEM SET is named for people (its findings say when the change takes effect).
ALTER_SYSTEM = "ALTER SYSTEM SET"

#: The name of a guarded setting the parse cannot read: either may be the one changed.
EITHER = " or ".join(GUARDED)


def _of_set_config(call: Any) -> TimeoutChange | None:
    """The change a ``set_config(name, value, is_local)`` call makes to a guarded setting
    (``is_local`` not constant: taken as a session-level change, the longer-lasting one). A
    NULL value resets the setting (to the session's default); a name or value that is not a
    constant (``||`` of literals is one) is an unknown change, which the guard refuses."""
    if not isinstance(call, ast.FuncCall):
        return None
    funcname, args = call.funcname or (), call.args or ()
    if not funcname or str(funcname[-1].sval).lower() != "set_config" or len(args) != 3:
        return None
    name_text = folded_string(args[0])
    local = _constant(args[2])
    is_local = isinstance(local, ast.Boolean) and bool(local.boolval)
    if isinstance(local, ast.String):
        is_local = str(local.sval).lower() in ("t", "true", "on", "yes", "1")
    scope: Scope = "transaction" if is_local else "session"
    if name_text is None:
        return TimeoutChange(EITHER, None, "set_config()", scope=scope, unknown=True)
    name = name_text.lower()
    if name not in GUARDED:
        return None
    if is_null(args[1]):
        return TimeoutChange(name, None, "set_config() with a NULL value", scope=scope)
    text = folded_string(args[1])
    if text is None:
        return TimeoutChange(name, None, "set_config()", scope=scope, unknown=True)
    value_ms = guc_ms(text)
    if value_ms is None:
        return None  # the server refuses the value: nothing changes
    constant = _constant(args[1])
    written = _written(constant) if constant is not None else f"'{text}'"
    return TimeoutChange(name, value_ms, "set_config()", written, scope)


def _of_settings_writes(node: Any) -> list[TimeoutChange]:
    """The changes the writes to pg_settings in ``node`` make (its update rule calls
    ``set_config(name, setting, false)``: a session-level change; NULL resets)."""
    changes: list[TimeoutChange] = []
    how = "UPDATE pg_settings"
    for write in pg_settings_writes.writes_in(node):
        names = write.names
        if names is None:
            changes.append(TimeoutChange(EITHER, None, how, unknown=True))
            continue
        for name in names:
            if name not in GUARDED:
                continue
            if write.kind == "null":
                changes.append(TimeoutChange(name, None, f"{how} ... SET setting = NULL"))
            elif write.kind == "unknown":
                changes.append(TimeoutChange(name, None, how, unknown=True))
            else:
                value_ms = guc_ms(write.value)
                if value_ms is not None:
                    changes.append(TimeoutChange(name, value_ms, how, f"'{write.value}'"))
    return changes


def function_settings(options: Any) -> tuple[str, ...]:
    """The guarded settings a function's SET clauses give it (CREATE FUNCTION / PROCEDURE
    options, ALTER FUNCTION actions), as ``name=value`` the way pg_proc.proconfig lists them;
    a ``RESET`` clause gives ``name=`` (the setting is removed)."""
    found: list[str] = []
    for option in options or ():
        if not isinstance(option, ast.DefElem) or option.defname != "set":
            continue
        stmt = option.arg
        if not isinstance(stmt, ast.VariableSetStmt):
            continue
        if stmt.kind == VariableSetKind.VAR_RESET_ALL:
            found += [f"{name}=" for name in GUARDED]
            continue
        name = str(stmt.name or "").lower()
        if name not in GUARDED:
            continue
        if stmt.kind == VariableSetKind.VAR_RESET:
            found.append(f"{name}=")
        elif stmt.kind == VariableSetKind.VAR_SET_VALUE and stmt.args and len(stmt.args) == 1:
            text = _text_of(_constant(stmt.args[0]))
            if text is not None:
                found.append(f"{name}={text}")
    return tuple(found)


def merge_settings(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    """A function's guarded settings after ALTER FUNCTION applies ``new`` to ``old`` (a
    ``name=`` entry removes the setting)."""
    merged = {entry.split("=", 1)[0]: entry for entry in old}
    for entry in new:
        name, value = entry.split("=", 1)
        if value:
            merged[name] = entry
        else:
            merged.pop(name, None)
    return tuple(merged.values())


def _called(node: Any) -> Iterator[str]:
    """The unqualified names of the functions and procedures ``node`` calls."""
    calls = [node.funccall] if isinstance(node, ast.CallStmt) else walk(node)
    for call in calls:
        if isinstance(call, ast.FuncCall) and call.funcname:
            yield str(call.funcname[-1].sval)


def _of_calls(node: Any, function_timeouts: Mapping[str, tuple[str, ...]]) -> list[TimeoutChange]:
    """The timeouts the functions ``node`` calls run under, by their own SET clauses (any
    routine of the name: overloads are not told apart)."""
    changes: list[TimeoutChange] = []
    for name in dict.fromkeys(_called(node)):
        changes += of_function(name, function_timeouts, f"calling {name}(), whose SET clause")
    return changes


def of_function(
    name: str, function_timeouts: Mapping[str, tuple[str, ...]], how: str
) -> list[TimeoutChange]:
    """The timeouts the routines named ``name`` run under, by their own SET clauses."""
    entries = {
        entry: None
        for signature, settings in function_timeouts.items()
        if signature.startswith(f"{name}(")
        for entry in settings
    }
    changes: list[TimeoutChange] = []
    for entry in entries:
        setting, text = entry.split("=", 1)
        value_ms = guc_ms(text)
        if value_ms is not None:
            changes.append(TimeoutChange(setting, value_ms, how, text, "function"))
    return changes


def timeout_changes(
    node: Any, function_timeouts: Mapping[str, tuple[str, ...]] | None = None
) -> list[TimeoutChange]:
    """What statement ``node`` (a pglast node) does to lock_timeout and statement_timeout:
    SET, RESET, set_config() and writes to pg_settings anywhere in it, ALTER
    ROLE/DATABASE/SYSTEM ... SET, and calls of functions whose own SET clause changes one
    (``function_timeouts``: see
    Catalog.function_timeouts). A CREATE/ALTER FUNCTION's SET clause changes nothing until
    the function is called: the call is what is judged."""
    if isinstance(node, ast.VariableSetStmt):
        if node.is_local:
            return list(_of_set(node, how="SET LOCAL", scope="transaction", defaults_count=True))
        return list(_of_set(node, how="SET", scope="session", defaults_count=True))
    if isinstance(node, ast.AlterSystemStmt):
        # The server's own default (postgresql.auto.conf), which every new session falls back to
        # once the configuration is reloaded (pg_reload_conf(), or a reload made outside the
        # run): back to the default counts too, as postgresql.conf's value or the built-in 0
        # may be no limit at all.
        return list(
            _of_set(
                node.setstmt,
                how=ALTER_SYSTEM,
                scope="default",
                defaults_count=True,
                reset="ALTER SYSTEM RESET",
            )
        )
    for wrapper, how in (
        (ast.AlterRoleSetStmt, "ALTER ROLE ... SET"),
        (ast.AlterDatabaseSetStmt, "ALTER DATABASE ... SET"),
    ):
        if isinstance(node, wrapper):
            # Back to the default of a role or database is the server's business, not a guard
            # of the run's: only explicit values are judged.
            return list(_of_set(node.setstmt, how=how, scope="default", defaults_count=False))
    if isinstance(node, ast.CreateFunctionStmt | ast.AlterFunctionStmt):
        return []
    if isinstance(node, ast.CreateTrigStmt):
        # Every later write to the table runs the trigger's function under its own SET clause,
        # the migrations' writes included (issue 20 review F7: the guard bypassed by a trigger).
        if not function_timeouts or not node.funcname:
            return []
        name = str(node.funcname[-1].sval)
        how = (
            f"CREATE TRIGGER {node.trigname}: every write to the table runs {name}(), "
            "whose SET clause"
        )
        return of_function(name, function_timeouts, how)
    changes = [c for c in (_of_set_config(n) for n in walk(node)) if c is not None]
    changes += _of_settings_writes(node)
    if function_timeouts:
        changes += _of_calls(node, function_timeouts)
    return changes
