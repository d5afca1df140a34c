"""What the reading of a file says of a plain statement that has a safer form: a plain CREATE
INDEX (CONCURRENTLY), a plain constraint statement (its non-blocking recipe), an UPDATE or
DELETE marked ``batch-size=N`` (in batches), a plain ``ALTER COLUMN ... TYPE`` (the online type
change). Facts only: ``planning.safer_forms`` decides under
the settings how each one runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..core.model import BatchTarget, ConstraintRewrite, QualifiedName
from ..statements.type_change import TypeChange


@dataclass(frozen=True)
class PlainStatement:
    """The facts the runner's policy decides a plain statement's form on."""

    #: How the statement is written, for messages: ``CREATE INDEX``, ``ADD CHECK`` ...
    form: str
    table: QualifiedName
    #: The table was created earlier in the same migration: empty, unseen by the application.
    created_here: bool
    #: A ``-- safemigrate: no-rewrite`` directive applies to it.
    opted_out: bool
    #: The block it is in (``an explicit BEGIN/COMMIT block``, ``a group``), else None.
    inside: str | None


@dataclass(frozen=True)
class SaferCandidate:
    """A statement of a file that has a safer form, with what its decision needs."""

    #: Which safer form: CONCURRENTLY, a constraint recipe, batches, the online type change.
    kind: Literal["index", "constraint", "batch", "type_change"]
    plain: PlainStatement
    #: A constraint statement's recipe, or why it has none (``recipes.recognise``).
    recipe: ConstraintRewrite | str | None = None
    #: A batched statement's key and table (``batches.batch_target``).
    batch: BatchTarget | None = None
    #: A type change's statement as data (``type_change.recognise_type_change``).
    type_change: TypeChange | None = None
    #: Where a refusal of it goes among the file's problems: the runner reports the first
    #: problem, so a refusal keeps the place the walk of the file met it at.
    problem_at: int = 0


#: How each plain constraint statement a recipe applies to is written.
_FORMS = {
    "foreign_key": "ADD FOREIGN KEY",
    "check": "ADD CHECK",
    "not_null": "SET NOT NULL",
    "unique": "ADD UNIQUE",
    "primary_key": "ADD PRIMARY KEY",
}


def constraint_form(recipe: ConstraintRewrite) -> str:
    """How the plain statement of ``recipe`` is written, e.g. ``ADD CHECK``."""
    return _FORMS[recipe.kind]
