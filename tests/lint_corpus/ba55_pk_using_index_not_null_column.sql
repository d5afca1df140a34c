-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD table_constraint_using_index: the SET NOT NULL scan happens only for columns "not already marked NOT NULL"); event_id is NOT NULL from the earlier migration
-- verified: no scan, index attached and renamed only; AccessExclusiveLock brief
-- given: CREATE TABLE legacy_events (event_id bigint NOT NULL, payload jsonb);
-- given: CREATE UNIQUE INDEX CONCURRENTLY legacy_events_pkey_idx ON legacy_events (event_id);
ALTER TABLE legacy_events ADD CONSTRAINT legacy_events_pkey PRIMARY KEY USING INDEX legacy_events_pkey_idx;
