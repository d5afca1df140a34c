"""Issue 22: the docs' CI and pre-commit snippets run as written.

The commands are read from the documents themselves (docs/ci.md's GitHub Actions jobs, the
README's CI step, docs/fleet.md's fleet job, ``.pre-commit-hooks.yaml`` and the pre-commit
config docs/ci.md shows) and
run unchanged in a project laid out as they assume: ``uses:`` steps and the ``pip install`` of
safemigrate itself are the runner's set-up (this environment has it) and are skipped; secrets
are the test's databases. The hook runs as pre-commit runs it: its ``entry`` followed by the
staged files that match both its ``files`` and the project's.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from tests.integration.test_check_plan_rehearse import rehearse_tmp
from tests.support.runner import EXAMPLE, REPO, SCRIPT, environment, write_migrations

__all__ = ["rehearse_tmp"]  # the fixture, used by name

CI_DOC = REPO / "docs" / "ci.md"
FLEET_DOC = REPO / "docs" / "fleet.md"
HOOKS = REPO / ".pre-commit-hooks.yaml"


@dataclass
class Step:
    """One ``run:`` step of a workflow: its script and its ``env:``."""

    script: str
    env: dict[str, str] = field(default_factory=dict)


def blocks(markdown: str, language: str) -> list[str]:
    """The fenced code blocks of ``language`` in ``markdown``, in order."""
    return re.findall(rf"```{language}\n(.*?)```", markdown, flags=re.DOTALL)


def run_steps(workflow: str) -> list[Step]:
    """The ``run:`` steps of a GitHub Actions snippet (enough YAML for the docs' snippets:
    ``run: CMD``, ``run: |`` blocks, ``env:`` maps)."""
    steps: list[Step] = []
    env: dict[str, str] = {}
    lines = workflow.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = re.sub(r"(^|\s)#.*$", "", line).strip()  # a YAML comment
        if stripped.startswith("- "):
            env = {}
            stripped = stripped[2:]
        key, _, value = stripped.partition(":")
        indent = len(line) - len(line.lstrip())
        if key == "env" and not value.strip():
            i += 1
            while i < len(lines) and len(lines[i]) - len(lines[i].lstrip()) > indent:
                name, _, val = re.sub(r"\s#.*$", "", lines[i]).strip().partition(":")
                env[name] = val.strip()
                i += 1
            if steps and not steps[-1].env:
                steps[-1].env = env  # env after run in the same step
            continue
        if key == "run":
            if value.strip() == "|":
                body = []
                i += 1
                while i < len(lines) and (
                    not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent
                ):
                    body.append(lines[i].strip())
                    i += 1
                steps.append(Step("\n".join(b for b in body if b), env))
                continue
            steps.append(Step(value.strip(), env))
        i += 1
    return steps


def _bin(tmp: Path) -> Path:
    """A folder with ``safemigrate`` on it: the installed script, or one that runs this
    checkout's module."""
    folder = tmp / "bin"
    folder.mkdir(exist_ok=True)
    target = folder / "safemigrate"
    if target.exists():
        return folder
    if SCRIPT.exists():
        target.symlink_to(SCRIPT)
    else:
        target.write_text(f'#!/bin/sh\nexec {sys.executable} -m safemigrate "$@"\n')
        target.chmod(0o755)
    return folder


def run_as_written(
    step: Step, cwd: Path, secrets: dict[str, str], extra_env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run a step's script with bash in ``cwd``, its env with ``${{ secrets.X }}`` filled."""
    env = environment(extra_env)
    env["PATH"] = f"{_bin(cwd.parent)}{os.pathsep}{env.get('PATH', '')}"
    for name, value in step.env.items():
        env[name] = re.sub(r"\$\{\{\s*secrets\.(\w+)\s*\}\}", lambda m: secrets[m.group(1)], value)
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", step.script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _setup(step: Step) -> bool:
    """True for the runner's own set-up: installing safemigrate itself."""
    return step.script.startswith("pip install") and "safemigrate" in step.script


def test_the_ci_check_job_runs_as_written(tmp_path: Path, rehearse_tmp: Path) -> None:
    job = blocks(CI_DOC.read_text(), "yaml")[0]
    project = tmp_path / "repo"
    shutil.copytree(EXAMPLE, project / "migrations")
    steps = [s for s in run_steps(job) if not _setup(s)]
    assert [s.script.split()[:2] for s in steps] == [
        ["safemigrate", "check"],
        ["safemigrate", "plan"],
        ["safemigrate", "rehearse"],
    ]
    for step in steps:
        done = run_as_written(
            step, project, {}, {"GITHUB_WORKSPACE": str(project), "TMPDIR": str(rehearse_tmp)}
        )
        assert done.returncode == 0, (step.script, done.stdout, done.stderr)
        if "--format github" in step.script:
            annotations = [line for line in done.stdout.splitlines() if line.startswith("::")]
            # Relative to the repository, as GitHub needs them.
            assert all(" file=migrations/" in a for a in annotations), annotations


def test_the_ci_deploy_job_runs_as_written(tmp_path: Path, db_dsn: str) -> None:
    text = CI_DOC.read_text()
    [config] = blocks(text, "toml")
    job = blocks(text, "yaml")[1]
    project = tmp_path / "repo"
    shutil.copytree(EXAMPLE, project / "migrations")
    (project / "safemigrate.toml").write_text(config)
    steps = [s for s in run_steps(job) if not _setup(s)]
    assert [shlex.split(s.script)[:2] for s in steps] == [["safemigrate", "up"]]
    done = run_as_written(steps[0], project, {"PRODUCTION_DSN": db_dsn}, {})
    assert done.returncode == 0, (done.stdout, done.stderr)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["event"] == "connected" and events[-1]["event"] == "run_finished"


def test_the_readme_ci_step_runs_as_written(tmp_path: Path, db_dsn: str) -> None:
    readme = (REPO / "README.md").read_text()
    [job] = blocks(readme, "yaml")
    project = tmp_path / "repo"
    shutil.copytree(EXAMPLE, project / "migrations")
    [step] = run_steps(job)
    assert [line.split()[:3] for line in step.script.splitlines()] == [
        ["safemigrate", "check", "--format"],
        ["safemigrate", "up", "--dry-run"],
    ]
    done = run_as_written(
        step, project, {"PRODUCTION_DSN": db_dsn}, {"GITHUB_WORKSPACE": str(project)}
    )
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "target: " in done.stdout


def test_the_fleet_job_runs_as_written(tmp_path: Path, db_dsn: str, pg_server: object) -> None:
    page = FLEET_DOC.read_text()
    job = next(b for b in blocks(page, "yaml") if "Migrate every shard" in b)
    project = tmp_path / "repo"
    write_migrations(
        project / "migrations", {"0001_orders.sql": "CREATE TABLE orders (id bigint);\n"}
    )
    with psycopg.connect(db_dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA acme")
    # The page's targets.toml, pointed at the test's database (its shop-us DSN names hosts
    # that are not here): one database target and one tenant schema.
    (project / "targets.toml").write_text(
        '[[target]]\nname = "shop-eu"\ndsn_env = "SHOP_EU_DSN"\n\n'
        '[[target]]\nname = "tenant-acme"\ndsn_env = "TENANTS_DSN"\nschema = "acme"\n'
    )
    steps = run_steps(job)
    assert len(steps) == 2
    secrets = {"SHOP_EU_DSN": db_dsn, "TENANTS_DSN": db_dsn}
    migrate = run_as_written(steps[0], project, secrets, {})
    assert migrate.returncode == 0, (migrate.stdout, migrate.stderr)
    finished = json.loads((project / "fleet.jsonl").read_text().splitlines()[-1])
    assert finished["event"] == "fleet_finished"
    status = run_as_written(steps[1], project, secrets, {})
    assert status.returncode == 0, (status.stdout, status.stderr)


def _hook() -> tuple[list[str], str]:
    """The shipped hook's entry (argv) and files pattern, from .pre-commit-hooks.yaml."""
    fields = {}
    for line in HOOKS.read_text().splitlines():
        key, _, value = line.strip().removeprefix("- ").partition(":")
        if key in ("id", "entry", "files") and value.strip():
            fields[key] = value.strip()
    assert fields["id"] == "safemigrate-check"
    return shlex.split(fields["entry"]), fields["files"]


def _project_files_pattern() -> str:
    """The ``files:`` of the pre-commit config docs/ci.md tells projects to write."""
    config = next(b for b in blocks(CI_DOC.read_text(), "yaml") if "safemigrate-check" in b)
    return next(line.split(":", 1)[1].strip() for line in config.splitlines() if "files:" in line)


YOYO = {
    "0001.create-tasks.sql": "CREATE TABLE tasks (id bigint PRIMARY KEY, color varchar(10));\n",
    "0001.create-tasks.rollback.sql": "DROP TABLE tasks;\n",
    "0002.tasks-color.sql": (
        "-- depends: 0001.create-tasks\nALTER TABLE tasks ALTER COLUMN color TYPE varchar(20);\n"
    ),
}
DBMATE = {
    "20260101000001_tasks.sql": (
        "-- migrate:up\nCREATE TABLE tasks (id bigint);\n\n-- migrate:down\nDROP TABLE tasks;\n"
    ),
    "20260101000002_tasks_id.sql": (
        "-- migrate:up transaction:false\nCREATE INDEX CONCURRENTLY tasks_id ON tasks (id);\n\n"
        "-- migrate:down\nDROP INDEX tasks_id;\n"
    ),
}


@pytest.mark.parametrize(("layout", "files"), [("yoyo", YOYO), ("dbmate", DBMATE)])
def test_the_pre_commit_hook_runs_as_written_on_another_tools_project(
    tmp_path: Path, layout: str, files: dict[str, str]
) -> None:
    entry, hook_files = _hook()
    project_files = _project_files_pattern()
    project = tmp_path / "repo"
    write_migrations(project / "migrations", files)
    (project / "safemigrate.toml").write_text(f'layout = "{layout}"\n')
    (project / "README.sql").write_text("not a migration\n")  # outside the project's pattern
    staged = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())
    passed = [f for f in staged if re.search(hook_files, f) and re.search(project_files, f)]
    assert "README.sql" not in passed and passed
    env = environment()
    env["PATH"] = f"{_bin(tmp_path)}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        [*entry, *passed], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "invalid-migration-file" not in done.stdout
    assert "require-concurrent-index-drop" not in done.stdout  # dbmate's down part
