-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint NOT VALID; a CHECK added to a partitioned table recurses to every partition, each NOT VALID, with no scan; VALIDATE CONSTRAINT recurses too, under SHARE UPDATE EXCLUSIVE)
-- verified: PG15: ADD ... NOT VALID accepted on the partitioned table, seq_scan of both partitions unchanged; VALIDATE scanned each partition once; locks during VALIDATE: ShareUpdateExclusiveLock on the parent and partitions
-- given: CREATE TABLE measurements (sensor_id bigint NOT NULL, taken_at timestamptz NOT NULL, value double precision) PARTITION BY RANGE (taken_at);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
ALTER TABLE measurements ADD CONSTRAINT measurements_value_finite CHECK (value IS NULL OR value <> 'NaN'::double precision) NOT VALID;
ALTER TABLE measurements VALIDATE CONSTRAINT measurements_value_finite;
