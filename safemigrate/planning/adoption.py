"""Another tool's history, adopted: what it applied counts as applied. Pure, no I/O.

``db.foreign_history`` reads the tool's table (never writing it) into a :class:`ForeignHistory`;
:func:`adopted_entries` turns it into journal entries for the migrations on disk that the
journal does not know yet (``state = 'baseline'``, ``application_name`` naming the origin), so
that ``up``, ``status`` and ``plan`` treat them as applied. ``up`` records those entries in the
journal before its first step (see docs/switching.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import BadInputError
from ..core.model import JournalEntry, Migration
from ..source import MigrationFile
from ..source.layouts.flyway import checksum as flyway_checksum
from .pending import padding_width

if TYPE_CHECKING:
    from ..core.events import HistoryAdopted


@dataclass(frozen=True)
class ForeignRow:
    """One migration another tool recorded."""

    #: The tool's id of the migration (dbmate's version text, yoyo's migration id, ...).
    origin_id: str
    #: False when the tool recorded it as failed (sqlx ``success = false``, golang-migrate
    #: ``dirty``): the database may hold half of it.
    ok: bool = True
    #: The tool's checksum of the file, in its own algorithm (sqlx: SHA-384 hex), if it keeps
    #: one; for yoyo, its ``migration_hash`` (of the id, not the text).
    checksum: str | None = None


@dataclass(frozen=True)
class ForeignHistory:
    """Another tool's history table, as read."""

    tool: str
    #: The table, schema-qualified.
    table: str
    rows: tuple[ForeignRow, ...]
    #: True for golang-migrate: its one row is the last version applied, every one before it
    #: counts as applied too.
    up_to_last: bool = False
    #: Flyway: the id of its baseline row; every version up to it counts as applied.
    baseline: str | None = None
    #: The table's schema and name, apart (``table`` joins them for people).
    where: tuple[str, str] | None = None

    @property
    def origin(self) -> str:
        """What adopted journal rows say in ``application_name``."""
        return f"adopted from {self.tool} {self.table}"


class AdoptionError(BadInputError):
    """The other tool's history says a migration failed half-way: nothing is applied."""


#: How each tool's checksum of a file is computed, from the file's bytes.
CHECKSUMS: dict[str, Callable[[bytes], str]] = {
    # sqlx-core/src/migrate/migration.rs: Sha384::digest(sql.as_bytes())
    "sqlx": lambda data: hashlib.sha384(data).hexdigest(),
    # flyway ChecksumCalculator: CRC-32 of the lines, signed (source/layouts/flyway.py)
    "flyway": flyway_checksum,
    # prisma-engines schema-connector/src/checksum.rs render_checksum: SHA-256 of the script,
    # in zero-padded hex (what a new row records; see prisma_checksum_matches for reading)
    "prisma": lambda data: hashlib.sha256(data).hexdigest(),
}


def prisma_checksum_matches(data: bytes, recorded: str) -> bool:
    """Whether the script ``data`` matches the checksum Prisma recorded, as Prisma compares
    them (prisma-engines schema-connector/src/checksum.rs, script_matches_checksum): the
    script as it is, with CRLF read as LF, or with LF written as CRLF (git may change line
    endings between machines); and a checksum that is not 64 characters long is in the hex
    without zero padding an early release wrote (prisma-engines issue 1887)."""
    for variant in (data, data.replace(b"\r\n", b"\n"), data.replace(b"\n", b"\r\n")):
        digest = hashlib.sha256(variant).digest()
        if len(recorded) == 64 or not recorded:
            shown = digest.hex()
        else:
            shown = "".join(f"{byte:x}" for byte in digest)
        if shown == recorded:
            return True
    return False


def shown_name(file: MigrationFile) -> str:
    """A file's name for messages: with its folder for Prisma's ``<folder>/migration.sql``,
    where the folder names the migration."""
    if file.path.name == "migration.sql":
        return f"{file.path.parent.name}/{file.path.name}"
    return file.path.name


_FAILED_HINTS = {
    "golang-migrate": "the database may hold part of that migration: finish or undo it by "
    "hand, then clear the flag with golang-migrate's `migrate force VERSION`",
    "sqlx": "the database may hold part of that migration: finish or undo it by hand, then "
    "delete its row from _sqlx_migrations (sqlx would refuse too)",
    "flyway": "the database may hold part of that migration: finish or undo it by hand, then "
    "remove the failed row with `flyway repair`",
    "prisma": "the database may hold part of that migration: finish or undo it by hand, then "
    "mark it with `prisma migrate resolve --applied NAME` (finished by hand) or "
    "`--rolled-back NAME` (undone: up applies it again), as prisma migrate deploy asks (P3009)",
}


def refuse_failed(history: ForeignHistory) -> None:
    """Raise AdoptionError (exit 2) when the tool recorded a migration as failed or dirty."""
    failed = [row for row in history.rows if not row.ok]
    if not failed:
        return
    what = "dirty" if history.tool == "golang-migrate" else "failed"
    raise AdoptionError(
        f"{history.table} ({history.tool}) records migration {failed[0].origin_id} as {what}: "
        "safemigrate adopts no history with a half-applied migration",
        hint=_FAILED_HINTS.get(
            history.tool,
            f"repair the database and {history.tool}'s history before switching",
        ),
    )


def applied_ids(
    history: ForeignHistory,
    files: Sequence[MigrationFile],
    version_of: Callable[[str], int | None] = lambda _: None,
) -> list[str]:
    """The tool ids of every migration the history counts as applied."""
    ids = [row.origin_id for row in history.rows]
    if history.tool == "yoyo":
        # yoyo finds a migration by migration_hash, the SHA-256 of its id (the id column is
        # informative); the checksum field carries that hash.
        by_hash = {yoyo_hash(f.origin_id): f.origin_id for f in files}
        ids = [by_hash.get(row.checksum or "", row.origin_id) for row in history.rows]
    if history.baseline is not None:
        upto = version_of(history.baseline)
        below = [f.origin_id for f in files if upto is not None and f.version <= upto]
        ids = below + [i for i in ids if i not in below]
    if not history.up_to_last or not ids:
        return ids
    last = max(int(i) for i in ids)
    on_disk = [f.origin_id for f in files if f.version <= last]
    return on_disk + [i for i in ids if i not in on_disk]


def checksum_drift(
    history: ForeignHistory, files: Sequence[MigrationFile], skip: set[int]
) -> list[str]:
    """Files whose checksum differs from the one the tool recorded (versions in ``skip`` are
    already in the journal, which checks them itself)."""
    compute = CHECKSUMS.get(history.tool)
    if compute is None:
        return []
    by_id = {f.origin_id: f for f in files}
    problems = []
    for row in history.rows:
        file = by_id.get(row.origin_id)
        if file is None or row.checksum is None or file.version in skip:
            continue
        data = file.path.read_bytes()
        same = (
            prisma_checksum_matches(data, row.checksum)
            if history.tool == "prisma"
            else compute(data) == row.checksum
        )
        if not same:
            problems.append(
                f"{shown_name(file)}: applied by {history.tool}, but its text has changed since "
                f"(checksum in {history.table} differs)"
            )
    return problems


def adopted_entries(
    history: ForeignHistory,
    files: Sequence[MigrationFile],
    migrations: Sequence[Migration],
    journal: Sequence[JournalEntry],
    version_of: Callable[[str], int | None],
) -> list[JournalEntry]:
    """Journal entries for what ``history`` applied and the journal does not know yet.

    One ``baseline`` entry per step of each such migration on disk, with the step's checksum;
    an applied id without a file gives one entry for its version (``status`` shows it as
    applied but gone). Raises AdoptionError for a failed or dirty migration.
    """
    refuse_failed(history)
    known = {e.version for e in journal}
    by_id = {f.origin_id: f for f in files}
    by_version = {m.version: m for m in migrations}
    entries: list[JournalEntry] = []
    for origin_id in applied_ids(history, files, version_of):
        file = by_id.get(origin_id)
        version = file.version if file is not None else version_of(origin_id)
        if version is None or version in known:
            continue
        known.add(version)
        migration = by_version.get(version) if file is not None else None
        if migration is None:
            entries.append(
                JournalEntry(version, origin_id, 0, "", "baseline", application_name=history.origin)
            )
            continue
        entries += [
            JournalEntry(
                version,
                migration.name,
                step.index,
                step.checksum,
                "baseline",
                application_name=history.origin,
            )
            for step in migration.steps
        ]
    return entries


def applied_versions(
    history: ForeignHistory,
    version_of: Callable[[str], int | None],
    file_versions: Iterable[int],
) -> set[int]:
    """The versions ``history`` counts as applied, whatever layout the files were read with:
    its rows' versions, and every file's up to golang-migrate's one row or Flyway's baseline."""
    versions = {v for row in history.rows if (v := version_of(row.origin_id)) is not None}
    upto = [version_of(history.baseline)] if history.baseline is not None else []
    if history.up_to_last and versions:
        upto.append(max(versions))
    for limit in upto:
        if limit is not None:
            versions |= {v for v in file_versions if v <= limit}
    return versions


def unrecorded(
    history: ForeignHistory,
    version_of: Callable[[str], int | None],
    files: Sequence[MigrationFile],
    journal: Sequence[JournalEntry],
) -> list[MigrationFile]:
    """The files ``history`` says its tool applied and the journal does not know: what ``up``
    would apply a second time if it ignored that history."""
    known = {e.version for e in journal}
    applied = applied_versions(history, version_of, (f.version for f in files))
    return [f for f in files if f.version in applied and f.version not in known]


def fits(history: ForeignHistory, tool_files: Sequence[MigrationFile], on_disk: int) -> bool:
    """True when ``history`` is plainly the history of this directory read the tool's way
    (``tool_files``, which must be every one of the ``on_disk`` files): it has rows, and every
    row names one of those files by the id the tool gives it (yoyo: by ``migration_hash``)."""
    if not history.rows or not tool_files or len(tool_files) != on_disk:
        return False
    ids = {f.origin_id for f in tool_files}
    hashes = {yoyo_hash(i) for i in ids} if history.tool == "yoyo" else set()
    return all(row.origin_id in ids or row.checksum in hashes for row in history.rows)


def refuse_unadopted(
    history: ForeignHistory,
    files: Sequence[MigrationFile],
    directory: str,
    layout: str,
    detected: str | None = None,
) -> None:
    """Refuse (exit 2) a run that would apply again what another tool applied: ``files`` are
    the migrations ``history`` records and the journal does not know, under ``layout``
    (``detected``: what ``auto`` read the directory as)."""
    if not files:
        return
    first, last = shown_name(files[0]), shown_name(files[-1])
    span = first if len(files) == 1 else f"{first} to {last}"
    if detected is not None:
        setting = f"layout auto read {directory} as {detected}'s own"
    else:
        setting = f"the layout setting is {layout}"
    count = f"{len(files)} migration{'s' if len(files) != 1 else ''}"
    raise AdoptionError(
        f"{history.table} is {history.tool}'s history and records {count} of {directory} as "
        f"applied ({span}) that the journal does not know, but {setting}: up would apply "
        "them again; nothing was run",
        hint=f'set layout = "{history.tool}" (config, SAFEMIGRATE_LAYOUT or --layout) so that '
        f"the switch adopts {history.table}; if that history is another application's, keep "
        "its table off this connection's search_path",
    )


def layout_notes(layout: str, detected: bool, files: Sequence[MigrationFile]) -> list[str]:
    """What ``plan`` says about the layout: which one, and each note with the files it is on."""
    notes = [f"layout: {layout}" + (" (detected)" if detected else "")]
    by_note: dict[str, list[str]] = {}
    for file in files:
        for note in file.notes:
            by_note.setdefault(note, []).append(shown_name(file))
    for note, names in by_note.items():
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        notes.append(f"{shown}: {note}")
    return notes


def yoyo_hash(migration_id: str) -> str:
    """yoyo's ``migration_hash`` of a migration id (yoyo/migrations.py: SHA-256 of the id)."""
    return hashlib.sha256(migration_id.encode("utf-8")).hexdigest()


def switch_event(
    history: ForeignHistory,
    adopted: Sequence[JournalEntry],
    migrations: Sequence[Migration],
    journal: str,
    *,
    recorded: bool = True,
    tool_history_written: bool = False,
) -> HistoryAdopted | None:
    """The announcement of the switch: ``adopted`` (entries from ``history``) recorded in
    ``journal``; None when there is nothing to adopt."""
    versions = sorted({e.version for e in adopted})
    if not versions:
        return None
    # Here, not at the top: ``status`` of a history with nothing to adopt loads no events.
    from ..core.events import HistoryAdopted

    texts = {m.version: m.version_text for m in migrations}
    # A version whose file is gone is padded like the others (issue 22 review F12: "0001 to 4").
    width = padding_width(migrations)
    return HistoryAdopted(
        history.tool,
        history.table,
        journal,
        len(versions),
        texts.get(versions[0], str(versions[0]).zfill(width)),
        texts.get(versions[-1], str(versions[-1]).zfill(width)),
        tool_history_written=tool_history_written,
        recorded=recorded,
    )
