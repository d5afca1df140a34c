"""Soak mode of the fault-injection trials: many seeded trials per fault, a table per fault.

Runs the trials of ``bench/harness/trials.py`` (where each fault and each check is described;
``--kinds mixed --corpora mixed`` is issue 21's soak: kill -9, terminated backends and fast
restarts across recipes, batches and session SETs) on a throwaway PostgreSQL of its own,
round-robin over every (fault, corpus) pair until each pair has run its trials or the time
budget is spent, and prints per fault: trials run, trials recovered, faults injected and
landed, runner processes started, and how many times each check was done and passed (schema
equal to the reference, journal exactly one 'applied' row per step, no invalid index, no
leftover runner process or backend, ...).

    python bench/chaos.py --trials 20 --kinds kill9,restart-fast,restart-immediate,terminate \\
        --corpora example,langfuse --budget 600 --json bench/results/chaos.json

``--trials example=30,langfuse=5`` gives each corpus its own count. A failed trial is listed
with its seed; ``--kinds KIND --corpora CORPUS --seed SEED --trials 1`` repeats it. Exit status:
0 when every trial recovered, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.harness.trials import (  # noqa: E402
    KINDS,
    OWN_SERVER_SETTINGS,
    Cluster,
    TrialResult,
    corpus,
    corpus_available,
    reference_snapshot,
    run_trial,
)
from safemigrate.infra.throwaway import ThrowawayServer, find_server_bindir  # noqa: E402

#: Short column labels of the checks, in table order.
CHECK_LABELS = {
    "schema equals the reference": "schema",
    "journal has exactly one 'applied' row per step": "journal",
    "journal has no duplicate step": "no-dup",
    "no invalid index": "no-invalid-idx",
    "no runner process left": "no-proc-left",
    "no runner backend left": "no-backend-left",
    "journal is a prefix of the steps after a crash": "prefix-after-kill",
    "only an autocommit step is left 'started'": "started-ok",
    "only an autocommit or batched step is left 'started'": "started-ok",
    "journal rows are known steps": "known-rows",
    "the last rerun exits 0": "rerun-exit-0",
    "a run that was not killed exits 0": "run-exit-0",
    "a run that ended before its kill exits 0": "run-exit-0",
    "the same run reconnects and exits 0": "same-run-exit-0",
    "connection_lost reported before reconnecting": "lost-event",
    "exit 6 while the server is down": "exit-6",
    "a clear message: could not resume within the reconnect timeout": "exit-6-msg",
    "the run after the outage exits 0": "rerun-exit-0",
    "every runner exits [0, 3]": "exit-0-or-3",
    "every runner exits [0]": "exit-0",
    "a refused runner names the run lock's holder": "holder-named",
    "a refused runner says who holds the run lock": "holder-said",
    "each step applied by exactly one runner": "once-per-step",
    "exactly one runner applies anything": "one-applier",
    "the last run exits 0": "rerun-exit-0",
    "every batch applied once, to the table its search_path names": "batches-once",
}


def parse_trials(text: str, corpora: list[str]) -> dict[str, int]:
    """``20`` (for every corpus) or ``example=30,langfuse=5``."""
    if text.strip().isdigit():
        return {name: int(text) for name in corpora}
    counts = dict.fromkeys(corpora, 0)
    for part in text.split(","):
        name, _, number = part.partition("=")
        counts[name.strip()] = int(number)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", default="10", help="per (fault, corpus): N or corpus=N,...")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated: {KINDS}")
    parser.add_argument("--corpora", default="example,langfuse", help="example, langfuse, mixed")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first trial")
    parser.add_argument("--budget", type=float, default=0, help="stop after SECONDS (0: none)")
    parser.add_argument("--kills", type=int, default=3, help="kills per kill9 trial")
    parser.add_argument("--faults", type=int, default=3, help="faults per reconnect trial")
    parser.add_argument("--runners", type=int, default=8, help="runners per concurrent trial")
    parser.add_argument("--server", default=None, help="auto, system, wheel or a bindir")
    parser.add_argument("--json", type=Path, help="write every trial's result here")
    args = parser.parse_args()

    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kinds {unknown}; known: {', '.join(KINDS)}")
    corpora = [c.strip() for c in args.corpora.split(",") if c.strip()]
    missing = [c for c in corpora if not corpus_available(c)]
    if missing:
        print(f"skipping corpora not on this machine: {missing}", file=sys.stderr)
        corpora = [c for c in corpora if c not in missing]
    counts = parse_trials(args.trials, corpora)

    began = time.monotonic()
    results: list[TrialResult] = []
    with ThrowawayServer(find_server_bindir(args.server), settings=OWN_SERVER_SETTINGS) as server:
        cluster = Cluster.own(server)
        print(
            f"PostgreSQL {server.major_version} ({server.bindir}), {platform.platform()}, "
            f"{os.cpu_count()} CPUs; kinds {kinds}; corpora {corpora}; trials {counts}; "
            f"budget {args.budget or 'none'}s",
            flush=True,
        )
        for name in corpora:
            t0 = time.monotonic()
            reference_snapshot(cluster, corpus(name))
            print(f"reference schema of {name}: {time.monotonic() - t0:.1f}s", flush=True)
        cells = [(kind, name) for kind in kinds for name in corpora]
        done: Counter[tuple[str, str]] = Counter()
        out_of_time = False
        round_ = 0
        while not out_of_time and any(done[c] < counts[c[1]] for c in cells):
            for kind, name in cells:
                if done[(kind, name)] >= counts[name]:
                    continue
                if args.budget and time.monotonic() - began > args.budget:
                    out_of_time = True
                    break
                seed = args.seed + round_
                options: dict[str, int] = {}
                if kind == "kill9":
                    options["kills"] = args.kills
                elif kind in ("restart-fast", "restart-immediate", "terminate", "mixed"):
                    options["faults"] = args.faults
                elif kind.startswith("concurrent"):
                    options["runners"] = args.runners
                try:
                    result = run_trial(cluster, kind, corpus(name), seed, **options)
                except Exception as exc:  # a trial that could not even finish is a failure
                    result = TrialResult(kind, name, seed)
                    result.check("trial ran to its end", False, repr(exc))
                results.append(result)
                done[(kind, name)] += 1
                mark = "ok" if result.recovered else "FAILED"
                print(
                    f"[{time.monotonic() - began:6.0f}s] {kind:17} {name:8} seed {seed:3}: {mark} "
                    f"faults={result.faults} landed={result.landed} runs={result.runs} "
                    f"{result.seconds:.1f}s",
                    flush=True,
                )
            round_ += 1

    elapsed = time.monotonic() - began
    print()
    print_tables(results, kinds, corpora)
    failed = [r for r in results if not r.recovered]
    print(f"\n{len(results)} trials in {elapsed:.0f}s; {len(results) - len(failed)} recovered")
    for result in failed:
        print("\n" + result.report())
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "elapsed_s": round(elapsed, 1),
                    "kinds": kinds,
                    "corpora": corpora,
                    "trials": [r.to_dict() for r in results],
                },
                indent=1,
            )
        )
    return 1 if failed else 0


def print_tables(results: list[TrialResult], kinds: list[str], corpora: list[str]) -> None:
    """One table per fault: a row per corpus."""
    for kind in kinds:
        rows = [r for r in results if r.kind == kind]
        if not rows:
            continue
        print(f"== {kind}")
        print(
            f"{'corpus':9} {'trials':>6} {'recovered':>9} {'faults':>6} {'landed':>6} "
            f"{'runs':>5} {'s/trial':>7}  checks passed/done"
        )
        for name in corpora:
            cell = [r for r in rows if r.corpus == name]
            if not cell:
                continue
            done: Counter[str] = Counter()
            passed: Counter[str] = Counter()
            for result in cell:
                for check, ok in result.checks.items():
                    label = CHECK_LABELS.get(check, check)
                    done[label] += 1
                    passed[label] += ok
            checks = " ".join(f"{label}={passed[label]}/{done[label]}" for label in done)
            unnamed = sum(r.unnamed_holder for r in cell)
            if unnamed:
                checks += f" (refusals naming no holder, race: {unnamed})"
            kinds: Counter[str] = sum((r.fault_kinds for r in cell), Counter())
            moments: Counter[str] = sum((r.moments for r in cell), Counter())
            if kinds:
                checks += f" (faults {dict(kinds)}, at {dict(moments)})"
            seconds = sum(r.seconds for r in cell) / len(cell)
            print(
                f"{name:9} {len(cell):>6} {sum(r.recovered for r in cell):>9} "
                f"{sum(r.faults for r in cell):>6} {sum(r.landed for r in cell):>6} "
                f"{sum(r.runs for r in cell):>5} {seconds:>7.1f}  {checks}"
            )
        print()


if __name__ == "__main__":
    sys.exit(main())
