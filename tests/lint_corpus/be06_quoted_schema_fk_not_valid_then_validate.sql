-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint NOT VALID; VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE on the altered table, ROW SHARE on the referenced one)
-- verified: PG15+16: ADD ... NOT VALID did no scan; VALIDATE (own transaction) scanned "Invoice" only under ShareUpdateExclusiveLock
-- given: CREATE SCHEMA "Billing";
-- given: CREATE TABLE "Billing"."Customer" ("Id" bigint PRIMARY KEY, "Name" text);
-- given: CREATE TABLE "Billing"."Invoice" ("Id" bigint PRIMARY KEY, "CustomerId" bigint, "Amount" numeric(12,2));
ALTER TABLE "Billing"."Invoice" ADD CONSTRAINT "FK_Invoice_Customer_CustomerId" FOREIGN KEY ("CustomerId") REFERENCES "Billing"."Customer" ("Id") ON DELETE CASCADE NOT VALID;
ALTER TABLE "Billing"."Invoice" VALIDATE CONSTRAINT "FK_Invoice_Customer_CustomerId";
