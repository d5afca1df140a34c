-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-createtable.html (PARTITION OF: a new, empty partition; no default partition to scan)
-- verified: PG15: succeeds; AccessExclusiveLock on parent events held only for the catalog change (no default partition, nothing scanned)
-- given: CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
-- given: CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE TABLE IF NOT EXISTS events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
