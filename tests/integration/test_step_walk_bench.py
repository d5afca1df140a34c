"""bench/step_walk.py runs its three walks end to end and reports each one's COMMIT chain."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from safemigrate.infra.throwaway import ThrowawayServerError, find_server_bindir

ROOT = Path(__file__).resolve().parents[2]


def test_step_walk_records_the_walk_to_the_commit(tmp_path: Path) -> None:
    try:
        bindir = str(find_server_bindir(os.environ.get("SAFEMIGRATE_TEST_PG")))
    except ThrowawayServerError as exc:
        pytest.skip(f"no PostgreSQL server programs: {exc}")
    out = tmp_path / "walk.json"
    script = str(ROOT / "bench" / "step_walk.py")
    proc = subprocess.run(
        [sys.executable, script, "--pg-bindir", bindir, "--out", str(out), "--label", "test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    walks = json.loads(out.read_text())["test"]["walks"]
    assert set(walks) == {"plain", "recipe", "index"}
    for walk in walks.values():
        assert walk["chain_to_commit"][0] == "api/apply.py:up"
        assert walk["hops_to_commit"] == len(walk["chain_to_commit"])
        assert 0 < walk["step_functions"] < walk["functions"]
        assert walk["parses"] >= 1
