-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (RENAME: brief ACCESS EXCLUSIVE; running code using the old name fails)
-- verified: PG15: succeeds; AccessExclusiveLock on "Billing"."Invoices"; the column is renamed
-- given: CREATE SCHEMA "Billing";
-- given: CREATE TABLE "Billing"."Invoices" ("Id" bigint PRIMARY KEY, "InvoiceNumber" text NOT NULL, "CustomerId" bigint);
ALTER TABLE "Billing"."Invoices" RENAME COLUMN "CustomerId" TO "AccountId";
