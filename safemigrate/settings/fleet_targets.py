"""The fleet's targets: which databases (and tenant schemas) one command runs against. Pure.

A targets file is TOML with one ``[[target]]`` table per target::

    [[target]]
    name = "shop-eu"
    dsn_env = "SHOP_EU_DSN"      # or dsn = "host=... dbname=..." (no password in files)
    schema = "tenant_42"         # optional: search_path and journal live in this schema
    lock_timeout = "5s"          # optional: any setting, for this target only

The config file may hold the same tables (``[[target]]`` in safemigrate.toml,
``[[tool.safemigrate.target]]`` in pyproject.toml), or ``targets = "FILE"`` naming a targets
file. A target's own settings are applied over the config, environment and flags. Every bad
key or value is a ConfigError (exit 2) naming the file, the target and the key; a DSN's value is
never shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError
from .config import (
    Settings,
    config_document,
    parse_identifier,
    read_toml,
    with_overrides,
)

#: The keys of a target table that are not settings.
OWN_KEYS = frozenset({"name", "dsn", "dsn_env", "schema"})


@dataclass(frozen=True)
class TargetSpec:
    """One target as written: its name, where its DSN comes from, and its settings."""

    name: str
    #: The DSN written in the file, or None when it comes from ``dsn_env``.
    dsn: str | None
    #: The environment variable holding the DSN, or None.
    dsn_env: str | None
    #: The tenant schema (search_path and journal), or None for the DSN's own search_path.
    schema: str | None
    #: The run's settings for this target (the target's own keys applied).
    settings: Settings
    #: ``FILE [[target]] NAME``, for messages.
    origin: str

    def resolve_dsn(self, environ: Mapping[str, str]) -> tuple[str, str]:
        """The DSN and where it came from; a missing or empty variable is ConfigError."""
        if self.dsn is not None:
            return self.dsn, f"{self.origin}: dsn"
        assert self.dsn_env is not None
        value = environ.get(self.dsn_env, "")
        if not value.strip():
            raise ConfigError(
                f"{self.origin}: dsn_env: the environment variable {self.dsn_env} is not set "
                "or empty"
            )
        return value, f"{self.origin}: dsn_env {self.dsn_env}"


def load_targets_file(path: Path, settings: Settings, *, cwd: Path) -> list[TargetSpec]:
    """The targets of the TOML file ``path`` (relative to ``cwd``), over ``settings``."""
    full = cwd / path
    document = read_toml(full, str(path))
    unknown = sorted(set(document) - {"target"})
    if unknown:
        raise ConfigError(f"{path}: key {unknown[0]!r} is unknown; write one [[target]] per target")
    return parse_targets(document.get("target"), str(path), settings, full.parent)


def targets_from_config(settings: Settings) -> list[TargetSpec]:
    """The targets the config file holds (``target`` tables or a ``targets`` file); empty
    when it holds none or there is no config file."""
    path = settings.config_file
    if path is None:
        return []
    prefix, table = config_document(path)
    if "targets" in table and "target" in table:
        raise ConfigError(f"{prefix}: give either [[target]] tables or targets = FILE, not both")
    if "targets" in table:
        named = table["targets"]
        if isinstance(named, str) and named:
            return load_targets_file(Path(named), settings, cwd=path.parent)
        if isinstance(named, list):
            return parse_targets(named, f"{prefix} targets", settings, path.parent)
        raise ConfigError(f"{prefix}: targets: must be a file name or an array of tables")
    if "target" in table:
        return parse_targets(table["target"], prefix, settings, path.parent)
    return []


def parse_targets(raw: object, prefix: str, settings: Settings, base: Path) -> list[TargetSpec]:
    """The targets of an array of tables read from ``prefix`` (a file name)."""
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{prefix}: must hold at least one [[target]] table")
    specs: list[TargetSpec] = []
    seen: set[str] = set()
    for number, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict):
            raise ConfigError(f"{prefix}: target #{number} must be a table")
        spec = _target(entry, f"{prefix} [[target]] #{number}", settings, base)
        if spec.name in seen:
            raise ConfigError(f"{spec.origin}: name {spec.name!r} is used by another target")
        seen.add(spec.name)
        specs.append(spec)
    return specs


def _target(entry: dict[str, Any], where: str, settings: Settings, base: Path) -> TargetSpec:
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip() or not name.isprintable():
        raise ConfigError(f"{where}: name: every target needs a name (a non-empty string)")
    origin = f"{where.rsplit(' #', 1)[0]} {name!r}"
    dsn, dsn_env = entry.get("dsn"), entry.get("dsn_env")
    if (dsn is None) == (dsn_env is None):
        raise ConfigError(f"{origin}: give exactly one of dsn and dsn_env")
    if dsn is not None and (not isinstance(dsn, str) or not dsn.strip()):
        # The value is never shown: it may hold a password.
        raise ConfigError(f"{origin}: dsn: must be a non-empty connection string")
    if dsn_env is not None and (not isinstance(dsn_env, str) or not dsn_env.strip()):
        raise ConfigError(f"{origin}: dsn_env: must name an environment variable")
    schema = entry.get("schema")
    if schema is not None:
        schema = parse_identifier(schema, f"{origin}: schema")
    own = {k: v for k, v in entry.items() if k not in OWN_KEYS}
    target_settings = with_overrides(settings, own, prefix=origin, base=base)
    if schema is not None and "journal_schema" not in own:
        # A tenant's journal lives with its objects, in its schema.
        target_settings = replace(target_settings, journal_schema=schema)
    return TargetSpec(name, dsn, dsn_env, schema, target_settings, origin)
