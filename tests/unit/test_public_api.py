"""The package's public surface: every name in ``safemigrate.__all__`` imports, cheaply."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import safemigrate

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", safemigrate.__all__)
def test_every_public_name_imports(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from safemigrate import {name}", namespace)
    assert namespace[name] is getattr(safemigrate, name)


def test_the_public_names_are_what_they_say() -> None:
    from safemigrate import api
    from safemigrate.core import errors
    from safemigrate.run import executor
    from safemigrate.settings import config

    assert safemigrate.api is api
    assert safemigrate.load_settings is config.load_settings
    assert safemigrate.Settings is config.Settings
    assert safemigrate.RunResult is executor.RunResult
    assert issubclass(safemigrate.DriftError, safemigrate.SafemigrateError)
    assert safemigrate.ExitCode is errors.ExitCode
    assert safemigrate.__version__


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        safemigrate.no_such_name  # noqa: B018


@pytest.mark.parametrize("module", ["safemigrate", "safemigrate.cli", "safemigrate.api"])
def test_importing_does_not_load_psycopg(module: str) -> None:
    # `safemigrate --help` and `check` start without the database driver; --help without
    # the SQL parser either.
    unwanted = "{'psycopg'}" if module == "safemigrate.api" else "{'psycopg', 'pglast'}"
    code = (
        f"import sys, {module}; bad = {unwanted} & set(sys.modules); "
        "sys.exit(f'imported {bad}' if bad else 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
