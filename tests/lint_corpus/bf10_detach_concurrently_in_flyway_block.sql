-- expect: unsafe non-transactional-in-transaction
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (DETACH PARTITION ... CONCURRENTLY "cannot be run in a transaction block"); tablecmds.c PreventInTransactionBlock(isTopLevel, "ALTER TABLE ... DETACH CONCURRENTLY")
-- verified: PG15: ERROR: ALTER TABLE ... DETACH CONCURRENTLY cannot run inside a transaction block
-- pg-version: 16
-- given: CREATE TABLE sessions (id uuid NOT NULL, started_at timestamptz NOT NULL, user_id bigint) PARTITION BY RANGE (started_at);
-- given: CREATE TABLE sessions_2025 PARTITION OF sessions FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE sessions_2026 PARTITION OF sessions FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
BEGIN;
CREATE TABLE sessions_2027 PARTITION OF sessions FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
ALTER TABLE sessions DETACH PARTITION sessions_2025 CONCURRENTLY;
COMMIT;
