"""check's per-file memo: each file's findings, keyed by a chain hash of the settings and of
every file up to and including it (see :mod:`safemigrate.infra.lint_cache`, which keeps it in
files). Pure: ``lint_directory`` takes and fills one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .findings import Finding

try:
    # hashlib's own BLAKE2 (what hashlib.blake2b is), without hashlib's OpenSSL import.
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b


def new_digest() -> blake2b:
    return blake2b(digest_size=20)


def as_bytes(text: str) -> bytes:
    """``text`` (a path, or anything that came from one) as bytes: undecodable file names come
    back from the file system as surrogates, which plain UTF-8 cannot encode."""
    return text.encode("utf-8", "surrogateescape")


@dataclass
class FileMemo:
    """The per-file level for one run of lint_directory: what earlier runs found, by chain
    key, and what this run finds (written back afterwards)."""

    #: Hash of the code and settings: the chain's start.
    seed: str
    #: Earlier runs' results: chain key -> (findings, bad input).
    known: dict[str, tuple[list[Finding], bool]] = field(default_factory=dict)
    #: The chain key after which ``catalog`` was taken, and the catalog (Catalog.to_json).
    catalog_key: str | None = None
    catalog: dict[str, Any] | None = None
    #: This run's chain: (key, findings, bad input) per file, in order.
    chain: list[tuple[str, list[Finding], bool]] = field(default_factory=list)

    def record(self, key: str, findings: list[Finding], bad_input: bool) -> None:
        """Remember this run's result for the file with chain key ``key``."""
        self.chain.append((key, findings, bad_input))

    def snapshot(self, key: str, catalog: dict[str, Any]) -> None:
        """Remember the schema after the file with chain key ``key`` (the last one)."""
        self.catalog_key = key
        self.catalog = catalog


def chain_keys(seed: str, files: Sequence[tuple[str, str]]) -> list[str]:
    """The key of each file of a directory: a hash of ``seed`` and of every (path, text) up to
    and including it."""
    keys: list[str] = []
    previous = seed
    for path, text in files:
        digest = new_digest()
        digest.update(f"{previous}\0".encode() + as_bytes(path) + b"\0")
        digest.update(text.encode("utf-8", "surrogatepass"))
        previous = digest.hexdigest()
        keys.append(previous)
    return keys
