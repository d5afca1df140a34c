"""The pure parts of a throwaway cluster: quoting settings and conninfo values, picking a port."""

from __future__ import annotations

import socket

import pytest

from safemigrate.infra.throwaway import cluster


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("on", "'on'"),
        ("", "''"),
        ("it's", "'it''s'"),
        ("C:\\dir", "'C:\\\\dir'"),
    ],
)
def test_conf_values_are_always_quoted(value: str, quoted: str) -> None:
    assert cluster._conf_value(value) == quoted


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("postgres", "postgres"),
        ("/dev/shm/safemigrate-pg-x/socket", "/dev/shm/safemigrate-pg-x/socket"),
        ("", "''"),
        ("my db", "'my db'"),
        ("it's", "'it\\'s'"),
        ("back\\slash", "'back\\\\slash'"),
        ("tab\there", "'tab\there'"),
    ],
)
def test_conninfo_values_are_quoted_only_when_needed(value: str, quoted: str) -> None:
    assert cluster._conninfo_value(value) == quoted


def test_free_port_can_be_listened_on() -> None:
    port = cluster.free_port()
    assert 1024 <= port <= 65535
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", port))
