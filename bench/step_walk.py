"""The walk of one step, from ``safemigrate.api.up`` to the step's COMMIT (issue 23).

Two real ``up`` runs on a throwaway server, each applying one pending step:

- ``plain``: ``CREATE TABLE`` on a fresh database (one transaction, one round trip);
- ``recipe``: ``ALTER TABLE t ADD CHECK (...)`` on a table an earlier run created (the CHECK
  recipe: NOT VALID, then VALIDATE).

``sys.setprofile`` records every safemigrate function the main thread calls from the entry of
``api.up`` to the moment the step's COMMIT is sent (the query that carries both the journal's
``applied`` row and the COMMIT; the monitor thread is not followed, and a module's import-time
code is not a call). Of the walk it reports:

- the distinct functions and the files they are in;
- the hops: the chain of safemigrate calls that sends the COMMIT, and the longest chain of the
  walk (each counts the safemigrate frames on the stack, ``api.up`` the first);
- pglast's parses (``parse_sql``, ``parse_sql_json``, ``parse_plpgsql``...) and scans
  (``scan``), by caller, and every statement text that goes through a parse (or a scan) more
  than once: a text is read again when one of its statements, stripped, was read before.

    .venv/bin/python bench/step_walk.py                      # prints, writes results/step_walk.json
    .venv/bin/python bench/step_walk.py --out /tmp/walk.json --label after

Both walks are run once to warm up (imports, caches) before the measured run. Nothing is timed:
the counts are the same on any machine.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import _common as c

#: pglast's entry points that read SQL, by what they do.
PARSES = (
    "parse_sql",
    "parse_sql_json",
    "parse_sql_protobuf",
    "parse_plpgsql",
    "parse_plpgsql_json",
)
SCANS = ("scan", "split", "fingerprint", "normalize")

#: The two walks: the setup migrations applied first (not measured), then the measured one.
WALKS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "plain": ({}, {"0001_items.sql": "CREATE TABLE items (id bigint PRIMARY KEY, name text);\n"}),
    "recipe": (
        {"0001_t.sql": "CREATE TABLE t (id bigint PRIMARY KEY, qty int);\n"},
        {"0002_t_qty.sql": "ALTER TABLE t ADD CHECK (qty >= 0);\n"},
    ),
    # Not one of the two walks: a plain CREATE INDEX the runner rewrites to
    # CONCURRENTLY, whose rewritten text is where a parse of the same statement used to repeat.
    "index": (
        {"0001_t.sql": "CREATE TABLE t (id bigint PRIMARY KEY, qty int);\n"},
        {"0002_t_qty.sql": "CREATE INDEX t_qty ON t (qty);\n"},
    ),
}

PACKAGE = str(c.REPO / "safemigrate")


@dataclass
class Read:
    """One call of a pglast entry point."""

    entry: str
    caller: str
    texts: tuple[str, ...]


@dataclass
class Walk:
    """What one profiled ``up`` recorded."""

    functions: collections.Counter[str] = field(default_factory=collections.Counter)
    #: The functions called below the executor (the step itself, after the run's set-up).
    in_executor: set[str] = field(default_factory=set)
    longest: list[str] = field(default_factory=list)
    to_commit: list[str] | None = None
    reads: list[Read] = field(default_factory=list)


class Recorder:
    """The profile hook and the pglast wrappers of one walk."""

    def __init__(self) -> None:
        self.walk: Walk | None = None
        self.names: dict[CodeType, str | None] = {}
        self.main = threading.main_thread()

    def name(self, code: CodeType) -> str | None:
        """``path:qualname`` of a safemigrate function, else None (cached by code object)."""
        if code not in self.names:
            path = code.co_filename
            inside = path.startswith(PACKAGE) and code.co_name != "<module>"
            rel = path[len(PACKAGE) + 1 :] if inside else ""
            self.names[code] = (
                f"{rel}:{getattr(code, 'co_qualname', code.co_name)}" if inside else None
            )
        return self.names[code]

    def chain(self, frame: FrameType | None) -> list[str]:
        """The safemigrate functions on the stack, outermost first."""
        out: list[str] = []
        while frame is not None:
            name = self.name(frame.f_code)
            if name is not None:
                out.append(name)
            frame = frame.f_back
        out.reverse()
        start = next((i for i, n in enumerate(out) if n == "api/apply.py:up"), 0)
        return out[start:]

    def hook(self, frame: FrameType, event: str, arg: Any) -> None:
        walk = self.walk
        if walk is None or event != "call":
            return
        code = frame.f_code
        if code.co_name == "execute" and "psycopg" in code.co_filename and _commits_step(frame):
            if walk.to_commit is None:
                walk.to_commit = self.chain(frame)
                self.walk = None  # the end of the walk
            return
        name = self.name(code)
        if name is None:
            return
        walk.functions[name] += 1
        chain = self.chain(frame)
        if any(hop.startswith("run/executor.py:") for hop in chain):
            walk.in_executor.add(name)
        if len(chain) > len(walk.longest):
            walk.longest = chain

    def wrap(self, module: Any, entry: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def reading(text: Any, *args: Any, **kwargs: Any) -> Any:
            walk = self.walk
            if walk is not None and threading.current_thread() is self.main:
                caller = self.chain(sys._getframe(1))
                walk.reads.append(
                    Read(entry, " < ".join(reversed(caller[-3:])) or "?", statement_texts(text))
                )
            return original(text, *args, **kwargs)

        return reading


_ORIGINAL_SPLIT: Callable[..., Any] | None = None


def statement_texts(text: Any) -> tuple[str, ...]:
    """The statements of ``text``, each stripped (the whole text when it does not split)."""
    if not isinstance(text, str):
        return (repr(text),)
    assert _ORIGINAL_SPLIT is not None
    try:
        slices = _ORIGINAL_SPLIT(text, only_slices=True)
    except Exception:
        return (text.strip(),)
    return tuple(text[s].strip() for s in slices) or (text.strip(),)


def _commits_step(frame: FrameType) -> bool:
    """True when the psycopg ``execute`` of ``frame`` sends the journal's applied row (with the
    COMMIT of the step's transaction: the end of the walk)."""
    query = frame.f_locals.get("query")
    if query is None:
        return False
    try:
        conn = frame.f_locals.get("self")
        if hasattr(query, "as_string"):
            text = query.as_string(getattr(conn, "connection", conn))
        elif isinstance(query, bytes):
            text = query.decode()
        else:
            text = str(query)
    except Exception:
        return False
    # The journal row (db.journal.record_sql) in the state applied: sent with the COMMIT of a
    # transaction step, alone after an autocommit one.
    return "SELECT FROM promoted" in text and "'applied'" in text


def install(recorder: Recorder) -> None:
    """Put the recording wrappers in place of pglast's entry points, before safemigrate
    imports them (so a ``from pglast import parse_sql`` gets the wrapper too)."""
    global _ORIGINAL_SPLIT
    import pglast
    from pglast import parser

    _ORIGINAL_SPLIT = parser.split
    for entry in PARSES + SCANS:
        original = getattr(parser, entry, None)
        if original is None:
            continue
        wrapped = recorder.wrap(parser, entry, original)
        setattr(parser, entry, wrapped)
        if getattr(pglast, entry, None) is original:
            setattr(pglast, entry, wrapped)


@dataclass
class Result:
    """What a walk is reported as."""

    functions: int
    files: int
    #: The same without lint/ and reference/ (the lint gate's own walk of the files).
    functions_outside_lint: int
    files_outside_lint: int
    #: The functions called from the executor down (the step once the run is set up).
    step_functions: int
    step_files: int
    calls: int
    hops_to_commit: int
    chain_to_commit: list[str]
    longest_chain: int
    longest: list[str]
    parses: int
    scans: int
    reads_by_caller: dict[str, int]
    parsed_twice: list[dict[str, Any]]
    scanned_twice: list[dict[str, Any]]
    by_file: dict[str, int]


def summarise(walk: Walk) -> Result:
    """A walk's counts."""
    files = collections.Counter(name.split(":", 1)[0] for name in walk.functions)
    by_caller: collections.Counter[str] = collections.Counter()
    seen: dict[str, dict[str, list[str]]] = {"parse": {}, "scan": {}}
    parses = scans = 0
    for read in walk.reads:
        kind = "parse" if read.entry in PARSES else "scan"
        if kind == "parse":
            parses += 1
        else:
            scans += 1
        by_caller[f"{read.entry} <- {read.caller}"] += 1
        for text in read.texts:
            seen[kind].setdefault(text, []).append(f"{read.entry} <- {read.caller}")

    def twice(kind: str) -> list[dict[str, Any]]:
        return [
            {"text": text, "reads": callers}
            for text, callers in seen[kind].items()
            if len(callers) > 1
        ]

    chain = walk.to_commit or []
    outside = [n for n in walk.functions if not n.startswith(("lint/", "reference/"))]
    return Result(
        functions=len(walk.functions),
        files=len(files),
        functions_outside_lint=len(outside),
        files_outside_lint=len({n.split(":", 1)[0] for n in outside}),
        step_functions=len(walk.in_executor),
        step_files=len({n.split(":", 1)[0] for n in walk.in_executor}),
        calls=sum(walk.functions.values()),
        hops_to_commit=len(chain),
        chain_to_commit=chain,
        longest_chain=len(walk.longest),
        longest=walk.longest,
        parses=parses,
        scans=scans,
        reads_by_caller=dict(sorted(by_caller.items())),
        parsed_twice=twice("parse"),
        scanned_twice=twice("scan"),
        by_file=dict(sorted(files.items())),
    )


def write_migrations(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


def one_walk(recorder: Recorder, instance: Any, name: str, *, measured: bool) -> Walk | None:
    """Run walk ``name`` on a new database: its setup ``up`` unrecorded, then its ``up``
    recorded when ``measured``."""
    from safemigrate import api, load_settings

    setup, step = WALKS[name]
    dbname = c.create_database(instance, prefix="walk")
    try:
        with tempfile.TemporaryDirectory(prefix="step-walk-") as tmp:
            root = Path(tmp)
            environ = {"DATABASE_URL": c.url(instance, dbname)}
            if setup:
                write_migrations(root / "migrations", setup)
                api.up(load_settings(cwd=root, environ=environ), environ=environ)
            write_migrations(root / "migrations", step)
            settings = load_settings(cwd=root, environ=environ)
            walk = Walk()
            if measured:
                recorder.walk = walk
                sys.setprofile(recorder.hook)
            try:
                result = api.up(settings, environ=environ)
            finally:
                sys.setprofile(None)
                recorder.walk = None
            if len(result.applied) != 1:
                raise SystemExit(f"{name}: expected one applied step, got {result.applied}")
            if measured and walk.to_commit is None:
                raise SystemExit(f"{name}: the step's COMMIT was never seen")
            return walk if measured else None
    finally:
        c.drop_database(instance, dbname)


def report(name: str, result: Result) -> None:
    """Print one walk's counts."""
    print(f"== {name}")
    print(f"  {result.functions} functions in {result.files} files ({result.calls} calls)")
    print(
        f"  without lint/ and reference/: {result.functions_outside_lint} functions in "
        f"{result.files_outside_lint} files"
    )
    print(f"  from the executor down: {result.step_functions} in {result.step_files} files")
    print(f"  hops to COMMIT: {result.hops_to_commit}; longest chain: {result.longest_chain}")
    for hop in result.chain_to_commit:
        print(f"    {hop}")
    print(f"  pglast: {result.parses} parses, {result.scans} scans")
    for caller, count in result.reads_by_caller.items():
        print(f"    {count} x {caller}")
    for label, items in (("parsed", result.parsed_twice), ("scanned", result.scanned_twice)):
        for item in items:
            print(f"  {label} {len(item['reads'])} times: {item['text'][:70]!r}")
            for read in item["reads"]:
                print(f"      {read}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--out", type=Path, default=c.RESULTS / "step_walk.json")
    ap.add_argument("--label", default="current", help="the key the results go under in --out")
    ap.add_argument("--pg-bindir", default=None)
    args = ap.parse_args()
    c.sigterm_as_interrupt()
    recorder = Recorder()
    install(recorder)
    results: dict[str, Any] = {}
    with c.server("ram", args.pg_bindir) as instance:
        for name in WALKS:
            one_walk(recorder, instance, name, measured=False)
        for name in WALKS:
            walk = one_walk(recorder, instance, name, measured=True)
            assert walk is not None
            result = summarise(walk)
            report(name, result)
            results[name] = asdict(result)
    previous: dict[str, Any] = {}
    if args.out.exists():
        previous = json.loads(args.out.read_text())
    previous[args.label] = {"git": c.machine_info().get("git"), "walks": results}
    c.write_json(args.out, previous)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
