-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html ("Concurrent builds for indexes on partitioned tables are currently not supported")
-- verified: PG15: ERROR: cannot create index on partitioned table "events" concurrently
-- given: CREATE TABLE events (id bigint NOT NULL, tenant_id int NOT NULL, occurred_at timestamptz NOT NULL, body jsonb) PARTITION BY LIST (tenant_id);
-- given: CREATE TABLE events_t1 PARTITION OF events FOR VALUES IN (1);
-- given: CREATE TABLE events_rest PARTITION OF events DEFAULT;
CREATE INDEX CONCURRENTLY IF NOT EXISTS events_occurred_at_idx ON events (occurred_at);
