-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html (CONCURRENTLY: SHARE UPDATE EXCLUSIVE, reads and writes continue; IF NOT EXISTS)
-- verified: PG15: ran outside a block; index "Billing"."Invoice_dueAt_idx" created valid; table relfilenode unchanged
-- given: CREATE SCHEMA "Billing";
-- given: CREATE TABLE "Billing"."Invoice" ("id" text PRIMARY KEY, "dueAt" timestamp(3) NOT NULL, "tenantId" text NOT NULL);
-- CreateIndex
CREATE INDEX CONCURRENTLY IF NOT EXISTS "Invoice_dueAt_idx" ON "Billing"."Invoice"("dueAt");
