"""The reference parts of README.md and docs/ are what tools/docs_reference.py generates from
the code: click's commands and options, the settings table, ExitCode and the lint rules' own
texts. A change to any of them without regenerating the pages fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import ExitCode
from safemigrate.lint.rules import RULES
from safemigrate.settings.config import KEYS, key_facts
from tools import docs_reference

REPO = Path(__file__).resolve().parents[2]


def test_the_generated_docs_are_current() -> None:
    stale = docs_reference.stale(REPO)
    assert not stale, f"stale docs, run python tools/docs_reference.py: {', '.join(stale)}"


def test_every_exit_code_has_its_meaning_in_the_enum() -> None:
    meanings = docs_reference.exit_code_meanings()
    assert [(code, name) for code, name, _ in meanings] == [(int(m), m.name) for m in ExitCode]
    assert all(meaning for _, _, meaning in meanings)


def test_every_key_is_in_the_configuration_table() -> None:
    table = docs_reference.configuration_keys()
    assert [facts.key for facts in key_facts()] == list(KEYS)
    for facts in key_facts():
        assert f"| `{facts.key}` | " in table
        assert f"`{facts.variable}`" in table


def test_every_option_of_every_command_is_in_the_reference() -> None:
    import click

    from safemigrate.cli import main

    reference = docs_reference.commands_reference()
    for name, command in main.commands.items():
        assert f"## `safemigrate {name}`" in reference
        for param in command.params:
            if isinstance(param, click.Option):
                assert f"`{param.opts[0]}" in reference


def test_every_rule_has_its_page_with_its_explain_text() -> None:
    pages = docs_reference.rule_pages()
    assert set(pages) == {Path("docs", "rules", f"{rule}.md") for rule in RULES}
    for rule in RULES.values():
        page = pages[Path("docs", "rules", f"{rule.id}.md")]
        assert rule.summary in page
        # Every line of the explain text is on the page (labels in bold, SQL dedented).
        body = " ".join(page.replace("**", "").split())
        for line in rule.doc.splitlines()[2:]:
            assert " ".join(line.split()) in body, (rule.id, line)


def test_a_page_without_its_markers_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no markers"):
        docs_reference.fill("# no markers here\n", {"exit-codes": lambda: ""}, tmp_path)


def test_a_stale_part_is_rewritten_between_its_markers() -> None:
    text = "before\n<!-- generated: exit-codes -->\nold\n<!-- end generated -->\nafter\n"
    filled = docs_reference.fill(text, {"exit-codes": lambda: "new\n"}, Path("x.md"))
    assert filled == "before\n<!-- generated: exit-codes -->\nnew\n<!-- end generated -->\nafter\n"
