-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-createindex.html (ON ONLY: the index is created on the parent only, marked invalid, no partition is scanned)
-- verified: PG15: only a brief ShareLock on the parent measurements (no partition locked, nothing built); the index is created invalid (relfilenode 0)
-- given: CREATE TABLE measurements (id bigint NOT NULL, device_id int NOT NULL, taken_at timestamptz NOT NULL, value float8) PARTITION BY RANGE (taken_at);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE INDEX IF NOT EXISTS measurements_taken_at_idx ON ONLY public.measurements (taken_at);
