"""Which of the database's own routines change the session when a step calls them (issue 21
review21i E6). Pure: the routines' definitions come in as text (db.live_functions reads them,
``pg_get_functiondef``), read with PostgreSQL's own parser (pglast), no I/O.

A function made outside the migrations (with psql, say) whose body runs ``set_config
('search_path', 'app, public', false)`` changes the session of the step that calls it as
surely as one a migration creates: a new session lacks that change, and no parse of the call
can replay it. So the session state (statements.session_state) counts a call of one as it
counts a call of a migration's own (session_changing_functions): the next step on a new
session is refused when it could depend on it.

Only PL/pgSQL and LANGUAGE sql bodies can be read; a routine of another language (C,
plpython, ...) is not known to change the session (docs/sessions.md says so).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..core.model import Statement
from .session_state import created_functions, routine_changes


def session_changers(
    definitions: Mapping[str, Sequence[str]],
    statements: Iterable[Statement],
    known: frozenset[str],
) -> frozenset[str]:
    """``known`` (the migrations' session-changing functions) and the names of the routines
    of ``definitions`` (lower-case name -> the CREATE OR REPLACE texts of its overloads, the
    database's and the migrations' own) whose bodies change the session, directly or through
    a call of another such routine (of ``definitions`` or ``known``).

    Only the routines the ``statements`` (every statement of the migrations) may reach are
    read: those named in their text, and what those call, so a database of many routines
    costs a parse of the few a migration names."""
    texts = " ".join(s.text.lower() for s in statements)
    facts: dict[str, tuple[bool, frozenset[str]]] = {}
    queue = sorted(name for name in definitions if name in texts)
    while queue:
        name = queue.pop()
        if name in facts:
            continue
        changes, calls = False, frozenset[str]()
        for text in definitions[name]:
            found, called = routine_changes(text)
            changes, calls = changes or found, calls | called
        facts[name] = (changes, calls)
        queue.extend(c for c in calls if c in definitions and c not in facts)
    changers = set(known) | {name for name, (changes, _) in facts.items() if changes}
    grew = True
    while grew:
        grew = False
        for name, (_, calls) in facts.items():
            if name not in changers and calls & changers:
                changers.add(name)
                grew = True
    return frozenset(changers)


def migration_definitions(statements: Iterable[Statement]) -> dict[str, list[str]]:
    """The CREATE FUNCTION / PROCEDURE texts of ``statements`` by lower-case name, to read
    with the database's (a migration's function may call a database routine that changes
    the session)."""
    found: dict[str, list[str]] = {}
    for statement in statements:
        if statement.kind == "CreateFunctionStmt":
            for name in created_functions([statement]):
                found.setdefault(name, []).append(statement.text)
    return found


def run_changers(
    database: Mapping[str, Sequence[str]], statements: Sequence[Statement], known: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """Every session-changing function a run's steps may call: ``known`` (the migrations'
    own, session_changing_functions of ``statements``) and those session_changers finds
    among the ``database``'s routines (lower-case name -> definitions) read with the
    migrations' functions; and, of them, those only the database has (for messages)."""
    own = migration_definitions(statements)
    merged = {n: (*database.get(n, ()), *own.get(n, ())) for n in {*database, *own}}
    found = session_changers(merged, statements, known)
    return found, frozenset(found - known - own.keys())
