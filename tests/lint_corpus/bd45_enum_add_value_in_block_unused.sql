-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (ADD VALUE may run in a transaction block from PostgreSQL 12; only using the new value before commit fails)
-- verified: PG15: both ADD VALUE and the COMMENT succeed inside BEGIN/COMMIT; value not used before commit
-- given: CREATE TYPE "PaymentMethod" AS ENUM ('CARD', 'SEPA');
-- given: CREATE TABLE "Payment" ("id" TEXT NOT NULL PRIMARY KEY, "method" "PaymentMethod" NOT NULL);
-- Prisma migrate: AlterEnum
BEGIN;
ALTER TYPE "PaymentMethod" ADD VALUE 'PAYPAL';
ALTER TYPE "PaymentMethod" ADD VALUE 'IDEAL' BEFORE 'SEPA';
COMMENT ON TYPE "PaymentMethod" IS 'PAYPAL and IDEAL enabled in release 2026.12';
COMMIT;
