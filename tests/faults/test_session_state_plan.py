"""``plan`` and ``up --dry-run`` show the lost-session-state refusal ``up`` would make (issue 21).

0002 makes a temporary ``orders`` shadowing public.orders; the run is killed in 0003. ``up``
then refuses 0003's INSERT (it could depend on the temporary table, which no new session has;
exit 1), but ``plan`` and ``up --dry-run`` said nothing of it. Now both name the step and what
it could depend on (the dry run exits 1, as up would), and the JSON plan has ``session_state``;
with ``--accept-lost-session-state 0002`` neither shows it.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.faults.helpers import GATE, GATE_FILE, Spawn, killed_at_gate
from tests.fixtures_db import ConnectFactory
from tests.support.runner import journal_rows, run, write_migrations

WHERE = "0003_count.sql:4 (step 2): not run: it could depend on temporary table orders"


def test_plan_and_dry_run_show_the_lost_session_state_refusal(
    tmp_path: Path, db_dsn: str, connect: ConnectFactory, spawn: Spawn
) -> None:
    conn = connect()
    conn.execute(
        "CREATE TABLE orders (id int PRIMARY KEY); CREATE TABLE counted (n bigint);"
        "INSERT INTO orders SELECT g FROM generate_series(1, 100) g"
    )
    directory = write_migrations(
        tmp_path / "m",
        {
            "0002_tmp.sql": "CREATE TEMP TABLE orders AS SELECT * FROM public.orders "
            "WHERE id <= 10;\n",
            "0003_count.sql": GATE_FILE + "INSERT INTO counted SELECT count(*) FROM orders;\n",
        },
    )
    base = ("--dir", str(directory), "--dsn", db_dsn)
    killed_at_gate(connect, spawn, GATE, "up", *base, "--format", "json", timeout=60)
    assert journal_rows(db_dsn) == [(2, 0, "applied")]

    plan = run("plan", *base)
    assert plan.exit_code == 0, plan.output
    assert f"session state: up would stop before this step (exit 1): {WHERE}" in plan.stdout
    document = json.loads(run("plan", *base, "--format", "json").stdout)
    assert document["session_state"]["would_refuse"] is True
    assert WHERE in document["session_state"]["error"]
    assert "--accept-lost-session-state 0002" in document["session_state"]["hint"]
    dry = run("up", *base, "--dry-run")
    assert dry.exit_code == 1, dry.output
    assert WHERE in dry.output
    # The same refusal up makes; nothing ran.
    up = run("up", *base)
    assert up.exit_code == 1, up.output
    assert WHERE in up.output
    assert conn.execute("SELECT count(*) FROM counted").fetchone() == (0,)

    accepted = run("up", *base, "--dry-run", "--accept-lost-session-state", "0002")
    assert accepted.exit_code == 0, accepted.output
    assert "session state:" not in accepted.output
