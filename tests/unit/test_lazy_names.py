"""A package's names imported on first use (core.lazy_names): imported once, kept in the
package, and an unknown name is an AttributeError naming the package."""

from __future__ import annotations

from typing import Any

import pytest

import safemigrate
from safemigrate import source
from safemigrate.core.lazy_names import LazyNames


def test_a_name_is_imported_on_first_use_and_kept_in_the_namespace() -> None:
    namespace: dict[str, Any] = {}
    load = LazyNames(
        "safemigrate",
        namespace,
        {"durations": ("core.durations", None), "x": ("core.sizes", "format_size")},
    )
    from safemigrate.core import durations, sizes

    assert load("durations") is durations
    assert load("x") is sizes.format_size
    assert namespace == {"durations": durations, "x": sizes.format_size}


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    with pytest.raises(
        AttributeError, match=r"module 'safemigrate\.source' has no attribute 'nope'"
    ):
        source.nope  # noqa: B018
    with pytest.raises(AttributeError, match="module 'safemigrate' has no attribute 'nope'"):
        safemigrate.nope  # noqa: B018


def test_the_packages_lazy_names_resolve() -> None:
    import safemigrate.api
    from safemigrate.lint import lint_directory
    from safemigrate.lint.directory import lint_directory as defined
    from safemigrate.source.parse import read_file

    assert safemigrate.api is safemigrate.__getattr__("api")
    assert lint_directory is defined
    assert source.read_file is read_file
    assert safemigrate.load_settings.__module__ == "safemigrate.settings.config"
