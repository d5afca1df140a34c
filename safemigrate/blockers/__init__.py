"""Sessions that block a step: what the server shows about them, and what the run does about it.

The data (Blocker, WaitingFor, Sample, IndexBuildProgress) lives in ``safemigrate.core.model``
with the rest of the project's data: the monitor session's queries (db layer) fill it in and
events carry it, so it sits below both. This package is what the run does about blockers:

- ``cancel``: the opt-in cancel policy (who is ``eligible``; the setting itself is parsed
  with the configuration);
- ``report``: a blocker as events show it (query cut or redacted, ages rounded);
- ``watcher``: the run's use of its monitor session (pre-check, sampling, heartbeats, index
  progress, applying the cancel policy).

The package face re-exports only the pure parts; the watcher talks to the db layer, so import
it as ``safemigrate.run.watcher`` where it is needed (keeps ``check`` free of psycopg).
"""

from ..core.model import Blocker, IndexBuildProgress, Sample, WaitingFor
from .cancel import IDLE_IN_TRANSACTION, CancelPolicy, eligible
from .report import cut, redact_query, reported_blocker, reported_sample

__all__ = [
    "IDLE_IN_TRANSACTION",
    "Blocker",
    "CancelPolicy",
    "IndexBuildProgress",
    "Sample",
    "WaitingFor",
    "cut",
    "eligible",
    "redact_query",
    "reported_blocker",
    "reported_sample",
]
