-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (Notes: "If ALTER TYPE ... ADD VALUE ... is executed inside a transaction block, the new value cannot be used until after the transaction has been committed")
-- verified: PG15: ERROR "unsafe use of new value "SUSPENDED" of enum type "AccountState"" at the UPDATE; the block rolled back
-- given: CREATE TYPE "AccountState" AS ENUM ('ACTIVE', 'DISABLED');
-- given: CREATE TABLE "Account" ("id" TEXT NOT NULL, "state" "AccountState" NOT NULL DEFAULT 'ACTIVE', "lockedAt" TIMESTAMP(3), CONSTRAINT "Account_pkey" PRIMARY KEY ("id"));
BEGIN;
-- AlterEnum
ALTER TYPE "AccountState" ADD VALUE 'SUSPENDED';

-- Data: accounts locked by the old mechanism become suspended
UPDATE "Account" SET "state" = 'SUSPENDED' WHERE "lockedAt" IS NOT NULL;
COMMIT;
