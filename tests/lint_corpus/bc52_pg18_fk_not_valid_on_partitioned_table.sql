-- expect: safe
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ADD table_constraint ... NOT VALID: from PG 18 a NOT VALID foreign key may be added to a partitioned table; VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE); PG 18 release notes (allow NOT VALID foreign keys on partitioned tables)
-- verified: PG18: the ADD ... NOT VALID did not scan any partition (seq_scan unchanged); VALIDATE scanned both partitions; relfilenodes unchanged. PG15 refuses the first statement: "cannot add NOT VALID foreign key on partitioned table "measurements" referencing relation "sensors""
-- pg-version: 18
-- given: CREATE TABLE sensors (id bigint PRIMARY KEY, name text NOT NULL);
-- given: CREATE TABLE measurements (sensor_id bigint NOT NULL, taken_at timestamptz NOT NULL, value double precision) PARTITION BY RANGE (taken_at);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
ALTER TABLE measurements ADD CONSTRAINT measurements_sensor_id_fkey FOREIGN KEY (sensor_id) REFERENCES sensors (id) NOT VALID;
ALTER TABLE measurements VALIDATE CONSTRAINT measurements_sensor_id_fkey;
