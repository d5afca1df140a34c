"""The run layer: one run against one database, split by job.

- :mod:`.connection`: the database to reach, the sessions on it, the settings as its server;
- :mod:`.run_lock`: the journal's run lock, polled and held for a block;
- :mod:`.refusals`: what a connection must not be (a transaction-pooling proxy, a standby);
- :mod:`.locked_session`: the session, run lock and pooling refusal of the commands that
  edit the journal, as one context manager;
- :mod:`.journal_reading`: what the journal says is left to do, and what was applied;
- :mod:`.reconnection`: how a run cut off mid-run reconnects;
- :mod:`.database_run`: the :class:`~.database_run.Run` itself.

Import each name from the module that holds it: this package re-exports nothing.
"""
