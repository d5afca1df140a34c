"""Sizes such as ``8MB`` (the gate_small_table setting) and how they are shown."""

from __future__ import annotations

import pytest

from safemigrate.core.errors import ConfigError
from safemigrate.core.sizes import format_size, parse_size


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0", 0),
        (0, 0),
        ("8MB", 8 * 1024**2),
        (" 512 kB ", 512 * 1024),
        ("1.5GB", 3 * 1024**3 // 2),
        ("100B", 100),
        ("2TB", 2 * 1024**4),
    ],
)
def test_sizes_are_read_in_postgresql_memory_units(text: object, size: int) -> None:
    assert parse_size(text, key="k") == size


@pytest.mark.parametrize("text", ["8", "8mb", "8 MiB", "-1MB", "MB", "", True, 1.5, "9999999TB"])
def test_other_values_are_one_error_naming_the_key(text: object) -> None:
    with pytest.raises(ConfigError, match=r"^gate_small_table: "):
        parse_size(text, key="gate_small_table")


@pytest.mark.parametrize(
    ("size", "shown"),
    [(0, "0 B"), (900, "900 B"), (16384, "16 kB"), (1536, "1.5 kB"), (56 * 1024**2, "56 MB")],
)
def test_sizes_are_shown_like_pg_size_pretty(size: int, shown: str) -> None:
    assert format_size(size) == shown
