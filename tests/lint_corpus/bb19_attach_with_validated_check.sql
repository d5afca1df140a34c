-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ATTACH PARTITION: "it is possible to avoid this scan by adding a valid CHECK constraint"); ddl-partitioning.html 5.11.2.2
-- verified: PG15 with client_min_messages=debug1: DEBUG: partition constraint for table "events_2026" is implied by existing constraints (no scan); ShareUpdateExclusiveLock on events
-- given: CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
-- given: CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE events_2026 (LIKE events INCLUDING ALL);
-- given: ALTER TABLE events_2026 ADD CONSTRAINT events_2026_at_check CHECK (at >= DATE '2026-01-01' AND at < DATE '2027-01-01') NOT VALID;
-- given: ALTER TABLE events_2026 VALIDATE CONSTRAINT events_2026_at_check;
ALTER TABLE events ATTACH PARTITION events_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
ALTER TABLE events_2026 DROP CONSTRAINT events_2026_at_check;
