-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (PARTITION OF: "the default partition ... will be scanned to verify that it does not contain rows that should be in the new partition")
-- verified: PG15: inside BEGIN, AccessExclusiveLock on metrics_default while creating metrics_2027
-- given: CREATE TABLE metrics (ts timestamptz NOT NULL, name text NOT NULL, value double precision) PARTITION BY RANGE (ts);
-- given: CREATE TABLE metrics_2026 PARTITION OF metrics FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- given: CREATE TABLE metrics_default PARTITION OF metrics DEFAULT;
-- yearly partition maintenance
CREATE TABLE IF NOT EXISTS metrics_2027 PARTITION OF metrics FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
