-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN without default or with a constant default, SET DEFAULT, DROP NOT NULL, SET STATISTICS and SET (fillfactor) are catalog-only: "Changing fillfactor ... will not rewrite the table"; several subcommands are applied in one pass, and none of them here needs a scan or rewrite)
-- verified: PG15: relfilenode and seq_scan of "Orders" unchanged
-- given: CREATE SCHEMA sales;
-- given: CREATE TABLE sales."Orders" ("OrderId" bigint PRIMARY KEY, "CustomerRef" text NOT NULL, "Status" varchar(20) NOT NULL, "Notes" text);
ALTER TABLE IF EXISTS sales."Orders"
    ADD COLUMN IF NOT EXISTS "Channel" text,
    ADD COLUMN IF NOT EXISTS "Priority" smallint NOT NULL DEFAULT 3,
    ALTER COLUMN "Status" SET DEFAULT 'new',
    ALTER COLUMN "CustomerRef" DROP NOT NULL,
    ALTER COLUMN "CustomerRef" SET STATISTICS 500,
    SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02);
