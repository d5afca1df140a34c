"""The benchmarks in bench/ run end to end in their --quick form and write their outputs.

No timing is asserted: the numbers of a --quick run mean nothing. Skipped when the bench extra
(yoyo-migrations, matplotlib) is not installed, when psql or PostgreSQL server programs are
missing, and (overhead only) when the shared migration corpus is absent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from safemigrate.infra.throwaway import ThrowawayServerError, find_server_bindir

#: Each test runs a whole benchmark (pytest -m "not slow" leaves them out).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
CORPUS = ROOT.parent / "shared" / "corpora" / "langfuse" / "migrations"


@pytest.fixture(scope="module")
def bindir() -> str:
    """The server programs the test suite uses ($SAFEMIGRATE_TEST_PG), or skip."""
    pytest.importorskip("yoyo", reason="the bench extra (yoyo-migrations) is not installed")
    pytest.importorskip("matplotlib", reason="the bench extra (matplotlib) is not installed")
    if shutil.which("psql") is None:
        pytest.skip("psql is not installed")
    try:
        return str(find_server_bindir(os.environ.get("SAFEMIGRATE_TEST_PG")))
    except ThrowawayServerError as exc:
        pytest.skip(f"no PostgreSQL server programs: {exc}")


def _run(script: str, *args: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), "--quick", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, f"{script} failed:\n{proc.stdout}\n{proc.stderr[-3000:]}"


def test_stall_quick(bindir: str, tmp_path: Path) -> None:
    out, png = tmp_path / "stall.json", tmp_path / "stall.png"
    _run("stall.py", "--pg-bindir", bindir, "--out", str(out), "--plot", str(png))
    data = json.loads(out.read_text())
    runners = {t["runner"] for t in data["trials"]}
    assert {"none", "psql", "yoyo", "safemigrate", "safemigrate-no-precheck"} <= runners
    for trial in data["trials"]:
        assert trial["metrics"]["requests"] > 0, trial["runner"]
        if trial["runner"] != "none":
            assert trial["metrics"]["migration_exit"] == 0, trial["stderr_tail"]
            assert trial["metrics"]["migration_applied"], trial["runner"]
    assert (tmp_path / "stall_requests.json.gz").stat().st_size > 0
    assert png.stat().st_size > 10_000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_overhead_quick(bindir: str, tmp_path: Path) -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared corpus is absent: {CORPUS}")
    out = tmp_path / "overhead.json"
    _run("overhead.py", "--pg-bindir", bindir, "--out", str(out))
    data = json.loads(out.read_text())
    assert set(data["times_s"]) == {"psql", "psql-session", "yoyo", "safemigrate"}
    assert data["schemas_identical"], data["schema_hashes"]
    assert "safemigrate/psql" in data["ratios"]


def test_cli_scale_quick(bindir: str, tmp_path: Path) -> None:
    out = tmp_path / "cli_scale.json"
    _run("cli_scale.py", "--pg-bindir", bindir, "--out", str(out))
    data = json.loads(out.read_text())
    assert set(data["sizes"]) == {"10", "50"}
    for row in data["sizes"].values():
        for command in ("--help", "--version", "status", "check", "up"):
            assert row[command]["n"] >= 1
    assert any(name.startswith("safemigrate") for name in data["importtime"]["self_s_median"])


def test_cli_scale_corpus_quick(bindir: str, tmp_path: Path) -> None:
    # A two-file corpus: the --corpus runners (psql, up alone, up with a session connected).
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "0001_t.sql").write_text("CREATE TABLE t (id int PRIMARY KEY);\n")
    (corpus / "0002_n.sql").write_text("ALTER TABLE t ADD COLUMN n int;\n")
    out = tmp_path / "corpus.json"
    _run("cli_scale.py", "--pg-bindir", bindir, "--corpus", str(corpus), "--out", str(out))
    row = json.loads(out.read_text())["corpus"]
    assert row["files"] == 2
    assert {"psql", "up", "up_watched", "up_over_up_watched"} <= set(row)


def test_backfill_quick(bindir: str, tmp_path: Path) -> None:
    out = tmp_path / "backfill.json"
    _run("backfill.py", "--pg-bindir", bindir, "--out", str(out))
    data = json.loads(out.read_text())
    assert [r["runner"] for r in data["results"]] == ["psql", "safemigrate"]
    batched = data["results"][1]
    assert batched["batches"] == 20 and batched["app_requests_during"] > 0


def test_rewrites_quick(bindir: str, tmp_path: Path) -> None:
    out = tmp_path / "rewrites.json"
    _run("rewrites.py", "--pg-bindir", bindir, "--out", str(out))
    data = json.loads(out.read_text())
    assert {(r["statement"], r["runner"]) for r in data["results"]} == {
        (statement, runner)
        for statement in ("foreign_key", "check", "not_null", "unique", "primary_key")
        for runner in ("psql", "safemigrate")
    }
    for row in data["results"]:
        assert row["exit"] == 0, row
        assert row["requests"] > 0, row
        assert row["schema_identical"], row


def test_speed_baseline_quick(bindir: str, tmp_path: Path) -> None:
    git = ["git", "-C", str(ROOT), "rev-parse", "--verify", "HEAD"]
    if subprocess.run(git, capture_output=True, check=False).returncode != 0:
        pytest.skip("not a git checkout: no baseline revision to extract")
    out = tmp_path / "speed_baseline.json"
    _run("speed_baseline.py", "--pg-bindir", bindir, "--baseline", "HEAD", "--out", str(out))
    data = json.loads(out.read_text())
    assert data["same_output"] and all(data["same_output"].values()), data["same_output"]
    assert {"status_over_baseline", "check_over_baseline"} <= set(data["ratios"])


def test_up_per_step_smoke(bindir: str, tmp_path: Path) -> None:
    git = ["git", "-C", str(ROOT), "rev-parse", "--verify", "HEAD"]
    if subprocess.run(git, capture_output=True, check=False).returncode != 0:
        pytest.skip("not a git checkout: no baseline revision to extract")
    out = tmp_path / "up_per_step.json"
    _run("up_per_step.py", "--pg-bindir", bindir, "--baseline", "HEAD", "--out", str(out))
    data = json.loads(out.read_text())
    assert {"up_over_psql_fresh", "up_over_psql_in_use", "up_over_baseline_in_use"} <= set(
        data["ratios"]
    )
