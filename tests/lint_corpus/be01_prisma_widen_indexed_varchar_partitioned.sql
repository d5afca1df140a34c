-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE: "indexes ... may need to be rebuilt"); tablecmds.c ATPostAlterTypeCleanup/TryReuseIndex: on a partitioned table the partition indexes on the altered column are rebuilt even for a binary-coercible change
-- verified: PG15, 16 and 18: tables not rewritten, but AuditLog_2024_action_idx and AuditLog_2025_action_idx got new relfilenodes (each partition scanned to rebuild under ACCESS EXCLUSIVE); the same ALTER on a plain table keeps its index
-- given: CREATE TABLE "public"."AuditLog" ("id" BIGINT NOT NULL, "createdAt" TIMESTAMP(3) NOT NULL, "action" VARCHAR(50) NOT NULL, "actorEmail" VARCHAR(120), CONSTRAINT "AuditLog_pkey" PRIMARY KEY ("id", "createdAt")) PARTITION BY RANGE ("createdAt");
-- given: CREATE TABLE "public"."AuditLog_2024" PARTITION OF "public"."AuditLog" FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
-- given: CREATE TABLE "public"."AuditLog_2025" PARTITION OF "public"."AuditLog" FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE INDEX "AuditLog_action_idx" ON "public"."AuditLog"("action");
-- AlterTable
ALTER TABLE "public"."AuditLog" ALTER COLUMN "action" SET DATA TYPE VARCHAR(200),
ALTER COLUMN "actorEmail" SET DATA TYPE TEXT;
