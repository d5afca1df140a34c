-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-createindex.html (CONCURRENTLY, IF NOT EXISTS); quoted mixed-case schema/table/column names
-- verified: PG15: succeeds outside a block; "Billing"."IX_Invoices_InvoiceNumber" created, valid
-- given: CREATE SCHEMA "Billing";
-- given: CREATE TABLE "Billing"."Invoices" ("Id" bigint PRIMARY KEY, "InvoiceNumber" text NOT NULL, "CustomerId" bigint);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "IX_Invoices_InvoiceNumber" ON "Billing"."Invoices" ("InvoiceNumber");
