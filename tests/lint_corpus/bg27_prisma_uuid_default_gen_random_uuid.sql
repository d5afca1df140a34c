-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: "Adding a column with a volatile DEFAULT ... will require the entire table and its indexes to be rewritten"); gen_random_uuid() is VOLATILE
-- verified: PG15 and PG16 servers (same result): relfilenode changed for Order, Order_pkey; new relations Order_publicId_key; seq_scan rose on public.Order; locks held (whole file in one test transaction): Order AccessExclusiveLock, Order ShareLock, Order_pkey AccessExclusiveLock, Order_publicId_key AccessExclusiveLock
-- given: CREATE TABLE "Order" ("id" SERIAL NOT NULL, "total" INTEGER NOT NULL, CONSTRAINT "Order_pkey" PRIMARY KEY ("id"));
-- AlterTable
ALTER TABLE "Order" ADD COLUMN "publicId" UUID NOT NULL DEFAULT gen_random_uuid();

-- CreateIndex
CREATE UNIQUE INDEX "Order_publicId_key" ON "Order"("publicId");
