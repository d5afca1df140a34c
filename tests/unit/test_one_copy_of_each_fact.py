"""Each fact is defined once and imported where it is used (issue 23): the event sink type and
the two runner policy types are the same objects wherever a module names them."""

from __future__ import annotations

import re
from pathlib import Path

import safemigrate
from safemigrate import source
from safemigrate.core import events, model
from safemigrate.run import database_run, executor, fleet
from safemigrate.settings import config

PACKAGE = Path(safemigrate.__file__).parent


def _definitions(name: str) -> list[str]:
    """The modules of the package that assign ``name`` at the top level."""
    pattern = re.compile(rf"^{name}\s*(:[^=]*)?=", re.MULTILINE)
    return sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    )


def test_the_event_sink_type_is_defined_once_in_events() -> None:
    assert _definitions("EventSink") == ["core/events.py"]
    for module in (executor, database_run, fleet):
        assert vars(module)["EventSink"] is events.EventSink


def test_the_runner_policy_types_are_defined_once_in_model() -> None:
    assert _definitions("ConcurrentIndexes") == ["core/model.py"]
    assert _definitions("SafeRewrites") == ["core/model.py"]
    for module in (config, source):
        assert vars(module)["ConcurrentIndexes"] is model.ConcurrentIndexes
        assert vars(module)["SafeRewrites"] is model.SafeRewrites
