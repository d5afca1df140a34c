-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (PARTITION OF without a default partition: a new empty table, nothing to scan; the parent index is built on the empty partition); no rule covers it
-- verified: PG15: inside BEGIN, AccessExclusiveLock on parent metrics (brief, no scan: no default partition), AccessExclusiveLock + ShareLock on the new empty metrics_2027 (its index built from the parent index on an empty table); no existing relfilenode changed
-- given: CREATE TABLE metrics (ts timestamptz NOT NULL, name text NOT NULL, value double precision) PARTITION BY RANGE (ts);
-- given: CREATE TABLE metrics_2026 PARTITION OF metrics FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- given: CREATE INDEX metrics_name_ts_idx ON metrics (name, ts);
CREATE TABLE metrics_2027 PARTITION OF metrics FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
