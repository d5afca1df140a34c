-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-alterindex.html (RENAME: catalog-only); https://www.postgresql.org/docs/current/sql-altertable.html (RENAME CONSTRAINT); the rename rule covers tables and columns, not indexes or constraints
-- verified: PG15: both renames succeed; relfilenodes unchanged; inside a transaction ALTER INDEX ... RENAME holds ShareUpdateExclusiveLock on the index only
-- given: CREATE TABLE "Invoice" ("id" SERIAL NOT NULL, "customerId" INTEGER NOT NULL, "number" TEXT NOT NULL, CONSTRAINT "Invoice_pkey" PRIMARY KEY ("id"));
-- given: CREATE UNIQUE INDEX "Invoice_number_key" ON "Invoice"("number");
-- given: ALTER TABLE "Invoice" ADD CONSTRAINT "Invoice_customerId_check" CHECK ("customerId" > 0);
-- Prisma migrate: @@unique(name: "invoice_number_unique") / map: renames
-- RenameIndex
ALTER INDEX "Invoice_number_key" RENAME TO "invoice_number_unique";

-- RenameConstraint
ALTER TABLE "Invoice" RENAME CONSTRAINT "Invoice_customerId_check" TO "invoice_customer_id_positive";
