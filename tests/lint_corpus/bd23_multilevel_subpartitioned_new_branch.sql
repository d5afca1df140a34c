-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (PARTITION OF ... PARTITION BY: a partition may itself be partitioned; no default partition at either level, nothing to scan)
-- verified: PG15: new sub-partitioned branch and leaves created; no existing partition scanned (seq_scan unchanged), no default partition at any level
-- given: CREATE TABLE telemetry (device_id bigint NOT NULL, region text NOT NULL, ts timestamptz NOT NULL, payload jsonb) PARTITION BY RANGE (ts);
-- given: CREATE TABLE telemetry_2026q4 PARTITION OF telemetry FOR VALUES FROM ('2026-10-01') TO ('2027-01-01') PARTITION BY LIST (region);
-- given: CREATE TABLE telemetry_2026q4_eu PARTITION OF telemetry_2026q4 FOR VALUES IN ('eu');
-- given: CREATE TABLE telemetry_2026q4_us PARTITION OF telemetry_2026q4 FOR VALUES IN ('us');
CREATE TABLE telemetry_2027q1 PARTITION OF telemetry
    FOR VALUES FROM ('2027-01-01') TO ('2027-04-01')
    PARTITION BY LIST (region);
CREATE TABLE telemetry_2027q1_eu PARTITION OF telemetry_2027q1 FOR VALUES IN ('eu');
CREATE TABLE telemetry_2027q1_us PARTITION OF telemetry_2027q1 FOR VALUES IN ('us');
CREATE TABLE telemetry_2027q1_ap PARTITION OF telemetry_2027q1 FOR VALUES IN ('ap', 'au');
CREATE INDEX telemetry_2027q1_eu_device_ts_idx ON telemetry_2027q1_eu (device_id, ts);
