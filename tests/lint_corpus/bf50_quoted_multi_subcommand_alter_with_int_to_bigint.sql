-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (several subcommands run in one pass; int -> bigint is not binary coercible: table and indexes rewritten under ACCESS EXCLUSIVE)
-- verified: PG15: "OrderLine" relfilenode and its index relfilenodes change; the other subcommands alone (ADD COLUMN, varchar->text) leave them unchanged
-- given: CREATE TABLE "OrderLine" ("id" SERIAL PRIMARY KEY, "orderId" INTEGER NOT NULL, "sku" VARCHAR(40) NOT NULL, "quantity" INTEGER NOT NULL);
-- given: CREATE INDEX "OrderLine_orderId_idx" ON "OrderLine"("orderId");
-- Prisma migrate
-- AlterTable
ALTER TABLE "OrderLine" ADD COLUMN     "giftWrap" BOOLEAN,
ALTER COLUMN "sku" SET DATA TYPE TEXT,
ALTER COLUMN "quantity" SET DATA TYPE BIGINT;
