-- expect: unsafe unique-without-index
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint PRIMARY KEY builds a unique index on every partition; USING INDEX is not supported on partitioned tables); indexcmds.c DefineIndex recursing to partitions
-- verified: PG15: inside a transaction AccessExclusiveLock on clicks and ShareLock on clicks_2025 and clicks_2026 (writes blocked for the builds); new index relfilenodes clicks_2025_pkey and clicks_2026_pkey built
-- given: CREATE TABLE clicks (id bigint NOT NULL, clicked_at timestamptz NOT NULL, ad_id bigint) PARTITION BY RANGE (clicked_at);
-- given: CREATE TABLE clicks_2025 PARTITION OF clicks FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE clicks_2026 PARTITION OF clicks FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- Prisma migrate: add @@id([id, clickedAt])
-- AlterTable
ALTER TABLE "clicks" ADD CONSTRAINT "clicks_pkey" PRIMARY KEY ("id", "clicked_at");
