-- expect: unsafe drop-table-or-column
-- doc: https://www.postgresql.org/docs/current/sql-truncate.html (removes all rows; ACCESS EXCLUSIVE lock on the table); truncating one partition of a partitioned table deletes that slice of the data
-- verified: PG15: TRUNCATE succeeds; inside a transaction AccessExclusiveLock on request_log_2025 (no lock on the parent with ONLY on a leaf); request_log_2025 gets a new relfilenode and its rows are gone
-- given: CREATE TABLE request_log (id bigint NOT NULL, at timestamptz NOT NULL, path text, status int) PARTITION BY RANGE (at);
-- given: CREATE TABLE request_log_2025 PARTITION OF request_log FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE request_log_2026 PARTITION OF request_log FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- retention: drop 2025 request logs, keep the partition for late arrivals
TRUNCATE ONLY request_log_2025;
