-- expect: safe
-- doc: https://www.postgresql.org/docs/release/12.0/ ("Allow ALTER TABLE ... SET DATA TYPE changing between timestamp and timestamptz to avoid a table rewrite when the session time zone is UTC"); utils/adt/timestamp.c timestamp_support / tablecmds.c ATColumnChangeRequiresRewrite
-- verified: PG15 (the exception is 12+): relfilenodes of readings_2025 and readings_2026 unchanged with TimeZone=UTC set in the block; run with TimeZone=Europe/Berlin instead, both relfilenodes change (rewrite)
-- pg-version: 16
-- given: CREATE TABLE readings (sensor_id int NOT NULL, taken_on date NOT NULL, measured_at timestamp NOT NULL, value real) PARTITION BY RANGE (taken_on);
-- given: CREATE TABLE readings_2025 PARTITION OF readings FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE readings_2026 PARTITION OF readings FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
BEGIN;
SET LOCAL TimeZone = 'UTC';
ALTER TABLE readings ALTER COLUMN measured_at TYPE timestamptz;
COMMIT;
