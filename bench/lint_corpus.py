"""Regenerate docs/lint-accuracy.md: ``check`` on the labelled corpus beside squawk, speed, noise.

    python bench/lint_corpus.py [--repeat 5] [--langfuse DIR] [--out docs/lint-accuracy.md]

1. Accuracy: every case of tests/lint_corpus (labelled from PostgreSQL's documentation) is
   judged by ``check`` (bench/harness/lint_cases.py: the SQL as written, after the case's
   ``given`` history) and by squawk (``squawk --reporter json --pg-version N``, on the case file
   alone: squawk has no history). A squawk verdict is unsafe when it reports a rule outside
   SQUAWK_NOT_SAFETY (style and configuration rules). Precision and recall per rule (ours) and
   overall (both); an xfail case counts as wrong.
2. Speed: ``safemigrate check --dir LANGFUSE --format json`` and ``squawk --reporter json
   LANGFUSE/*.sql``, each as the subprocess a user runs, alternated, median of ``--repeat``.
3. Noise: ``check``'s findings on the langfuse history with the default settings, per rule and
   severity, each category judged by hand (NOISE_JUDGEMENTS; a new category shows "not judged").

squawk comes from the bench extra (``pip install -e '.[bench]'``: squawk-cli).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from check_scale import ADDED, COLD, SQUAWK, WARM, find_squawk, time_check  # noqa: E402

from bench.harness.lint_cases import Case, Verdict, correct, judge, load_cases  # noqa: E402
from safemigrate.lint import lint_directory  # noqa: E402

LANGFUSE = REPO.parent / "shared" / "corpora" / "langfuse" / "migrations"

#: squawk rules about style, robustness of re-runs or session settings, not about what a
#: statement does to a live table: they do not make a verdict unsafe.
SQUAWK_NOT_SAFETY = frozenset(
    {
        "prefer-robust-stmts",
        "require-timeout-settings",
        "require-lock-timeout",
        "require-statement-timeout",
        "prefer-bigint-over-int",
        "prefer-bigint-over-smallint",
        "prefer-big-int",
        "prefer-identity",
        "prefer-text-field",
        "prefer-timestamptz",
        "ban-char-field",
        "require-table-schema",
        "transaction-nesting",
        "ban-uncommitted-transaction",
    }
)

#: Each langfuse finding category, judged: (true positive?, why). Keyed by (rule, severity).
NOISE_JUDGEMENTS: dict[tuple[str, str], tuple[bool, str]] = {
    ("require-concurrent-index", "warning"): (
        True,
        "Prisma writes plain CREATE INDEX on live tables; safemigrate rewrites it, any other "
        "runner blocks writes for the build",
    ),
    ("require-concurrent-index", "error"): (
        True,
        "a plain index inside a BEGIN/COMMIT block (0356) cannot be built CONCURRENTLY",
    ),
    ("constraint-without-not-valid", "error"): (
        True,
        "Prisma's ADD FOREIGN KEY has no NOT VALID: both tables lose writes for the scan",
    ),
    ("constraint-without-not-valid", "warning"): (
        True,
        "as the error, but safemigrate runs it as NOT VALID + VALIDATE (safe_rewrites)",
    ),
    ("set-not-null", "error"): (
        True,
        "SET NOT NULL on columns the history created nullable: a full scan under ACCESS EXCLUSIVE",
    ),
    ("set-not-null", "warning"): (
        True,
        "as the error, but safemigrate runs it through a validated CHECK (safe_rewrites)",
    ),
    ("drop-table-or-column", "warning"): (
        True,
        "drops of columns and tables the running code may still use: the deploy order matters",
    ),
    ("rename", "warning"): (
        True,
        "renames of existing columns/tables break the running version until it is replaced",
    ),
    ("column-type-change", "error"): (
        True,
        "the history shows each change converts every value (int to float8, jsonb to json, "
        "text or an enum to another enum with USING)",
    ),
    ("column-type-change", "warning"): (
        True,
        "the history does not show the column's type, and the change is of a kind that only "
        "sometimes rewrites",
    ),
    ("unique-without-index", "error"): (
        True,
        "ADD PRIMARY KEY / UNIQUE builds its index under ACCESS EXCLUSIVE",
    ),
    ("unique-without-index", "warning"): (
        True,
        "as the error, but safemigrate builds the index CONCURRENTLY first (safe_rewrites)",
    ),
    ("unbounded-data-change", "error"): (
        True,
        "backfills without WHERE: every row locked until commit, an application's write of "
        "any of them waits (true, though often small tables at the time; the lint gate lets "
        "a table under gate_small_table through)",
    ),
    ("unbounded-data-change", "warning"): (
        True,
        "backfills without WHERE: every row locked until commit (true, though often small "
        "tables at the time)",
    ),
    ("add-column-volatile-default", "error"): (
        True,
        "a volatile default rewrites the table",
    ),
    ("require-concurrent-index-drop", "warning"): (
        True,
        "DROP INDEX without CONCURRENTLY takes ACCESS EXCLUSIVE on the table",
    ),
    ("table-rewrite", "error"): (True, "a full-table rewrite under ACCESS EXCLUSIVE"),
    ("lock-table", "warning"): (True, "an explicit table lock held to the end of the block"),
    ("add-column-rewrites", "error"): (True, "a serial/identity column fills every row"),
    ("timeout-guard-off", "error"): (
        True,
        "0434's backfill runs SET LOCAL statement_timeout = 0: no limit on a statement that "
        "locks rows; safemigrate refuses it unless allowed with a reason (or a project sets "
        "max_statement_timeout = 0, as the tests that apply langfuse do)",
    ),
    ("add-column-not-null-without-default", "error"): (
        True,
        "NOT NULL without DEFAULT on tables that had rows (Prisma warns the same); 0231, "
        "which empties the table first, is no longer reported",
    ),
}


@dataclass(frozen=True)
class Row:
    """One case with both verdicts."""

    case: Case
    ours: Verdict
    ours_correct: bool
    squawk_rules: tuple[str, ...]

    @property
    def squawk_unsafe(self) -> bool:
        """True when squawk reported a safety rule."""
        return any(r not in SQUAWK_NOT_SAFETY for r in self.squawk_rules)

    @property
    def squawk_correct(self) -> bool:
        """True when squawk's safe/unsafe matches the label (its rule names differ from ours)."""
        return self.squawk_unsafe == self.case.unsafe


def squawk_binary() -> str:
    """The squawk program (check_scale.find_squawk); exits when it is not installed."""
    found = find_squawk()
    if found is None:
        raise SystemExit("squawk not found: pip install -e '.[bench]' (squawk-cli)")
    return found


def squawk_verdicts(cases: list[Case]) -> dict[Path, tuple[str, ...]]:
    """The squawk rules reported on each case file (one squawk run per pg version)."""
    by_version: dict[int, list[Case]] = defaultdict(list)
    for case in cases:
        by_version[case.pg_version].append(case)
    found: dict[Path, list[str]] = {c.path: [] for c in cases}
    for version, group in sorted(by_version.items()):
        done = subprocess.run(
            [
                squawk_binary(),
                "--reporter",
                "json",
                f"--pg-version={version}.0",
                *(str(c.path) for c in group),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        for violation in json.loads(done.stdout or "[]"):
            path = Path(violation["file"]).resolve()
            if path in found and violation["rule_name"] not in found[path]:
                found[path].append(violation["rule_name"])
    return {path: tuple(rules) for path, rules in found.items()}


def judge_all(cases: list[Case]) -> list[Row]:
    """Both verdicts of every case."""
    squawk = squawk_verdicts(cases)
    rows = []
    for case in cases:
        ours = judge(case)
        right = correct(case, ours) and not case.xfail
        rows.append(Row(case, ours, right, squawk[case.path.resolve()]))
    return rows


def _ratio(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def per_rule_table(rows: list[Row]) -> list[str]:
    """Precision and recall of each of our rules on the corpus."""
    rules = sorted(
        {r.case.expected_rule for r in rows if r.case.expected_rule}
        | {rule for r in rows for rule in r.ours.rules}
    )
    lines = [
        "| rule | cases labelled | true positives | false positives | false negatives "
        "| precision | recall |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for rule in rules:
        labelled = [r for r in rows if r.case.expected_rule == rule]
        tp = sum(1 for r in labelled if rule in r.ours.rules and not r.case.xfail)
        fn = len(labelled) - tp
        fp = sum(1 for r in rows if rule in r.ours.rules and r.case.expected_rule != rule)
        lines.append(
            f"| `{rule}` | {len(labelled)} | {tp} | {fp} | {fn} | {_ratio(tp, tp + fp)} "
            f"| {_ratio(tp, tp + fn)} |"
        )
    return lines


def overall(rows: list[Row], squawk: bool) -> dict[str, str]:
    """Accuracy, precision and recall of the unsafe verdict, for us or for squawk."""
    right = [r.squawk_correct if squawk else r.ours_correct for r in rows]
    said_unsafe = [r.squawk_unsafe if squawk else r.ours.unsafe for r in rows]
    tp = sum(1 for r, ok, u in zip(rows, right, said_unsafe, strict=True) if r.case.unsafe and ok)
    fp = sum(1 for r, u in zip(rows, said_unsafe, strict=True) if u and not r.case.unsafe)
    unsafe = sum(1 for r in rows if r.case.unsafe)
    return {
        "accuracy": _ratio(sum(right), len(rows)),
        "correct": f"{sum(right)}/{len(rows)}",
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, unsafe),
        "false alarms": str(fp),
        "misses": str(unsafe - tp),
    }


#: The bi* and bj* sets: not blind, so not among the blind sets' figures.
REFERENCE_SET = (
    "The `bi*` cases (32) are not blind: the work that made `check` read the reference table "
    "(issue 25) wrote them from its rows, on topics the corpus covered thinly (server-version "
    "rejections, REINDEX SCHEMA and DISCARD ALL in a transaction, SHARE UPDATE EXCLUSIVE "
    "subcommands, MERGE, data-modifying WITH), each verified on PostgreSQL 15 (pg_locks, "
    "relfilenode, pg_stat_xact_user_tables, the SQLSTATE); `check` got 24/32 before it read "
    "the table, 31/32 after (the miss, ADD CONSTRAINT ... NOT ENFORCED before 18: the table "
    "had no row for it) and 32/32 once the table had that row. Two blind labels were changed "
    "by PostgreSQL's source, not by the linter: `be26` and `bh06` (a domain's constraint added "
    "NOT VALID, then VALIDATE CONSTRAINT), labelled safe by analogy with ALTER TABLE's "
    "VALIDATE, are unsafe (`scan-under-lock`): typecmds.c validates a domain's constraint "
    "under SHARE on every table with a column of it, held through the scan (writes wait), "
    "as pg_locks shows on PostgreSQL 15 and 18. The `bj*` cases (13) are not blind either: "
    "they came with the reference rows of issue 25's next fixes (an UPDATE or DELETE through "
    "a view the run made of its own new tables, INSERT ... SELECT of every row of an existing "
    "table (safe: no application waits), upserts and MERGEs from a table read whole, MERGE "
    "ON a condition always true), each verified on PostgreSQL 15. The pg_version 11 cases "
    "`089` and `156` are `xfail`: the reference covers 12 to 18, and an older pg_version is "
    "judged as 12."
)

#: What the blind sets found when they were first run, before any rule changed for them.
FIRST_BLIND_MEASUREMENT = (
    "Each round was run once on the code of its day before any rule changed for it. Round 1 "
    "(`ba*`, `bb*`, 140 cases): 132/140 right (94.3%; `ba*`, ALTER TABLE columns and "
    "constraints, 62/70; `bb*`, indexes, partitions, drops, data changes, timeouts and DO "
    "blocks, 70/70): 5 misses (an index rebuilt by timestamp to timestamptz under UTC, a "
    "validated CHECK re-checked by any type change of its column, varchar(n)[] to text[], a "
    "PL/pgSQL function used as a default, SET NOT NULL whose proving CHECK is dropped in the "
    "same ALTER TABLE) and 3 false alarms (a collation change no index sees, a change to an "
    "unconstrained domain, a domain to its base type). Round 2 (`bc*`, `bd*`, 120 cases, "
    "written after round 1's fixes, many as whole ORM-style files, some checked on PostgreSQL "
    "16 and 18): 113/120 (94.2%; `bc*` 55/60, `bd*` 58/60): 4 misses (ADD COLUMN of a domain "
    "with a volatile default, of a NOT NULL domain, of a domain with a CHECK; a domain over "
    "varchar(10) to varchar(10), which rewrites) and 3 false alarms (SET EXPRESSION of a "
    "PostgreSQL 18 virtual column, the DROP of a temporary table, DROP TABLE IF EXISTS of a "
    "table the history never created). All but the last are fixed, each backed by a test on "
    "a real server; the last is kept as a known difference (`xfail`): by design a table the "
    "history does not show is assumed to exist. A review of the same work found 9 more "
    "misses by reading the code (collations changed without a COLLATE clause, indexes and "
    "CHECKs of partitions, SQL functions the planner does not inline, the live schema under "
    "a search_path, PostgreSQL's names for unnamed CHECKs, EXCLUDE columns, a dropped and "
    "re-created table, an index sharing a constraint's name, ALTER INDEX RENAME), fixed the "
    "same way. Round 3 (`be*`, `bf*`, 100 cases, written after all of that and aimed at "
    "partitions, inheritance, views, foreign keys, domains, collations and dynamic SQL): "
    "96/100 (96.0%; `be*` 48/50, `bf*` 48/50), no false alarm; 4 misses, now fixed the same "
    "way: an index with expressions or a predicate, or on a partitioned table, is built "
    "again by any type change of a column it reads (three cases), and a PERFORM "
    "set_config() in a DO block. A second review then found 7 more (EXCLUDE indexes with a "
    "predicate, unnamed indexes, schema-qualified domains, set_config() in PL/pgSQL "
    "expressions, volatile built-ins now taken from pg_proc, invalid live indexes, and the "
    "cache's racy window), fixed the same way. Round 4 (`bg*`, `bh*`, 100 cases, written "
    "after all of that, as an incident reviewer would): 98/100 (98.0%; `bg*` 48/50, `bh*` "
    "50/50), no miss; 2 false alarms: SET ACCESS METHOD to the method the table already "
    "has (fixed), and ALTER TABLE IF EXISTS of a table the history never created (kept, "
    "`xfail`, by the same design as above)."
)


def noise(langfuse: Path) -> tuple[Counter[tuple[str, str]], int]:
    """Our findings on langfuse per (rule, severity), with the default settings of ``check``."""
    report = lint_directory(langfuse, concurrent_indexes="rewrite", safe_rewrites="rewrite")
    return Counter((f.rule, f.severity) for f in report.findings), len(report.files)


def render(
    rows: list[Row], speed: dict[str, float] | None, langfuse: Path, speed_repeat: int = 0
) -> str:
    """docs/lint-accuracy.md."""
    ours, theirs = overall(rows, squawk=False), overall(rows, squawk=True)
    blind_rows = [r for r in rows if r.case.blind]
    blind = len(blind_rows)
    unsafe = sum(1 for r in rows if r.case.unsafe)
    out = [
        "# `check` against PostgreSQL's documentation",
        "",
        "Generated by `python bench/lint_corpus.py`; do not edit by hand.",
        "",
        f"The corpus, `tests/lint_corpus/`, holds {len(rows)} migrations ({unsafe} unsafe, "
        f"{len(rows) - unsafe} safe), each labelled from PostgreSQL's documentation or source "
        "(its `-- doc:` line), never from the linter's output. A case may carry `-- given:` "
        "lines: the schema earlier migrations built, which `check` reads as the first file of "
        "the directory (squawk, which has no history, sees the case file alone). The SQL is "
        'judged as written (`concurrent_indexes` and `safe_rewrites` "off"): a case is unsafe '
        "when a statement rule reports it. The PostgreSQL facts the labels rest on (which type "
        "changes rewrite, which constraints are validated by a scan, ATTACH/DETACH PARTITION "
        "and partitioned indexes) were also checked on a PostgreSQL 15 server "
        "(`tests/integration/test_lint_facts.py`).",
        "",
        "How far to trust the figure. The numbered cases (001-186) were written by the same "
        "work that brought the rules in line with the documentation (issue 13), so they cover "
        "what the rules were fixed for (two later batches written to aim at keyword rules "
        "found 8 and 2 misses before those were fixed). The blind sets (`ba*` to `bh*`, "
        f"{blind} cases) were written afterwards, in four rounds, by writers who saw "
        "PostgreSQL's "
        "documentation and source, a real PostgreSQL 15 server on which they verified every "
        "label (relfilenode, pg_locks, scan counters) and the rules' `--explain` texts, but "
        "not the linter's code or the other cases. "
        + FIRST_BLIND_MEASUREMENT
        + " "
        + REFERENCE_SET
        + " The "
        "independent figures are those first measurements: 94.3%, 94.2%, 96.0%, then 98.0% "
        "(squawk 51.4%, 47.5%, 54.0%, 49.0% on the same rounds): the last round, the first "
        "measured on code that had met the earlier ones, clears the 97% goal; the tables "
        "below are after the fixes. New cases from real incidents remain the honest test.",
        "",
        "squawk's verdict is unsafe when it reports any rule except its style and session "
        f"rules ({', '.join(f'`{r}`' for r in sorted(SQUAWK_NOT_SAFETY))}).",
        "",
        "## Overall",
        "",
        "| | accuracy | correct | precision (unsafe) | recall (unsafe) | false alarms | misses |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, figures in (
        (f"safemigrate check, all {len(rows)}", ours),
        (f"squawk 2.70, all {len(rows)}", theirs),
        (f"safemigrate check, blind sets ({blind})", overall(blind_rows, squawk=False)),
        (f"squawk 2.70, blind sets ({blind})", overall(blind_rows, squawk=True)),
    ):
        out.append(
            f"| {name} | {figures['accuracy']} | {figures['correct']} | {figures['precision']} "
            f"| {figures['recall']} | {figures['false alarms']} | {figures['misses']} |"
        )
    out += [
        "",
        "For `check` an unsafe case counts as found only when the labelled rule reports it; "
        "squawk is judged on safe/unsafe alone (its rules have other names).",
        "",
        "## Per rule (`check`)",
        "",
        *per_rule_table(rows),
        "",
    ]
    if speed is not None:

        def ratio(name: str) -> float:
            return speed[name] / speed[SQUAWK]

        def goal(name: str) -> str:
            return "met" if ratio(name) <= 2 else "not met"

        out += [
            "## Speed",
            "",
            f"All on the {len(list(langfuse.glob('*.sql')))} langfuse migrations, each as the "
            "command a user runs, alternated in one run, median of "
            f"{speed_repeat} (wall time):",
            "",
            "| command | seconds | x squawk |",
            "| --- | ---: | ---: |",
            *(f"| {name} | {value:.3f} | {ratio(name):.1f} |" for name, value in speed.items()),
            "",
            f"The goal was at most 2x squawk's time. With the cache (the default, see "
            f"docs/check.md): unchanged directory {ratio(WARM):.2f}x ({goal(WARM)}), one file "
            f"added {ratio(ADDED):.2f}x ({goal(ADDED)}). Nothing cached (a fresh CI machine that "
            f"keeps no cache): {ratio(COLD):.2f}x ({goal(COLD)}). squawk is one native binary; "
            "`check` starts a Python interpreter and click before it reads anything (the "
            "start-up row, already more than squawk's whole run), and with nothing cached it "
            "imports pglast and parses every file with the runner's own reader, so its steps "
            "are the runner's. A cached run reads the files' status (as git's index does) and "
            "imports neither the parser nor the rules: what it spends beyond the start-up row "
            "is about 20 ms, and with squawk at some 35 ms that puts it at 2x, a little under "
            "or over from one run to the next. A run after an added file parses and judges "
            "only that file, on the schema saved after the others, but pays for importing "
            "pglast and the rules. The machine is shared, so absolute times vary between runs; "
            "the ratios are the figures.",
            "",
        ]
    counts, files = noise(langfuse)
    out += [
        "## Noise on langfuse",
        "",
        f"`check` with its default settings on the {files} langfuse migrations (a Prisma "
        "history), per rule and severity, each category judged by hand:",
        "",
        "| rule | severity | findings | judged | why |",
        "| --- | --- | ---: | --- | --- |",
    ]
    for (rule, severity), count in sorted(counts.items()):
        judgement = NOISE_JUDGEMENTS.get((rule, severity))
        verdict, why = (
            ("true positive" if judgement[0] else "false positive", judgement[1])
            if judgement
            else ("not judged", "new category: judge it in bench/lint_corpus.py")
        )
        out.append(f"| `{rule}` | {severity} | {count} | {verdict} | {why} |")
    out += [
        "",
        f"{sum(counts.values())} findings in all.",
        "",
        "## Every case",
        "",
        "| case | label | `check` | squawk |",
        "| --- | --- | --- | --- |",
    ]
    for row in rows:
        label = f"unsafe `{row.case.expected_rule}`" if row.case.unsafe else "safe"
        ours_text = ", ".join(row.ours.rules) or "safe"
        mark = "" if row.ours_correct else " **wrong**"
        if row.case.xfail:
            mark = f" **wrong** (xfail: {row.case.xfail})"
        safety = [r for r in row.squawk_rules if r not in SQUAWK_NOT_SAFETY]
        squawk_text = ", ".join(safety) or "safe"
        squawk_mark = "" if row.squawk_correct else " **wrong**"
        out.append(
            f"| `{row.case.name}` | {label} | {ours_text}{mark} | {squawk_text}{squawk_mark} |"
        )
    return "\n".join(out) + "\n"


def main() -> None:
    """Judge the corpus, time both linters, write docs/lint-accuracy.md, print the overall table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--langfuse", type=Path, default=LANGFUSE)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "lint-accuracy.md")
    parser.add_argument("--no-speed", action="store_true", help="skip the timing runs")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter that runs safemigrate for the timings (use one with safemigrate "
        "installed from a wheel: an editable install adds its import hook to every start-up)",
    )
    args = parser.parse_args()
    rows = judge_all(load_cases())
    speed = (
        None
        if args.no_speed
        else time_check(args.langfuse, args.repeat, args.python, squawk_binary())
    )
    text = render(rows, speed, args.langfuse, args.repeat)
    args.out.write_text(text, encoding="utf-8")
    print(text.split("## Per rule")[0])
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
