-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE recurses to every partition; int4 -> int8 is not binary coercible: pg_cast castmethod 'f')
-- verified: PG15+16: every partition and every partition index got a new relfilenode
-- given: CREATE TABLE measurements (sensor_id int NOT NULL, reading_at timestamptz NOT NULL, value int) PARTITION BY RANGE (reading_at);
-- given: CREATE TABLE measurements_2025_01 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2025-02-01');
-- given: CREATE TABLE measurements_2025_02 PARTITION OF measurements FOR VALUES FROM ('2025-02-01') TO ('2025-03-01');
-- given: CREATE INDEX measurements_sensor_idx ON measurements (sensor_id, reading_at);
-- sensor ids are about to exceed 2^31
ALTER TABLE measurements ALTER COLUMN sensor_id TYPE bigint;
