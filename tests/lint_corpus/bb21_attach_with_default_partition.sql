-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ATTACH PARTITION: "if there is a default partition ... it is scanned to verify that it contains no records which should be located in the partition being attached")
-- verified: PG15 debug1: "partition constraint for table events_2026 is implied" but then DEBUG: verifying table "events_default"; AccessExclusiveLock on events_default
-- given: CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
-- given: CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE events_default PARTITION OF events DEFAULT;
-- given: CREATE TABLE events_2026 (LIKE events INCLUDING ALL);
-- given: ALTER TABLE events_2026 ADD CONSTRAINT events_2026_at_check CHECK (at >= DATE '2026-01-01' AND at < DATE '2027-01-01') NOT VALID;
-- given: ALTER TABLE events_2026 VALIDATE CONSTRAINT events_2026_at_check;
ALTER TABLE events ATTACH PARTITION events_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
