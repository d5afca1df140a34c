"""What ``check`` remembers between runs, so an unchanged directory is not parsed again.

Two levels, both in one JSON file per checked directory (or list of files) and settings:

- the whole report, keyed by every file under the directory as git's index sees it (name,
  size, modification and change times, inode) and by the code that judged it (safemigrate's
  and pglast's files): a directory nobody touched is answered without reading a file or
  importing the parser. A write always moves the change time, which no tool can set back; a
  report made when a file had changed within two seconds is not kept whole (a file system
  with coarse timestamps could hide a second change in the same tick);
- each file's findings, keyed by a chain hash of the settings and of every file up to and
  including it (a file is judged against the schema the earlier files built, so its findings
  depend on all of them), and the schema after the last file: a directory that only gained
  new files (the usual change) has only those parsed and judged. This level keys on the
  files' text itself.

A cache that cannot be read, is from other code, or is corrupt is ignored; one that cannot be
written is skipped: the cache only ever saves time, it never changes a verdict. Nothing in it
is executable (JSON only), so a cache restored from elsewhere (a CI cache) cannot run code.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..lint.findings import Finding, LintReport
from ..lint.memo import FileMemo
from ..lint.memo import as_bytes as _encoded
from ..lint.memo import new_digest as _digest

#: Bump when the file's layout changes; older files are then ignored.
FORMAT = 1
#: Cache files kept in the cache directory; the least recently written go first.
MAX_FILES = 200


def default_directory(environ: Mapping[str, str] | None = None) -> Path | None:
    """``$XDG_CACHE_HOME/safemigrate``, else ``~/.cache/safemigrate``; None without a home."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME")
    if base:
        return Path(base) / "safemigrate"
    try:
        return Path.home() / ".cache" / "safemigrate"
    except RuntimeError:  # no HOME and no passwd entry
        return None


def code_fingerprint() -> str:
    """A hash of the code that judges: safemigrate's and pglast's files (path, size,
    modification and change times, inode).

    An upgrade, a downgrade or an edit of an editable install all change it, so a report is
    never served by code other than the code that made it.
    """
    digest = _digest()
    roots = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    # pglast's folder, found as the import system would, without importing it (or
    # importlib.util): the first sys.path entry that has one.
    for entry in sys.path:
        candidate = os.path.join(entry or ".", "pglast")
        if os.path.isfile(os.path.join(candidate, "__init__.py")):
            roots.append(candidate)
            break
    for root in roots:
        for path in _walk_files(root, skip=_NOT_CODE):
            if not path.endswith(_CODE_SUFFIXES):
                continue  # bytecode and data come and go without a change of code
            try:
                stat = os.stat(path)
            except OSError:
                continue
            status = f"{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ctime_ns}\0{stat.st_ino}"
            digest.update(_encoded(path) + b"\0" + status.encode() + b"\n")
    return digest.hexdigest()


#: The files whose change is a change of code, and folders that hold none.
_CODE_SUFFIXES = (".py", ".so", ".pyd")
_NOT_CODE = frozenset({"__pycache__"})


def _walk_files(root: str, skip: frozenset[str] = frozenset()) -> list[str]:
    """Every file under ``root`` (not in folders named in ``skip``), sorted, following
    directory links once. Plain strings and os.scandir: this runs before every cached check."""
    found: list[str] = []
    seen: set[str] = set()
    pending = [root]
    while pending:
        folder = pending.pop()
        real = os.path.realpath(folder)
        if real in seen:
            continue
        seen.add(real)
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir():
                    if entry.name not in skip:
                        pending.append(entry.path)
                else:
                    found.append(entry.path)
    found.sort()
    return found


#: A file modified this recently when a report is made does not let the report be kept: on a
#: file system with coarse timestamps a second change within the same tick would keep them.
RACY_NS = 2_000_000_000


@dataclass(frozen=True)
class Fingerprint:
    """What the whole-report level keys on: every file's name and status."""

    digest: str
    #: The newest modification time among the files (ns since the epoch).
    newest_ns: int

    def racy(self, now_ns: int) -> bool:
        """True when a file changed too recently (RACY_NS) to trust its status for long."""
        return self.newest_ns >= now_ns - RACY_NS


def fingerprint(paths: Iterable[Path]) -> Fingerprint | None:
    """A hash of the names and status (size, modification and change times, inode, device)
    of ``paths`` (a directory: every file under it, hidden ones too, whatever a layout reads),
    as git's index keys files: any write changes the change time, which no tool can set.

    None, so that nothing is answered from the whole-report level, when something cannot be
    read, or when a directory holds a link to a directory or anything but regular files and
    directories (a linked directory may be anything, even the root). The per-file level keys
    on the files' text and is never fooled by a status."""
    digest = _digest()
    newest = 0
    try:
        for given in paths:
            name = os.fspath(given)
            digest.update(_encoded(name) + b"\0")
            if os.path.isdir(name):
                files = _plain_files(name)
            elif os.path.isfile(name):
                files = [name]
            elif os.path.exists(name):
                raise _NotPlain(name)
            else:
                digest.update(b"\0missing")
                continue
            for path in files:
                status = os.stat(path)
                # The change time too: a tool may set the modification time back.
                newest = max(newest, status.st_mtime_ns, status.st_ctime_ns)
                digest.update(b"\0" + _encoded(path[len(name) :]) + b"\0")
                digest.update(
                    f"{status.st_size}:{status.st_mtime_ns}:{status.st_ctime_ns}:"
                    f"{status.st_ino}:{status.st_dev}".encode()
                )
    except (OSError, ValueError, _NotPlain):
        return None
    return Fingerprint(digest.hexdigest(), newest)


class _NotPlain(Exception):
    """A directory entry the whole-report level does not fingerprint."""


def _plain_files(root: str) -> list[str]:
    """Every file under ``root``, sorted; raises _NotPlain at a link to a directory or at an
    entry that is neither a regular file (or a link to one) nor a directory."""
    found: list[str] = []
    pending = [root]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif entry.is_file(follow_symlinks=True):
                    found.append(entry.path)
                else:
                    raise _NotPlain(entry.path)
    found.sort()
    return found


def finding_to_json(finding: Finding) -> list[object]:
    """A finding as a compact JSON array."""
    return [
        finding.file,
        finding.line,
        finding.column,
        finding.rule,
        finding.severity,
        finding.message,
        finding.hint,
    ]


def finding_from_json(raw: Any) -> Finding:
    """The finding finding_to_json wrote; raises on anything else."""
    file, line, column, rule, severity, message, hint = raw
    if severity not in ("error", "warning", "info"):
        raise ValueError(f"bad severity {severity!r}")
    return Finding(str(file), int(line), int(column), str(rule), severity, str(message), str(hint))


@dataclass
class CachedCheck:
    """One cache file: the whole report for a fingerprint, and the per-file memo."""

    fingerprint: str | None
    report: LintReport | None
    memo: FileMemo


class ResultCache:
    """The cache directory: one JSON file per (what was checked, settings)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, name: str) -> Path:
        return self.directory / f"check-{name}.json"

    @staticmethod
    def name_of(subject: str, settings_key: str) -> str:
        """The cache file's name for ``subject`` (the resolved directory or files)."""
        digest = _digest()
        digest.update(_encoded(subject) + b"\0" + _encoded(settings_key))
        return digest.hexdigest()

    def load(self, name: str, code: str, seed: str) -> CachedCheck:
        """The cache file ``name`` when it was written by this code; else an empty one."""
        empty = CachedCheck(None, None, FileMemo(seed))
        try:
            raw = json.loads(self._path(name).read_text(encoding="utf-8"))
            if raw.get("format") != FORMAT or raw.get("code") != code:
                return empty
            report = None
            if raw.get("report") is not None:
                r = raw["report"]
                report = LintReport(
                    [finding_from_json(f) for f in r["findings"]],
                    bool(r["bad_input"]),
                    tuple(str(f) for f in r["files"]),
                )
            known = {
                str(key): ([finding_from_json(f) for f in findings], bool(bad))
                for key, findings, bad in raw.get("chain", ())
            }
            catalog = raw.get("catalog")
            memo = FileMemo(
                seed,
                known,
                str(raw["catalog_key"]) if catalog is not None else None,
                catalog if isinstance(catalog, dict) else None,
            )
            fingerprint = raw.get("fingerprint")
            return CachedCheck(str(fingerprint) if fingerprint else None, report, memo)
        # RecursionError: JSON nested deeper than the reader recurses (garbage, too).
        except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return empty

    def save(
        self, name: str, code: str, fingerprint: str | None, report: LintReport, memo: FileMemo
    ) -> None:
        """Write the cache file ``name`` atomically; give up quietly when it cannot be."""
        data = {
            "format": FORMAT,
            "code": code,
            "fingerprint": fingerprint,
            "report": {
                "findings": [finding_to_json(f) for f in report.findings],
                "bad_input": report.bad_input,
                "files": list(report.files),
            }
            if fingerprint is not None
            else None,
            "chain": [
                [key, [finding_to_json(f) for f in findings], bad]
                for key, findings, bad in memo.chain
            ],
            "catalog_key": memo.catalog_key,
            "catalog": memo.catalog,
        }
        import tempfile  # only a run that judged something writes: not on the cached path

        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.directory, prefix=".check-", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(data, out, separators=(",", ":"))
                os.replace(temporary, self._path(name))
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
            self._prune()
        except OSError:
            return

    def _prune(self) -> None:
        """Keep the MAX_FILES most recently written cache files."""
        files = list(self.directory.glob("check-*.json"))
        if len(files) <= MAX_FILES:
            return

        def written(path: Path) -> float:
            try:
                return path.stat().st_mtime
            except OSError:
                return 0.0

        for path in sorted(files, key=written)[: len(files) - MAX_FILES]:
            path.unlink(missing_ok=True)
