-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD table_constraint [ NOT VALID ]: "the potentially-lengthy scan ... is skipped"); ONLY and a schema-qualified mixed-case name do not change that
-- verified: no scan of billing."Invoice", relfilenode unchanged; AccessExclusiveLock brief
-- given: CREATE SCHEMA billing;
-- given: CREATE TABLE billing."Invoice" ("Id" bigint PRIMARY KEY, "Amount" numeric(12,2), "Currency" char(3));
ALTER TABLE ONLY billing."Invoice" ADD CONSTRAINT "Invoice_Amount_nonneg" CHECK ("Amount" >= 0) NOT VALID;
