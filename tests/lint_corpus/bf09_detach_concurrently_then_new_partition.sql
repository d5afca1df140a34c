-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (DETACH PARTITION ... CONCURRENTLY, PG 14+: SHARE UPDATE EXCLUSIVE on the parent, not in a transaction block; no DEFAULT partition here); CREATE TABLE ... PARTITION OF without a default partition scans nothing
-- verified: PG15: both statements succeed outside a transaction block; sessions_2025 afterwards has the added CHECK constraint and relispartition=false; relfilenodes unchanged
-- pg-version: 16
-- given: CREATE TABLE sessions (id uuid NOT NULL, started_at timestamptz NOT NULL, user_id bigint) PARTITION BY RANGE (started_at);
-- given: CREATE TABLE sessions_2025 PARTITION OF sessions FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE sessions_2026 PARTITION OF sessions FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- Roll the window: detach last year's partition (kept as a plain table for the archive job)
-- and pre-create next year's.
ALTER TABLE sessions DETACH PARTITION sessions_2025 CONCURRENTLY;
CREATE TABLE sessions_2027 PARTITION OF sessions FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
