"""The real migration tools (dbmate from npm, yoyo from PyPI) for the switch and adoption tests:
finding their programs (or skipping, or failing where CI requires them), running them, and the
URL form of a DSN they take."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest
from psycopg.conninfo import conninfo_to_dict


def missing(what: str) -> NoReturn:
    """Skip without the tool, or fail where CI requires it (``SAFEMIGRATE_TEST_REAL_TOOLS``)."""
    if os.environ.get("SAFEMIGRATE_TEST_REAL_TOOLS") == "required":
        pytest.fail(f"{what} is not installed, and SAFEMIGRATE_TEST_REAL_TOOLS=required")
    pytest.skip(f"{what} is not installed")


def _program(env: str, name: str, what: str) -> str:
    """The tool's program: ``$env``, this interpreter's environment, else the PATH; without
    it the test is skipped (see :func:`missing`), ``what`` saying how to install it."""
    explicit = os.environ.get(env)
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        missing(what)
    return found


def dbmate_program() -> str:
    """dbmate's program (``$SAFEMIGRATE_TEST_DBMATE``, else found), or the test skips."""
    return _program("SAFEMIGRATE_TEST_DBMATE", "dbmate", "dbmate (npm install dbmate)")


def yoyo_program() -> str:
    """yoyo's program (``$SAFEMIGRATE_TEST_YOYO``, else found), or the test skips."""
    return _program("SAFEMIGRATE_TEST_YOYO", "yoyo", "yoyo-migrations (the bench extra)")


def run_tool(argv: list[str]) -> None:
    """Run a tool's command to its end; a failure fails the test."""
    subprocess.run(argv, check=True, capture_output=True, timeout=120)


def tool_url(dsn: str, scheme: str) -> str:
    """The URL form of a conninfo DSN (dbmate and yoyo take URLs); a unix socket folder goes in
    the query, which both pass on to their driver."""
    parts: dict[str, Any] = conninfo_to_dict(dsn)
    user, host, port, dbname = (parts.get(k) for k in ("user", "host", "port", "dbname"))
    if host and str(host).startswith("/"):
        return f"{scheme}://{user or 'postgres'}@/{dbname}?host={host}&port={port}"
    return f"{scheme}://{user or 'postgres'}@{host}:{port}/{dbname}"
