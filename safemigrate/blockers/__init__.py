"""Sessions that block a step: what the server shows about them, and what the run does about it.

- ``model``: the data (Blocker, WaitingFor, Sample, IndexBuildProgress), used by the monitor
  session's queries, by events and by reports alike;
- ``cancel``: the opt-in cancel policy (parsing ``cancel_blockers``, who is ``eligible``);
- ``report``: a blocker as events show it (query cut or redacted, ages rounded);
- ``watcher``: the run's use of its monitor session (pre-check, sampling, heartbeats, index
  progress, applying the cancel policy).

This package imports only the pure modules: ``safemigrate.db.activity`` and ``safemigrate.events``
import the model, and the watcher imports both, so importing the watcher here would be a cycle.
Import it as ``safemigrate.blockers.watcher``.
"""

from .cancel import (
    IDLE_IN_TRANSACTION,
    CancelKind,
    CancelPolicy,
    CancelRule,
    allow_list,
    eligible,
    parse_cancel_rule,
)
from .model import Blocker, IndexBuildProgress, Sample, WaitingFor
from .report import cut, redact_query, reported_blocker, reported_sample

__all__ = [
    "IDLE_IN_TRANSACTION",
    "Blocker",
    "CancelKind",
    "CancelPolicy",
    "CancelRule",
    "IndexBuildProgress",
    "Sample",
    "WaitingFor",
    "allow_list",
    "cut",
    "eligible",
    "parse_cancel_rule",
    "redact_query",
    "reported_blocker",
    "reported_sample",
]
