-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET SCHEMA moves the table: queries using the old qualified name or search_path lookup fail); DETACH PARTITION ... CONCURRENTLY (PG 14+) is fine on its own
-- verified: PG15: DETACH CONCURRENTLY succeeds outside a block, then SET SCHEMA succeeds; afterwards public.api_calls_2024 does not exist
-- pg-version: 16
-- given: CREATE SCHEMA archive;
-- given: CREATE TABLE api_calls (id bigint NOT NULL, called_at timestamptz NOT NULL, endpoint text) PARTITION BY RANGE (called_at);
-- given: CREATE TABLE api_calls_2024 PARTITION OF api_calls FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
-- given: CREATE TABLE api_calls_2025 PARTITION OF api_calls FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
ALTER TABLE api_calls DETACH PARTITION api_calls_2024 CONCURRENTLY;
ALTER TABLE api_calls_2024 SET SCHEMA archive;
