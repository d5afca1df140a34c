-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL scans the table under ACCESS EXCLUSIVE unless a valid CHECK proves it)
-- verified: PG15+16: seq_scan on "Order" +1 after SET NOT NULL; AccessExclusiveLock held on "Order"
-- given: CREATE SCHEMA "Sales";
-- given: CREATE TABLE "Sales"."Order" ("OrderId" bigint PRIMARY KEY, "CustomerRef" text, "Total" numeric(12,2));
-- EF Core migration: make CustomerRef required
ALTER TABLE "Sales"."Order" ALTER COLUMN "CustomerRef" SET NOT NULL;
ALTER TABLE "Sales"."Order" ALTER COLUMN "CustomerRef" SET DEFAULT '';
