-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-update.html (UPDATE ... FROM: "the target row shouldn't join to more than one row from the other table"; the WHERE restricts rows to matching joins)
-- verified: PG15: ADD COLUMN catalog-only (relfilenode unchanged), UPDATE ... FROM restricted by WHERE join + IS NULL
-- given: CREATE TABLE "Invoice" ("id" text PRIMARY KEY, "accountId" text NOT NULL, "currency" text);
-- given: CREATE TABLE "Account" ("id" text PRIMARY KEY, "defaultCurrency" text NOT NULL);
-- Prisma migrate: backfill currency from the account
-- AlterTable
ALTER TABLE "Invoice" ADD COLUMN "currencyCode" TEXT;

-- Backfill
UPDATE "Invoice" AS i SET "currencyCode" = a."defaultCurrency"
FROM "Account" AS a
WHERE a."id" = i."accountId" AND i."currencyCode" IS NULL;
