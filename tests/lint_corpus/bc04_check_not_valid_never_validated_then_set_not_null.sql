-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL: the scan is skipped only "if a valid CHECK constraint exists ... which proves no NULL can exist"); a CHECK added NOT VALID and never validated is not valid (convalidated = false), so SET NOT NULL still scans under ACCESS EXCLUSIVE
-- verified: PG15: the ADD ... NOT VALID did not scan; SET NOT NULL increased seq_scan of invoices by 1 (the NOT VALID check did not help); relfilenode unchanged
-- given: CREATE SCHEMA billing;
-- given: CREATE TABLE billing.invoices (id bigint PRIMARY KEY, customer_id bigint, amount_cents bigint);
ALTER TABLE billing.invoices ADD CONSTRAINT invoices_customer_id_not_null CHECK (customer_id IS NOT NULL) NOT VALID;
ALTER TABLE billing.invoices ALTER COLUMN customer_id SET NOT NULL;
ALTER TABLE billing.invoices DROP CONSTRAINT invoices_customer_id_not_null;
