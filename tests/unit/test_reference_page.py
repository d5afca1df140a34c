"""docs/reference.md is the reference table rendered: regenerate it (python
bench/reference_page.py) whenever a row changes."""

from __future__ import annotations

from pathlib import Path

from safemigrate.reference import ROWS
from safemigrate.reference.commands import COMMANDS
from safemigrate.reference.render import render

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"


def test_the_committed_page_is_the_table_rendered() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/reference.md and safemigrate/reference/ differ: run python bench/reference_page.py"
    )


def test_the_page_lists_every_command_of_the_reference_with_a_verdict() -> None:
    text = render()
    index = text.split("## Every command")[1].split("\n## ")[0]
    for command, page, _ in COMMANDS:
        assert f"[{command}](https://www.postgresql.org/docs/current/{page})" in index


def test_every_row_has_a_section_citing_its_sources() -> None:
    text = render()
    for row in ROWS:
        section = text.split(f'<a id="{row.id.replace(".", "-")}"></a>')[1].split("<a id=")[0]
        assert f"**Verdict**: {row.verdict}" in section
        for source in row.sources:
            assert f"[{source}][{source.where}]" in section
            assert f"\n[{source.where}]: {source.url}\n" in text
