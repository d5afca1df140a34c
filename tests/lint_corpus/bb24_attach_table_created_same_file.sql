-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ATTACH PARTITION scans the attached table: here it was created empty in this file; no default partition)
-- verified: PG15: succeeds; DEBUG verifying table "events_2026" scans only the new empty table; ShareUpdateExclusiveLock on events
-- given: CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
-- given: CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE TABLE events_2026 (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE events ATTACH PARTITION events_2026 FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
