-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/15/sql-createtable.html (PARTITION OF: "if a default partition exists ... it is scanned to verify that it contains no rows which should belong to the new partition")
-- verified: PG15: AccessExclusiveLock on events and events_default; with 2M rows in events_default the CREATE took ~85 ms vs <1 ms empty, and a 2026 row in the default made it fail (updated partition constraint for default partition would be violated): the default is scanned
-- given: CREATE TABLE events (id bigint NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY RANGE (at);
-- given: CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE events_default PARTITION OF events DEFAULT;
CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
