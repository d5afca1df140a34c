"""PostgreSQL's names for objects a statement leaves unnamed, written once (object_names).

From PostgreSQL 15's source: src/backend/commands/indexcmds.c ``makeObjectName`` (the longer of
name1 and name2 is cut first, byte by byte, then each clipped to a character boundary, so that
``name1_name2_label`` fits NAMEDATALEN - 1 bytes) and src/backend/catalog/pg_constraint.c
``ChooseConstraintName`` (a taken name is tried again with ``label1``, ``label2``, ...; indexcmds.c
``ChooseRelationName``, which ``ChooseIndexName`` calls, numbers the same way).
"""

from __future__ import annotations

from safemigrate.lint import state
from safemigrate.statements import recipes as rewrites
from safemigrate.statements.names import choose_name, make_object_name, name_candidates


def test_make_object_name_joins_with_underscores() -> None:
    assert make_object_name("orders", "customer_id", "fkey") == "orders_customer_id_fkey"
    assert make_object_name("orders", None, "pkey") == "orders_pkey"


def test_make_object_name_shortens_the_longer_part_first_to_63_bytes() -> None:
    name = make_object_name("t" * 70, "c" * 10, "check")
    assert len(name.encode()) == 63
    assert name == "t" * 46 + "_" + "c" * 10 + "_check"
    both = make_object_name("a" * 40, "b" * 40, "key")
    assert both == "a" * 29 + "_" + "b" * 29 + "_key"


def test_make_object_name_never_cuts_a_character_in_two() -> None:
    name = make_object_name("é" * 40, None, "pkey")
    assert len(name.encode()) <= 63
    assert name.endswith("_pkey")
    assert name.encode().decode() == name


def test_candidates_number_the_label_as_choose_constraint_name_does() -> None:
    assert name_candidates("t", "a", "check", 3) == ["t_a_check", "t_a_check1", "t_a_check2"]


def test_choose_name_takes_the_first_free_candidate() -> None:
    assert choose_name("t", None, "check", set()) == "t_check"
    assert choose_name("t", None, "check", {"t_check", "t_check1"}) == "t_check2"


def test_a_numbered_label_is_kept_whole_and_the_names_cut_instead() -> None:
    """makeObjectName reserves the label's bytes first: ``check1`` is never cut."""
    name = choose_name("t" * 70, None, "check", {make_object_name("t" * 70, None, "check")})
    assert name.endswith("_check1")
    assert len(name.encode()) == 63


def test_the_recipes_and_the_linter_share_the_one_function() -> None:
    assert not hasattr(rewrites, "make_object_name")
    assert not hasattr(state, "_object_name")
