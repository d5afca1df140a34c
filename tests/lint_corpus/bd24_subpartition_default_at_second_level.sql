-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (PARTITION OF with an existing DEFAULT partition of that parent: the default partition is scanned); partbounds.c check_default_partition_contents
-- verified: PG15: seq_scan of the second-level default partition telemetry_2026q4_rest +1 while creating telemetry_2026q4_ap
-- given: CREATE TABLE telemetry (device_id bigint NOT NULL, region text NOT NULL, ts timestamptz NOT NULL, payload jsonb) PARTITION BY RANGE (ts);
-- given: CREATE TABLE telemetry_2026q4 PARTITION OF telemetry FOR VALUES FROM ('2026-10-01') TO ('2027-01-01') PARTITION BY LIST (region);
-- given: CREATE TABLE telemetry_2026q4_eu PARTITION OF telemetry_2026q4 FOR VALUES IN ('eu');
-- given: CREATE TABLE telemetry_2026q4_rest PARTITION OF telemetry_2026q4 DEFAULT;
-- split APAC out of the catch-all partition of the current quarter
CREATE TABLE telemetry_2026q4_ap PARTITION OF telemetry_2026q4 FOR VALUES IN ('ap', 'au');
