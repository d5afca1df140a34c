-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD table_constraint_using_index: "If PRIMARY KEY is specified, and the index's columns are not already marked NOT NULL, then this command will attempt to do ALTER COLUMN SET NOT NULL against each such column. That requires a full table scan")
-- verified: seq scan of legacy_events under AccessExclusiveLock (the SET NOT NULL on event_id)
-- given: CREATE TABLE legacy_events (event_id bigint, payload jsonb);
-- given: CREATE UNIQUE INDEX CONCURRENTLY legacy_events_pkey_idx ON legacy_events (event_id);
ALTER TABLE legacy_events ADD CONSTRAINT legacy_events_pkey PRIMARY KEY USING INDEX legacy_events_pkey_idx;
