"""One default PostgreSQL major version: the settings, the linter and the --help texts agree."""

from __future__ import annotations

import inspect

from safemigrate.core.model import DEFAULT_PG_VERSION
from safemigrate.lint import directory, walker
from safemigrate.settings.config import Settings
from tests.support.runner import run


def test_the_settings_and_the_linter_default_to_the_one_version() -> None:
    assert Settings().pg_version == DEFAULT_PG_VERSION
    for function in (walker.lint_text, walker.lint_file, directory.lint_paths):
        assert inspect.signature(function).parameters["pg_version"].default == DEFAULT_PG_VERSION
    default = inspect.signature(directory.lint_directory).parameters["pg_version"].default
    assert default == DEFAULT_PG_VERSION


def test_the_help_texts_name_the_same_default() -> None:
    for command in ("check", "plan"):
        result = run(command, "--help")
        assert f"else {DEFAULT_PG_VERSION}]" in " ".join(result.stdout.split()), command
