-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION scans the table to check the partition constraint unless a valid CHECK constraint implies it)
-- verified: PG15+16: seq_scan +1 on "Archive"."Events_2024" (the partition-constraint check), no rewrite
-- given: CREATE SCHEMA "Archive";
-- given: CREATE TABLE "Archive"."Events" ("Id" bigint NOT NULL, "OccurredAt" timestamptz NOT NULL, "Kind" text) PARTITION BY RANGE ("OccurredAt");
-- given: CREATE TABLE "Archive"."Events_2025" PARTITION OF "Archive"."Events" FOR VALUES FROM ('2025-01-01 00:00+00') TO ('2026-01-01 00:00+00');
-- given: CREATE TABLE "Archive"."Events_2024" ("Id" bigint NOT NULL, "OccurredAt" timestamptz NOT NULL, "Kind" text);
ALTER TABLE "Archive"."Events" ATTACH PARTITION "Archive"."Events_2024" FOR VALUES FROM ('2024-01-01 00:00+00') TO ('2025-01-01 00:00+00');
