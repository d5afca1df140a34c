"""Issue 22 item 7: the operator's live line in a real 80-column pseudo-terminal, behind a real
blocker: polite waits are not attempts (never "attempt 12/10"), the line fits the terminal and
never loses the blocker's pid, and exit 4's hint names the ways out."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

import psycopg

from tests.support.runner import command, environment, up_args, write_migrations

COLUMNS = 80
#: A long file name: the line must shorten it rather than cut off the blocker.
FILE = "0001_add_a_column_to_the_orders_table_for_the_new_checkout_flow.sql"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _run_in_terminal(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """Run ``argv`` with a pseudo-terminal of COLUMNS columns as stdin, stdout and stderr;
    its exit code and everything it wrote."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return code, b"".join(chunks).decode("utf-8", errors="replace")


def test_issue_22_item_7_live_line_in_an_80_column_terminal(db_dsn: str, tmp_path: Path) -> None:
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE orders (id bigint PRIMARY KEY, total numeric)")
    directory = write_migrations(
        tmp_path / "migrations", {FILE: "ALTER TABLE orders ADD COLUMN note text;\n"}
    )
    holder = psycopg.connect(db_dsn, application_name="nightly-report-job")
    try:
        holder.execute(
            "SELECT o.id, o.total, o.total * 2 AS doubled, o.total * 3 AS tripled "
            "FROM orders o WHERE o.total > 0 ORDER BY o.id"
        )  # its transaction stays open: idle in transaction, holding ACCESS SHARE
        pid = holder.info.backend_pid
        time.sleep(0.7)  # older than lock_precheck_age: the pre-check sees a long holder
        env = environment()
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
        env["TERM"] = "xterm"
        code, output = _run_in_terminal(
            command(
                *up_args(
                    directory,
                    db_dsn,
                    "--lock-timeout",
                    "500ms",
                    "--lock-wait-budget",
                    "3s",
                    json=False,
                )
            ),
            env,
            timeout=60,
        )
    finally:
        holder.close()
    assert code == 4, output
    # Every redraw of the live line: what follows a carriage return up to the next one.
    drawn = [_ANSI.sub("", piece) for piece in re.split(r"\r\n|\r|\n", output)]
    live = [line for line in drawn if line.startswith("[1/1] ")]
    assert live, output
    for line in live:
        assert len(line) < COLUMNS, line
        if " by pid" in line:
            assert f"pid {pid}" in line, line
    assert any(f"held by pid {pid}" in line for line in live), live
    # Shortened only as far as needed: the file keeps its start and its end.
    assert any("0001_add" in line and "flow.sql" in line for line in live), live
    assert any("waiting politely" in line or "polite " in line for line in live), live
    # Polite waits are not attempts: no attempt number ever passes max_attempts.
    for done, limit in re.findall(r"attempt (\d+)/(\d+)", output):
        assert int(done) <= int(limit), output
    # Exit 4's hint names the blocker and the ways out.
    assert f"end pid {pid}: SELECT pg_terminate_backend({pid})" in output
    assert "--cancel-blockers idle-in-transaction:1min" in output
    assert "--lock-wait-budget 9s" in output
