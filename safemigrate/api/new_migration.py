"""``new``: the next migration file, named and numbered as the directory's layout wants it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ..core.errors import BadInputError, MigrationFileError
from ..settings.config import Settings
from ..source import FILENAME_PATTERN, discover
from ..source.layouts import resolve as resolve_layout


def new(settings: Settings, name: str, *, now: dt.datetime | None = None) -> Path:
    """Create the next migration file ``<version>_<name>.sql`` and return its path."""
    candidate = f"0_{name}.sql"
    if FILENAME_PATTERN.match(candidate) is None:
        raise BadInputError(
            f"migration name {name!r} is not valid: use letters, digits, _ . - "
            "(starting with a letter or digit)"
        )
    directory = settings.dir
    layout = resolve_layout(directory, settings.layout)
    if layout != "safemigrate":
        return _new_in_layout(settings, layout, name, now)
    existing = discover(directory) if directory.exists() else []
    newest = existing[-1] if existing else None
    if settings.version_style == "timestamp":
        moment = now or dt.datetime.now(dt.timezone.utc)
        version = int(moment.strftime("%Y%m%d%H%M%S"))
        if newest is not None and version <= newest.version:
            version = newest.version + 1
        version_text = str(version)
    else:
        version = newest.version + 1 if newest is not None else 1
        width = len(newest.version_text) if newest is not None else 4
        version_text = str(version).zfill(width)
    path = directory / f"{version_text}_{name}.sql"
    directory.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(
                f"-- {version_text}_{name}: write the migration's SQL below.\n"
                "-- Each statement runs as its own step, in its own transaction, under\n"
                "-- lock_timeout; see docs/migrations.md for -- safemigrate: directives.\n"
                "-- Until it has SQL it is an empty migration: `up` records it as applied and\n"
                "-- `check` warns (empty-migration).\n"
            )
    except FileExistsError:
        raise MigrationFileError(str(path), "already exists") from None
    return path


def _new_in_layout(settings: Settings, layout: str, name: str, now: dt.datetime | None) -> Path:
    """``new`` in another tool's layout: its files, named its way. Returns the up file."""
    from ..source.layouts import new_files

    existing = discover(settings.dir, layout) if settings.dir.exists() else []
    moment = now or dt.datetime.now(dt.timezone.utc)
    files = new_files(
        layout, existing, name, moment, timestamp=settings.version_style == "timestamp"
    )
    written = []
    for relative, text in files.items():
        path = settings.dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with path.open("x", encoding="utf-8") as handle:
                handle.write(text)
        except FileExistsError:
            raise MigrationFileError(str(path), "already exists") from None
        written.append(path)
    return next((p for p in written if "down" not in p.name), written[0])
