-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (only a VALID CHECK lets ATTACH skip the scan; a NOT VALID one is ignored: src/backend/commands/tablecmds.c PartConstraintImpliedByRelConstraint: only validated CHECKs imply the bound)
-- verified: PG15 with client_min_messages=debug1: DEBUG: verifying table "events_2026" (the NOT VALID check is ignored, the table is scanned)
-- given: CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
-- given: CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE events_2026 (LIKE events INCLUDING ALL);
-- given: ALTER TABLE events_2026 ADD CONSTRAINT events_2026_at_check CHECK (at >= DATE '2026-01-01' AND at < DATE '2027-01-01') NOT VALID;
ALTER TABLE events ATTACH PARTITION events_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
