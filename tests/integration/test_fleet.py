"""`up`, `status`, `plan` and `baseline` over many targets (databases and tenant schemas)."""

from __future__ import annotations

from pathlib import Path

import psycopg
from psycopg import sql

from tests.fixtures_db import MakeDatabase
from tests.support.runner import EXAMPLE, journal_rows, run, write_migrations


def write_targets(path: Path, targets: list[dict[str, str]]) -> Path:
    """A targets file with one [[target]] per dict (string values only)."""
    lines = []
    for target in targets:
        lines.append("[[target]]")
        lines += [f"{key} = {value!r}".replace("'", '"') for key, value in target.items()]
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def small_migrations(directory: Path) -> Path:
    return write_migrations(
        directory,
        {
            "0001_items.sql": "CREATE TABLE items (id bigint PRIMARY KEY, name text);",
            "0002_notes.sql": """
                CREATE TABLE notes (id bigint PRIMARY KEY);
                ALTER TABLE notes ADD COLUMN body text;
            """,
            "0003_tags.sql": "CREATE TABLE tags (id bigint PRIMARY KEY);",
        },
    )


def applied(dsn: str, table: str = "public.safemigrate_history") -> list[int]:
    return sorted({row[0] for row in journal_rows(dsn, table)})


def test_parallel_success_every_event_names_its_target(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    dsns = [make_database() for _ in range(3)]
    targets = write_targets(
        tmp_path / "targets.toml", [{"name": f"db{n}", "dsn": d} for n, d in enumerate(dsns)]
    )
    result = run(
        "up", "--dir", str(EXAMPLE), "--targets", str(targets), "--concurrency", "3",
        "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    events = result.events()
    final = events[-1]
    assert final["event"] == "fleet_finished"
    assert final["exit_code"] == 0 and final["failed"] == []
    assert {t["state"] for t in final["targets"]} == {"done"}
    assert all(t["applied_steps"] == 22 for t in final["targets"])
    for event in events[:-1]:
        assert event["target"] in {"db0", "db1", "db2"}, event
    connected = [e for e in events if e["event"] == "connected"]
    assert {e["target"] for e in connected} == {"db0", "db1", "db2"}
    assert all("server" in e for e in connected)
    for dsn in dsns:
        assert applied(dsn) == list(range(1, 11))

    again = run("up", "--dir", str(EXAMPLE), "--targets", str(targets))
    assert again.exit_code == 0, again.output
    assert "3 targets: 3 done" in again.stdout
    for name in ("db0", "db1", "db2"):
        assert f"[{name}] target:" in again.stdout


def test_text_table_and_status_matrix(make_database: MakeDatabase, tmp_path: Path) -> None:
    migrations = small_migrations(tmp_path / "m")
    dsns = [make_database(), make_database()]
    targets = write_targets(
        tmp_path / "t.toml", [{"name": "alpha", "dsn": dsns[0]}, {"name": "beta", "dsn": dsns[1]}]
    )
    only_alpha = write_targets(tmp_path / "a.toml", [{"name": "alpha", "dsn": dsns[0]}])
    assert run("up", "--dir", str(migrations), "--targets", str(only_alpha)).exit_code == 0

    status = run("status", "--dir", str(migrations), "--targets", str(targets), "--exit-code")
    assert status.exit_code == 1, status.output
    lines = status.stdout.splitlines()
    assert lines[0].split() == ["target", "0001", "0002", "0003"]
    assert lines[1].split() == ["alpha", "applied", "applied", "applied"]
    assert lines[2].split() == ["beta", "pending", "pending", "pending"]

    result = run("up", "--dir", str(migrations), "--targets", str(targets))
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if line.startswith("target "))
    assert header.split() == ["target", "state", "steps", "duration", "attempts", "error"]
    assert any(line.split()[:3] == ["beta", "done", "4"] for line in result.stdout.splitlines())
    assert any(line.split()[:3] == ["alpha", "done", "0"] for line in result.stdout.splitlines())

    status = run("status", "--dir", str(migrations), "--targets", str(targets), "--exit-code")
    assert status.exit_code == 0, status.output
    as_json = run("status", "--dir", str(migrations), "--targets", str(targets), "--format", "json")
    document = as_json.events()[0]
    assert [t["target"] for t in document["targets"]] == ["alpha", "beta"]


def _failing_fleet(make_database: MakeDatabase, tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """Three targets; the second has 0001 applied and already a table 0002 creates, so it
    fails there. (With an empty journal the table would be refused before 0001 ran: the
    database holds what the migrations create, issue 21 review 21h D2.)"""
    migrations = small_migrations(tmp_path / "m")
    dsns = [make_database() for _ in range(3)]
    first = run("up", "--dir", str(migrations), "--dsn", dsns[1], "--target", "1")
    assert first.exit_code == 0, first.output
    with psycopg.connect(dsns[1], autocommit=True) as conn:
        conn.execute("CREATE TABLE notes (id int)")
    targets = write_targets(
        tmp_path / "t.toml", [{"name": f"t{n}", "dsn": d} for n, d in enumerate(dsns)]
    )
    return migrations, targets, dsns


def test_a_failing_target_stops_the_fleet_by_default(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    migrations, targets, dsns = _failing_fleet(make_database, tmp_path)
    result = run("up", "--dir", str(migrations), "--targets", str(targets), "--concurrency", "1")
    assert result.exit_code == 1, result.output
    summary = result.stdout.splitlines()[-1]
    assert "failed: t1 (exit 1)" in summary
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line[:2] == "t0"}
    assert "done" in rows["t0"]
    assert any(
        line.startswith("t2") and "not started" in line for line in result.stdout.splitlines()
    )
    assert applied(dsns[0]) == [1, 2, 3]
    # The failing target stopped at a migration boundary: 0001 applied, 0002 untouched.
    assert applied(dsns[1]) == [1]
    assert journal_rows(dsns[1]) == [(1, 0, "applied")]
    assert applied(dsns[2]) == []


def test_keep_going_runs_every_target(make_database: MakeDatabase, tmp_path: Path) -> None:
    migrations, targets, dsns = _failing_fleet(make_database, tmp_path)
    result = run(
        "up", "--dir", str(migrations), "--targets", str(targets), "--concurrency", "1",
        "--keep-going", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    final = result.events()[-1]
    assert final["failed"] == ["t1"]
    assert [t["state"] for t in final["targets"]] == ["done", "failed", "done"]
    failed = [e for e in result.events() if e["event"] == "run_failed"]
    assert [e["target"] for e in failed] == ["t1"]
    assert applied(dsns[2]) == [1, 2, 3]


def test_a_failing_canary_stops_the_rest(make_database: MakeDatabase, tmp_path: Path) -> None:
    migrations, targets, dsns = _failing_fleet(make_database, tmp_path)
    # The failing target first, as the canary; --keep-going does not outrun a failed canary.
    text = targets.read_text()
    blocks = text.split("[[target]]")[1:]
    reordered = "[[target]]" + blocks[1] + "[[target]]" + blocks[0] + "[[target]]" + blocks[2]
    targets.write_text(reordered)
    result = run(
        "up", "--dir", str(migrations), "--targets", str(targets), "--canary", "1",
        "--keep-going", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    final = result.events()[-1]
    assert [t["state"] for t in final["targets"]] == ["failed", "not started", "not started"]
    assert applied(dsns[0]) == [] and applied(dsns[2]) == []


def test_tenant_schemas_hold_their_objects_and_journal(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    migrations = small_migrations(tmp_path / "m")
    dsn = make_database()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA tenant_a; CREATE SCHEMA tenant_b")
    targets = write_targets(
        tmp_path / "t.toml",
        [
            {"name": "a", "dsn": dsn, "schema": "tenant_a"},
            {"name": "b", "dsn": dsn, "schema": "tenant_b"},
        ],
    )
    result = run("up", "--dir", str(migrations), "--targets", str(targets))
    assert result.exit_code == 0, result.output
    with psycopg.connect(dsn, autocommit=True) as conn:
        public = conn.execute(
            "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace"
        ).fetchone()
        assert public == (0,)
        for schema in ("tenant_a", "tenant_b"):
            tables = conn.execute(
                "SELECT relname FROM pg_class WHERE relnamespace = %s::regnamespace "
                "AND relkind = 'r' ORDER BY 1",
                [schema],
            ).fetchall()
            assert [t[0] for t in tables] == ["items", "notes", "safemigrate_history", "tags"]
    assert applied(dsn, "tenant_a.safemigrate_history") == [1, 2, 3]
    status = run("status", "--dir", str(migrations), "--targets", str(targets), "--exit-code")
    assert status.exit_code == 0, status.output


def test_a_missing_tenant_schema_is_refused(make_database: MakeDatabase, tmp_path: Path) -> None:
    migrations = small_migrations(tmp_path / "m")
    dsn = make_database()
    targets = write_targets(tmp_path / "t.toml", [{"name": "a", "dsn": dsn, "schema": "nope"}])
    result = run("up", "--dir", str(migrations), "--targets", str(targets))
    assert result.exit_code == 2, result.output
    assert "schema 'nope' does not exist" in result.stdout
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert conn.execute("SELECT to_regnamespace('nope')").fetchone() == (None,)
        assert conn.execute(
            "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace"
        ).fetchone() == (0,)


def test_secrets_from_dsn_env_are_never_printed(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    migrations = small_migrations(tmp_path / "m")
    secret = "Sup3rSecretPw"
    good = make_database() + f" password={secret}"
    # Nothing listens there: the connection error must not show the password either.
    bad = f"host=127.0.0.1 port=1 dbname=x user=postgres password={secret} connect_timeout=2"
    targets = write_targets(
        tmp_path / "t.toml",
        [{"name": "good", "dsn_env": "GOOD_DSN"}, {"name": "bad", "dsn_env": "BAD_DSN"}],
    )
    env = {"GOOD_DSN": good, "BAD_DSN": bad}
    for fmt in ("text", "json"):
        for command in (("up", "--keep-going"), ("status",), ("plan",)):
            result = run(
                *command, "--dir", str(migrations), "--targets", str(targets), "--format", fmt,
                env=env,
            )  # fmt: skip
            assert result.exit_code == 6, result.output
            assert secret not in result.output
            assert "bad" in result.output
    missing = run("up", "--dir", str(migrations), "--targets", str(targets))
    assert missing.exit_code == 2
    assert "GOOD_DSN is not set" in missing.output


def test_a_bad_targets_file_names_file_and_key(tmp_path: Path) -> None:
    migrations = small_migrations(tmp_path / "m")
    targets = write_targets(
        tmp_path / "t.toml", [{"name": "a", "dsn": "dbname=x", "lock_timout": "2s"}]
    )
    result = run("up", "--dir", str(migrations), "--targets", str(targets))
    assert result.exit_code == 2
    assert "t.toml [[target]] 'a': key 'lock_timout' is unknown" in result.output
    assert "did you mean 'lock_timeout'" in result.output
    targets = write_targets(
        tmp_path / "t.toml", [{"name": "a", "dsn": "dbname=x", "lock_timeout": "0"}]
    )
    result = run("up", "--dir", str(migrations), "--targets", str(targets))
    assert result.exit_code == 2
    assert "t.toml [[target]] 'a': lock_timeout: must be greater than 0" in result.output
    both = run("up", "--dir", str(migrations), "--targets", str(targets), "--dsn", "dbname=x")
    assert both.exit_code == 2


def test_targets_from_the_config_file_and_per_target_settings(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    small_migrations(tmp_path / "m")
    dsns = [make_database(), make_database()]
    (tmp_path / "safemigrate.toml").write_text(
        f'dir = "m"\n\n[[target]]\nname = "one"\ndsn = "{dsns[0]}"\n'
        f'journal_table = "history_one"\n\n[[target]]\nname = "two"\ndsn = "{dsns[1]}"\n',
        encoding="utf-8",
    )
    result = run("up", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert applied(dsns[0], "public.history_one") == [1, 2, 3]
    assert applied(dsns[1]) == [1, 2, 3]
    plan = run("up", "--dry-run", cwd=tmp_path)
    assert plan.exit_code == 0, plan.output
    assert "== one" in plan.stdout and "== two" in plan.stdout


def test_baseline_on_every_target(make_database: MakeDatabase, tmp_path: Path) -> None:
    migrations = small_migrations(tmp_path / "m")
    dsns = [make_database(), make_database()]
    targets = write_targets(
        tmp_path / "t.toml", [{"name": f"b{n}", "dsn": d} for n, d in enumerate(dsns)]
    )
    result = run("baseline", "--dir", str(migrations), "--targets", str(targets), "0002")
    assert result.exit_code == 0, result.output
    assert "[b0] recorded as applied (not run): 0001_items.sql, 0002_notes.sql" in result.stdout
    for dsn in dsns:
        assert applied(dsn) == [1, 2]


def test_running_targets_finish_their_migration_and_stop_at_its_boundary(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_first.sql": "CREATE TABLE f (id int);",
            "0002_slow.sql": """
                CREATE TABLE s AS SELECT 1 AS x FROM pg_sleep(1);
                CREATE TABLE s2 AS SELECT 1 AS x FROM pg_sleep(2);
            """,
            "0003_t.sql": "CREATE TABLE t (id int);",
        },
    )
    failing, running = make_database(), make_database()
    # The failing target (0001 applied before: with an empty journal s2 would be refused up
    # front, review 21h D2) fails at 0002's second step (s2 exists there), while the other
    # spends 2 s in that same step: it is inside 0002 when the first fails.
    first = run("up", "--dir", str(migrations), "--dsn", failing, "--target", "1")
    assert first.exit_code == 0, first.output
    with psycopg.connect(failing, autocommit=True) as conn:
        conn.execute("CREATE TABLE s2 (x int)")
    targets = write_targets(
        tmp_path / "t.toml", [{"name": "fails", "dsn": failing}, {"name": "runs", "dsn": running}]
    )
    result = run(
        "up", "--dir", str(migrations), "--targets", str(targets), "--concurrency", "2",
        "--lint-gate", "off", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    final = result.events()[-1]
    assert [t["state"] for t in final["targets"]] == ["failed", "stopped"]
    # The running target was inside 0002 when the other failed: it finished 0002, not 0003.
    assert journal_rows(running) == [(1, 0, "applied"), (2, 0, "applied"), (2, 1, "applied")]
    assert journal_rows(failing) == [(1, 0, "applied"), (2, 0, "applied")]


def test_each_target_is_judged_against_its_own_database(
    make_database: MakeDatabase, tmp_path: Path
) -> None:
    # Issue 20: the same pending rewrite is harmless on a fresh target (bootstrapped) and on
    # one whose table is small, and refused (exit 7) on the one whose table is large.
    migrations = write_migrations(
        tmp_path / "m",
        {
            "0001_acct.sql": "CREATE TABLE IF NOT EXISTS acct (id int PRIMARY KEY, n int);",
            "0002_bigint.sql": "ALTER TABLE acct ALTER COLUMN n TYPE bigint;",
        },
    )
    fresh, small, big = (make_database() for _ in range(3))
    for dsn, rows in ((small, 100), (big, 400_000)):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE acct (id int PRIMARY KEY, n int)")
            conn.execute(
                sql.SQL("INSERT INTO acct SELECT g, g FROM generate_series(1, {}) g").format(
                    sql.Literal(rows)
                )
            )
    targets = write_targets(
        tmp_path / "targets.toml",
        [
            {"name": "fresh", "dsn": fresh},
            {"name": "small", "dsn": small},
            {"name": "big", "dsn": big},
        ],
    )
    # As written: with safe_rewrites "rewrite" the large one runs as the online type change.
    result = run(
        "up", "--dir", str(migrations), "--targets", str(targets), "--keep-going", "--format",
        "json", "--safe-rewrites", "off",
    )  # fmt: skip
    assert result.exit_code == 7, result.output
    events = result.events()
    assert [e["target"] for e in events if e["event"] == "fresh_database"] == ["fresh"]
    gates = {e["target"]: e for e in events if e["event"] == "lint_findings"}
    assert gates["small"]["refused"] is False and gates["big"]["refused"] is True
    [relieved] = gates["small"]["findings"]
    assert relieved["not_blocking_because"].startswith("acct: ")
    assert applied(fresh) == [1, 2] and applied(small) == [1, 2]
    assert applied(big) == []
