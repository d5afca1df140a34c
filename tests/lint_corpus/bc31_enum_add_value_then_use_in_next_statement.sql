-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (ADD VALUE [ IF NOT EXISTS ]; the restriction applies only to use inside the same transaction); each statement outside a block is its own transaction; the UPDATE is bounded by WHERE
-- verified: PG15: both statements succeeded in autocommit mode; relfilenode of Account unchanged
-- given: CREATE TYPE "AccountState" AS ENUM ('ACTIVE', 'DISABLED');
-- given: CREATE TABLE "Account" ("id" TEXT NOT NULL, "state" "AccountState" NOT NULL DEFAULT 'ACTIVE', "lockedAt" TIMESTAMP(3), CONSTRAINT "Account_pkey" PRIMARY KEY ("id"));
ALTER TYPE "AccountState" ADD VALUE IF NOT EXISTS 'SUSPENDED' BEFORE 'DISABLED';
UPDATE "Account" SET "state" = 'SUSPENDED' WHERE "lockedAt" IS NOT NULL AND "state" = 'ACTIVE';
