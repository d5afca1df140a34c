-- expect: unsafe non-transactional-in-transaction
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (DETACH PARTITION CONCURRENTLY "cannot be run in a transaction block")
-- verified: PG15: ERROR: ALTER TABLE ... DETACH CONCURRENTLY cannot run inside a transaction block
-- pg-version: 15
-- given: CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
-- given: CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
BEGIN;
ALTER TABLE events DETACH PARTITION events_2024 CONCURRENTLY;
COMMIT;
