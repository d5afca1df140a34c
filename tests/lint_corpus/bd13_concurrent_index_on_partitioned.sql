-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html ("Concurrent builds for indexes on partitioned tables are currently not supported"); indexcmds.c DefineIndex
-- verified: PG15: ERROR: cannot create index on partitioned table "events" concurrently
-- given: CREATE TABLE events (id bigint NOT NULL, tenant_id int NOT NULL, kind text, created_at timestamptz NOT NULL) PARTITION BY LIST (tenant_id);
-- given: CREATE TABLE events_t1 PARTITION OF events FOR VALUES IN (1);
-- given: CREATE TABLE events_other PARTITION OF events DEFAULT;
CREATE INDEX CONCURRENTLY events_kind_idx ON events (kind);
