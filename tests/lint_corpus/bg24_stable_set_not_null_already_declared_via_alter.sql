-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL on a column that is already NOT NULL: ATExecSetNotNull returns without queuing a scan); the earlier migration added the column NOT NULL DEFAULT 0
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): wallets AccessExclusiveLock
-- given: CREATE TABLE wallets (id bigint PRIMARY KEY, currency char(3));
-- given: ALTER TABLE wallets ADD COLUMN balance_minor bigint NOT NULL DEFAULT 0;
-- Prisma-style redo of the column's attributes
ALTER TABLE "wallets" ALTER COLUMN "balance_minor" SET NOT NULL,
ALTER COLUMN "balance_minor" SET DEFAULT 0;
